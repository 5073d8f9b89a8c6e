//! Loom models of the contention protocol (spinning, parking, hand-off,
//! fairness), at the monitor itself: no header, no inflation, so every
//! interleaving the model explores is one of `monitor.rs`'s.
//!
//! Under loom a queued thread counts as overdue for a hand-off as soon as
//! it has been woken and passed over once (`FairClock`), so any model in
//! which a woken thread loses to a barging one also runs the hand-off.
//! Exclusion is checked by loom's `UnsafeCell` (an access not ordered by
//! the monitor's hand-over is reported as a race), progress by loom's
//! deadlock detection (a lost wake-up leaves a thread parked for ever).

use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::thread;

use super::header::Mark;
use super::monitor::Monitor;
use super::monitor::{DEFLATER_MARKER, NO_OWNER};
use super::thread::with_current;

use super::loom_tests::model;

/// A monitor and the value it protects.
struct Guarded {
    monitor: Box<Monitor>,
    value: UnsafeCell<u32>,
}
// SAFETY: `value` is only touched by the monitor's owner (or the deflater
// that made it DEFLATER_MARKER), which loom checks.
unsafe impl Sync for Guarded {}
// SAFETY: as above.
unsafe impl Send for Guarded {}

impl Guarded {
    /// Owned by nobody.
    fn new() -> Arc<Guarded> {
        Arc::new(Guarded {
            monitor: Monitor::new(Mark(0), NO_OWNER, 0),
            value: UnsafeCell::new(0),
        })
    }

    /// Enters; if that succeeded, increments under the monitor and exits.
    /// Returns whether it entered (`false`: the monitor was deflated).
    fn bump(&self) -> bool {
        with_current(|me| {
            if !self.monitor.enter(me) {
                return false;
            }
            // SAFETY: we own the monitor.
            self.value.with_mut(|v| unsafe { *v += 1 });
            self.monitor.exit(me);
            true
        })
    }

    /// The value; the caller owns the monitor, deflated it, or joined
    /// every other thread.
    fn get(&self) -> u32 {
        // SAFETY: see above.
        self.value.with(|v| unsafe { *v })
    }
}

/// Two threads that each enter `g` (which must succeed: nothing deflates
/// it), increment and exit.
fn contenders(g: &Arc<Guarded>) -> Vec<thread::JoinHandle<()>> {
    (0..2)
        .map(|_| {
            let g = g.clone();
            thread::spawn(move || assert!(g.bump()))
        })
        .collect()
}

/// A fair hand-off racing barging enterers: the main thread owns the
/// monitor, A queues behind it, the main thread exits (waking A) and enters
/// again before A runs (barging), so A, passed over, asks for a hand-off;
/// the main thread's second exit gives the monitor straight to A, while B
/// tries to barge in at any moment: it must never find the monitor free in
/// the middle of the hand-off. Every increment is under the monitor, nobody
/// is stranded, and no request outlives its node.
#[test]
fn loom_hand_off_races_a_barging_enterer() {
    model(|| {
        let g = Guarded::new();
        with_current(|me| assert!(g.monitor.enter(me)));
        let ts = contenders(&g);
        with_current(|me| g.monitor.exit(me));
        assert!(g.bump());
        for t in ts {
            t.join().unwrap();
        }
        assert_eq!(g.get(), 3);
        assert_eq!(g.monitor.owner(), NO_OWNER);
        assert!(!g.monitor.is_busy(), "a node, an owner or a count left behind");
        assert!(!g.monitor.has_hand_off_request(), "a request outlived its node");
    });
}

/// A newcomer that finds the entry list non-empty queues without spinning
/// (`spin_unless_queued`), racing the owner's exit: the two-sided fence
/// still guarantees that one of them sees the other, so neither queued
/// thread is left parked (loom reports the deadlock otherwise).
#[test]
fn loom_newcomer_behind_a_queue_is_not_lost() {
    model(|| {
        let g = Guarded::new();
        with_current(|me| assert!(g.monitor.enter(me)));
        let ts = contenders(&g);
        // SAFETY: we own the monitor.
        g.value.with_mut(|v| unsafe { *v += 1 });
        with_current(|me| g.monitor.exit(me));
        for t in ts {
            t.join().unwrap();
        }
        assert_eq!(g.get(), 3);
        assert!(!g.monitor.is_busy());
    });
}

/// A hand-off racing deflation: A queues behind the main thread, which
/// exits and re-enters (barging past the woken A, so A asks for a hand-off)
/// and exits again, while the deflater tries to take the monitor at any
/// moment. `try_deflate` must never succeed while A is queued or has been
/// handed the monitor: the deflater then touches the value as an owner
/// would, and loom reports the race if A also did. Whoever finds the
/// monitor deflated gets `false` from `enter` and touches nothing.
#[test]
fn loom_hand_off_races_deflation() {
    model(|| {
        let g = Guarded::new();
        with_current(|me| assert!(g.monitor.enter(me)));
        let a = {
            let g = g.clone();
            thread::spawn(move || g.bump())
        };
        let d = {
            let g = g.clone();
            thread::spawn(move || {
                let deflated = g.monitor.try_deflate();
                if deflated {
                    // The deflater owns the monitor for good now.
                    // SAFETY: owner is DEFLATER_MARKER; no enter succeeds.
                    g.value.with_mut(|v| unsafe { *v += 1 });
                }
                deflated
            })
        };
        with_current(|me| g.monitor.exit(me));
        let again = g.bump();
        let a_entered = a.join().unwrap();
        let deflated = d.join().unwrap();
        assert_eq!(
            g.get(),
            u32::from(a_entered) + u32::from(again) + u32::from(deflated)
        );
        if deflated {
            assert_eq!(g.monitor.owner(), DEFLATER_MARKER);
        } else {
            assert!(a_entered && again, "nothing deflated, so every enter succeeds");
            assert!(!g.monitor.is_busy());
        }
        assert!(!g.monitor.has_hand_off_request());
    });
}
