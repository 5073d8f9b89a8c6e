//! The thread block: every fast path's per-thread state in one `#[repr(C)]`
//! struct at a stable address, with a published layout (HotSpot keeps the
//! same state in `JavaThread`, which compiled code holds in r15 on x86-64
//! and x28 on aarch64).
//!
//! Where it sits: below every subsystem, and it imports none of them.
//! `sync`'s fast paths push and pop the lock-stack here and read the owner
//! identity and critical-section word the inline inflated paths need; the
//! GC's per-thread words (GC-state byte copy, SATB queue, card table base,
//! TLAB, poll word) live here while the thread is a heap's mutator
//! (`gc.rs`), read by the Rust barriers and generated code alike; a JIT
//! loads [`current()`] once into its thread register and addresses every
//! field at the offsets below. One word is the runtime's own
//! ([`RUNTIME_CONTEXT_OFFSET`]): where it keeps the address of its
//! per-thread state, so that the thread register reaches both.
//!
//! | file | concept |
//! |---|---|
//! | `mod.rs` | the block, its published layout, [`current()`] |
//! | `state.rs` | the shared part of a thread's state (`ThreadState`: owner id, park event, interrupt status, critical-section word), behind an `Arc` |
//! | `park.rs` | the per-thread park event (futex) |
//! | `critical.rs` | per-thread critical sections and the grace period over them (what lets `sync` free a deflated monitor) |
//! | `gc.rs` | the GC fields while the thread is a heap's mutator: binding, idle values, the exit guard for the poll word |
//!
//! Where the block lives: in static TLS, a `const`-initialised thread-local
//! with no destructor. Its address is fixed for the thread's whole life
//! (not only while registered), reaching it is one TLS-relative address
//! (`%fs:OFF` in an executable), there is no allocation to fail and no
//! lazy-initialisation check, and a thread that never registers still has
//! a block whose lock-stack fails the fast paths' bounds checks. A block is
//! never freed while its thread runs, which is what lets [`current()`]
//! return a `'static` reference; it is `!Sync` (so the reference is
//! `!Send`): only its own thread ever holds one. When a thread exits and a
//! new one reuses the TLS memory, the new thread starts from the `const`
//! image (`ThreadBlock::new`), never from the old thread's words.
//!
//! The lock-stack (HotSpot lockStack.hpp): `top` is the byte offset, from
//! the block, of the next free entry; the entries are
//! [`LOCK_STACK_CAPACITY`] words from [`LOCK_STACK_OFFSET`] to
//! [`LOCK_STACK_END_OFFSET`], and the word just below them
//! ([`LOCK_STACK_SENTINEL_OFFSET`]) holds 0, which is never an object's
//! address: the recursive check reads `[block + top - 8]` with no underflow
//! test. A thread that does not run lightweight locking (unregistered,
//! monitor-only, legacy, exited) has `top` = [`LOCK_STACK_INACTIVE`], above
//! the end, so both fast paths fail their one bounds check (enter:
//! `top >= END`, exit: `top > END`, or, loading `top`'s low byte alone, the
//! sentinel found on top) with no extra test; its mode is in
//! [`LOCKING_MODE_OFFSET`], a byte only slow paths read.
//!
//! Invariants: `top` is in `[LOCK_STACK_OFFSET, LOCK_STACK_END_OFFSET]` and
//! a multiple of 8 from it, or is `LOCK_STACK_INACTIVE`; `top` is
//! `LOCK_STACK_INACTIVE` exactly when the mode is not lightweight; the
//! sentinel word is 0 forever; only the owning thread writes any field but
//! the poll word. Every hot field is within the first 255 bytes
//! ([`HOT_END`]), so each offset fits any immediate form.

use core::cell::{Cell, RefCell};
use core::mem::{offset_of, ManuallyDrop};
use core::sync::atomic::AtomicUsize;

mod critical;
mod park;
mod state;

