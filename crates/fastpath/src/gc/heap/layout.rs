//! The heap's object layout as generated code sees it, published as the
//! thread block's is ([`crate::thread`]'s offsets and `LAYOUT_VERSION`):
//! the offsets of an object's words from its address, how to read its
//! layout word, the GC-state bits the barriers test, the card table's
//! shift and values, the region sizes and the collection-set map's byte.
//! A JIT compiled against these checks [`OBJECT_LAYOUT_VERSION`] (C:
//! `FASTPATH_GC_LAYOUT_VERSION` against `fastpath_gc_layout_version()`)
//! once at start, as it checks the thread block's.
//!
//! Where it sits: at the bottom of `gc`, beside `space.rs`, which builds,
//! copies and parses every cell with these constants (its `ref_addr`,
//! `data_addr`, `fwd`, `layout_of` and `init_object` are these functions),
//! and under every barrier and the collector. Nothing here is a runtime's
//! own layout: a runtime keeps what it builds above the cell (a class
//! word, an array length, packed fields) in its data words, and publishes
//! that itself.
//!
//! A cell, from its first word (`cell`) to its last:
//!
//! ```text
//!  obj - 8   forwarding word   the object's own address, or its copy's (Brooks pointer)
//!  obj + 0   header            a fastpath::sync::Header: the object's address is its header's
//!  obj + 8   layout word       nrefs | ndata << 32, written once at allocation, never changed
//!  obj + 16  reference 0       nrefs words: 0 (null) or another object's address
//!  ...
//!  obj + 16 + 8*nrefs          data word 0, then ndata words: the runtime's bits
//! ```
//!
//! Every word is 8 bytes and 8-aligned; the object's address is the cell's
//! plus [`CELL_TO_OBJECT`]; the cell is [`cell_bytes`] long.
//!
//! What generated code may do with these, and the rules it keeps:
//! - **Reading and writing an object's words**: at [`ref_offset`] and
//!   [`data_offset`] from an address the barrier set hands out (a root, or
//!   a reference loaded through the set's load barrier), after the set's
//!   barrier for that access: the table in `gc/barriers/mod.rs` (data
//!   reads: Brooks read barrier; data writes: Brooks write barrier, else
//!   read barrier; references: the load, store and CAS barriers). An
//!   address is an object until the mutator's next safepoint (the rule of
//!   [`crate::gc::Obj`], and [`crate::gc::Obj::from_addr`] turns such an
//!   address back into an `Obj` for the Rust accessors).
//! - **Resolving a copy**: the forwarding word at [`FORWARDING_OFFSET`]
//!   names the object itself or its copy; a plain load suffices (the copy
//!   is published by the evacuating CAS's release, and every access through
//!   the loaded address depends on it).
//! - **Initialising an object allocated inline** (a TLAB bump, the thread
//!   block's `TLAB_TOP_OFFSET`/`TLAB_END_OFFSET`): the TLAB's memory is not
//!   zeroed, so the code writes the whole cell as the heap does: the
//!   forwarding word = the object's address, the header = [`INITIAL_HEADER`]
//!   (or `sync::Header::with_spare_bits`'s word), the layout word =
//!   [`layout_word`]`(nrefs, ndata)`, every reference and data word 0; and
//!   publishes the object to other threads only by a release store (as the
//!   heap's reference stores are) or a safepoint.
//! - **Never**: writing the forwarding word or the layout word, or
//!   anything of an object whose set's barriers it skipped.
//!
//! Invariants `space.rs` keeps and the tests check against real objects:
//! every offset here is where the heap reads and writes; the layout word of
//! every object decodes to the counts it was allocated with; a forwarding
//! word is 8-aligned (a filler word, which only parses a region, has its
//! low bit set and is never at an object's `- 8`).

use crate::sync::Header;

/// Layout version: a consumer compiled against these constants checks it
/// against [`object_layout_version`] (C: `fastpath_gc_layout_version()`) at start.
/// Changes whenever a constant or a word's meaning does.
pub const OBJECT_LAYOUT_VERSION: u32 = 1;

/// The layout version this library was built with ([`OBJECT_LAYOUT_VERSION`]).
pub fn object_layout_version() -> u32 {
    OBJECT_LAYOUT_VERSION
}

/// Bytes of every word of a cell (forwarding, header, layout, each
/// reference and data word).
pub const WORD_BYTES: usize = 8;
/// Offset of the forwarding word from the object's address (Shenandoah
/// 2017's Brooks pointer): the object's own address, or its copy's.
pub const FORWARDING_OFFSET: isize = -8;
/// Offset of the header (`fastpath::sync::Header`, one word): the object's
/// address is its header's, the word the lock templates CAS.
pub const HEADER_OFFSET: usize = 0;
/// Offset of the layout word: `nrefs | ndata << 32` ([`decode_layout_word`]).
pub const LAYOUT_WORD_OFFSET: usize = 8;
/// Offset of reference 0; reference `i` is at [`ref_offset`]`(i)`.
pub const REFS_OFFSET: usize = 16;
/// The object's address minus its cell's (the forwarding word comes first).
pub const CELL_TO_OBJECT: usize = 8;
/// Words of a cell before reference 0: forwarding, header, layout.
pub const CELL_HEADER_WORDS: usize = 3;
/// The layout word's bits that hold `nrefs` (the low 32).
pub const LAYOUT_NREFS_MASK: usize = 0xffff_ffff;
/// The layout word's shift to `ndata` (the high 32 bits).
pub const LAYOUT_NDATA_SHIFT: u32 = 32;

