//! The lock-stack: a small per-thread array of the objects this thread has
//! fast-locked, in locking order (HotSpot `LockStack`, lockStack.hpp, with the
//! recursive extension of JDK 22, JDK-8319796).
//!
//! Where it sits: the fast paths of [`super::synchronizer`] push and pop it
//! without any atomic instruction (only the owning thread ever touches it);
//! [`super::inflate`] removes an object's entries when it moves the lock into a
//! monitor. It answers "does the current thread hold X?" by a scan of at most
//! [`CAPACITY`] words, which is why fast-locking needs no owner field in the
//! header.
//!
//! Theory of operation:
//! - Recursion is a *consecutive run*: `[A, B, B, B]` is A held once and B
//!   three times. A recursive enter only compares with the top entry, so the
//!   fast path never scans.
//! - An object held but not on top (`[A, B]` entering A) cannot be expressed;
//!   the slow path inflates A with `recursions = entries removed − 1` and
//!   enters the monitor once more.
//! - A full stack makes room by inflating: first entries whose objects were
//!   already inflated by a contender, then the bottom entry
//!   (HotSpot `ensure_lock_stack_space`).
//!
//! - The header CASes guess the word they expect (the object's neutral
//!   word: unlocked, no hash) instead of loading it: on x86-64 a load of
//!   the header between the previous exit's locked instruction and the
//!   next one is most of the pair's cost over a lock that expects a
//!   constant. A guess that misses costs one failed CAS, goes on from the
//!   word it found, and is remembered per thread (the block's
//!   `guess_missed`), so a hashed or inflated object is loaded, not
//!   guessed, until another object misses.
//!
//! The lock-stack lives in the thread block ([`crate::thread`]): its `top`
//! is a byte offset from the block, its entries sit above a sentinel word
//! that is never an object's address (the recursive checks read the word
//! below `top` with no underflow test), and a thread that does not run
//! lightweight locking (unregistered, monitor-only, legacy, exited) has an
//! out-of-range `top`, so both fast paths fail their one bounds check with
//! no extra test. Its mode is the block's mode byte, read by slow paths
//! only. This file holds the lock-stack's operations on the block.

use core::cell::Cell;

use super::header::{Header, Mark, LOCK_MASK, MONITOR, NEUTRAL, OWN_WORD_BIT, UNLOCKED};
use crate::thread::{
    Critical, ThreadMode, ThreadState, LOCK_STACK_END_OFFSET as END, LOCK_STACK_INACTIVE as INACTIVE,
    LOCK_STACK_OFFSET as START,
};

/// Entries per thread (HotSpot `LockStack::CAPACITY`).
pub const CAPACITY: usize = crate::thread::LOCK_STACK_CAPACITY;

const START32: u32 = START as u32;
const END32: u32 = END as u32;

/// The lock-stack is the thread block's: these are its operations. Not
/// `Sync`: only its thread reads or writes it.
pub(crate) type LockStack = crate::thread::ThreadBlock;

/// Bit 0 of an entry: the entry is held by a live `SynchronizedGuard` (its mark).
/// Headers are 8-aligned, so an address never has it; the fast paths
/// compare whole words, so a marked entry is another object's to them
/// (`Synchronized`'s header is never locked through them: it is not
/// pinned outside its type). The mark is set by the push itself and
/// cleared by the pop: no word beside the entry to keep in step.
const GUARD_MARK: usize = 1;

/// What [`LockStack::try_fast_enter_guarded`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GuardedEnter {
    /// Taken: on the lock-stack, the header fast-locked to the word given
    /// (what the guard's exit expects: [`LockStack::try_fast_exit_guarded`]);
    /// on a monitor, 0.
    Acquired(usize),
    /// The object is on top: this thread holds it already.
    AlreadyHeld,
    /// Nothing changed: the caller's slow path decides.
    Slow,
}

impl LockStack {
    /// A block in the unregistered state (tests use a standalone one).
    #[cfg(test)]
    pub(crate) fn new_unregistered() -> LockStack {
        LockStack::new()
    }

    /// The word at byte offset `off` from the block.
    ///
    /// # Safety
    /// `off` is the sentinel's or an entry's offset: in
    /// `[START - 8, END - 8]`, a multiple of 8 from `START`.
    #[inline(always)]
    unsafe fn word_at(&self, off: usize) -> usize {
        // SAFETY: per the contract, `off` names the sentinel or an entry,
        // a `usize` (in a `Cell`) inside `self`; the pointer is derived
        // from `&self`, which covers the whole block.
        unsafe { (self as *const Self as *const u8).add(off).cast::<usize>().read() }
    }

    /// Stores `addr` in the entry at byte offset `off`, as generated code
    /// does (`mov [thread + top], obj`): no index computation.
    ///
    /// # Safety
    /// `off` is an entry's offset: in `[START, END - 8]`, a multiple of 8
    /// from `START`.
    #[inline(always)]
    unsafe fn set_entry_at(&self, off: u32, addr: usize) {
        // SAFETY: per the contract `off` names an entry, a `Cell<usize>`
        // inside `self` (interior mutability: writing through a pointer
        // derived from `&self` is allowed); only this thread touches it.
        unsafe {
            (self as *const Self as *const u8)
                .add(off as usize)
                .cast::<Cell<usize>>()
                .as_ref()
                .unwrap_unchecked()
                .set(addr)
        }
    }

    /// The registration pointer `thread.rs` cached with
    /// [`set_current`](Self::set_current) (null: none).
    #[inline(always)]
    pub(crate) fn current(&self) -> *const std::sync::Arc<ThreadState> {
        self.current.get()
    }

    /// Caches the thread's state: `p` for [`current`](Self::current),
    /// `state` and `critical` for [`inline_state`](Self::inline_state), the
    /// owner id (all null / 0 clear them).
    #[inline(always)]
    pub(crate) fn set_current(
        &self,
        p: *const std::sync::Arc<ThreadState>,
        state: *const ThreadState,
        critical: *const Critical,
        id: usize,
    ) {
        self.current.set(p);
        self.sync_state.set(state);
        self.critical.set(critical);
        self.owner_id.set(id);
        self.update_inline_state();
    }

    /// The cached state and critical-section pointers for the inline
    /// inflated paths: the state is null unless cached and the thread is
    /// not a legacy-mode one.
    #[inline(always)]
    pub(crate) fn inline_state(&self) -> (*const ThreadState, *const Critical) {
        (self.inline_state.get(), self.critical.get())
    }

    fn update_inline_state(&self) {
        let usable = self.mode() != ThreadMode::Legacy;
        self.inline_state.set(if usable {
            self.sync_state.get()
        } else {
            core::ptr::null()
        });
    }

    /// The exits' view of `top`: its low byte, which is `top` itself for a
    /// lightweight thread (every valid `top` is at most [`END`] ≤ 255) and
    /// [`START`] for every other ([`INACTIVE`]'s low byte): an empty
    /// lock-stack, whose top word is the sentinel, so the exit's on-top
    /// check fails with no bounds check of its own (the bound is in the
    /// data, as HotSpot's `_bad_oop_sentinel` holds the underflow check).
    /// Always in `[START, END]`. A 32-bit load and a `movzbl` of its
    /// register, where the full `top` needed a load, a compare and a branch.
    ///
    /// The load is as wide as the stores of `top` (enter's and exit's
    /// `mov [thread+top], top32`), not the one byte it uses: AMD's Zen 2
    /// and later rename a load that reads what a store of the same size
    /// wrote at the same base register and displacement (its forwarding
    /// takes no time), and a narrower load misses the renaming and waits
    /// the full store-to-load forwarding. A recursive pair's only
    /// loop-carried chain is `top`'s store → load → store, so on the Zen 3
    /// guest a byte load here costs the recursive pair 1.7 × (2.65 ns
    /// against 1.55; BENCHMARKS.md, "On the Zen 3 guest"). The JIT
    /// templates' byte load is off that chain: their pop reloads `top` in
    /// its `sub dword [thread+top], 8`. The load is volatile so that
    /// the compiler keeps it 32 bits wide (it narrows a load whose high
    /// bytes go unused); `top` is this thread's alone, so nothing else
    /// changes it between the load and its use.
    #[inline(always)]
    fn top_low_byte(&self) -> u32 {
        const _: () = assert!(END <= 255 && INACTIVE as u8 as usize == START);
        // SAFETY: the cell's own pointer: valid, aligned and initialised for
        // the block's life; only this thread reads or writes `top`, and no
        // reference into the cell is held across the read.
        let top = unsafe { core::ptr::read_volatile(self.lock_stack_top.as_ptr()) };
        top as u8 as u32
    }