#[cfg(not(loom))]
pub(crate) use critical::live_threads;
pub(crate) use critical::{init_asymmetric_barrier, wait_for_readers, Critical, Section};
pub(crate) use state::{ThreadState, FIRST_THREAD_ID};

#[cfg(not(loom))]
mod gc;
#[cfg(not(loom))]
pub(crate) use gc::{GcFields, POLL_ARMED, SATB_BUFFER_WORDS};

/// Entries of the lock-stack (HotSpot `LockStack::CAPACITY`).
pub const LOCK_STACK_CAPACITY: usize = 8;

/// What a thread runs, as the block's mode byte says (read only by slow
/// paths; the fast paths see the lock-stack `top` instead).
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadMode {
    /// Not registered yet: its first slow path registers it.
    Unregistered = 0,
    /// Lightweight locking: the lock-stack is live.
    Lightweight = 1,
    /// Every lock is a monitor.
    Monitor = 2,
    /// Legacy stack-locking with lock records.
    Legacy = 3,
    /// Its registration was destroyed at thread exit; later locks (from
    /// other thread-local destructors) are monitors.
    Exited = 4,
}

impl ThreadMode {
    fn from_byte(b: u8) -> ThreadMode {
        match b {
            1 => ThreadMode::Lightweight,
            2 => ThreadMode::Monitor,
            3 => ThreadMode::Legacy,
            4 => ThreadMode::Exited,
            _ => ThreadMode::Unregistered,
        }
    }
}

/// One thread's block. Fields are private to the library; generated code
/// reaches them through the published offsets.
#[repr(C)]
pub struct ThreadBlock {
    // ---- hot: within the first 255 bytes ----
    /// Lock-stack top, a byte offset from the block (see the module docs).
    pub(crate) lock_stack_top: Cell<u32>,
    /// The GC-state byte copy (Shenandoah's `gc_state`: marking, has
    /// forwarded objects…) the barrier fast paths test, while the thread is
    /// a mutator of a heap (`gc.rs`); 0 otherwise.
    pub(crate) gc_state: Cell<u8>,
    /// [`ThreadMode`] as a byte; slow paths only.
    pub(crate) locking_mode: Cell<u8>,
    /// Set once the thread is about to own a monitor: lets its exit skip
    /// the monitor registry's scan if it only ever fast-locked. Written by
    /// the inline inflated enter beside `owner_id` (no pointer chase).
    pub(crate) may_own_monitors: Cell<bool>,
    _reserved: u8,
    /// The safepoint poll word (a thread-local poll, as HotSpot's), armed by
    /// the collector from another thread: the only field written by
    /// another thread (`gc.rs`; bit 0 armed).
    pub(crate) poll_word: AtomicUsize,
    /// The owner identity monitors record for this thread (≥ 3), 0 before
    /// it registers.
    pub(crate) owner_id: Cell<usize>,
    /// The thread's sync state for the inline inflated paths: null unless
    /// registered and not a legacy-mode thread (one null test says both).
    pub(crate) inline_state: Cell<*const ThreadState>,
    /// Its critical-section word (monitor reclamation); valid while
    /// `sync_state` is non-null.
    pub(crate) critical: Cell<*const Critical>,
    /// SATB queue index (bytes left, as HotSpot's `SATBMarkQueue`; `gc.rs`).
    pub(crate) satb_index: Cell<usize>,
    /// SATB queue buffer (words; null unless the thread is a mutator).
    pub(crate) satb_buffer: Cell<*mut usize>,
    /// Card table base (biased by the heap's start; null when idle).
    pub(crate) card_table_base: Cell<*mut u8>,
    /// TLAB top (the bump pointer; 0 when idle).
    pub(crate) tlab_top: Cell<usize>,
    /// TLAB end (0 when idle).
    pub(crate) tlab_end: Cell<usize>,
    /// Always 0, just below the entries (HotSpot `_bad_oop_sentinel`).
    pub(crate) lock_stack_sentinel: usize,
    /// Header addresses, bottom first; those at `top` and above are stale.
    /// Bit 0 set: held by a `SynchronizedGuard` (`sync`'s mark; generated code never
    /// pushes one, and takes one for another object's entry).
    pub(crate) lock_stack: [Cell<usize>; LOCK_STACK_CAPACITY],
    /// The last object whose header differed from the neutral word a Rust
    /// fast path guessed (hashed, inflated, other spare bits): its fast
    /// paths load the header instead of guessing (`sync/lock_stack.rs`).
    /// Published ([`GUESS_MISSED_OFFSET`]) for the C ABI's inline pair,
    /// which leaves such an object to the called path; generated code
    /// guesses its own way and never reads it.
    pub(crate) guess_missed: Cell<usize>,
    /// The runtime's own per-thread word, which the library never reads
    /// nor writes after `new` (see [`ThreadBlock::set_runtime_context`]).
    pub(crate) runtime_context: Cell<usize>,
    // ---- cold: slow paths only ----
    /// The thread's registered state (the registration's `Arc`, or a leaked
    /// orphan's), null until registered and again once the registration
    /// is destroyed.
    pub(crate) current: Cell<*const std::sync::Arc<ThreadState>>,
    /// The state behind `inline_state`, also while in legacy mode.
    pub(crate) sync_state: Cell<*const ThreadState>,
    /// Entries used in `guarded_elsewhere`.
    pub(crate) guarded_elsewhere_len: Cell<usize>,
    /// Objects held by live `SynchronizedGuard`s and not marked above, first
    /// [`LOCK_STACK_CAPACITY`] inline.
    pub(crate) guarded_elsewhere: [Cell<usize>; LOCK_STACK_CAPACITY],
    /// The list beyond `guarded_elsewhere`. `ManuallyDrop`: keeps the block
    /// destructor-free; the exit release frees the buffer once empty.
    pub(crate) guarded_overflow: ManuallyDrop<RefCell<Vec<usize>>>,
}

