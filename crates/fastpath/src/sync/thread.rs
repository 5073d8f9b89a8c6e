//! A thread's registration with `sync`: its [`ThreadState`] (owner id, park
//! event, interrupt status, critical-section word: [`crate::thread`]'s),
//! its locking mode, and what its exit does.
//!
//! Where it sits: under the synchronizer and the locking protocols, above
//! the lock-stack. The lock-stack is what the
//! fast paths touch, so it lives in the thread block ([`crate::thread`]):
//! static TLS with no destructor, one TLS-relative address, no lazy
//! initialisation check. Everything else is a [`ThreadState`] behind an `Arc`
//! (other threads unpark and interrupt it), registered lazily by the first
//! slow path: a fresh thread's block is unregistered, its lock-stack `top`
//! out of range, which fails the fast paths' bounds check, so the first
//! lock of every thread registers it at no cost to later locks. The block
//! also caches, once the thread registers, a pointer to its state, its
//! owner id, and for the inline inflated paths the state and its
//! critical-section word again (the inline-state pointer is null for a
//! legacy-mode thread, so that one test says "registered, and not
//! legacy"; the paths read the owner id from the block itself). The
//! block's "may own monitors" flag is set before the thread first owns a
//! monitor ([`note_monitor_owner`]), so that thread exit skips the
//! registry scan for threads that only ever fast-locked. The
//! thread's locking mode is the block's mode byte, set at registration and
//! by [`set_current_thread_locking_mode`].
//!
//! Thread exit: the registration's destructor releases every lock the thread
//! still holds (fast-locked objects on its lock-stack and monitors it owns),
//! waking their contenders, as HotSpot's
//! `ObjectSynchronizer::release_monitors_owned_by_thread` does when a JNI
//! thread detaches holding monitors. A thread therefore never leaves others
//! blocked forever by exiting. Locks taken later, from other thread-local
//! destructors, run as a thread with no registration ("orphan") and are not
//! released at exit.
//!
//! One exception keeps that release sound: an object locked through a live
//! [`SynchronizedGuard`](super::SynchronizedGuard) (which hands out `&mut T`) is *not*
//! released. Such a guard can outlive the release in a thread-local whose
//! destructor runs later; releasing under it would let another thread take a
//! second `&mut T` while the destructor still writes through the first. So
//! each thread knows the headers it holds through live `SynchronizedGuard`s, and the
//! exit release leaves them locked, moved into monitors owned by the thread.
//! Kept cheaply: `Synchronized::lock`'s fast path marks its lock-stack entry
//! (bit 0 of the entry's word, pushed with it; the guard's drop pops it); on
//! an inflated object it marks the monitor it acquires (an owner-only word
//! beside `recursions`, cleared by the guard's drop before the monitor's
//! exit), which the exit release reads as it walks the monitors it owns.
//! Only the other slow paths, or an inflation that moves a marked entry off
//! the stack, list the header ([`note_data_guard_taken`] /
//! [`note_data_guard_dropped`]); the raw and `HeaderGuard` paths touch none of
//! these. A guard dropped later releases its lock
//! normally: the thread keeps its identity (the orphan state *is* the
//! exiting thread's state) so it still owns the monitor. A guard that is
//! never dropped (`mem::forget`) leaves its value locked forever, as a
//! forgotten `std::sync::MutexGuard` does; dropping that value later, from
//! another thread, leaks its monitor rather than abort. A plain `HeaderGuard`
//! protects no data, so its object is released as before and its late drop
//! finds nothing to release (an ignored `IllegalMonitorState`).

use core::cell::{Cell, OnceCell};
use std::sync::Arc;

use super::atomic::Ordering;
use super::error::SyncError;
use super::lock_stack::LockStack;
use super::settings::LockingMode;
use crate::thread::{Critical, ThreadMode, ThreadState};

/// Owns the registration; its destructor runs at thread exit (implemented
/// in `lifecycle.rs`, which owns what thread exit does to locks).
pub(crate) struct Registration {
    pub(crate) state: Arc<ThreadState>,
    /// Dropped after `Registration`'s own `Drop` (fields drop after it), so
    /// the exit release still finds the cached state; then clears it.
    _uncache: Uncache,
}

