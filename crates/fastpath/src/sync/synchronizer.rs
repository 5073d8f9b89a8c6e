//! The synchronizer: `monitorenter`/`monitorexit` and their guard forms,
//! wait and notify, with one dispatch on the thread's locking mode
//! (HotSpot `ObjectSynchronizer`, synchronizer.cpp; the per-mode protocols
//! are in their own files, as HotSpot splits lightweightSynchronizer.cpp
//! out of it).
//!
//! Where it sits: between [`super::api`] (and runtimes using the raw
//! [`enter`]/[`exit`]) and the locking protocols below it:
//! [`super::lightweight`], [`super::legacy`], [`super::monitor_mode`], which
//! share the lock-stack, the header, [`super::inflate`] and the
//! [`super::monitor::Monitor`].
//!
//! Three tiers, the same for every operation:
//! 1. The fast path (`#[inline]`, no call, no fence, one CAS or none):
//!    [`LockStack::try_fast_enter`] / [`LockStack::try_fast_exit`] on the
//!    thread block's lock-stack (`Synchronized`'s guarded forms in
//!    [`super::api`]).
//! 2. The inline inflated path, out of line but not cold (an inflated
//!    object takes it on every lock): an object whose monitor is free or
//!    owned by the caller (enter: the owner CAS, whose failure value says
//!    "ours": one level more) or owned by the caller (exit) is handled on
//!    its monitor with the owner id and critical-section word the thread
//!    block holds, and no call.
//! 3. [`slow`], `#[cold]`: the one dispatch on the mode, to the protocol
//!    of the thread's mode: [`Op::Enter`] (waiting or not, for the raw API
//!    or a guard) or [`Op::Exit`].
//!
//! A thread in one mode may meet objects locked by a thread in another:
//! every state a header can be in has a defined transition for each mode
//! (the tables in [`super`]).

use core::pin::Pin;
use std::time::Duration;

use super::atomic::{spin_pause, Ordering};
use super::deflate::{deflate_idle_on_exit, deflate_on_exit};
use super::error::SyncError;
use super::header::{Header, NEUTRAL};
use super::inflate::{claim_from_record, inflate_owned, inflate_stack_locked, monitor_of};
use super::legacy;
use super::lightweight;
use super::lock_stack::{GuardedEnter, LockStack};
use super::monitor::{ExitRest, Monitor};
use super::monitor_mode;
use super::op::{Holder, Op, Outcome};
use super::record::{self, LockRecord};
use super::stats::{self, InflateCause};
use super::thread;
use crate::thread::{Critical, Section, ThreadBlock, ThreadMode, ThreadState};

/// `monitorenter`: acquires `obj` for the current thread (reentrant; blocks
/// while another thread holds it). Pair it with [`exit`] in any order the
/// runtime needs: unstructured locking works.
#[inline]
pub fn enter(obj: Pin<&Header>) {
    thread::with_lock_stack(|ls| enter_in(ls, obj.get_ref(), NEUTRAL, Holder::Raw));
}

/// [`enter`] with the current thread's block passed in, for runtimes that
/// carry their thread (as HotSpot passes `JavaThread*`): no thread-local
/// access on the fast path. `thread` is the calling thread's block (the
/// only one safe code can reach: [`crate::thread::current`] returns it, and
/// a `&ThreadBlock` cannot move to another thread).
#[inline]
pub fn enter_on(thread: &ThreadBlock, obj: Pin<&Header>) {
    debug_assert_current(thread);
    enter_in(thread, obj.get_ref(), NEUTRAL, Holder::Raw);
}