/// Layout version: a consumer compiled against these offsets checks it
/// against [`layout_version`] (C: `fastpath_thread_layout_version()`) at
/// start. Changes whenever an offset or a value's meaning does.
pub const LAYOUT_VERSION: u32 = 4;
/// Offset of the lock-stack top (`u32`, a byte offset from the block).
pub const LOCK_STACK_TOP_OFFSET: usize = offset_of!(ThreadBlock, lock_stack_top);
/// Offset of the GC-state byte copy (`u8`).
pub const GC_STATE_OFFSET: usize = offset_of!(ThreadBlock, gc_state);
/// Offset of the locking-mode byte ([`ThreadMode`]).
pub const LOCKING_MODE_OFFSET: usize = offset_of!(ThreadBlock, locking_mode);
/// Offset of the safepoint poll word (`usize`).
pub const POLL_WORD_OFFSET: usize = offset_of!(ThreadBlock, poll_word);
/// Offset of the owner id monitors record (`usize`).
pub const OWNER_ID_OFFSET: usize = offset_of!(ThreadBlock, owner_id);
/// Offset of the inline inflated paths' thread-state pointer.
pub const SYNC_STATE_OFFSET: usize = offset_of!(ThreadBlock, inline_state);
/// Offset of the critical-section word pointer.
pub const CRITICAL_OFFSET: usize = offset_of!(ThreadBlock, critical);
/// Offset of the SATB queue index (`usize`).
pub const SATB_INDEX_OFFSET: usize = offset_of!(ThreadBlock, satb_index);
/// Offset of the SATB queue buffer pointer.
pub const SATB_BUFFER_OFFSET: usize = offset_of!(ThreadBlock, satb_buffer);
/// Offset of the card table base pointer.
pub const CARD_TABLE_BASE_OFFSET: usize = offset_of!(ThreadBlock, card_table_base);
/// Offset of the TLAB top (`usize`).
pub const TLAB_TOP_OFFSET: usize = offset_of!(ThreadBlock, tlab_top);
/// Offset of the TLAB end (`usize`).
pub const TLAB_END_OFFSET: usize = offset_of!(ThreadBlock, tlab_end);
/// Offset of the sentinel word below the entries (always 0).
pub const LOCK_STACK_SENTINEL_OFFSET: usize = offset_of!(ThreadBlock, lock_stack_sentinel);
/// Offset of the first lock-stack entry: `top` of an empty lock-stack.
pub const LOCK_STACK_OFFSET: usize = offset_of!(ThreadBlock, lock_stack);
/// One past the last entry: `top` of a full lock-stack.
pub const LOCK_STACK_END_OFFSET: usize = LOCK_STACK_OFFSET + 8 * LOCK_STACK_CAPACITY;
/// `top` of a thread that does not run lightweight locking: above the end,
/// and its low byte is [`LOCK_STACK_OFFSET`], the empty lock-stack's top.
/// Every valid `top` fits a byte ([`HOT_END`] ≤ 255), so an exit that loads
/// only the low byte reads the sentinel as the top entry of an inactive
/// thread and fails its on-top check: the bounds check is in the data, as
/// HotSpot's `_bad_oop_sentinel` holds the underflow check.
pub const LOCK_STACK_INACTIVE: u32 = 0xffff_ff00 | LOCK_STACK_OFFSET as u32;
/// Offset of the last object whose guessed header missed (`usize`, an
/// object's address or 0), which only the library writes: a fast path
/// that finds its object here loads the header instead of guessing.
pub const GUESS_MISSED_OFFSET: usize = offset_of!(ThreadBlock, guess_missed);
/// Offset of the runtime's context word (`usize`,
/// [`ThreadBlock::set_runtime_context`]): a JIT that keeps the block in
/// its thread register reaches its own per-thread state with one load.
pub const RUNTIME_CONTEXT_OFFSET: usize = offset_of!(ThreadBlock, runtime_context);
/// Every published hot field but the guess cache ends at or below this
/// offset (the guess cache follows, within the first 255 bytes).
pub const HOT_END: usize = LOCK_STACK_END_OFFSET;

