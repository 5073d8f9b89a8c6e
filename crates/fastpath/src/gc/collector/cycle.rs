//! The collector: concurrent SATB marking and concurrent evacuation with
//! update-refs, after Shenandoah (JDK 12+ phases), and the passive mode's
//! stop-the-world collection built from the same phases.
//!
//! Where it sits: on its own thread (concurrent mode) or on the thread of
//! a mutator whose TLAB could not be refilled (passive mode). It writes the
//! GC state byte the barriers in [`crate::gc::heap::mutator`] test, and only inside
//! pauses ([`crate::gc::heap::safepoint`]).
//!
//! A cycle (state byte bits in brackets):
//!
//! 1. *Concurrent reset*: clear the mark bitmap and live counts.
//! 2. **Init-mark** pause: every region's TAMS := top; mark the roots;
//!    set [MARKING]. Mutators retired their TLABs on stopping, so every
//!    object allocated from now on is above TAMS, hence live.
//! 3. *Concurrent mark*: trace from the marked objects; drain the SATB
//!    queue, where the `satb` barrier puts every reference a store
//!    overwrites, so no object reachable at init-mark is missed
//!    (Yuasa's snapshot-at-the-beginning).
//! 4. **Final-mark** pause: drain the rest of SATB, finish the trace; clear
//!    MARKING; free regions with nothing live; choose the collection set
//!    (regions with no allocation since TAMS, no pinned object, sized to
//!    fit the evacuation reserve, though running out is survived: below); set [EVACUATION | HAS_FORWARDED]; evacuate the
//!    objects the roots point to and update the roots, so mutators resume
//!    holding to-space references only. When the regions freed whole
//!    held most of the garbage marking found
//!    (`HeapConfig::immediate_garbage_percent`), no set is chosen and the
//!    cycle ends here (Shenandoah's abbreviated cycle): steps 5 to 8 would
//!    cost a parse of every live object and two pauses for little memory.
//! 5. *Concurrent evacuation*: copy every marked object of the set. A
//!    mutator's `lrb` or `brooks-wb` may copy one first: the forwarding
//!    CAS picks one winner ([`crate::gc::heap::forwarding`]).
//! 6. **Init-update-refs** pause: close every LAB (the heap becomes
//!    parsable), record each region's update watermark; clear EVACUATION.
//! 7. *Concurrent update-refs*: in every live object below the watermarks,
//!    CAS each reference into the set to the forwardee. Objects above the
//!    watermarks were allocated when every barrier already returned
//!    to-space references (LRB on loads; the storeval part of `brooks-wb`).
//! 8. **Final-update-refs** pause: update the roots; clear HAS_FORWARDED;
//!    free the collection set; clean the cards (their refinement: this
//!    collector is not generational, so dirty cards feed no remembered set;
//!    the card barriers are there to be costed); verify, if asked.
//!
//! Evacuation failure: a copy that finds no space (the reserve and every
//! free region taken, or the test knob `HeapConfig::evac_lab_limit`) closes
//! evacuation for the cycle ([`crate::gc::heap::forwarding::EvacScope`], Shenandoah's
//! evac-OOM protocol): objects not yet copied stay where they are, which
//! every barrier and update-refs then resolve to, as if forwarded to
//! themselves. Init-update-refs marks each set region still holding such a
//! live object *evacuation-failed*; update-refs parses those regions too
//! (their objects that stayed may point into the set), and final-update-refs
//! keeps them (out of the set, not freed). The next cycle marks them like
//! any region, so it can collect them. Allocation pacing (`pacer.rs`) keeps
//! mutators from emptying the heap during a cycle in the first place.
//!
//! Degenerated cycles (Shenandoah's degenerated GC): a mutator whose
//! refill fails during a cycle raises the heap's `degenerate` flag and
//! waits; the collector looks at the flag at each phase boundary. After
//! concurrent mark it finishes the cycle in one [`PauseKind::Degenerated`]
//! pause, with the phases' own code run stop-the-world. After evacuation it
//! goes on: init-update-refs returns the unused evacuation reserve to the
//! mutators, and those waiting for memory retry then. After update-refs
//! (that phase complete) the degenerated pause does final-update-refs'
//! work only. If the heap is still full after a degenerated pause, the
//! same pause runs a full compaction (`compact.rs`), which needs no room
//! to copy. Both are counted in [`crate::gc::GcStats`] (`degenerated_cycles`,
//! `full_compactions`), and where a mutator ran dry in `GcStats::phases`.
//!
//! During update-refs no copy is made, so the mutators may take part of
//! the standing evacuation reserve: as many regions as final-update-refs
//! will free (`AllocState::mutator_floor`), and the pacer's budget is set
//! up again for that phase from the free space then.
//!
//! Locked objects. A lock names its object by address where the collector
//! cannot update it: a lock-stack entry (lightweight), a legacy lock
//! record, a monitor's object field. So a region holding an object some
//! thread holds locked, or whose header names a monitor, is never chosen
//! for the set (the address must stay the object's) nor freed while the
//! lock is held. Final-mark decides with four kinds of evidence:
//!
//! - *Marking* flags (`monitor_seen`) a region holding a live object whose
//!   header was not plain unlocked when it was scanned (fast-locked,
//!   stack-locked, inflated).
//! - *Stopped mutators* pin (`pins`) the regions of the objects on their
//!   thread's lock-stack and legacy raw-API records, on every way into a
//!   stop (a poll, a safe region, a passive collection) until they run
//!   again (`Mutator::pin_held_locks`). Final-mark is a pause: every
//!   mutator is stopped, so every fast- or stack-locked object of a
//!   mutator's thread is pinned then, however late it was locked.
//! - *Runtime lock calls* (`barriers/raw_access.rs`, the interpreter's and
//!   compiled code's slow paths) flag the region of each object they leave
//!   inflated (`Space::note_monitor_if_inflated`: the entered object, the
//!   exited one, the lock-stack entries a full stack inflated, a
//!   claimed or waited-on monitor's), and pin by hand the object a
//!   contended enter blocks on in its safe region (on no lock-stack yet).
//!   A monitor is installed only by such a call, or inside a safe region
//!   whose stop pinned the object, so an object inflated after marking
//!   scanned it is flagged by the time its mutator next runs.
//! - *`ObjLock`* (`Mutator::lock`) pins for its whole life.
//!
//! Why that suffices: take an object X held locked at final-mark of a cycle.
//! If X is above its region's TAMS, the region took allocations during the
//! cycle and is not a candidate. Otherwise X is marked (held objects stay
//! reachable: the runtime lock calls' contract) and was scanned once,
//! between init-mark and final-mark. Locked fast or stack-locked at
//! final-mark: its mutator's stop pins it. Inflated at final-mark: if it
//! was already inflated when scanned, marking flagged it; if it was
//! inflated later, the call that inflated it flagged it (before final-mark:
//! its mutator ran after it and stopped for the pause), or that call is
//! still inside its safe region, its object pinned. Nothing else changes a
//! header to inflated. Locks taken after final-mark are of resolved objects
//! (every lock path resolves for writing first: compiled code's
//! `resolve_write`, `header_for_write`, `Mutator::lock`), which lie outside
//! the set, and the roots final-mark updates hold to-space references only;
//! the next cycle's final-mark judges them again. Inflated objects nobody
//! holds (a monitor not yet deflated) are flagged the same ways, and
//! `lock_seen` makes freeing a region release a dead object's monitor.
//! Full compaction (`compact.rs`) leaves pinned and flagged regions where
//! they are, and runs inside a pause (every mutator stopped, the passive
//! collector's own mutator pinning before it begins) or a passive
//! collection, so it sees the same pins.
//!
//! So the uncontended lightweight lock costs compiled code what it costs
//! HotSpot: the header CAS and the lock-stack push, and the CAS and pop
//! to unlock, with no per-lock pin (a `lock xadd` on a shared region
//! word, two per pair). HotSpot instead treats lock-stack entries as
//! roots (`LockStack::oops_do`, walked from `JavaThread::oops_do`, so
//! Shenandoah updates them when it moves a fast-locked object) and
//! monitors' objects as weak handles the GC updates. Here the addresses
//! are never updated: the objects they name are kept out of the set
//! instead, at the cost of collecting a locked object's region one cycle
//! later. A stop pins at most a lock-stack's worth of regions (and a legacy
//! thread's raw records), once per stop rather than once per lock.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::assist::RegionWork;
use super::marking::Scanner;
use super::trigger::{CycleClock, CycleEnd, Trigger};
use crate::gc::heap::runtime::{
    panic_message, thread_cpu_time, CyclePhases, HeapInner, Pause, PauseKind, PhaseTime, EVACUATION,
    HAS_FORWARDED, MARKING,
};
use crate::gc::heap::space::{Lab, Space, CLEAN_CARD, HUMONGOUS_CONT, HUMONGOUS_START};
use crate::sync::LockState;

