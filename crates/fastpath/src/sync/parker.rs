//! A thread's parking permit for `java.util.concurrent`
//! (`LockSupport.park`/`unpark`; HotSpot's `Parker`, `os_posix.cpp`).
//!
//! Where it sits: beside the monitors, on the same thread registration.
//! Each registered thread's [`ThreadState`](crate::thread) holds two
//! one-permit events: the monitor's (`park`, for `enter` and `wait`) and
//! this one (`parker`). They are kept apart, as HotSpot keeps `ParkEvent`
//! and `Parker` apart, so that an `unpark` meant for a `LockSupport` user
//! never wakes a monitor waiter that then finds nothing changed, and a
//! monitor hand-off never spends the permit a `LockSupport` caller banked.
//!
//! The permit is one bit: [`unpark`] sets it (and wakes the thread if it
//! is parked), [`park`] consumes it, returning at once if it was set, or
//! blocks until it is set, the thread is interrupted, the timeout passes,
//! or spuriously. [`interrupt`](super::interrupt) sets the status and then
//! unparks this event, so:
//! - a thread whose status is set does not block (`park` checks it first);
//! - an interrupt that comes after that check banks a permit the block
//!   then consumes at once, or wakes the block (the event's own no-lost-
//!   wake-up argument, `thread/park.rs`);
//! - after `Thread.interrupted()` cleared the status, a `park` may return
//!   once more at once (the interrupt's permit), as in HotSpot. Callers
//!   re-check their condition in a loop, as `LockSupport`'s contract asks.
//!
//! The blocking happens outside the thread's critical section (a parked
//! thread must not hold back a deflation's grace period).

use std::time::Duration;

use super::thread::{current_sync_thread, SyncThread};

/// Consumes the current thread's permit, or blocks until an [`unpark`],
/// an [`interrupt`](super::interrupt), `timeout` (`None`: no bound) or a
/// spurious wake-up; returns at once if the thread's interrupt status is
/// set (without clearing it).
pub fn park(timeout: Option<Duration>) {
    let me = current_sync_thread();
    if me.is_interrupted() {
        return;
    }
    me.0.parker.park(timeout);
}

/// Gives `thread` its permit: wakes it if it is parked in [`park`], or
/// makes its next `park` return at once. Permits do not add up.
pub fn unpark(thread: &SyncThread) {
    thread.0.parker.unpark();
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::sync::{interrupt, interrupted};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{mpsc, Arc};
    use std::time::Instant;

    #[test]
    fn one_permit_then_the_timeout() {
        let me = current_sync_thread();
        unpark(&me);
        unpark(&me);
        let t = Instant::now();
        park(None);
        assert!(t.elapsed() < Duration::from_secs(5));
        park(Some(Duration::from_millis(20)));
        assert!(t.elapsed() >= Duration::from_millis(20), "a second permit");
    }

    #[test]
    fn an_interrupted_thread_does_not_block() {
        let me = current_sync_thread();
        interrupt(&me);
        let t = Instant::now();
        park(None); // the status: returns at once
        park(None); // still set
        assert!(interrupted(), "park leaves the status set");
        park(None); // the interrupt's banked permit
        assert!(t.elapsed() < Duration::from_secs(5));
    }

    /// Stress, bounded: each round's parked thread must wake within 10 s
    /// of its unpark or interrupt, or the test fails.
    #[test]
    fn unpark_and_interrupt_race_park() {
        let mut woken = 0;
        for by_interrupt in [false, true] {
            for round in 0..300 {
                let go = Arc::new(AtomicBool::new(false));
                let go2 = go.clone();
                let (tx, rx) = mpsc::channel();
                let parked = std::thread::spawn(move || {
                    tx.send(current_sync_thread()).unwrap();
                    let t = Instant::now();
                    // SeqCst: the flag the waker sets before unparking.
                    while !go2.load(Ordering::SeqCst) && !interrupted() {
                        if t.elapsed() > Duration::from_secs(10) {
                            return false;
                        }
                        park(Some(Duration::from_secs(10)));
                    }
                    true
                });
                let handle = rx.recv().unwrap();
                if round % 3 == 0 {
                    std::thread::yield_now();
                }
                if by_interrupt {
                    interrupt(&handle);
                } else {
                    go.store(true, Ordering::SeqCst);
                    unpark(&handle);
                }
                assert!(parked.join().unwrap(), "round {round}: a wake-up was lost");
                woken += 1;
            }
        }
        println!("parker stress: {woken} parked threads woken (300 by unpark, 300 by interrupt)");
    }
}

/// Loom models (run as the others: `RUSTFLAGS="--cfg loom" cargo test -p
/// fastpath --release --lib -- loom`): a wake-up lost between the parked
/// thread's check and its block leaves it blocked forever, which loom
/// reports as a deadlock.
#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use crate::sync::interrupt;
    use loom::sync::atomic::{AtomicBool, Ordering};
    use loom::sync::Arc;
    use loom::thread;

    fn parked_until(wake: impl Fn(&SyncThread, &AtomicBool) + Sync + Send + 'static) {
        super::super::loom_tests::model(move || {
            let go = Arc::new(AtomicBool::new(false));
            let go2 = go.clone();
            let (tx, rx) = loom::sync::mpsc::channel();
            let t = thread::spawn(move || {
                tx.send(current_sync_thread()).unwrap();
                let me = current_sync_thread();
                // SeqCst: the flag the waker sets before its unpark.
                while !go2.load(Ordering::SeqCst) && !me.is_interrupted() {
                    park(None);
                }
            });
            let handle = rx.recv().unwrap();
            wake(&handle, &go);
            t.join().unwrap();
        });
    }

    #[test]
    fn loom_park_races_unpark() {
        parked_until(|h, go| {
            go.store(true, Ordering::SeqCst);
            unpark(h);
        });
    }

    #[test]
    fn loom_park_races_interrupt() {
        parked_until(|h, _| interrupt(h));
    }
}
