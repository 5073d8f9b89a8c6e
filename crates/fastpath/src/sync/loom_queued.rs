//! Loom models of the monitor's queued bit (`monitor/mod.rs`, "the
//! lost-wake-up trap"): an exit is one CAS `id → NO_OWNER` that fails into
//! the cold part only when a contender set [`QUEUED`] after pushing its
//! node, and an owner clears a stale bit while it still owns the monitor.
//! Each model races a contender's push-then-mark against an exit that
//! releases, clears the bit or keeps it; a lost wake-up leaves a thread
//! parked for ever, which loom reports as a deadlock, and exclusion is
//! loom's `UnsafeCell` check. Run as the other models
//! (`RUSTFLAGS="--cfg loom" cargo test -p fastpath --release --lib -- loom`).

use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::thread;

use super::header::Mark;
use super::monitor::{Monitor, NO_OWNER};
use super::thread::with_current;

use super::loom_tests::model;

/// A monitor and the value it protects.
struct Guarded {
    monitor: Box<Monitor>,
    value: UnsafeCell<u32>,
}
// SAFETY: `value` is only touched by the monitor's owner, which loom
// checks.
unsafe impl Sync for Guarded {}
// SAFETY: as above.
unsafe impl Send for Guarded {}

impl Guarded {
    fn new() -> Arc<Guarded> {
        Arc::new(Guarded {
            monitor: Monitor::new(Mark(0), NO_OWNER, 0),
            value: UnsafeCell::new(0),
        })
    }

    /// Enters (nothing deflates the monitor: it must succeed), increments
    /// and exits.
    fn bump(&self) {
        with_current(|me| {
            assert!(self.monitor.enter(me));
            // SAFETY: we own the monitor.
            self.value.with_mut(|v| unsafe { *v += 1 });
            self.monitor.exit(me);
        });
    }

    /// The value, once every other thread is joined.
    fn get(&self) -> u32 {
        // SAFETY: see above.
        self.value.with(|v| unsafe { *v })
    }
}

/// The owner's exit races one contender's push and mark: either the
/// release CAS comes first (the contender's mark finds the monitor free
/// and it takes it) or the mark does (the CAS fails and the cold part
/// wakes the contender).
#[test]
fn loom_queued_bit_exit_races_a_contender() {
    model(|| {
        let g = Guarded::new();
        with_current(|me| assert!(g.monitor.enter(me)));
        let a = {
            let g = g.clone();
            thread::spawn(move || g.bump())
        };
        // SAFETY: we own the monitor.
        g.value.with_mut(|v| unsafe { *v += 1 });
        with_current(|me| g.monitor.exit(me));
        a.join().unwrap();
        assert_eq!(g.get(), 2);
        assert!(!g.monitor.is_busy(), "a node, an owner or a count left behind");
    });
}

/// The stale bit's clear racing a newcomer: A queues behind the main
/// thread and is woken, so A owns the monitor with the bit set and, once
/// it has unlinked its node, an empty list: its exit clears the bit and
/// looks again. Meanwhile the main thread enters again and may push and
/// mark at any point of that clear. A clear that read the newcomer's mark
/// sees its node and puts the bit back; one that came before the mark
/// leaves the release CAS to fail on it. Either way the newcomer is woken.
#[test]
fn loom_queued_bit_clear_races_a_newcomer() {
    model(|| {
        let g = Guarded::new();
        with_current(|me| assert!(g.monitor.enter(me)));
        let a = {
            let g = g.clone();
            thread::spawn(move || g.bump())
        };
        with_current(|me| g.monitor.exit(me));
        g.bump();
        a.join().unwrap();
        assert_eq!(g.get(), 2);
        assert!(!g.monitor.is_busy(), "a node, an owner or a count left behind");
    });
}
