//! The safe API: a guard from [`lock`], `wait`/`notify`/`notify_all` on it,
//! and [`Synchronized<T>`], a value with its own header (Java's
//! `synchronized` block, `Object.wait/notify`, `Thread.holdsLock`).
//!
//! Where it sits: on top of [`super::synchronizer`]'s raw
//! `enter`/`exit`, adding the borrow that keeps the object alive and pinned
//! while held.
//!
//! ```
//! use std::pin::pin;
//! use fastpath::sync::{self, Header};
//!
//! let obj = pin!(Header::new());
//! let hash = sync::identity_hash(&obj);
//! {
//!     let g = sync::lock(obj.as_ref());
//!     let again = sync::lock(obj.as_ref()); // reentrant
//!     assert!(sync::holds_lock(&obj));
//!     assert_eq!(g.notify(), Ok(0)); // nobody waits
//!     drop(again);
//! }
//! assert!(!sync::holds_lock(&obj));
//! assert_eq!(sync::identity_hash(&obj), hash);
//! assert!(!obj.is_inflated()); // uncontended: never left the lock-stack
//! ```

use core::cell::UnsafeCell;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};
use core::pin::Pin;
use std::time::Duration;

use super::error::SyncError;
use super::header::{Header, LOCK_MASK, NEUTRAL, OWN_WORD_BIT};
use super::lock_stack::{GuardedEnter, LockStack};
use super::record::LockRecord;
use super::synchronizer::{self, Exclusive};
use super::thread;

/// Holds `obj` until dropped; reentrant: a thread may hold several guards
/// on one object. Not `Send`: a lock is released by the thread that took it.
#[must_use = "the lock is released when the guard is dropped"]
pub struct HeaderGuard<'a> {
    obj: Pin<&'a Header>,
    /// The lock record this guard owns when it was taken in legacy mode
    /// (an arena record: a guard moves, its record must not); null when the
    /// lock is on the lock-stack or in a monitor.
    record: *const LockRecord,
    _not_send: PhantomData<*const ()>,
}

/// Acquires `obj` (blocking while another thread holds it).
#[inline]
pub fn lock(obj: Pin<&Header>) -> HeaderGuard<'_> {
    // Waiting never fails: always `Some`.
    let record = synchronizer::enter_guard(obj.get_ref(), true).unwrap_or(core::ptr::null());
    HeaderGuard {
        obj,
        record,
        _not_send: PhantomData,
    }
}

/// Acquires `obj` if that needs no waiting (see [`try_enter`](crate::sync::try_enter)):
/// `None` if another thread holds it. Reentrant like [`lock`]: a thread
/// that holds `obj` gets another guard.
#[inline]
pub fn try_lock(obj: Pin<&Header>) -> Option<HeaderGuard<'_>> {
    let record = synchronizer::enter_guard(obj.get_ref(), false)?;
    Some(HeaderGuard {
        obj,
        record,
        _not_send: PhantomData,
    })
}

impl HeaderGuard<'_> {
    /// The object held.
    pub fn header(&self) -> Pin<&Header> {
        self.obj
    }

    /// `Object.wait`: see [`crate::sync::wait`]. On return (any result) the
    /// lock is held again at the same depth.
    pub fn wait(&self, timeout: Option<Duration>) -> Result<(), SyncError> {
        synchronizer::wait(self.obj, timeout)
    }

    /// Waits until `condition` is false, re-checking after every wake-up
    /// (the loop every correct `wait` caller writes). `Err` on timeout
    /// (measured per wait) or interruption.
    pub fn wait_while(
        &self,
        mut condition: impl FnMut() -> bool,
        timeout: Option<Duration>,
    ) -> Result<(), SyncError> {
        while condition() {
            self.wait(timeout)?;
        }
        Ok(())
    }

    /// `Object.notify`: returns how many waiters were moved (0 or 1).
    pub fn notify(&self) -> Result<usize, SyncError> {
        synchronizer::notify(self.obj, false)
    }

    /// `Object.notifyAll`: returns how many waiters were moved.
    pub fn notify_all(&self) -> Result<usize, SyncError> {
        synchronizer::notify(self.obj, true)
    }
}

