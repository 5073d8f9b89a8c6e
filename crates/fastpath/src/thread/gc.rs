//! The thread block's GC fields: the per-thread state of the mutator this
//! thread is, at the published offsets generated code reads (HotSpot keeps
//! the same words in `JavaThread`: `ShenandoahThreadLocalData::gc_state`,
//! the `SATBMarkQueue` index and buffer, the card table base, the TLAB's
//! top and end, the polling word).
//!
//! Where it sits: under [`crate::gc::Mutator`], which is a view of this
//! block plus its heap. `Mutator::new` attaches the block (writes these
//! fields from the heap), every barrier fast path and the TLAB bump read
//! them here, the mutator's stops refresh them, and `Mutator`'s drop
//! detaches the block (every field back to its idle value). The collector
//! writes only the poll word (`gc/heap/safepoint.rs` arms and disarms it).
//!
//! The rules a block imposes:
//! - A thread is the mutator of at most one heap at a time (HotSpot: a
//!   `JavaThread` belongs to one heap): these fields have room for one
//!   mutator, so `Heap::mutator` on a thread whose block is attached is
//!   `GcError::ThreadHasMutator`.
//! - A mutator is used only on its own thread: `Mutator` holds a
//!   `&'static ThreadBlock`, which is `!Send` (the block is `!Sync`), so
//!   Rust cannot move it or share it across threads; the C ABI checks the
//!   calling thread's block against the mutator's on every call.
//! - The owning thread writes every field but the poll word; the collector
//!   writes the poll word, only for a registered mutator, under the heap's
//!   safepoint mutex, and a thread that exits while still attached (a
//!   leaked mutator) is unregistered from arming before its block's memory
//!   goes (`gc/heap/mutator.rs`, the exit guard).
//!
//! Idle values (a thread that is no heap's mutator: never attached, or
//! detached): every GC field 0 or null. Each fast path then takes its slow
//! path or does nothing: the state byte has no bit set (no barrier active),
//! the SATB index 0 says "buffer full", the TLAB's top and end 0 leave no
//! room, the poll word is disarmed. A new thread's block starts from the
//! `const` image, so a thread reusing an exited thread's TLS memory starts
//! idle.
//!
//! The SATB queue is HotSpot's `SATBMarkQueue` shape: `satb_buffer` points
//! at [`SATB_BUFFER_WORDS`] words, `satb_index` is the number of bytes
//! still free at the buffer's start; an enqueue with index 0 flushes, one
//! with room decrements the index by 8 and writes the word at
//! `buffer + index`. The entries are those from the index to the end.

use super::ThreadBlock;

/// The poll word's armed value (bit 0, the bit generated code tests).
pub(crate) const POLL_ARMED: usize = 1;

/// Words of a thread's SATB buffer (HotSpot's `G1SATBBufferSize` is 1 Ki
/// entries; smaller keeps final-mark short).
pub(crate) const SATB_BUFFER_WORDS: usize = 256;

/// What a mutator writes into its block when it attaches.
pub(crate) struct GcFields {
    /// The heap's GC state byte, as of the attach.
    pub(crate) gc_state: u8,
    /// The biased card table base (`cards - (heap_base >> CARD_SHIFT)`).
    pub(crate) card_table_base: *mut u8,
    /// The SATB buffer, [`SATB_BUFFER_WORDS`] words owned by the mutator.
    pub(crate) satb_buffer: *mut usize,
}

impl ThreadBlock {
    /// Whether this thread is the mutator of a heap now: only an attached
    /// block has a SATB buffer.
    #[inline]
    pub(crate) fn gc_attached(&self) -> bool {
        !self.satb_buffer.get().is_null()
    }

    /// Makes the block the per-thread state of a new mutator: the state
    /// byte copy, the card base, an empty SATB buffer, an empty TLAB. The
    /// caller checked [`ThreadBlock::gc_attached`] is false.
    pub(crate) fn gc_attach(&self, f: GcFields) {
        debug_assert!(!self.gc_attached());
        debug_assert!(!f.satb_buffer.is_null());
        self.gc_state.set(f.gc_state);
        self.card_table_base.set(f.card_table_base);
        self.satb_buffer.set(f.satb_buffer);
        self.satb_index.set(SATB_BUFFER_WORDS * 8);
        self.tlab_top.set(0);
        self.tlab_end.set(0);
    }

    /// Puts every GC field back to its idle value (the module docs). The
    /// caller has retired the TLAB, flushed the SATB buffer and unregistered
    /// the poll word from arming, so nobody else writes it any more.
    pub(crate) fn gc_detach(&self) {
        self.gc_state.set(0);
        self.card_table_base.set(core::ptr::null_mut());
        self.satb_buffer.set(core::ptr::null_mut());
        self.satb_index.set(0);
        self.tlab_top.set(0);
        self.tlab_end.set(0);
        // Relaxed: no other thread writes the word once the mutator is
        // unregistered (under the safepoint mutex, which ordered the last
        // arm or disarm before this store); only this thread reads it.
        self.poll_word.store(0, core::sync::atomic::Ordering::Relaxed);
    }

    /// The poll word, as the collector arms it.
    #[inline(always)]
    pub(crate) fn poll_word(&self) -> &core::sync::atomic::AtomicUsize {
        &self.poll_word
    }

    /// Whether the poll word is armed: one load and a test of bit 0, as
    /// generated code's `testb $1, poll(thread)`.
    #[inline(always)]
    pub(crate) fn poll_armed(&self) -> bool {
        // Relaxed: a hint; the stop is decided under the safepoint mutex
        // (`gc/heap/safepoint.rs`), and a missed arm only delays the stop to the
        // next poll.
        self.poll_word.load(core::sync::atomic::Ordering::Relaxed) & POLL_ARMED != 0
    }
}
