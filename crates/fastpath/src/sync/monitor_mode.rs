//! Monitor-only locking's slow paths (HotSpot `LM_MONITOR`): every lock is
//! a monitor.
//!
//! Where it sits: the synchronizer's dispatch calls [`slow`] for a thread
//! in monitor mode (and for an exited thread's later locks). The thread's
//! lock-stack is parked out of range, so the lock-stack fast paths always
//! fail; the inline inflated path handles a monitor that is free or its
//! own, and everything else comes here. An unlocked object gets a monitor
//! owned by this thread (one CAS 01 → 10); another thread's fast-lock or
//! stack-lock is inflated as any contender inflates it
//! ([`super::inflate`]); exit is the monitor's.

use std::sync::Arc;

use super::atomic::Ordering;
use super::header::Header;
use super::inflate::{enter_through_monitor, exit_through_monitor, inflate_unlocked, try_enter_held};
use super::op::{Op, Outcome};
use super::thread;
use crate::thread::ThreadState;

/// The monitor-only protocol's slow path for `op` (results as the
/// lightweight protocol's).
/// Runs inside the thread's critical section.
#[inline(never)]
pub(crate) fn slow(obj: &Header, op: Op) -> Outcome {
    thread::with_current(|me| match op {
        Op::Enter { wait: true, .. } => {
            enter(obj, me);
            Outcome::DONE
        }
        Op::Enter { wait: false, .. } if try_enter(obj, me) => Outcome::DONE,
        Op::Enter { wait: false, .. } => Outcome::WOULD_BLOCK,
        Op::Exit => Outcome::exited(exit_through_monitor(obj, me)),
    })
}

/// `monitorenter`: install a monitor owned by this thread in an unlocked
/// object, else contend on the monitor (inflating another thread's thin
/// lock first).
#[inline]
fn enter(obj: &Header, me: &Arc<ThreadState>) {
    loop {
        // Acquire: we read the monitor next.
        let mark = obj.load(Ordering::Acquire);
        if mark.is_unlocked() {
            if inflate_unlocked(obj, mark, me).is_some() {
                return; // installed owned by us: entered
            }
        } else if enter_through_monitor(obj, mark, me) {
            // A monitor, or a lock of a lightweight or legacy thread (or
            // this one's, through a record): contend like any other thread.
            return;
        }
    }
}

/// [`enter`]'s one attempt that never waits for an owner.
#[inline]
fn try_enter(obj: &Header, me: &Arc<ThreadState>) -> bool {
    loop {
        // Acquire: we read the monitor next.
        let mark = obj.load(Ordering::Acquire);
        if mark.is_unlocked() {
            if inflate_unlocked(obj, mark, me).is_some() {
                return true; // installed owned by us
            }
        } else if let Some(acquired) = try_enter_held(obj, mark, me) {
            return acquired;
        }
    }
}