impl Drop for HeaderGuard<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        // Releases one level of the object. Only fails if the runtime also
        // used the raw `exit` on this object and unbalanced it, or the
        // thread-exit release already released it; nothing is left to undo
        // then.
        let _ = synchronizer::exit_guard(self.obj.get_ref(), self.record);
    }
}

/// `Object.wait` without a guard (the caller holds `obj` some other way,
/// e.g. the raw API).
pub fn wait(obj: Pin<&Header>, timeout: Option<Duration>) -> Result<(), SyncError> {
    synchronizer::wait(obj, timeout)
}

/// `Object.notify` without a guard.
pub fn notify(obj: Pin<&Header>) -> Result<usize, SyncError> {
    synchronizer::notify(obj, false)
}

/// `Object.notifyAll` without a guard.
pub fn notify_all(obj: Pin<&Header>) -> Result<usize, SyncError> {
    synchronizer::notify(obj, true)
}

/// A value guarded by its own header: Java's `synchronized` object in one
/// type. Pin it (`Box::pin`, `Arc::pin`, `pin!`) to lock it.
///
/// ```
/// use std::sync::Arc;
/// use fastpath::sync::Synchronized;
///
/// let counter = Arc::pin(Synchronized::new(0u64));
/// let c2 = counter.clone();
/// let t = std::thread::spawn(move || {
///     for _ in 0..1000 { *c2.as_ref().lock().unwrap() += 1; }
/// });
/// for _ in 0..1000 { *counter.as_ref().lock().unwrap() += 1; }
/// t.join().unwrap();
/// let g = counter.as_ref().lock().unwrap();
/// assert_eq!(*g, 2000);
/// assert!(counter.as_ref().lock().is_err()); // not reentrant: would alias
/// ```
pub struct Synchronized<T> {
    header: Header,
    value: UnsafeCell<T>,
}

// SAFETY: the value is only reached through a `SynchronizedGuard`, which exists
// only while the current thread holds the header's lock: access is
// exclusive, as with `std::sync::Mutex<T>` (same bounds).
unsafe impl<T: Send> Sync for Synchronized<T> {}
// SAFETY: moving the whole value moves its header, which is unlocked (a
// lock borrows it, pinned).
unsafe impl<T: Send> Send for Synchronized<T> {}

impl<T> Synchronized<T> {
    /// `value` behind a fresh header.
    pub fn new(value: T) -> Synchronized<T> {
        Synchronized {
            header: Header::new(),
            value: UnsafeCell::new(value),
        }
    }

    /// The header, for [`identity_hash`](crate::sync::identity_hash),
    /// [`holds_lock`](crate::sync::holds_lock) and
    /// [`Header::lock_state`].
    ///
    /// Deliberately an unpinned `&Header`: the raw API ([`enter`](crate::sync::enter),
    /// [`exit`](crate::sync::exit), [`wait`](crate::sync::wait), [`lock`])
    /// takes `Pin<&Header>`, so it cannot be used on a `Synchronized`. A raw
    /// `exit` or `wait` would release the lock under a live [`SynchronizedGuard`] and
    /// let another thread take a second `&mut T`.
    ///
    /// ```compile_fail
    /// use fastpath::sync::{self, Synchronized};
    /// let s = Box::pin(Synchronized::new(0));
    /// let mut g = s.as_ref().lock().unwrap();
    /// sync::exit(s.as_ref().header()).unwrap(); // would unlock under `g`
    /// *g += 1;
    /// ```
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The header, pinned: only for this module's own locking.
    fn pinned_header(self: Pin<&Self>) -> Pin<&Header> {
        // SAFETY: structural pinning of `header`: Synchronized never moves
        // it out, and it is !Unpin so Synchronized is too.
        unsafe { self.map_unchecked(|s| &s.header) }
    }

