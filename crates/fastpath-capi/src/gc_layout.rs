//! The heap's object layout for C JITs (over `fastpath::gc::layout`): the
//! offsets of an object's words from its address, the two cell formats
//! (Brooks: a forwarding word before the header; compact: none, a copy
//! recorded in the original's layout word), the layout word's fields, the
//! GC-state bits, the card table's shift and values, the region sizes and
//! the collection-set byte, with the layout's version. The layout word has
//! two forms: untagged (8 bytes, `nrefs | ndata << 32`) and tagged (4
//! bytes, bit 30 set and the tag the runtime chose below it,
//! `fastpath_gc_alloc_tagged`; the tag's counts are the heap's, defined
//! once, `fastpath_gc_define_tag`). A heap's format is
//! its barrier set's unless `FASTPATH_GC_CELL_FORMAT` says otherwise;
//! `fastpath_gc_cell_format` (`gc.rs`) tells it.
//!
//! Where it sits: beside the thread block's `FASTPATH_THREAD_*` offsets
//! (`sync.rs`), which locate the per-thread words; these locate an
//! object's. Each constant is asserted equal to the Rust library's at
//! compile time; a C program compiled against them checks
//! `fastpath_gc_layout_version()` against `FASTPATH_GC_LAYOUT_VERSION` at
//! start. The rules for using them (which barrier before which access,
//! how an object allocated inline is initialised) are the Rust module's
//! documentation.