/// [`enter`] whose fast path guesses that `obj`'s header is `neutral`,
/// the word an unlocked object of its kind holds until it is first hashed
/// ([`Header::neutral_word`] of the spare bits the runtime gives such
/// objects; [`enter`] guesses [`Header::new`]'s). The guess saves the load
/// of the header between the previous exit's locked instruction and this
/// enter's, which on x86-64 is most of the fast path's cost over a lock
/// that expects a constant. Any `neutral` is safe: a wrong guess costs one
/// failed CAS, after which the fast path goes on from the word the CAS
/// found (and loads the header of that object while it remains the
/// thread's last miss). Pair it with [`exit_guessing`] and the same word.
///
/// ```
/// use std::pin::pin;
/// use fastpath::sync::{self, Header};
///
/// const CLASS_BITS: usize = 0b1100; // the runtime's per-class spare bits
/// let neutral = Header::neutral_word(CLASS_BITS);
/// let obj = pin!(Header::with_spare_bits(CLASS_BITS));
/// sync::enter_guessing(obj.as_ref(), neutral);
/// assert!(sync::holds_lock(&obj));
/// sync::exit_guessing(obj.as_ref(), neutral).unwrap();
/// assert_eq!(obj.raw(), neutral);
/// ```
#[inline]
pub fn enter_guessing(obj: Pin<&Header>, neutral: usize) {
    thread::with_lock_stack(|ls| enter_in(ls, obj.get_ref(), neutral, Holder::Raw));
}

/// [`enter_guessing`] with the current thread's block passed in (see
/// [`enter_on`]).
#[inline]
pub fn enter_guessing_on(thread: &ThreadBlock, obj: Pin<&Header>, neutral: usize) {
    debug_assert_current(thread);
    enter_in(thread, obj.get_ref(), neutral, Holder::Raw);
}

/// [`exit`] whose fast path guesses that `obj`'s header is `neutral` with
/// its lock bits fast-locked, as [`enter_guessing`] with the same word
/// leaves it.
#[inline]
pub fn exit_guessing(obj: Pin<&Header>, neutral: usize) -> Result<(), SyncError> {
    thread::with_lock_stack(|ls| exit_in(ls, obj.get_ref(), neutral))
}

/// [`exit_guessing`] with the current thread's block passed in (see
/// [`enter_on`]).
#[inline]
pub fn exit_guessing_on(thread: &ThreadBlock, obj: Pin<&Header>, neutral: usize) -> Result<(), SyncError> {
    debug_assert_current(thread);
    exit_in(thread, obj.get_ref(), neutral)
}

/// The inline part of [`enter_on`] alone: `true` if it took `obj` (an
/// unlocked object fast-locked, or one more level of the object on top of
/// the thread's lock-stack); `false` changed nothing, and the caller goes
/// on with [`enter_on`] (or [`try_enter`]), which finishes the job. No
/// call, no loop, no panic: for a foreign-function wrapper or an
/// interpreter that keeps everything else out of line, behind its own
/// frame (the C ABI's `fastpath_monitor_enter` does).
#[inline(always)]
pub fn try_enter_fast_on(thread: &ThreadBlock, obj: Pin<&Header>) -> bool {
    debug_assert_current(thread);
    thread.try_fast_enter_leaf(obj.get_ref())
}

/// The inline part of [`exit_on`] alone (see [`try_enter_fast_on`]): `true`
/// if it released one level of `obj`, fast-locked on top of the thread's
/// lock-stack; `false` changed nothing, and [`exit_on`] decides.
#[inline(always)]
pub fn try_exit_fast_on(thread: &ThreadBlock, obj: Pin<&Header>) -> bool {
    debug_assert_current(thread);
    thread.try_fast_exit_leaf(obj.get_ref())
}

/// `monitorexit`: releases one level of `obj`. Returns
/// [`SyncError::IllegalMonitorState`] (and changes nothing) if the current
/// thread does not hold it.
#[inline]
pub fn exit(obj: Pin<&Header>) -> Result<(), SyncError> {
    thread::with_lock_stack(|ls| exit_in(ls, obj.get_ref(), NEUTRAL))
}

