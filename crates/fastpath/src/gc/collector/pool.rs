//! The collector's persistent worker threads: started once (at the first
//! parallel phase), parked between phases, woken per phase (HotSpot's
//! `WorkerThreads::run_task`, MMTk's `GCWorkerGroup`), so a short phase,
//! a pause's above all, does not pay a thread spawn and join per worker.
//!
//! Where it sits: owned by [`crate::gc::heap::runtime::HeapInner`]; `parallel.rs`'s
//! `run_workers` hands it each phase. The protocol ([`PoolShared`]) is
//! model-checked with loom; the thread handles around it ([`WorkerPool`])
//! are std only.
//!
//! The protocol, all under one mutex:
//! - [`PoolShared::run`] (one phase at a time: `runner`) publishes the
//!   phase's job and the number of workers that take part, bumps the
//!   generation, sets `pending` to the pool threads taking part and wakes
//!   every parked thread; runs worker 0 itself; then waits until `pending`
//!   is 0, and clears the job before returning.
//! - A pool thread ([`PoolShared::worker_loop`], index `w` >= 1) parks
//!   until the generation differs from the last one it saw (or shutdown);
//!   it runs the job only if `w` is below the phase's worker count, then
//!   decrements `pending` and wakes the runner at 0.
//!
//! Why the job's borrow is sound: the job reference is stored only between
//! the publish and the clear, both in `run`, and `run` returns (or
//! unwinds) only after every thread taking part has decremented `pending`,
//! which each does after its last use of the job. A thread that does not
//! take part never calls the job; one that wakes after the clear finds no
//! job (or the next phase's) and parks again.
//!
//! A job's panic on a pool thread is caught there, kept, and raised by
//! `run` after every worker is done (the first one wins); the thread goes
//! back to parking, so the pool outlives a failed phase.

use std::any::Any;

use crate::gc::atomic::{Condvar, Mutex, MutexGuard};

/// A phase's work: called once per worker index taking part.
pub(crate) type Job<'a> = &'a (dyn Fn(usize) + Sync);

struct State {
    /// Bumped once per phase.
    generation: u64,
    /// The phase's job and worker count (worker 0 included), between its
    /// publish and its clear in `run` (module docs).
    job: Option<(Job<'static>, usize)>,
    /// Pool threads of this phase not yet done.
    pending: usize,
    /// The first panic of a pool thread in this phase.
    panic: Option<Box<dyn Any + Send>>,
    shutdown: bool,
}

/// The park/wake protocol of the worker pool (module docs).
pub(crate) struct PoolShared {
    state: Mutex<State>,
    /// Parked pool threads wait here for a phase.
    wake: Condvar,
    /// The runner waits here for `pending` to reach 0.
    done: Condvar,
    /// Held for a whole phase: one phase at a time.
    runner: Mutex<()>,
}

impl PoolShared {
    pub(crate) fn new() -> PoolShared {
        PoolShared {
            state: Mutex::new(State {
                generation: 0,
                job: None,
                pending: 0,
                panic: None,
                shutdown: false,
            }),
            wake: Condvar::new(),
            done: Condvar::new(),
            runner: Mutex::new(()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while the state's lock is held.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `job(w)` for `w` in `0..n`: 0 on the calling thread, 1.. on
    /// the pool threads `1..n` (the caller guarantees that many are
    /// running `worker_loop`). Returns once every call has returned; a
    /// panic of any is raised here after that.
    pub(crate) fn run(&self, n: usize, job: Job<'_>) {
        let _one_phase = self.runner.lock().unwrap_or_else(|e| e.into_inner());
        let helpers = n.saturating_sub(1);
        if helpers > 0 {
            // SAFETY: only the lifetime changes. The reference is stored in
            // the state until the clear below, which runs only after every
            // pool thread taking part has finished with it (`pending` 0);
            // threads not taking part never call it (module docs). So no
            // use of it outlives this call, hence `job`'s borrow.
            let job: Job<'static> = unsafe { std::mem::transmute::<Job<'_>, Job<'static>>(job) };
            let mut s = self.lock();
            s.generation += 1;
            s.job = Some((job, n));
            s.pending = helpers;
            drop(s);
            self.wake.notify_all();
        }
        let mine = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(0)));
        let mut theirs = None;
        if helpers > 0 {
            let mut s = self.lock();
            while s.pending > 0 {
                s = self.done.wait(s).unwrap_or_else(|e| e.into_inner());
            }
            s.job = None;
            theirs = s.panic.take();
        }
        if let Err(p) = mine {
            std::panic::resume_unwind(p);
        }
        if let Some(p) = theirs {
            std::panic::resume_unwind(p);
        }
    }

    /// A pool thread's body, as worker `w` (>= 1): parks, runs each phase
    /// it takes part in, until [`PoolShared::shutdown`].
    pub(crate) fn worker_loop(&self, w: usize) {
        let mut seen = 0;
        let mut s = self.lock();
        loop {
            while s.generation == seen && !s.shutdown {
                s = self.wake.wait(s).unwrap_or_else(|e| e.into_inner());
            }
            if s.shutdown {
                return;
            }
            seen = s.generation;
            let Some((job, n)) = s.job else { continue };
            if w >= n {
                continue;
            }
            drop(s);
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(w)));
            s = self.lock();
            if let Err(p) = r {
                s.panic.get_or_insert(p);
            }
            s.pending -= 1;
            if s.pending == 0 {
                self.done.notify_all();
            }
        }
    }