/// Clears the lock-stack's cached pointer to the registration's state when
/// the registration goes: from then on `current_ptr` finds the orphan (or
/// kept) identity, and nothing dereferences the freed registration.
struct Uncache;

impl Drop for Uncache {
    fn drop(&mut self) {
        use core::ptr::null;
        let _ = try_with_lock_stack(|ls| ls.set_current(null(), null(), null(), 0));
    }
}

#[cfg(not(loom))]
std::thread_local! {
    static REGISTRATION: OnceCell<Registration> = const { OnceCell::new() };
    static ORPHAN: Cell<*const Arc<ThreadState>> = const { Cell::new(core::ptr::null()) };
}

#[cfg(loom)]
loom::thread_local! {
    static LOCK_STACK: LockStack = LockStack::new();
    static REGISTRATION: OnceCell<Registration> = OnceCell::new();
    static ORPHAN: Cell<*const Arc<ThreadState>> = Cell::new(core::ptr::null());
}

/// Runs `f` on the current thread's lock-stack (its thread block,
/// [`crate::thread::current`]). The fast paths' only thread-local access.
#[cfg(not(loom))]
#[inline(always)]
pub(crate) fn with_lock_stack<R>(f: impl FnOnce(&LockStack) -> R) -> R {
    f(crate::thread::current())
}

/// Under loom the block is a loom thread-local (one per modelled thread).
#[cfg(loom)]
#[inline(always)]
pub(crate) fn with_lock_stack<R>(f: impl FnOnce(&LockStack) -> R) -> R {
    let p: *const LockStack = LOCK_STACK.with(|ls| ls as *const LockStack);
    // SAFETY: the thread-local is this thread's and is destroyed only when
    // the thread exits, which cannot happen while this thread runs `f`;
    // the reference does not escape `f`, and `LockStack` is `!Sync`.
    f(unsafe { &*p })
}

/// Like [`with_lock_stack`] but `None` if this thread's thread-locals are
/// gone (only under loom, whose block has a destructor slot; the real
/// block has no destructor and is always there).
#[cfg(not(loom))]
#[inline]
pub(crate) fn try_with_lock_stack<R>(f: impl FnOnce(&LockStack) -> R) -> Option<R> {
    Some(f(crate::thread::current()))
}

/// See the non-loom version.
#[cfg(loom)]
#[inline]
pub(crate) fn try_with_lock_stack<R>(f: impl FnOnce(&LockStack) -> R) -> Option<R> {
    LOCK_STACK.try_with(f).ok()
}

#[cfg(not(loom))]
fn global_mode() -> LockingMode {
    super::settings::LOCKING_MODE.get()
}

#[cfg(loom)]
fn global_mode() -> LockingMode {
    LockingMode::Lightweight
}

fn thread_mode(mode: LockingMode) -> ThreadMode {
    match mode {
        LockingMode::Monitor => ThreadMode::Monitor,
        LockingMode::Legacy => ThreadMode::Legacy,
        LockingMode::Lightweight => ThreadMode::Lightweight,
    }
}

fn register() -> Registration {
    let state = Arc::new(ThreadState::new_for_current_thread());
    with_lock_stack(|ls| {
        if ls.mode() == ThreadMode::Unregistered {
            ls.set_mode(thread_mode(global_mode()));
        }
    });
    Registration {
        state,
        _uncache: Uncache,
    }
}

/// A pointer to the current thread's state, registering it on first use.
/// Valid until this thread exits (it points into this thread's registration,
/// or to a leaked orphan state).
#[cold]
#[inline(never)]
fn current_ptr() -> *const Arc<ThreadState> {
    if let Ok(p) = REGISTRATION.try_with(|cell| &cell.get_or_init(register).state as *const Arc<ThreadState>)
    {
        cache_current(p);
        return p;
    }
    // The registration was already destroyed (we are called from a later
    // thread-local destructor): an orphan state, created once and leaked.
    let existing = ORPHAN.try_with(|o| o.get()).unwrap_or(core::ptr::null());
    if !existing.is_null() {
        cache_current(existing);
        return existing;
    }
    let p: *const Arc<ThreadState> = Box::leak(Box::new(Arc::new(ThreadState::new_for_current_thread())));
    let _ = ORPHAN.try_with(|o| o.set(p));
    let _ = try_with_lock_stack(|ls| {
        if ls.is_empty() {
            ls.set_mode(ThreadMode::Exited);
        }
    });
    cache_current(p);
    p
}

