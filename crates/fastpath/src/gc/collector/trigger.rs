//! When a concurrent cycle starts: Shenandoah's adaptive heuristics,
//! simplified. A cycle must start early enough that the mutators do not
//! run out of free regions before it ends, or the cycle degenerates (the
//! mutator that finds no memory stops the world for the rest of it).
//!
//! Where it sits: read by the collector thread's idle loop
//! ([`super::cycle`]) every few milliseconds, and whenever a mutator's
//! region refill takes the free list below the count where it would start
//! ([`Trigger::start_below`], which the loop publishes in
//! [`Space::start_cycle_below`]: at gigabytes a second a mutator takes
//! tens of regions between two looks, so the start must not wait for one).
//!
//! It learns the mutators' allocation rate (regions taken per second, from
//! a counter the allocation lock's holders bump: [`Space::taken_regions`]),
//! averaged over the recent samples, and what a cycle costs in free
//! regions at its two low points: the end of marking (nothing has come
//! back yet; final-mark then frees the regions with nothing live, the
//! immediate garbage) and the end of update-refs (final-update-refs then
//! frees the collection set). At the first the cycle has cost what the
//! mutators took while it marked; at the second, what they took until then
//! and the copies, less what final-mark gave back. So it learns, averaged
//! over cycles, the seconds from a cycle's start to each low point and the
//! regions a cycle returns before the second net of its copies
//! (`returned`, negative when the copies outweigh the immediate garbage),
//! and starts a cycle when the free regions outside the mutators' reserve
//! would not last to the deeper low point at the current rate, plus a
//! margin for spikes:
//!
//! `free - reserve < max(rate × to_mark_end, rate × to_update_end - returned) + margin`
//!
//! This is Shenandoah's adaptive trigger ("free < average cycle time ×
//! allocation rate", with its `ShenandoahAllocSpikeFactor` margin) with
//! the immediate garbage counted, which Shenandoah's cleanup after final
//! mark returns too: where old objects die in whole regions a cycle needs
//! free space only until final-mark, and a start that reserves a whole
//! cycle's allocation begins cycles with a third of the heap free
//! (GcListChurn at `-Xms64m`: 20–23 MiB of 64 free at each start, against
//! 13.6 MiB with the low points; docs/benchmarks-log-2026.md, 2 Dec).
//! Before the first cycle the floor is a quarter of the heap; after it, a
//! tenth (Shenandoah's `ShenandoahMinFreeThreshold`), the learnt count
//! covering the rest. "The heap" here is its soft capacity
//! (`heap/capacity.rs`): free regions past it do not count, and the floor
//! and the margin are shares of it. The low points, not more, because the
//! start is exact (see above) and the pacer spreads a cycle that runs long
//! over the mutators' refills: with a cycle and a half the heap held 8–12 %
//! more cycles a run for the same degenerated count (none) on GcTrees and
//! GcStrings (the notebook, 1 Dec).
//!
//! The margin learns from the cycles' outcomes, as Shenandoah's adaptive
//! heuristic penalises its trigger after a degenerated or full GC: it
//! starts at a tenth of the heap, widens by a tenth of the heap after a
//! cycle that degenerated (a mutator ran the heap dry before the cycle
//! ended: the cycle started too late) and by a fifth after one that
//! needed a full compaction, up to half the heap; each cycle that finished
//! concurrently narrows it again by a hundredth of the heap, down to the
//! starting tenth. A widened margin starts cycles earlier, trading
//! collector work for never stopping the world for want of memory.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::gc::heap::space::Space;

/// Samples of the allocation rate are at least this far apart.
const SAMPLE: Duration = Duration::from_millis(10);

/// A start the learnt rate puts closer than this is watched for awake
/// ([`Trigger::imminent`]): the collector's idle wait is 5 ms, and a
/// wake-up on a virtual machine can take as long again.
pub(crate) const IMMINENT: Duration = Duration::from_millis(10);

/// The spike margin, in hundredths of the heap: where it starts and
/// narrows back to, its ceiling, and its steps.
const MARGIN_BASE: usize = 10;
const MARGIN_MAX: usize = 50;
const MARGIN_DEGENERATED: usize = 10;
const MARGIN_FULL: usize = 20;
const MARGIN_RECOVER: usize = 1;