/// [`exit`] with the current thread's block passed in (see [`enter_on`]).
#[inline]
pub fn exit_on(thread: &ThreadBlock, obj: Pin<&Header>) -> Result<(), SyncError> {
    debug_assert_current(thread);
    exit_in(thread, obj.get_ref(), NEUTRAL)
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
    thread::with_lock_stack(|ls| try_enter_in(ls, obj.get_ref(), Holder::Raw)).is_some()
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

/// A guard's lock ([`HeaderGuard`](super::HeaderGuard)): [`enter`] (`wait`) or
/// [`try_enter`], returning the lock record a legacy thread's guard owns
/// (null in the other modes); `None`: another thread holds `h` (`try`
/// only). Release it with [`exit_guard`].
#[inline]
pub(crate) fn enter_guard(h: &Header, wait: bool) -> Option<*const LockRecord> {
    thread::with_lock_stack(|ls| {
        if wait {
            Some(enter_in(ls, h, NEUTRAL, Holder::Guard))
        } else {
            try_enter_in(ls, h, Holder::Guard)
        }
    })
}

/// Releases a guard's lock, taken by [`enter_guard`]: one level of `h`. A
/// guard's level is any level of its object, in every mode: if a raw
/// [`exit`] already released the one its legacy record held, the drop
/// releases another, as a lock-stack or monitor level would be.
#[inline(always)]
pub(crate) fn exit_guard(h: &Header, record: *const LockRecord) -> Result<(), SyncError> {
    if record.is_null() {
        thread::with_lock_stack(|ls| exit_in(ls, h, NEUTRAL))
    } else {
        exit_guard_record(h, record)
    }
}

/// [`exit_guard`] of a legacy guard's record, out of line so that the
/// other guards' drop inlines the fast exit alone.
#[inline(never)]
fn exit_guard_record(h: &Header, record: *const LockRecord) -> Result<(), SyncError> {
    // `None`: a raw `exit` took this guard's level; release another.
    legacy::guard_exit(h, record).unwrap_or_else(|| thread::with_lock_stack(|ls| exit_slow(h, ls)))
}

#[inline(always)]
fn enter_in(ls: &LockStack, h: &Header, neutral: usize, holder: Holder) -> *const LockRecord {
    if ls.try_fast_enter_guessing(h, neutral) {
        return core::ptr::null();
    }
    enter_not_fast(h, ls, holder)
}

#[inline(always)]
fn try_enter_in(ls: &LockStack, h: &Header, holder: Holder) -> Option<*const LockRecord> {
    if ls.try_fast_enter(h) {
        return Some(core::ptr::null());
    }
    try_enter_not_fast(h, ls, holder)
}

#[inline(always)]
fn exit_in(ls: &LockStack, h: &Header, neutral: usize) -> Result<(), SyncError> {
    if ls.try_fast_exit_guessing(h, neutral) {
        Ok(())
    } else {
        exit_not_fast(h, ls)
    }
}

/// Out of line, so that the thin fast path inlined at every call site stays
/// as short as it was (inlining this grew the uncontended pair from 39 to 73
/// instructions: register spills around the critical section); not cold:
/// an inflated object takes this path on every enter. The inflated attempt
/// is all it does inline; a legacy thread (whose lock takes a record) and
/// everything else go to the cold [`slow`], which looks at the mode.
#[inline(never)]
fn enter_not_fast(h: &Header, ls: &LockStack, holder: Holder) -> *const LockRecord {
    if try_enter_inflated(h, ls) {
        return core::ptr::null();
    }
    enter_slow(h, ls, holder)
}

/// [`enter_not_fast`] for one attempt.
#[inline(never)]
fn try_enter_not_fast(h: &Header, ls: &LockStack, holder: Holder) -> Option<*const LockRecord> {
    if try_enter_inflated(h, ls) {
        return Some(core::ptr::null());
    }
    try_enter_slow(h, ls, holder)
}

/// Out of line, as [`enter_not_fast`].
#[inline(never)]
fn exit_not_fast(h: &Header, ls: &LockStack) -> Result<(), SyncError> {
    if try_exit_inflated(h, ls) {
        Ok(())
    } else {
        exit_slow(h, ls)
    }
}

/// [`slow`] once the thread is registered (its mode is set then).
#[cold]
#[inline(never)]
fn slow_registered(obj: &Header, ls: &LockStack, op: Op) -> Outcome {
    debug_assert_ne!(ls.mode(), ThreadMode::Unregistered);
    slow(obj, ls, op)
}

/// [`slow`] for a waiting enter (which never fails). The three `*_slow`
/// functions are the dispatch made once per operation, so that each is a
/// tail call with nothing to unpack from a shared result.
#[cold]
#[inline(never)]
fn enter_slow(h: &Header, ls: &LockStack, holder: Holder) -> *const LockRecord {
    slow(h, ls, Op::Enter { wait: true, holder })
        .get()
        .unwrap_or(core::ptr::null())
}

/// [`slow`] for one attempt.
#[cold]
#[inline(never)]
fn try_enter_slow(h: &Header, ls: &LockStack, holder: Holder) -> Option<*const LockRecord> {
    slow(h, ls, Op::Enter { wait: false, holder }).get().ok()
}

/// [`slow`] for an exit.
#[cold]
#[inline(never)]
fn exit_slow(h: &Header, ls: &LockStack) -> Result<(), SyncError> {
    slow(h, ls, Op::Exit).get().map(drop)
}

/// The one dispatch on the thread's locking mode: `op` by the protocol of
/// the mode the thread runs (registering it first: a fresh thread's
/// lock-stack fails every fast path, so its first lock comes here). A
/// legacy thread's protocol needs only its records and runs outside a
/// critical section; the others run inside one (`thread::with_current`),
/// so that a monitor read from a header is not freed under them. Each
/// protocol's entry is out of line: inlined together, the three made one
/// frame that the compiler then split at worse places. Enter
/// returns the record a legacy guard owns (else null); a `try` enter that
/// finds the object held returns [`SyncError::WouldBlock`]. Inlined into
/// its three cold callers, one per operation.
#[inline(always)]
fn slow(obj: &Header, ls: &LockStack, op: Op) -> Outcome {
    let r = match ls.mode() {
        ThreadMode::Lightweight => lightweight::slow(obj, ls, op),
        ThreadMode::Legacy => legacy::slow(obj, op),
        ThreadMode::Monitor | ThreadMode::Exited => monitor_mode::slow(obj, op),
        ThreadMode::Unregistered => {
            // Registration gives the thread its mode: dispatch again.
            thread::ensure_registered();
            return slow_registered(obj, ls, op);
        }
    };
    ls.verify_held("after a slow path");
    r
}

/// The inline inflated path's view of the thread: its critical-section
/// word, if it is registered and not a legacy-mode thread (one null test
/// of the block's inline-state pointer; the owner id is read from the
/// block where it is used). `None`: take the slow path, which registers
/// or runs the legacy protocol (a legacy thread's raw enter takes a record
/// first and its exit pops one, so it never uses the inline paths).
#[inline(always)]
fn inline_critical(ls: &LockStack) -> Option<&Critical> {
    let (state, critical) = ls.inline_state();
    if state.is_null() {
        return None;
    }
    // SAFETY: `critical` points into the state the block caches (its
    // `Arc<Critical>` keeps it alive), valid while the cached state pointer
    // is non-null: the registration outlives every borrow of `ls` but the
    // exit release's, which runs before the cache is cleared; an orphan
    // state is never freed. `ls` is this thread's, borrowed for less than
    // the thread's life.
    Some(unsafe { &*critical })
}

/// The inflated path inline, as HotSpot's compiled `monitorenter` does it
/// (`C2_MacroAssembler::fast_lock_lightweight`, the `inflated` label): the
/// header has the monitor bit, so go straight to the monitor's owner CAS,
/// inside the reclamation critical section, with the owner id the thread
/// block holds; no lock-stack scan, no second thread look-up, no pointer
/// chase to the thread state. Only for lightweight and monitor-mode
/// threads: a legacy thread's raw enter takes a record first (its exit
/// pops one), so it keeps its own path. `false`: not inflated, not
/// acquirable in one CAS (owned by another, anonymously owned: maybe ours,
/// being deflated), or the thread is not registered yet: the slow path
/// decides.
///
/// No `contentions` increment (which `Monitor::enter_contended` makes):
/// the deflater first CASes `owner` NO_OWNER → DEFLATER_MARKER and we CAS
/// `owner` NO_OWNER → us, so exactly one of the two CASes wins. If ours
/// wins, the deflater's fails and it leaves the monitor alone while we own
/// it; if the deflater's wins, `owner` never returns to NO_OWNER unless the
/// deflation is abandoned, so ours fails and we never own a deflated
/// monitor. The counter is only needed by threads that stay on the monitor
/// *without* owning it (spinning, queued, waiting). The monitor's memory is
/// kept alive by the critical section (`thread/critical.rs`).
///
/// The owner CAS is all it tries (re-entry of a monitor we own included:
/// the CAS's failure value says so); a monitor a record of ours owns (a
/// stack-lock of ours a contender inflated) fails it and is claimed by the
/// slow path. No call inside the critical section: nothing to save around
/// it.
#[inline(always)]
fn try_enter_inflated(h: &Header, ls: &LockStack) -> bool {
    let Some(critical) = inline_critical(ls) else {
        return false;
    };
    on_installed_monitor(h, critical, false, |m, _inside| {
        ls.may_own_monitors.set(true);
        m.try_enter_as(ls.owner_id.get())
    })
}

/// What the inline inflated paths share: `f` on the monitor installed in
/// `h` and the critical section of the current thread (`critical`) that
/// keeps it allocated while the [`Section`] lives; `otherwise` if `h` has
/// no monitor. The section is the flat one
/// ([`Critical::section`]): inline, one
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
    let Some(critical) = inline_critical(ls) else {
        return false;
    };
    // In a critical section: once the exit clears the owner, a deflation
    // may take the monitor while the exit still looks for a successor.
    on_installed_monitor(h, critical, false, |m, inside| {
        let id = ls.owner_id.get();
        m.is_owned_by(id) && exit_owned(h, m, id, inside)
    })
}

