//! Lightweight locking's slow paths (HotSpot `LM_LIGHTWEIGHT`,
//! lightweightSynchronizer.cpp, JDK 23): what `enter`, `try_enter` and
//! `exit` do once the lock-stack fast path and the inline inflated path
//! have failed.
//!
//! Where it sits: the synchronizer's dispatch calls [`slow`] for a thread
//! in lightweight mode; it works on the thread's lock-stack
//! ([`super::lock_stack`]), spins on another thread's thin lock
//! ([`super::fast_lock_spin`]) and moves locks into monitors
//! ([`super::inflate`]).
//!
//! - Enter: a recursive enter on a full stack or an interleaved one
//!   (`[A, B]` + A) inflates A with `recursions = entries − 1` and enters
//!   the monitor once more; an unlocked object is fast-locked after making
//!   room on the stack (HotSpot `ensure_lock_stack_space`: first the
//!   entries a contender inflated, then the bottom entry); on a thin lock
//!   another thread holds, the fast-lock spin with backoff (HotSpot JDK
//!   24) runs once, and only when it gives up is the object inflated with
//!   `ANONYMOUS_OWNER` and its monitor entered.
//! - `try_enter`: the same, except that a lock another thread holds is
//!   "busy" at once (no spin, no inflation).
//! - Exit of an object held but not on top inflates it (unstructured
//!   locking, HotSpot TestUnstructuredLocking); exit that finds a monitor
//!   claims it from `ANONYMOUS_OWNER`.

use std::sync::Arc;

use super::atomic::{spin_pause, Ordering};
use super::error::SyncError;
use super::fast_lock_spin::spin_then_fast_lock;
use super::header::{Header, Mark};
use super::inflate::{
    claim_from_lock_stack, enter_through_monitor, exit_through_monitor, inflate_owned, monitor_of,
    try_enter_held,
};
use super::lock_stack::LockStack;
use super::op::{Op, Outcome};
use super::stats::InflateCause;
use super::thread;
use crate::thread::ThreadState;

/// The lightweight protocol's slow path for `op` (see the synchronizer's
/// dispatch): `Ok` with no record (the lock is on the lock-stack or a
/// monitor), [`SyncError::WouldBlock`] for a `try_enter` another thread
/// holds, [`SyncError::IllegalMonitorState`] for an exit of an object
/// this thread does not hold.
/// Runs inside the thread's critical section.
#[inline(never)]
pub(crate) fn slow(obj: &Header, ls: &LockStack, op: Op) -> Outcome {
    thread::with_current(|me| match op {
        Op::Enter { wait: true, .. } => {
            enter(obj, me, ls);
            Outcome::DONE
        }
        Op::Enter { wait: false, .. } if try_enter(obj, me, ls) => Outcome::DONE,
        Op::Enter { wait: false, .. } => Outcome::WOULD_BLOCK,
        Op::Exit => Outcome::exited(exit(obj, me, ls)),
    })
}

/// `monitorenter` past the fast path: registration (the first lock of a
/// thread), a recursion the lock-stack cannot express (inflate), room made
/// on a full stack, the fast-lock spin against another thread's thin lock,
/// then the monitor.
#[inline]
fn enter(obj: &Header, me: &Arc<ThreadState>, ls: &LockStack) {
    // The first lock of a thread arrives here to register; and a hash
    // installed between the fast path's load and CAS fails that CAS.
    if ls.try_fast_enter(obj) {
        return;
    }
    let addr = obj.addr();
    if ls.contains(addr) {
        let cause = if ls.is_full() && ls.top() == Some(addr) {
            InflateCause::LockStackOverflow
        } else {
            InflateCause::InterleavedRecursion
        };
        // Owned by us: a recursive enter, which neither blocks nor fails.
        let entered = inflate_owned(obj, me, ls, cause).enter(me);
        debug_assert!(entered);
        return;
    }
    // Spin once per enter, before the first inflation (HotSpot JDK 24).
    let mut spun = false;
    loop {
        // Acquire: if we see a monitor we read its fields next.
        let mark = obj.load(Ordering::Acquire);
        if mark.is_unlocked() {
            if fast_lock_making_room(obj, mark, me, ls) {
                return;
            }
        } else if !spun && (mark.is_fast_locked() || mark.is_stack_locked()) {
            // Another thread's thin lock (ours was handled above): most
            // contention is momentary, and a monitor would stay.
            spun = true;
            if spin_then_fast_lock(obj, |m| fast_lock_making_room(obj, m, me, ls)) {
                return;
            }
        } else if enter_through_monitor(obj, mark, me) {
            return;
        }
    }
}

