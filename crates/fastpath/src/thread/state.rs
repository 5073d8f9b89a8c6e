//! The shared part of a thread's state: its owner identity, park events,
//! interrupt status and critical-section word (HotSpot keeps these in
//! `JavaThread`: `_ParkEvent`, `_parker`, the interrupt flag, the thread state a
//! handshake waits on).
//!
//! Where it sits: in the thread layer, below `sync`. Other threads reach it
//! through an `Arc` (to unpark or interrupt it, to wait for its critical
//! section to end), so it lives on the heap, not in the thread block; the
//! block caches pointers to it for the inline paths. `sync` creates one when
//! it registers a thread and names monitor owners by its [`id`](ThreadState::id).

use std::sync::Arc;

use super::critical::Critical;
use super::park::ParkEvent;
use crate::primitives::AtomicU32;

/// The first id handed to a thread. Ids below it are left to the owner
/// values a monitor records for a state that is not a thread (`sync`'s
/// monitor checks that its values stay below).
pub(crate) const FIRST_THREAD_ID: usize = 3;

/// Ids are never reused (64-bit counter). A std atomic even under loom: it
/// only has to be unique.
static NEXT_ID: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(FIRST_THREAD_ID);

/// The shared part of a thread's state.
pub(crate) struct ThreadState {
    /// Owner id (≥ [`FIRST_THREAD_ID`]).
    pub(crate) id: usize,
    /// Blocks this thread in a monitor (`enter`, `wait`).
    pub(crate) park: ParkEvent,
    /// Blocks this thread in `sync::park` (`LockSupport`'s permit; kept
    /// apart from `park` as HotSpot keeps `Parker` from `ParkEvent`).
    pub(crate) parker: ParkEvent,
    /// `Thread.interrupt` status: 1 if interrupted.
    pub(crate) interrupted: AtomicU32,
    /// The thread's critical-section state (see [`super::critical`]).
    pub(crate) critical: Arc<Critical>,
}

impl ThreadState {
    /// A fresh state for the calling thread, with a new id.
    pub(crate) fn new_for_current_thread() -> ThreadState {
        ThreadState {
            // Relaxed: ids only need to be unique.
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            park: ParkEvent::for_current_thread(),
            parker: ParkEvent::for_current_thread(),
            interrupted: AtomicU32::new(0),
            critical: Critical::new_registered(),
        }
    }

    /// Runs `f` inside a critical section: whatever it reads that another
    /// thread frees after a grace period stays allocated until it returns.
    /// Always inlined into the caller, which is `f`'s only user.
    #[inline(always)]
    pub(crate) fn in_critical<R>(&self, f: impl FnOnce() -> R) -> R {
        struct Leave<'a>(&'a Critical);
        impl Drop for Leave<'_> {
            #[inline]
            fn drop(&mut self) {
                self.0.exit();
            }
        }
        self.critical.enter();
        let _leave = Leave(&self.critical); // also on unwind
        f()
    }
}