    /// The fast path of `monitorenter` (HotSpot `lightweight_lock` in the
    /// MacroAssembler): a recursive push if `obj` is on top, else CAS the
    /// header 01→00 and push. `false` sends the caller to the slow path and
    /// changes nothing. The CAS guesses the header ([`NEUTRAL`]; see
    /// [`try_fast_enter_guessing`](Self::try_fast_enter_guessing)).
    ///
    /// Recursion is tested before the CAS, as HotSpot does: testing it only
    /// after a failed CAS (measured) saves two instructions on a
    /// first-level enter but gives every recursive enter a failed locked
    /// instruction, which tripled the lab's `recursive` row (3.7 → 11.3 ns).
    #[inline(always)]
    pub(crate) fn try_fast_enter(&self, obj: &Header) -> bool {
        self.try_fast_enter_guessing(obj, NEUTRAL)
    }

    /// [`try_fast_enter`](Self::try_fast_enter) whose CAS expects `neutral`
    /// (with lock bits 01): the header of an object that was never hashed,
    /// as the caller's runtime makes it ([`Header::neutral_word`]).
    #[inline(always)]
    pub(crate) fn try_fast_enter_guessing(&self, obj: &Header, neutral: usize) -> bool {
        self.fast_enter::<false>(obj, neutral)
    }

    /// [`try_fast_enter`](Self::try_fast_enter) with no call on any path: a
    /// guess that misses returns `false` (the caller's full enter takes it
    /// from there, and remembers the object), so that a caller whose only
    /// other path is a tail call saves no register.
    #[inline(always)]
    pub(crate) fn try_fast_enter_leaf(&self, obj: &Header) -> bool {
        self.fast_enter::<true>(obj, NEUTRAL)
    }

    /// The fast enter; `LEAF`: without the out-of-line miss path.
    #[inline(always)]
    fn fast_enter<const LEAF: bool>(&self, obj: &Header, neutral: usize) -> bool {
        let top = self.lock_stack_top.get();
        if top >= END32 {
            return false; // full, unregistered, monitor-only, legacy or exited
        }
        let addr = obj.addr();
        // SAFETY: `top` is in `[START, END)` (the invariant, and the test
        // above), so `top - 8` is the sentinel's or an entry's offset.
        if unsafe { self.word_at(top as usize - 8) } == addr {
            // SAFETY: `top` in `[START, END)`: an entry's offset.
            unsafe { self.set_entry_at(top, addr) };
            self.lock_stack_top.set(top + 8);
            self.verify("after recursive fast enter");
            return true;
        }
        // SAFETY: `top` is the top, in `[START, END)` (tested above).
        unsafe { self.try_fast_lock_push::<LEAF>(obj, addr, top, neutral) }
    }

    /// The CAS 01→00 of `obj` and the push of `entry` (its address, marked
    /// or not) at byte offset `top` (< END).
    /// `false`: not unlocked (held, by this thread too, or inflated), or
    /// the CAS lost; nothing changed but the stale word above `top`.
    ///
    /// The push comes first and is undone (`top` stored back) if the CAS
    /// fails: a locked instruction waits for every store before it to
    /// drain, so stores between enter's CAS and exit's make exit's wait,
    /// while stores before enter's CAS drain in the same wait as the
    /// previous exit's pop. The lock-stack is its thread's alone, so
    /// nothing sees the push before the CAS. Measured on the Intel guest
    /// (a scratch copy of this pair, interleaved with parking_lot's):
    /// pushing after the CAS cost 1.09–1.19× parking_lot's pair, pushing
    /// before it 1.01–1.03×.
    ///
    /// # Safety
    /// `top` is the current top and in `[START, END)`.
    #[inline(always)]
    unsafe fn try_fast_lock_push<const LEAF: bool>(
        &self,
        obj: &Header,
        entry: usize,
        top: u32,
        neutral: usize,
    ) -> bool {
        // SAFETY: the contract: `top` is in `[START, END)`, an entry's offset.
        unsafe { self.set_entry_at(top, entry) };
        self.lock_stack_top.set(top + 8);
        if !self.fast_lock::<LEAF>(obj, neutral) {
            self.lock_stack_top.set(top);
            return false;
        }
        self.verify("after fast enter");
        true
    }

    /// The header's CAS 01→00, its expected word guessed: `neutral` with
    /// lock bits 01, unless `obj` is the object this thread's last guess
    /// missed ([`ThreadBlock::guess_missed`](crate::thread::ThreadBlock)),
    /// whose header is loaded instead ([`fast_lock_loaded`]).
    ///
    /// Why guess: x86-64's locked `cmpxchg` is a full fence, and a load of
    /// the header right after the previous exit's CAS on it waits for that
    /// CAS, and enter's CAS waits for the load: the load between the two
    /// locked instructions is most of what the loaded form costs over a
    /// lock that expects a constant (parking_lot's, std's; `fastpath jit
    /// --only pair`). A guess costs no load. Any guess is safe: the CAS
    /// succeeds only on the unlocked word equal to the guess, and stores
    /// that word with lock bits 00, as the loaded form would. A failed
    /// `cmpxchg` returns the word it found, and [`fast_lock_missed`]
    /// continues from it with no second load; it remembers the object,
    /// so that an object whose header is not the guess (hashed, inflated)
    /// pays a failed CAS once, not at every lock.
    #[inline(always)]
    fn fast_lock<const LEAF: bool>(&self, obj: &Header, neutral: usize) -> bool {
        self.fast_lock_word::<LEAF>(obj, neutral) != 0
    }

    /// [`fast_lock`](Self::fast_lock) that returns the fast-locked word it
    /// stored, 0 if it stored none (a fast-locked word is an own word, bit
    /// 63 set: never 0).
    #[inline(always)]
    fn fast_lock_word<const LEAF: bool>(&self, obj: &Header, neutral: usize) -> usize {
        if self.guess_missed.get() == obj.addr() {
            return fast_lock_loaded(obj);
        }
        let expected = Mark((neutral & !LOCK_MASK) | UNLOCKED);
        // Acquire: taking the lock must see every write of the previous
        // holder's critical section (released by its unlocking CAS or its
        // monitor exit, which published the word we replace). Relaxed on
        // failure: the found word only picks what to try next.
        match obj.cas(
            expected,
            expected.set_fast_locked(),
            super::atomic::Ordering::Acquire,
            super::atomic::Ordering::Relaxed,
        ) {
            Ok(()) => expected.set_fast_locked().0,
            Err(_) if LEAF => 0,
            Err(found) => self.fast_lock_missed(obj, found),
        }
    }

    /// The guess of [`fast_lock`](Self::fast_lock) missed, finding `found`:
    /// the CAS 01→00 from `found` if it is unlocked (a hash, other spare
    /// bits): the word stored, 0 if none (held, inflated, or the CAS
    /// lost). An unlocked or
    /// inflated `found` is what the object's header will be next time
    /// too, so `obj` is remembered; a lock another thread holds is not
    /// (contention passes, and the neutral word comes back).
    #[cold]
    #[inline(never)]
    fn fast_lock_missed(&self, obj: &Header, found: Mark) -> usize {
        if found.is_unlocked() || found.has_monitor() {
            self.guess_missed.set(obj.addr());
        }
        // Acquire: as in `fast_lock`.
        let taken = found.is_unlocked()
            && obj
                .cas(
                    found,
                    found.set_fast_locked(),
                    super::atomic::Ordering::Acquire,
                    super::atomic::Ordering::Relaxed,
                )
                .is_ok();
        if taken {
            found.set_fast_locked().0
        } else {
            0
        }
    }