/// The object layout these constants describe; check it against
/// `fastpath_gc_layout_version()` at start.
pub const FASTPATH_GC_LAYOUT_VERSION: u32 = 6;
/// Bytes of every word of an object (forwarding, header, layout,
/// references, data).
pub const FASTPATH_GC_WORD_BYTES: usize = 8;
/// A heap's cell format (`fastpath_gc_cell_format`): every object carries a
/// forwarding word before its header (by default a barrier set with
/// `brooks-rb` or `brooks-wb`, which read through it; any set with
/// `FASTPATH_GC_CELL_FORMAT=brooks`).
pub const FASTPATH_GC_CELL_FORMAT_BROOKS: u32 = 0;
/// A heap's cell format: no forwarding word, the header first (by default
/// every other barrier set). A copy is recorded only in the from-space
/// original's 8 bytes at `FASTPATH_GC_LAYOUT_WORD_OFFSET`, as the copy's
/// address with its halves swapped and `FASTPATH_GC_LAYOUT_FORWARDED_BIT`
/// set.
pub const FASTPATH_GC_CELL_FORMAT_COMPACT: u32 = 1;
/// The forwarding word, from the object's address, in the Brooks format
/// only: the object's own address, or its copy's (Brooks pointer).
// Parenthesised so that cbindgen writes `(0 - 8)`: a bare `-8` macro would
// make `obj-FASTPATH_GC_FORWARDING_OFFSET` a decrement in C.
#[allow(unused_parens)]
pub const FASTPATH_GC_FORWARDING_OFFSET: isize = (0 - 8);
/// The header (a `fastpath_header`'s word): the object's address is its
/// header's.
pub const FASTPATH_GC_HEADER_OFFSET: usize = 0;
/// The layout word, written at allocation, in one of two forms:
/// untagged (`fastpath_gc_alloc`), 8 bytes, `nrefs | ndata << 32`; tagged
/// (`fastpath_gc_alloc_tagged`), 4 bytes, `FASTPATH_GC_LAYOUT_TAGGED_BIT |
/// tag`, the tag's counts the heap's (`fastpath_gc_define_tag`). Code
/// that does not know an object's form reads the low 4 bytes and tests
/// `FASTPATH_GC_LAYOUT_TAGGED_BIT` before taking the counts apart. In the
/// compact format, a from-space original's 8 bytes here (a tagged word
/// and what follows it, reference 0 or padding) are replaced when the
/// object is copied by `(copy << 32 | copy >> 32) |
/// FASTPATH_GC_LAYOUT_FORWARDED_BIT` (bit 31, clear in every object's own
/// low 4 bytes). A copy is resolved inline by loading these 8 bytes of an
/// object of the collection set: bit 31 clear, not copied yet (the slow
/// path evacuates); set, the copy is the word with bit 31 cleared and its
/// halves swapped (`w &= ~FASTPATH_GC_LAYOUT_FORWARDED_BIT; copy = w << 32
/// | w >> 32`).
pub const FASTPATH_GC_LAYOUT_WORD_OFFSET: usize = 8;
/// Bytes of the tagged form of the layout word.
pub const FASTPATH_GC_TAGGED_WORD_BYTES: usize = 4;
/// Reference 0 of an untagged object, and of a tagged one in a heap with
/// 8-byte reference slots. In a heap with 8-byte slots, reference i at
/// `FASTPATH_GC_REFS_OFFSET + 8 * i`, data word j at
/// `FASTPATH_GC_REFS_OFFSET + 8 * (nrefs + j)` (both formats, both
/// forms); with 4-byte ones (`fastpath_gc_ref_slot_bytes` says 4), of an
/// untagged object reference i at `FASTPATH_GC_REFS_OFFSET + 4 * i`, data
/// word j at `FASTPATH_GC_REFS_OFFSET + 8 * ((nrefs + 1) / 2 + j)`; of a
/// tagged one `FASTPATH_GC_TAGGED_COMPRESSED_REFS_OFFSET`.
pub const FASTPATH_GC_REFS_OFFSET: usize = 16;
/// Reference 0 of a tagged object in a heap with 4-byte reference slots
/// (compressed or unscaled): right after the 4-byte tagged word.
/// Reference i at `FASTPATH_GC_TAGGED_COMPRESSED_REFS_OFFSET + 4 * i`,
/// data word j at `FASTPATH_GC_REFS_OFFSET + 8 * (nrefs / 2 + j)` (the
/// slots' end rounded up to 8 bytes).
pub const FASTPATH_GC_TAGGED_COMPRESSED_REFS_OFFSET: usize = 12;
/// Bytes of a compressed reference slot (`FASTPATH_GC_REFS=compressed`).
pub const FASTPATH_GC_COMPRESSED_REF_BYTES: usize = 4;
/// A compressed slot holds the object's address shifted right by this (0
/// for null): decode with `(uint64_t)slot << 3`.
pub const FASTPATH_GC_COMPRESSED_REF_SHIFT: u32 = 3;
/// Every address of a heap with compressed references is below this (32
/// GiB).
pub const FASTPATH_GC_COMPRESSED_ADDRESS_LIMIT: u64 = 0x8_0000_0000;
/// Every address of a heap with unscaled references (4-byte slots holding
/// the address itself, `FASTPATH_GC_REFS=unscaled`,
/// `fastpath_gc_ref_shift` 0) is below this (4 GiB).
pub const FASTPATH_GC_UNSCALED_ADDRESS_LIMIT: u64 = 0x1_0000_0000;
/// The object's address minus its cell's in the Brooks format (the
/// forwarding word first).
pub const FASTPATH_GC_BROOKS_CELL_TO_OBJECT: usize = 8;
/// The object's address minus its cell's in the compact format (the
/// header first).
pub const FASTPATH_GC_COMPACT_CELL_TO_OBJECT: usize = 0;
/// Words of a Brooks cell before reference 0 of an untagged object: with
/// 8-byte slots a cell is `8 * (3 + nrefs + ndata)` bytes (either form).
pub const FASTPATH_GC_BROOKS_CELL_HEADER_WORDS: usize = 3;
/// Words of a compact cell before reference 0 of an untagged object: with
/// 8-byte slots a cell is `8 * (2 + nrefs + ndata)` bytes (either form).
pub const FASTPATH_GC_COMPACT_CELL_HEADER_WORDS: usize = 2;
/// The bit of the 8 bytes at `FASTPATH_GC_LAYOUT_WORD_OFFSET` set in a
/// copied original's (compact format; bit 31, the sign of the low 4
/// bytes) and clear in every object's own.
pub const FASTPATH_GC_LAYOUT_FORWARDED_BIT: u64 = 0x8000_0000;
/// An untagged layout word's `nrefs` bits (the low 32, below 2^30).
pub const FASTPATH_GC_LAYOUT_NREFS_MASK: u64 = 0xffff_ffff;
/// An untagged layout word's shift to `ndata` (bits 32..62).
pub const FASTPATH_GC_LAYOUT_NDATA_SHIFT: u32 = 32;
/// The bit of the layout word's low 4 bytes set in the tagged form and
/// clear in the untagged one (bit 30).
pub const FASTPATH_GC_LAYOUT_TAGGED_BIT: u64 = 0x4000_0000;
/// A tagged layout word's tag bits (the low 30).
pub const FASTPATH_GC_LAYOUT_TAG_MASK: u64 = 0x3fff_ffff;
/// The largest tag (the heap's tag table has an entry for each tag up to
/// it: `fastpath_gc_define_tag`).
pub const FASTPATH_GC_MAX_LAYOUT_TAG: u32 = 0x3f_ffff;
/// The most references, and the most data words, a tagged object holds.
pub const FASTPATH_GC_MAX_TAGGED_COUNT: usize = 0xffff;
/// The most words any object's cell may take, its header words included
/// (a heap's own maximum, `fastpath_gc_free_bytes`'s `max_object_words`,
/// is at most this): an untagged layout word's counts stay below 2^30, so
/// its bits 30, 31, 62 and 63 are clear.
pub const FASTPATH_GC_MAX_CELL_WORDS: usize = 0x3fff_ffff;
/// The header word of a new object (unlocked, no hash, no spare bits).
pub const FASTPATH_GC_INITIAL_HEADER: u64 = 0x8000_0000_0000_0001;
/// GC-state bit (the block's `FASTPATH_THREAD_GC_STATE_OFFSET` byte):
/// marking runs.
pub const FASTPATH_GC_STATE_MARKING: u8 = 1;
/// GC-state bit: evacuation runs.
pub const FASTPATH_GC_STATE_EVACUATION: u8 = 2;
/// GC-state bit: forwarded objects exist.
pub const FASTPATH_GC_STATE_HAS_FORWARDED: u8 = 4;
/// log2 of the card size: the card of address a is the byte at the block's
/// biased card-table base plus `a >> FASTPATH_GC_CARD_SHIFT`.
pub const FASTPATH_GC_CARD_SHIFT: u32 = 9;
/// A dirty card.
pub const FASTPATH_GC_CARD_DIRTY: u8 = 0;
/// A clean card.
pub const FASTPATH_GC_CARD_CLEAN: u8 = 1;
/// log2 of the smallest region (64 KiB).
pub const FASTPATH_GC_MIN_REGION_SHIFT: u32 = 16;
/// log2 of the largest region (32 MiB).
pub const FASTPATH_GC_MAX_REGION_SHIFT: u32 = 25;
/// A region's byte in the collection-set map while it is in the set.
pub const FASTPATH_GC_CSET_IN: u8 = 1;

