//! The heap's soft capacity: how many of its regions the collector tries to
//! keep the mutators within, grown after a collection that leaves too little
//! of it free.
//!
//! Where it sits: in [`Space`], beside the free list. The heap maps all of
//! its `heap_bytes` at once, but a region's pages cost the first write to
//! them: the kernel's fault, a zeroed page, and in a virtual machine the
//! host's own fault (0.54–0.72 ns a byte on the Zen 3 guest of
//! BENCHMARKS.md, against 0.03 ns to write memory already touched). A heap
//! that collects only when all of it is used touches every region once
//! before its first collection, which for a program whose live data is a few
//! megabytes is hundreds of milliseconds of faults and, for as long as it
//! lasts, allocation into memory no cache holds. So the heap starts with a
//! soft capacity of [`HeapConfig::initial_bytes`] (the JVM's `-Xms`), and:
//!
//! - region refills take the lowest free region first (the free list is
//!   kept in descending order, popped from its end), so memory freed by a
//!   collection is reused before untouched memory is;
//! - in passive mode a mutator's refill stops at the capacity as at the
//!   reserve: the refill fails and the mutator collects (see
//!   [`Space::held_back`]); in concurrent mode the trigger measures its
//!   free regions within the capacity (`collector/trigger.rs`) and starts
//!   cycles by it, while refills may go past it, so the capacity never
//!   stalls a mutator (the semantics of HotSpot's `SoftMaxHeapSize` for
//!   ZGC and Shenandoah);
//! - after every collection ([`Space::grow_after_collection`], in the
//!   collection's last pause) the capacity grows until at least
//!   [`MIN_FREE_PERCENT`] of it is free (HotSpot's `MinHeapFreeRatio`,
//!   whose default this is), up to the whole heap; a passive collection
//!   whose own refill still finds no room grows it by what that refill
//!   needs ([`Space::grow_for_refill`]), then to the whole heap before
//!   compacting, so the soft capacity never makes an allocation fail
//!   that the heap has room for;
//! - and when the collector takes more than [`GC_TIME_SHARE_MAX`] of the
//!   mutators' time (its pauses, paced waits and concurrent phases against
//!   the time between collections, averaged: [`GcTimeShare`]), the
//!   capacity grows by half, however little is live: a program whose live
//!   data is a large share of the capacity at every collection but under
//!   the 60 % that the free ratio allows collects too often for its
//!   allocation rate (G1 sizes its heap by the same measure, `GCTimeRatio`,
//!   whose default target this is). A concurrent phase counts whole, as a
//!   pause does: it stops no mutator, but on a machine with few CPUs the
//!   collector's thread takes one from them, its barriers' slow paths and
//!   copies slow them, and each cycle started early for want of capacity
//!   is one more (GcListChurn in a 32 MiB capacity ran 31 cycles in 20
//!   iterations, its collector busy nine tenths of the time, against 9 in
//!   64 MiB; G1 counts pauses only, its concurrent work being a small part
//!   of its cost).
//!
//! The capacity never shrinks: its regions' pages stay touched (nothing is
//! returned to the system), so a smaller capacity would only collect more
//! often for no memory saved.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::runtime::Pause;
use super::space::{AllocState, Space};

#[cfg(doc)]
use super::runtime::HeapConfig;

/// After a collection at least this share of the capacity, in percent, is
/// free, or the capacity grows (HotSpot's `MinHeapFreeRatio` default).
pub(crate) const MIN_FREE_PERCENT: usize = 40;

/// The largest share of the mutators' time the collector may take, on
/// average, before the capacity grows: 1 / (1 + 12), G1's `GCTimeRatio`
/// default.
pub(crate) const GC_TIME_SHARE_MAX: f64 = 1.0 / 13.0;

