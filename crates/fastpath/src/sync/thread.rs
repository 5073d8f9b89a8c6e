//! Per-thread state: the thread's id, lock-stack, park event and interrupt
//! flag (HotSpot keeps these in `JavaThread`).
//!
//! Where it sits: under [`super::synchronizer`]. The lock-stack is what the
//! fast paths touch, so it lives in the thread block ([`crate::thread`]):
//! static TLS with no destructor, one TLS-relative address, no lazy
//! initialisation check. Everything else is a [`ThreadState`] behind an `Arc`
//! (other threads unpark and interrupt it), registered lazily by the first
//! slow path: a fresh thread's block is unregistered, its lock-stack `top`
//! out of range, which fails the fast paths' bounds check, so the first
//! lock of every thread registers it at no cost to later locks. The block
//! also caches, once the thread registers, a pointer to its state, its
//! owner id, and for the inline inflated paths the state and its
//! critical-section word again ([`inline_current`]: null for a legacy-mode
//! thread, so that one test says "registered, and not legacy"). The
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
//! [`SyncGuard`](super::SyncGuard) (which hands out `&mut T`) is *not*
//! released. Such a guard can outlive the release in a thread-local whose
//! destructor runs later; releasing under it would let another thread take a
//! second `&mut T` while the destructor still writes through the first. So
//! each thread knows the headers it holds through live `SyncGuard`s, and the
//! exit release leaves them locked, moved into monitors owned by the thread.
//! Kept cheaply: `Synchronized::lock`'s fast path marks its lock-stack entry
//! (one bit beside the entry; the guard's drop clears it with the pop); on
//! an inflated object it marks the monitor it acquires (an owner-only word
//! beside `recursions`, cleared by the guard's drop before the monitor's
//! exit), which the exit release reads as it walks the monitors it owns.
//! Only the other slow paths, or an inflation that moves a marked entry off
//! the stack, list the header ([`note_data_guard_taken`] /
//! [`note_data_guard_dropped`]); the raw and `Guard` paths touch none of
//! these. A guard dropped later releases its lock
//! normally: the thread keeps its identity (the orphan state *is* the
//! exiting thread's state) so it still owns the monitor. A guard that is
//! never dropped (`mem::forget`) leaves its value locked forever, as a
//! forgotten `std::sync::MutexGuard` does; dropping that value later, from
//! another thread, leaks its monitor rather than abort. A plain `Guard`
//! protects no data, so its object is released as before and its late drop
//! finds nothing to release (an ignored `IllegalMonitorState`).

use core::cell::{Cell, OnceCell};
use std::sync::Arc;

use super::atomic::{AtomicU32, Ordering};
use super::lock_stack::LockStack;
use super::park::ParkEvent;
use super::reclaim::Critical;
use super::settings::LockingMode;
use crate::thread::ThreadMode;

/// Monitor owner value: no owner.
pub(crate) const NO_OWNER: usize = 0;
/// Monitor owner value: fast-locked by a thread not yet known (the
/// contender that inflated does not know who holds the lock).
pub(crate) const ANONYMOUS_OWNER: usize = 1;
/// Monitor owner tag: the rest of the word is the address of the lock
/// record that stack-locked the object before a contender inflated it
/// (thread ids never reach bit 63).
pub(crate) const RECORD_OWNER: usize = 1 << 63;
/// Monitor owner value while the deflater takes the monitor away (HotSpot
/// `DEFLATER_MARKER`): every `try_lock` fails on it.
pub(crate) const DEFLATER_MARKER: usize = 2;
/// The first id handed to a thread.
const FIRST_THREAD_ID: usize = 3;

/// Ids are never reused (64-bit counter). A std atomic even under loom: it
/// only has to be unique.
static NEXT_ID: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(FIRST_THREAD_ID);

/// The shared part of a thread's state.
pub(crate) struct ThreadState {
    /// Monitor owner id (≥ 3).
    pub(crate) id: usize,
    /// Blocks this thread.
    pub(crate) park: ParkEvent,
    /// `Thread.interrupt` status: 1 if interrupted.
    pub(crate) interrupted: AtomicU32,
    /// Set once the thread has owned any monitor; lets thread exit skip the
    /// registry scan for threads that only ever fast-locked. Only this
    /// thread writes it (std atomic: no synchronization, not modelled).
    may_own_monitors: std::sync::atomic::AtomicBool,
    /// The thread's critical-section state (monitor reclamation).
    pub(crate) critical: Arc<Critical>,
}

impl ThreadState {
    fn new_for_current_thread() -> ThreadState {
        ThreadState {
            // Relaxed: ids only need to be unique.
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            park: ParkEvent::for_current_thread(),
            interrupted: AtomicU32::new(0),
            may_own_monitors: std::sync::atomic::AtomicBool::new(false),
            critical: Critical::new_registered(),
        }
    }

