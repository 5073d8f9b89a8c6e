//! Allocation pacing: during a concurrent cycle, a mutator that allocates
//! faster than the collector works is delayed, a little and in proportion,
//! instead of running the heap dry and then stalling for a whole cycle
//! when its TLAB cannot be refilled (Shenandoah's `ShenandoahPacer`,
//! simplified).
//!
//! Where it sits: between [`super::mutator`] (which claims budget on every
//! TLAB refill, its allocation slow path) and [`super::collector`] (which
//! opens a budget when a cycle starts and earns more with every word of
//! work it does). Nothing on the allocation fast path: a TLAB bump never
//! looks here.
//!
//! The budget is in bytes. When a cycle starts the collector knows how much
//! the mutators may still allocate before the heap is full (the free
//! regions outside the evacuation reserve: the *allowance*) and how much
//! work the cycle will take (the words the last cycle marked, copied and
//! updated). It grants a tenth of the allowance at once and the rest in
//! proportion to the work done, so if the mutators allocate no faster than
//! the collector works, the allowance lasts the cycle. A refill that takes
//! the budget below zero waits until the collector has earned it back, or
//! [`MAX_DELAY`] at most (Shenandoah's `ShenandoahPacingMaxDelay`), then
//! allocates anyway: pacing only spreads the stall, it never stops a
//! mutator for long, and a heap that is truly full is still met by the
//! refill failing (`Mutator::alloc_slow` then collects, and returns
//! `GcError::OutOfMemory` only once a collection left the heap full). The wait is a safe region, so pauses go on.

use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// The longest a single refill waits for budget (Shenandoah's default).
pub(crate) const MAX_DELAY: Duration = Duration::from_millis(10);

/// Fixed-point shift of [`Pacer`]'s grant rate (bytes per word of work).
const RATE_SHIFT: u32 = 16;

/// The heap's pacer.
#[derive(Default)]
pub(crate) struct Pacer {
    /// A cycle is under way and pacing is on.
    active: AtomicBool,
    /// Bytes the mutators may still allocate before waiting.
    budget: AtomicIsize,
    /// Bytes granted per word of collector work, << `RATE_SHIFT`.
    rate: AtomicUsize,
    /// Words of work reported this cycle.
    work: AtomicUsize,
    /// Words of work the last cycle reported (the next one's estimate).
    last_work: AtomicUsize,
    /// Threads waiting for budget (so the collector notifies only then).
    waiters: AtomicUsize,
    lock: Mutex<()>,
    budget_cv: Condvar,
}

impl Pacer {
    /// A cycle starts: `allowance` bytes may be allocated before the heap
    /// is full; the cycle is expected to take as much work as the last one,
    /// or `first_estimate` words if none ran yet.
    pub(crate) fn begin_cycle(&self, allowance: usize, first_estimate: usize) {
        // Relaxed: see below.
        let last = self.last_work.load(Ordering::Relaxed);
        let expected_work = if last > 0 { last } else { first_estimate };
        let earned = allowance - allowance / 10;
        let rate = ((earned as u128) << RATE_SHIFT) / expected_work.max(1) as u128;
        // Relaxed: the pacer's words are independent hints; a waiter is
        // woken under `lock`, and a missed grant costs at most MAX_DELAY.
        self.rate
            .store(rate.min(usize::MAX as u128) as usize, Ordering::Relaxed);
        self.budget.store((allowance / 10) as isize, Ordering::Relaxed);
        self.work.store(0, Ordering::Relaxed);
        self.active.store(true, Ordering::Relaxed);
    }

    /// The collector did `words` of work: grant its share of the allowance.
    #[inline]
    pub(crate) fn report(&self, words: usize) {
        // Relaxed: see `begin_cycle`.
        if !self.active.load(Ordering::Relaxed) {
            return;
        }
        self.work.fetch_add(words, Ordering::Relaxed);
        let grant = ((words as u128 * self.rate.load(Ordering::Relaxed) as u128) >> RATE_SHIFT) as isize;
        // SeqCst on the add and on the waiters' count: with the waiter's
        // SeqCst increment then budget read, one of the two sees the other
        // (a waiter that missed this grant is notified).
        let now = self.budget.fetch_add(grant, Ordering::SeqCst) + grant;
        if now >= 0 && self.waiters.load(Ordering::SeqCst) > 0 {
            self.wake();
        }
    }

    /// The cycle is over: stop pacing, release every waiter; returns the
    /// words of work the cycle reported.
    pub(crate) fn end_cycle(&self) -> usize {
        // Relaxed: see `begin_cycle`; waiters are woken under the lock.
        self.active.store(false, Ordering::Relaxed);
        self.wake();
        let work = self.work.load(Ordering::Relaxed);
        self.last_work.store(work, Ordering::Relaxed);
        work
    }

    fn wake(&self) {
        let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.budget_cv.notify_all();
    }

    /// A mutator is about to take `bytes` (a TLAB refill): true if it went
    /// over budget and should [`Pacer::wait`].
    #[inline]
    pub(crate) fn claim(&self, bytes: usize) -> bool {
        // Relaxed: see `begin_cycle`.
        self.active.load(Ordering::Relaxed)
            && self.budget.fetch_sub(bytes as isize, Ordering::Relaxed) < bytes as isize
    }

    /// Waits (the caller is in a safe region) until the budget is back
    /// above zero, the cycle ends, or [`MAX_DELAY`] passes; returns how
    /// long it waited.
    #[cold]
    pub(crate) fn wait(&self) -> Duration {
        let start = Instant::now();
        let deadline = start + MAX_DELAY;
        // SeqCst: see `report`.
        self.waiters.fetch_add(1, Ordering::SeqCst);
        let mut g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let now = Instant::now();
            if self.budget.load(Ordering::SeqCst) >= 0
                || !self.active.load(Ordering::Relaxed)
                || now >= deadline
            {
                break;
            }
            g = self
                .budget_cv
                .wait_timeout(g, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        drop(g);
        self.waiters.fetch_sub(1, Ordering::SeqCst);
        start.elapsed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refill_over_budget_waits_at_most_max_delay_and_work_releases_it() {
        let p = Pacer::default();
        assert!(!p.claim(1 << 20), "no cycle: no pacing");
        p.begin_cycle(1000, 100);
        assert!(!p.claim(100), "the tenth granted up front");
        assert!(p.claim(1), "over budget");
        let waited = p.wait();
        assert!(waited >= MAX_DELAY, "waited {waited:?}, bounded by MAX_DELAY");
        assert!(waited < MAX_DELAY * 50, "waited {waited:?}");
        // 900 bytes over 100 words: 9 per word; 1 word repays the 1 byte.
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(1));
                p.report(1);
            });
            let waited = p.wait();
            assert!(waited < MAX_DELAY * 50, "waited {waited:?}");
        });
        assert!(p.budget.load(Ordering::Relaxed) >= 0);
        assert_eq!(p.end_cycle(), 1);
        assert!(!p.claim(1 << 20), "the cycle is over");
    }
}