/// The collector's share of the mutators' time, averaged over collections:
/// the time they lost to it (pauses, paced waits, concurrent phases) since
/// the last collection's end, against the time since then.
pub(crate) struct GcTimeShare {
    last_end: Instant,
    /// Pauses counted so far (an index into the heap's pause record).
    pauses_counted: usize,
    /// Paced waits counted so far (the heap's running total then).
    paced_counted: Duration,
    /// Concurrent phases' time counted so far (the running total then).
    concurrent_counted: Duration,
    average: f64,
}

impl GcTimeShare {
    pub(crate) fn new() -> GcTimeShare {
        GcTimeShare {
            last_end: Instant::now(),
            pauses_counted: 0,
            paced_counted: Duration::ZERO,
            concurrent_counted: Duration::ZERO,
            average: 0.0,
        }
    }

    /// A collection ends at `now`, in a pause; `pauses` is the heap's
    /// record of pauses, `paced` its running total of paced waits and
    /// `concurrent` that of the concurrent phases' wall time.
    /// Counts the pauses not counted yet but the last, whose duration may
    /// still be provisional (the running pause is recorded before its
    /// release in concurrent mode, after it in passive mode: either way
    /// it is counted, whole, at the next collection). Returns the
    /// averaged share.
    pub(crate) fn observe(
        &mut self,
        now: Instant,
        pauses: &[Pause],
        paced: Duration,
        concurrent: Duration,
    ) -> f64 {
        let upto = pauses.len().saturating_sub(1);
        let lost = pauses[self.pauses_counted.min(upto)..upto]
            .iter()
            .map(|p| p.duration)
            .sum::<Duration>()
            + paced.saturating_sub(self.paced_counted)
            + concurrent.saturating_sub(self.concurrent_counted);
        let interval = now.saturating_duration_since(self.last_end).as_secs_f64();
        let share = if interval > 0.0 {
            (lost.as_secs_f64() / interval).min(1.0)
        } else {
            0.0
        };
        self.average = 0.5 * self.average + 0.5 * share;
        self.last_end = now;
        self.pauses_counted = upto;
        self.paced_counted = paced;
        self.concurrent_counted = concurrent;
        self.average
    }

    /// The capacity grew: the share measured at the smaller one no longer
    /// applies.
    pub(crate) fn reset(&mut self) {
        self.average = 0.0;
    }
}

impl Space {
    /// The soft capacity, in regions.
    #[inline]
    pub(crate) fn capacity(&self) -> usize {
        // Relaxed: written only under the allocation lock; readers outside
        // it (the trigger, statistics) take a recent value, which only
        // moves a cycle's start by the regions a growth added.
        self.capacity.load(Ordering::Relaxed)
    }

    /// Free regions a mutator's refill leaves alone beyond the reserve
    /// because of the soft capacity: the regions past it in passive mode,
    /// none in concurrent mode (there the trigger holds the capacity).
    #[inline]
    pub(crate) fn held_back(&self) -> usize {
        if self.hold_capacity {
            self.regions.len() - self.capacity()
        } else {
            0
        }
    }

    /// Sets the soft capacity to `regions` (clamped to the heap); under
    /// the allocation lock (`_a`).
    pub(crate) fn set_capacity(&self, _a: &mut AllocState, regions: usize) {
        let c = regions.clamp(1, self.regions.len());
        // Relaxed: under the allocation lock (see `capacity`).
        self.capacity.store(c, Ordering::Relaxed);
        self.read_ahead.capacity_set(c);
    }

    /// Regions in use: neither free nor held for evacuation copies.
    fn used_regions(&self, a: &AllocState) -> usize {
        self.regions.len() - a.free.len() - a.evac_free.len()
    }

