//! The synchronizer: `monitorenter`/`monitorexit`, wait and notify, the
//! identity hash, dispatched by locking mode (HotSpot `ObjectSynchronizer` +
//! `LightweightSynchronizer`, synchronizer.cpp / lightweightSynchronizer.cpp,
//! JDK 23).
//!
//! Where it sits: between [`super::api`] (and runtimes using the raw
//! [`enter`]/[`exit`]) and the mechanisms below it: the lock-stack, the
//! header, [`super::inflate`] and the [`super::monitor::Monitor`].
//!
//! Fast paths (`#[inline]`, no call, no fence, one CAS or none):
//! [`enter`] and [`exit`] run [`LockStack::try_fast_enter`] /
//! [`LockStack::try_fast_exit`] on the thread-local lock-stack; failing
//! that, an inflated object owned by nobody or by the caller (enter: the
//! owner CAS, whose failure value says "ours": one level more) or by the
//! caller (exit) is handled on its monitor by one out-of-line step with no
//! call inside (`enter_not_fast`/`exit_not_fast`: `try_enter_inflated`,
//! `try_exit_inflated`). [`try_enter`] is one attempt of the same paths
//! that never waits for an owner. Anything else is `#[cold]`:
//! - **Lightweight** (`LM_LIGHTWEIGHT`): a recursive enter on a full stack or
//!   an interleaved one (`[A, B]` + A) inflates A; an unlocked object is
//!   fast-locked after making room on the stack; on a fast-locked one held
//!   by another thread we first spin for the fast-lock with backoff
//!   ([`super::fast_lock_spin`], HotSpot JDK 24), and only when that gives
//!   up is it inflated with `ANONYMOUS_OWNER` and its monitor entered; a
//!   monitor is entered. Exit of an object held but not on top
//!   inflates it (unstructured locking, HotSpot TestUnstructuredLocking);
//!   exit that finds a monitor claims it from `ANONYMOUS_OWNER`.
//! - **Monitor** (`LM_MONITOR`): the thread's lock-stack is parked in the
//!   monitor mode (`top` out of range), so its fast paths always fail, and every lock is a
//!   monitor.
//! - **Legacy** (`LM_LEGACY`, stack-locking with displaced headers): the
//!   thread's mode is legacy (`top` out of range); the raw API takes a lock
//!   record from the thread's record stack, a [`Guard`](super::Guard) owns
//!   one, and [`enter_with_record`](super::enter_with_record) takes the
//!   caller's. The protocol is in [`super::legacy`].
//!
//! A thread in one mode may meet objects locked by a thread in another:
//! every state a header can be in has a defined transition for each mode.

use core::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use super::atomic::{spin_pause, Ordering};
use super::header::{Header, Mark};
use super::inflate::{
    claim_from_lock_stack, claim_from_record, enter_through_monitor, inflate_owned, inflate_stack_locked,
    inflate_unlocked, monitor_of, restore_deflated,
};
use super::legacy;
use super::lock_stack::{GuardedEnter, LockStack};
use super::monitor::{ExitRest, Monitor};
use super::reclaim::{Critical, Section};
use super::record::{self, LockRecord, UNUSED_MARK};
use super::stats::{self, InflateCause};
use super::thread::{self, ThreadState, DEFLATER_MARKER};
use super::SyncError;
use crate::thread::{ThreadBlock, ThreadMode};

/// `monitorenter`: acquires `obj` for the current thread (reentrant; blocks
/// while another thread holds it). Pair it with [`exit`] in any order the
/// runtime needs: unstructured locking works.
#[inline]
pub fn enter(obj: Pin<&Header>) {
    thread::with_lock_stack(|ls| enter_in(ls, obj.get_ref()));
}

/// [`enter`] with the current thread's block passed in, for runtimes that
/// carry their thread (as HotSpot passes `JavaThread*`): no thread-local
/// access on the fast path. `thread` is the calling thread's block (the
/// only one safe code can reach: [`crate::thread::current`] returns it, and
/// a `&ThreadBlock` cannot move to another thread).
#[inline]
pub fn enter_on(thread: &ThreadBlock, obj: Pin<&Header>) {
    debug_assert_current(thread);
    enter_in(thread, obj.get_ref());
}