const _: () = {
    assert!(HOT_END <= 255, "hot fields within the first 255 bytes");
    assert!(
        offset_of!(ThreadBlock, guess_missed) + 8 <= 255,
        "the guess cache is hot too"
    );
    assert!(
        RUNTIME_CONTEXT_OFFSET + 8 <= 255,
        "the runtime's context word is hot too"
    );
    assert!(LOCK_STACK_SENTINEL_OFFSET + 8 == LOCK_STACK_OFFSET);
    assert!(
        core::mem::size_of::<usize>() == 8,
        "the published layout is 64-bit"
    );
    assert!(LOCK_STACK_INACTIVE as usize > LOCK_STACK_END_OFFSET);
    assert!(LOCK_STACK_INACTIVE as u8 as usize == LOCK_STACK_OFFSET);
};

/// The layout version this library was built with ([`LAYOUT_VERSION`]).
pub fn layout_version() -> u32 {
    LAYOUT_VERSION
}

impl ThreadBlock {
    /// A block in the [`ThreadMode::Unregistered`] state.
    #[allow(clippy::declare_interior_mutable_const)]
    pub(crate) const fn new() -> ThreadBlock {
        const EMPTY: Cell<usize> = Cell::new(0);
        ThreadBlock {
            lock_stack_top: Cell::new(LOCK_STACK_INACTIVE),
            gc_state: Cell::new(0),
            locking_mode: Cell::new(ThreadMode::Unregistered as u8),
            may_own_monitors: Cell::new(false),
            _reserved: 0,
            poll_word: AtomicUsize::new(0),
            owner_id: Cell::new(0),
            inline_state: Cell::new(core::ptr::null()),
            critical: Cell::new(core::ptr::null()),
            satb_index: Cell::new(0),
            satb_buffer: Cell::new(core::ptr::null_mut()),
            card_table_base: Cell::new(core::ptr::null_mut()),
            tlab_top: Cell::new(0),
            tlab_end: Cell::new(0),
            lock_stack_sentinel: 0,
            lock_stack: [EMPTY; LOCK_STACK_CAPACITY],
            guess_missed: Cell::new(0),
            runtime_context: Cell::new(0),
            current: Cell::new(core::ptr::null()),
            sync_state: Cell::new(core::ptr::null()),
            guarded_elsewhere_len: Cell::new(0),
            guarded_elsewhere: [EMPTY; LOCK_STACK_CAPACITY],
            guarded_overflow: ManuallyDrop::new(RefCell::new(Vec::new())),
        }
    }

