//! Inflation: moving an object's lock from its header (and a lock-stack)
//! into a [`Monitor`], and the registry that owns every monitor's memory
//! (HotSpot `LightweightSynchronizer::inflate_*`, lightweightSynchronizer.cpp,
//! JDK 23, without the `ObjectMonitorTable`).
//!
//! Where it sits: called by [`super::synchronizer`]'s slow paths. Three ways
//! in, by who holds the lock:
//! - [`inflate_owned`]: the caller holds the object on its lock-stack. It
//!   installs a monitor owned by itself (or claims the anonymous one a
//!   contender installed) with `recursions = entries removed − 1`.
//! - [`inflate_contended`]: another thread holds it fast-locked. Install a
//!   monitor owned by `ANONYMOUS_OWNER`; the holder claims it at its next
//!   exit, wait or notify.
//! - [`inflate_unlocked`]: nobody holds it (monitor-only mode): install a
//!   monitor owned by the caller.
//! - [`inflate_stack_locked`]: a thread holds it stack-locked (legacy mode;
//!   the caller may be that thread): the INFLATING protocol, owner = the
//!   stack-locker's record.
//!
//! The first three are one CAS of the header from the exact word the
//! monitor's displaced header was copied from, so a racing hash
//! installation or a racing inflation simply makes the CAS fail and the
//! caller retry: no INFLATING state (the simplification fast-locking
//! bought, PR 10590). Only a stack-locked object, whose displaced header is
//! in another thread's record, needs the busy marker.
//!
//! Claiming: a monitor installed under a placeholder owner (anonymous, or a
//! lock record) is claimed by the thread that really holds it, through
//! [`claim_from_lock_stack`] or [`claim_from_record`].
//!
//! Every installed monitor is registered (`registry.rs`), which decides
//! who may free it, and starts the deflation thread (`deflate.rs`), which
//! may take it back.

use super::deflate::{ensure_thread_started, restore_deflated};
use super::error::SyncError;
use super::header::{Header, Mark, INFLATING};
use super::lock_stack::LockStack;
use super::monitor::{Monitor, ANONYMOUS_OWNER, DEFLATER_MARKER, RECORD_OWNER};
use super::record::{self, LockRecord};
use super::registry;
use super::stats::{self, InflateCause};
use super::thread::note_monitor_owner;
use crate::thread::ThreadState;
use std::sync::Arc;

/// The monitor a `10` header word points to, borrowed for as long as the
/// header is.
#[inline]
pub(crate) fn monitor_of(_obj: &Header, mark: Mark) -> &Monitor {
    // SAFETY: a monitor installed in a header is freed only by that header's
    // Drop (or, later, by deflation after a quiescent period), which cannot
    // run while `_obj` is borrowed; the pointer came from the header.
    unsafe { &*mark.monitor() }
}

/// Registers the monitor just installed (the registry owns its memory from
/// now on) and makes sure the deflation thread runs (one atomic load once
/// it does).
#[inline]
fn register(m: *const Monitor) {
    registry::register(m);
    ensure_thread_started();
}

/// Tries to install `m` in `obj`, replacing exactly `expected`.
fn install(obj: &Header, expected: Mark, m: Box<Monitor>, cause: InflateCause) -> Option<&Monitor> {
    let ptr = Box::into_raw(m);
    // AcqRel: Release publishes the monitor's initialised fields to every
    // thread that Acquire-loads the tagged word; Acquire because we may own
    // the lock through this CAS (monitor-only mode).
    match obj.cas(
        expected,
        Mark::encode_monitor(ptr),
        super::atomic::Ordering::AcqRel,
        super::atomic::Ordering::Relaxed,
    ) {
        Ok(()) => {
            register(ptr);
            stats::count_inflation(cause);
            // SAFETY: just installed; see `monitor_of`.
            Some(unsafe { &*ptr })
        }
        Err(_) => {
            // SAFETY: never published; we still own the allocation.
            drop(unsafe { Box::from_raw(ptr) });
            None
        }
    }
}

/// The caller holds `obj` on `ls`: returns its monitor, owned by the caller
/// with `recursions = entries − 1`, the entries removed from `ls`.
pub(crate) fn inflate_owned<'a>(
    obj: &'a Header,
    me: &ThreadState,
    ls: &LockStack,
    cause: InflateCause,
) -> &'a Monitor {
    let addr = obj.addr();
    loop {
        // Acquire: if a contender installed a monitor we read its fields.
        let mark = obj.load(super::atomic::Ordering::Acquire);
        if mark.has_monitor() {
            return claim_from_lock_stack(monitor_of(obj, mark), addr, me, ls);
        }
        if mark.is_fast_locked() {
            note_monitor_owner();
            let m = Monitor::new(mark, me.id, addr);
            if let Some(m) = install(obj, mark, m, cause) {
                m.set_recursions(ls.remove(addr).saturating_sub(1));
                return m;
            }
            continue; // a hash was installed or a contender inflated: retry
        }
        super::atomic::spin_pause(); // 11: a GC is working on the object
    }
}