/// The share of the free regions outside the standing reserve that
/// final-mark may set aside for the collection set's copies, in percent;
/// the rest is the mutators' until the cycle ends. A cycle's net gain is
/// its set less the copies, so on a heap whose garbage is spread evenly a
/// larger room buys fewer cycles for a little more copying; the memory it
/// holds back is memory the mutators cannot take until evacuation ends
/// (the value chosen by measurement: BENCHMARKS.md, concurrent mode).
const COPY_ROOM_PERCENT: usize = 70;

/// Copies the collector makes inside one entry of the evacuation scope
/// (`evacuate_region`): a thread that finds no space for a copy waits
/// for the batch to end, a few microseconds.
const COPY_BATCH: usize = 128;

/// Marking reports its work to the pacer in batches of this many words,
/// to keep the pacer's atomics off the marking loop.
pub(crate) const PACER_BATCH: usize = 4096;

/// Where a concurrent cycle was when a mutator's failed allocation turned
/// it into a degenerated one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// During concurrent marking (before final-mark).
    Mark,
    /// After concurrent update-refs (before final-update-refs).
    UpdateRefs,
}

/// Whether the regions final-mark freed whole hold enough of the garbage
/// marking found that the cycle ends there, with no collection set:
/// more than `percent` % of it (`immediate` and `garbage` in words).
/// Evacuating the few partly live regions left would cost an
/// evacuation and an update-refs phase (a parse of every live object in
/// the heap) and two pauses, to reclaim the small rest, which a later
/// cycle can reclaim as well. Shenandoah's "abbreviated cycle"
/// (`ShenandoahHeuristics::choose_collection_set`, openjdk/jdk, with
/// `ShenandoahImmediateThreshold`, 90 by default). No garbage at all
/// leaves nothing to evacuate either way.
fn immediate_garbage_suffices(immediate: usize, garbage: usize, percent: usize) -> bool {
    garbage == 0 || immediate.saturating_mul(100) > garbage.saturating_mul(percent)
}

