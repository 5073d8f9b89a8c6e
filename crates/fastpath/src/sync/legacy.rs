//! Legacy stack-locking (HotSpot `LM_LEGACY`, LockingMode=1, the default
//! before JDK 21; `ObjectSynchronizer::enter`/`exit`, synchronizer.cpp,
//! JDK 21): the baseline seed 001 compares fast-locking against.
//!
//! Where it sits: the synchronizer's dispatch calls [`slow`] for threads in
//! legacy mode (and any thread locks with a caller's record through
//! [`enter_with_record`]); it uses the records of
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
//!   0, and the record the header names (the *owner*) counts one more level
//!   nested under it ([`record::add_nested`]; HotSpot keeps no such count,
//!   see below).
//! - **Exit**, in order (the uncontended path): a record with displaced 0
//!   was recursive: one level fewer in its owner's count. The owner, with
//!   nothing nested left, CASes the header from its address back to the
//!   displaced header (Release). A record that went through a monitor
//!   ([`UNUSED_MARK`]), or whose object a contender inflated meanwhile,
//!   exits the monitor.
//! - **Contention**: a contender meeting a stack-locked header inflates it
//!   through the INFLATING busy marker, with the stack-locker's record as the
//!   monitor's owner, then enters the monitor; the stack-locker claims the
//!   monitor at its next exit, wait or enter ([`claim_from_record`]) with
//!   one recursion per record nested under the owner, and from then on every
//!   record of the object, recursive ones included, exits the monitor.
//! - **wait / notify / hash** on an object this thread stack-locked: notify
//!   finds nobody (waiting inflates); wait inflates (INFLATING, then claims);
//!   the hash is read from the record's displaced header, and if none is
//!   there yet the object is inflated to install it (HotSpot never writes a
//!   `BasicLock`'s displaced header after the lock). On an object another
//!   thread stack-locked the hash inflates too: only the owner may read its
//!   record.
//!
//! **How an out-of-order release is handled.** HotSpot never releases the
//! owner before the records nested under it (its interpreter and JITs keep
//! monitors balanced per frame), so its recursive exits do nothing at all.
//! fastpath's guards, records and raw API allow any order, and the owner
//! may be released first: unlocking then would free the object while this
//! thread still holds levels. So the owner's exit with levels nested under
//! it inflates its own lock instead, as the lightweight lock-stack does for
//! an exit it cannot express ([`InflateCause::UnstructuredExit`]):
//! INFLATING, a monitor named after the record, claimed at once with the
//! nested levels as recursions, then exited once for the owner's level. The
//! remaining records, now recursions of a monitor, exit it in any order,
//! and the last one releases the object. Handing the displaced header to
//! another record of the object instead would need to find one, and a
//! caller's records on its stack are listed nowhere. The protocol between
//! threads is unchanged: the owner's inflation is the one `wait` already
//! does (and races a contender's the same way: one INFLATING CAS wins, the
//! other side waits for the monitor), and the count is read only by its own
//! thread. It lives in the thread's arena, and the owner record carries a
//! flag in its object word ([`super::record`]), so the in-order exit's
//! comparison of that word with the object, which it made before, sends an
//! owner with levels nested under it off the fast path with no extra load
//! or branch. A recursive exit, which HotSpot makes a no-op, now looks at
//! the header and the thread's count (the recursive enter already looked at
//! the header and the thread's records).
//!
//! A raw `exit` may also release a level a [`HeaderGuard`](super::HeaderGuard) took (a
//! guard's level is any level of its object, in every mode): see
//! [`raw_exit`] and [`guard_exit`].

use core::pin::Pin;

use super::atomic::{spin_pause, Ordering};
use super::header::{Header, Mark};
use std::sync::Arc;

use super::error::SyncError;
use super::inflate::{
    claim_from_record, enter_through_monitor, exit_through_monitor, inflate_owned, inflate_stack_locked,
    monitor_of, try_enter_held,
};
use super::op::{Holder, Op, Outcome};
use super::record::{self, LockRecord, RECURSIVE, UNUSED_MARK};
use super::stats::InflateCause;
use super::thread;
use crate::thread::ThreadState;

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
/// by CAS; a stack-lock by one of our records makes `rec` recursive, one
/// level nested under that record.
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
    if record::is_mine(mark) {
        rec.set_displaced(RECURSIVE);
        record::add_nested(my_record(mark));
        return true;
    }
    false
}

