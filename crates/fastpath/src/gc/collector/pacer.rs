//! Allocation pacing: during a concurrent cycle, a mutator that allocates
//! faster than the collector works is delayed, a little and in proportion,
//! instead of running the heap dry and then stalling for a whole cycle
//! when its TLAB cannot be refilled (Shenandoah's `ShenandoahPacer`,
//! simplified).
//!
//! Where it sits: between [`crate::gc::heap::mutator`] (which claims budget on every
//! TLAB refill, its allocation slow path) and [`super::cycle`] (which
//! opens a budget when a cycle starts and earns more with every word of
//! work it does). Nothing on the allocation fast path: a TLAB bump never
//! looks here.
//!
//! The budget is in bytes. When a cycle starts the collector knows how much
//! the mutators may still allocate before the heap is full (the free
//! regions outside the mutators' reserve and the room final-mark will set
//! aside for copies, as much as the last cycle's: the *allowance*) and how much
//! work the cycle will take (the words the last cycle marked, copied and
//! updated). It grants a tenth of the allowance at once and the rest in
//! proportion to the work done, so if the mutators allocate no faster than
//! the collector works, the allowance lasts the cycle. The regions
//! final-mark frees whole (the immediate garbage) are granted at once
//! ([`Pacer::grant`]): the memory is back, and a program whose garbage
//! dies in whole regions should not be paced for a cycle it barely needs.
//! A refill that takes
//! the budget below zero waits until the collector has earned it back, or
//! for a delay in proportion to how far below zero the budget is
//! ([`STEP_DELAY`] per refill's worth of debt), [`MAX_DELAY`] at most,
//! then allocates anyway. Every refill over budget is charged a short
//! wait, never one long sleep (Shenandoah charges each allocation in
//! proportion too): pacing only spreads the collector's lag over the
//! mutators' refills, it never stops a mutator for long. Running short is
//! the trigger's to prevent (it starts cycles earlier after one
//! degenerated, `trigger.rs`), and a heap that is truly full is still met
//! by the refill failing (`Mutator::alloc_slow` then collects, and returns
//! `GcError::OutOfMemory` only once a collection left the heap full). The
//! wait is a safe region, so pauses go on.
//!
//! Before waiting, a mutator over budget assists (`assist.rs`): it does a
//! slice of the running phase's work itself, worth the debt in this
//! pacer's words ([`Pacer::words_for`]); the work is reported here like
//! the collector's, and the mutator waits only if the phase had no work to
//! give and the budget is still below zero.

use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// The longest a single refill waits for budget: short enough that a
/// paced operation stays far inside a 10 ms latency goal.
pub(crate) const MAX_DELAY: Duration = Duration::from_millis(1);

/// A refill's wait per refill's worth of debt (the budget below zero, in
/// units of the refill's size), up to [`MAX_DELAY`].
pub(crate) const STEP_DELAY: Duration = Duration::from_micros(100);

/// Fixed-point shift of [`Pacer`]'s grant rate (bytes per word of work).
const RATE_SHIFT: u32 = 16;

/// The heap's pacer.
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
    /// Bytes the last cycle's final-mark set aside for copies (the next
    /// one's estimate; `usize::MAX` until a cycle chose).
    last_copy_room: AtomicUsize,
    /// Threads waiting for budget (so the collector notifies only then).
    waiters: AtomicUsize,
    lock: Mutex<()>,
    budget_cv: Condvar,
}

impl Default for Pacer {
    fn default() -> Pacer {
        Pacer {
            active: AtomicBool::new(false),
            budget: AtomicIsize::new(0),
            rate: AtomicUsize::new(0),
            work: AtomicUsize::new(0),
            last_work: AtomicUsize::new(0),
            last_copy_room: AtomicUsize::new(usize::MAX),
            waiters: AtomicUsize::new(0),
            lock: Mutex::new(()),
            budget_cv: Condvar::new(),
        }
    }
}

impl Pacer {
    /// A cycle starts: `allowance` bytes may be allocated before the heap
    /// is full; the cycle is expected to take as much work as the last one,
    /// or `first_estimate` words if none ran yet.
    pub(crate) fn begin_cycle(&self, allowance: usize, first_estimate: usize) {
        // Relaxed: see `restart`.
        let last = self.last_work.load(Ordering::Relaxed);
        let expected_work = if last > 0 { last } else { first_estimate };
        self.work.store(0, Ordering::Relaxed);
        self.restart(allowance, expected_work);
        self.active.store(true, Ordering::Relaxed);
    }