/// [`Monitor::exit`] by its owner `id` of `h`'s monitor `m`, inside the
/// critical section `inside`: the inline part, and the cold parts (a
/// hand-off, a wake-up, the deflation of a contention monitor left idle)
/// out of line, each taking the section with it so that nothing here
/// lives across a call. Returns `true` (exited).
#[inline(always)]
fn exit_owned(h: &Header, m: &Monitor, id: usize, inside: Section<'_>) -> bool {
    match m.exit_inline() {
        ExitRest::Done if m.deflates_on_exit() => deflate_on_exit_inside(h, m, inside),
        ExitRest::Done => true,
        rest => finish_exit_inside(m, rest, id, inside),
    }
}

/// [`exit_owned`]'s deflation on exit ([`super::deflate`]); leaves the
/// critical section after it.
#[cold]
#[inline(never)]
fn deflate_on_exit_inside(h: &Header, m: &Monitor, inside: Section<'_>) -> bool {
    deflate_idle_on_exit(h, m);
    drop(inside);
    true
}

/// [`exit_owned`]'s cold part; leaves the critical section after it.
#[cold]
#[inline(never)]
fn finish_exit_inside(m: &Monitor, rest: ExitRest, id: usize, inside: Section<'_>) -> bool {
    m.finish_exit(rest, id);
    drop(inside);
    true
}

