//! The per-thread park event: a one-permit binary semaphore a thread blocks
//! on (HotSpot `ParkEvent`, park.hpp).
//!
//! Where it sits: in the thread layer, below `sync`. One event per thread,
//! owned by the thread's [`super::ThreadState`]: `sync`'s monitor parks a
//! contending or waiting thread on its own event, and an exiting owner, a
//! notifier's successor or `sync::interrupt` unparks it.
//!
//! Primitive: a Linux futex through `rustix::thread::futex` on a 32-bit
//! state word. Why not `parking_lot_core`: its strength is a global hash
//! table of queues keyed by address, for when many waiters share one address;
//! here every waiter has its own word, so a futex on that word is exactly one
//! syscall to block and one to wake, with no table, no extra dependency
//! (rustix is already linked) and a relative timeout for timed waits.
//!
//! States (the shape of the standard library's futex `Parker`):
//! `EMPTY` (0), `NOTIFIED` (1, a permit is banked) and `PARKED` (u32::MAX,
//! the owner is about to block or blocked). `unpark` stores `NOTIFIED` and
//! wakes only if it replaced `PARKED`; `park` consumes the permit. Returns
//! may be spurious (EINTR, a stale permit): every caller re-checks its
//! condition in a loop.

use std::time::Duration;

use crate::primitives::{AtomicU32, Ordering};

const EMPTY: u32 = 0;
const NOTIFIED: u32 = 1;
const PARKED: u32 = u32::MAX;

/// One thread's park event.
pub(crate) struct ParkEvent {
    state: AtomicU32,
    #[cfg(loom)]
    thread: loom::thread::Thread,
}

impl ParkEvent {
    /// An event for the current thread (only this thread may park on it).
    pub(crate) fn for_current_thread() -> ParkEvent {
        ParkEvent {
            state: AtomicU32::new(EMPTY),
            #[cfg(loom)]
            thread: loom::thread::current(),
        }
    }

    /// Blocks until unparked (or spuriously); consumes a banked permit at
    /// once. `timeout` bounds the wait (`None`: no bound).
    pub(crate) fn park(&self, timeout: Option<Duration>) {
        // Acquire: whatever the unparker wrote before its Release swap is
        // visible once we consume its permit.
        if self.state.fetch_sub(1, Ordering::Acquire) == NOTIFIED {
            return; // NOTIFIED → EMPTY: the permit was banked
        }
        // EMPTY → PARKED: block until NOTIFIED.
        self.block(timeout);
        // Whatever woke us (permit, timeout, signal), leave EMPTY; Acquire
        // for the same reason as above.
        self.state.swap(EMPTY, Ordering::Acquire);
    }

    #[cfg(not(loom))]
    fn block(&self, timeout: Option<Duration>) {
        use rustix::thread::futex;
        let ts = timeout.map(|d| futex::Timespec {
            tv_sec: d.as_secs().min(i64::MAX as u64) as i64,
            tv_nsec: d.subsec_nanos() as _,
        });
        // Returns at once (EAGAIN) if the word is no longer PARKED, i.e. an
        // unpark came in between: no lost wake-up. Errors (EINTR, ETIMEDOUT,
        // EAGAIN) are all "return and let the caller re-check".
        let _ = futex::wait(&self.state, futex::Flags::PRIVATE, PARKED, ts.as_ref());
    }

    #[cfg(loom)]
    fn block(&self, timeout: Option<Duration>) {
        if timeout.is_some() {
            // A timed wait may time out at any moment: model the earliest.
            loom::thread::yield_now();
            return;
        }
        // Acquire: as in `park`.
        while self.state.load(Ordering::Acquire) == PARKED {
            loom::thread::park();
        }
    }

    /// Banks a permit and wakes the owner if it is blocked.
    pub(crate) fn unpark(&self) {
        // Release: publishes the unparker's writes (e.g. a cleared owner, a
        // successor hint) to the parker's Acquire.
        if self.state.swap(NOTIFIED, Ordering::Release) == PARKED {
            #[cfg(not(loom))]
            {
                let _ = rustix::thread::futex::wake(&self.state, rustix::thread::futex::Flags::PRIVATE, 1);
            }
            #[cfg(loom)]
            self.thread.unpark();
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Instant;

    #[test]
    fn banked_permit_returns_at_once() {
        let e = ParkEvent::for_current_thread();
        e.unpark();
        e.unpark(); // at most one permit
        let t = Instant::now();
        e.park(None);
        assert!(t.elapsed() < Duration::from_secs(5));
        let t = Instant::now();
        e.park(Some(Duration::from_millis(20)));
        assert!(
            t.elapsed() >= Duration::from_millis(20),
            "second permit must not exist"
        );
    }

    #[test]
    fn unpark_wakes_a_blocked_thread() {
        let e = Arc::new(ParkEvent::for_current_thread());
        let e2 = e.clone();
        let waker = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            e2.unpark();
        });
        e.park(None);
        waker.join().unwrap();
    }
}