    /// `Synchronized::lock`'s fast path: [`try_fast_enter`](Self::try_fast_enter)
    /// that also answers the re-entrancy question from the lock-stack
    /// itself (the object on top: held already, nothing changes) instead of
    /// a `holds_lock` before the lock, and marks the entry as a
    /// `SynchronizedGuard`'s, instead of a push on a separate per-thread list. A CAS
    /// that succeeds proves no thread held the object, this one included.
    ///
    /// The lock attempt comes first (unlike [`try_fast_enter`](Self::try_fast_enter)):
    /// an unlocked object is on no lock-stack, so the re-entrancy test is
    /// only made when the attempt fails; a guard's re-entrancy is an error
    /// path (`Synchronized` refuses a second lock), never a common one.
    ///
    /// [`GuardedEnter::Acquired`] carries the fast-locked word the CAS
    /// stored, which the guard keeps for its exit
    /// ([`try_fast_exit_guarded`](Self::try_fast_exit_guarded)).
    ///
    /// An object whose guess missed (hashed, or inflated: see
    /// [`fast_lock`](Self::fast_lock)) has its header loaded before the
    /// push, and one with a monitor goes to the slow path at once: nothing
    /// pushed to undo, and no re-entrancy test here, which the slow path's
    /// `holds_lock` makes (the test is only this fast path's shortcut, and
    /// only the guessed path makes it). So a guard on a contended, inflated
    /// object pays the monitor's path and one load and branch of this one.
    #[inline(always)]
    pub(crate) fn try_fast_enter_guarded(&self, obj: &Header) -> GuardedEnter {
        let top = self.lock_stack_top.get();
        if top >= END32 {
            return GuardedEnter::Slow; // full, unregistered, monitor-only, legacy, exited
        }
        if self.guess_missed.get() == obj.addr() {
            // Relaxed: the load only picks the expected word or the slow
            // path; the CAS checks the word (and acquires).
            let mark = obj.load(super::atomic::Ordering::Relaxed);
            if mark.0 & MONITOR != 0 {
                return GuardedEnter::Slow; // a monitor (or a GC's `11`)
            }
            // `00` or `01`: the CAS succeeds only on the unlocked word (see
            // `fast_lock_loaded`); a failure is the slow path's to sort
            // out, re-entry included.
            let (expected, held) = (Mark(mark.0 | UNLOCKED), mark.0 & !LOCK_MASK);
            // The push first, undone if the CAS fails: see `try_fast_lock_push`.
            // SAFETY: `top` is the top, in `[START, END)` (tested above).
            unsafe { self.set_entry_at(top, obj.addr() | GUARD_MARK) };
            self.lock_stack_top.set(top + 8);
            // Acquire: as in `fast_lock`. Relaxed on failure: the slow path
            // loads the word again.
            if obj
                .cas(
                    expected,
                    Mark(held),
                    super::atomic::Ordering::Acquire,
                    super::atomic::Ordering::Relaxed,
                )
                .is_err()
            {
                self.lock_stack_top.set(top);
                return GuardedEnter::Slow;
            }
            self.verify("after fast enter");
            return GuardedEnter::Acquired(held);
        }
        // The push first, undone if the CAS fails: see `try_fast_lock_push`.
        // SAFETY: `top` is the top, in `[START, END)` (tested above).
        unsafe { self.set_entry_at(top, obj.addr() | GUARD_MARK) };
        self.lock_stack_top.set(top + 8);
        let expected = Mark((NEUTRAL & !LOCK_MASK) | UNLOCKED);
        // Acquire: as in `fast_lock`. Relaxed on failure: the found word
        // only picks what to try next.
        let held = match obj.cas(
            expected,
            expected.set_fast_locked(),
            super::atomic::Ordering::Acquire,
            super::atomic::Ordering::Relaxed,
        ) {
            Ok(()) => expected.set_fast_locked().0,
            Err(found) => self.fast_lock_missed(obj, found),
        };
        if held == 0 {
            self.lock_stack_top.set(top);
            // Not unlocked (or the CAS lost): held already if on top (a
            // word this thread holds is never unlocked), marked or not,
            // else the slow path.
            // SAFETY: `top` in `[START, END)`, as in `try_fast_enter`.
            if unsafe { self.word_at(top as usize - 8) } & !GUARD_MARK == obj.addr() {
                return GuardedEnter::AlreadyHeld;
            }
            return GuardedEnter::Slow;
        }
        self.verify("after fast enter");
        GuardedEnter::Acquired(held)
    }

    /// A `SynchronizedGuard`'s fast exit: its marked entry on top (one compare
    /// with the marked word says both), unlocked by the CAS 00→01 and
    /// popped, which takes the mark with it. `false` changes nothing (the
    /// caller forgets the guard with [`forget_guard`](Self::forget_guard)
    /// and exits the slow way). No recursion test: a `SynchronizedGuard`'s object
    /// is held once.
    ///
    /// The CAS expects `held`, the word the guard's enter stored
    /// ([`GuardedEnter::Acquired`]), or its guess of it (the neutral word
    /// fast-locked) where a slow path took the lock: no guess to make, so
    /// no test of [`ThreadBlock::guess_missed`](crate::thread::ThreadBlock)
    /// as the raw exit has.
    /// Any `held` is safe: the entry on top proves this thread holds `obj`
    /// on its lock-stack, so a header equal to a fast-locked `held` is this
    /// thread's lock, and `held | 01` is that word unlocked; a `held` that
    /// is not the header (a hash installed meanwhile, a contender's
    /// monitor, a word that is no fast-lock) fails the CAS, and the missed
    /// path continues from the word found.
    #[inline(always)]
    pub(crate) fn try_fast_exit_guarded(&self, obj: &Header, held: usize) -> bool {
        let top = self.top_low_byte();
        // SAFETY: `top` in `[START, END]` (`top_low_byte`), so `top - 8` is
        // the sentinel's (never an address) or an entry's offset.
        if unsafe { self.word_at(top as usize - 8) } != obj.addr() | GUARD_MARK {
            return false;
        }
        // `held + 1` is `held` with lock bits 01 for a fast-locked word (00),
        // in one instruction where `set_unlocked` takes three; a `held`
        // that is no fast-locked word fails the CAS whatever it stores.
        let (held, unlocked_word) = (Mark(held), Mark(held.wrapping_add(UNLOCKED)));
        // Release: as in `fast_unlock`.
        let unlocked = match obj.cas(
            held,
            unlocked_word,
            super::atomic::Ordering::Release,
            super::atomic::Ordering::Relaxed,
        ) {
            Ok(()) => true,
            Err(found) => self.fast_unlock_missed(obj, found),
        };
        if unlocked {
            self.lock_stack_top.set(top - 8);
        }
        unlocked
    }

    /// The fast path of `monitorexit` (HotSpot `lightweight_unlock`): `obj`
    /// must be on top; pop; if the entry below is `obj` too this was a
    /// recursive exit; else CAS the header 00→01. `false` sends the caller to
    /// the slow path and changes nothing (HotSpot pops first and pushes back
    /// on failure; checking before popping is the same thing). The CAS
    /// guesses the header ([`NEUTRAL`]; see
    /// [`try_fast_exit_guessing`](Self::try_fast_exit_guessing)).
    #[cfg_attr(any(not(test), loom), allow(dead_code))] // the paths call the guessing or the leaf form
    #[inline(always)]
    pub(crate) fn try_fast_exit(&self, obj: &Header) -> bool {
        self.try_fast_exit_guessing(obj, NEUTRAL)
    }

    /// [`try_fast_exit`](Self::try_fast_exit) whose CAS expects `neutral`
    /// with lock bits 00, as [`try_fast_enter_guessing`](Self::try_fast_enter_guessing)
    /// with the same `neutral` left it.
    #[inline(always)]
    pub(crate) fn try_fast_exit_guessing(&self, obj: &Header, neutral: usize) -> bool {
        self.fast_exit::<false>(obj, neutral)
    }