/// `obj` was fast-locked (word `mark`) by another thread: install a monitor
/// owned by `ANONYMOUS_OWNER`. `None` if the header changed meanwhile.
pub(crate) fn inflate_contended(obj: &Header, mark: Mark) -> Option<&Monitor> {
    debug_assert!(mark.is_fast_locked());
    let m = Monitor::new(mark, ANONYMOUS_OWNER, obj.addr());
    if super::deflate::deflates_on_exit() {
        m.set_deflate_on_exit();
    }
    install(obj, mark, m, InflateCause::Contention)
}

/// `obj` was unlocked (word `mark`): install a monitor owned by `me`.
/// `None` if the header changed meanwhile.
#[inline]
pub(crate) fn inflate_unlocked<'a>(obj: &'a Header, mark: Mark, me: &ThreadState) -> Option<&'a Monitor> {
    debug_assert!(mark.is_unlocked());
    note_monitor_owner();
    install(
        obj,
        mark,
        Monitor::new(mark, me.id, obj.addr()),
        InflateCause::MonitorMode,
    )
}

/// The caller holds the object at `addr` on `ls` and found monitor `m`
/// installed in its header (a contender inflated it): take the object's
/// entries off the lock-stack and become the owner with `recursions =
/// entries − 1`. The one place a lock moves from a lock-stack into an
/// existing monitor (exit, wait, notify, making room, header drop, thread
/// exit all come through here).
pub(crate) fn claim_from_lock_stack<'a>(
    m: &'a Monitor,
    addr: usize,
    me: &ThreadState,
    ls: &LockStack,
) -> &'a Monitor {
    let entries = ls.remove(addr);
    if m.is_anonymous() {
        m.claim_anonymous(me, entries);
    } else if m.is_owned_by(me.id) {
        // Cannot happen (owned monitors are off the lock-stack), but keep
        // the count right if it did.
        m.set_recursions(entries.saturating_sub(1));
    }
    m
}

/// `obj` is stack-locked (word `mark`, the address of its owner's lock
/// record): move the lock into a monitor owned by that record (HotSpot
/// `ObjectSynchronizer::inflate`, the `has_locker` case, JDK 21). Whoever
/// calls this (a contender, or the owner itself for `wait` or the hash) goes
/// through the INFLATING busy marker:
/// 1. CAS the header from `mark` to INFLATING (0). From now on the owner's
///    unlocking CAS (from `mark`) fails, so it cannot finish an unlock, nor
///    reuse or drop its record, until step 3; a racing inflater's CAS fails
///    too.
/// 2. Copy the displaced header out of the record into the monitor, and
///    name the record as owner ([`RECORD_OWNER`](super::monitor::RECORD_OWNER)).
/// 3. Publish the monitor in the header (a Release store: nobody else can
///    write an INFLATING header).
///
/// Readers that meet INFLATING wait for it to end. `None` if the header
/// changed before step 1.
pub(crate) fn inflate_stack_locked(obj: &Header, mark: Mark, cause: InflateCause) -> Option<&Monitor> {
    debug_assert!(mark.is_stack_locked());
    // Acquire: synchronizes with the owner's Release CAS that installed
    // `mark`, after it stored the displaced header we read next.
    obj.cas(
        mark,
        Mark(INFLATING),
        super::atomic::Ordering::Acquire,
        super::atomic::Ordering::Relaxed,
    )
    .ok()?;
    // SAFETY: the record is alive: its owner cannot complete the unlock
    // that would end its use (the header no longer holds its address), and
    // a record is never dropped while in use (`LockRecord`'s Drop aborts).
    let rec = unsafe { &*(mark.record() as *const LockRecord) };
    let displaced = rec.displaced_header_for_inflater();
    debug_assert!(
        displaced.is_unlocked(),
        "a stack-lock's displaced header is unlocked"
    );
    let m = Box::into_raw(Monitor::new(displaced, RECORD_OWNER | mark.record(), obj.addr()));
    // Release: publishes the monitor's fields to every Acquire reader of
    // the header.
    obj.word
        .store(Mark::encode_monitor(m).0, super::atomic::Ordering::Release);
    register(m);
    stats::count_inflation(cause);
    // SAFETY: just installed; see `monitor_of`.
    Some(unsafe { &*m })
}

