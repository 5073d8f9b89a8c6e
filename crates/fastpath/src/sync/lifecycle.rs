//! Object and thread lifecycle: what happens to a lock when its object's
//! header is dropped, or when the thread holding it exits (HotSpot
//! `ObjectSynchronizer::release_monitors_owned_by_thread`, run when a JNI
//! thread detaches holding monitors).
//!
//! Where it sits: at the top of `sync`, beside the synchronizer. The two
//! destructors that start these paths belong to lower files' types
//! ([`Header`]'s `Drop`, the thread registration's `Drop`) but are
//! implemented here, so that `header.rs` and `thread.rs` never call up into
//! the lock protocols: dependencies run one way, from this file down to the
//! lock-stack, [`super::inflate`] and the monitor.
//!
//! Header drop (the object dies; `&mut Header`, so no other thread is inside
//! a call on it):
//!
//! | header state | held by | action |
//! |---|---|---|
//! | unlocked | — | nothing |
//! | fast-locked | this thread (lock-stack entries) | drop the entries |
//! | fast-locked | another thread | abort (its lock-stack would dangle) |
//! | stack-locked | this thread (its record) | retire its records for the object |
//! | stack-locked | another thread | abort (its record would name a dead object) |
//! | monitor, owned by my record | this thread | claim it, retire my records, free it |
//! | monitor, anonymous | this thread's lock-stack | claim it, free it |
//! | monitor, anonymous | another thread | abort, as fast-locked |
//! | monitor, young in this thread's slot | nobody | empty the slot (one CAS), free it: no lock |
//! | monitor | nobody or this thread | under the registry lock: adopt it if young elsewhere, free it |
//! | monitor | another thread (leaked guard) | leak it (adopted into the set): its exit releases it |
//!
//! The first monitor row is monitor churn's path (a fresh object per lock
//! in monitor mode): the monitor its thread installed last and nobody
//! owns. Why it needs no lock is in `registry.rs` ("Young monitors"); every
//! other monitor row takes the registry lock, which keeps the deflater and
//! thread exit out while the monitor is freed.
//!
//! Thread exit (the registration's destructor): every lock-stack entry and
//! every arena lock record in use, unless kept for a live `SynchronizedGuard`, is
//! unlocked (fast-locked: CAS 00→01; stack-locked: CAS back the displaced
//! header; inflated: claimed and released fully), then every monitor the thread owns
//! is released fully, waking its contenders, except those marked held by a
//! guard (`Monitor::set_guard_held`: a `SynchronizedGuard` on an inflated object);
//! kept entries move into monitors owned by the exiting thread's identity
//! (see [`super::thread`]).

use std::sync::Arc;

use super::atomic::{spin_pause, Ordering};
use super::header::{Header, Mark, GC_RESERVED};
use super::inflate::{
    claim_from_lock_stack, claim_from_record, inflate_owned, inflate_stack_locked, monitor_of,
};
use super::monitor::{Monitor, NO_OWNER};
use super::record::{self, LockRecord, RECURSIVE};
use super::registry;
use super::stats::{self, InflateCause};
use super::thread::{self, Registration};
use crate::thread::{ThreadMode, ThreadState};