    /// [`try_fast_exit`](Self::try_fast_exit) with no call on any path (see
    /// [`try_fast_enter_leaf`](Self::try_fast_enter_leaf)).
    #[inline(always)]
    pub(crate) fn try_fast_exit_leaf(&self, obj: &Header) -> bool {
        self.fast_exit::<true>(obj, NEUTRAL)
    }

    /// The fast exit; `LEAF`: without the out-of-line miss path.
    #[inline(always)]
    fn fast_exit<const LEAF: bool>(&self, obj: &Header, neutral: usize) -> bool {
        let top = self.top_low_byte();
        let addr = obj.addr();
        // SAFETY: `top` in `[START, END]` (`top_low_byte`): `top - 8` is the
        // sentinel's (never an address: an empty stack, or a thread that
        // does not run lightweight locking, fails here) or an entry's.
        if unsafe { self.word_at(top as usize - 8) } != addr {
            return false; // not on top, empty, or not a lightweight thread
        }
        // SAFETY: `top - 8` is an entry's (it matched), so `top - 16` is
        // the sentinel's or an entry's.
        if unsafe { self.word_at(top as usize - 16) } == addr {
            self.lock_stack_top.set(top - 8);
            self.verify("after recursive fast exit");
            return true;
        }
        self.try_fast_unlock_pop::<LEAF>(obj, top - 8, neutral)
    }

    /// The CAS 00→01 of the object on top (at byte offset `i`), and its pop.
    /// `false`: not fast-locked (a contender inflated it), or the CAS lost;
    /// nothing changed.
    #[inline(always)]
    fn try_fast_unlock_pop<const LEAF: bool>(&self, obj: &Header, i: u32, neutral: usize) -> bool {
        if !self.fast_unlock::<LEAF>(obj, neutral) {
            return false;
        }
        self.lock_stack_top.set(i);
        true
    }

    /// The header's CAS 00→01 by the thread that fast-locked it, its
    /// expected word guessed as [`fast_lock`](Self::fast_lock)'s: `neutral`
    /// with lock bits 00 and the own-word bit set, unless `obj` is the
    /// object the last guess missed ([`fast_unlock_loaded`]). What enter
    /// proved is not checked again: the object is on top of this thread's
    /// lock-stack, so its header is either its fast-locked word or a
    /// contender's monitor; the CAS tells them apart, and a legacy record's
    /// word (lock bits 00, own-word bit clear) never equals the expected
    /// word. A failed CAS continues from the word it found
    /// ([`fast_unlock_missed`](Self::fast_unlock_missed)).
    #[inline(always)]
    fn fast_unlock<const LEAF: bool>(&self, obj: &Header, neutral: usize) -> bool {
        if self.guess_missed.get() == obj.addr() {
            return fast_unlock_loaded(obj);
        }
        let expected = Mark((neutral & !LOCK_MASK) | OWN_WORD_BIT);
        // Release: the critical section's writes must be visible to the next
        // thread that acquires the header. Relaxed on failure: the found
        // word only picks what to try next.
        match obj.cas(
            expected,
            expected.set_unlocked(),
            super::atomic::Ordering::Release,
            super::atomic::Ordering::Relaxed,
        ) {
            Ok(()) => true,
            Err(found) => !LEAF && self.fast_unlock_missed(obj, found),
        }
    }

    /// The guess of [`fast_unlock`](Self::fast_unlock) missed, finding
    /// `found`: remember `obj`, then the CAS 00→01 from `found` if it is
    /// a fast-locked word (hashed while held, other spare bits). `false`:
    /// a contender's monitor (or the CAS lost to one).
    #[cold]
    #[inline(never)]
    fn fast_unlock_missed(&self, obj: &Header, found: Mark) -> bool {
        self.guess_missed.set(obj.addr());
        // Release: as in `fast_unlock`.
        found.is_fast_locked()
            && obj
                .cas(
                    found,
                    found.set_unlocked(),
                    super::atomic::Ordering::Release,
                    super::atomic::Ordering::Relaxed,
                )
                .is_ok()
    }

    /// Checks the lock-stack's invariants in debug builds, after every
    /// transition (HotSpot `LockStack::verify`, lockStack.cpp): `top` is an
    /// entry's offset for a lightweight thread and out of range for every
    /// other, the sentinel is 0, no entry is null, and each object's
    /// entries form one consecutive run (recursion is a run; an object held
    /// twice apart is inflated instead); and the inline paths' cached state
    /// is the cached state unless the thread is a legacy one (else those
    /// paths would run the lightweight protocol on a legacy thread, or
    /// never run). Compiled out of release builds and loom models.
    #[inline(always)]
    pub(crate) fn verify(&self, when: &str) {
        #[cfg(all(debug_assertions, not(loom)))]
        self.verify_structure(when);
        let _ = when;
    }

    #[cfg(all(debug_assertions, not(loom)))]
    #[inline(never)]
    fn verify_structure(&self, when: &str) {
        let top = self.lock_stack_top.get();
        let lightweight = self.mode() == ThreadMode::Lightweight;
        assert!(
            if lightweight {
                (START32..=END32).contains(&top) && (top - START32) % 8 == 0
            } else {
                top == INACTIVE
            },
            "lock-stack {when}: bad top {top} for {:?}",
            self.mode()
        );
        assert_eq!(
            self.lock_stack_sentinel, 0,
            "lock-stack {when}: sentinel overwritten"
        );
        let n = self.len();
        let inline = if self.mode() == ThreadMode::Legacy {
            core::ptr::null()
        } else {
            self.sync_state.get()
        };
        assert_eq!(
            self.inline_state.get(),
            inline,
            "lock-stack {when}: inline paths' state out of date (top {top})"
        );
        assert_eq!(
            self.sync_state.get().is_null(),
            self.current.get().is_null(),
            "lock-stack {when}: state cached without its handle, or the reverse"
        );
        for i in 0..n {
            let e = self.at(i);
            assert_ne!(e, 0, "lock-stack {when}: null entry at {i}");
            if let Some(j) = (i + 1..n).find(|&j| self.at(j) == e) {
                assert!(
                    (i..=j).all(|k| self.at(k) == e),
                    "lock-stack {when}: {e:#x} held at {i} and {j}, not as one run"
                );
            }
        }
    }

    /// [`verify`](Self::verify), and that every entry's header says
    /// it is locked: fast-locked or has a monitor (one a contender installed). The
    /// synchronizer calls it at the end of its slow paths; the entries are
    /// headers this thread holds, pinned and alive.
    #[inline(always)]
    pub(crate) fn verify_held(&self, when: &str) {
        self.verify(when);
        #[cfg(all(debug_assertions, not(loom)))]
        for i in 0..self.len() {
            // SAFETY: an entry is a pinned header this thread holds (see
            // `lifecycle`: its Drop elsewhere aborts rather than free it).
            let h = unsafe { &*(self.at(i) as *const Header) };
            // Relaxed: a check of a state only this thread can end.
            let mark = h.load(super::atomic::Ordering::Relaxed);
            // 11 too: a GC may be working on a held object.
            assert!(
                !mark.is_unlocked(),
                "lock-stack {when}: entry {i} ({:#x}) not locked: {:#x}",
                self.at(i),
                mark.0
            );
        }
    }

    /// Sets what the thread runs: a lightweight thread's lock-stack starts
    /// empty, every other mode's `top` is out of range. The caller made
    /// sure no entry is lost (an empty stack, or one being abandoned at
    /// exit after its release).
    pub(crate) fn set_mode(&self, mode: ThreadMode) {
        self.locking_mode.set(mode as u8);
        self.lock_stack_top.set(if mode == ThreadMode::Lightweight {
            START32
        } else {
            INACTIVE
        });
        self.update_inline_state();
        self.verify("after a mode change");
    }

