//! When a concurrent cycle starts: Shenandoah's adaptive heuristics,
//! simplified. A cycle must start early enough that the mutators do not
//! run out of free regions before it ends, or the cycle degenerates (the
//! mutator that finds no memory stops the world for the rest of it).
//!
//! Where it sits: read by the collector thread's idle loop
//! ([`super::cycle`]) every few milliseconds, and whenever a mutator's
//! region refill takes the free list below the count where it would start
//! ([`Trigger::start_below`], which the loop publishes in
//! [`Space::start_cycle_below`]: at gigabytes a second a mutator takes tens
//! of regions between two looks, so the start must not wait for one). It learns two numbers:
//! the mutators' allocation rate (regions taken per second, from a counter
//! the allocation lock's holders bump: [`Space::taken_regions`]), averaged
//! over the recent samples, and how long a cycle takes (the last cycles',
//! averaged). It starts a cycle when the free regions outside the
//! mutators' reserve would last less than one expected cycle at that
//! rate plus a margin for spikes (Shenandoah's adaptive trigger, "free <
//! average cycle time × allocation rate", with its
//! `ShenandoahAllocSpikeFactor`). The plain floor still holds: a cycle
//! starts whenever less than a quarter of the heap is free. "The heap" here
//! is its soft capacity (`heap/capacity.rs`): free regions past it do not
//! count, and the floor and the margin are shares of it. One cycle's
//! worth, not more, because the start is exact (see above) and the pacer
//! spreads a cycle that runs long over the mutators' refills: with a
//! cycle and a half the heap held 8–12 % more cycles a run for the same
//! degenerated count (none) on GcTrees and GcStrings (the notebook, 1 Dec).
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

/// The collector thread's trigger state (only that thread touches it).
pub(crate) struct Trigger {
    /// Regions taken per second, averaged.
    rate: f64,
    /// Seconds a cycle takes, averaged (0 until one ran).
    cycle_secs: f64,
    /// Spike margin, hundredths of the heap (see the module's text).
    margin_pct: usize,
    last_taken: usize,
    last_sample: Instant,
}

impl Trigger {
    pub(crate) fn new(space: &Space) -> Trigger {
        Trigger {
            rate: 0.0,
            cycle_secs: 0.0,
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
    /// trigger has learnt so far: the floor (a quarter of the soft
    /// capacity), or,
    /// once a cycle has run, the reserve plus the regions the mutators
    /// would take in one cycle plus the margin, whichever is
    /// higher. Published to the mutators' region refills
    /// ([`Space::start_cycle_below`]) so that the crossing wakes the
    /// collector at once, whatever its idle poll.
    pub(crate) fn start_below(&self, space: &Space) -> usize {
        let regions = space.regions.len();
        // The soft capacity's (`heap/capacity.rs`): the free regions past
        // it are not counted as free, so every count below is raised by
        // them; the floor and the margin are shares of the capacity.
        let capacity = space.capacity();
        let beyond = regions - capacity;
        let floor = capacity.div_ceil(4) + beyond;
        if self.cycle_secs == 0.0 {
            return floor;
        }
        let margin = (capacity * self.margin_pct) as f64 / 100.0;
        let needed = self.rate * self.cycle_secs + margin;
        // `free - beyond - reserve < needed` for an integer `free`: `free`
        // below the ceiling of `beyond + reserve + needed`; a count past
        // the heap's size is the heap's size (every count is below it).
        let learnt = ((beyond + space.reserve_regions) as f64 + needed)
            .ceil()
            .min(regions as f64 + 1.0) as usize;
        floor.max(learnt)
    }

    /// The spike margin, hundredths of the heap.
    #[cfg(test)]
    fn margin_pct(&self) -> usize {
        self.margin_pct
    }

    /// A cycle took `took` and ended as `end`: the next estimates lean on
    /// it, and the margin widens after a degenerated or full one.
    pub(crate) fn cycle_done(&mut self, took: Duration, end: CycleEnd) {
        self.margin_pct = match end {
            CycleEnd::Concurrent => self.margin_pct.saturating_sub(MARGIN_RECOVER).max(MARGIN_BASE),
            CycleEnd::Degenerated => (self.margin_pct + MARGIN_DEGENERATED).min(MARGIN_MAX),
            CycleEnd::Full => (self.margin_pct + MARGIN_FULL).min(MARGIN_MAX),
        };
        let t = took.as_secs_f64();
        self.cycle_secs = if self.cycle_secs == 0.0 {
            t
        } else {
            0.5 * self.cycle_secs + 0.5 * t
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        t.cycle_done(Duration::from_millis(200), CycleEnd::Concurrent);
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
        t.cycle_done(Duration::from_millis(200), CycleEnd::Concurrent);
        for rate in [0.0, 10.0, 100.0, 123.4, 1e4, 1e9] {
            t.rate = rate;
            agree(&mut t, &format!("{rate} regions/s"));
        }
        t.rate = 100.0;
        // reserve + 20 + 12.8, rounded up.
        assert_eq!(agree(&mut t, "100 regions/s"), space.reserve_regions + 33);
        t.cycle_done(Duration::from_millis(200), CycleEnd::Degenerated);
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
        t.cycle_done(Duration::from_millis(200), CycleEnd::Concurrent);
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
        let cycle = Duration::from_millis(200);
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
