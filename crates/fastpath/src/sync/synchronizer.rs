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
//! [`LockStack::try_fast_exit`] on the thread-local lock-stack. Anything
//! else is `#[cold]`:
//! - **Lightweight** (`LM_LIGHTWEIGHT`): a recursive enter on a full stack or
//!   an interleaved one (`[A, B]` + A) inflates A; an unlocked object is
//!   fast-locked after making room on the stack; a fast-locked one held by
//!   another thread is inflated with `ANONYMOUS_OWNER` and its monitor
//!   entered; a monitor is entered. Exit of an object held but not on top
//!   inflates it (unstructured locking, HotSpot TestUnstructuredLocking);
//!   exit that finds a monitor claims it from `ANONYMOUS_OWNER`.
//! - **Monitor** (`LM_MONITOR`): the thread's lock-stack is parked in the
//!   `MONITOR_ONLY` state, so its fast paths always fail, and every lock is a
//!   monitor.
//! - **Legacy** (`LM_LEGACY`, stack-locking with displaced headers): not
//!   implemented yet (a later issue); it runs as Lightweight, and
//!   [`super::current_thread_locking_mode`] reports Lightweight.
//!
//! A thread in one mode may meet objects locked by a thread in another:
//! every state a header can be in has a defined transition for each mode.

use core::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use super::atomic::{spin_pause, Ordering};
use super::header::{Header, Mark};
use super::inflate::{self, inflate_contended, inflate_owned, inflate_unlocked, monitor_of};
use super::lock_stack::{LockStack, MONITOR_ONLY};
use super::monitor::Monitor;
use super::stats::{self, InflateCause};
use super::thread::{self, ThreadState};
use super::SyncError;

/// `monitorenter`: acquires `obj` for the current thread (reentrant; blocks
/// while another thread holds it). Pair it with [`exit`] in any order the
/// runtime needs: unstructured locking works.
#[inline]
pub fn enter(obj: Pin<&Header>) {
    let h = obj.get_ref();
    if !thread::with_lock_stack(|ls| ls.try_fast_enter(h)) {
        enter_slow(h);
    }
}

/// `monitorexit`: releases one level of `obj`. Returns
/// [`SyncError::IllegalMonitorState`] (and changes nothing) if the current
/// thread does not hold it.
#[inline]
pub fn exit(obj: Pin<&Header>) -> Result<(), SyncError> {
    let h = obj.get_ref();
    if thread::with_lock_stack(|ls| ls.try_fast_exit(h)) {
        Ok(())
    } else {
        exit_slow(h)
    }
}