    /// The end of a collection, in its last pause: orders the free list
    /// so that refills take the lowest (most recently touched) regions
    /// first, and grows the capacity until [`MIN_FREE_PERCENT`] of it is
    /// free, and at least the reserve and one region beyond the regions in
    /// use; by half when the collector's averaged share of the mutators'
    /// time, `gc_time_share`, is over [`GC_TIME_SHARE_MAX`]. Returns the
    /// capacity, in regions.
    pub(crate) fn grow_after_collection(&self, a: &mut AllocState, gc_time_share: f64) -> usize {
        a.free.sort_unstable_by(|x, y| y.cmp(x));
        let used = self.used_regions(a);
        let by_ratio = (used * 100).div_ceil(100 - MIN_FREE_PERCENT);
        let by_time = if gc_time_share > GC_TIME_SHARE_MAX {
            self.capacity() + self.capacity().div_ceil(2)
        } else {
            0
        };
        let wanted = by_ratio.max(by_time).max(used + self.reserve_regions + 1);
        if wanted > self.capacity() {
            self.set_capacity(a, wanted);
        }
        self.capacity()
    }

    /// A passive collection's own refill found no room within the
    /// capacity: grows it by the `regions` that refill needs beyond what
    /// is in use and the reserve, so the soft capacity never fails an
    /// allocation. True if it grew.
    pub(crate) fn grow_for_refill(&self, a: &mut AllocState, regions: usize) -> bool {
        let wanted = self.used_regions(a) + self.reserve_regions + regions;
        if wanted > self.capacity() && self.capacity() < self.regions.len() {
            self.set_capacity(a, wanted);
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gc::heap::runtime::PauseKind;
    use crate::gc::heap::space::Pool;

    fn space(hold: bool, capacity: usize) -> Space {
        let mut s = Space::small_for_test();
        s.hold_capacity = hold;
        let mut a = s.lock_alloc();
        s.set_capacity(&mut a, capacity);
        drop(a);
        s
    }

    /// Passive mode: TLAB refills stop at the capacity less the reserve,
    /// taking the lowest regions in order; concurrent mode: they go on to
    /// the reserve of the whole heap.
    #[test]
    fn refills_stop_at_the_capacity_in_passive_mode_only() {
        let region = 64 << 10;
        let s = space(true, 40);
        let reserve = s.reserve_regions;
        let mut taken = Vec::new();
        while let Some((start, _)) = s.carve(region, region, Pool::Mutator) {
            taken.push(s.region_index(start));
        }
        assert_eq!(
            taken,
            (0..40 - reserve).collect::<Vec<_>>(),
            "the lowest regions, up to the capacity less the reserve"
        );
        let s = space(false, 40);
        let mut n = 0;
        while s.carve(region, region, Pool::Mutator).is_some() {
            n += 1;
        }
        assert_eq!(
            n,
            s.regions.len() - reserve,
            "concurrent: the capacity holds no refill"
        );
    }

    /// A collection grows the capacity until 40 % of it is free and never
    /// shrinks it; it re-sorts the free list so the lowest regions come first.
    #[test]
    fn a_collection_grows_the_capacity_to_leave_forty_percent_free() {
        let region = 64 << 10;
        let s = space(true, 40);
        let reserve = s.reserve_regions; // 8 of 128
        for _ in 0..30 {
            s.carve(region, region, Pool::Mutator)
                .expect("within the capacity");
        }
        let mut a = s.lock_alloc();
        // Free regions 3 and 7: 28 (and the current region, 29) in use.
        s.free_region(&mut a, 3);
        s.free_region(&mut a, 7);
        a.current = None;
        assert_eq!(
            s.grow_after_collection(&mut a, 0.0),
            47,
            "28 in use: 28 / 0.6, rounded up"
        );
        assert_eq!(
            a.free[a.free.len() - 2..],
            [7, 3],
            "the freed regions come first, lowest first"
        );
        drop(a);
        let mut a = s.lock_alloc();
        a.free.retain(|&r| r >= 60);
        assert_eq!(s.grow_after_collection(&mut a, 0.0), 100, "60 in use");
        a.free.extend(0..60);
        assert_eq!(s.grow_after_collection(&mut a, 0.0), 100, "never shrinks");
        a.free.clear();
        assert_eq!(s.grow_after_collection(&mut a, 0.0), 128, "at most the heap");
        drop(a);
        let s = space(true, 10);
        let mut a = s.lock_alloc();
        assert_eq!(
            s.grow_after_collection(&mut a, 0.0),
            10,
            "an empty heap keeps its capacity"
        );
        a.free.retain(|&r| r >= 6);
        assert_eq!(
            s.grow_after_collection(&mut a, 0.0),
            6 + reserve + 1,
            "the reserve and a region past the regions in use"
        );
    }

    /// A collector over its share of the mutators' time grows the capacity
    /// by half, whatever is live; the share is averaged over collections.
    #[test]
    fn a_collector_over_its_time_share_grows_the_capacity_by_half() {
        let s = space(true, 40);
        let mut a = s.lock_alloc();
        assert_eq!(
            s.grow_after_collection(&mut a, GC_TIME_SHARE_MAX),
            40,
            "at the share: kept"
        );
        assert_eq!(s.grow_after_collection(&mut a, 0.1), 60, "over it: by half");
        drop(a);
        let mut t = GcTimeShare::new();
        let t0 = t.last_end;
        let ms = Duration::from_millis;
        let pause = |d| Pause {
            kind: PauseKind::Full,
            duration: ms(d),
            time_to_safepoint: Duration::ZERO,
            work: ms(d),
            resume: Duration::ZERO,
            work_cpu_time: ms(d),
        };
        // Two pauses of 4 ms, the last not counted yet, and 6 ms paced: 10
        // ms lost in 100, a share of 0.1, averaged with 0 to 0.05.
        let mut pauses = vec![pause(4), pause(4)];
        assert!((t.observe(t0 + ms(100), &pauses, ms(6), ms(0)) - 0.05).abs() < 1e-9);
        // The second pause, a third of 16 ms and nothing paced in the next
        // 100 ms: 0.2, averaged to 0.125.
        pauses.extend([pause(16), pause(1)]);
        assert!((t.observe(t0 + ms(200), &pauses, ms(6), ms(0)) - 0.125).abs() < 1e-9);
        t.reset();
        // The fourth pause, provisional until now: 1 ms in 100.
        pauses.push(pause(50));
        assert!((t.observe(t0 + ms(300), &pauses, ms(6), ms(0)) - 0.005).abs() < 1e-9);
        assert!(
            (t.observe(t0 + ms(400), &[], ms(6), ms(0)) - 0.0025).abs() < 1e-9,
            "a record shorter than counted"
        );
        // Concurrent phases count as lost time: 39 ms of them in 100 (the
        // one pause provisional): 0.39, averaged with 0 to 0.195; the same
        // total again adds nothing.
        let mut t = GcTimeShare::new();
        let t0 = t.last_end;
        let one = [pause(1)];
        assert!((t.observe(t0 + ms(100), &one, ms(0), ms(39)) - 0.195).abs() < 1e-9);
        assert!(
            (t.observe(t0 + ms(200), &one, ms(0), ms(39)) - 0.0975).abs() < 1e-9,
            "counted once"
        );
    }

    /// A refill that still finds no room after a passive collection grows
    /// the capacity by what it needs, up to the heap.
    #[test]
    fn a_refill_with_no_room_grows_the_capacity_by_its_need() {
        let s = space(true, 20);
        let reserve = s.reserve_regions;
        let mut a = s.lock_alloc();
        a.free.retain(|&r| r >= 12);
        assert!(s.grow_for_refill(&mut a, 3));
        assert_eq!(s.capacity(), 12 + reserve + 3);
        assert!(!s.grow_for_refill(&mut a, 3), "it fits now");
        assert!(s.grow_for_refill(&mut a, 1000));
        assert_eq!(s.capacity(), 128, "at most the heap");
        assert!(!s.grow_for_refill(&mut a, 1000), "nothing left to grow");
    }
}
