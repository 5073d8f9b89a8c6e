//! The collector's parallel phases: marking with work stealing,
//! evacuation and update-refs by region, the pauses' root work by mutator
//! (Shenandoah's `ShenandoahParallelGCThreads` workers, here
//! [`crate::gc::HeapConfig::workers`]).
//!
//! Where it sits: called by [`super::cycle`] (concurrent phases, the
//! pauses, the degenerated and passive collections) on its own thread,
//! which is worker 0; workers 1.. are the heap's pool threads (`pool.rs`:
//! started once, parked between phases, woken per phase), and every phase
//! ends with every worker done (a pause's work is over when the pause
//! ends). A worker thread that cannot be started is left out: the others
//! do its share (stealing, or claiming its regions). A worker's panic stops the others (marking's
//! [`TaskQueues::abort`]; the claim loops simply run out) and goes on to
//! the phase's caller, which poisons the heap as for any collector panic.
//!
//! - Marking: [`TaskQueues`] (`workers.rs`): each worker traces from its
//!   own stack and shares half of it when it grows; idle workers steal.
//!   The mark bit's `fetch_or` decides which worker scans an object, so
//!   each is scanned once. A graph small enough to trace in
//!   [`SERIAL_BUDGET`] objects is traced on the calling thread alone
//!   (final-mark's SATB remainder, usually): threads would cost more than
//!   the work.
//! - Evacuation and update-refs: the regions to process are listed, and
//!   each worker claims the next one with an atomic index. Copies race
//!   through the forwarding CAS and heals through the field CAS, as they
//!   already do against the mutators' barriers, so two workers are no new
//!   race. Each worker copies with its own LAB, retired (filled) when the
//!   phase ends.
//! - Roots (init-mark's marking, final-mark's evacuation, the updates of
//!   final-update-refs and the full compaction): each mutator's handle
//!   stack (and the globals) is one claim; parallel only past
//!   [`PARALLEL_ROOTS`] roots.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::assist::{mark_slice, region_slice, Published, RegionClaims, RegionWork};
use super::marking::Scanner;
use super::workers::TaskQueues;
use crate::gc::heap::runtime::HeapInner;
use crate::gc::heap::space::Lab;

/// A phase's work offered to the assists while this lives: withdrawn on
/// drop, a worker's panic included (before the pause after the phase).
struct Offer<'a>(&'a HeapInner);

impl<'a> Offer<'a> {
    fn new(heap: &'a HeapInner, work: Published) -> Offer<'a> {
        heap.assists.publish(work);
        Offer(heap)
    }
}

impl Drop for Offer<'_> {
    fn drop(&mut self) {
        self.0.assists.withdraw();
    }
}

/// Objects traced on the calling thread before workers are started.
pub(crate) const SERIAL_BUDGET: usize = 4096;

/// Roots below which the pauses' root work stays on the calling thread.
pub(crate) const PARALLEL_ROOTS: usize = 8192;