/// The header word of a new object: `fastpath::sync::Header::new()`'s
/// (unlocked, no hash, no spare bits): the neutral word a guessing lock
/// enter tries first (checked against `Header::new()` in the tests).
pub const INITIAL_HEADER: usize = (1 << 63) | 0b01;

/// GC-state bit of the thread block's `GC_STATE_OFFSET` byte: concurrent
/// marking runs (the SATB pre-barrier enqueues).
pub const GC_STATE_MARKING: u8 = 1 << 0;
/// GC-state bit: evacuation runs (the LRB and the Brooks write barrier may
/// copy an object of the collection set).
pub const GC_STATE_EVACUATION: u8 = 1 << 1;
/// GC-state bit: forwarded objects exist (the LRB, the reference CAS and
/// the Brooks write barrier resolve copies). Never set together with
/// [`GC_STATE_MARKING`] by fastpath's collector.
pub const GC_STATE_HAS_FORWARDED: u8 = 1 << 2;

/// log2 of the card size (512 bytes, HotSpot's): the card of address `a`
/// is the byte at `card_table_base + (a >> CARD_SHIFT)`, the base biased by
/// the heap's start as the thread block's `CARD_TABLE_BASE_OFFSET` word
/// holds it.
pub const CARD_SHIFT: u32 = 9;
/// A dirty card (HotSpot's `dirty_card_val()`: a card mark is a store of 0).
pub const CARD_DIRTY: u8 = 0;
/// A clean card.
pub const CARD_CLEAN: u8 = 1;

/// log2 of the smallest region (64 KiB; `HeapConfig::region_bytes`).
pub const MIN_REGION_SHIFT: u32 = 16;
/// log2 of the largest region (32 MiB).
pub const MAX_REGION_SHIFT: u32 = 25;
/// A region's byte in the collection-set map while the region is in the
/// collection set (0 otherwise): the map of a heap is
/// `Mutator::cset_map()`'s `(biased, region_shift)`, the byte of address
/// `a` at `biased + (a >> region_shift)`. The region shift is the heap's
/// (`HeapConfig::region_bytes.trailing_zeros()`).
pub const CSET_IN: u8 = 1;

/// Offset of reference `i` from the object's address.
#[inline(always)]
pub const fn ref_offset(i: usize) -> usize {
    REFS_OFFSET + WORD_BYTES * i
}

/// Offset of data word `j` from the address of an object with `nrefs`
/// references (the data words follow the references).
#[inline(always)]
pub const fn data_offset(nrefs: usize, j: usize) -> usize {
    REFS_OFFSET + WORD_BYTES * (nrefs + j)
}

/// The layout word of an object with `nrefs` references and `ndata` data
/// words (each below 2^32, which the heap's largest object guarantees).
#[inline(always)]
pub const fn layout_word(nrefs: usize, ndata: usize) -> usize {
    nrefs | (ndata << LAYOUT_NDATA_SHIFT)
}

/// `(nrefs, ndata)` of a layout word.
#[inline(always)]
pub const fn decode_layout_word(word: usize) -> (usize, usize) {
    (word & LAYOUT_NREFS_MASK, word >> LAYOUT_NDATA_SHIFT)
}

/// Bytes of the cell of an object with `nrefs` references and `ndata` data
/// words (what a TLAB bump takes for it).
#[inline(always)]
pub const fn cell_bytes(nrefs: usize, ndata: usize) -> usize {
    WORD_BYTES * (CELL_HEADER_WORDS + nrefs + ndata)
}