impl HeapInner {
    /// The collector thread's body: a cycle whenever one is requested (a
    /// mutator's failed allocation, `Mutator::collect`) or the heap runs
    /// low; exits once the `Heap` is dropped and no mutator is left. A
    /// panic in a cycle poisons the heap (after its pause, if it was in
    /// one, has released the mutators) and ends the thread.
    pub(crate) fn collector_loop(&self) {
        let mut trigger = Trigger::new(&self.space);
        loop {
            let mut clock = {
                let mut c = self.control();
                loop {
                    if c.shutdown && self.safepoint.registered() == 0 {
                        return;
                    }
                    let free = self.space.lock_alloc().free.len();
                    let start =
                        c.requested || self.config.aggressive || trigger.should_start(&self.space, free);
                    // Relaxed: a hint for the mutators' refills (`Space::note_free_left`);
                    // 0 while a cycle runs, so none wakes this thread for nothing.
                    let below = if start {
                        0
                    } else {
                        trigger.start_below(&self.space)
                    };
                    self.space.start_cycle_below.store(below, Ordering::Relaxed);
                    if !start {
                        if let Some(soon) = trigger.imminent(free, below) {
                            // The crossing is due within a few milliseconds:
                            // watch for it awake rather than sleep (`watch_for_start`).
                            drop(c);
                            self.watch_for_start(free, below, soon);
                            c = self.control();
                            continue;
                        }
                    }
                    if start {
                        // Relaxed: as above; a crossing before this look is served by it.
                        self.space.cycle_due.store(false, Ordering::Relaxed);
                        c.requested = false;
                        c.cycles_started += 1;
                        self.stats().free_regions_at_start += free as u64;
                        break CycleClock::start(&self.space, free);
                    }
                    c = self
                        .control_cv
                        .wait_timeout(c, Duration::from_millis(5))
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
            };
            self.begin_pacing();
            let ends_before = self.cycle_ends();
            let cpu = thread_cpu_time();
            let outcome =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.concurrent_cycle(&mut clock)));
            self.count_collector_cpu(thread_cpu_time().saturating_sub(cpu));
            let ends_after = self.cycle_ends();
            let end = if ends_after.1 > ends_before.1 {
                CycleEnd::Full
            } else if ends_after.0 > ends_before.0 {
                CycleEnd::Degenerated
            } else {
                CycleEnd::Concurrent
            };
            trigger.cycle_done(&clock, end);
            self.pacer.end_cycle();
            let available_run = match outcome {
                Ok(run) => run,
                Err(p) => {
                    self.poison(panic_message(&*p));
                    return;
                }
            };
            let mut c = self.control();
            c.cycles_done += 1;
            c.last_available_run = available_run;
            self.control_cv.notify_all();
        }
    }

    /// The degenerated cycles and full compactions so far (how a cycle
    /// ended, for the trigger).
    fn cycle_ends(&self) -> (u64, u64) {
        let s = self.stats();
        // A cycle in which a mutator ran dry started too late, whether it
        // degenerated or the evacuation reserve's return served the mutator.
        (
            s.degenerated_cycles + s.phases.evacuation.ran_dry,
            s.full_compactions,
        )
    }

    /// Opens the pacer's budget for a cycle: the mutators may allocate what
    /// is free outside the reserves: the heap's standing one, and the room
    /// for copies that the last cycle's final-mark set aside (`choose_cset`;
    /// before any chose, half the free regions, the most it may take being
    /// [`COPY_ROOM_PERCENT`] of what the mutators left); with no cycle
    /// behind it, the work is estimated as the used words (update-refs
    /// parses them all). The regions final-mark frees whole are granted
    /// when freed.
    fn begin_pacing(&self) {
        if !self.config.pacing {
            return;
        }
        let s = &self.space;
        let free = s.lock_alloc().free.len();
        let allowance = match self.pacer.copy_room_estimate() {
            Some(copies) => (free.saturating_sub(s.reserve_regions) * s.region_bytes).saturating_sub(copies),
            // No cycle chose yet: half the free regions for the copies.
            None => (free / 2).saturating_sub(s.reserve_regions) * s.region_bytes,
        };
        let used_words = (s.regions.len() - free) * s.region_bytes / 8;
        self.pacer.begin_cycle(allowance, used_words);
    }

    /// Runs `f` in a pause and records it.
    fn pause<R>(&self, kind: PauseKind, as_mutator: bool, f: impl FnOnce() -> R) -> Option<R> {
        let start = Instant::now();
        if !self.safepoint.begin(as_mutator) {
            return None;
        }
        let time_to_safepoint = start.elapsed();
        let cpu = thread_cpu_time();
        // A panic in the pause's work must not leave the mutators stopped:
        // the heap is poisoned, the pause ends (below), then the panic goes
        // on to the cycle's caller.
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            #[cfg(test)]
            if self.panic_in_next_pause.swap(false, Ordering::Relaxed) {
                panic!("a test's injected panic in a {kind:?} pause");
            }
            f()
        }));
        if let Err(p) = &r {
            self.poison(panic_message(&**p));
        }
        let work_cpu_time = thread_cpu_time().saturating_sub(cpu);
        let work = start.elapsed() - time_to_safepoint;
        // Recorded before the release, so a released mutator finds it.
        let index = self.push_pause(Pause {
            kind,
            duration: time_to_safepoint + work,
            time_to_safepoint,
            work,
            work_cpu_time,
            resume: Duration::ZERO,
        });
        let released = self.safepoint.end(as_mutator, index);
        self.set_pause_duration(index, released - start);
        match r {
            Ok(r) => Some(r),
            Err(p) => std::panic::resume_unwind(p),
        }
    }

    /// Records a pause; returns its index in the statistics.
    fn push_pause(&self, p: Pause) -> usize {
        let mut stats = self.stats();
        stats.pauses.push(p);
        stats.pauses.len() - 1
    }

    fn set_pause_duration(&self, index: usize, duration: Duration) {
        self.stats().pauses[index].duration = duration;
    }

    fn set_state(&self, bits: u8) {
        self.gc_state.set(bits);
    }

    /// Whether a mutator asked for a degenerated cycle.
    fn degenerate_requested(&self) -> bool {
        // SeqCst: see `wait_for_cycle`.
        self.degenerate.load(Ordering::SeqCst)
    }

    /// Runs the concurrent phase `f` on this thread, adding its time to the
    /// phase `pick` names in the statistics.
    fn phase<R>(&self, pick: fn(&mut CyclePhases) -> &mut PhaseTime, f: impl FnOnce() -> R) -> R {
        // Relaxed: a statistic's counter.
        let taken = || self.space.taken_regions.load(Ordering::Relaxed);
        let (wall, cpu, taken_before) = (Instant::now(), thread_cpu_time(), taken());
        let r = f();
        let cpu = thread_cpu_time().saturating_sub(cpu);
        let taken_during = taken().saturating_sub(taken_before) as u64;
        let mut stats = self.stats();
        let p = pick(&mut stats.phases);
        p.wall += wall.elapsed();
        p.cpu += cpu;
        p.regions_taken += taken_during;
        r
    }

    /// Waits awake, for at most twice `soon`, until the mutators have
    /// taken the regions from `free` down to `below` (the trigger's start,
    /// [`Trigger::imminent`]), a mutator has asked for a cycle, or the heap
    /// is shutting down; the caller then looks again. Why awake: a sleeping collector is
    /// woken by the refill that crosses the start (`Space::cycle_due`), but
    /// on a virtual machine whose other CPUs are idle the host may have
    /// descheduled the idle one, and the wake-up then took up to 8 ms on
    /// the 2-CPU guests this project measures on (GcTrees at 64 MiB: the
    /// mutator took 82 of the heap's 256 regions before the collector's
    /// next look, and the cycle began with the mutators already out of
    /// memory, a degenerated one; docs/benchmarks-log-2026.md, 4 Dec). Kept
    /// awake the collector starts within microseconds of the crossing. The
    /// free count is read from the mutators' counter of regions taken, not
    /// under the allocation lock the refills take; between reads the thread
    /// yields, so a runnable mutator on its CPU runs first.
    fn watch_for_start(&self, free: usize, below: usize, soon: Duration) {
        // Relaxed: a statistic's counter (the taken count) and hints (the
        // request flags); the look that follows reads both under their locks.
        let taken = |s: &Space| s.taken_regions.load(Ordering::Relaxed);
        let (start, at) = (taken(&self.space), Instant::now());
        let limit = soon.saturating_mul(2);
        let mut rounds = 0u32;
        while at.elapsed() < limit && !self.degenerate_requested() {
            let now_free = free.saturating_sub(taken(&self.space).saturating_sub(start));
            if now_free < below || self.space.cycle_due.load(Ordering::Relaxed) {
                return;
            }
            rounds = rounds.wrapping_add(1);
            if rounds % 64 == 0 {
                // A request that is not for memory (`Mutator::collect`),
                // or the heap's end: the control lock, which no refill takes.
                let c = self.control();
                if c.requested || c.shutdown {
                    return;
                }
            }
            // Gives the CPU to any other runnable thread (a mutator, where
            // there are more than CPUs), keeps it otherwise.
            std::thread::yield_now();
        }
    }

    /// One concurrent cycle; returns the longest run of free regions the
    /// mutators may take that it left ([`Space::available_run`], judged in
    /// its last pause, before any mutator could allocate again). At each
    /// phase boundary, a mutator's failed allocation turns the rest of the
    /// cycle into one degenerated pause (`degenerated`). `clock` notes the
    /// cycle's two low points for the trigger.
    fn concurrent_cycle(&self, clock: &mut CycleClock) -> usize {
        self.phase(|p| &mut p.reset, || self.space.clear_marks());
        let mut stack = Vec::new();
        self.pause(PauseKind::InitMark, false, || {
            self.init_mark(&mut stack);
            self.set_state(MARKING);
        });
        // Concurrent mark: trace, then take what SATB enqueued and what
        // assists left unscanned, until dry.
        self.phase(
            |p| &mut p.mark,
            || {
                while !self.degenerate_requested() {
                    self.trace_concurrent(&mut stack);
                    let satb = std::mem::take(&mut *self.satb_queue());
                    let grey = self.take_grey(&mut stack);
                    if satb.is_empty() && !grey {
                        break;
                    }
                    for v in satb {
                        self.mark_object(v, &mut stack);
                    }
                }
            },
        );
        clock.mark_ended();
        if self.degenerate_requested() {
            self.stats().phases.mark.ran_dry += 1;
            return self.degenerated(Phase::Mark, &mut stack);
        }
        let (has_cset, available_run) = self
            .pause(PauseKind::FinalMark, false, || {
                // Every assist has ended (this is a pause): its leftovers are
                // on the grey list.
                self.take_grey(&mut stack);
                let satb = std::mem::take(&mut *self.satb_queue());
                for v in satb {
                    self.mark_object(v, &mut stack);
                }
                self.trace_parallel(&mut stack);
                self.set_state(0);
                let chosen = self.choose_cset(false);
                if chosen {
                    self.set_state(EVACUATION | HAS_FORWARDED);
                    self.evacuate_roots();
                    (true, 0)
                } else {
                    let available_run = self.judge();
                    self.finish_cycle();
                    (false, available_run)
                }
            })
            .unwrap_or((false, 0));
        if !has_cset {
            return available_run;
        }
        self.phase(|p| &mut p.evacuation, || self.evacuate_cset(true));
        // A mutator that ran dry during evacuation is not served by
        // finishing the cycle stop-the-world: init-update-refs gives the
        // mutators the unused evacuation reserve, and the mutators waiting
        // for memory retry then (`wait_for_cycle`); one that still finds
        // none asks again, and update-refs' end sees it.
        if self.degenerate_requested() {
            self.stats().phases.evacuation.ran_dry += 1;
        }
        self.pause(PauseKind::InitUpdateRefs, false, || {
            self.set_state(HAS_FORWARDED);
            self.init_update_refs();
            // SeqCst: see `wait_for_cycle`. Cleared with the reserve
            // returned: a mutator failing after this pause asks anew.
            self.degenerate.store(false, Ordering::SeqCst);
        });
        self.pace_update_refs();
        {
            let mut c = self.control();
            c.releases += 1;
            self.control_cv.notify_all();
        }
        self.phase(|p| &mut p.update_refs, || self.update_refs(true));
        clock.update_refs_ended(&self.space, self.space.lock_alloc().free.len());
        if self.degenerate_requested() {
            self.stats().phases.update_refs.ran_dry += 1;
            return self.degenerated(Phase::UpdateRefs, &mut stack);
        }
        self.pause(PauseKind::FinalUpdateRefs, false, || {
            self.update_roots();
            self.set_state(0);
            self.free_cset();
            let available_run = self.judge();
            self.finish_cycle();
            available_run
        })
        .unwrap_or(0)
    }

    /// Shenandoah's degenerated GC: the rest of the cycle, from `from`, in
    /// one pause, which then judges the heap ([`Self::judge`]: a full
    /// compaction if the largest waiting request finds no room). Returns
    /// [`Space::available_run`] after it. From marking, each phase below is the concurrent one
    /// run with the world stopped. From update-refs, that phase is complete
    /// (its workers finished every region before returning, and an assist
    /// finishes the region it claimed before this pause can begin), so only
    /// final-update-refs' work is left.
    fn degenerated(&self, from: Phase, stack: &mut Vec<usize>) -> usize {
        self.pause(PauseKind::Degenerated, false, || {
            let mut has_cset = from != Phase::Mark;
            if from == Phase::Mark {
                self.take_grey(stack);
                let satb = std::mem::take(&mut *self.satb_queue());
                for v in satb {
                    self.mark_object(v, stack);
                }
                self.trace_parallel(stack);
                self.set_state(0);
                // Stop-the-world: the whole free space may take copies.
                has_cset = self.choose_cset(true);
                if has_cset {
                    self.set_state(EVACUATION | HAS_FORWARDED);
                    self.evacuate_roots();
                }
            }
            if has_cset {
                if from == Phase::Mark {
                    self.evacuate_cset(false);
                    self.set_state(HAS_FORWARDED);
                    self.init_update_refs();
                    self.update_refs(false);
                }
                self.update_roots();
                self.set_state(0);
                self.free_cset();
            }
            self.stats().degenerated_cycles += 1;
            // SeqCst: see `wait_for_cycle`. Cleared before the free space
            // is judged: a mutator failing after this pause asks anew.
            self.degenerate.store(false, Ordering::SeqCst);
            let available_run = self.judge();
            self.finish_cycle();
            available_run
        })
        .unwrap_or(0)
    }

    /// Judges the heap at a cycle's end, in its last pause (the state byte
    /// clear): if the largest allocation waiting for this cycle finds no
    /// room (a TLAB's region, or a humongous object's run), a full
    /// compaction gathers the free regions into one run. Returns the
    /// longest run the mutators may take then, against which each waiting
    /// mutator judges its own request (`Mutator::alloc_slow`).
    fn judge(&self) -> usize {
        if self.left_full(self.largest_wanted()) {
            self.full_compact();
        }
        self.available_run()
    }

    /// Passive mode: the whole cycle in one pause, on the calling mutator's
    /// thread (every other mutator is stopped), then `rest` in the same
    /// pause (the collecting mutator's refill, and the full compaction if
    /// it still fails), which the pause's record covers too. Returns the
    /// pause's index, for the caller's release, and what `rest` returned.
    pub(crate) fn stw_collect<R>(&self, rest: impl FnOnce() -> R) -> (usize, R) {
        let start = Instant::now();
        let cpu = thread_cpu_time();
        self.space.clear_marks();
        let mut stack = Vec::new();
        self.init_mark(&mut stack);
        self.trace_parallel(&mut stack);
        self.stw_evacuate_and_finish();
        let r = rest();
        let work_cpu_time = thread_cpu_time().saturating_sub(cpu);
        self.count_collector_cpu(work_cpu_time);
        // The caller began the pause: its time-to-safepoint is not seen here.
        let index = self.push_pause(Pause {
            kind: PauseKind::Full,
            duration: start.elapsed(),
            time_to_safepoint: Duration::ZERO,
            work: start.elapsed(),
            work_cpu_time,
            resume: Duration::ZERO,
        });
        (index, r)
    }

    /// The passive collection after marking, stop-the-world: final-mark's
    /// choice of the set (the whole free space may take copies), the
    /// evacuation, update-refs, the set's release, the cycle's end.
    pub(in crate::gc) fn stw_evacuate_and_finish(&self) {
        if self.choose_cset(true) {
            self.set_state(EVACUATION | HAS_FORWARDED);
            self.evacuate_roots();
            self.evacuate_cset(false);
            self.set_state(HAS_FORWARDED);
            self.init_update_refs();
            self.update_refs(false);
            self.update_roots();
            self.set_state(0);
            self.free_cset();
        }
        self.finish_cycle();
    }

    /// End-of-cycle work inside the last pause: refine (clean) the cards,
    /// verify and count the cycle; clear a mutator's request for a degenerated
    /// cycle (each mutator waiting for memory retries at the cycle's end and
    /// asks anew if it still finds none, so a request left standing would
    /// only make the next cycle degenerate for nothing).
    fn finish_cycle(&self) {
        // SeqCst: see `wait_for_cycle`.
        self.degenerate.store(false, Ordering::SeqCst);
        for c in std::mem::take(&mut *self.card_queue()) {
            self.space.cards[c].store(CLEAN_CARD, Ordering::Relaxed);
        }
        let mut share = self.gc_time_share.lock().unwrap_or_else(|e| e.into_inner());
        let average = {
            let stats = self.stats();
            share.observe(
                Instant::now(),
                &stats.pauses,
                stats.paced_time,
                stats.phases.wall(),
            )
        };
        let before = self.space.capacity();
        if self
            .space
            .grow_after_collection(&mut self.space.lock_alloc(), average)
            > before
        {
            share.reset();
        }
        self.record_collection(true);
    }

    /// Runs the verifier if the configuration asks for it (in a pause, at
    /// the end of a collection), recording the outcome.
    pub(crate) fn verify_if_asked(&self) {
        self.record_collection(false);
    }

    /// The verifier's run, if the configuration asks for one, and its
    /// outcome recorded, with the collection counted when `cycle` (a
    /// concurrent cycle's end, or a passive collection's):
    /// in one update of the statistics, so that a thread reading them
    /// (`Heap::stats`, which does not stop the collector) never finds a
    /// cycle counted and not yet verified.
    fn record_collection(&self, cycle: bool) {
        let result = self.config.verify.then(|| self.verify());
        let mut stats = self.stats();
        if cycle {
            stats.cycles += 1;
        }
        if let Some(result) = result {
            stats.verified_cycles += 1;
            match result {
                Ok(n) => stats.verified_objects += n as u64,
                Err(e) => stats.verify_errors.push(e),
            }
        }
    }

    pub(in crate::gc) fn init_mark(&self, stack: &mut Vec<usize>) {
        for r in self.space.regions.iter() {
            r.start_marking();
            r.monitor_seen.store(false, Ordering::Relaxed);
        }
        self.mark_roots(stack);
    }

    /// Marks `obj` if it is below its region's TAMS and unmarked, pushing
    /// it grey. Only the mark bit is touched: the object's words are read
    /// when it is scanned (`marking.rs`, which also counts it live then).
    /// Always inlined: the scan's loop over an object's fields calls it
    /// once per reference, and out of line the call and the register saves
    /// around it are about a third of a mark's instructions.
    #[inline(always)]
    pub(in crate::gc) fn mark_object(&self, obj: usize, stack: &mut Vec<usize>) {
        if obj == 0 {
            return;
        }
        let region = self.space.region(obj);
        if obj >= region.tams.load(Ordering::Relaxed) {
            return; // allocated during the cycle: live, and not traced
        }
        let newly = if self.sole_marker {
            self.space.mark_as_sole_marker(obj)
        } else {
            self.space.mark(obj)
        };
        if newly {
            stack.push(obj);
        }
    }

    /// Marks everything reachable from `stack`, on this thread.
    pub(in crate::gc) fn trace(&self, stack: &mut Vec<usize>) {
        let mut scanner = Scanner::new(self);
        let mut words = 0;
        while let Some(obj) = stack.pop() {
            words += scanner.step(obj, stack);
            if words >= PACER_BATCH {
                self.pacer.report(words);
                words = 0;
            }
        }
        self.pacer.report(words);
    }

    /// Frees regions with nothing live and picks the collection set; true if
    /// the set is not empty. In a pause.
    fn choose_cset(&self, stw: bool) -> bool {
        let s = &self.space;
        let region_words = s.region_bytes / 8;
        let mut a = s.lock_alloc();
        a.current = None;
        a.evac_current = None;
        a.evac_taken = 0;
        let mut candidates = Vec::new();
        // The garbage words marking found, and of them those in regions
        // freed here whole (nothing live): the immediate garbage.
        let (mut garbage, mut immediate, mut freed) = (0, 0, 0);
        // Relaxed region metadata: in a pause (see `Region`).
        for (i, r) in s.regions.iter().enumerate() {
            if !r.used.load(Ordering::Relaxed)
                || r.top.load(Ordering::Relaxed) != r.tams.load(Ordering::Relaxed)
                || r.pins.load(Ordering::SeqCst) != 0
                || r.humongous() == HUMONGOUS_CONT
            {
                continue;
            }
            let live = r.live_words.load(Ordering::Relaxed);
            if r.humongous() == HUMONGOUS_START {
                // Never copied: reclaimed whole when dead, else kept.
                if live == 0 {
                    let n = s.free_humongous(&mut a, i);
                    self.stats().regions_freed += n as u64;
                    freed += n;
                    garbage += n * region_words;
                    immediate += n * region_words;
                }
                continue;
            }
            let used = (r.top.load(Ordering::Relaxed) - r.bottom) / 8;
            garbage += used.saturating_sub(live);
            if live == 0 {
                s.free_region(&mut a, i);
                self.stats().regions_freed += 1;
                freed += 1;
                immediate += used;
                continue;
            }
            if (self.config.aggressive || live * 4 < used * 3) && !r.monitor_seen.load(Ordering::Relaxed) {
                candidates.push((live, i));
            }
        }
        // The mutators may spend what came back at once (`pacer.rs`).
        self.pacer.grant(freed * s.region_bytes);
        if !self.config.aggressive
            && immediate_garbage_suffices(immediate, garbage, self.config.immediate_garbage_percent)
        {
            self.stats().abbreviated_cycles += 1;
            if !stw {
                self.pacer.note_copy_room(0);
            }
            return false;
        }
        candidates.sort_unstable();
        // Room for copies: the mutators' standing reserve (which TLABs
        // never take, Shenandoah's `ShenandoahEvacReserve`) and
        // `COPY_ROOM_PERCENT` of the other free regions, the rest left for
        // the mutators' allocation until the cycle ends (all of them when
        // the world is stopped). The set's live words may fill four fifths
        // of that room: the rest absorbs LAB tails and losing copies
        // (Shenandoah's `ShenandoahEvacWaste`, 1.2). The larger the set, the
        // more a cycle reclaims where garbage is spread evenly (each region
        // half live, say), hence the fewer cycles and pauses.
        let free = a.free.len();
        let room = if stw {
            free
        } else {
            let standing = self.space.reserve_regions.min(free);
            standing + (free - standing) * COPY_ROOM_PERCENT / 100
        };
        let budget = room * region_words * 4 / 5;
        let mut total = 0;
        let mut chosen = 0;
        for (live, i) in candidates {
            if total + live > budget {
                break;
            }
            total += live;
            chosen += 1;
            s.regions[i].in_cset.store(true, Ordering::Relaxed);
        }
        self.stats().cset_regions += chosen as u64;
        if chosen > 0 {
            // Set aside what the copies need (their size and a quarter, plus a
            // LAB per worker of slack), within the room computed above.
            let need = (total * 5 / 4).div_ceil(region_words) + 1 + self.config.workers;
            let keep = a.free.len() - need.min(room);
            let reserved: Vec<usize> = a.free.drain(keep..).collect();
            a.evac_free = reserved;
        }
        if !stw {
            let set_aside = if chosen > 0 { a.evac_free.len() } else { 0 };
            self.pacer.note_copy_room(set_aside * s.region_bytes);
        }
        chosen > 0
    }

    /// Copies `obj` (in the set) with the collector's LAB, unless done.
    fn evacuate(&self, obj: usize, lab: &Lab) -> usize {
        let (to, won) = self.space.evacuate(obj, lab);
        self.count_collector_evacuations(u64::from(won));
        to
    }

    /// In final-mark: copies what the roots point to in the set, and points
    /// the roots at the copies (by the workers when the roots are many).
    fn evacuate_roots(&self) {
        self.par_roots(|lab, r| {
            if *r != 0 && self.space.in_cset(*r) {
                *r = self.evacuate(*r, lab);
            }
        });
    }

    /// Copies every marked object of the collection set: the set's regions
    /// are claimed one at a time by the workers (`parallel.rs`), each
    /// copying with its own LAB, and, when `concurrent`, by the mutators'
    /// assists (`assist.rs`).
    fn evacuate_cset(&self, concurrent: bool) {
        // Relaxed `in_cset`: set in the final-mark pause and unchanged
        // until the cycle's last pause (see `Region`).
        let set: Vec<usize> = (0..self.space.regions.len())
            .filter(|&i| self.space.regions[i].in_cset.load(Ordering::Relaxed))
            .collect();
        let f = |lab: &Lab, i| {
            self.evacuate_region(i, lab);
        };
        if concurrent {
            self.par_regions_concurrent(set, RegionWork::Evacuate, f);
        } else {
            self.par_regions(&set, f);
        }
    }

    /// Copies the marked objects of set region `i` with `lab`; returns the
    /// words of work (the region's live words, the pacer's measure).
    pub(in crate::gc) fn evacuate_region(&self, i: usize, lab: &Lab) -> usize {
        let r = &self.space.regions[i];
        let s = &self.space;
        // The copies run in batches of `COPY_BATCH`, each inside one entry
        // of the evacuation scope, instead of entering and leaving it per
        // copy (two locked read-modify-writes of one shared word, beside
        // the forwarding CAS), as a Shenandoah worker holds its
        // `ShenandoahEvacOOMScope` across its evacuation task. The batch
        // bounds how long a thread that found no space waits for this one
        // to leave. After a failure the rest of the region stays in place.
        let mut inside = s.evac_scope.enter();
        let (mut in_batch, mut won) = (0, 0);
        // Relaxed `top`: unchanged for a set region until the cycle ends.
        // A set region's TAMS is its top (`choose_cset`): its live objects
        // are its marked ones.
        s.for_each_live(r, r.top.load(Ordering::Relaxed), |obj| {
            if !inside || s.forwardee(obj) != obj {
                return;
            }
            match s.evacuate_inside_scope(obj, lab) {
                Some((_, true)) => won += 1,
                Some((_, false)) => {}
                None => {
                    s.evac_scope.fail();
                    inside = false;
                    return;
                }
            }
            in_batch += 1;
            if in_batch == COPY_BATCH {
                s.evac_scope.leave();
                inside = s.evac_scope.enter();
                in_batch = 0;
            }
        });
        if inside {
            s.evac_scope.leave();
        }
        self.count_collector_evacuations(won);
        let words = r.live_words.load(Ordering::Relaxed);
        self.pacer.report(words);
        words
    }

    /// In a pause: every LAB is closed; record what update-refs parses and
    /// give back the unused reserve; close evacuation, keeping each region
    /// of the set that still holds a live object nobody could copy.
    fn init_update_refs(&self) {
        let s = &self.space;
        if s.evac_scope.failed() {
            let mut kept = 0;
            // Relaxed region metadata: in a pause (see `Region`).
            for r in s.regions.iter().filter(|r| r.in_cset.load(Ordering::Relaxed)) {
                let mut stayed = false;
                s.parse(r, r.top.load(Ordering::Relaxed), |obj| {
                    stayed |= s.is_marked(obj) && s.forwardee(obj) == obj;
                });
                if stayed {
                    r.evac_failed.store(true, Ordering::Relaxed);
                    kept += 1;
                }
            }
            let mut stats = self.stats();
            stats.evacuation_failures += 1;
            stats.regions_kept += kept;
        }
        s.evac_scope.reset();
        let mut a = self.space.lock_alloc();
        a.current = None;
        a.evac_current = None;
        let rest = std::mem::take(&mut a.evac_free);
        a.free.extend(rest);
        let mut freed_at_end = 0;
        for r in self.space.regions.iter() {
            r.watermark
                .store(r.top.load(Ordering::Relaxed), Ordering::Relaxed);
            freed_at_end +=
                usize::from(r.in_cset.load(Ordering::Relaxed) && !r.evac_failed.load(Ordering::Relaxed));
        }
        // No copy is made from here to the set's release, which gives back
        // at least what the mutators may now take of the standing reserve.
        a.mutator_floor = s.reserve_regions.saturating_sub(freed_at_end);
    }

    /// After init-update-refs: the pacer's budget for update-refs is what
    /// the mutators may take now (the free regions down to their floor),
    /// earned over the words update-refs parses (Shenandoah's pacer sets
    /// each phase up this way, from the free space and the phase's work).
    /// Evacuation keeps the cycle's budget: one set up again from the free
    /// space after final-mark's reserve made the mutators run dry during
    /// evacuation more often, not less (docs/benchmarks-log-2026.md).
    fn pace_update_refs(&self) {
        if !self.config.pacing {
            return;
        }
        let s = &self.space;
        let allowance = {
            let a = s.lock_alloc();
            a.free.len().saturating_sub(a.mutator_floor) * s.region_bytes
        };
        // Relaxed region metadata: set in the pause just ended, unchanged
        // until the next (see `Region`).
        let words: usize = s
            .regions
            .iter()
            .filter(|r| r.used.load(Ordering::Relaxed) && !r.in_cset.load(Ordering::Relaxed))
            .map(|r| (r.watermark.load(Ordering::Relaxed) - r.bottom) / 8)
            .sum();
        self.pacer.restart(allowance, words);
    }

    /// Updates every reference into the set, in every region update-refs
    /// parses: the regions are claimed one at a time by the workers and,
    /// when `concurrent`, by the mutators' assists (`assist.rs`).
    fn update_refs(&self, concurrent: bool) {
        let s = &self.space;
        // Relaxed region metadata: set in pauses, unchanged until the next
        // (see `Region`).
        let regions: Vec<usize> = (0..s.regions.len())
            .filter(|&i| {
                let r = &s.regions[i];
                r.used.load(Ordering::Relaxed)
                    && (!r.in_cset.load(Ordering::Relaxed) || r.evac_failed.load(Ordering::Relaxed))
                    && r.humongous() != HUMONGOUS_CONT
            })
            .collect();
        let f = |_: &Lab, i| {
            self.update_region(i);
        };
        if concurrent {
            self.par_regions_concurrent(regions, RegionWork::UpdateRefs, f);
        } else {
            self.par_regions(&regions, f);
        }
    }

    /// Updates the references into the set in region `i`, below its
    /// watermark; returns the words of work (the words parsed).
    pub(in crate::gc) fn update_region(&self, i: usize) -> usize {
        let s = &self.space;
        let r = &s.regions[i];
        let failed = r.evac_failed.load(Ordering::Relaxed);
        let mut heals = Heals::new(s);
        let watermark = r.watermark.load(Ordering::Relaxed);
        let mut each = |obj| {
            // In a region kept by evacuation failure, a copied original
            // is dead: only the objects that stayed are updated.
            if failed && s.forwardee(obj) != obj {
                return;
            }
            let (nrefs, _) = s.layout_of(obj);
            // Relaxed: we only compare and CAS the value.
            s.for_each_ref(obj, nrefs, Ordering::Relaxed, |field, v| {
                if v != 0 && s.in_cset(v) {
                    heals.push(field, v);
                }
            });
        };
        if r.humongous() == HUMONGOUS_START {
            s.parse(r, watermark, |obj| {
                if s.is_live(obj) {
                    each(obj);
                }
            });
        } else {
            s.for_each_live(r, watermark, &mut each);
        }
        heals.finish();
        let words = (watermark - r.bottom) / 8;
        self.pacer.report(words);
        words
    }

    fn update_roots(&self) {
        self.par_roots(|_, r| {
            if *r != 0 && self.space.in_cset(*r) {
                *r = self.space.forwardee(*r);
            }
        });
    }

    fn free_cset(&self) {
        let s = &self.space;
        let mut a = s.lock_alloc();
        a.mutator_floor = s.reserve_regions;
        let mut freed = 0;
        // Relaxed: in a pause (see `Region`).
        for i in 0..s.regions.len() {
            let r = &s.regions[i];
            if r.evac_failed.swap(false, Ordering::Relaxed) {
                // Kept: its objects that stayed are live and every reference
                // to them is theirs; the copied originals in it are garbage
                // that the next cycle finds unmarked, once they no longer
                // name their copies (compact format), which may move or die
                // before this region is next parsed.
                s.unforward_originals(r);
                r.in_cset.store(false, Ordering::Relaxed);
            } else if r.in_cset.load(Ordering::Relaxed) {
                s.free_region(&mut a, i);
                freed += 1;
            }
        }
        self.stats().regions_freed += freed;
    }

    /// The heap verifier (in a pause, after a cycle): every object reachable
    /// from the roots lies below its region's top in a used region outside
    /// any collection set, is not forwarded, has a sane layout and a header
    /// not in the GC-reserved state; the state byte is clear; no mark bit
    /// lies where the next reset would not clear it; every free region's
    /// cards are clean. Returns how many objects it reached.
    pub(crate) fn verify(&self) -> Result<usize, String> {
        let s = &self.space;
        let state = self.gc_state.get();
        if state != 0 {
            return Err(format!("GC state {state:#x} after the cycle"));
        }
        let mut roots = Vec::new();
        self.for_each_root(|r| roots.push(*r));
        let mut seen = HashSet::new();
        let mut stack: Vec<usize> = roots.into_iter().filter(|&r| r != 0).collect();
        // Larger objects are humongous.
        let max_words = s.region_bytes / 8;
        while let Some(obj) = stack.pop() {
            if !seen.insert(obj) {
                continue;
            }
            if !s.contains(obj) || obj % 8 != 0 {
                return Err(format!("{obj:#x} is not a heap address"));
            }
            let r = s.region(obj);
            if !r.used.load(Ordering::Relaxed) || r.in_cset.load(Ordering::Relaxed) {
                return Err(format!("{obj:#x} is in a free or collected region"));
            }
            let max_words = match r.humongous() {
                HUMONGOUS_START if obj == s.object_at_bottom(r) => {
                    s.verify_humongous(s.region_index(obj))?;
                    s.max_object_words()
                }
                0 => max_words,
                _ => return Err(format!("{obj:#x} lies inside a humongous object")),
            };
            if obj >= r.top.load(Ordering::Relaxed) {
                return Err(format!("{obj:#x} is above its region's top"));
            }
            let fwd = s.forwardee(obj);
            if fwd != obj {
                return Err(format!("{obj:#x} is forwarded to {fwd:#x} after update-refs"));
            }
            if s.cell_words(obj) > max_words {
                return Err(format!("{obj:#x} has a corrupt layout"));
            }
            if s.header(obj).lock_state() == LockState::GcReserved {
                return Err(format!("{obj:#x} has a GC-reserved header"));
            }
            let (nrefs, _) = s.layout_of(obj);
            for i in 0..nrefs {
                // Relaxed: the verifier runs in a pause, every mutator stopped.
                let v = s.load_ref(s.ref_addr(obj, i), Ordering::Relaxed);
                if v != 0 {
                    stack.push(v);
                }
            }
        }
        let a = s.lock_alloc();
        for (i, r) in s.regions.iter().enumerate() {
            if r.used.load(Ordering::Relaxed) && r.humongous() == HUMONGOUS_START {
                s.verify_humongous(i)?;
            }
            if let Some(at) = s.mark_above_marks_top(r) {
                return Err(format!(
                    "region {i} has a mark at {at:#x}, above where the reset clears"
                ));
            }
        }
        // The free lists hold each region that is not in use, once.
        let mut listed = vec![false; s.regions.len()];
        for &i in a.free.iter().chain(a.evac_free.iter()) {
            if std::mem::replace(&mut listed[i], true) {
                return Err(format!("region {i} is on the free lists twice"));
            }
        }
        for (i, r) in s.regions.iter().enumerate() {
            let used = r.used.load(Ordering::Relaxed);
            if used == listed[i] {
                return Err(format!("region {i}: in use {used}, on a free list {}", listed[i]));
            }
        }
        for &i in a.free.iter() {
            if s.regions[i].humongous() != 0 {
                return Err(format!("free region {i} is marked humongous"));
            }
            let bottom = s.regions[i].bottom;
            if s.card(bottom).load(Ordering::Relaxed) != CLEAN_CARD {
                return Err(format!("free region {i} has a dirty card"));
            }
        }
        Ok(seen.len())
    }
}