    /// Number of entries (0 for a thread that is not lightweight).
    pub(crate) fn len(&self) -> usize {
        let t = self.lock_stack_top.get();
        if t <= END32 {
            ((t - START32) / 8) as usize
        } else {
            0
        }
    }

    /// Sets the depth (at most [`CAPACITY`]) of a lightweight thread's stack.
    fn set_len(&self, n: usize) {
        debug_assert!(n <= CAPACITY && self.mode() == ThreadMode::Lightweight);
        self.lock_stack_top.set(START32 + 8 * n as u32);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn is_full(&self) -> bool {
        self.lock_stack_top.get() == END32
    }

    /// The object of entry `i` (0 = bottom), its mark left off.
    pub(crate) fn at(&self, i: usize) -> usize {
        self.lock_stack[i].get() & !GUARD_MARK
    }

    /// Whether entry `i` is held by a live `SynchronizedGuard`.
    fn is_marked(&self, i: usize) -> bool {
        self.lock_stack[i].get() & GUARD_MARK != 0
    }

    /// The top entry.
    pub(crate) fn top(&self) -> Option<usize> {
        self.len().checked_sub(1).map(|i| self.at(i))
    }

    /// The bottom entry.
    pub(crate) fn bottom(&self) -> Option<usize> {
        (!self.is_empty()).then(|| self.at(0))
    }

    /// Pushes `addr`; the caller made room.
    pub(crate) fn push(&self, addr: usize) {
        let t = self.len();
        debug_assert!(t < CAPACITY, "push on a full lock-stack");
        self.lock_stack[t].set(addr);
        self.set_len(t + 1);
        self.verify("after push");
    }

    /// Whether `addr` has an entry.
    pub(crate) fn contains(&self, addr: usize) -> bool {
        (0..self.len()).any(|i| self.at(i) == addr)
    }

    #[cfg_attr(any(not(test), loom), allow(dead_code))] // HotSpot's API; tests use it
    /// Whether `addr` has two consecutive entries (held recursively on the
    /// lock-stack).
    pub(crate) fn is_recursive(&self, addr: usize) -> bool {
        (1..self.len()).any(|i| self.at(i) == addr && self.at(i - 1) == addr)
    }

    #[cfg_attr(any(not(test), loom), allow(dead_code))] // HotSpot's API; tests use it
    /// Recursive enter if `addr` is on top and there is room.
    pub(crate) fn try_recursive_enter(&self, addr: usize) -> bool {
        if self.is_full() || self.top() != Some(addr) {
            return false;
        }
        self.push(addr);
        true
    }

    /// Recursive exit if the top two entries are `addr`.
    pub(crate) fn try_recursive_exit(&self, addr: usize) -> bool {
        let t = self.len();
        if t < 2 || self.at(t - 1) != addr || self.at(t - 2) != addr {
            return false;
        }
        self.set_len(t - 1);
        self.verify("after recursive exit");
        true
    }

    /// Removes every entry of `addr`, keeping the others in order, and
    /// returns how many there were (HotSpot `LockStack::remove`). A stack in
    /// a thread that is not lightweight has no entries and is left as it
    /// is: writing a depth there would silently turn a monitor-only thread
    /// lightweight, or skip a thread's registration.
    pub(crate) fn remove(&self, addr: usize) -> usize {
        let t = self.len();
        if t == 0 {
            return 0;
        }
        let mut kept = 0;
        let mut removed_marked = false;
        for i in 0..t {
            if self.at(i) != addr {
                // The word itself: the mark moves with its entry.
                self.lock_stack[kept].set(self.lock_stack[i].get());
                kept += 1;
            } else {
                removed_marked |= self.is_marked(i);
            }
        }
        self.set_len(kept);
        if removed_marked {
            // A `SynchronizedGuard`'s entry moved into a monitor (inflation): the
            // guard still holds the object, now off the stack.
            self.note_guarded_elsewhere(addr);
        }
        self.verify("after remove");
        t - kept
    }

    /// A `SynchronizedGuard` holds `addr` without a mark on this stack (module
    /// docs of `thread.rs`).
    #[inline]
    pub(crate) fn note_guarded_elsewhere(&self, addr: usize) {
        let n = self.guarded_elsewhere_len.get();
        if n < CAPACITY {
            self.guarded_elsewhere[n].set(addr);
            self.guarded_elsewhere_len.set(n + 1);
        } else {
            self.guarded_overflow.borrow_mut().push(addr);
        }
    }

    /// The `SynchronizedGuard` holding `addr` is going (or its object is): clear its
    /// mark on the stack and its entry in the list.
    #[inline]
    pub(crate) fn forget_guard(&self, addr: usize) {
        for i in 0..self.len() {
            if self.at(i) == addr {
                self.lock_stack[i].set(addr);
            }
        }
        // Guards nest, so the entry is almost always the last one.
        let n = self.guarded_elsewhere_len.get();
        if let Some(i) = (0..n).rev().find(|&i| self.guarded_elsewhere[i].get() == addr) {
            self.guarded_elsewhere[i].set(self.guarded_elsewhere[n - 1].get());
            self.guarded_elsewhere_len.set(n - 1);
        } else {
            self.forget_overflow_guard(addr); // or a header that had no guard
        }
    }

    #[cold]
    fn forget_overflow_guard(&self, addr: usize) {
        let mut list = self.guarded_overflow.borrow_mut();
        if let Some(i) = list.iter().rposition(|&a| a == addr) {
            list.swap_remove(i);
        }
    }

    /// Every object a live `SynchronizedGuard` holds: the marked entries and the
    /// list. Frees the list's buffer when it is empty (thread exit).
    pub(crate) fn guarded_objects(&self) -> Vec<usize> {
        let mut list = self.guarded_overflow.borrow_mut();
        let mut all: Vec<usize> = (0..self.len())
            .filter(|&i| self.is_marked(i))
            .map(|i| self.at(i))
            .collect();
        all.extend((0..self.guarded_elsewhere_len.get()).map(|i| self.guarded_elsewhere[i].get()));
        if list.is_empty() {
            *list = Vec::new(); // frees the buffer
        } else {
            all.extend_from_slice(&list);
        }
        all
    }
}

/// The loaded form of the fast enter's CAS, for an object whose header a
/// guess missed: the one test before the CAS is the monitor bit (HotSpot
/// tests it too, first): a `10` or `11` word goes to the caller without a
/// locked instruction that would fail (the inflated path follows). What is
/// left is `00` or `01`, and the CAS expects the word with its lock bits at
/// 01 (`mark | 01`) and stores them at 00 (`mark & !01`): it succeeds only
/// on the unlocked word read, the same check as testing the lock bits for
/// 01 before the CAS (a `00` word, fast-locked or a legacy record, differs
/// from its `| 01`). Returns the word stored, 0 if none (an unlocked
/// word is an own word, so the fast-locked one is never 0).
#[inline(always)]
fn fast_lock_loaded(obj: &Header) -> usize {
    // Relaxed: the load only picks the expected value; the CAS checks it
    // (and acquires).
    let mark = obj.load(super::atomic::Ordering::Relaxed);
    if mark.0 & MONITOR != 0 {
        return 0;
    }
    let fast_locked = mark.0 & !UNLOCKED;
    // Acquire: as in `LockStack::fast_lock`.
    match obj.cas(
        Mark(mark.0 | UNLOCKED),
        Mark(fast_locked),
        super::atomic::Ordering::Acquire,
        super::atomic::Ordering::Relaxed,
    ) {
        Ok(()) => fast_locked,
        Err(_) => 0,
    }
}

/// The loaded form of the fast exit's CAS. The lock bits are not tested
/// before the CAS (HotSpot's `fast_unlock_lightweight` elides its monitor
/// check the same way and lets the CAS fail): the expected word is the one
/// read with its lock bits forced to 00, so a monitor or a GC's `11` word
/// fails the CAS. Only the own-word bit is tested first (a legacy record's
/// word, which has lock bits 00 too; one sign test, where folding the bit
/// into the expected word took LLVM more instructions). Together: the CAS
/// succeeds only on a word [`Mark::is_fast_locked`] accepts.
#[inline(always)]
fn fast_unlock_loaded(obj: &Header) -> bool {
    // Relaxed: as in `fast_lock_loaded`; the CAS releases.
    let mark = obj.load(super::atomic::Ordering::Relaxed);
    if mark.0 & OWN_WORD_BIT == 0 {
        return false; // a legacy record's word: not a fast-lock
    }
    let fast_locked = Mark(mark.0 & !LOCK_MASK);
    // Release: as in `LockStack::fast_unlock`.
    obj.cas(
        fast_locked,
        fast_locked.set_unlocked(),
        super::atomic::Ordering::Release,
        super::atomic::Ordering::Relaxed,
    )
    .is_ok()
}

#[cfg(all(test, not(loom)))]
mod tests {
    //! Mirrors HotSpot's test/hotspot/gtest/runtime/test_lockStack.cpp
    //! (is_recursive, try_recursive_enter, contains, remove) on a standalone
    //! lock-stack; the `*_raw` helpers are its `push_raw`/`pop_raw`.
    use super::*;

