//! Legacy stack-locking (HotSpot `LM_LEGACY`, LockingMode=1, the default
//! before JDK 21; `ObjectSynchronizer::enter`/`exit`, synchronizer.cpp,
//! JDK 21): the baseline seed 001 compares fast-locking against.
//!
//! Where it sits: the synchronizer dispatches here for threads in legacy
//! mode (and for any thread exiting with a record); it uses the records of
//! [`super::record`], [`super::inflate::inflate_stack_locked`] and the
//! monitor.
//!
//! Theory of operation:
//! - **Enter**: copy the unlocked header into the caller's [`LockRecord`]
//!   (the *displaced header*) and CAS the record's address into the header
//!   (lock bits 00). The CAS is AcqRel: Acquire takes the lock, Release
//!   publishes the displaced header to a future inflater.
//! - **Recursion**: the header already holds the address of one of this
//!   thread's records (the JIT's stack-proximity test, then the stack and
//!   arena bounds: `owns_record`): the new record gets a displaced header of
//!   0 and nothing else happens.
//! - **Exit**: a record with displaced 0 was recursive: nothing to do. Else
//!   CAS the header from the record's address back to the displaced header
//!   (Release). A record that went through a monitor ([`UNUSED_MARK`]), or
//!   whose object a contender inflated meanwhile, exits the monitor.
//! - **Contention**: a contender meeting a stack-locked header inflates it
//!   through the INFLATING busy marker, with the stack-locker's record as the
//!   monitor's owner, then enters the monitor; the stack-locker claims the
//!   monitor at its exit ([`claim_from_record`]), whose recursions are 0
//!   because its recursive records (displaced 0) exit as no-ops.
//! - **wait / notify / hash** on an object this thread stack-locked: notify
//!   finds nobody (waiting inflates); wait inflates (INFLATING, then claims);
//!   the hash is read from the record's displaced header, and if none is
//!   there yet the object is inflated to install it (HotSpot never writes a
//!   `BasicLock`'s displaced header after the lock). On an object another
//!   thread stack-locked the hash inflates too: only the owner may read its
//!   record.
//!
//! Same-object locking through records is LIFO (the JVM guarantees it for
//! `monitorenter`/`monitorexit`); different objects may be released in any
//! order.

use core::pin::Pin;

use super::atomic::{spin_pause, Ordering};
use super::header::{Header, Mark};
use super::inflate::{claim_from_record, enter_through_monitor, monitor_of};
use super::record::{self, LockRecord, RECURSIVE, UNUSED_MARK};
use super::thread;
use super::SyncError;

/// `monitorenter` with a caller-provided lock record (HotSpot's compiled
/// code passes a `BasicLock` in its frame). `rec` must be idle (a record
/// holds one lock at a time; an in-use record is refused by returning
/// [`SyncError::IllegalMonitorState`]). Works whatever the thread's locking
/// mode: the record makes it a stack-lock.
#[inline]
pub fn enter_with_record(obj: Pin<&Header>, rec: Pin<&LockRecord>) -> Result<(), SyncError> {
    let rec = rec.get_ref();
    if rec.is_in_use() {
        return Err(SyncError::IllegalMonitorState);
    }
    // Before the lock is taken: from then on an inflater or our own exit
    // asks whether the record is ours.
    record::note_caller_record_in_use(rec.addr());
    enter(obj.get_ref(), rec);
    Ok(())
}

/// `monitorexit` of a lock taken with [`enter_with_record`] and this
/// `rec`. [`SyncError::IllegalMonitorState`] (changing nothing) if `rec`
/// does not hold `obj`.
#[inline]
pub fn exit_with_record(obj: Pin<&Header>, rec: Pin<&LockRecord>) -> Result<(), SyncError> {
    let rec = rec.get_ref();
    exit(obj.get_ref(), rec)?;
    record::note_caller_record_idle(rec.addr());
    Ok(())
}

/// Stack-locks `obj` with the idle record `rec`.
#[inline]
pub(crate) fn enter(obj: &Header, rec: &LockRecord) {
    rec.set_object(obj.addr());
    // Relaxed: the CAS validates the word and acquires.
    let mark = obj.load(Ordering::Relaxed);
    if try_stack_lock(obj, rec, mark) {
        return;
    }
    enter_slow(obj, rec);
}

/// One attempt at the uncontended paths: an unlocked `mark` is stack-locked
/// by CAS; a stack-lock by one of our records makes `rec` recursive.
#[inline(always)]
pub(crate) fn try_stack_lock(obj: &Header, rec: &LockRecord, mark: Mark) -> bool {
    if mark.is_unlocked() {
        rec.set_displaced(mark.0);
        // AcqRel: Acquire takes the lock (the previous holder released);
        // Release publishes the displaced header to an inflater.
        return obj
            .cas(
                mark,
                Mark::stack_locked_by(rec.addr()),
                Ordering::AcqRel,
                Ordering::Relaxed,
            )
            .is_ok();
    }
    if mark.is_stack_locked() && record::owns_record(mark.record()) {
        rec.set_displaced(RECURSIVE);
        return true;
    }
    false
}