const _: () = {
    use fastpath_core::gc::layout as l;
    assert!(FASTPATH_GC_LAYOUT_VERSION == l::OBJECT_LAYOUT_VERSION);
    assert!(FASTPATH_GC_WORD_BYTES == l::WORD_BYTES);
    assert!(FASTPATH_GC_FORWARDING_OFFSET == l::FORWARDING_OFFSET);
    assert!(FASTPATH_GC_HEADER_OFFSET == l::HEADER_OFFSET);
    assert!(FASTPATH_GC_LAYOUT_WORD_OFFSET == l::LAYOUT_WORD_OFFSET);
    assert!(FASTPATH_GC_REFS_OFFSET == l::REFS_OFFSET);
    assert!(FASTPATH_GC_COMPRESSED_REF_BYTES == l::COMPRESSED_REF_BYTES);
    assert!(FASTPATH_GC_COMPRESSED_REF_SHIFT == l::COMPRESSED_REF_SHIFT);
    assert!(FASTPATH_GC_COMPRESSED_ADDRESS_LIMIT == l::COMPRESSED_ADDRESS_LIMIT as u64);
    assert!(FASTPATH_GC_UNSCALED_ADDRESS_LIMIT == l::UNSCALED_ADDRESS_LIMIT as u64);
    assert!(FASTPATH_GC_BROOKS_CELL_TO_OBJECT == l::CellFormat::Brooks.cell_to_object());
    assert!(FASTPATH_GC_COMPACT_CELL_TO_OBJECT == l::CellFormat::Compact.cell_to_object());
    assert!(FASTPATH_GC_BROOKS_CELL_HEADER_WORDS == l::CellFormat::Brooks.header_words());
    assert!(FASTPATH_GC_COMPACT_CELL_HEADER_WORDS == l::CellFormat::Compact.header_words());
    assert!(FASTPATH_GC_LAYOUT_FORWARDED_BIT == l::LAYOUT_FORWARDED_BIT as u64);
    assert!(FASTPATH_GC_LAYOUT_NREFS_MASK == l::LAYOUT_NREFS_MASK as u64);
    assert!(FASTPATH_GC_LAYOUT_NDATA_SHIFT == l::LAYOUT_NDATA_SHIFT);
    assert!(FASTPATH_GC_LAYOUT_TAGGED_BIT == l::LAYOUT_TAGGED_BIT as u64);
    assert!(FASTPATH_GC_LAYOUT_TAG_MASK == l::LAYOUT_TAG_MASK as u64);
    assert!(FASTPATH_GC_TAGGED_WORD_BYTES == l::TAGGED_WORD_BYTES);
    assert!(FASTPATH_GC_TAGGED_COMPRESSED_REFS_OFFSET == l::TAGGED_COMPRESSED_REFS_OFFSET);
    assert!(FASTPATH_GC_MAX_LAYOUT_TAG == l::MAX_LAYOUT_TAG);
    assert!(FASTPATH_GC_MAX_TAGGED_COUNT == l::MAX_TAGGED_COUNT);
    assert!(FASTPATH_GC_MAX_CELL_WORDS == l::MAX_CELL_WORDS);
    assert!(FASTPATH_GC_INITIAL_HEADER == l::INITIAL_HEADER as u64);
    assert!(FASTPATH_GC_STATE_MARKING == l::GC_STATE_MARKING);
    assert!(FASTPATH_GC_STATE_EVACUATION == l::GC_STATE_EVACUATION);
    assert!(FASTPATH_GC_STATE_HAS_FORWARDED == l::GC_STATE_HAS_FORWARDED);
    assert!(FASTPATH_GC_CARD_SHIFT == l::CARD_SHIFT);
    assert!(FASTPATH_GC_CARD_DIRTY == l::CARD_DIRTY);
    assert!(FASTPATH_GC_CARD_CLEAN == l::CARD_CLEAN);
    assert!(FASTPATH_GC_MIN_REGION_SHIFT == l::MIN_REGION_SHIFT);
    assert!(FASTPATH_GC_MAX_REGION_SHIFT == l::MAX_REGION_SHIFT);
    assert!(FASTPATH_GC_CSET_IN == l::CSET_IN);
};