/// How a `Synchronized` lock taken past the lock-stack fast path is held,
/// for [`exit_exclusive`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exclusive {
    /// On the object's monitor, marked there as held through a guard
    /// ([`Monitor::set_guard_held`]: what the thread-exit release keeps, so
    /// the thread lists nothing).
    OnMonitor,
    /// Any other way, the header listed for the thread-exit release, with
    /// the lock record a legacy thread's guard owns (else null).
    Listed(*const LockRecord),
}

/// `Synchronized::lock` (`wait`) or `try_lock` past the lock-stack fast
/// path, which found the object neither unlocked nor on top. First one
/// attempt on an inflated object's monitor, inline (as
/// [`try_enter_inflated`], except that a monitor the caller already owns is
/// [`SyncError::AlreadyHeld`] rather than re-entered: a second guard would
/// alias the value); else the cold rest: the re-entrancy check by
/// [`holds_lock`] and the guard's lock ([`enter_guard`]), marked in the
/// monitor if it ended on one, else listed for the thread-exit release.
#[inline]
pub(crate) fn enter_exclusive(h: &Header, wait: bool) -> Result<Exclusive, SyncError> {
    match try_enter_inflated_exclusive(h) {
        GuardedEnter::Acquired(_) => Ok(Exclusive::OnMonitor),
        GuardedEnter::AlreadyHeld => Err(SyncError::AlreadyHeld),
        GuardedEnter::Slow => enter_exclusive_slow(h, wait),
    }
}

/// [`enter_exclusive`]'s inline attempt. [`GuardedEnter::Slow`]: not
/// inflated, not free, anonymously or record-owned (maybe by us: the slow
/// path's `holds_lock` decides), a legacy thread, or not registered yet.
#[inline(always)]
fn try_enter_inflated_exclusive(h: &Header) -> GuardedEnter {
    // The deflation argument of `try_enter_inflated` holds here too.
    thread::with_lock_stack(|ls| {
        let Some(critical) = inline_critical(ls) else {
            return GuardedEnter::Slow;
        };
        on_installed_monitor(h, critical, GuardedEnter::Slow, |m, _inside| {
            let id = ls.owner_id.get();
            ls.may_own_monitors.set(true);
            // The CAS first: it fails on a monitor we own, so the common
            // case (free) pays no extra load for the re-entrancy check.
            if m.try_lock(id) {
                m.set_guard_held(); // not ours before: recursions is 0
                GuardedEnter::Acquired(0)
            } else if m.is_owned_by(id) {
                GuardedEnter::AlreadyHeld
            } else {
                GuardedEnter::Slow
            }
        })
    })
}