/// [`exit`] with the current thread's block passed in (see [`enter_on`]).
#[inline]
pub fn exit_on(thread: &ThreadBlock, obj: Pin<&Header>) -> Result<(), SyncError> {
    debug_assert_current(thread);
    exit_in(thread, obj.get_ref())
}

/// Debug builds: `thread` is the calling thread's block.
#[inline(always)]
pub(crate) fn debug_assert_current(thread: &ThreadBlock) {
    #[cfg(all(debug_assertions, not(loom)))]
    assert!(
        core::ptr::eq(thread, crate::thread::current()),
        "a thread block used by another thread"
    );
    let _ = thread;
}

#[inline(always)]
fn enter_in(ls: &LockStack, h: &Header) {
    if !ls.try_fast_enter(h) {
        enter_not_fast(h, ls);
    }
}

#[inline(always)]
fn exit_in(ls: &LockStack, h: &Header) -> Result<(), SyncError> {
    if ls.try_fast_exit(h) {
        Ok(())
    } else {
        exit_not_fast(h, ls)
    }
}

/// Out of line, so that the thin fast path inlined at every call site stays
/// as short as it was (inlining this grew the uncontended pair from 39 to 73
/// instructions: register spills around the critical section); not cold:
/// an inflated object takes this path on every enter. The inflated attempt
/// is all it does inline; a legacy thread (whose raw lock takes a record)
/// and everything else go to the cold slow path, which looks at the mode
/// first.
#[inline(never)]
fn enter_not_fast(h: &Header, ls: &LockStack) {
    if !try_enter_inflated(h, ls) {
        enter_slow(h);
    }
}

/// `Some` unless `ls` is a legacy-mode thread's: the legacy threads' locks
/// go to their records directly, without the inflated path or a look at
/// the slow path's registration.
#[inline(always)]
fn not_legacy(ls: &LockStack) -> Option<()> {
    (ls.mode() != ThreadMode::Legacy).then_some(())
}

/// `monitorexit`: releases one level of `obj`. Returns
/// [`SyncError::IllegalMonitorState`] (and changes nothing) if the current
/// thread does not hold it.
#[inline]
pub fn exit(obj: Pin<&Header>) -> Result<(), SyncError> {
    thread::with_lock_stack(|ls| exit_in(ls, obj.get_ref()))
}

/// Out of line, as [`enter_not_fast`].
#[inline(never)]
fn exit_not_fast(h: &Header, ls: &LockStack) -> Result<(), SyncError> {
    if try_exit_inflated(h, ls) {
        Ok(())
    } else {
        exit_slow(h)
    }
}

/// `monitorenter` if it needs no waiting (HotSpot
/// `ObjectSynchronizer::quick_enter` / `ObjectMonitor::try_enter`; Java's
/// `ReentrantLock.tryLock()` for a monitor): one attempt that never parks
/// and never spins on another thread's critical section. `true`: the
/// current thread now holds `obj` (acquired, or re-entered one more level;
/// release it with [`exit`]). `false`: another thread holds it; nothing
/// changed.
///
/// In every mode it acquires an object nobody holds, re-enters one the
/// current thread holds, and fails only on one another thread holds:
/// - lightweight: the fast-lock CAS, or a push for recursion; a recursion
///   the lock-stack cannot express (full, or interleaved) inflates, as
///   [`enter`] does;
/// - legacy: a lock record, as [`enter`] takes one;
/// - monitor mode, and any inflated object: the monitor's `try_enter`, one CAS
///   of the monitor's owner. An unlocked object in monitor mode gets a
///   monitor installed owned by the caller.
///
/// It never inflates an object another thread holds. The only waiting it
/// does is for another thread's few-instruction transitions (a monitor
/// being deflated, a stack-lock being inflated, a GC's 11 word): it re-reads
/// the header and tries the word they leave, since an object being deflated
/// is in fact free.
#[inline]
pub fn try_enter(obj: Pin<&Header>) -> bool {
    let h = obj.get_ref();
    thread::with_lock_stack(|ls| ls.try_fast_enter(h)) || try_enter_not_fast(h, false).is_some()
}