/// The layout version of the library's heap objects; a consumer compiled
/// against `FASTPATH_GC_LAYOUT_VERSION` refuses to run on another.
#[no_mangle]
pub extern "C" fn fastpath_gc_layout_version() -> u32 {
    fastpath_core::gc::layout::object_layout_version()
}

/// The C value of a cell format (`FASTPATH_GC_CELL_FORMAT_*`).
pub(crate) fn cell_format_value(format: fastpath_core::gc::layout::CellFormat) -> u32 {
    match format {
        fastpath_core::gc::layout::CellFormat::Brooks => FASTPATH_GC_CELL_FORMAT_BROOKS,
        fastpath_core::gc::layout::CellFormat::Compact => FASTPATH_GC_CELL_FORMAT_COMPACT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fastpath_core::gc::layout as l;

    /// The layout word a C JIT composes and takes apart with these
    /// constants, in each form, is the library's; the forwarded word it
    /// tests and decodes in the compact format is the library's, and no
    /// object's own word passes for one.
    #[test]
    fn the_c_formulas_build_and_read_the_librarys_layout_words() {
        for (nrefs, ndata) in [(0u64, 0u64), (2, 1), (0xffff, 0xffff)] {
            let untagged = nrefs | ndata << FASTPATH_GC_LAYOUT_NDATA_SHIFT;
            assert_eq!(untagged, l::layout_word(nrefs as usize, ndata as usize) as u64);
            assert_eq!(untagged & FASTPATH_GC_LAYOUT_TAGGED_BIT, 0);
            assert_eq!(untagged & FASTPATH_GC_LAYOUT_NREFS_MASK, nrefs);
            assert_eq!(untagged >> FASTPATH_GC_LAYOUT_NDATA_SHIFT, ndata);
            assert_eq!(
                l::untagged_counts(untagged as usize),
                (nrefs as usize, ndata as usize)
            );
        }
        for tag in [0u32, 1, 0x2345, FASTPATH_GC_MAX_LAYOUT_TAG] {
            let tagged = FASTPATH_GC_LAYOUT_TAGGED_BIT | u64::from(tag);
            assert_eq!(Some(tagged as usize), l::tagged_layout_word(tag));
            assert!(tagged <= u64::from(u32::MAX), "4 bytes");
            assert_eq!(tagged & FASTPATH_GC_LAYOUT_TAG_MASK, u64::from(tag));
            assert_eq!(l::layout_tag(tagged as usize), Some(tag));
            // Whatever the next 4 bytes hold (reference 0 with 4-byte
            // slots), the 8 bytes are not a forwarded original's.
            for next in [0u64, 0x8000_0010, 0xffff_ffff] {
                let eight = tagged | next << 32;
                assert_eq!(eight & FASTPATH_GC_LAYOUT_FORWARDED_BIT, 0);
                assert!(!l::is_forwarded_layout_word(eight as usize));
            }
        }
        assert_eq!(
            l::tagged_layout_word(FASTPATH_GC_MAX_LAYOUT_TAG + 1),
            None,
            "past the tag table"
        );
        let largest = l::layout_word(FASTPATH_GC_MAX_CELL_WORDS, FASTPATH_GC_MAX_CELL_WORDS) as u64;
        assert_eq!(
            largest & (FASTPATH_GC_LAYOUT_TAGGED_BIT | FASTPATH_GC_LAYOUT_FORWARDED_BIT),
            0
        );
        // The forwarded word: the copy's halves swapped, bit 31 set; its
        // decode the bit cleared and the halves swapped back (the shifts
        // are the C formula the header gives, checked as written).
        #[allow(clippy::manual_rotate)]
        for copy in [0x7f12_3456_7890u64, 0x8000_0008, 0x7_fff8, 0xffff_fff8] {
            let forwarded = (copy << 32 | copy >> 32) | FASTPATH_GC_LAYOUT_FORWARDED_BIT;
            assert_eq!(forwarded, l::forwarded_layout_word(copy as usize) as u64);
            let w = forwarded & !FASTPATH_GC_LAYOUT_FORWARDED_BIT;
            assert_eq!(w << 32 | w >> 32, copy);
            assert_eq!(l::forwardee_of_layout_word(forwarded as usize) as u64, copy);
        }
        // The tagged offsets with 4-byte slots, and the data-word formula
        // the docs give for them.
        use l::RefWidth;
        for w in [RefWidth::Compressed, RefWidth::Unscaled] {
            for nrefs in 0..6usize {
                assert_eq!(
                    w.tagged_ref_offset(nrefs),
                    FASTPATH_GC_TAGGED_COMPRESSED_REFS_OFFSET + 4 * nrefs
                );
                assert_eq!(
                    w.tagged_data_offset(nrefs, 1),
                    FASTPATH_GC_REFS_OFFSET + 8 * (nrefs / 2 + 1)
                );
                assert_eq!(
                    w.data_offset(nrefs, 1),
                    FASTPATH_GC_REFS_OFFSET + 8 * (nrefs.div_ceil(2) + 1)
                );
            }
        }
        assert_eq!(
            FASTPATH_GC_TAGGED_COMPRESSED_REFS_OFFSET,
            FASTPATH_GC_LAYOUT_WORD_OFFSET + FASTPATH_GC_TAGGED_WORD_BYTES
        );
        assert_eq!(fastpath_gc_layout_version(), FASTPATH_GC_LAYOUT_VERSION);
    }
}