impl HeapInner {
    /// Runs `work(w)` for `w` in `0..n`: 0 on the calling thread, the others
    /// on the heap's persistent pool threads (`pool.rs`), all done before
    /// this returns. `absent(w)` is called for a worker whose thread could
    /// not start; `abort()` when a worker panics, before the panic goes on
    /// (out of this call, once every worker is done).
    pub(crate) fn run_workers(
        &self,
        n: usize,
        work: &(dyn Fn(usize) + Sync),
        absent: &(dyn Fn(usize) + Sync),
        abort: &(dyn Fn() + Sync),
    ) {
        let guarded = |w: usize| {
            // A pool thread's CPU time in this phase is the collector's
            // (worker 0's is counted by its caller).
            let cpu = (w > 0).then(crate::gc::heap::runtime::thread_cpu_time);
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(w)));
            if let Some(cpu) = cpu {
                self.count_collector_cpu(crate::gc::heap::runtime::thread_cpu_time().saturating_sub(cpu));
            }
            if let Err(p) = r {
                abort();
                std::panic::resume_unwind(p);
            }
        };
        if n <= 1 {
            guarded(0);
            return;
        }
        let (took_part, started) = self.pool.run(n, &guarded, absent);
        // Relaxed: statistics.
        if took_part > 0 {
            self.parallel_phases.fetch_add(1, Ordering::Relaxed);
        }
        self.worker_threads_started
            .fetch_add(started as u64, Ordering::Relaxed);
    }

    /// Marks everything reachable from `stack` (marked, unscanned objects):
    /// on the calling thread for a small graph, else with every worker.
    pub(in crate::gc) fn trace_parallel(&self, stack: &mut Vec<usize>) {
        let n = self.config.workers;
        if n <= 1 {
            self.trace(stack);
            return;
        }
        if self.trace_bounded(stack, SERIAL_BUDGET) {
            return;
        }
        let q = TaskQueues::new(n, std::mem::take(stack));
        self.run_workers(n, &|w| self.mark_worker(&q, w), &|w| q.absent(w), &|| q.abort());
    }

    /// Concurrent marking: as [`HeapInner::trace_parallel`], with the
    /// phase's queues published to the mutators' assists (`assist.rs`), on
    /// one worker too. What an assist takes and leaves unscanned goes to
    /// the grey list, which the caller takes before concluding marking.
    pub(in crate::gc) fn trace_concurrent(&self, stack: &mut Vec<usize>) {
        if !self.config.assists {
            self.trace_parallel(stack);
            return;
        }
        if self.trace_bounded(stack, SERIAL_BUDGET) {
            return;
        }
        let n = self.config.workers.max(1);
        let q = Arc::new(TaskQueues::new(n, std::mem::take(stack)));
        let _offered = Offer::new(self, Published::Mark(q.clone()));
        self.run_workers(n, &|w| self.mark_worker(&q, w), &|w| q.absent(w), &|| q.abort());
    }

    /// Worker `w` of a parallel marking phase over `q`.
    fn mark_worker(&self, q: &TaskQueues, w: usize) {
        let mut scanner = Scanner::new(self);
        let mut words = 0;
        q.run(w, |obj, local| {
            words += scanner.step(obj, local);
            if words >= super::cycle::PACER_BATCH {
                self.pacer.report(words);
                words = 0;
            }
        });
        self.pacer.report(words);
    }

    /// Calls `f(lab, i)` for every region index of `list`, spread over the
    /// workers (each claims the next index), each with its own LAB.
    pub(in crate::gc) fn par_regions(&self, list: &[usize], f: impl Fn(&Lab, usize) + Sync) {
        // Not published: the claims' work tag is never read.
        self.par_claims(&RegionClaims::new(list.to_vec(), RegionWork::UpdateRefs), f);
    }

    /// A concurrent region phase (evacuation or update-refs) over `list`:
    /// the claims are published to the mutators' assists (`assist.rs`),
    /// which run `work` on the regions they claim; the workers run `f`.
    pub(in crate::gc) fn par_regions_concurrent(
        &self,
        list: Vec<usize>,
        work: RegionWork,
        f: impl Fn(&Lab, usize) + Sync,
    ) {
        let claims = Arc::new(RegionClaims::new(list, work));
        let _offered = self
            .config
            .assists
            .then(|| Offer::new(self, Published::Regions(claims.clone())));
        self.par_claims(&claims, f);
    }

    /// The workers' claim loop over `claims`, each worker with its own LAB.
    fn par_claims(&self, claims: &RegionClaims, f: impl Fn(&Lab, usize) + Sync) {
        let n = self.config.workers.min(claims.list.len()).max(1);
        self.run_workers(
            n,
            &|_| {
                let lab = Lab::default();
                while let Some(i) = claims.claim() {
                    f(&lab, i);
                }
                lab.retire(&self.space);
            },
            &|_| {},
            &|| {},
        );
    }

    /// A mutator's assist slice (`assist.rs`): up to about `budget` words of
    /// the running concurrent phase's work, copying with `lab`; returns the
    /// words done (0: no phase offers work now, or its units are all
    /// taken). Called outside any safe region, so no pause overlaps it;
    /// `stop()` (the caller's poll word armed) ends it early.
    pub(crate) fn assist(&self, lab: &Lab, budget: usize, stop: &dyn Fn() -> bool) -> usize {
        let Some(work) = self.assists.current() else {
            return 0;
        };
        let start = std::time::Instant::now();
        let words = match work {
            Published::Mark(q) => {
                // The SATB queue too, as the collector's marking loop takes it.
                let mut local = Vec::new();
                let satb = std::mem::take(&mut *self.satb_queue());
                for v in satb {
                    self.mark_object(v, &mut local);
                }
                let mut unreported = 0;
                let mut scanner = Scanner::new(self);
                let words = mark_slice(&q, &self.assists, &mut local, budget, stop, |obj, local| {
                    let w = scanner.step(obj, local);
                    unreported += w;
                    if unreported >= super::cycle::PACER_BATCH {
                        self.pacer.report(unreported);
                        unreported = 0;
                    }
                    w
                });
                self.pacer.report(unreported);
                scanner.give_back(&mut local);
                self.assists.give_back(&mut local);
                words
            }
            Published::Regions(c) => region_slice(&c, budget, stop, |i| match c.work {
                RegionWork::Evacuate => self.evacuate_region(i, lab),
                RegionWork::UpdateRefs => self.update_region(i),
            }),
        };
        if words > 0 {
            self.assists.count(words, start.elapsed());
        }
        words
    }

    /// Calls `f(lab, root)` on every root slot, in a pause: by mutator,
    /// over the workers when there are [`PARALLEL_ROOTS`] or more.
    pub(in crate::gc) fn par_roots(&self, f: impl Fn(&Lab, &mut usize) + Sync) {
        self.par_roots_with(Lab::default, |lab, r| f(lab, r), |lab| lab.retire(&self.space));
    }

    /// Marks every root (in a pause), pushing the newly marked onto
    /// `stack`: by mutator, over the workers when there are
    /// [`PARALLEL_ROOTS`] or more, each with its own stack (the mark bit's
    /// `fetch_or` picks one worker per object).
    pub(in crate::gc) fn mark_roots(&self, stack: &mut Vec<usize>) {
        let found = std::sync::Mutex::new(std::mem::take(stack));
        self.par_roots_with(
            Vec::new,
            |local, r| self.mark_object(*r, local),
            // Nothing panics while the lock is held.
            |local| found.lock().unwrap_or_else(|e| e.into_inner()).extend(local),
        );
        *stack = found.into_inner().unwrap_or_else(|e| e.into_inner());
    }

    /// The roots' claim loop: each worker makes its state with `make`,
    /// calls `f(state, slot)` on every slot of each mutator's handle stack
    /// and its root scanner (one claim each) and of the globals and the
    /// heap's root scanners (one claim), and hands its state to `done`.
    fn par_roots_with<T>(
        &self,
        make: impl Fn() -> T + Sync,
        f: impl Fn(&mut T, &mut usize) + Sync,
        done: impl Fn(T) + Sync,
    ) {
        let stacks = self.mutators().clone();
        let total: usize = stacks.iter().map(|m| m.roots().len()).sum();
        let n = if total >= PARALLEL_ROOTS {
            self.config.workers.min(stacks.len() + 1)
        } else {
            1
        };
        let next = AtomicUsize::new(0);
        self.run_workers(
            n,
            &|_| {
                let mut state = make();
                loop {
                    // Relaxed: a claim (see `par_regions`).
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if let Some(m) = stacks.get(k) {
                        for slot in m.roots().iter_mut() {
                            f(&mut state, &mut slot.addr);
                        }
                        if let Some(s) = m.scanner.get() {
                            s.scan(&mut |r| f(&mut state, r));
                        }
                    } else if k == stacks.len() {
                        for g in self.globals().iter_mut() {
                            f(&mut state, g);
                        }
                        for s in self.root_scanners.snapshot() {
                            s.scan(&mut |r| f(&mut state, r));
                        }
                    } else {
                        break;
                    }
                }
                done(state);
            },
            &|_| {},
            &|| {},
        );
    }

    /// Takes the grey list (what assists marked and left unscanned) onto
    /// `stack`; whether it held anything.
    pub(in crate::gc) fn take_grey(&self, stack: &mut Vec<usize>) -> bool {
        let grey = self.assists.take_grey();
        let any = !grey.is_empty();
        stack.extend(grey);
        any
    }

    /// Traces from `stack` on this thread for at most `budget` objects;
    /// true if the stack ran dry.
    fn trace_bounded(&self, stack: &mut Vec<usize>, budget: usize) -> bool {
        let mut scanner = Scanner::new(self);
        let mut words = 0;
        for _ in 0..budget {
            let Some(obj) = stack.pop() else { break };
            words += scanner.step(obj, stack);
        }
        scanner.give_back(stack);
        self.pacer.report(words);
        stack.is_empty()
    }
}