/// [`enter`]'s one attempt that never waits for an owner (`try_enter`).
#[inline]
fn try_enter(obj: &Header, me: &Arc<ThreadState>, ls: &LockStack) -> bool {
    // The first lock of a thread arrives here to register.
    if ls.try_fast_enter(obj) {
        return true;
    }
    if ls.contains(obj.addr()) {
        // Ours, but the stack cannot take the push (full, or interleaved):
        // what `enter` does (inflate, then a recursive monitor enter) never
        // blocks on an object we hold.
        enter(obj, me, ls);
        return true;
    }
    loop {
        // Acquire: if we see a monitor we read its fields next.
        let mark = obj.load(Ordering::Acquire);
        if mark.is_unlocked() {
            if fast_lock_making_room(obj, mark, me, ls) {
                return true;
            }
            // Lost to a locker (seen held next time round) or a hash.
        } else if let Some(acquired) = try_enter_held(obj, mark, me) {
            return acquired;
        }
    }
}

/// The slow paths' fast-lock of an unlocked object (word `mark`): room
/// made on the lock-stack first, then the CAS 01→00 and the push. `false`:
/// the CAS lost (to a locker or a hash); the caller re-reads the header.
fn fast_lock_making_room(obj: &Header, mark: Mark, me: &ThreadState, ls: &LockStack) -> bool {
    ensure_lock_stack_space(me, ls);
    // Acquire: as in the fast path.
    if obj
        .cas(mark, mark.set_fast_locked(), Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        return false;
    }
    ls.push(obj.addr());
    true
}

/// Makes room on a full lock-stack (HotSpot `ensure_lock_stack_space`):
/// first claim entries whose objects a contender already inflated, then
/// inflate the bottom entry.
fn ensure_lock_stack_space(me: &ThreadState, ls: &LockStack) {
    if !ls.is_full() {
        return;
    }
    let mut i = 0;
    while i < ls.len() {
        let addr = ls.at(i);
        // SAFETY: an entry is a pinned header this thread holds. A pinned
        // header is not moved, and its Drop on another thread aborts rather
        // than free memory a lock-stack still names (see
        // `header_dropped_while_locked`); this thread is not dropping it now.
        let h = unsafe { &*(addr as *const Header) };
        // Acquire: we may read the monitor a contender installed.
        let mark = h.load(Ordering::Acquire);
        if mark.has_monitor() {
            inflate_owned(h, me, ls, InflateCause::Contention);
            // The entries were removed: index `i` now holds the next one.
        } else {
            i += 1;
        }
    }
    if ls.is_full() {
        if let Some(addr) = ls.bottom() {
            // SAFETY: as above.
            let h = unsafe { &*(addr as *const Header) };
            inflate_owned(h, me, ls, InflateCause::LockStackOverflow);
        }
    }
}

/// `monitorexit` past the fast path (and the inline inflated path): an
/// object held on the lock-stack but not on top inflates (unstructured
/// exit); on top, a recursive exit or the unlocking CAS; one a contender
/// inflated is claimed from the lock-stack and exited; an object not on the
/// lock-stack is exited on its monitor if this thread owns it.
#[inline]
fn exit(obj: &Header, me: &Arc<ThreadState>, ls: &LockStack) -> Result<(), SyncError> {
    let addr = obj.addr();
    if ls.contains(addr) {
        loop {
            // Acquire: we may read the monitor next.
            let mark = obj.load(Ordering::Acquire);
            if mark.is_fast_locked() {
                if ls.top() != Some(addr) {
                    // Held but not on top: unstructured exit.
                    inflate_owned(obj, me, ls, InflateCause::UnstructuredExit).exit(me);
                    return Ok(());
                }
                if ls.try_recursive_exit(addr) {
                    return Ok(());
                }
                // Release: publishes the critical section.
                if obj
                    .cas(mark, mark.set_unlocked(), Ordering::Release, Ordering::Relaxed)
                    .is_ok()
                {
                    ls.remove(addr); // the single entry
                    return Ok(());
                }
                // A hash was installed, or a contender inflated: reload.
            } else if mark.has_monitor() {
                // A contender inflated it while we held it fast-locked: the
                // monitor is ours (ANONYMOUS_OWNER) with one recursion level
                // per entry beyond the first.
                let m = claim_from_lock_stack(monitor_of(obj, mark), addr, me, ls);
                m.exit(me);
                super::deflate::deflate_on_exit(obj, m);
                return Ok(());
            } else if mark.is_unlocked() {
                // Cannot happen (an entry means we hold it); drop the stale
                // entries rather than loop.
                ls.remove(addr);
                return Err(SyncError::IllegalMonitorState);
            } else {
                spin_pause();
            }
        }
    }
    exit_through_monitor(obj, me)
}