/// Update-refs' heals of one region, each started with a prefetch of the
/// stale referent's forwarding word and finished [`HEAL_AHEAD`] heals
/// later, so that the forwarding words' misses (the set's objects lie
/// anywhere) overlap instead of stalling the heal's CAS one at a time.
struct Heals<'s> {
    space: &'s Space,
    /// `(field address, stale reference)`, oldest at `head`.
    ring: [(usize, usize); HEAL_AHEAD],
    head: usize,
    len: usize,
}

/// Heals in flight in [`Heals`].
const HEAL_AHEAD: usize = 16;

impl<'s> Heals<'s> {
    fn new(space: &'s Space) -> Heals<'s> {
        Heals {
            space,
            ring: [(0, 0); HEAL_AHEAD],
            head: 0,
            len: 0,
        }
    }

    #[inline]
    fn push(&mut self, field: usize, stale: usize) {
        super::marking::prefetch(self.space.fwd_slot_addr(stale));
        if self.len == HEAL_AHEAD {
            self.heal_oldest();
        }
        self.ring[(self.head + self.len) % HEAL_AHEAD] = (field, stale);
        self.len += 1;
    }

    #[inline]
    fn heal_oldest(&mut self) {
        let (field, stale) = self.ring[self.head];
        self.head = (self.head + 1) % HEAL_AHEAD;
        self.len -= 1;
        let s = self.space;
        s.heal_ref(field, stale, s.forwardee(stale));
    }

    fn finish(mut self) {
        while self.len > 0 {
            self.heal_oldest();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::immediate_garbage_suffices;

    /// More than the threshold's share of the garbage must be immediate;
    /// 100 % ends early only a cycle with no other garbage; no garbage at
    /// all leaves nothing to evacuate.
    #[test]
    fn immediate_garbage_must_exceed_its_share() {
        assert!(immediate_garbage_suffices(91, 100, 90));
        assert!(
            !immediate_garbage_suffices(90, 100, 90),
            "exactly the share is not more"
        );
        assert!(!immediate_garbage_suffices(0, 100, 0));
        assert!(immediate_garbage_suffices(1, 100, 0));
        assert!(!immediate_garbage_suffices(99, 100, 100));
        assert!(immediate_garbage_suffices(0, 0, 100), "no garbage: no set");
        assert!(
            !immediate_garbage_suffices(usize::MAX / 2, usize::MAX, 90),
            "no overflow"
        );
    }
}
