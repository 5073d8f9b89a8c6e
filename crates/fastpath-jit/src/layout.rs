//! The thread block's layout as generated code sees it: offsets from the
//! thread register and the bit masks and constants tested there.
//!
//! Where it sits: the caller fills a [`ThreadLayout`] from the thread
//! block's published offsets (or, in tests, from a plain `#[repr(C)]`
//! struct) and hands it to each thread-relative template. Nothing here
//! hard-codes a layout, so one template set serves every block that
//! publishes these fields (the complaint against hard-coded metadata
//! layouts in MMTk's bindings). Offsets are signed bytes from the thread
//! register; bits are masks of one byte.

/// Offsets and constants a thread-relative template needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThreadLayout {
    /// Byte holding the GC state (HotSpot `ShenandoahThreadLocalData::gc_state`).
    pub gc_state: i32,
    /// Mask of the "marking" bit in `gc_state` (SATB pre-barrier active).
    pub marking_bit: u8,
    /// Mask of the "has forwarded objects" bit (load-reference barrier active).
    pub has_forwarded_bit: u8,
    /// Byte tested by the safepoint poll (HotSpot `polling_word`).
    pub poll: i32,
    /// Mask of the armed bit of `poll`.
    pub poll_bit: u8,
    /// Word holding the biased card-table base: `cards − (heap_base >> card_shift)`,
    /// so the card of address `a` is the byte at `base + (a >> card_shift)`.
    pub card_table_base: i32,
    /// log2 of the card size (HotSpot: 9, 512-byte cards).
    pub card_shift: u8,
    /// Value stored into a dirty card (HotSpot: 0).
    pub dirty_card: u8,
    /// Word holding the TLAB's bump pointer.
    pub tlab_top: i32,
    /// Word holding the TLAB's end.
    pub tlab_end: i32,
}