/// How a cycle ended, for the trigger's margin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CycleEnd {
    /// Finished concurrently.
    Concurrent,
    /// A mutator found no memory: the cycle finished stop-the-world.
    Degenerated,
    /// Degenerated, and then compacted (that freed too little).
    Full,
}

/// What one cycle cost, measured by the collector as it ran: the clock
/// starts with the cycle, and each low point is noted when reached (a
/// degenerated cycle may reach neither).
pub(crate) struct CycleClock {
    began: Instant,
    free_at_start: usize,
    taken_at_start: usize,
    /// Seconds from the start to the end of marking.
    mark_end: Option<f64>,
    /// Seconds from the start to the end of update-refs, and the regions
    /// the cycle returned by then net of its copies (see the module's
    /// text).
    update_end: Option<(f64, f64)>,
}

impl CycleClock {
    /// A cycle starts with `free` regions free.
    pub(crate) fn start(space: &Space, free: usize) -> CycleClock {
        CycleClock {
            began: Instant::now(),
            free_at_start: free,
            // Relaxed: a statistic's counter.
            taken_at_start: space.taken_regions.load(Ordering::Relaxed),
            mark_end: None,
            update_end: None,
        }
    }

    /// Marking ended (final-mark has not yet freed anything).
    pub(crate) fn mark_ended(&mut self) {
        self.mark_end = Some(self.began.elapsed().as_secs_f64());
    }

    /// Update-refs ended with `free` regions free (final-update-refs has
    /// not yet freed the collection set).
    pub(crate) fn update_refs_ended(&mut self, space: &Space, free: usize) {
        // Relaxed: a statistic's counter.
        let taken = space.taken_regions.load(Ordering::Relaxed) - self.taken_at_start;
        let spent = self.free_at_start as f64 - free as f64;
        self.update_end = Some((self.began.elapsed().as_secs_f64(), taken as f64 - spent));
    }
}

/// The collector thread's trigger state (only that thread touches it).
pub(crate) struct Trigger {
    /// Regions taken per second, averaged.
    rate: f64,
    /// Seconds from a cycle's start to the end of its marking, averaged
    /// (0 until one ran).
    mark_secs: f64,
    /// Seconds from a cycle's start to the end of its update-refs, and
    /// the regions it returned by then net of its copies, averaged (the
    /// first 0 until a cycle reached it).
    update_secs: f64,
    returned: f64,
    /// Spike margin, hundredths of the heap (see the module's text).
    margin_pct: usize,
    last_taken: usize,
    last_sample: Instant,
}

/// A running average's next value: half the old, half the new (the new
/// alone the first time, `learnt` false).
fn average(old: f64, new: f64, learnt: bool) -> f64 {
    if learnt {
        0.5 * old + 0.5 * new
    } else {
        new
    }
}

impl Trigger {
    pub(crate) fn new(space: &Space) -> Trigger {
        Trigger {
            rate: 0.0,
            mark_secs: 0.0,
            update_secs: 0.0,
            returned: 0.0,
            margin_pct: MARGIN_BASE,
            // Relaxed: a statistic's counter.
            last_taken: space.taken_regions.load(Ordering::Relaxed),
            last_sample: Instant::now(),
        }
    }

    /// Whether a cycle should start now, with `free` regions free.
    pub(crate) fn should_start(&mut self, space: &Space, free: usize) -> bool {
        let now = Instant::now();
        let dt = now - self.last_sample;
        if dt >= SAMPLE {
            // Relaxed: a statistic's counter; a late value only lags.
            let taken = space.taken_regions.load(Ordering::Relaxed);
            let r = (taken - self.last_taken) as f64 / dt.as_secs_f64();
            self.rate = if self.rate == 0.0 {
                r
            } else {
                0.7 * self.rate + 0.3 * r
            };
            self.last_taken = taken;
            self.last_sample = now;
        }
        free < self.start_below(space)
    }