    /// Locks and gives access to the value. Unlike a bare [`Header`] this
    /// is not reentrant, since two guards would be two `&mut T`: locking it
    /// again on a thread that holds it returns [`SyncError::AlreadyHeld`].
    ///
    /// The fast path is the raw lock's (one CAS, one lock-stack push) plus a
    /// mark on the entry: whether the thread already holds it is read off
    /// the lock-stack, and the entry's mark is what the thread-exit release
    /// keeps (see [`SynchronizedGuard`]). Anything else takes the slow path.
    #[inline]
    pub fn lock(self: Pin<&Self>) -> Result<SynchronizedGuard<'_, T>, SyncError> {
        thread::with_lock_stack(|ls| self.lock_in(ls))
    }

    /// [`lock`](Self::lock) with the current thread's block passed in, for
    /// runtimes that carry their thread (see [`super::enter_on`]): the
    /// lock's fast path makes no thread-local access (the guard's drop
    /// finds the block itself).
    #[inline]
    pub fn lock_on(
        self: Pin<&Self>,
        thread: &crate::thread::ThreadBlock,
    ) -> Result<SynchronizedGuard<'_, T>, SyncError> {
        synchronizer::debug_assert_current(thread);
        self.lock_in(thread)
    }

    #[inline(always)]
    fn lock_in(self: Pin<&Self>, ls: &LockStack) -> Result<SynchronizedGuard<'_, T>, SyncError> {
        match ls.try_fast_enter_guarded(self.pinned_header().get_ref()) {
            GuardedEnter::Acquired(held) => Ok(self.thin_guard(held)),
            GuardedEnter::AlreadyHeld => Err(SyncError::AlreadyHeld),
            GuardedEnter::Slow => self.lock_slow(false),
        }
    }

    /// `lock` (or `try_lock` when `try_only`) past the lock-stack fast
    /// path: the synchronizer's exclusive enter (an inflated object's
    /// monitor in one attempt, marked there as held through a guard, which
    /// the thread-exit release keeps; anything else its cold path's).
    /// The out-of-line part returns two words in registers
    /// ([`lock_slow_words`](Self::lock_slow_words)); a
    /// `Result<SynchronizedGuard, SyncError>` would come back through memory (its
    /// error variant keeps it from being a pair of scalars), which made the
    /// fast path store every guard it built into that memory too.
    #[inline(always)]
    fn lock_slow(self: Pin<&Self>, try_only: bool) -> Result<SynchronizedGuard<'_, T>, SyncError> {
        match self.lock_slow_words(try_only) {
            (SLOW_OK, how) => Ok(SynchronizedGuard {
                sync: self,
                how,
                _not_send: PhantomData,
            }),
            (_, error) => Err(error_from_word(error)),
        }
    }

    /// [`lock_slow`](Self::lock_slow)'s work: `(SLOW_OK, how)` (the guard's
    /// [`SynchronizedGuard::how`]) or `(SLOW_ERR, error)` ([`error_word`]).
    /// Not cold: once an object has been inflated, every lock of it comes
    /// here; and no call but the slow path's tail call, so nothing to save.
    /// Out of line: inlined into `lock`, it cost the thin pair 14
    /// instructions (88 against 74 in `guard_pair`'s loop).
    #[inline(never)]
    fn lock_slow_words(self: Pin<&Self>, try_only: bool) -> (usize, usize) {
        match synchronizer::enter_exclusive(self.pinned_header().get_ref(), !try_only) {
            Ok(Exclusive::OnMonitor) => (SLOW_OK, self.guard(core::ptr::null(), true).into_how()),
            Ok(Exclusive::Listed(record)) => (SLOW_OK, self.guard(record, false).into_how()),
            Err(e) => (SLOW_ERR, error_word(e)),
        }
    }

    /// The guard of a lock a slow path took (`record` as `HeaderGuard`
    /// keeps it; `on_monitor`: [`Exclusive::OnMonitor`]). Without a record
    /// the lock may be on the lock-stack (a fast-lock spin won it): the
    /// guard keeps the fast-locked neutral word, its exit's guess.
    #[inline(always)]
    fn guard(self: Pin<&Self>, record: *const LockRecord, on_monitor: bool) -> SynchronizedGuard<'_, T> {
        debug_assert!(record.is_null() || !on_monitor, "a monitor lock has no record");
        SynchronizedGuard {
            sync: self,
            how: if on_monitor {
                ON_MONITOR
            } else if record.is_null() {
                NEUTRAL_FAST_LOCKED
            } else {
                record as usize
            },
            _not_send: PhantomData,
        }
    }

    /// The guard of a lock the lock-stack fast path took, the header
    /// fast-locked to `held` ([`GuardedEnter::Acquired`]).
    #[inline(always)]
    fn thin_guard(self: Pin<&Self>, held: usize) -> SynchronizedGuard<'_, T> {
        debug_assert!(held & OWN_WORD_BIT != 0, "a fast-locked word is an own word");
        SynchronizedGuard {
            sync: self,
            how: held,
            _not_send: PhantomData,
        }
    }

    /// [`lock`](Self::lock) if that needs no waiting (parking_lot's and
    /// std's `try_lock`): [`SyncError::WouldBlock`] if another thread holds
    /// it, [`SyncError::AlreadyHeld`] if this thread does.
    #[inline]
    pub fn try_lock(self: Pin<&Self>) -> Result<SynchronizedGuard<'_, T>, SyncError> {
        let header = self.pinned_header();
        // The fast path is one attempt already.
        match thread::with_lock_stack(|ls| ls.try_fast_enter_guarded(header.get_ref())) {
            GuardedEnter::Acquired(held) => Ok(self.thin_guard(held)),
            GuardedEnter::AlreadyHeld => Err(SyncError::AlreadyHeld),
            GuardedEnter::Slow => self.lock_slow(true),
        }
    }

    /// The value, when nobody can hold the lock.
    pub fn into_inner(self) -> T {
        self.value.into_inner()
    }
}