/// [`try_enter`] and [`try_enter_for_guard`] past the lock-stack fast path:
/// the inflated path, then the slow one.
#[inline(never)]
fn try_enter_not_fast(h: &Header, for_guard: bool) -> Option<*const LockRecord> {
    if thread::with_lock_stack(|ls| try_enter_inflated(h, ls)) {
        return Some(core::ptr::null());
    }
    try_enter_slow(h, for_guard)
}

/// The inflated path inline, as HotSpot's compiled `monitorenter` does it
/// (`C2_MacroAssembler::fast_lock_lightweight`, the `inflated` label): the
/// header has the monitor bit, so go straight to the monitor's owner CAS,
/// inside the reclamation critical section, with the thread state the
/// lock-stack caches; no lock-stack scan, no second thread look-up. Only
/// for lightweight and monitor-mode threads: a legacy thread's raw enter
/// takes a record first (its exit pops one), so it keeps its own path.
/// `false`: not inflated, not acquirable in one CAS (owned by another,
/// anonymously owned: maybe ours, being deflated), or the thread is not
/// registered yet: the slow path decides.
///
/// No `contentions` increment (which `Monitor::enter_contended` makes):
/// the deflater first CASes `owner` NO_OWNER → DEFLATER_MARKER and we CAS
/// `owner` NO_OWNER → us, so exactly one of the two CASes wins. If ours
/// wins, the deflater's fails and it leaves the monitor alone while we own
/// it; if the deflater's wins, `owner` never returns to NO_OWNER unless the
/// deflation is abandoned, so ours fails and we never own a deflated
/// monitor. The counter is only needed by threads that stay on the monitor
/// *without* owning it (spinning, queued, waiting). The monitor's memory is
/// kept alive by the critical section (`reclaim.rs`).
///
/// The owner CAS is all it tries (re-entry of a monitor we own included:
/// the CAS's failure value says so); a monitor a record of ours owns (a
/// stack-lock of ours a contender inflated) fails it and is claimed by the
/// slow path. No call inside the critical section: nothing to save around
/// it.
#[inline(always)]
fn try_enter_inflated(h: &Header, ls: &LockStack) -> bool {
    let Some((me, critical)) = thread::inline_current(ls) else {
        return false;
    };
    on_installed_monitor(h, critical, false, |m, _inside| m.try_enter(me))
}

/// What the inline inflated paths share: `f` on the monitor installed in
/// `h` and the critical section of the current thread (`critical`) that
/// keeps it allocated while the [`Section`] lives; `otherwise` if `h` has
/// no monitor. The section is the flat one
/// ([`Critical::section`](super::reclaim::Critical::section)): inline, one
/// word, no closure call.
#[inline(always)]
fn on_installed_monitor<'a, R>(
    h: &'a Header,
    critical: &'a Critical,
    otherwise: R,
    f: impl FnOnce(&'a Monitor, Section<'a>) -> R,
) -> R {
    let inside = critical.section();
    // Acquire: we read the monitor's fields next. Loaded inside the
    // critical section, so the monitor it names is not freed under us.
    let (installed, m) = h.load(Ordering::Acquire).as_monitor();
    if !installed {
        return otherwise;
    }
    // SAFETY: as in `monitor_of`: a monitor installed in a header is freed
    // only by that header's Drop (which cannot run while `h` is borrowed)
    // or after a deflation's grace period, which waits for `inside`.
    f(unsafe { &*m }, inside)
}

/// The exit twin of [`try_enter_inflated`] (HotSpot's `inflated` label in
/// `fast_unlock_lightweight`): a monitor owned by the current thread under
/// its id is exited directly. Such a monitor has no entry on the lock-stack
/// (entries are claimed off it when it is owned by id), so nothing there
/// needs looking at. Anything else (anonymous or record-owned, not ours, a
/// legacy thread's record to pop) is the slow path's.
#[inline(always)]
fn try_exit_inflated(h: &Header, ls: &LockStack) -> bool {
    let Some((me, critical)) = thread::inline_current(ls) else {
        return false;
    };
    // In a critical section: once the exit clears the owner, a deflation
    // may take the monitor while the exit still looks for a successor.
    on_installed_monitor(h, critical, false, |m, inside| {
        m.is_owned_by(me.id) && exit_owned(m, me, inside)
    })
}