/// The record of this thread that `mark` (a stack-lock, [`is_mine`]) names;
/// the reference is used only while that record holds the lock.
#[inline(always)]
fn my_record<'a>(mark: Mark) -> &'a LockRecord {
    debug_assert!(record::is_mine(mark));
    // SAFETY: the record is this thread's and holds the lock, so it is
    // alive (a record is never dropped in use) and only this thread writes
    // its owner-only fields.
    unsafe { &*(mark.record() as *const LockRecord) }
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
        if thread::with_lock_stack(|ls| ls.contains(obj.addr())) {
            // Fast-locked by this (lightweight) thread: a record taken on an
            // object its lock-stack holds is one level more, which the
            // lock-stack cannot express beside a record. Inflate it as the
            // lightweight interleaved recursion does and re-enter; waiting
            // on the monitor for ourselves would never end.
            let m =
                thread::with_lock_stack(|ls| inflate_owned(obj, me, ls, InflateCause::InterleavedRecursion));
            let entered = m.enter(me); // ours: a recursion, never blocks
            debug_assert!(entered);
            return;
        }
        if enter_through_monitor(obj, mark, me) {
            return;
        }
    })
}

/// Releases the lock `rec` took on `obj`; `rec` is idle afterwards.
#[inline]
pub(crate) fn exit(obj: &Header, rec: &LockRecord) -> Result<(), SyncError> {
    let displaced = rec.displaced();
    // The owner of the displaced header with nothing nested under it (its
    // `obj` word is then the bare address): unlock. Release: publishes the
    // critical section to the next locker.
    if rec.object_word() == obj.addr()
        && displaced != RECURSIVE
        && displaced != UNUSED_MARK
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
    exit_not_plain(obj, rec)
}

/// [`exit`] of anything but an in-order, uncontended owner: a recursive
/// record, which takes one level off its owner's count while the object is
/// stack-locked; a record that does not hold `obj`; and the slow path's
/// cases. Out of line, not cold: every in-order recursive exit comes here.
#[inline(never)]
fn exit_not_plain(obj: &Header, rec: &LockRecord) -> Result<(), SyncError> {
    if rec.object() != obj.addr() {
        return Err(SyncError::IllegalMonitorState);
    }
    if rec.displaced() == RECURSIVE {
        // Relaxed: while `rec` holds a level, only this thread's own
        // records can be in the header, and what we read through it is
        // this thread's; an inflater's INFLATING or monitor (which we would
        // read with Acquire) goes to the slow path.
        let mark = obj.load(Ordering::Relaxed);
        if mark.is_stack_locked() {
            return exit_nested(obj, rec, mark);
        }
    }
    exit_slow(obj, rec)
}

/// A recursive record's exit on a stack-locked `mark`: one level fewer
/// nested under our owner record (the thread's count names it, so no
/// address test is needed). [`SyncError::IllegalMonitorState`] (changing
/// nothing) if the stack-lock is not ours or counts nothing nested: `rec`
/// was retired with a dropped header whose address a new object reuses.
fn exit_nested(obj: &Header, rec: &LockRecord, mark: Mark) -> Result<(), SyncError> {
    if !record::remove_nested_under(mark.record(), obj.addr()) {
        return Err(SyncError::IllegalMonitorState);
    }
    rec.set_object(0);
    Ok(())
}

#[cold]
#[inline(never)]
fn exit_slow(obj: &Header, rec: &LockRecord) -> Result<(), SyncError> {
    let r = thread::with_current(|me| loop {
        // Acquire: we may read the monitor next.
        let mark = obj.load(Ordering::Acquire);
        if mark.has_monitor() {
            // Claimed with a recursion per level nested under the owner
            // record, then exited once for `rec`'s level, whatever its kind.
            let m = monitor_of(obj, mark);
            claim_from_record(m, me);
            if !m.is_owned_by(me.id) {
                return Err(SyncError::IllegalMonitorState);
            }
            m.exit(me);
            return Ok(());
        }
        if mark == Mark::stack_locked_by(rec.addr()) {
            if rec.has_nested() {
                // Out of order: released before the levels nested under
                // it. Inflate our own lock, claim it with those levels as
                // recursions (the claim takes the count), and exit it once
                // (module docs). `None`: a contender's INFLATING won; the
                // monitor comes next.
                if let Some(m) = inflate_stack_locked(obj, mark, InflateCause::UnstructuredExit) {
                    claim_from_record(m, me);
                    m.exit(me);
                    return Ok(());
                }
                continue;
            }
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
        } else if rec.displaced() == RECURSIVE && mark.is_stack_locked() {
            // Not reached from `exit_not_plain` (it handles a stack-lock),
            // but a recursive record's exit is this wherever it starts.
            return exit_nested(obj, rec, mark);
        } else if mark.is_inflating() || mark.lock_bits() == super::header::GC_RESERVED {
            spin_pause(); // an inflater (or a GC) is working on it
        } else {
            return Err(SyncError::IllegalMonitorState);
        }
    });
    rec.set_object(0);
    r
}