#[cold]
#[inline(never)]
fn enter_slow(obj: &Header, rec: &LockRecord) {
    thread::with_current(|me| loop {
        // Acquire: we may read the monitor next.
        let mark = obj.load(Ordering::Acquire);
        if try_stack_lock(obj, rec, mark) {
            return;
        }
        if mark.is_unlocked() {
            continue; // lost the CAS: reload
        }
        // Every other way in goes through a monitor (which this thread
        // claims first if it was stack-locked by us and inflated since).
        rec.set_displaced(UNUSED_MARK);
        if enter_through_monitor(obj, mark, me) {
            return;
        }
    })
}

/// Releases the lock `rec` took on `obj`; `rec` is idle afterwards.
#[inline]
pub(crate) fn exit(obj: &Header, rec: &LockRecord) -> Result<(), SyncError> {
    if rec.object() != obj.addr() {
        return Err(SyncError::IllegalMonitorState);
    }
    let displaced = rec.displaced();
    if displaced == RECURSIVE {
        rec.set_object(0);
        return Ok(());
    }
    // Release: publishes the critical section to the next locker.
    if displaced != UNUSED_MARK
        && obj
            .cas(
                Mark::stack_locked_by(rec.addr()),
                Mark(displaced),
                Ordering::Release,
                Ordering::Relaxed,
            )
            .is_ok()
    {
        rec.set_object(0);
        return Ok(());
    }
    exit_slow(obj, rec)
}

#[cold]
#[inline(never)]
fn exit_slow(obj: &Header, rec: &LockRecord) -> Result<(), SyncError> {
    let r = thread::with_current(|me| loop {
        // Acquire: we may read the monitor next.
        let mark = obj.load(Ordering::Acquire);
        if mark.has_monitor() {
            let m = monitor_of(obj, mark);
            claim_from_record(m, me);
            if !m.is_owned_by(me.id) {
                return Err(SyncError::IllegalMonitorState);
            }
            m.exit(me);
            return Ok(());
        }
        if mark == Mark::stack_locked_by(rec.addr()) {
            // The CAS in `exit` lost to a moment of INFLATING that has
            // ended? Not possible (an inflation ends in a monitor); a
            // spurious failure of the strong CAS is not possible either.
            // Retry the unlock anyway rather than assume.
            // Release: as in `exit`.
            if obj
                .cas(mark, Mark(rec.displaced()), Ordering::Release, Ordering::Relaxed)
                .is_ok()
            {
                return Ok(());
            }
        } else if mark.is_inflating() || mark.lock_bits() == super::header::GC_RESERVED {
            spin_pause(); // an inflater (or a GC) is working on it
        } else {
            return Err(SyncError::IllegalMonitorState);
        }
    });
    rec.set_object(0);
    r
}

/// The raw `enter` of a legacy-mode thread: a record from the thread's
/// record stack.
pub(crate) fn raw_enter(obj: &Header) {
    let rec = record::push_raw();
    enter(obj, record::pinned(rec).get_ref());
}

/// The raw `exit` of a thread holding raw-API records: `None` if it holds no
/// record for `obj` (the caller then tries the other modes' ways).
pub(crate) fn raw_exit(obj: &Header) -> Option<Result<(), SyncError>> {
    let rec = record::take_raw(obj.addr())?;
    let r = exit(obj, record::pinned(rec).get_ref());
    record::free(rec);
    Some(r)
}

/// A guard's lock in legacy mode: a record from the arena, which the guard
/// owns until [`guard_exit`].
pub(crate) fn guard_enter(obj: &Header) -> *const LockRecord {
    let rec = record::alloc();
    enter(obj, record::pinned(rec).get_ref());
    rec
}

/// Releases a guard's lock and gives its record back.
pub(crate) fn guard_exit(obj: &Header, rec: *const LockRecord) -> Result<(), SyncError> {
    let r = exit(obj, record::pinned(rec).get_ref());
    record::free(rec);
    r
}

/// Whether `mark` is a stack-lock by one of the current thread's records.
#[inline]
pub(crate) fn is_mine(mark: Mark) -> bool {
    mark.is_stack_locked() && record::owns_record(mark.record())
}

/// The displaced header of an object the current thread stack-locked
/// (`mark` is its header, [`is_mine`]).
pub(crate) fn my_displaced_header(mark: Mark) -> Mark {
    debug_assert!(is_mine(mark));
    // SAFETY: the record is this thread's and holds the lock, so it is
    // alive (a record is never dropped in use) and only this thread writes it.
    Mark(unsafe { &*(mark.record() as *const LockRecord) }.displaced())
}