/// [`Monitor::exit`] by its owner `me`, inside the critical section
/// `inside`: the inline part, and the cold part (a hand-off, a wake-up)
/// out of line, which takes the section with it so that nothing here
/// lives across a call. Returns `true` (exited).
#[inline(always)]
fn exit_owned(m: &Monitor, me: &ThreadState, inside: Section<'_>) -> bool {
    match m.exit_inline() {
        ExitRest::Done => true,
        rest => finish_exit_inside(m, rest, me.id, inside),
    }
}

/// [`exit_owned`]'s cold part; leaves the critical section after it.
#[cold]
#[inline(never)]
fn finish_exit_inside(m: &Monitor, rest: ExitRest, id: usize, inside: Section<'_>) -> bool {
    m.finish_exit(rest, id);
    drop(inside);
    true
}

/// `Synchronized::lock`'s inflated path, one attempt: like
/// [`try_enter_inflated`], except that a monitor the caller already owns is
/// [`GuardedEnter::AlreadyHeld`] rather than re-entered (a second guard
/// would alias the value), and a monitor acquired is marked held through a
/// guard ([`Monitor::set_guard_held`]: what the thread-exit release keeps,
/// so the thread lists nothing). [`GuardedEnter::Slow`]: not inflated, not
/// free, anonymously or record-owned (maybe by us: the slow path's
/// `holds_lock` decides), a legacy thread, or not registered yet. Release
/// it with [`exit_guard_held`].
#[inline]
pub(crate) fn enter_inflated_exclusive(h: &Header) -> GuardedEnter {
    // The deflation argument of `try_enter_inflated` holds here too.
    thread::with_lock_stack(|ls| {
        let Some((me, critical)) = thread::inline_current(ls) else {
            return GuardedEnter::Slow;
        };
        on_installed_monitor(h, critical, GuardedEnter::Slow, |m, _inside| {
            // The CAS first: it fails on a monitor we own, so the common
            // case (free) pays no extra load for the re-entrancy check.
            if m.try_acquire(me) {
                m.set_guard_held(); // not ours before: recursions is 0
                GuardedEnter::Acquired
            } else if m.is_owned_by(me.id) {
                GuardedEnter::AlreadyHeld
            } else {
                GuardedEnter::Slow
            }
        })
    })
}

/// After a `Synchronized` lock's slow path acquired `h` (the caller did
/// not hold it before): if that left the caller owning `h`'s monitor under
/// its id (a contended lock ends so), mark the monitor held through a
/// guard as [`enter_inflated_exclusive`] does and return `true`; the guard
/// is then released by [`exit_guard_held`]. `false`: thin-locked, or a
/// legacy thread's: the caller lists the guard instead.
#[inline(never)]
pub(crate) fn mark_guard_held(h: &Header) -> bool {
    thread::with_lock_stack(|ls| {
        let Some((me, critical)) = thread::inline_current(ls) else {
            return false;
        };
        on_installed_monitor(h, critical, false, |m, _inside| {
            if !m.is_owned_by(me.id) {
                return false;
            }
            m.set_guard_held();
            true
        })
    })
}

/// Releases a lock [`enter_inflated_exclusive`] took, straight on the
/// monitor: inline for a registered lightweight or monitor-mode thread (as
/// [`try_exit_inflated`], plus the mark cleared); a guard dropped in a
/// later thread-local destructor, after the thread's exit release (its
/// state no longer cached), or by a thread that switched to legacy mode
/// since, goes through [`exit_guard_held_looked_up`]. `false` (nothing
/// changed): the header has no monitor marked as held by the caller's
/// guard (never, for a guard that `enter_inflated_exclusive` returned: an
/// owned monitor is not deflated, and thread exit keeps it).
#[inline]
pub(crate) fn exit_guard_held(h: &Header) -> bool {
    thread::with_lock_stack(|ls| {
        let Some((me, critical)) = thread::inline_current(ls) else {
            return exit_guard_held_looked_up(h);
        };
        // In a critical section, as `try_exit_inflated`.
        on_installed_monitor(h, critical, false, |m, inside| {
            m.is_owned_by(me.id) && m.take_guard_held() && exit_owned(m, me, inside)
        })
    })
}