/// Access to a [`Synchronized`] value while its lock is held.
///
/// Thread exit releases the locks a thread still holds (see
/// [`crate::sync`]), but never one held through a live `SynchronizedGuard`: a guard
/// kept in a thread-local whose destructor runs after that release still
/// owns its lock, and releases it when dropped. A guard that is never
/// dropped (`mem::forget`, a leaked box) leaves the value locked forever,
/// like a forgotten `std::sync::MutexGuard`.
#[must_use = "the lock is released when the guard is dropped"]
pub struct SynchronizedGuard<'a, T> {
    /// What is locked; the guard releases it in its own `Drop`.
    sync: Pin<&'a Synchronized<T>>,
    /// How the lock was taken: on the lock-stack (its entry marked) or by
    /// a slow path that listed the header, a fast-locked word (bit 63 set,
    /// [`OWN_WORD_BIT`]): the one the fast path stored, or the neutral
    /// word fast-locked as a slow path's guess, which the fast exit's CAS
    /// expects (no address has bit 63 set); [`ON_MONITOR`] on an inflated
    /// object's monitor, marked there ([`Exclusive::OnMonitor`]: the drop
    /// goes straight to the monitor; the object stays inflated while the
    /// guard lives, as an owned monitor is not deflated and thread exit
    /// keeps it owned); else the address of the legacy lock record the
    /// guard owns. One word, so that the guard is two and
    /// `Result<SynchronizedGuard, SyncError>` comes back from the out-of-line lock
    /// paths in registers.
    how: usize,
    /// Not `Send`: a lock is released by the thread that took it.
    _not_send: PhantomData<*const ()>,
}

/// [`SynchronizedGuard::how`] of a guard on a monitor (records are aligned, so no
/// record is at this address).
const ON_MONITOR: usize = 1;

/// [`SynchronizedGuard::how`] of a guard a slow path took without a record:
/// the word of a never-hashed object, fast-locked (the guess the raw fast
/// paths make too).
const NEUTRAL_FAST_LOCKED: usize = NEUTRAL & !LOCK_MASK;

/// [`Synchronized::lock_slow_words`]'s first word: a guard's `how` follows.
const SLOW_OK: usize = 1;
/// [`Synchronized::lock_slow_words`]'s first word: an error follows.
const SLOW_ERR: usize = 0;