    fn fresh() -> LockStack {
        let ls = LockStack::new_unregistered();
        ls.set_mode(ThreadMode::Lightweight);
        ls
    }
    fn push_raw(ls: &LockStack, a: usize) {
        ls.push(a);
    }
    fn pop_raw(ls: &LockStack) {
        ls.set_len(ls.len() - 1);
    }
    const NOT_LIGHTWEIGHT: [ThreadMode; 4] = [
        ThreadMode::Unregistered,
        ThreadMode::Monitor,
        ThreadMode::Legacy,
        ThreadMode::Exited,
    ];
    const O0: usize = 0x1000;
    const O1: usize = 0x2000;
    const O2: usize = 0x3000;
    const O3: usize = 0x4000;

    #[test]
    fn is_recursive() {
        let ls = fresh();
        push_raw(&ls, O0);
        assert!(!ls.is_recursive(O0));
        push_raw(&ls, O1);
        assert!(!ls.is_recursive(O0) && !ls.is_recursive(O1));
        push_raw(&ls, O1);
        assert!(!ls.is_recursive(O0) && ls.is_recursive(O1));
        pop_raw(&ls);
        pop_raw(&ls);
        push_raw(&ls, O0);
        assert!(ls.is_recursive(O0)); // 0, 0
        push_raw(&ls, O0);
        assert!(ls.is_recursive(O0)); // 0, 0, 0
        pop_raw(&ls);
        push_raw(&ls, O1);
        assert!(ls.is_recursive(O0) && !ls.is_recursive(O1)); // 0, 0, 1
        push_raw(&ls, O1);
        assert!(ls.is_recursive(O0) && ls.is_recursive(O1)); // 0, 0, 1, 1
        for _ in 0..4 {
            pop_raw(&ls);
        }
        assert!(ls.is_empty());
    }

    #[test]
    fn try_recursive_enter_and_exit() {
        let ls = fresh();
        ls.push(O0);
        ls.push(O1);
        assert!(!ls.is_recursive(O0) && !ls.is_recursive(O1));
        assert!(!ls.try_recursive_enter(O0), "O0 is held but not on top");
        assert!(ls.try_recursive_enter(O1)); // 0, 1, 1
        assert!(!ls.is_recursive(O0) && ls.is_recursive(O1));
        assert!(ls.try_recursive_exit(O1));
        assert!(!ls.try_recursive_exit(O1), "single entry: not a recursive exit");
        pop_raw(&ls);
        assert!(ls.try_recursive_enter(O0)); // 0, 0
        assert!(ls.try_recursive_enter(O0)); // 0, 0, 0
        assert!(ls.is_recursive(O0));
        assert!(ls.try_recursive_exit(O0));
        push_raw(&ls, O1); // 0, 0, 1
        assert!(ls.is_recursive(O0) && !ls.is_recursive(O1));
        assert!(ls.try_recursive_enter(O1)); // 0, 0, 1, 1
        assert!(ls.is_recursive(O0) && ls.is_recursive(O1));
        assert_eq!(ls.len(), 4);
    }

    #[test]
    fn recursive_enter_refuses_when_full() {
        let ls = fresh();
        for _ in 0..CAPACITY {
            ls.push(O0);
        }
        assert!(ls.is_full());
        assert!(!ls.try_recursive_enter(O0));
        assert_eq!(ls.len(), CAPACITY);
    }

    #[test]
    fn contains() {
        let ls = fresh();
        assert!(!ls.contains(O0));
        ls.push(O0);
        assert!(ls.contains(O0) && !ls.contains(O1));
        push_raw(&ls, O0);
        assert!(ls.contains(O0) && !ls.contains(O1));
        push_raw(&ls, O1);
        assert!(ls.contains(O0) && ls.contains(O1));
        push_raw(&ls, O1);
        pop_raw(&ls);
        pop_raw(&ls);
        pop_raw(&ls);
        push_raw(&ls, O1); // 0, 1
        assert!(ls.contains(O0) && ls.contains(O1));
    }

    #[test]
    fn remove_returns_the_run_length() {
        let ls = fresh();
        push_raw(&ls, O0);
        assert_eq!(ls.remove(O0), 1);
        assert!(!ls.contains(O0));
        push_raw(&ls, O0);
        push_raw(&ls, O0);
        assert_eq!(ls.remove(O0), 2);
        for (first, second) in [(O0, O1), (O1, O0)] {
            push_raw(&ls, O0);
            push_raw(&ls, O1);
            assert_eq!(ls.remove(first), 1);
            assert!(!ls.contains(first) && ls.contains(second));
            ls.remove(second);
            assert!(ls.is_empty());
        }
        for (a, b, b2) in [(O0, O0, O1), (O0, O1, O1)] {
            push_raw(&ls, a);
            push_raw(&ls, b);
            push_raw(&ls, b2);
            let twice = if a == b { a } else { b };
            assert_eq!(ls.remove(twice), 2);
            ls.remove(if twice == O0 { O1 } else { O0 });
            assert!(ls.is_empty());
        }
        for e in [O0, O1, O1, O2, O2, O2, O2, O3] {
            push_raw(&ls, e);
        }
        assert_eq!(ls.len(), 8);
        assert_eq!(ls.remove(O1), 2);
        assert_eq!(
            (0..6).map(|i| ls.at(i)).collect::<Vec<_>>(),
            [O0, O2, O2, O2, O2, O3]
        );
        assert_eq!(ls.remove(O2), 4);
        assert_eq!((ls.at(0), ls.at(1), ls.len()), (O0, O3, 2));
        assert_eq!(ls.remove(O0), 1);
        assert_eq!((ls.at(0), ls.len()), (O3, 1));
        assert_eq!(ls.remove(O3), 1);
        assert!(ls.is_empty());
    }

    #[test]
    fn remove_leaves_sentinel_states_intact() {
        for mode in NOT_LIGHTWEIGHT {
            let ls = LockStack::new_unregistered();
            if mode != ThreadMode::Unregistered {
                ls.set_mode(mode);
            }
            assert_eq!(ls.remove(O0), 0);
            assert_eq!((ls.mode(), ls.lock_stack_top.get()), (mode, INACTIVE));
        }
        // An empty registered stack stays at depth 0.
        let ls = fresh();
        assert_eq!(ls.remove(O0), 0);
        assert_eq!(ls.lock_stack_top.get(), START32);
    }

