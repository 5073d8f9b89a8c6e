//! Work stealing for the collector's parallel marking: one shared queue per
//! worker, stealing, and the termination protocol (HotSpot's
//! `TaskQueueSet` + `TaskTerminator`, simplified to a locked queue per
//! worker; MMTk's work packets are the same shape).
//!
//! Where it sits: under `parallel.rs`, which runs the collector's phases on
//! [`crate::gc::heap::runtime::HeapInner`]'s worker threads. Marking is the one phase whose
//! work grows as it is done (each object marked brings its fields), so it
//! is the one that needs stealing; evacuation and update-refs split the
//! heap by region with an atomic claim index instead.
//!
//! Each worker traces from a private stack (no synchronisation on the hot
//! path). When its stack holds more than a batch and its shared queue is
//! empty, it moves half of the stack into the shared queue, where idle
//! workers can steal it. A worker whose stack runs dry takes from its own
//! queue, then steals half of another's; when nothing is found it offers
//! termination.
//!
//! Termination: a worker offering termination increments `idle` and spins
//! (yielding) until either every worker is idle (then all return) or some
//! queue looks non-empty (then it decrements `idle` and goes stealing).
//! Why "all idle" is final, and every queue empty then:
//! - only a queue's owner pushes to it, and only while not idle;
//! - a worker offers termination only after finding its own queue empty
//!   (under the queue's lock), so while it is idle its queue stays empty;
//! - so when every worker is idle every queue is empty, no idle worker
//!   sees work to leave for, and no worker is left to make any: the count
//!   stays at `workers` and each worker returns.
//!
//! A worker thread that could not be started is counted idle for good
//! ([`TaskQueues::absent`]): its queue is empty (nothing seeds it), so the
//! argument holds for the workers that run. The seeds go to worker 0's
//! queue; worker 0 is the thread that runs the phase, always present.

use crate::gc::atomic::{yield_now, AtomicBool, AtomicUsize, Mutex, MutexGuard, Ordering};

/// A worker moves half its stack to its shared queue when the stack holds
/// more than this and the queue is empty.
pub(crate) const PUBLISH: usize = 64;

/// The shared queues of one parallel marking phase.
pub(crate) struct TaskQueues {
    queues: Box<[Mutex<Vec<usize>>]>,
    /// Each queue's length, written under its lock: what an idle worker
    /// peeks without locking.
    lens: Box<[AtomicUsize]>,
    /// Workers offering termination (and absent ones).
    idle: AtomicUsize,
    workers: usize,
    publish: usize,
    /// A worker panicked: the others stop looking for work and return.
    aborted: AtomicBool,
}

impl TaskQueues {
    /// Queues for `workers` workers, with `seeds` in worker 0's queue.
    pub(crate) fn new(workers: usize, seeds: Vec<usize>) -> TaskQueues {
        Self::with_publish(workers, seeds, PUBLISH)
    }

    /// As [`TaskQueues::new`], publishing past `publish` items (the loom
    /// models use 1, so that every push is shareable).
    pub(crate) fn with_publish(workers: usize, seeds: Vec<usize>, publish: usize) -> TaskQueues {
        let workers = workers.max(1);
        let lens: Box<[AtomicUsize]> = (0..workers).map(|_| AtomicUsize::new(0)).collect();
        // Relaxed: the queues are handed to the workers by the pool's wake
        // (its mutex; a thread spawn in the loom models), which orders
        // everything before it.
        lens[0].store(seeds.len(), Ordering::Relaxed);
        let mut seeds = Some(seeds);
        TaskQueues {
            queues: (0..workers)
                .map(|w| {
                    Mutex::new(if w == 0 {
                        seeds.take().unwrap_or_default()
                    } else {
                        Vec::new()
                    })
                })
                .collect(),
            lens,
            idle: AtomicUsize::new(0),
            workers,
            publish,
            aborted: AtomicBool::new(false),
        }
    }

    fn lock(&self, w: usize) -> MutexGuard<'_, Vec<usize>> {
        // Nothing panics while a queue's lock is held.
        self.queues[w].lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Worker `w` could not be started: counted idle for good.
    pub(crate) fn absent(&self, w: usize) {
        debug_assert_ne!(w, 0, "worker 0 is the calling thread");
        // SeqCst: the termination count (module docs).
        self.idle.fetch_add(1, Ordering::SeqCst);
    }

    /// A worker panicked: every other worker returns at its next look for
    /// work (the phase's caller then reports the panic).
    pub(crate) fn abort(&self) {
        // SeqCst: read in the termination loop, beside the count.
        self.aborted.store(true, Ordering::SeqCst);
    }

    /// After worker `w` pushed onto `local`: shares half of it when it has
    /// grown past the batch and `w`'s queue is empty.
    #[inline]
    pub(crate) fn maybe_publish(&self, w: usize, local: &mut Vec<usize>) {
        // Relaxed peek: a stale length only delays or skips one publish.
        if local.len() > self.publish && self.lens[w].load(Ordering::Relaxed) == 0 {
            self.publish_half(w, local);
        }
    }