impl Drop for Header {
    #[inline]
    fn drop(&mut self) {
        // Relaxed: `&mut self` means no other thread can be using the header
        // now; any earlier unlock happened-before the borrow that let us
        // drop it.
        let mark = Mark(self.word.load(Ordering::Relaxed));
        if !mark.is_unlocked() {
            header_dropped_while_locked(self, mark);
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        // Under loom a model thread runs the release itself, while its
        // thread-locals still exist (`release_on_thread_exit_for_model`);
        // at this point loom may be shutting the model's statics down.
        #[cfg(not(loom))]
        release_on_thread_exit(&self.state);
    }
}

/// Header `Drop` of an object whose lock bits are not 01 (table above).
#[cold]
fn header_dropped_while_locked(obj: &Header, mark: Mark) {
    let addr = obj.addr();
    // A `Synchronized` dropped under a forgotten `SynchronizedGuard`: its entry in
    // the list of guarded headers must not outlive it (a no-op for others).
    thread::note_data_guard_dropped(addr);
    if mark.is_stack_locked() {
        if !record::is_mine(mark) {
            abort_dropped_while_held(obj);
        }
        retire_my_records(obj, mark.record());
        return;
    }
    if mark.is_fast_locked() {
        let entries = thread::try_with_lock_stack(|ls| ls.remove(addr)).unwrap_or(0);
        if entries == 0 {
            abort_dropped_while_held(obj);
        }
        return;
    }
    if mark.has_monitor() {
        // Monitor churn's path: this thread's young monitor, unowned.
        if registry::free_young_on_drop(mark.monitor()) {
            record::retire_for(addr);
            return;
        }
        // The registry lock first: a deflation in progress may be
        // restoring this very header (it does so under the lock), and then
        // the word we loaded is stale.
        let mut reg = registry::registry();
        // Relaxed: `&mut self` (see `Drop`); the lock orders the deflater.
        let mark = obj.load(Ordering::Relaxed);
        if !mark.has_monitor() {
            return; // deflated meanwhile: nothing left to free
        }
        let m = monitor_of(obj, mark);
        // Young in some thread's slot (another thread's, or ours but owned):
        // into the set, where the code below expects it.
        reg.adopt(m);
        let mut me = None;
        if let Some(rec) = m.owner_record().filter(|&r| record::owns_record(r)) {
            // Stack-locked by this thread, inflated since: claim it.
            retire_my_records(obj, rec);
            me = Some(thread::with_current(|t| {
                claim_from_record(m, t);
                t.id
            }));
        } else if m.is_anonymous() {
            let on_my_stack = thread::try_with_lock_stack(|ls| ls.contains(addr)).unwrap_or(false);
            if !on_my_stack {
                abort_dropped_while_held(obj);
            }
            me = Some(thread::with_current(|t| {
                let _ = thread::try_with_lock_stack(|ls| claim_from_lock_stack(m, addr, t, ls));
                t.id
            }));
        } else if m.owner() != NO_OWNER {
            me = Some(thread::with_current(|t| t.id));
        }
        // Records of ours that went through this monitor (a forgotten
        // guard's, the raw stack's) must not outlive the header either.
        record::retire_for(addr);
        free_on_header_drop(reg, m, me);
    }
}

/// The header at `obj`, stack-locked by this thread with the record at
/// `outer` (the one holding the displaced header), is being dropped: every
/// record of this thread that locks it goes idle, so none touches the dead
/// header later (a forgotten guard's, the raw stack's, the caller's).
/// Recursive records of a caller stay as they are: they never touch the
/// header.
fn retire_my_records(obj: &Header, outer: usize) {
    record::retire_for(obj.addr());
    // SAFETY: `outer` is this thread's record (`owns_record`) and holds the
    // lock, so it is alive: a record is never dropped while in use.
    let outer = unsafe { &*(outer as *const LockRecord) };
    if outer.object() == obj.addr() {
        outer.set_object(0);
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

/// Header `Drop` of an inflated object: free its monitor unless another
/// thread still owns it. Runs with `&mut Header`, so no thread is inside a
/// call on this object; the registry lock keeps out a thread-exit release.
fn free_on_header_drop(
    mut reg: impl core::ops::DerefMut<Target = registry::Registry>,
    m: *const Monitor,
    current_id: Option<usize>,
) {
    // SAFETY: installed monitors are only freed here, under this lock.
    let owner = unsafe { (*m).owner() };
    if owner != NO_OWNER && Some(owner) != current_id {
        // Owned by a live thread through a leaked guard: leave it to that
        // thread (its exit releases it, then the deflater frees it).
        // SAFETY: as above.
        unsafe { (*m).forget_object() };
        return;
    }
    reg.remove(m);
    drop(reg);
    // SAFETY: allocated by `inflate::install`, unreachable now: the header
    // is being dropped and the registry no longer lists it.
    drop(unsafe { Box::from_raw(m as *mut Monitor) });
    stats::count_monitor_freed();
}

/// Releases every lock the calling thread holds and wakes their waiters, as
/// the thread's exit would: HotSpot's `release_monitors_owned_by_thread`,
/// which JNI's `DetachCurrentThread` runs for a thread that leaves the VM
/// holding monitors. For runtimes whose threads detach before they end (the
/// C ABI's `fastpath_thread_detach`). The thread stays usable and keeps its
/// identity; it may lock again. Each lock released is counted in
/// [`super::SyncStats::released_at_thread_exit`].
///
/// Locks held through a live [`super::SynchronizedGuard`] are kept, as at exit (its
/// value stays guarded), and so are locks taken with the caller's own
/// [`super::LockRecord`] (a frame's lock slot, which only the caller can
/// find: it exits them). A live [`super::HeaderGuard`], or a raw lock the caller
/// still means to exit, loses its lock: its exit then reports
/// [`SyncError::IllegalMonitorState`](super::SyncError::IllegalMonitorState) and changes nothing. Call it
/// where the runtime knows its thread holds nothing it will unlock itself.
#[cfg(not(loom))]
pub fn release_held_locks_of_current_thread() {
    // The thread keeps its mode: it stays registered and usable.
    thread::with_current(|me| {
        release_held_locks(me);
    });
}

/// Thread exit: release everything still held, except objects locked
/// through a live `SynchronizedGuard` (see [`super::thread`]).
fn release_on_thread_exit(me: &Arc<ThreadState>) {
    // Monitors read from headers below must not be freed by a deflation.
    let keeps_any = me.in_critical(|| release_held_locks(me));
    // Later locks from thread-local destructors: none if nothing is kept
    // (the orphan path decides); else monitors, for the reason in
    // `release_held_locks`, run as this thread's kept identity.
    let _ = thread::try_with_lock_stack(|ls| {
        ls.set_mode(if keeps_any {
            ThreadMode::Exited
        } else {
            ThreadMode::Unregistered
        })
    });
    if keeps_any {
        thread::keep_identity_after_exit(me);
    }
}

/// Releases what `me` (the caller) holds, except what live `SynchronizedGuard`s
/// hold; `true` if such locks are kept.
fn release_held_locks(me: &Arc<ThreadState>) -> bool {
    let kept = thread::take_data_guarded_at_exit();
    let _ = thread::try_with_lock_stack(|ls| {
        // The topmost entry that is not kept, until none is left.
        while let Some(addr) = (0..ls.len()).rev().map(|i| ls.at(i)).find(|a| !kept.contains(a)) {
            // SAFETY: a lock-stack entry is a pinned header this thread
            // holds; its Drop on another thread aborts rather than free it
            // (`header_dropped_while_locked`).
            let h = unsafe { &*(addr as *const Header) };
            loop {
                // Acquire: we may read the monitor next.
                let mark = h.load(Ordering::Acquire);
                if mark.is_fast_locked() {
                    // Release: publishes the abandoned critical section.
                    if h.cas(mark, mark.set_unlocked(), Ordering::Release, Ordering::Relaxed)
                        .is_ok()
                    {
                        ls.remove(addr);
                        break;
                    }
                } else if mark.has_monitor() {
                    // Under the registry lock: once we release it, another
                    // thread's header Drop may free the monitor while our
                    // wake-up still reads it.
                    let _reg = registry::registry_all();
                    claim_from_lock_stack(monitor_of(h, mark), addr, me, ls).exit_fully(me);
                    break;
                } else if mark.is_unlocked() {
                    ls.remove(addr); // cannot happen: an entry means we hold it
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
    });
    release_records_at_exit(me, &kept);
    let mut kept_monitors = 0;
    if thread::may_own_monitors() {
        let (released, kept) = release_monitors_owned_by(me, &kept);
        kept_monitors = kept;
        for _ in 0..released {
            stats::count_released_at_exit();
        }
    }
    !kept.is_empty() || kept_monitors > 0
}

/// Thread exit, legacy stack-locks: every arena record in use (the raw
/// stack's, and guards' still alive in later thread-local destructors)
/// releases its lock, except objects kept for a live `SynchronizedGuard`, which move
/// into monitors owned by this thread, as on the lock-stack. A caller's own
/// records cannot outlive the frames that pinned them, which are gone.
fn release_records_at_exit(me: &Arc<ThreadState>, kept: &[usize]) {
    for rec in record::in_use() {
        let rec = record::pinned(rec).get_ref();
        let addr = rec.object();
        // SAFETY: a record in use names a live header: the header's Drop
        // retires this thread's records for it (`retire_my_records`), or
        // aborts if another thread drops it while we hold it.
        let h = unsafe { &*(addr as *const Header) };
        let keep = kept.contains(&addr);
        if rec.displaced() == RECURSIVE {
            if !keep {
                rec.set_object(0); // the outer record releases the object
            }
            continue;
        }
        loop {
            // Acquire: we may read the monitor next.
            let mark = h.load(Ordering::Acquire);
            if mark == Mark::stack_locked_by(rec.addr()) {
                if keep {
                    if let Some(m) = inflate_stack_locked(h, mark, InflateCause::ThreadExit) {
                        claim_from_record(m, me);
                        break;
                    }
                // Release: publishes the abandoned critical section.
                } else if h
                    .cas(mark, Mark(rec.displaced()), Ordering::Release, Ordering::Relaxed)
                    .is_ok()
                {
                    break;
                }
            } else if mark.has_monitor() {
                // Under the registry lock, as for lock-stack entries.
                let _reg = registry::registry_all();
                let m = monitor_of(h, mark);
                claim_from_record(m, me);
                if !keep && m.is_owned_by(me.id) {
                    m.exit_fully(me);
                }
                break;
            } else if mark.is_inflating() || mark.lock_bits() == GC_RESERVED {
                spin_pause(); // an inflater (or a GC) is working on it
            } else {
                break; // cannot happen: the record says we hold it
            }
        }
        if !keep {
            rec.set_object(0);
            stats::count_released_at_exit();
        }
    }
    record::free_arena_at_exit();
}

/// Thread exit: release every monitor `me` owns except those held by live
/// `SynchronizedGuard`s: marked so in the monitor (`Synchronized::lock` on an
/// inflated object), or the objects in `kept` (the thread's list; its
/// lock-stack entries are handled by the caller). Holds the registry lock
/// throughout, so no header `Drop` frees a monitor under it. Returns how
/// many it released and how many it kept for a mark.
fn release_monitors_owned_by(me: &ThreadState, kept: &[usize]) -> (usize, usize) {
    let reg = registry::registry_all();
    let (mut released, mut kept_marked) = (0, 0);
    for m in reg.iter() {
        // SAFETY: listed monitors are alive while the lock is held.
        let m = unsafe { &*(m as *const Monitor) };
        if !m.is_owned_by(me.id) {
            continue;
        }
        // The mark is read by its owner, the only thread that writes it.
        if m.is_guard_held() {
            kept_marked += 1;
        } else if !kept.contains(&m.object()) {
            m.exit_fully(me);
            released += 1;
        }
    }
    (released, kept_marked)
}

/// For loom models: run this thread's exit release now, as its last act.
/// loom drops a model thread's thread-locals only after taking every one
/// out of its slot, so the registration's destructor would find the
/// lock-stack already gone; the release protocol itself (what races other
/// threads) is the same code.
#[cfg(loom)]
pub(crate) fn release_on_thread_exit_for_model() {
    thread::with_current(release_on_thread_exit);
}