    /// Wakes every pool thread to return from `worker_loop` (between
    /// phases: the runner lock is taken first).
    pub(crate) fn shutdown(&self) {
        let _between_phases = self.runner.lock().unwrap_or_else(|e| e.into_inner());
        self.lock().shutdown = true;
        self.wake.notify_all();
    }
}

/// The pool's threads (std only): started on demand, joined on drop.
#[cfg(not(loom))]
pub(crate) struct WorkerPool {
    shared: std::sync::Arc<PoolShared>,
    threads: std::sync::Mutex<Vec<std::thread::JoinHandle<()>>>,
}

#[cfg(not(loom))]
impl WorkerPool {
    pub(crate) fn new() -> WorkerPool {
        WorkerPool {
            shared: std::sync::Arc::new(PoolShared::new()),
            threads: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// Runs `job` on workers `0..n` (see [`PoolShared::run`]), starting
    /// pool threads up to `n - 1` first if fewer run. A thread that cannot
    /// be started is left out: `absent(w)` is called for each index from
    /// the first missing one to `n`, before the phase, and the phase runs on
    /// the others. Returns (threads that took part, threads started now).
    pub(crate) fn run(&self, n: usize, job: Job<'_>, absent: &dyn Fn(usize)) -> (usize, usize) {
        let (running, started) = {
            let mut threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
            let mut started = 0;
            while threads.len() + 1 < n {
                let w = threads.len() + 1;
                let shared = self.shared.clone();
                let t = std::thread::Builder::new()
                    .name(format!("fastpath-gc-{w}"))
                    .spawn(move || shared.worker_loop(w));
                match t {
                    Ok(t) => {
                        threads.push(t);
                        started += 1;
                    }
                    Err(_) => break,
                }
            }
            (threads.len(), started)
        };
        let m = n.min(running + 1);
        for w in m..n {
            absent(w);
        }
        self.shared.run(m, job);
        (m.saturating_sub(1), started)
    }
}

#[cfg(not(loom))]
impl Drop for WorkerPool {
    fn drop(&mut self) {
        self.shared.shutdown();
        let threads = std::mem::take(self.threads.get_mut().unwrap_or_else(|e| e.into_inner()));
        for t in threads {
            // A pool thread catches its jobs' panics: it returns normally.
            let _ = t.join();
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Phases of different widths on one pool: each worker index taking
    /// part runs exactly once per phase, threads are started once, and a
    /// panic on a pool thread reaches the runner without ending the pool.
    #[test]
    fn phases_reuse_threads_and_report_panics() {
        let pool = WorkerPool::new();
        let hits: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
        let count = |w: usize| {
            // Relaxed: read after the phase, which orders it (the pool's lock).
            hits[w].fetch_add(1, Ordering::Relaxed);
        };
        let mut spawned = 0;
        for n in [4, 2, 4, 1, 3] {
            let (took_part, started) = pool.run(n, &count, &|w| panic!("worker {w} absent"));
            assert_eq!(took_part, n - 1);
            spawned += started;
        }
        assert_eq!(spawned, 3, "threads are started once");
        let got: Vec<usize> = hits.iter().map(|h| h.load(Ordering::Relaxed)).collect();
        assert_eq!(got, [5, 4, 3, 2]);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.run(
                3,
                &|w| {
                    if w == 2 {
                        panic!("worker 2 fails");
                    }
                },
                &|_| {},
            )
        }));
        let msg = r.expect_err("the pool thread's panic is raised by run");
        assert_eq!(msg.downcast_ref::<&str>(), Some(&"worker 2 fails"));
        pool.run(4, &count, &|_| {});
        assert_eq!(hits[3].load(Ordering::Relaxed), 3, "the pool works after a panic");
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! The park/wake protocol: every worker taking part runs once per
    //! phase, `run` returns only after them (the counts are read right
    //! after it, with no other synchronization), a thread left out of a
    //! phase never runs it, and shutdown ends every thread (loom fails a
    //! model that deadlocks or leaves a thread parked forever).

    use super::*;
    use loom::sync::atomic::{AtomicUsize, Ordering};
    use loom::sync::Arc;
    use loom::thread;

    fn model(threads: usize, phases: &'static [usize]) {
        loom::model(move || {
            let pool = Arc::new(PoolShared::new());
            let handles: Vec<_> = (1..=threads)
                .map(|w| {
                    let pool = pool.clone();
                    thread::spawn(move || pool.worker_loop(w))
                })
                .collect();
            let hits: Vec<AtomicUsize> = (0..=threads).map(|_| AtomicUsize::new(0)).collect();
            for (k, &n) in phases.iter().enumerate() {
                pool.run(n, &|w| {
                    // Relaxed: `run`'s return must order it (what this
                    // model checks).
                    hits[w].fetch_add(1, Ordering::Relaxed);
                });
                for (w, h) in hits.iter().enumerate() {
                    let want = phases[..=k].iter().filter(|&&m| w < m).count();
                    assert_eq!(h.load(Ordering::Relaxed), want, "worker {w} after phase {k}");
                }
            }
            pool.shutdown();
            for h in handles {
                h.join().unwrap();
            }
        });
    }

    /// One pool thread, two phases: parked, woken, parked, woken, shut down.
    #[test]
    fn loom_pool_two_phases() {
        model(1, &[2, 2]);
    }

    /// Two pool threads, a phase both take part in, then one only thread 1
    /// does (thread 2 may wake for it late, or not at all).
    #[test]
    fn loom_pool_thread_left_out() {
        model(2, &[3, 2]);
    }
}