    /// A phase of the cycle starts with `allowance` bytes the mutators may
    /// take before it ends and `expected_work` words to do: a tenth of the
    /// allowance at once, the rest in proportion to the work (any debt is
    /// forgiven: the allowance is measured from the free space now).
    pub(crate) fn restart(&self, allowance: usize, expected_work: usize) {
        let earned = allowance - allowance / 10;
        let rate = ((earned as u128) << RATE_SHIFT) / expected_work.max(1) as u128;
        // Relaxed: the pacer's words are independent hints; a waiter is
        // woken under `lock`, and a missed grant costs at most MAX_DELAY.
        self.rate
            .store(rate.min(usize::MAX as u128) as usize, Ordering::Relaxed);
        self.budget.store((allowance / 10) as isize, Ordering::Relaxed);
        if self.waiters.load(Ordering::SeqCst) > 0 {
            self.wake();
        }
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

    /// Memory came back during the cycle (final-mark freed the regions
    /// with nothing live): `bytes` more may be allocated at once. Not a
    /// restart: any debt is paid from it first, and the rate stays.
    pub(crate) fn grant(&self, bytes: usize) {
        // Relaxed: see `begin_cycle`.
        if !self.active.load(Ordering::Relaxed) || bytes == 0 {
            return;
        }
        let bytes = isize::try_from(bytes).unwrap_or(isize::MAX);
        // SeqCst: as `report`'s add.
        if self
            .budget
            .fetch_add(bytes, Ordering::SeqCst)
            .saturating_add(bytes)
            >= 0
            && self.waiters.load(Ordering::SeqCst) > 0
        {
            self.wake();
        }
    }

    /// Final-mark set aside `bytes` for this cycle's copies: the next
    /// cycle's allowance leaves that much out.
    pub(crate) fn note_copy_room(&self, bytes: usize) {
        // Relaxed: read by the collector thread, which wrote it.
        self.last_copy_room.store(bytes, Ordering::Relaxed);
    }

    /// The bytes the last cycle set aside for copies; `None` until a
    /// cycle's final-mark chose.
    pub(crate) fn copy_room_estimate(&self) -> Option<usize> {
        // Relaxed: see `note_copy_room`.
        Some(self.last_copy_room.load(Ordering::Relaxed)).filter(|&b| b != usize::MAX)
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

    /// A mutator is about to take `bytes` (a TLAB refill): if it went over
    /// budget, the delay it should [`Pacer::wait`] at most: [`STEP_DELAY`]
    /// per `bytes` of debt (at least one step), [`MAX_DELAY`] at most.
    #[inline]
    pub(crate) fn claim(&self, bytes: usize) -> Option<Duration> {
        // Relaxed: see `begin_cycle`.
        if !self.active.load(Ordering::Relaxed) {
            return None;
        }
        let after = self.budget.fetch_sub(bytes as isize, Ordering::Relaxed) - bytes as isize;
        if after >= 0 {
            return None;
        }
        let steps = after.unsigned_abs().div_ceil(bytes.max(1)).max(1);
        let steps = u32::try_from(steps).unwrap_or(u32::MAX);
        Some(STEP_DELAY.saturating_mul(steps).min(MAX_DELAY))
    }

    /// Bytes below zero the budget is (0 when it is not).
    pub(crate) fn debt(&self) -> usize {
        // Relaxed: see `begin_cycle`; a hint for an assist's size.
        self.budget.load(Ordering::Relaxed).min(0).unsigned_abs()
    }

    /// Words of collector work that earn `bytes` of budget this cycle (an
    /// assist's size, `assist.rs`); `usize::MAX` when work earns nothing.
    pub(crate) fn words_for(&self, bytes: usize) -> usize {
        // Relaxed: see `begin_cycle`.
        let rate = self.rate.load(Ordering::Relaxed);
        if rate == 0 {
            return usize::MAX;
        }
        (((bytes as u128) << RATE_SHIFT).div_ceil(rate as u128)).min(usize::MAX as u128) as usize
    }

    /// Waits (the caller is in a safe region) until the budget is back
    /// above zero, the cycle ends, or `delay` (from [`Pacer::claim`]) passes;
    /// returns how long it waited.
    #[cold]
    pub(crate) fn wait(&self, delay: Duration) -> Duration {
        let start = Instant::now();
        let deadline = start + delay.min(MAX_DELAY);
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
    fn a_refill_over_budget_waits_in_proportion_to_the_debt_and_work_releases_it() {
        let p = Pacer::default();
        assert_eq!(p.claim(1 << 20), None, "no cycle: no pacing");
        p.begin_cycle(1000, 100);
        assert_eq!(p.claim(100), None, "the tenth granted up front");
        assert_eq!(
            p.claim(1),
            Some(STEP_DELAY),
            "one refill's worth of debt: one step"
        );
        let waited = p.wait(STEP_DELAY);
        assert!(
            waited >= STEP_DELAY,
            "waited {waited:?}: the budget is still below zero"
        );
        assert!(waited < MAX_DELAY * 500, "waited {waited:?}");
        p.budget.store(-1, Ordering::Relaxed);
        assert_eq!(
            p.claim(3),
            Some(STEP_DELAY * 2),
            "4 bytes below zero, refills of 3: 2 steps"
        );
        p.budget.store(-(1 << 20), Ordering::Relaxed);
        assert_eq!(
            p.claim(1),
            Some(MAX_DELAY),
            "a large debt waits MAX_DELAY, never more"
        );
        let waited = p.wait(Duration::from_secs(10));
        assert!(waited >= MAX_DELAY, "waited {waited:?}");
        assert!(
            waited < MAX_DELAY * 500,
            "waited {waited:?}: capped at MAX_DELAY, not 10 s"
        );
        p.budget.store(-1, Ordering::Relaxed);
        // 900 bytes over 100 words: 9 per word; 1 word repays the 1 byte.
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(1));
                p.report(1);
            });
            let waited = p.wait(MAX_DELAY);
            assert!(waited < MAX_DELAY * 500, "waited {waited:?}");
        });
        assert!(p.budget.load(Ordering::Relaxed) >= 0);
        assert_eq!(p.end_cycle(), 1);
        assert_eq!(p.claim(1 << 20), None, "the cycle is over");
    }

    /// A phase's restart forgives the debt and grants a tenth of the new
    /// allowance at once, the rest over the phase's words; the cycle's
    /// words go on counting (the next cycle's estimate).
    #[test]
    fn a_phase_restart_sets_the_budget_from_the_allowance_now() {
        let p = Pacer::default();
        p.begin_cycle(1000, 100);
        p.report(10);
        assert!(p.claim(5000).is_some());
        assert!(p.debt() > 0);
        // 20 000 bytes over 1000 words: 2000 now, 18 a word.
        p.restart(20_000, 1000);
        assert_eq!(p.debt(), 0, "the debt is forgiven");
        assert_eq!(p.claim(2000), None, "a tenth granted up front");
        assert!(p.claim(1).is_some(), "and no more");
        p.report(1);
        assert_eq!(p.debt(), 0, "18 bytes a word repay the 1 byte");
        assert_eq!(p.words_for(18), 1);
        assert_eq!(p.end_cycle(), 11, "the cycle's words, both phases'");
    }

    /// Memory returned mid-cycle pays the debt first and stays spendable;
    /// no cycle, nothing granted. The copy room is remembered for the
    /// next cycle's allowance.
    #[test]
    fn a_grant_pays_the_debt_then_adds_to_the_budget() {
        let p = Pacer::default();
        p.grant(1 << 20);
        assert_eq!(p.claim(1), None, "no cycle: no pacing, nothing granted");
        p.begin_cycle(1000, 100);
        assert!(p.claim(300).is_some());
        assert_eq!(p.debt(), 200);
        p.grant(1000);
        assert_eq!(p.debt(), 0);
        assert_eq!(p.claim(800), None, "the grant's rest");
        assert!(p.claim(1).is_some(), "and no more");
        p.end_cycle();
        assert_eq!(p.copy_room_estimate(), None);
        p.note_copy_room(4096);
        assert_eq!(p.copy_room_estimate(), Some(4096));
        p.note_copy_room(0);
        assert_eq!(
            p.copy_room_estimate(),
            Some(0),
            "an abbreviated cycle copies nothing"
        );
    }

    /// An assist's size: the words of work that earn a debt back, at the
    /// cycle's rate; the debt is the budget below zero.
    #[test]
    fn words_for_a_debt_follow_the_cycles_rate() {
        let p = Pacer::default();
        assert_eq!(p.words_for(100), usize::MAX, "no rate yet: work earns nothing");
        // 9000 bytes earned over 1000 words: 9 bytes a word.
        p.begin_cycle(10_000, 1000);
        assert_eq!(p.debt(), 0);
        assert_eq!(p.words_for(90), 10);
        assert_eq!(p.words_for(91), 11, "rounded up");
        assert_eq!(p.claim(1000), None);
        assert!(p.claim(900).is_some());
        assert_eq!(p.debt(), 900);
        p.report(p.words_for(p.debt()));
        assert_eq!(p.debt(), 0, "the assist's words repay the debt");
        p.end_cycle();
    }
}