/// Remembers `p` in the thread block for the inline inflated paths and
/// [`with_current`]. `p` points into
/// the live registration (uncached by its destructor, see [`Uncache`]) or to
/// a leaked orphan state, which is never freed.
fn cache_current(p: *const Arc<ThreadState>) {
    // SAFETY: `p` is valid (see above).
    let state: &ThreadState = unsafe { &*p };
    let critical: *const Critical = &*state.critical;
    let id = state.id;
    let state: *const ThreadState = state;
    let _ = try_with_lock_stack(|ls| ls.set_current(p, state, critical, id));
}

/// Runs `f` with the current thread's state (registering it if needed),
/// inside a critical section: every slow path comes through here, so a
/// monitor it reads from a header is not freed under it. Always inlined:
/// the slow paths' dispatch calls it once per protocol, and a call would
/// cost each of them a frame around the critical section.
#[inline(always)]
pub(crate) fn with_current<R>(f: impl FnOnce(&Arc<ThreadState>) -> R) -> R {
    let cached = try_with_lock_stack(|ls| ls.current()).unwrap_or(core::ptr::null());
    let p = if cached.is_null() { current_ptr() } else { cached };
    // SAFETY: `current_ptr` (and the cache it fills) returns a pointer into
    // this thread's live registration (which is only destroyed by this thread's exit, after
    // which no code of this thread calls us with a live registration), or
    // to a leaked orphan state that is never freed. Either outlives `f`.
    let me = unsafe { &*p };
    me.in_critical(|| f(me))
}

/// A `SynchronizedGuard` taken by a slow path now holds the header at `addr`
/// (module docs). At most one per header: `Synchronized::lock` refuses a
/// header already held. (The fast path marks its lock-stack entry instead.)
pub(crate) fn note_data_guard_taken(addr: usize) {
    with_lock_stack(|ls| ls.note_guarded_elsewhere(addr));
}

/// The `SynchronizedGuard` on the header at `addr` is being dropped the slow way
/// (or the header itself is, after the guard was forgotten): forget it.
pub(crate) fn note_data_guard_dropped(addr: usize) {
    let _ = try_with_lock_stack(|ls| ls.forget_guard(addr));
}

/// Thread exit: the headers the thread-exit release must leave locked (held
/// through live `SynchronizedGuard`s). Frees the list's buffer when it is empty.
pub(crate) fn take_data_guarded_at_exit() -> Vec<usize> {
    try_with_lock_stack(|ls| ls.guarded_objects()).unwrap_or_default()
}

/// Thread exit with locks left held by live `SynchronizedGuard`s: whatever this
/// thread runs after its registration is gone (later thread-local
/// destructors, which drop those guards) runs as `state`, so that it still
/// owns those locks and can release them. Leaks one `Arc` clone, and only
/// for a thread that exits with a live `SynchronizedGuard`.
pub(crate) fn keep_identity_after_exit(state: &Arc<ThreadState>) {
    let p: *const Arc<ThreadState> = Box::leak(Box::new(state.clone()));
    let _ = ORPHAN.try_with(|o| o.set(p));
}

/// Records in the calling thread's block that it is about to own a monitor
/// (see [`may_own_monitors`]). The inline inflated enter sets the block's
/// flag itself.
#[inline]
pub(crate) fn note_monitor_owner() {
    let _ = try_with_lock_stack(|ls| ls.may_own_monitors.set(true));
}

/// Whether the calling thread may own a monitor: set before it first owns
/// one, so that thread exit skips the registry scan for threads that only
/// ever fast-locked. Only this thread reads or writes it.
pub(crate) fn may_own_monitors() -> bool {
    try_with_lock_stack(|ls| ls.may_own_monitors.get()).unwrap_or(true)
}