    /// What this thread runs (slow paths read it).
    #[inline]
    pub fn mode(&self) -> ThreadMode {
        ThreadMode::from_byte(self.locking_mode.get())
    }

    /// The runtime's context word: 0 until the runtime sets it.
    #[inline(always)]
    pub fn runtime_context(&self) -> usize {
        self.runtime_context.get()
    }

    /// Sets the runtime's context word, a word of the block that belongs
    /// to the runtime running on this thread (HotSpot's `JavaThread` is
    /// the VM's own, so its compiled code finds every per-thread field
    /// from r15; here the block is the library's, and this word is where
    /// a runtime keeps the address of its own per-thread state). Generated
    /// code that holds the block in its thread register reads it at
    /// [`RUNTIME_CONTEXT_OFFSET`] with one load, and keeps no second
    /// register for the runtime's context. The library never reads it; a
    /// runtime that nests another's entries on one thread saves and
    /// restores it around them.
    #[inline(always)]
    pub fn set_runtime_context(&self, word: usize) {
        self.runtime_context.set(word);
    }

    /// The block's address, as generated code holds it in its thread
    /// register.
    #[inline(always)]
    pub fn as_ptr(&self) -> *const ThreadBlock {
        self
    }
}

impl core::fmt::Debug for ThreadBlock {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ThreadBlock")
            .field("at", &(self as *const Self))
            .field("mode", &self.mode())
            .field("lock_stack_top", &self.lock_stack_top.get())
            .field("owner_id", &self.owner_id.get())
            .finish_non_exhaustive()
    }
}

#[cfg(not(loom))]
std::thread_local! {
    static BLOCK: ThreadBlock = const { ThreadBlock::new() };
}