    #[cold]
    fn publish_half(&self, w: usize, local: &mut Vec<usize>) {
        // Rounds down, so a non-empty `local` stays non-empty: a marking
        // worker's prefetch FIFO holds objects only while its stack does
        // (`marking.rs`), and `run` ends a worker's loop on an empty stack.
        let half = local.len() / 2;
        let mut q = self.lock(w);
        q.extend(local.drain(..half));
        // SeqCst: an idle worker's peek must not miss work that exists.
        // (The termination argument does not depend on it; it only keeps
        // idle workers from spinning past shareable work.)
        self.lens[w].store(q.len(), Ordering::SeqCst);
    }

    /// Moves up to half of queue `from` (all of it, for the owner) into
    /// `local`; whether anything was taken.
    fn take(&self, w: usize, from: usize, local: &mut Vec<usize>) -> bool {
        let mut q = self.lock(from);
        if q.is_empty() {
            return false;
        }
        let n = if from == w { q.len() } else { q.len().div_ceil(2) };
        let start = q.len() - n;
        local.extend(q.drain(start..));
        // SeqCst: see `publish_half`.
        self.lens[from].store(q.len(), Ordering::SeqCst);
        true
    }

    /// A thread that is not one of the workers (a mutator's assist,
    /// `assist.rs`) takes half of the first non-empty queue into `local`;
    /// whether anything was taken. It takes as an idle worker steals and
    /// never pushes to a queue nor counts as idle, so the termination
    /// argument (module docs) is the workers' alone; what it took is its
    /// own to finish or hand back to the phase's caller.
    pub(crate) fn steal(&self, local: &mut Vec<usize>) -> bool {
        for from in 0..self.workers {
            // Relaxed peek: an empty-looking queue is skipped; a stale
            // length only skips one steal.
            if self.lens[from].load(Ordering::Relaxed) > 0 && self.take(usize::MAX, from, local) {
                return true;
            }
        }
        false
    }

    /// Worker `w`'s stack is empty: refills it from its own queue or by
    /// stealing, and returns true; or, when every worker has run out,
    /// returns false (the phase is done for every worker).
    pub(crate) fn find_work(&self, w: usize, local: &mut Vec<usize>) -> bool {
        debug_assert!(local.is_empty());
        loop {
            if self.take(w, w, local) {
                return true;
            }
            for k in 1..self.workers {
                if self.take(w, (w + k) % self.workers, local) {
                    return true;
                }
            }
            // Offer termination. SeqCst on the count: every worker's
            // increment and the loads below are in one order (module docs).
            self.idle.fetch_add(1, Ordering::SeqCst);
            loop {
                if self.idle.load(Ordering::SeqCst) == self.workers || self.aborted.load(Ordering::SeqCst) {
                    return false;
                }
                if self.lens.iter().any(|l| l.load(Ordering::SeqCst) > 0) {
                    self.idle.fetch_sub(1, Ordering::SeqCst);
                    break; // go stealing
                }
                yield_now();
            }
        }
    }

    /// Runs worker `w` to termination: `process(item, &mut local)` for every
    /// item it gets, which may push new items onto `local`.
    pub(crate) fn run(&self, w: usize, mut process: impl FnMut(usize, &mut Vec<usize>)) {
        let mut local = Vec::new();
        while self.find_work(w, &mut local) {
            while let Some(item) = local.pop() {
                process(item, &mut local);
                self.maybe_publish(w, &mut local);
            }
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! The termination protocol over a toy graph: item `k` brings items
    //! `2k + 1` and `2k + 2` below a bound (a tree, so each is pushed once).
    //! Every item is processed exactly once, and every worker returns
    //! (loom fails a model whose threads spin forever or deadlock).

    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    fn tree(items: usize, workers: usize, absent: bool) {
        loom::model(move || {
            let q = Arc::new(TaskQueues::with_publish(workers, vec![0], 1));
            let seen: Arc<Vec<AtomicUsize>> = Arc::new((0..items).map(|_| AtomicUsize::new(0)).collect());
            let work = move |q: &TaskQueues, seen: &[AtomicUsize], w: usize| {
                q.run(w, |k, local| {
                    seen[k].fetch_add(1, Ordering::Relaxed);
                    for c in [2 * k + 1, 2 * k + 2] {
                        if c < items {
                            local.push(c);
                        }
                    }
                });
            };
            let mut others = Vec::new();
            for w in 1..workers {
                if absent && w == workers - 1 {
                    q.absent(w);
                    continue;
                }
                let (q, seen) = (q.clone(), seen.clone());
                others.push(thread::spawn(move || work(&q, &seen, w)));
            }
            work(&q, &seen, 0);
            for t in others {
                t.join().unwrap();
            }
            // Relaxed: read after every worker joined.
            for (k, s) in seen.iter().enumerate() {
                assert_eq!(s.load(Ordering::Relaxed), 1, "item {k} processed once");
            }
        });
    }

    /// Two workers, four items: the seed worker publishes, the other steals;
    /// both terminate with every item done once.
    #[test]
    fn loom_two_workers_steal_and_terminate() {
        tree(4, 2, false);
    }

    /// Three workers of which one never started: the two that run still
    /// terminate, with every item done (two items: the stealing is the
    /// model above's; three items here take loom minutes).
    #[test]
    fn loom_absent_worker_does_not_block_termination() {
        tree(2, 3, true);
    }
}