/// The legacy protocol's slow path for `op` (see the synchronizer's
/// dispatch): every lock takes a record, from the raw API's record stack
/// ([`Holder::Raw`]) or from the arena for a guard that then owns it
/// ([`Holder::Guard`]: `Ok(record)`). An exit releases the thread's most
/// recent raw record for `obj`; an object it holds no record for is
/// exited on its monitor. Needs no thread state but `try_enter`'s (a
/// record lock is the whole protocol), so it runs outside the critical
/// section the other protocols' slow paths run in.
#[inline(never)]
pub(crate) fn slow(obj: &Header, op: Op) -> Outcome {
    match op {
        Op::Enter {
            wait: true,
            holder: Holder::Raw,
        } => {
            raw_enter(obj);
            Outcome::DONE
        }
        Op::Enter {
            wait: true,
            holder: Holder::Guard,
        } => Outcome::record(guard_enter(obj)),
        Op::Enter { wait: false, holder } => match thread::with_current(|me| try_enter(obj, me, holder)) {
            Some(record) => Outcome::record(record),
            None => Outcome::WOULD_BLOCK,
        },
        Op::Exit => Outcome::exited(match raw_exit(obj) {
            Some(r) => r,
            None => thread::with_current(|me| exit_through_monitor(obj, me)),
        }),
    }
}

/// Legacy: one stack-lock attempt with an arena record (recursion: a
/// record with displaced 0), else the monitor's. The record goes to the
/// guard, or on the raw record stack where [`exit`] finds it; on failure it
/// goes back to the arena unused.
fn try_enter(obj: &Header, me: &Arc<ThreadState>, holder: Holder) -> Option<*const LockRecord> {
    let rec_ptr = record::alloc();
    let rec = record::pinned(rec_ptr).get_ref();
    rec.set_object(obj.addr());
    let acquired = loop {
        // Acquire: we may read the monitor next.
        let mark = obj.load(Ordering::Acquire);
        if try_stack_lock(obj, rec, mark) {
            break true;
        }
        if mark.is_unlocked() {
            continue; // lost the CAS: look again
        }
        rec.set_displaced(UNUSED_MARK);
        if let Some(acquired) = try_enter_held(obj, mark, me) {
            break acquired;
        }
    };
    if !acquired {
        rec.set_object(0);
        record::free(rec_ptr);
        return None;
    }
    if holder == Holder::Guard {
        Some(rec_ptr)
    } else {
        record::keep_raw(rec_ptr);
        Some(core::ptr::null())
    }
}

/// The raw `enter` of a legacy-mode thread: a record from the thread's
/// record stack.
pub(crate) fn raw_enter(obj: &Header) {
    let rec = record::push_raw();
    enter(obj, record::pinned(rec).get_ref());
}

/// The raw `exit` of a legacy-mode thread: its most recent raw-API record
/// for `obj`, else a level one of its live guards holds (the guard's drop
/// then releases another level, as in the other modes, where a guard's
/// level is any level; see [`guard_exit`]). `None` if it holds no arena
/// record for `obj` (the caller then tries the other modes' ways).
pub(crate) fn raw_exit(obj: &Header) -> Option<Result<(), SyncError>> {
    if let Some(rec) = record::take_raw(obj.addr()) {
        let r = exit(obj, record::pinned(rec).get_ref());
        record::free(rec);
        return Some(r);
    }
    // The guard still owns the record: it stays off the free list, idle,
    // until the guard's drop frees it.
    let rec = record::take_guard_level(obj.addr())?;
    Some(exit(obj, record::pinned(rec).get_ref()))
}

/// A guard's lock in legacy mode: a record from the arena, which the guard
/// owns until [`guard_exit`].
pub(crate) fn guard_enter(obj: &Header) -> *const LockRecord {
    let rec = record::alloc();
    enter(obj, record::pinned(rec).get_ref());
    rec
}

/// Releases a guard's lock and gives its record back. `None` (the record
/// given back) if a raw `exit` already released the guard's level: the
/// caller then releases one other level of `obj`, if the thread holds one,
/// as a guard's drop does in the other modes.
pub(crate) fn guard_exit(obj: &Header, rec: *const LockRecord) -> Option<Result<(), SyncError>> {
    let r = record::pinned(rec).get_ref();
    let released = (r.object() == obj.addr()).then(|| exit(obj, r));
    record::free(rec);
    released
}

/// The displaced header of an object the current thread stack-locked
/// (`mark` is its header, [`is_mine`]).
pub(crate) fn my_displaced_header(mark: Mark) -> Mark {
    Mark(my_record(mark).displaced())
}
