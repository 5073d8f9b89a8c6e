//! How long a thread in `Object.wait` watches for its notification before
//! it parks.
//!
//! Where it sits: `monitor/wait.rs`'s wait loop calls `spin_until` before
//! each park, with the test "notified or interrupted"; a notification that
//! comes within the budget is seen without a park and the futex wake that
//! ends it. The budget is a process-wide tunable ([`set_wait_spin_ns`]),
//! starting from `FASTPATH_WAIT_SPIN_NS` ([`super::settings::WaitSpinNs`]).
//!
//! Why spin at all: the notifier of a producer-consumer pair runs on the
//! other CPU and notifies within microseconds, while a park costs the
//! waiter its CPU: the vCPU of a KVM guest with nothing else to run halts,
//! and the wake-up that follows the notify costs 23–31 µs (`fastpath
//! spin`'s "park at once" hand-off row on the 2-vCPU guests), more than
//! the notify's whole wait. Spinning for as long as a park and wake cost
//! is the 2-competitive rule (Karlin, Li, Manasse, Owicki, "Empirical
//! studies of competitive spinning for a shared-memory multiprocessor",
//! SOSP 1991): whatever the wait turns out to be, it costs at most twice
//! the better of spinning and parking. So the default budget is
//! [`crate::spin::Budget::DEFAULT`]'s, 30 µs, sized by the same rule. Once
//! the budget is spent the thread parks as before; a spurious or timed
//! wake-up spins again, each time at most the budget (or what is left of
//! the wait's timeout, if less).
//!
//! How: the first [`PAUSE_NS`] of the budget pause (a notifier running on
//! the other CPU is seen within nanoseconds), the rest yields
//! (`sched_yield`) between looks. A yield with nothing else runnable on
//! this CPU returns within a microsecond, so a lone pair keeps polling;
//! where more threads are runnable than CPUs, the notifier may be one of
//! them, and the yield lets it run instead of spinning against it.
//! Measured on the 2-vCPU Sapphire Rapids guest (fastpath-vm's
//! WaitNotifyQueue, a 16-slot buffer under `wait`/`notifyAll`, ms per
//! iteration, 5 interleaved rounds): one pair 72 ms parking at once, 23
//! with this budget, HotSpot 59; two pairs (four threads on two CPUs) 61,
//! 25 and 52, where pausing for the whole budget took 110 ms (195 at
//! 100 µs): the pairs' spins took the CPU from the notifiers.
//!
//! HotSpot's `ObjectMonitor::wait` parks at once (it spins in `enter`
//! only); 0 selects that. On a machine with one CPU the notifier cannot
//! run while the waiter spins, so the default there is 0.
//!
//! The test is the waiter's own node state and interrupt word, each read
//! once a pause: the cache lines the notifier writes, held shared by the
//! spinner until then. No new shared state: the spin only looks earlier at
//! what the loop after the park reads anyway.

use std::sync::atomic::{AtomicU64, Ordering as StdOrdering};
use std::time::Duration;

use super::settings::WaitSpinNs;

/// The default budget on a machine with more than one CPU, in
/// nanoseconds: [`crate::spin::Budget::DEFAULT`]'s pauses.
pub const DEFAULT_WAIT_SPIN_NS: u64 = crate::spin::Budget::DEFAULT.spin_ns;

/// The largest accepted budget (1 ms): past a time slice's fraction worth
/// spending on one wait.
pub const MAX_WAIT_SPIN_NS: u64 = WaitSpinNs::MAX;

/// Not yet resolved: the first wait starts from the setting.
const UNSET: u64 = u64::MAX;

/// The budget in force (nanoseconds). A tunable, not protocol state, so a
/// plain relaxed std atomic, also under loom.
static SPIN_NS: AtomicU64 = AtomicU64::new(UNSET);

/// [`set_wait_spin_ns`] refused its argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitSpinOutOfRange {
    /// The refused budget, nanoseconds.
    pub value: u64,
}

impl std::fmt::Display for WaitSpinOutOfRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "wait spin {} ns is above the maximum {MAX_WAIT_SPIN_NS} ns",
            self.value
        )
    }
}

impl std::error::Error for WaitSpinOutOfRange {}

/// Sets how long a thread in `Object.wait` spins, watching for its
/// notification, before it parks (process-wide; module docs). 0 parks at
/// once (HotSpot's behaviour). Takes effect at the next wait.
pub fn set_wait_spin_ns(ns: u64) -> Result<(), WaitSpinOutOfRange> {
    if ns > MAX_WAIT_SPIN_NS {
        return Err(WaitSpinOutOfRange { value: ns });
    }
    SPIN_NS.store(ns, StdOrdering::Relaxed);
    Ok(())
}