/// Makes sure the thread is registered (so that its exit releases what it
/// holds).
pub(crate) fn ensure_registered() {
    if with_lock_stack(|ls| ls.current().is_null()) {
        let _ = current_ptr();
    }
}

/// A handle on a thread known to `sync`, for [`interrupt`] and
/// for identifying monitor owners.
#[derive(Clone)]
pub struct SyncThread(pub(crate) Arc<ThreadState>);

impl SyncThread {
    /// The id the thread has as a monitor owner.
    pub fn id(&self) -> usize {
        self.0.id
    }

    /// Whether the thread's interrupt status is set (does not clear it).
    pub fn is_interrupted(&self) -> bool {
        // Acquire: pairs with the interrupter's store, like a status read.
        self.0.interrupted.load(Ordering::Acquire) != 0
    }
}

impl core::fmt::Debug for SyncThread {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SyncThread").field("id", &self.0.id).finish()
    }
}

/// The current thread's handle (registering it if needed).
pub fn current_sync_thread() -> SyncThread {
    with_current(|t| SyncThread(t.clone()))
}

/// Chooses the locking mode for the current thread, overriding
/// `FASTPATH_LOCKING_MODE` (lets one process exercise several modes; objects
/// may be shared between threads of different modes, because a monitor-mode
/// thread meeting a fast-locked object inflates it like any contender).
/// Fails with [`SyncError::IllegalMonitorState`] if the thread holds
/// fast-locks or raw-API stack-locks (their lock-stack entries or records
/// would be orphaned). Locks held through a [`HeaderGuard`](super::HeaderGuard) or a
/// caller's [`LockRecord`](super::LockRecord) in legacy mode carry their
/// record, so they do not stop a switch.
pub fn set_current_thread_locking_mode(mode: LockingMode) -> Result<(), SyncError> {
    ensure_registered();
    with_lock_stack(|ls| {
        if !ls.is_empty() || !super::record::raw_is_empty() {
            return Err(SyncError::IllegalMonitorState);
        }
        ls.set_mode(thread_mode(mode));
        Ok(())
    })
}

/// The mode the current thread runs: its block's mode (an exited thread's
/// later locks are monitors), or for a thread not registered yet the
/// process-wide `FASTPATH_LOCKING_MODE` it will register with.
pub fn current_thread_locking_mode() -> LockingMode {
    match with_lock_stack(|ls| ls.mode()) {
        ThreadMode::Lightweight => LockingMode::Lightweight,
        ThreadMode::Legacy => LockingMode::Legacy,
        ThreadMode::Monitor | ThreadMode::Exited => LockingMode::Monitor,
        ThreadMode::Unregistered => global_mode(),
    }
}

/// `Thread.interrupt`: sets `thread`'s interrupt status and, if it is
/// blocked in `wait`, makes that wait return [`SyncError::Interrupted`]
/// (after re-acquiring the lock); a thread in [`park`](super::park)
/// returns. A thread blocked in `lock` is not
/// affected (as in Java). The status stays set until a `wait` consumes it
/// or [`interrupted`] clears it.
pub fn interrupt(thread: &SyncThread) {
    // SeqCst: ordered before the unpark below and the waiter's check, so a
    // waiter either sees the flag before parking or is woken. A swap rather
    // than a store: the same on hardware, but loom mis-orders a plain store
    // racing an RMW on the same word (tokio-rs/loom#254, #389) and would
    // report a lost interrupt that cannot happen.
    thread.0.interrupted.swap(1, Ordering::SeqCst);
    thread.0.park.unpark();
    // After the status: a thread in `sync::park` wakes to find it set.
    thread.0.parker.unpark();
}

/// `Thread.interrupted()`: returns and clears the current thread's
/// interrupt status.
pub fn interrupted() -> bool {
    // AcqRel: consumes the interrupter's store.
    with_current(|me| me.interrupted.swap(0, Ordering::AcqRel) != 0)
}