    /// The inline paths' cached state: set with the
    /// thread's state, hidden while the thread is in the legacy state and
    /// back when it leaves it, cleared with the state.
    #[test]
    fn inline_state_follows_registration_and_mode() {
        let ls = LockStack::new_unregistered();
        let (handle, state, critical) = (
            0x10 as *const std::sync::Arc<ThreadState>,
            0x20 as *const ThreadState,
            0x30 as *const Critical,
        );
        assert!(ls.inline_state().0.is_null(), "unregistered");
        ls.set_mode(ThreadMode::Lightweight);
        ls.set_current(handle, state, critical, 7);
        assert_eq!(ls.owner_id.get(), 7);
        assert_eq!(ls.inline_state(), (state, critical));
        ls.verify("lightweight");
        ls.set_mode(ThreadMode::Legacy);
        assert!(
            ls.inline_state().0.is_null(),
            "legacy threads take their own path"
        );
        ls.verify("legacy");
        ls.set_mode(ThreadMode::Monitor);
        assert_eq!(ls.inline_state().0, state);
        ls.set_current(core::ptr::null(), core::ptr::null(), core::ptr::null(), 0);
        assert!(ls.inline_state().0.is_null(), "registration gone");
        ls.verify("uncached");
    }

    /// The `SynchronizedGuard` marks follow their entries through `remove`; a
    /// marked entry removed (moved into a monitor) goes on the list;
    /// `forget_guard` clears both; `guarded_objects` reports both.
    #[test]
    fn guard_marks_follow_entries_and_move_to_the_list() {
        const FL: usize = NEUTRAL & !LOCK_MASK; // a fresh header, fast-locked
                                                // Leaked: `remove` leaves a header fast-locked (its lock moved to a
                                                // monitor in real use), and a locked header must not be dropped.
        let header = || -> &'static Header { Box::leak(Box::new(Header::new())) };
        let ls = fresh();
        let (a, b, c) = (header(), header(), header());
        assert_eq!(ls.try_fast_enter_guarded(a), GuardedEnter::Acquired(FL));
        assert!(ls.try_fast_enter(b));
        assert_eq!(ls.try_fast_enter_guarded(c), GuardedEnter::Acquired(FL));
        assert_eq!(ls.try_fast_enter_guarded(c), GuardedEnter::AlreadyHeld);
        assert_eq!(
            ls.try_fast_enter_guarded(a),
            GuardedEnter::Slow,
            "held, not on top"
        );
        assert_eq!(ls.guarded_objects(), [a.addr(), c.addr()]);
        // The mark is bit 0 of the entry's word; `at` leaves it off.
        assert_eq!(
            (0..3).map(|i| ls.lock_stack[i].get()).collect::<Vec<_>>(),
            [a.addr() | GUARD_MARK, b.addr(), c.addr() | GUARD_MARK]
        );
        assert_eq!((ls.at(0), ls.top()), (a.addr(), Some(c.addr())));
        assert!(
            !ls.try_fast_exit(c),
            "a marked entry is another object's to the raw exit"
        );
        // b leaves: c's mark moves down with it.
        assert_eq!(ls.remove(b.addr()), 1);
        assert_eq!(ls.guarded_objects(), [a.addr(), c.addr()]);
        assert!(!ls.try_fast_exit_guarded(a, FL), "not on top");
        // a is inflated: off the stack, onto the list.
        assert_eq!(ls.remove(a.addr()), 1);
        assert_eq!(ls.len(), 1);
        assert_eq!(ls.guarded_objects(), [c.addr(), a.addr()]);
        assert!(ls.try_fast_exit_guarded(c, FL));
        assert!(ls.is_empty());
        assert_eq!(ls.guarded_objects(), [a.addr()]);
        ls.forget_guard(a.addr());
        assert!(ls.guarded_objects().is_empty());
        // An unmarked entry is not a guard's: its guarded exit refuses.
        let (d, e) = (header(), header());
        assert!(ls.try_fast_enter(d));
        assert!(!ls.try_fast_exit_guarded(d, FL));
        assert!(ls.try_fast_exit(d));
        // forget_guard clears a mark left on the stack.
        assert_eq!(ls.try_fast_enter_guarded(e), GuardedEnter::Acquired(FL));
        ls.forget_guard(e.addr());
        assert!(ls.guarded_objects().is_empty());
        assert!(!ls.try_fast_exit_guarded(e, FL));
        assert!(ls.try_fast_exit(e));
    }

    /// The guarded pair's words: the enter returns the word it stored
    /// (the guess, or the word found where the guess missed), the exit's
    /// CAS expects the word it is given and falls back to the word found
    /// when the header changed while held (a hash installed), and refuses
    /// a word that is no fast-lock of its own (a contender's monitor),
    /// changing nothing.
    #[test]
    fn guarded_pair_carries_the_word_it_locked() {
        use super::super::atomic::Ordering::Relaxed;
        let ls = fresh();
        let plain = Header::new();
        let fl = NEUTRAL & !LOCK_MASK;
        assert_eq!(ls.try_fast_enter_guarded(&plain), GuardedEnter::Acquired(fl));
        assert_eq!(plain.raw(), fl);
        assert!(ls.try_fast_exit_guarded(&plain, fl));
        assert_eq!((plain.raw(), ls.len()), (NEUTRAL, 0));

        // Spare bits the guess lacks: the missed CAS's word comes back,
        // and is what the exit expects.
        let spare = 0x5a << 40;
        let odd = Header::with_spare_bits(spare);
        let odd_unlocked = odd.load(Relaxed);
        let GuardedEnter::Acquired(held) = ls.try_fast_enter_guarded(&odd) else {
            panic!("not taken");
        };
        assert_eq!(held, odd_unlocked.set_fast_locked().0);
        assert!(ls.try_fast_exit_guarded(&odd, held));
        assert_eq!((odd.load(Relaxed), ls.len()), (odd_unlocked, 0));
        // Remembered: the next enter loads the header, same word.
        assert_eq!(ls.try_fast_enter_guarded(&odd), GuardedEnter::Acquired(held));
        // A hash installed while held: the stale word misses, the exit
        // continues from the word found, keeping the hash.
        let hashed = Mark(held | (0x1234 << super::super::header::HASH_SHIFT));
        odd.cas(Mark(held), hashed, Relaxed, Relaxed).unwrap();
        assert!(ls.try_fast_exit_guarded(&odd, held));
        assert_eq!((odd.load(Relaxed), ls.len()), (hashed.set_unlocked(), 0));

        // A remembered object with a monitor: the slow path at once, even
        // held on top (the slow path's `holds_lock` answers that), nothing
        // pushed.
        let inflated = Header::new();
        let monitor = Mark(0x1000 | MONITOR);
        inflated.cas(Mark(NEUTRAL), monitor, Relaxed, Relaxed).unwrap();
        ls.guess_missed.set(inflated.addr());
        assert_eq!(ls.try_fast_enter_guarded(&inflated), GuardedEnter::Slow);
        ls.push(inflated.addr() | GUARD_MARK);
        assert_eq!(ls.try_fast_enter_guarded(&inflated), GuardedEnter::Slow);
        assert_eq!((inflated.load(Relaxed), ls.len()), (monitor, 1));
        pop_raw(&ls);
        inflated.cas(monitor, Mark(NEUTRAL), Relaxed, Relaxed).unwrap();

        // A contender's monitor while held: refused, nothing changed.
        let h = Header::new();
        assert_eq!(ls.try_fast_enter_guarded(&h), GuardedEnter::Acquired(fl));
        let monitor = Mark(0x1000 | MONITOR);
        h.cas(Mark(fl), monitor, Relaxed, Relaxed).unwrap();
        assert!(!ls.try_fast_exit_guarded(&h, fl));
        assert_eq!((h.load(Relaxed), ls.len()), (monitor, 1));
        // Unlocked again before it drops (its drop must not take the
        // made-up word for a monitor to free).
        h.cas(monitor, Mark(NEUTRAL), Relaxed, Relaxed).unwrap();
        pop_raw(&ls);
    }

    /// The list of guards held off the stack: inline first, then the
    /// overflow; forgetting in any order keeps exactly the others.
    #[test]
    fn guards_listed_off_the_stack_overflow_and_are_forgotten_in_any_order() {
        let ls = fresh();
        let addrs: Vec<usize> = (1..=CAPACITY + 3).map(|i| i * 0x100).collect();
        for &a in &addrs {
            ls.note_guarded_elsewhere(a);
        }
        let mut left = addrs.clone();
        for a in [
            addrs[2],
            addrs[CAPACITY + 1],
            addrs[CAPACITY + 2],
            addrs[0],
            addrs[CAPACITY - 1],
        ] {
            ls.forget_guard(a);
            left.retain(|&x| x != a);
            let mut seen = ls.guarded_objects();
            seen.sort_unstable();
            assert_eq!(seen, left);
        }
        for &a in &left.clone() {
            ls.forget_guard(a);
        }
        assert!(ls.guarded_objects().is_empty());
        ls.forget_guard(0x4242); // never listed: nothing happens
        assert!(ls.guarded_objects().is_empty());
    }