/// The budget in force, nanoseconds (see [`set_wait_spin_ns`]).
pub fn wait_spin_ns() -> u64 {
    let v = SPIN_NS.load(StdOrdering::Relaxed);
    if v != UNSET {
        return v;
    }
    let start = initial();
    // A racing setter wins: its value is the one asked for.
    match SPIN_NS.compare_exchange(UNSET, start, StdOrdering::Relaxed, StdOrdering::Relaxed) {
        Ok(_) => start,
        Err(set) => set,
    }
}

#[cfg(not(loom))]
fn initial() -> u64 {
    super::settings::WAIT_SPIN.get().0
}

/// Under loom a waiter parks at once: a model checks the protocol, and the
/// spin only looks earlier at what the loop reads after the park.
#[cfg(loom)]
fn initial() -> u64 {
    0
}

/// Pauses, then yields, until `done()` holds or the budget in force,
/// capped at `limit` (a timed wait's remaining time), is spent; whether
/// `done()` held (module docs). The pauses are the configured ones,
/// counted from the spin module's calibration, so their part of the
/// budget is the same time on a short and a long pause.
#[cfg(not(loom))]
pub(crate) fn spin_until(limit: Option<Duration>, done: impl Fn() -> bool) -> bool {
    let mut ns = wait_spin_ns();
    if let Some(limit) = limit {
        ns = ns.min(u64::try_from(limit.as_nanos()).unwrap_or(u64::MAX));
    }
    if ns == 0 {
        return done();
    }
    let pauses = crate::spin::calibration().pauses_for(ns.min(PAUSE_NS));
    for _ in 0..pauses {
        if done() {
            return true;
        }
        crate::spin::pause();
    }
    if ns <= PAUSE_NS {
        return done();
    }
    let start = std::time::Instant::now();
    let budget = Duration::from_nanos(ns);
    while start.elapsed() < budget {
        if done() {
            return true;
        }
        std::thread::yield_now();
    }
    done()
}

/// The first part of the budget, in nanoseconds, spent pausing; the rest
/// yields (module docs). A notifier on the other CPU answers within it.
pub const PAUSE_NS: u64 = 2_000;

/// Under loom: no spin (see `initial`); one look.
#[cfg(loom)]
pub(crate) fn spin_until(_limit: Option<Duration>, done: impl Fn() -> bool) -> bool {
    done()
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    /// The budget is process-wide: the tests that set it take turns.
    static KNOB: Mutex<()> = Mutex::new(());

    #[test]
    fn the_setter_bounds_the_budget() {
        let _turn = KNOB.lock().unwrap_or_else(|e| e.into_inner());
        let before = wait_spin_ns();
        let e = set_wait_spin_ns(MAX_WAIT_SPIN_NS + 1).unwrap_err();
        assert_eq!(e.value, MAX_WAIT_SPIN_NS + 1);
        assert!(e.to_string().contains("above the maximum"), "{e}");
        assert_eq!(wait_spin_ns(), before, "a refused value changes nothing");
        set_wait_spin_ns(0).unwrap();
        assert_eq!(wait_spin_ns(), 0);
        set_wait_spin_ns(before).unwrap();
    }

    #[test]
    fn a_spent_budget_or_none_gives_up_and_a_notification_within_it_is_seen() {
        let _turn = KNOB.lock().unwrap_or_else(|e| e.into_inner());
        let before = wait_spin_ns();
        // No budget: one look.
        set_wait_spin_ns(0).unwrap();
        assert!(!spin_until(None, || false));
        assert!(spin_until(None, || true));
        // A budget against a condition that never holds: it gives up,
        // after about the budget (bounded above generously: a preemption).
        set_wait_spin_ns(200_000).unwrap();
        let t = Instant::now();
        assert!(!spin_until(None, || false));
        let took = t.elapsed();
        assert!(took < Duration::from_secs(5), "a 200 µs spin took {took:?}");
        // The timeout's remainder caps it.
        let t = Instant::now();
        assert!(!spin_until(Some(Duration::ZERO), || false));
        assert!(t.elapsed() < Duration::from_secs(1));
        // A flag another thread sets while we spin with a budget far
        // longer than its start: seen without a park. Retried, since a
        // slow start of the other thread can outlast any budget.
        set_wait_spin_ns(MAX_WAIT_SPIN_NS).unwrap();
        let mut seen = 0;
        for _ in 0..20 {
            let flag = Arc::new(AtomicBool::new(false));
            let setter = {
                let flag = flag.clone();
                std::thread::spawn(move || flag.store(true, StdOrdering::Release))
            };
            if spin_until(None, || flag.load(StdOrdering::Acquire)) {
                seen += 1;
            }
            setter.join().unwrap();
        }
        set_wait_spin_ns(before).unwrap();
        assert!(seen > 0, "no flag seen within 1 ms of spinning in 20 tries");
    }
}