/// [`exit_guard_held`] with the thread looked up (which finds the kept
/// identity of a thread whose exit release ran).
#[cold]
#[inline(never)]
fn exit_guard_held_looked_up(h: &Header) -> bool {
    // In a critical section (`with_current`), as `try_exit_inflated`.
    thread::with_current(|me| {
        // Acquire: we read the monitor's fields next.
        let mark = h.load(Ordering::Acquire);
        if !mark.has_monitor() {
            return false;
        }
        let m = monitor_of(h, mark);
        if !m.is_owned_by(me.id) || !m.take_guard_held() {
            return false;
        }
        m.exit(me);
        true
    })
}

/// [`enter`] for a [`Guard`](super::Guard): in legacy mode the lock is
/// taken with an arena record the guard then owns (null otherwise).
#[inline]
pub(crate) fn enter_for_guard(h: &Header) -> *const LockRecord {
    if thread::with_lock_stack(|ls| ls.try_fast_enter(h)) {
        return core::ptr::null();
    }
    enter_not_fast_for_guard(h)
}

/// [`enter_not_fast`] for a guard.
#[inline(never)]
fn enter_not_fast_for_guard(h: &Header) -> *const LockRecord {
    match thread::with_lock_stack(|ls| not_legacy(ls).map(|()| try_enter_inflated(h, ls))) {
        None => legacy::guard_enter(h),
        Some(true) => core::ptr::null(),
        Some(false) => enter_slow_for_guard(h),
    }
}

/// [`try_enter`] for a [`Guard`](super::Guard): `Some(record)` as
/// [`enter_for_guard`] returns it, `None` if another thread holds `h`.
#[inline]
pub(crate) fn try_enter_for_guard(h: &Header) -> Option<*const LockRecord> {
    if thread::with_lock_stack(|ls| ls.try_fast_enter(h)) {
        return Some(core::ptr::null());
    }
    try_enter_not_fast(h, true)
}

#[cold]
#[inline(never)]
fn enter_slow_for_guard(h: &Header) -> *const LockRecord {
    thread::ensure_registered(); // so that `top` says the thread's mode
    if thread::with_lock_stack(|ls| ls.mode()) == ThreadMode::Legacy {
        return legacy::guard_enter(h);
    }
    enter_slow(h);
    core::ptr::null()
}

/// Releases a guard's lock, taken by [`enter_for_guard`]: one level of
/// `h`. A guard's level is any level of its object, in every mode: if a
/// raw [`exit`] already released the one its legacy record held, the drop
/// releases another, as a lock-stack or monitor level would be.
#[inline]
pub(crate) fn exit_for_guard(h: &Header, record: *const LockRecord) -> Result<(), SyncError> {
    if record.is_null() {
        thread::with_lock_stack(|ls| exit_in(ls, h))
    } else {
        // `None`: a raw `exit` took this guard's level; release another.
        legacy::guard_exit(h, record).unwrap_or_else(|| exit_slow(h))
    }
}

/// The rest of [`try_enter`] (and [`try_enter_for_guard`] when `for_guard`):
/// `Some(record)` (null unless a legacy thread took the lock with an arena
/// record: the guard's, or pushed on the raw record stack) or `None`.
#[cold]
#[inline(never)]
fn try_enter_slow(obj: &Header, for_guard: bool) -> Option<*const LockRecord> {
    thread::with_current(|me| {
        thread::with_lock_stack(|ls| {
            let r = match ls.mode() {
                ThreadMode::Legacy => legacy_try_enter(obj, me, for_guard),
                ThreadMode::Monitor | ThreadMode::Exited => {
                    monitor_mode_try_enter(obj, me).then(core::ptr::null)
                }
                _ => lightweight_try_enter(obj, me, ls).then(core::ptr::null),
            };
            ls.verify_held("after try enter");
            r
        })
    })
}