    /// The fast paths' CASes do the lock-bit checks: the enter
    /// takes only an unlocked word and the exit releases only a fast-locked
    /// one; every other word (a monitor, a GC's `11`, a legacy record,
    /// another thread's fast-lock) fails them and changes nothing, while a
    /// held object on top still re-enters, whatever its word.
    #[test]
    fn fast_path_cas_refuses_every_word_but_its_own() {
        use super::super::atomic::Ordering::Relaxed;
        use super::super::header::GC_RESERVED;
        let spare = 0x5a << 40;
        let words = [
            ("monitor", Mark(spare | 0x1000 | MONITOR)),
            ("gc", Mark(spare | OWN_WORD_BIT | GC_RESERVED)),
            ("legacy record", Mark::stack_locked_by(0x2000)),
            ("fast-locked elsewhere", Mark(spare | OWN_WORD_BIT)),
        ];
        for (what, word) in words {
            let header = Header::with_spare_bits(spare);
            let h = &header;
            let unlocked = h.load(Relaxed);
            h.cas(unlocked, word, Relaxed, Relaxed).unwrap();
            let ls = fresh();
            assert!(!ls.try_fast_enter(h), "{what}: entered");
            assert_eq!(ls.try_fast_enter_guarded(h), GuardedEnter::Slow, "{what}");
            assert!(ls.is_empty(), "{what}: pushed");
            assert_eq!(h.load(Relaxed), word, "{what}: enter changed the word");
            // On top (as after a contender inflated our fast-lock, or a
            // corrupt word): the exit's CAS must refuse all but its own.
            ls.push(h.addr());
            if !word.is_fast_locked() {
                assert!(!ls.try_fast_exit(h), "{what}: exited");
                assert_eq!(ls.len(), 1, "{what}: popped");
                assert_eq!(h.load(Relaxed), word, "{what}: exit changed the word");
            }
            // Held on top: re-entered, whatever the word.
            assert!(ls.try_fast_enter(h), "{what}: no recursive enter");
            assert_eq!(ls.len(), 2);
            assert!(ls.try_fast_exit(h), "{what}: no recursive exit");
            assert_eq!(h.load(Relaxed), word, "{what}: recursion changed the word");
            // Unlocked again before it drops: its drop must not take the
            // made-up word for a monitor of its own to free.
            pop_raw(&ls);
            h.cas(word, unlocked, Relaxed, Relaxed).unwrap();
        }
        // The one word each takes: unlocked in, fast-locked (ours) out,
        // spare and hash bits kept.
        let h = Header::with_spare_bits(spare);
        let unlocked = h.load(Relaxed);
        let ls = fresh();
        assert!(ls.try_fast_enter(&h));
        assert_eq!(h.load(Relaxed), unlocked.set_fast_locked());
        assert!(h.load(Relaxed).is_fast_locked());
        assert!(ls.try_fast_exit(&h));
        assert_eq!(h.load(Relaxed), unlocked);
        assert!(ls.is_empty());
    }

    /// The guessed CASes: a header that is not the guess (hashed, other
    /// spare bits, hashed while held, a wrong guess) still locks and
    /// unlocks with its bits kept, and the object is remembered, so that
    /// its next pair loads the header instead of failing a CAS again; a
    /// lock another thread holds is not remembered (it passes); the right
    /// guess remembers nothing.
    #[test]
    fn guesses_that_miss_fall_back_and_are_remembered() {
        use super::super::atomic::Ordering::Relaxed;
        let ls = fresh();
        let plain = Header::new();
        assert!(ls.try_fast_enter(&plain) && ls.try_fast_exit(&plain));
        assert_eq!(ls.guess_missed.get(), 0, "the neutral word was guessed right");
        assert_eq!(plain.raw(), NEUTRAL);

        // Spare bits the guess does not have, then the runtime's guess.
        let spare = 0x5a << 40;
        let odd = Header::with_spare_bits(spare);
        let unlocked = odd.raw();
        assert!(ls.try_fast_enter(&odd));
        assert_eq!(ls.guess_missed.get(), odd.addr());
        assert_eq!(odd.load(Relaxed), Mark(unlocked).set_fast_locked());
        assert!(ls.try_fast_exit(&odd), "the loaded exit");
        assert_eq!(odd.raw(), unlocked);
        ls.guess_missed.set(0);
        let neutral = Header::neutral_word(spare);
        assert!(ls.try_fast_enter_guessing(&odd, neutral) && ls.try_fast_exit_guessing(&odd, neutral));
        assert_eq!((ls.guess_missed.get(), odd.raw()), (0, unlocked));
        // A wrong guess for a plain header: the found word is locked.
        assert!(ls.try_fast_enter_guessing(&plain, neutral));
        assert_eq!(ls.guess_missed.get(), plain.addr());
        ls.guess_missed.set(0);
        assert!(
            ls.try_fast_exit_guessing(&plain, neutral),
            "the exit's guess misses too"
        );
        assert_eq!((ls.guess_missed.get(), plain.raw()), (plain.addr(), NEUTRAL));
        ls.guess_missed.set(0);

        // Hashed while held: the enter guessed right, the exit misses.
        let h = Header::new();
        assert!(ls.try_fast_enter(&h));
        let hash = super::super::hash::identity_hash(&h);
        assert!(ls.try_fast_exit(&h));
        assert_eq!(ls.guess_missed.get(), h.addr());
        assert!(h.load(Relaxed).is_unlocked() && h.load(Relaxed).hash() == hash);
        // Then the loaded form, both ways, the hash kept.
        assert!(ls.try_fast_enter(&h) && ls.try_fast_exit(&h));
        assert_eq!(super::super::hash::identity_hash(&h), hash);
        assert!(h.load(Relaxed).is_unlocked() && ls.is_empty());

        // Held by another thread: refused, not remembered.
        ls.guess_missed.set(0);
        let other = Header::new();
        let locked = other.load(Relaxed).set_fast_locked();
        other.cas(Mark(NEUTRAL), locked, Relaxed, Relaxed).unwrap();
        assert!(!ls.try_fast_enter(&other));
        assert_eq!((ls.guess_missed.get(), other.load(Relaxed)), (0, locked));
        other.cas(locked, Mark(NEUTRAL), Relaxed, Relaxed).unwrap();

        // A monitor's word: refused and remembered (it stays inflated), so
        // the next enter tests the monitor bit with no failing CAS. The
        // word is restored before the header drops.
        let inflated = Header::new();
        let monitor = Mark(0x1000 | MONITOR);
        inflated.cas(Mark(NEUTRAL), monitor, Relaxed, Relaxed).unwrap();
        assert!(!ls.try_fast_enter(&inflated));
        assert_eq!(ls.guess_missed.get(), inflated.addr());
        assert!(!ls.try_fast_enter(&inflated));
        assert_eq!(inflated.load(Relaxed), monitor);
        inflated.cas(monitor, Mark(NEUTRAL), Relaxed, Relaxed).unwrap();
    }

    #[test]
    fn sentinel_states_fail_both_fast_paths() {
        let h = Header::new();
        for mode in NOT_LIGHTWEIGHT {
            let ls = LockStack::new_unregistered();
            if mode != ThreadMode::Unregistered {
                ls.set_mode(mode);
            }
            assert!(!ls.try_fast_enter(&h));
            assert!(!ls.try_fast_exit(&h));
            assert_eq!(h.lock_state(), super::super::header::LockState::Unlocked);
            assert!(ls.is_empty());
        }
    }
}