/// If `m` is owned by one of the current thread's lock records (it
/// stack-locked the object and a contender inflated it), make the thread
/// the owner by id (HotSpot `ObjectMonitor::enter`/`exit`:
/// `is_lock_owned(owner)` then `set_owner_from_BasicLock`), with one
/// recursion per recursive record nested under that record: from now on
/// each of those exits the monitor (see [`super::legacy`]). The
/// record-side twin of [`claim_from_lock_stack`].
#[inline]
pub(crate) fn claim_from_record(m: &Monitor, me: &ThreadState) {
    // Inline: only the record-owner bit test is on every monitor enter
    // (monitor-mode row); the record lookup is rare.
    if let Some(rec) = m.owner_record() {
        claim_record_owned(m, rec, me);
    }
}

#[cold]
#[inline(never)]
fn claim_record_owned(m: &Monitor, rec: usize, me: &ThreadState) {
    if record::owns_record(rec) {
        m.take_over(me, record::take_nested_under(rec));
    }
}

/// Enters `m`, found installed in `obj`'s header, first claiming it if one
/// of this thread's lock records owns it. `false`: `m` was deflated under
/// us; its displaced header is back in `obj` (we helped), and the caller
/// re-reads the header and retries (HotSpot: `enter` returns false, the
/// caller loops).
#[inline]
pub(crate) fn enter_installed(obj: &Header, m: &Monitor, me: &std::sync::Arc<ThreadState>) -> bool {
    claim_from_record(m, me);
    if m.enter(me) {
        return true;
    }
    restore_deflated(obj, m);
    false
}

/// The contended enter every mode shares: `mark` shows a monitor, or a
/// fast-lock or stack-lock held by another thread (for a legacy caller, not
/// by one of its own records). Inflate as the lock's form requires and
/// enter the monitor. `false`: the header changed, the monitor was deflated,
/// or it is INFLATING or a GC's: reload and retry.
#[inline]
pub(crate) fn enter_through_monitor(obj: &Header, mark: Mark, me: &std::sync::Arc<ThreadState>) -> bool {
    let m = if mark.has_monitor() {
        Some(monitor_of(obj, mark))
    } else if mark.is_fast_locked() {
        inflate_contended(obj, mark)
    } else if mark.is_stack_locked() {
        inflate_stack_locked(obj, mark, InflateCause::Contention)
    } else {
        super::atomic::spin_pause(); // INFLATING, or 11: a GC is working on it
        None
    };
    m.is_some_and(|m| enter_installed(obj, m, me))
}

/// One attempt on an object whose header `mark` is not unlocked, for a
/// caller that does not hold it on its lock-stack. `Some(true)`: acquired
/// or re-entered; `Some(false)`: another thread holds it; `None`: the word
/// was in transition (deflation, INFLATING, a GC): re-read the header.
pub(crate) fn try_enter_held(obj: &Header, mark: Mark, me: &Arc<ThreadState>) -> Option<bool> {
    if mark.has_monitor() {
        let m = monitor_of(obj, mark);
        claim_from_record(m, me);
        if m.try_enter(me) {
            return Some(true);
        }
        if m.owner() != DEFLATER_MARKER {
            // Another thread's, by id, anonymously (another thread's
            // fast-lock: ours would be on our lock-stack, handled before) or
            // by another thread's record.
            return Some(false);
        }
        // Being deflated: the object is in fact unlocked. Once deflated,
        // help put the displaced header back (as `enter` does) and try the
        // restored word; until then the deflater is between two of its
        // CASes (or about to give the monitor back).
        if m.is_deflated() {
            restore_deflated(obj, m);
        } else {
            super::atomic::spin_pause();
        }
        return None;
    }
    if record::is_mine(mark) {
        // Stack-locked by one of our records (a caller's, in a non-legacy
        // thread): what `enter` does, inflating our own lock, never blocks.
        return enter_through_monitor(obj, mark, me).then_some(true);
    }
    if mark.is_fast_locked() || mark.is_stack_locked() {
        return Some(false); // another thread's fast-lock or stack-lock
    }
    super::atomic::spin_pause(); // INFLATING, or 11: a GC is working on it
    None
}

/// The exit every mode shares for an object not on the lock-stack and not
/// a legacy record of the caller's: its monitor, if the caller owns it by
/// id. [`SyncError::IllegalMonitorState`] otherwise (nothing changed).
pub(crate) fn exit_through_monitor(obj: &Header, me: &ThreadState) -> Result<(), SyncError> {
    // Acquire: we may read the monitor next.
    let mark = obj.load(super::atomic::Ordering::Acquire);
    if mark.has_monitor() {
        let m = monitor_of(obj, mark);
        if m.is_owned_by(me.id) {
            m.exit(me);
            super::deflate::deflate_on_exit(obj, m);
            return Ok(());
        }
    }
    Err(SyncError::IllegalMonitorState)
}