    /// The free-region count below which a cycle starts, on what the
    /// trigger has learnt so far: before a cycle ran, the floor of a
    /// quarter of the soft capacity; after, the higher of a tenth of it
    /// and the reserve plus the regions the mutators would take to the
    /// cycle's deeper low point plus the margin. Published to the
    /// mutators' region refills ([`Space::start_cycle_below`]) so that the
    /// crossing wakes the collector at once, whatever its idle poll.
    pub(crate) fn start_below(&self, space: &Space) -> usize {
        let regions = space.regions.len();
        // The soft capacity's (`heap/capacity.rs`): the free regions past
        // it are not counted as free, so every count below is raised by
        // them; the floor and the margin are shares of the capacity.
        let capacity = space.capacity();
        let beyond = regions - capacity;
        if self.mark_secs == 0.0 {
            return capacity.div_ceil(4) + beyond;
        }
        let floor = capacity.div_ceil(10) + beyond;
        let margin = (capacity * self.margin_pct) as f64 / 100.0;
        let to_mark_end = self.rate * self.mark_secs;
        let to_update_end = if self.update_secs > 0.0 {
            self.rate * self.update_secs - self.returned
        } else {
            0.0
        };
        let needed = to_mark_end.max(to_update_end) + margin;
        // `free - beyond - reserve < needed` for an integer `free`: `free`
        // below the ceiling of `beyond + reserve + needed`; a count past
        // the heap's size is the heap's size (every count is below it).
        let learnt = ((beyond + space.reserve_regions) as f64 + needed)
            .ceil()
            .min(regions as f64 + 1.0) as usize;
        floor.max(learnt)
    }

    /// How soon the mutators, at the learnt rate, take the free regions
    /// from `free` below `below` (the start [`Self::start_below`] gave),
    /// when that is within [`IMMINENT`]: the collector then watches for the
    /// crossing awake (`HeapInner::watch_for_start`) instead of sleeping.
    pub(crate) fn imminent(&self, free: usize, below: usize) -> Option<Duration> {
        if self.rate <= 0.0 || free < below {
            return None;
        }
        let secs = (free - below) as f64 / self.rate;
        (secs < IMMINENT.as_secs_f64()).then(|| Duration::from_secs_f64(secs))
    }

    /// The spike margin, hundredths of the heap.
    #[cfg(test)]
    fn margin_pct(&self) -> usize {
        self.margin_pct
    }