    /// Runs `f` inside a critical section: monitors read from headers stay
    /// allocated until it returns (see `reclaim.rs`).
    #[inline]
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

    /// Records that this thread (the caller) is about to own a monitor.
    #[inline]
    pub(crate) fn note_monitor_owner(&self) {
        // Relaxed: written and read only by this thread.
        self.may_own_monitors
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether this thread may own a monitor (see `note_monitor_owner`).
    pub(crate) fn may_own_monitors(&self) -> bool {
        // Relaxed: as above.
        self.may_own_monitors.load(std::sync::atomic::Ordering::Relaxed)
    }
}

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

/// Remembers `p` in the lock-stack for [`inline_current`] and
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

/// What the inline inflated paths run with: the current thread's state and
/// its critical-section word, if it is registered and not a legacy-mode
/// thread (two loads from the lock-stack the caller holds, one null test).
/// `None`: take the slow path, which registers or runs the legacy protocol
/// (a legacy thread's raw enter takes a record first and its exit pops one,
/// so it never uses the inline paths).
#[inline(always)]
pub(crate) fn inline_current(ls: &LockStack) -> Option<(&ThreadState, &Critical)> {
    let (state, critical) = ls.inline_state();
    if state.is_null() {
        return None;
    }
    // SAFETY: both point into the state `cache_current` cached (its
    // `Arc<Critical>` keeps the second alive), valid while that cached
    // pointer is: the registration outlives every borrow of `ls` but the
    // exit release's, which runs before `Uncache` clears them; an orphan
    // state is never freed. `ls` is this thread's, borrowed for less than
    // the thread's life.
    unsafe { Some((&*state, &*critical)) }
}

/// Runs `f` with the current thread's state (registering it if needed),
/// inside a critical section: every slow path comes through here, so a
/// monitor it reads from a header is not freed under it.
#[inline]
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

/// A `SyncGuard` taken by a slow path now holds the header at `addr`
/// (module docs). At most one per header: `Synchronized::lock` refuses a
/// header already held. (The fast path marks its lock-stack entry instead.)
pub(crate) fn note_data_guard_taken(addr: usize) {
    with_lock_stack(|ls| ls.note_guarded_elsewhere(addr));
}

/// The `SyncGuard` on the header at `addr` is being dropped the slow way
/// (or the header itself is, after the guard was forgotten): forget it.
pub(crate) fn note_data_guard_dropped(addr: usize) {
    let _ = try_with_lock_stack(|ls| ls.forget_guard(addr));
}

/// Thread exit: the headers the thread-exit release must leave locked (held
/// through live `SyncGuard`s). Frees the list's buffer when it is empty.
pub(crate) fn take_data_guarded_at_exit() -> Vec<usize> {
    try_with_lock_stack(|ls| ls.guarded_objects()).unwrap_or_default()
}

/// Thread exit with locks left held by live `SyncGuard`s: whatever this
/// thread runs after its registration is gone (later thread-local
/// destructors, which drop those guards) runs as `state`, so that it still
/// owns those locks and can release them. Leaks one `Arc` clone, and only
/// for a thread that exits with a live `SyncGuard`.
pub(crate) fn keep_identity_after_exit(state: &Arc<ThreadState>) {
    let p: *const Arc<ThreadState> = Box::leak(Box::new(state.clone()));
    let _ = ORPHAN.try_with(|o| o.set(p));
}

/// Makes sure the thread is registered (so that its exit releases what it
/// holds).
pub(crate) fn ensure_registered() {
    if with_lock_stack(|ls| ls.current().is_null()) {
        let _ = current_ptr();
    }
}

/// A handle on a thread known to `sync`, for [`crate::sync::interrupt`] and
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
pub fn current_thread() -> SyncThread {
    with_current(|t| SyncThread(t.clone()))
}

/// Chooses the locking mode for the current thread, overriding
/// `FASTPATH_LOCKING_MODE` (lets one process exercise several modes; objects
/// may be shared between threads of different modes, because a monitor-mode
/// thread meeting a fast-locked object inflates it like any contender).
/// Fails with [`super::SyncError::IllegalMonitorState`] if the thread holds
/// fast-locks or raw-API stack-locks (their lock-stack entries or records
/// would be orphaned). Locks held through a [`Guard`](super::Guard) or a
/// caller's [`LockRecord`](super::LockRecord) in legacy mode carry their
/// record, so they do not stop a switch.
pub fn set_current_thread_locking_mode(mode: LockingMode) -> Result<(), super::SyncError> {
    ensure_registered();
    with_lock_stack(|ls| {
        if !ls.is_empty() || !super::record::raw_is_empty() {
            return Err(super::SyncError::IllegalMonitorState);
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
