//! Safepoints: stopping every mutator for a pause.
//!
//! Where it sits: between [`super::mutator`] (which polls) and
//! [`super::collector`] (which requests pauses). A mutator is either
//! *running* (it may touch the heap and hold raw object addresses) or
//! *stopped* (at a poll, or in a safe region: blocked in native code or on a
//! lock, holding no raw address). A pause begins when every registered
//! mutator is stopped and ends by releasing them; a mutator leaving a safe
//! region during a pause waits for it to end (HotSpot's thread-state
//! transitions, `ThreadStateTransition`).
//!
//! All the bookkeeping is under one mutex, so the handover also orders
//! memory: whatever a mutator wrote before stopping happens-before the
//! pause's work, and the pause's writes (roots, the GC state byte)
//! happen-before the mutator's next access. That is why the barriers may
//! read the GC state byte with a Relaxed load. The poll word is the only
//! lock-free part: a mutator that misses a fresh request merely stops at its
//! next poll.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

#[derive(Default)]
struct State {
    registered: usize,
    stopped: usize,
    requested: bool,
}

/// The heap's safepoint synchronizer.
#[derive(Default)]
pub(crate) struct Safepoint {
    /// Set while a pause is requested or running: the word mutators poll.
    pub(crate) poll: AtomicBool,
    state: Mutex<State>,
    to_requester: Condvar,
    to_mutators: Condvar,
}

impl Safepoint {
    fn lock(&self) -> MutexGuard<'_, State> {
        // No code panics while holding this lock; a poisoned lock would mean
        // a bug elsewhere, and the state itself is still consistent.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait_released<'a>(&self, mut s: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        while s.requested {
            s = self.to_mutators.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        s
    }

    /// A new mutator joins, after any pause in progress.
    pub(crate) fn register(&self) {
        let mut s = self.wait_released(self.lock());
        s.registered += 1;
    }

    /// A mutator leaves (it must be running, not stopped).
    pub(crate) fn deregister(&self) {
        let mut s = self.lock();
        s.registered -= 1;
        self.to_requester.notify_all();
    }

    /// A mutator at a poll: stop until the pause is over.
    pub(crate) fn arrive_and_wait(&self) {
        let mut s = self.lock();
        s.stopped += 1;
        self.to_requester.notify_all();
        s = self.wait_released(s);
        s.stopped -= 1;
    }

    /// A mutator enters a safe region.
    pub(crate) fn enter_safe(&self) {
        let mut s = self.lock();
        s.stopped += 1;
        self.to_requester.notify_all();
    }

    /// A mutator leaves a safe region, after any pause in progress.
    pub(crate) fn leave_safe(&self) {
        let mut s = self.wait_released(self.lock());
        s.stopped -= 1;
    }

    /// Begins a pause: returns once every registered mutator is stopped.
    /// `as_mutator` counts the caller as stopped (a mutator collecting
    /// itself). Returns `false`, doing nothing, when another pause was
    /// requested first; a mutator caller must then stop at a poll instead.
    pub(crate) fn begin(&self, as_mutator: bool) -> bool {
        let mut s = self.lock();
        if s.requested {
            if as_mutator {
                return false;
            }
            s = self.wait_released(s);
        }
        s.requested = true;
        // Relaxed: a hint; the mutex orders everything the pause relies on.
        self.poll.store(true, Ordering::Relaxed);
        if as_mutator {
            s.stopped += 1;
        }
        while s.stopped < s.registered {
            s = self.to_requester.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        true
    }

    /// Ends the pause begun by [`Safepoint::begin`].
    pub(crate) fn end(&self, as_mutator: bool) {
        let mut s = self.lock();
        s.requested = false;
        self.poll.store(false, Ordering::Relaxed);
        if as_mutator {
            s.stopped -= 1;
        }
        drop(s);
        // Notified after unlocking: a woken mutator that the scheduler runs
        // at once on this CPU must not find the mutex still held by us.
        self.to_mutators.notify_all();
    }
}
