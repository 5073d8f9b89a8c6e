//! The parking half of spin-then-park: a mutex and a condition variable
//! shared by the waiters of one state word.
//!
//! Where it sits: under [`super::handoff`] and [`super::lock`]. Their fast
//! paths are atomic operations on one `AtomicU64` state word; when a
//! [`super::SpinWait`] says [`super::Step::Park`], the waiter calls
//! [`Parking::park_until`], and whoever changes the state in a way a waiter
//! may be waiting for checks the waiter count it reads back from its own
//! read-modify-write and, only if it is non-zero, calls [`Parking::unpark_one`]
//! or [`Parking::unpark_all`]. The fast paths never touch the mutex.
//!
//! Theory of operation (why no wake-up is lost): a waiter, holding the
//! mutex, adds its `flag` to the state word, then tries to finish; if it
//! cannot, it waits on the condition variable, which releases the mutex
//! atomically. A notifier changes the state with one read-modify-write on
//! the same word. Both are RMWs on one location, so they are ordered in its
//! modification order. If the waiter's add comes first, the notifier's RMW
//! returns the flag, so it takes the mutex, which it can only get once the
//! waiter is inside `wait` (or has finished), and its notification reaches
//! the waiter. If the notifier's RMW comes first, the waiter's later attempt
//! reads a value at or after it (coherence) and sees the change. Either way
//! the waiter does not sleep through it. `std`'s condition variable on Linux
//! is a futex, so a parked waiter costs the kernel nothing until woken.
//!
//! The flag is added rather than or-ed so that several waiters can share one
//! flag as a counter ([`super::lock`]) while two roles can each own a bit
//! ([`super::handoff`]).

use std::sync::atomic::{AtomicU64 as StatCounter, Ordering};
use std::sync::PoisonError;

use super::primitives::{AtomicU64, Condvar, Mutex};

pub(crate) struct Parking {
    mutex: Mutex<()>,
    condvar: Condvar,
    /// Condition-variable waits, for the lab's statistics (a plain std
    /// atomic even under loom: it is not part of the protocol).
    parks: StatCounter,
}

impl Parking {
    pub(crate) fn new() -> Parking {
        Parking {
            mutex: Mutex::new(()),
            condvar: Condvar::new(),
            parks: StatCounter::new(0),
        }
    }

    /// Blocks until `attempt` returns `Some`, with `flag` added to `state`
    /// while blocked. `attempt` is called with the mutex held, after the
    /// flag is added; it must read `state` (or RMW it) to decide.
    #[cold]
    pub(crate) fn park_until<T>(
        &self,
        state: &AtomicU64,
        flag: u64,
        mut attempt: impl FnMut() -> Option<T>,
    ) -> T {
        // The mutex guards no data (only the wait/notify handshake), so a
        // panic elsewhere while it was held cannot have broken an
        // invariant: ignore poisoning.
        let mut guard = self.mutex.lock().unwrap_or_else(PoisonError::into_inner);
        // Relaxed: the argument in the module docs needs only the
        // modification order of `state` (coherence) and the mutex; any data
        // the caller then reads is ordered by its own `attempt`.
        state.fetch_add(flag, Ordering::Relaxed);
        loop {
            if let Some(done) = attempt() {
                // Relaxed: as above.
                state.fetch_sub(flag, Ordering::Relaxed);
                return done;
            }
            // Relaxed: a statistic.
            self.parks.fetch_add(1, Ordering::Relaxed);
            guard = self.condvar.wait(guard).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Wakes one parked waiter (call only after an RMW returned a flag).
    #[cold]
    pub(crate) fn unpark_one(&self) {
        let _guard = self.mutex.lock().unwrap_or_else(PoisonError::into_inner);
        self.condvar.notify_one();
    }

    /// Wakes every parked waiter (call only after an RMW returned a flag).
    #[cold]
    pub(crate) fn unpark_all(&self) {
        let _guard = self.mutex.lock().unwrap_or_else(PoisonError::into_inner);
        self.condvar.notify_all();
    }

    /// How many times a waiter went to sleep.
    pub(crate) fn parks(&self) -> u64 {
        // Relaxed: a statistic, read after the threads are joined.
        self.parks.load(Ordering::Relaxed)
    }
}