fn lightweight_try_enter(obj: &Header, me: &Arc<ThreadState>, ls: &LockStack) -> bool {
    // The first lock of a thread arrives here to register.
    if ls.try_fast_enter(obj) {
        return true;
    }
    if ls.contains(obj.addr()) {
        // Ours, but the stack cannot take the push (full, or interleaved):
        // what `enter` does (inflate, then a recursive monitor enter) never
        // blocks on an object we hold.
        lightweight_enter(obj, me, ls);
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

fn monitor_mode_try_enter(obj: &Header, me: &Arc<ThreadState>) -> bool {
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

/// Legacy: one stack-lock attempt with an arena record (recursion: a
/// record with displaced 0), else the monitor's. The record goes to the
/// guard, or on the raw record stack where [`exit`] finds it; on failure it
/// goes back to the arena unused.
fn legacy_try_enter(obj: &Header, me: &Arc<ThreadState>, for_guard: bool) -> Option<*const LockRecord> {
    let rec_ptr = record::alloc();
    let rec = record::pinned(rec_ptr).get_ref();
    rec.set_object(obj.addr());
    let acquired = loop {
        // Acquire: we may read the monitor next.
        let mark = obj.load(Ordering::Acquire);
        if legacy::try_stack_lock(obj, rec, mark) {
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
    if for_guard {
        Some(rec_ptr)
    } else {
        record::keep_raw(rec_ptr);
        Some(core::ptr::null())
    }
}

/// One attempt on an object whose header `mark` is not unlocked, for a
/// caller that does not hold it on its lock-stack. `Some(true)`: acquired
/// or re-entered; `Some(false)`: another thread holds it; `None`: the word
/// was in transition (deflation, INFLATING, a GC): re-read the header.
fn try_enter_held(obj: &Header, mark: Mark, me: &Arc<ThreadState>) -> Option<bool> {
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
            spin_pause();
        }
        return None;
    }
    if legacy::is_mine(mark) {
        // Stack-locked by one of our records (a caller's, in a non-legacy
        // thread): what `enter` does, inflating our own lock, never blocks.
        return enter_through_monitor(obj, mark, me).then_some(true);
    }
    if mark.is_fast_locked() || mark.is_stack_locked() {
        return Some(false); // another thread's fast-lock or stack-lock
    }
    spin_pause(); // INFLATING, or 11: a GC is working on it
    None
}

#[cold]
#[inline(never)]
fn enter_slow(obj: &Header) {
    if thread::with_lock_stack(|ls| ls.mode()) == ThreadMode::Legacy {
        legacy::raw_enter(obj);
        return;
    }
    thread::with_current(|me| {
        thread::with_lock_stack(|ls| {
            match ls.mode() {
                ThreadMode::Monitor | ThreadMode::Exited => monitor_mode_enter(obj, me),
                ThreadMode::Legacy => legacy::raw_enter(obj), // registered just now
                _ => lightweight_enter(obj, me, ls),
            }
            ls.verify_held("after slow enter");
        })
    })
}

fn lightweight_enter(obj: &Header, me: &Arc<ThreadState>, ls: &LockStack) {
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
            if super::fast_lock_spin::spin_then_fast_lock(obj, |m| fast_lock_making_room(obj, m, me, ls)) {
                return;
            }
        } else if enter_through_monitor(obj, mark, me) {
            return;
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

fn monitor_mode_enter(obj: &Header, me: &Arc<ThreadState>) {
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

#[cold]
#[inline(never)]
fn exit_slow(obj: &Header) -> Result<(), SyncError> {
    // A raw-API stack-lock has its record on the record stack; only a
    // legacy-mode thread has one (switching modes requires an empty stack).
    if thread::with_lock_stack(|ls| ls.mode()) == ThreadMode::Legacy {
        if let Some(r) = legacy::raw_exit(obj) {
            return r;
        }
    }
    thread::with_current(|me| {
        thread::with_lock_stack(|ls| {
            let r = exit_with(obj, me, ls);
            ls.verify_held("after slow exit");
            r
        })
    })
}

fn exit_with(obj: &Header, me: &Arc<ThreadState>, ls: &LockStack) -> Result<(), SyncError> {
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
                claim_from_lock_stack(monitor_of(obj, mark), addr, me, ls).exit(me);
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
    // Acquire: we may read the monitor next.
    let mark = obj.load(Ordering::Acquire);
    if mark.has_monitor() {
        let m = monitor_of(obj, mark);
        if m.is_owned_by(me.id) {
            m.exit(me);
            return Ok(());
        }
    }
    Err(SyncError::IllegalMonitorState)
}

/// The current thread's monitor for `obj`, which it must hold: inflating a
/// fast-locked object (for `wait`) or claiming an anonymous monitor.
/// `Ok(None)`: held fast-locked and `inflate` is false (so no waiters can
/// exist).
fn owned_monitor<'a>(
    obj: &'a Header,
    me: &ThreadState,
    ls: &LockStack,
    inflate: Option<InflateCause>,
) -> Result<Option<&'a Monitor>, SyncError> {
    let addr = obj.addr();
    if ls.contains(addr) {
        // Acquire: we may read the monitor next.
        let mark = obj.load(Ordering::Acquire);
        return match inflate {
            Some(cause) => Ok(Some(inflate_owned(obj, me, ls, cause))),
            None if mark.has_monitor() => Ok(Some(inflate_owned(obj, me, ls, InflateCause::Contention))),
            None => Ok(None),
        };
    }
    loop {
        // Acquire: we may read the monitor (or our record) next.
        let mark = obj.load(Ordering::Acquire);
        if legacy::is_mine(mark) {
            // Stack-locked by this thread: nobody can be waiting (waiting
            // inflates); `wait` inflates it through INFLATING and claims.
            let Some(cause) = inflate else { return Ok(None) };
            if let Some(m) = inflate_stack_locked(obj, mark, cause) {
                claim_from_record(m, me);
                return Ok(Some(m));
            }
        } else if mark.is_inflating() {
            spin_pause(); // ours or not, it ends in a monitor
        } else if mark.has_monitor() {
            let m = monitor_of(obj, mark);
            claim_from_record(m, me);
            return if m.is_owned_by(me.id) {
                Ok(Some(m))
            } else {
                Err(SyncError::IllegalMonitorState)
            };
        } else {
            return Err(SyncError::IllegalMonitorState);
        }
    }
}

/// `Object.wait(timeout)`: releases every level of `obj` and blocks until
/// notified (`Ok`), interrupted ([`SyncError::Interrupted`], clearing the
/// interrupt status), or the timeout expires ([`SyncError::TimedOut`]);
/// re-acquires `obj` at the same depth before returning in every case.
/// `None` waits without bound; `Some(Duration::ZERO)` releases and
/// re-acquires once. Spurious wake-ups are absorbed: `Ok` means notified.
pub fn wait(obj: Pin<&Header>, timeout: Option<Duration>) -> Result<(), SyncError> {
    let obj = obj.get_ref();
    thread::with_current(|me| {
        let m = thread::with_lock_stack(|ls| owned_monitor(obj, me, ls, Some(InflateCause::Wait)))?;
        match m {
            Some(m) => m.wait(me, timeout),
            None => Err(SyncError::IllegalMonitorState),
        }
    })
}

/// `Object.notify` (`all = false`) / `notifyAll`: moves one (every) waiter
/// of `obj` to its entry list; they run once the caller releases `obj`.
/// Returns how many were moved.
pub fn notify(obj: Pin<&Header>, all: bool) -> Result<usize, SyncError> {
    let obj = obj.get_ref();
    thread::with_current(|me| {
        match thread::with_lock_stack(|ls| owned_monitor(obj, me, ls, None))? {
            // Fast-locked: nobody can be waiting (waiting inflates).
            None => Ok(0),
            Some(m) => {
                stats::count_inflation(InflateCause::Notify);
                Ok(m.notify(all))
            }
        }
    })
}

/// Whether the current thread holds `obj`.
pub fn holds_lock(obj: &Header) -> bool {
    if thread::with_lock_stack(|ls| ls.contains(obj.addr())) {
        return true;
    }
    loop {
        // Acquire: we may read the monitor next.
        let mark = obj.load(Ordering::Acquire);
        if mark.is_inflating() {
            spin_pause(); // it may be ours: wait for the monitor to say
            continue;
        }
        if legacy::is_mine(mark) {
            return true;
        }
        if !mark.has_monitor() {
            return false;
        }
        // In a critical section: the monitor is not freed while we look.
        let held = thread::with_current(|me| {
            // Acquire: as above.
            let mark = obj.load(Ordering::Acquire);
            mark.has_monitor().then(|| {
                let m = monitor_of(obj, mark);
                m.is_owned_by(me.id) || m.owner_record().is_some_and(record::owns_record)
            })
        });
        if let Some(held) = held {
            return held;
        }
    }
}