    /// A cycle ended as `end`, its low points measured by `clock`: the
    /// next estimates lean on it, and the margin widens after a
    /// degenerated or full one. A low point the cycle did not reach (an
    /// abbreviated cycle has no update-refs, a degenerated one may have
    /// neither) leaves its estimate as it was, except that a cycle that
    /// reached no low point counts its whole length as marking's.
    pub(crate) fn cycle_done(&mut self, clock: &CycleClock, end: CycleEnd) {
        self.margin_pct = match end {
            CycleEnd::Concurrent => self.margin_pct.saturating_sub(MARGIN_RECOVER).max(MARGIN_BASE),
            CycleEnd::Degenerated => (self.margin_pct + MARGIN_DEGENERATED).min(MARGIN_MAX),
            CycleEnd::Full => (self.margin_pct + MARGIN_FULL).min(MARGIN_MAX),
        };
        let mark = clock
            .mark_end
            .unwrap_or_else(|| clock.began.elapsed().as_secs_f64());
        self.mark_secs = average(self.mark_secs, mark, self.mark_secs > 0.0);
        if let Some((secs, returned)) = clock.update_end {
            let learnt = self.update_secs > 0.0;
            self.update_secs = average(self.update_secs, secs, learnt);
            self.returned = average(self.returned, returned, learnt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cycle whose marking took `secs` and that ended there (abbreviated).
    fn marked_for(secs: f64) -> CycleClock {
        CycleClock {
            began: Instant::now(),
            free_at_start: 0,
            taken_at_start: 0,
            mark_end: Some(secs),
            update_end: None,
        }
    }

    /// A whole cycle: marking ended after `mark` seconds, update-refs
    /// after `update` seconds, having returned `returned` regions net of
    /// its copies.
    fn full_cycle(mark: f64, update: f64, returned: f64) -> CycleClock {
        CycleClock {
            update_end: Some((update, returned)),
            ..marked_for(mark)
        }
    }

    /// The deeper low point decides: the end of marking, or the end of
    /// update-refs less what final-mark returned; after the first cycle
    /// the floor is a tenth of the heap.
    #[test]
    fn the_start_covers_the_deeper_of_the_two_low_points() {
        let space = Space::small_for_test();
        let n = space.regions.len(); // 128
        let reserve = space.reserve_regions;
        let mut t = Trigger::new(&space);
        t.last_sample = Instant::now() + Duration::from_secs(3600);
        t.rate = 100.0;
        // Marking 0.1 s (10 regions), update-refs' end at 0.4 s (40
        // regions) with 35 returned: marking's 10 + 12.8 margin.
        t.cycle_done(&full_cycle(0.1, 0.4, 35.0), CycleEnd::Concurrent);
        assert_eq!(t.start_below(&space), reserve + 23);
        // The same cycle returning nothing: all 40 + 12.8 (the whole
        // cycle's worth, the rule before immediate garbage counted).
        let mut u = Trigger::new(&space);
        u.last_sample = t.last_sample;
        u.rate = 100.0;
        u.cycle_done(&full_cycle(0.1, 0.4, 0.0), CycleEnd::Concurrent);
        assert_eq!(u.start_below(&space), reserve + 53);
        // Copies outweighing the immediate garbage count against it.
        let mut v = Trigger::new(&space);
        v.last_sample = t.last_sample;
        v.rate = 100.0;
        v.cycle_done(&full_cycle(0.1, 0.4, -5.0), CycleEnd::Concurrent);
        assert_eq!(v.start_below(&space), reserve + 58);
        // Averaged: a second cycle that returned nothing moves the estimate
        // halfway (returned 17.5: 40 - 17.5 + 12.8 = 35.3).
        t.cycle_done(&full_cycle(0.1, 0.4, 0.0), CycleEnd::Concurrent);
        assert_eq!(t.start_below(&space), reserve + 36);
        // An abbreviated cycle leaves the update-refs estimate as it was.
        t.cycle_done(&marked_for(0.1), CycleEnd::Concurrent);
        assert_eq!(t.start_below(&space), reserve + 36);
        // No allocation: the floor, a tenth of the heap, or the margin.
        t.rate = 0.0;
        assert_eq!(t.start_below(&space), (reserve + 13).max(n.div_ceil(10)));
    }

    /// A start the learnt rate reaches within `IMMINENT` is imminent, by the
    /// time it takes; a farther one, one already crossed, or no rate learnt
    /// is not.
    #[test]
    fn a_start_is_imminent_within_the_watch_window_at_the_learnt_rate() {
        let space = Space::small_for_test();
        let mut t = Trigger::new(&space);
        assert_eq!(t.imminent(60, 40), None, "no rate learnt");
        t.rate = 4000.0; // regions a second: 4 a millisecond
        let soon = t.imminent(60, 40).expect("20 regions: 5 ms");
        assert!((soon.as_secs_f64() - 0.005).abs() < 1e-9, "{soon:?}");
        assert_eq!(t.imminent(100, 40), None, "60 regions: 15 ms, past the window");
        assert_eq!(t.imminent(30, 40), None, "already below the start");
    }

    /// The floor always starts a cycle; above it, a cycle starts once the
    /// free regions would not last a cycle at the learnt rate, plus the margin.
    #[test]
    fn starts_at_the_floor_or_when_the_free_space_would_not_last_a_cycle() {
        let space = Space::small_for_test();
        let n = space.regions.len(); // 128
        let mut t = Trigger::new(&space);
        assert!(!t.should_start(&space, n), "an empty heap, nothing learnt");
        assert!(t.should_start(&space, n / 4 - 1), "the floor");
        // 100 regions a second, cycles of 0.2 s: 20 regions + 12.8 margin.
        t.cycle_done(&marked_for(0.2), CycleEnd::Concurrent);
        t.last_sample -= Duration::from_secs(1);
        space.taken_regions.fetch_add(100, Ordering::Relaxed);
        assert!(!t.should_start(&space, n), "plenty free");
        let reserve = space.reserve_regions;
        assert!(!t.should_start(&space, reserve + 33), "33 regions last");
        assert!(t.should_start(&space, reserve + 32), "32 do not (32.8 needed)");
    }

    /// The count published to the mutators' refills is exactly where the
    /// trigger's own look would start a cycle, before and after learning,
    /// with a widened margin, and at rates whose cycle needs more than the
    /// heap.
    #[test]
    fn start_below_is_where_should_start_turns_true() {
        let space = Space::small_for_test();
        let n = space.regions.len();
        let mut t = Trigger::new(&space);
        // Held rate: no new sample (see the next test).
        t.last_sample = Instant::now() + Duration::from_secs(3600);
        let agree = |t: &mut Trigger, what: &str| {
            let below = t.start_below(&space);
            for free in 0..=n {
                assert_eq!(
                    t.should_start(&space, free),
                    free < below,
                    "{what}: {free} free, start below {below}"
                );
            }
            below
        };
        assert_eq!(agree(&mut t, "nothing learnt"), n / 4, "the floor");
        t.cycle_done(&marked_for(0.2), CycleEnd::Concurrent);
        for rate in [0.0, 10.0, 100.0, 123.4, 1e4, 1e9] {
            t.rate = rate;
            agree(&mut t, &format!("{rate} regions/s"));
        }
        t.rate = 100.0;
        // reserve + 20 + 12.8, rounded up.
        assert_eq!(agree(&mut t, "100 regions/s"), space.reserve_regions + 33);
        t.cycle_done(&marked_for(0.2), CycleEnd::Degenerated);
        // reserve + 20 + 25.6, rounded up.
        assert_eq!(agree(&mut t, "widened"), space.reserve_regions + 46);
        t.rate = 1e9;
        assert_eq!(agree(&mut t, "a cycle outlasts the heap"), n + 1, "always");
    }

    /// With a soft capacity below the heap, the free regions past it do not
    /// count and the floor and margin are shares of the capacity.
    #[test]
    fn the_soft_capacity_is_the_heap_the_trigger_measures() {
        let space = Space::small_for_test();
        let n = space.regions.len(); // 128
        space.set_capacity(&mut space.lock_alloc(), 40);
        let beyond = n - 40;
        let mut t = Trigger::new(&space);
        t.last_sample = Instant::now() + Duration::from_secs(3600);
        assert_eq!(t.start_below(&space), beyond + 10, "a quarter of the capacity");
        assert!(t.should_start(&space, beyond + 9));
        assert!(!t.should_start(&space, beyond + 10));
        t.cycle_done(&marked_for(0.2), CycleEnd::Concurrent);
        t.rate = 100.0;
        // 20 regions for the cycle + 4 margin (a tenth of 40), rounded up.
        assert_eq!(t.start_below(&space), beyond + space.reserve_regions + 24);
    }

    /// A degenerated cycle widens the margin (cycles start earlier), a full
    /// one more; concurrent cycles narrow it back to the base, never below;
    /// it never passes its ceiling.
    #[test]
    fn the_margin_widens_after_degenerated_cycles_and_recovers() {
        let space = Space::small_for_test();
        let reserve = space.reserve_regions;
        let mut t = Trigger::new(&space);
        let cycle = &marked_for(0.2);
        t.cycle_done(cycle, CycleEnd::Concurrent);
        assert_eq!(t.margin_pct(), MARGIN_BASE, "never below the base");
        // 100 regions a second, held (a sample far ahead: `now - last_sample`
        // saturates to zero, so no new sample changes the rate however slowly
        // this test runs).
        t.rate = 100.0;
        t.last_sample = Instant::now() + Duration::from_secs(3600);
        // 20 regions for the cycle + 12.8 margin: 40 free outside the reserve last.
        assert!(!t.should_start(&space, reserve + 40));
        t.cycle_done(cycle, CycleEnd::Degenerated);
        assert_eq!(t.margin_pct(), MARGIN_BASE + MARGIN_DEGENERATED);
        // 20 + 25.6: 40 no longer last.
        assert!(
            t.should_start(&space, reserve + 40),
            "a degenerated cycle starts the next earlier"
        );
        assert!(!t.should_start(&space, reserve + 50));
        for _ in 0..5 {
            t.cycle_done(cycle, CycleEnd::Full);
        }
        assert_eq!(t.margin_pct(), MARGIN_MAX, "capped");
        for k in 1..=MARGIN_MAX {
            t.cycle_done(cycle, CycleEnd::Concurrent);
            assert_eq!(t.margin_pct(), (MARGIN_MAX - k * MARGIN_RECOVER).max(MARGIN_BASE));
        }
        assert_eq!(t.margin_pct(), MARGIN_BASE);
    }
}