/// The current thread's block: one TLS-relative address (no lazy
/// initialisation, no destructor state).
#[cfg(not(loom))]
#[inline(always)]
pub fn current() -> &'static ThreadBlock {
    let p: *const ThreadBlock = BLOCK.with(|b| b as *const ThreadBlock);
    // SAFETY: the thread-local has no destructor (`ThreadBlock` needs no
    // drop), so its memory stays valid until the thread itself is gone,
    // after any code of the thread can run; `ThreadBlock` is `!Sync`, so
    // the reference never reaches another thread.
    unsafe { &*p }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// Every published offset is where the real struct has its field, and
    /// the constants' values are those the C header publishes (checked
    /// there against these).
    #[test]
    fn published_offsets_are_the_struct_layout() {
        let b = ThreadBlock::new();
        let base = &b as *const ThreadBlock as usize;
        let at = |p: *const u8| p as usize - base;
        assert_eq!(LOCK_STACK_TOP_OFFSET, at(b.lock_stack_top.as_ptr().cast()));
        assert_eq!(GC_STATE_OFFSET, at(b.gc_state.as_ptr()));
        assert_eq!(LOCKING_MODE_OFFSET, at(b.locking_mode.as_ptr()));
        assert_eq!(POLL_WORD_OFFSET, at(b.poll_word.as_ptr().cast()));
        assert_eq!(OWNER_ID_OFFSET, at(b.owner_id.as_ptr().cast()));
        assert_eq!(SYNC_STATE_OFFSET, at(b.inline_state.as_ptr().cast()));
        assert_eq!(CRITICAL_OFFSET, at(b.critical.as_ptr().cast()));
        assert_eq!(SATB_INDEX_OFFSET, at(b.satb_index.as_ptr().cast()));
        assert_eq!(SATB_BUFFER_OFFSET, at(b.satb_buffer.as_ptr().cast()));
        assert_eq!(CARD_TABLE_BASE_OFFSET, at(b.card_table_base.as_ptr().cast()));
        assert_eq!(TLAB_TOP_OFFSET, at(b.tlab_top.as_ptr().cast()));
        assert_eq!(TLAB_END_OFFSET, at(b.tlab_end.as_ptr().cast()));
        assert_eq!(
            LOCK_STACK_SENTINEL_OFFSET,
            at((&b.lock_stack_sentinel as *const usize).cast())
        );
        assert_eq!(LOCK_STACK_OFFSET, at(b.lock_stack[0].as_ptr().cast()));
        assert_eq!(GUESS_MISSED_OFFSET, at(b.guess_missed.as_ptr().cast()));
        assert_eq!(RUNTIME_CONTEXT_OFFSET, at(b.runtime_context.as_ptr().cast()));
        assert_eq!(
            LOCK_STACK_END_OFFSET,
            at(b.lock_stack[LOCK_STACK_CAPACITY - 1].as_ptr().cast()) + 8
        );
        // The values generated code is compiled against (version 4).
        assert_eq!(
            (
                LOCK_STACK_TOP_OFFSET,
                GC_STATE_OFFSET,
                LOCKING_MODE_OFFSET,
                POLL_WORD_OFFSET
            ),
            (0, 4, 5, 8)
        );
        assert_eq!(
            (OWNER_ID_OFFSET, SYNC_STATE_OFFSET, CRITICAL_OFFSET),
            (16, 24, 32)
        );
        assert_eq!(
            (
                SATB_INDEX_OFFSET,
                SATB_BUFFER_OFFSET,
                CARD_TABLE_BASE_OFFSET,
                TLAB_TOP_OFFSET,
                TLAB_END_OFFSET
            ),
            (40, 48, 56, 64, 72)
        );
        assert_eq!(
            (
                LOCK_STACK_SENTINEL_OFFSET,
                LOCK_STACK_OFFSET,
                LOCK_STACK_END_OFFSET
            ),
            (80, 88, 152)
        );
        assert_eq!(GUESS_MISSED_OFFSET, 152);
        assert_eq!(RUNTIME_CONTEXT_OFFSET, 160);
        assert_eq!(GUESS_MISSED_OFFSET, at(b.guess_missed.as_ptr().cast()));
        assert_eq!(layout_version(), LAYOUT_VERSION);
        assert_eq!(b.lock_stack_sentinel, 0);
        assert_eq!(b.mode(), ThreadMode::Unregistered);
        assert_eq!(b.lock_stack_top.get(), LOCK_STACK_INACTIVE);
        assert!(
            !core::mem::needs_drop::<ThreadBlock>(),
            "static TLS without a destructor"
        );
    }

    /// The block's address is the same on every call, and differs between
    /// threads.
    #[test]
    fn current_is_stable_and_per_thread() {
        let a = current().as_ptr();
        assert_eq!(a, current().as_ptr());
        let other = std::thread::spawn(|| current().as_ptr() as usize).join().unwrap();
        assert_ne!(a as usize, other);
    }

    /// The runtime's context word starts at 0 on every thread, reads back
    /// what the runtime wrote at the published offset, and is the
    /// thread's own.
    #[test]
    fn runtime_context_is_the_runtimes_per_thread_word() {
        let b = current();
        assert_eq!(b.runtime_context(), 0);
        let word = 0x1234_5678_9ab8usize;
        b.set_runtime_context(word);
        // SAFETY: the published offset is inside the block (checked in
        // `published_offsets_are_the_struct_layout`), 8-aligned.
        let at = unsafe { *((b.as_ptr() as *const u8).add(RUNTIME_CONTEXT_OFFSET) as *const usize) };
        assert_eq!(at, word);
        let other = std::thread::spawn(|| current().runtime_context()).join().unwrap();
        assert_eq!(other, 0);
        b.set_runtime_context(0);
    }
}