const _: () = {
    assert!(core::mem::size_of::<Header>() == WORD_BYTES);
    assert!(
        core::mem::size_of::<usize>() == WORD_BYTES,
        "the published layout is 64-bit"
    );
    assert!(FORWARDING_OFFSET == -(CELL_TO_OBJECT as isize));
    assert!(REFS_OFFSET == LAYOUT_WORD_OFFSET + WORD_BYTES);
    assert!(LAYOUT_WORD_OFFSET == HEADER_OFFSET + WORD_BYTES);
    assert!(CELL_TO_OBJECT + REFS_OFFSET == CELL_HEADER_WORDS * WORD_BYTES);
    assert!(GC_STATE_MARKING & GC_STATE_EVACUATION & GC_STATE_HAS_FORWARDED == 0);
};

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::gc::{BarrierBits, GcMode, Heap, HeapConfig, Obj, SerialBarriers};

    /// The published constants are the words of real objects: a fresh
    /// object's forwarding word, header, layout word, references and data
    /// are where the constants say, with the values they say; the
    /// Rust accessors write exactly the words the offsets name.
    #[test]
    fn the_published_layout_is_the_heaps() {
        let heap = Heap::new(HeapConfig::new(4 << 20, BarrierBits::SERIAL, GcMode::Passive)).unwrap();
        let mut m = heap.mutator::<SerialBarriers>().unwrap();
        let word = |a: usize| {
            // SAFETY: `a` is a word of a live object of the heap (no
            // safepoint since its address was read); atomic, as the heap's.
            unsafe {
                (*(a as *const core::sync::atomic::AtomicUsize)).load(core::sync::atomic::Ordering::Relaxed)
            }
        };
        for (nrefs, ndata) in [(0, 0), (0, 3), (2, 0), (3, 5)] {
            let h = m.alloc(nrefs, ndata).unwrap();
            let target = m.alloc(0, 0).unwrap();
            let (o, t) = (m.get(h).unwrap(), m.get(target).unwrap());
            let a = o.addr();
            assert_eq!(a % 8, 0);
            assert_eq!(
                word(a.wrapping_add_signed(FORWARDING_OFFSET)),
                a,
                "not forwarded: itself"
            );
            assert_eq!(word(a + HEADER_OFFSET), INITIAL_HEADER);
            assert_eq!(word(a + LAYOUT_WORD_OFFSET), layout_word(nrefs, ndata));
            assert_eq!(decode_layout_word(word(a + LAYOUT_WORD_OFFSET)), (nrefs, ndata));
            assert_eq!(m.shape(o).unwrap(), (nrefs, ndata));
            for i in 0..nrefs {
                assert_eq!(word(a + ref_offset(i)), 0, "a new reference is null");
                m.store(o, i, Some(t)).unwrap();
                assert_eq!(word(a + ref_offset(i)), t.addr());
            }
            for j in 0..ndata {
                assert_eq!(word(a + data_offset(nrefs, j)), 0, "a new data word is 0");
                m.write(o, j, 0x5eed + j).unwrap();
                assert_eq!(word(a + data_offset(nrefs, j)), 0x5eed + j);
                // SAFETY: an object of this heap with `nrefs` references.
                let d = unsafe { m.data_unchecked(o, nrefs) } as usize;
                assert_eq!(d, a + data_offset(nrefs, 0));
            }
            // An address read back is the same object.
            // SAFETY: `a` is an object of this heap, no safepoint since.
            assert!(m.same(Some(unsafe { Obj::from_addr(a) }), Some(o)));
            // The next cell starts where this one ends (one TLAB, bump order).
            let ta = t.addr();
            assert_eq!(ta - CELL_TO_OBJECT, a - CELL_TO_OBJECT + cell_bytes(nrefs, ndata));
            let next = m.alloc(0, 0).unwrap();
            let n = m.get(next).unwrap().addr();
            assert_eq!(
                n - CELL_TO_OBJECT,
                ta - CELL_TO_OBJECT + cell_bytes(0, 0),
                "cells are laid end to end"
            );
        }
        assert_eq!(INITIAL_HEADER, Header::new().raw());
        assert_eq!(object_layout_version(), OBJECT_LAYOUT_VERSION);
        // The values generated code is compiled against (version 1).
        assert_eq!(
            (FORWARDING_OFFSET, HEADER_OFFSET, LAYOUT_WORD_OFFSET, REFS_OFFSET),
            (-8, 0, 8, 16)
        );
        assert_eq!((CARD_SHIFT, CARD_DIRTY, CARD_CLEAN), (9, 0, 1));
        assert_eq!(
            (GC_STATE_MARKING, GC_STATE_EVACUATION, GC_STATE_HAS_FORWARDED),
            (1, 2, 4)
        );
    }

    /// The region sizes `HeapConfig` accepts are the published range, and a
    /// heap's collection-set map has one byte per region at the published
    /// shift, clear outside a cycle.
    #[test]
    fn region_shifts_and_the_cset_map_are_the_published_ones() {
        for shift in [
            MIN_REGION_SHIFT - 1,
            MIN_REGION_SHIFT,
            MAX_REGION_SHIFT,
            MAX_REGION_SHIFT + 1,
        ] {
            let mut c = HeapConfig::new(64 << 20, BarrierBits::SERIAL, GcMode::Passive);
            c.region_bytes = 1 << shift;
            c.heap_bytes = (1 << shift) * 4;
            let ok = (MIN_REGION_SHIFT..=MAX_REGION_SHIFT).contains(&shift);
            assert_eq!(c.validate().is_ok(), ok, "region shift {shift}");
        }
        let heap = Heap::new(HeapConfig::new(4 << 20, BarrierBits::SERIAL, GcMode::Passive)).unwrap();
        let mut m = heap.mutator::<SerialBarriers>().unwrap();
        let (biased, shift) = m.cset_map();
        assert_eq!(u32::from(shift), heap.config().region_bytes.trailing_zeros());
        let h = m.alloc(0, 1).unwrap();
        let a = m.get(h).unwrap().addr();
        // SAFETY: the map's byte of a heap address (the documented lookup),
        // live while the heap is.
        let byte = unsafe { *((biased.wrapping_add(a >> shift)) as *const u8) };
        assert_ne!(byte, CSET_IN, "no collection set outside a cycle");
    }
}