#[cold]
#[inline(never)]
fn enter_exclusive_slow(h: &Header, wait: bool) -> Result<Exclusive, SyncError> {
    if holds_lock(h) {
        return Err(SyncError::AlreadyHeld);
    }
    let record = enter_guard(h, wait).ok_or(SyncError::WouldBlock)?;
    if record.is_null() && mark_guard_held(h) {
        return Ok(Exclusive::OnMonitor);
    }
    thread::note_data_guard_taken(h.addr());
    Ok(Exclusive::Listed(record))
}

/// After a `Synchronized` lock's slow path acquired `h` (the caller did
/// not hold it before): if that left the caller owning `h`'s monitor under
/// its id (a contended lock ends so), mark the monitor held through a
/// guard as the inline attempt does and return `true`. `false`:
/// thin-locked, or a legacy thread's: the caller lists the guard instead.
fn mark_guard_held(h: &Header) -> bool {
    thread::with_lock_stack(|ls| {
        let Some(critical) = inline_critical(ls) else {
            return false;
        };
        on_installed_monitor(h, critical, false, |m, _inside| {
            if !m.is_owned_by(ls.owner_id.get()) {
                return false;
            }
            m.set_guard_held();
            true
        })
    })
}

/// Releases a `Synchronized` lock [`enter_exclusive`] took, when its
/// lock-stack fast exit did not apply. A guard on a monitor goes straight
/// to the monitor's exit, inline for a registered lightweight or
/// monitor-mode thread (as [`try_exit_inflated`], plus the mark cleared);
/// any other (or one whose monitor release fails here, which cannot happen
/// while the guard's promise holds: the general release is still right)
/// is [`exit_exclusive_slow`]'s.
#[inline]
pub(crate) fn exit_exclusive(h: &Header, held: Exclusive) {
    match held {
        Exclusive::OnMonitor if exit_guard_held(h) => {}
        Exclusive::OnMonitor => exit_exclusive_slow(h, core::ptr::null()),
        Exclusive::Listed(record) => exit_exclusive_slow(h, record),
    }
}

/// The release of a guard on a monitor marked held by it. A guard dropped
/// in a later thread-local destructor, after the thread's exit release
/// (its state no longer cached), or by a thread that switched to legacy
/// mode since, goes through [`exit_guard_held_looked_up`]. `false`
/// (nothing changed): the header has no monitor marked as held by the
/// caller's guard (never, for a guard that [`enter_exclusive`] put on a
/// monitor: an owned monitor is not deflated, and thread exit keeps it).
#[inline(always)]
fn exit_guard_held(h: &Header) -> bool {
    thread::with_lock_stack(|ls| {
        let Some(critical) = inline_critical(ls) else {
            return exit_guard_held_looked_up(h);
        };
        // In a critical section, as `try_exit_inflated`.
        on_installed_monitor(h, critical, false, |m, inside| {
            let id = ls.owner_id.get();
            m.is_owned_by(id) && m.take_guard_held() && exit_owned(h, m, id, inside)
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
        deflate_on_exit(h, m);
        true
    })
}

/// A `Synchronized` guard's release when its entry is not a marked one on
/// top (a slow-path lock, inflated since, or dropped out of order) and its
/// monitor is not marked: off the list of locks the thread-exit release
/// must keep, then the guard's exit (it only fails if the thread-exit
/// release already released it: nothing is left to undo then). Cold: kept
/// out of the inline monitor exit, which then saves nothing around a call.
#[cold]
#[inline(never)]
fn exit_exclusive_slow(h: &Header, record: *const LockRecord) {
    thread::note_data_guard_dropped(h.addr());
    let _ = exit_guard(h, record);
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
        if record::is_mine(mark) {
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
        if record::is_mine(mark) {
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