/// A [`SyncError`] as a word, for [`Synchronized::lock_slow_words`].
#[inline(always)]
fn error_word(e: SyncError) -> usize {
    e as usize
}

/// The [`SyncError`] [`error_word`] made `w` from.
#[cold]
fn error_from_word(w: usize) -> SyncError {
    [
        SyncError::IllegalMonitorState,
        SyncError::Interrupted,
        SyncError::TimedOut,
        SyncError::AlreadyHeld,
        SyncError::WouldBlock,
    ]
    .into_iter()
    .find(|&e| error_word(e) == w)
    .unwrap_or(SyncError::IllegalMonitorState)
}

impl<T> SynchronizedGuard<'_, T> {
    /// The guard's `how`, the guard itself forgotten (its lock stays held:
    /// [`Synchronized::lock_slow`] builds the same guard again from it).
    #[inline(always)]
    fn into_how(self) -> usize {
        let how = self.how;
        core::mem::forget(self);
        how
    }

    /// `Object.wait`; see [`HeaderGuard::wait`]. The value may have changed when
    /// it returns.
    pub fn wait(&mut self, timeout: Option<Duration>) -> Result<(), SyncError> {
        synchronizer::wait(self.sync.pinned_header(), timeout)
    }

    /// Waits while `condition(value)` holds.
    pub fn wait_while(
        &mut self,
        mut condition: impl FnMut(&mut T) -> bool,
        timeout: Option<Duration>,
    ) -> Result<(), SyncError> {
        loop {
            // SAFETY: we hold the lock (see `Deref`).
            if !condition(unsafe { &mut *self.sync.value.get() }) {
                return Ok(());
            }
            self.wait(timeout)?;
        }
    }

    /// `Object.notify`.
    pub fn notify(&self) -> Result<usize, SyncError> {
        synchronizer::notify(self.sync.pinned_header(), false)
    }

    /// `Object.notifyAll`.
    pub fn notify_all(&self) -> Result<usize, SyncError> {
        synchronizer::notify(self.sync.pinned_header(), true)
    }
}

impl<T> Drop for SynchronizedGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        let h = &self.sync.get_ref().header;
        // The thin attempt first even for a guard on a monitor (it fails
        // in a few instructions there): testing `on_monitor` first cost the
        // thin pair 5 instructions.
        if !thread::with_lock_stack(|ls| ls.try_fast_exit_guarded(h, self.how)) {
            unlock_not_fast(h, self.how);
        }
        // Else unlocked, popped, mark cleared.
    }
}

/// A `SynchronizedGuard`'s release past the lock-stack: the synchronizer's
/// exclusive exit, told how the lock is held. Out of line so that the
/// guard's `Drop` inlines; not cold: every unlock of an inflated object
/// comes here.
#[inline(never)]
fn unlock_not_fast(h: &Header, how: usize) {
    synchronizer::exit_exclusive(
        h,
        if how == ON_MONITOR {
            Exclusive::OnMonitor
        } else if how & OWN_WORD_BIT != 0 {
            Exclusive::Listed(core::ptr::null()) // a fast-locked word, no record
        } else {
            Exclusive::Listed(how as *const LockRecord)
        },
    );
}

impl<T> Deref for SynchronizedGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard proves the current thread holds the lock; other
        // threads cannot get a guard until it is released, and this thread
        // cannot get a second one (`lock` refuses a held object). So this
        // guard's access is exclusive.
        unsafe { &*self.sync.value.get() }
    }
}

impl<T> DerefMut for SynchronizedGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`.
        unsafe { &mut *self.sync.value.get() }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{error_from_word, error_word, SyncError};

    /// Every error survives the slow lock path's two-word return.
    #[test]
    fn errors_round_trip_through_a_word() {
        for e in [
            SyncError::IllegalMonitorState,
            SyncError::Interrupted,
            SyncError::TimedOut,
            SyncError::AlreadyHeld,
            SyncError::WouldBlock,
        ] {
            assert_eq!(error_from_word(error_word(e)), e);
        }
    }
}