#[cold]
#[inline(never)]
fn enter_slow(obj: &Header) {
    thread::with_current(|me| {
        thread::with_lock_stack(|ls| {
            if ls.top_state() == MONITOR_ONLY {
                monitor_mode_enter(obj, me)
            } else {
                lightweight_enter(obj, me, ls)
            }
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
        inflate_owned(obj, me, ls, cause).enter(me); // recursive: never blocks
        return;
    }
    loop {
        // Acquire: if we see a monitor we read its fields next.
        let mark = obj.load(Ordering::Acquire);
        if mark.is_unlocked() {
            ensure_lock_stack_space(me, ls);
            // Acquire: as in the fast path.
            if obj
                .cas(mark, mark.set_fast_locked(), Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
            {
                ls.push(addr);
                return;
            }
        } else if mark.has_monitor() {
            monitor_of(obj, mark).enter(me);
            return;
        } else if mark.is_fast_locked() {
            if let Some(m) = inflate_contended(obj, mark) {
                m.enter(me);
                return;
            }
        } else {
            spin_pause(); // 11: a GC is working on the object
        }
    }
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
        if mark.has_monitor() {
            monitor_of(obj, mark).enter(me);
            return;
        } else if mark.is_unlocked() {
            if inflate_unlocked(obj, mark, me).is_some() {
                return; // installed owned by us: entered
            }
        } else if mark.is_fast_locked() {
            // A lightweight thread holds it: contend like any other thread.
            if let Some(m) = inflate_contended(obj, mark) {
                m.enter(me);
                return;
            }
        } else {
            spin_pause();
        }
    }
}

#[cold]
#[inline(never)]
fn exit_slow(obj: &Header) -> Result<(), SyncError> {
    thread::with_current(|me| thread::with_lock_stack(|ls| exit_with(obj, me, ls)))
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
                let m = monitor_of(obj, mark);
                let entries = ls.remove(addr);
                if m.is_anonymous() {
                    m.claim_anonymous(me, entries);
                }
                m.exit(me);
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
    // Acquire: we may read the monitor next.
    let mark = obj.load(Ordering::Acquire);
    if mark.has_monitor() {
        let m = monitor_of(obj, mark);
        if m.is_owned_by(me.id) {
            return Ok(Some(m));
        }
    }
    Err(SyncError::IllegalMonitorState)
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
    // Acquire: we may read the monitor next.
    let mark = obj.load(Ordering::Acquire);
    mark.has_monitor() && thread::with_current(|me| monitor_of(obj, mark).is_owned_by(me.id))
}

/// The object's identity hash: 31 bits, never 0, stable for the object's
/// life. Installed by CAS on first use; works while the object is unlocked,
/// fast-locked (without inflating, JDK 23) or inflated (in the displaced
/// header).
pub fn identity_hash(obj: &Header) -> u32 {
    loop {
        // Acquire: we may read the monitor next.
        let mark = obj.load(Ordering::Acquire);
        if mark.is_unlocked() || mark.is_fast_locked() {
            if mark.hash() != 0 {
                return mark.hash();
            }
            let hash = next_hash();
            // Relaxed: the hash publishes no other data; a failed CAS
            // (locking, inflation, another hash) reloads.
            if obj
                .cas(mark, mark.with_hash(hash), Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            {
                return hash;
            }
        } else if mark.has_monitor() {
            let m = monitor_of(obj, mark);
            // Relaxed: the displaced header only carries the hash; the CAS
            // below validates what we read.
            let mut displaced = Mark(m.header.load(Ordering::Relaxed));
            loop {
                if displaced.hash() != 0 {
                    return displaced.hash();
                }
                let hash = next_hash();
                // Relaxed: as above.
                match m.header.compare_exchange(
                    displaced.0,
                    displaced.with_hash(hash).0,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => return hash,
                    Err(now) => displaced = Mark(now),
                }
            }
        } else {
            spin_pause();
        }
    }
}

/// The word carrying the object's hash and spare bits: the displaced header
/// if inflated, else the header itself.
pub(crate) fn displaced_or_current(obj: &Header) -> Mark {
    // Acquire: we may read the monitor next; Relaxed on the displaced
    // header, which carries no other data.
    let mark = obj.load(Ordering::Acquire);
    if mark.has_monitor() {
        Mark(monitor_of(obj, mark).header.load(Ordering::Relaxed))
    } else {
        mark
    }
}

/// A new hash: Marsaglia's xor-shift per thread (HotSpot `hashCode=5`, the
/// default), reduced to 31 bits, never 0.
fn next_hash() -> u32 {
    std::thread_local! {
        static STATE: core::cell::Cell<u32> = const { core::cell::Cell::new(0) };
    }
    STATE
        .try_with(|s| {
            let mut x = s.get();
            if x == 0 {
                // Seed from the thread's stack address and a counter, so two
                // threads start apart.
                static SEED: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0x9E37_79B9);
                // Relaxed: any distinct value will do.
                x = SEED.fetch_add(0x6D2B_79F5, std::sync::atomic::Ordering::Relaxed)
                    ^ (s as *const _ as u32);
                x |= 1;
            }
            loop {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                let h = x & super::header::HASH_VALUE_MASK as u32;
                if h != 0 {
                    s.set(x);
                    return h;
                }
            }
        })
        .unwrap_or(0x5EED)
}

/// Header `Drop` of an object whose lock bits are not 01.
#[cold]
pub(crate) fn header_dropped_while_locked(obj: &Header, mark: Mark) {
    let addr = obj.addr();
    // A `Synchronized` dropped under a forgotten `SyncGuard`: its entry in
    // the list of guarded headers must not outlive it (a no-op for others).
    thread::note_data_guard_dropped(addr);
    let on_my_stack = || thread::try_with_lock_stack(|ls| ls.remove(addr)).unwrap_or(0);
    if mark.is_fast_locked() {
        if on_my_stack() == 0 {
            abort_dropped_while_held(obj);
        }
        return;
    }
    if mark.has_monitor() {
        let m = monitor_of(obj, mark);
        let mut me = None;
        if m.is_anonymous() {
            let entries = on_my_stack();
            if entries == 0 {
                abort_dropped_while_held(obj);
            }
            let id = thread::with_current(|t| {
                m.claim_anonymous(t, entries);
                t.id
            });
            me = Some(id);
        } else if m.owner() != super::thread::NO_OWNER {
            me = Some(thread::with_current(|t| t.id));
        }
        inflate::free_on_header_drop(m, me);
    }
}

/// A pinned header is being dropped while another thread's lock-stack still
/// names it (that thread leaked a guard or never exited a raw `enter`).
/// Freeing it would leave that thread a dangling entry; there is no way to
/// reach into its lock-stack; so stop, as Rust does for other broken
/// invariants it cannot unwind from.
fn abort_dropped_while_held(obj: &Header) -> ! {
    eprintln!(
        "fastpath::sync: object {:#x} dropped while fast-locked by another thread (leaked guard?); aborting",
        obj.addr()
    );
    std::process::abort()
}

/// Thread exit: release everything still held, except objects locked
/// through a live `SyncGuard` (see [`super::thread`]).
#[cfg(not(loom))]
pub(crate) fn release_on_thread_exit(me: &Arc<ThreadState>) {
    let kept = thread::take_data_guarded_at_exit();
    let _ = thread::try_with_lock_stack(|ls| {
        // The topmost entry that is not kept, until none is left.
        while let Some(addr) = (0..ls.len()).rev().map(|i| ls.at(i)).find(|a| !kept.contains(a)) {
            ls.remove(addr);
            // SAFETY: as in `ensure_lock_stack_space`: a held pinned header
            // outlives our entry for it.
            let h = unsafe { &*(addr as *const Header) };
            loop {
                let mark = h.load(Ordering::Acquire);
                if mark.is_fast_locked() {
                    // Release: publishes the abandoned critical section.
                    if h.cas(mark, mark.set_unlocked(), Ordering::Release, Ordering::Relaxed)
                        .is_ok()
                    {
                        break;
                    }
                } else if mark.has_monitor() {
                    inflate::release_claimed_at_exit(h, mark, me);
                    break;
                } else if mark.is_unlocked() {
                    break;
                } else {
                    spin_pause();
                }
            }
            stats::count_released_at_exit();
        }
        // What is left are the kept objects: move each into a monitor owned
        // by this thread's (kept) identity. The guard's late drop exits that
        // monitor like any owner; and if the guard is never dropped, the
        // object's own drop, elsewhere, finds a monitor owned by another
        // thread and leaks it, where a fast-locked header would abort the
        // process (`abort_dropped_while_held`: no lock-stack to reach into).
        while let Some(addr) = ls.top() {
            // SAFETY: as above.
            let h = unsafe { &*(addr as *const Header) };
            inflate_owned(h, me, ls, InflateCause::ThreadExit);
        }
        // Later locks from thread-local destructors: none if nothing is
        // kept (the orphan path decides); else monitors, for the same reason.
        ls.set_top_state(if kept.is_empty() {
            super::lock_stack::UNREGISTERED
        } else {
            MONITOR_ONLY
        });
    });
    if me.may_own_monitors() {
        for _ in 0..inflate::release_monitors_owned_by(me, &kept) {
            stats::count_released_at_exit();
        }
    }
    if !kept.is_empty() {
        thread::keep_identity_after_exit(me);
    }
}

/// Under loom, thread exit releases nothing: the registry's std mutex must
/// not be held across loom scheduling points, and no model exits holding a
/// lock.
#[cfg(loom)]
pub(crate) fn release_on_thread_exit(_me: &Arc<ThreadState>) {}
