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
//! A cell, from its first word (`cell`) to its last, in the heap's
//! [`CellFormat`] (the barrier set chooses it: [`CellFormat::for_barriers`]):
//!
//! ```text
//!  obj - 8   forwarding word   Brooks format only: the object's own address, or its copy's
//!  obj + 0   header            a fastpath::sync::Header: the object's address is its header's
//!  obj + 8   layout word       untagged: 8 bytes, the counts; tagged: 4 bytes, the runtime's tag
//!  obj + 16  reference 0       (obj + 12 for a tagged object of a compressed or unscaled heap)
//!  ...                         nrefs slots of the heap's RefWidth: 0 (null) or another object
//!  data word 0                 8-aligned after the slots, then ndata words: the runtime's bits
//! ```
//!
//! A reference slot is one of two widths, the heap's [`RefWidth`], chosen
//! when the heap is made (`HeapConfig::refs`, `FASTPATH_GC_REFS`; HotSpot's
//! `UseCompressedOops`):
//! - **Full**: 8 bytes, the object's address; reference 0 at 16 in either
//!   form, data word 0 at `16 + 8 * nrefs`.
//! - **Compressed**: 4 bytes, the object's address shifted right by
//!   [`COMPRESSED_REF_SHIFT`] (every object is 8-aligned, and a heap with
//!   compressed references lies wholly below [`COMPRESSED_ADDRESS_LIMIT`],
//!   32 GiB: HotSpot's zero-based compressed oops, so null is 0 in both
//!   forms and decoding is one shift, which an x86 address's scale folds
//!   into the load that follows). The slots are packed from reference 0's
//!   offset (16 untagged, 12 tagged: the tagged word's 4 bytes leave the
//!   rest of its word to a slot, as HotSpot's compressed class pointer
//!   leaves its 4 to a field), and the data words start at the next 8-byte
//!   boundary after them ([`RefWidth::data_offset_from`]).
//! - **Unscaled**: the compressed slots, holding the object's address
//!   itself (the heap lies wholly below [`UNSCALED_ADDRESS_LIMIT`], 4 GiB:
//!   HotSpot's unscaled, or 32-bit, compressed oops). Decoding is the
//!   32-bit load's zero extension: no shift between a reference's load and
//!   the next load through it, which a pointer chase pays at every step.
//!
//! The layout word has two forms, chosen per object at allocation, told
//! apart by bit 30 of its first 4 bytes (its low half, little-endian):
//!
//! ```text
//!  untagged  8 bytes: bits 0..32 nrefs (below 2^30)  bits 32..62 ndata    bits 30, 31 clear
//!  tagged    4 bytes: bits 0..30 the tag              bit 30 set           bit 31 clear
//!  forwarded 8 bytes (compact format, a copied original only): bit 31 set
//! ```
//!
//! The tag is a number the runtime chooses, at most [`MAX_LAYOUT_TAG`]: a
//! class index, so that an object the runtime allocates tagged needs no
//! class word of its own (HotSpot's compressed class pointer sits beside
//! the mark word for the same reason). The heap learns a tag's counts
//! once, when the runtime defines it (`Heap::define_tag`,
//! `Mutator::define_tag`, or the first `alloc_tagged` with it), and keeps
//! them in its tag table, where the collector reads them (HotSpot's
//! collectors read an object's size from its klass's layout helper the
//! same way). Every object of a tag has its counts: at most
//! [`MAX_TAGGED_COUNT`] each, which every instance of a Java class fits
//! (65,535 fields at most); arrays and anything larger take the untagged
//! form, whose counts reach [`MAX_CELL_WORDS`] and are the word itself.
//! Generated code that knows an object's form (a runtime that tags every
//! instance and no array knows it from the bytecode's types) reads the
//! tag as the 4-byte word's low 30 bits or `nrefs` as the untagged word's
//! low 32; code that does not tests [`LAYOUT_TAGGED_BIT`] first
//! ([`layout_tag`], [`untagged_counts`]).
//!
//! Every word is 8 bytes and 8-aligned (a compressed reference slot is 4
//! bytes, 4-aligned); the object's address is the cell's plus
//! [`CellFormat::cell_to_object`]; the cell is [`CellFormat::cell_bytes_in`]
//! long. The two formats differ only in the forwarding word:
//! - **Brooks** (a set with `brooks-rb` or `brooks-wb`): every object
//!   carries its forwarding word (Brooks 1984; Shenandoah until JDK 13),
//!   since those barriers read through it on every access.
//! - **Compact** (every other set): no forwarding word. A copy is recorded
//!   only in the from-space original, in the word at [`LAYOUT_WORD_OFFSET`]
//!   (8 bytes: a tagged object's layout word and what follows it, its
//!   reference 0 or padding), which the evacuating CAS replaces by
//!   [`forwarded_layout_word`]`(copy)` (bit 31 set, which no object's own
//!   word has: an untagged `nrefs` stays below 2^30, a tagged word has
//!   only bit 30 above its tag). The copy takes the 8 bytes the winning
//!   CAS replaced, so a copier that read reference 0 after another's CAS
//!   loses its own CAS and drops its copy. Shenandoah since JDK 13 keeps
//!   the forwardee in the original's header instead; here the header
//!   belongs to `fastpath::sync`, and the layout word is the one word no
//!   mutator reads of a from-space object: the load-reference barrier
//!   hands out only copies, and a passive collection updates every
//!   reference in its pause. Objects are 8 bytes smaller than in the
//!   Brooks format.
//!
//! What generated code may do with these, and the rules it keeps:
//! - **Reading and writing an object's words**: at [`RefWidth::ref_offset`]
//!   and [`RefWidth::data_offset`] for an untagged object,
//!   [`RefWidth::tagged_ref_offset`] and [`RefWidth::tagged_data_offset`]
//!   for a tagged one (for a full-width heap, where the two agree, also
//!   [`ref_offset`] and [`data_offset`]), from an address the barrier set hands out (a root, or
//!   a reference loaded through the set's load barrier), after the set's
//!   barrier for that access: the table in `gc/barriers/mod.rs` (data
//!   reads: Brooks read barrier; data writes: Brooks write barrier, else
//!   read barrier; references: the load, store and CAS barriers). An
//!   address is an object until the mutator's next safepoint (the rule of
//!   [`crate::gc::Obj`], and [`crate::gc::Obj::from_addr`] turns such an
//!   address back into an `Obj` for the Rust accessors).
//! - **Resolving a copy** of an object in the collection set: in the
//!   Brooks format the forwarding word at [`FORWARDING_OFFSET`] names the
//!   object itself or its copy; in the compact format the 8-byte word at
//!   [`LAYOUT_WORD_OFFSET`] is either the object's own (not copied yet) or,
//!   with bit 31 set, the copy's address with its halves swapped
//!   ([`forwardee_of_layout_word`]: clear the bit, rotate by 32). A
//!   plain load suffices in both (the copy is published by the evacuating
//!   CAS's release, and every access through the loaded address depends on
//!   it).
//! - **Initialising an object allocated inline** (a TLAB bump, the thread
//!   block's `TLAB_TOP_OFFSET`/`TLAB_END_OFFSET`): the TLAB's memory is not
//!   zeroed, so the code writes the whole cell as the heap does: in the
//!   Brooks format the forwarding word = the object's address; the header =
//!   [`INITIAL_HEADER`] (or `sync::Header::with_spare_bits`'s word), the
//!   layout word = [`layout_word`]`(nrefs, ndata)` (8 bytes) or
//!   [`tagged_layout_word`]`(tag)` (4 bytes, of a tag the heap has
//!   defined: `Heap::define_tag`), every reference and data word 0 (an
//!   8-byte store of the tagged word, whose high half is 0, clears what
//!   follows it); and publishes the object to other threads only by a
//!   release store (as the heap's reference stores are) or a safepoint.
//! - **Never**: writing the forwarding word or the layout word after
//!   initialisation, or anything of an object whose set's barriers it
//!   skipped.
//!
//! Invariants `space.rs` keeps and the tests check against real objects:
//! every offset here is where the heap reads and writes; the layout word of
//! every object outside a cycle's collection set is the one it was
//! allocated with, and its counts (the word's own, or its tag's in the
//! heap's tag table) are the ones it was allocated with; a cell's first word (the forwarding word, an
//! aligned address, or the header, whose lock bits are never `11`) is never
//! a filler's (low bits `11`: a filler only pads a region).

use crate::sync::Header;

/// Layout version: a consumer compiled against these constants checks it
/// against [`object_layout_version`] (C: `fastpath_gc_layout_version()`) at start.
/// Changes whenever a constant or a word's meaning does (2: the compact
/// format, without a forwarding word outside the Brooks barrier sets; 3:
/// the layout word's tagged form; 4: compressed reference slots, a heap's
/// [`RefWidth`]; 5: [`RefWidth::Unscaled`]; 6: the tagged word of 4
/// bytes, its counts in the heap's tag table, reference 0 at 12 in a
/// tagged object of a compressed heap, and bit 31 marking a forwarded
/// original).
pub const OBJECT_LAYOUT_VERSION: u32 = 6;

/// The layout version this library was built with ([`OBJECT_LAYOUT_VERSION`]).
pub fn object_layout_version() -> u32 {
    OBJECT_LAYOUT_VERSION
}

/// Bytes of every word of a cell (forwarding, header, layout, each
/// reference and data word).
pub const WORD_BYTES: usize = 8;
/// Offset of the forwarding word from the object's address, in the Brooks
/// format only (Shenandoah 2017's Brooks pointer): the object's own
/// address, or its copy's.
pub const FORWARDING_OFFSET: isize = -8;
/// Offset of the header (`fastpath::sync::Header`, one word): the object's
/// address is its header's, the word the lock templates CAS.
pub const HEADER_OFFSET: usize = 0;
/// Offset of the layout word: the counts (untagged, 8 bytes) or the
/// runtime's tag (tagged, 4 bytes) ([`untagged_counts`], [`layout_tag`]),
/// or in the compact format a forwarded original's
/// [`forwarded_layout_word`] (8 bytes).
pub const LAYOUT_WORD_OFFSET: usize = 8;
/// Bytes of the tagged form of the layout word.
pub const TAGGED_WORD_BYTES: usize = 4;
/// Offset of reference 0 of an untagged object, and of a tagged one in a
/// heap with full-width references; reference `i` is at
/// [`RefWidth::ref_offset`]`(i)` ([`RefWidth::tagged_ref_offset`]`(i)`).
pub const REFS_OFFSET: usize = 16;
/// Offset of reference 0 of a tagged object in a heap with compressed or
/// unscaled references: right after the 4-byte tagged word.
pub const TAGGED_COMPRESSED_REFS_OFFSET: usize = LAYOUT_WORD_OFFSET + TAGGED_WORD_BYTES;
/// Bytes of a compressed reference slot ([`RefWidth::Compressed`]).
pub const COMPRESSED_REF_BYTES: usize = 4;
/// A compressed reference is the object's address shifted right by this
/// (objects are 8-aligned): decoding is `(slot as usize) << 3`, null 0.
pub const COMPRESSED_REF_SHIFT: u32 = 3;
/// Every address of a heap with compressed references is below this (32
/// GiB: a 32-bit slot shifted by [`COMPRESSED_REF_SHIFT`] reaches it), so
/// that the encoding needs no base.
pub const COMPRESSED_ADDRESS_LIMIT: usize = 1 << (32 + COMPRESSED_REF_SHIFT);
/// The lowest address a heap with compressed references is placed at (2
/// GiB, HotSpot's `HeapBaseMinAddress`): below it lie a non-PIE program's
/// text and its `brk` heap.
pub const COMPRESSED_HEAP_MIN_ADDRESS: usize = 2 << 30;
/// Where a heap with compressed references is placed when nothing from
/// [`COMPRESSED_HEAP_MIN_ADDRESS`] up is free (256 MiB: AddressSanitizer's
/// shadow memory takes 2–32 GiB); the heap then lies below 2 GiB.
pub const COMPRESSED_HEAP_FALLBACK_MIN_ADDRESS: usize = 256 << 20;
/// The largest heap (in bytes) that may have compressed references: all of
/// it must fit between [`COMPRESSED_HEAP_MIN_ADDRESS`] and
/// [`COMPRESSED_ADDRESS_LIMIT`], with a region to spare for alignment.
pub const MAX_COMPRESSED_HEAP_BYTES: usize =
    COMPRESSED_ADDRESS_LIMIT - COMPRESSED_HEAP_MIN_ADDRESS - (32 << 20);
/// Every address of a heap with unscaled references is below this (4 GiB:
/// a 32-bit slot holds the address itself).
pub const UNSCALED_ADDRESS_LIMIT: usize = 1 << 32;
/// The largest heap (in bytes) that may have unscaled references: all of
/// it must fit between [`COMPRESSED_HEAP_MIN_ADDRESS`] and
/// [`UNSCALED_ADDRESS_LIMIT`], with a region to spare for alignment.
pub const MAX_UNSCALED_HEAP_BYTES: usize = UNSCALED_ADDRESS_LIMIT - COMPRESSED_HEAP_MIN_ADDRESS - (32 << 20);
/// An untagged layout word's bits that hold `nrefs` (the low 32, of
/// which the top two stay clear: [`MAX_CELL_WORDS`]).
pub const LAYOUT_NREFS_MASK: usize = 0xffff_ffff;
/// An untagged layout word's shift to `ndata` (bits 32..62).
pub const LAYOUT_NDATA_SHIFT: u32 = 32;
/// Set in a tagged layout word (bit 30 of its 4 bytes), clear in the low
/// half of an untagged one.
pub const LAYOUT_TAGGED_BIT: usize = 1 << 30;
/// A tagged word's bits that hold the tag (the low 30).
pub const LAYOUT_TAG_MASK: usize = LAYOUT_TAGGED_BIT - 1;
/// The most references, and the most data words, a tagged object holds.
pub const MAX_TAGGED_COUNT: usize = 0xffff;
/// The largest tag: the heap's tag table has an entry for each tag up to
/// it (4 Mi tags, 32 MiB of address space reserved per heap and backed
/// only where tags are defined).
pub const MAX_LAYOUT_TAG: u32 = (1 << 22) - 1;
/// Set in a forwarded original's layout word (compact format), clear in
/// every object's own: an untagged `nrefs` stays below 2^30
/// ([`MAX_CELL_WORDS`]), a tagged word has bit 30 only above its tag.
pub const LAYOUT_FORWARDED_BIT: usize = 1 << 31;
/// The most words a cell of the heap may take (its references and data
/// words included): the largest object the heap allocates (8 GiB).
pub const MAX_CELL_WORDS: usize = (1 << 30) - 1;

/// Which words precede an object's header in its cell: the heap's barrier
/// set decides, once, when the heap is made (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CellFormat {
    /// A forwarding word before the header (the Brooks barriers read
    /// through it).
    Brooks,
    /// Header first: a copy is recorded in the original's layout word.
    Compact,
}

impl CellFormat {
    /// The format of a heap whose barrier set is `bits`: Brooks when the
    /// set has either Brooks barrier, compact otherwise.
    pub const fn for_barriers(bits: crate::gc::BarrierBits) -> CellFormat {
        use crate::gc::Barrier;
        if bits.has(Barrier::BrooksRb) || bits.has(Barrier::BrooksWb) {
            CellFormat::Brooks
        } else {
            CellFormat::Compact
        }
    }

    /// Whether objects carry the forwarding word at [`FORWARDING_OFFSET`].
    #[inline(always)]
    pub const fn has_forwarding_word(self) -> bool {
        matches!(self, CellFormat::Brooks)
    }

    /// The object's address minus its cell's: 8 (the forwarding word
    /// first) or 0.
    #[inline(always)]
    pub const fn cell_to_object(self) -> usize {
        match self {
            CellFormat::Brooks => WORD_BYTES,
            CellFormat::Compact => 0,
        }
    }

    /// Words of a cell before reference 0: forwarding (Brooks), header,
    /// layout.
    #[inline(always)]
    pub const fn header_words(self) -> usize {
        match self {
            CellFormat::Brooks => 3,
            CellFormat::Compact => 2,
        }
    }

    /// Bytes of the cell of an object with `nrefs` full-width references
    /// and `ndata` data words: [`CellFormat::cell_bytes_in`] for
    /// [`RefWidth::Full`].
    #[inline(always)]
    pub const fn cell_bytes(self, nrefs: usize, ndata: usize) -> usize {
        self.cell_bytes_in(RefWidth::Full, nrefs, ndata)
    }

    /// Bytes of the cell of an untagged object with `nrefs` references of
    /// width `refs` and `ndata` data words (what a TLAB bump takes for it).
    #[inline(always)]
    pub const fn cell_bytes_in(self, refs: RefWidth, nrefs: usize, ndata: usize) -> usize {
        self.cell_to_object() + refs.data_offset(nrefs, ndata)
    }

    /// Bytes of the cell of a tagged object with `nrefs` references of
    /// width `refs` and `ndata` data words.
    #[inline(always)]
    pub const fn tagged_cell_bytes_in(self, refs: RefWidth, nrefs: usize, ndata: usize) -> usize {
        self.cell_to_object() + refs.tagged_data_offset(nrefs, ndata)
    }
}

/// How a heap's reference slots hold a reference (module docs): chosen
/// once, when the heap is made, as the [`CellFormat`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum RefWidth {
    /// 8-byte slots holding the object's address.
    #[default]
    Full,
    /// 4-byte slots holding the address shifted right by
    /// [`COMPRESSED_REF_SHIFT`]; the heap lies below
    /// [`COMPRESSED_ADDRESS_LIMIT`].
    Compressed,
    /// 4-byte slots holding the address itself; the heap lies below
    /// [`UNSCALED_ADDRESS_LIMIT`].
    Unscaled,
}

impl RefWidth {
    /// Whether a slot is 4 bytes ([`RefWidth::Compressed`] or
    /// [`RefWidth::Unscaled`]): a 32-bit value, zero-extended.
    #[inline(always)]
    pub const fn is_compressed(self) -> bool {
        !matches!(self, RefWidth::Full)
    }

    /// The shift between a slot's value and the address: decoding is
    /// `slot << shift` ([`COMPRESSED_REF_SHIFT`] for
    /// [`RefWidth::Compressed`], 0 for the others).
    #[inline(always)]
    pub const fn shift(self) -> u32 {
        match self {
            RefWidth::Compressed => COMPRESSED_REF_SHIFT,
            RefWidth::Full | RefWidth::Unscaled => 0,
        }
    }

    /// The end of the addresses a heap with these slots may take:
    /// [`COMPRESSED_ADDRESS_LIMIT`], [`UNSCALED_ADDRESS_LIMIT`], or the
    /// whole address space for full slots.
    #[inline(always)]
    pub const fn address_limit(self) -> usize {
        match self {
            RefWidth::Full => usize::MAX,
            RefWidth::Compressed => COMPRESSED_ADDRESS_LIMIT,
            RefWidth::Unscaled => UNSCALED_ADDRESS_LIMIT,
        }
    }

    /// The largest heap (in bytes) these slots are allowed:
    /// [`MAX_COMPRESSED_HEAP_BYTES`], [`MAX_UNSCALED_HEAP_BYTES`], or no
    /// bound for full slots.
    #[inline(always)]
    pub const fn max_heap_bytes(self) -> usize {
        match self {
            RefWidth::Full => usize::MAX,
            RefWidth::Compressed => MAX_COMPRESSED_HEAP_BYTES,
            RefWidth::Unscaled => MAX_UNSCALED_HEAP_BYTES,
        }
    }

    /// Bytes of one reference slot: 8 or [`COMPRESSED_REF_BYTES`].
    #[inline(always)]
    pub const fn slot_bytes(self) -> usize {
        if self.is_compressed() {
            COMPRESSED_REF_BYTES
        } else {
            WORD_BYTES
        }
    }

    /// Words the slots of `nrefs` references take (the last one padded to
    /// a word in the compressed form).
    #[inline(always)]
    pub const fn ref_words(self, nrefs: usize) -> usize {
        if self.is_compressed() {
            nrefs.div_ceil(2)
        } else {
            nrefs
        }
    }

    /// Offset of reference `i` from the address of an untagged object.
    #[inline(always)]
    pub const fn ref_offset(self, i: usize) -> usize {
        REFS_OFFSET + self.slot_bytes() * i
    }

    /// Offset of data word `j` from the address of an untagged object with
    /// `nrefs` references (the data words follow the references, 8-aligned).
    #[inline(always)]
    pub const fn data_offset(self, nrefs: usize, j: usize) -> usize {
        self.data_offset_from(REFS_OFFSET, nrefs, j)
    }

    /// Offset of reference 0 in an object of the form `tagged` says:
    /// [`TAGGED_COMPRESSED_REFS_OFFSET`] for a tagged object with 4-byte
    /// slots, else [`REFS_OFFSET`].
    #[inline(always)]
    pub const fn refs_offset(self, tagged: bool) -> usize {
        if tagged && self.is_compressed() {
            TAGGED_COMPRESSED_REFS_OFFSET
        } else {
            REFS_OFFSET
        }
    }

    /// Offset of reference `i` from the address of a tagged object.
    #[inline(always)]
    pub const fn tagged_ref_offset(self, i: usize) -> usize {
        self.refs_offset(true) + self.slot_bytes() * i
    }

    /// Offset of data word `j` from the address of a tagged object with
    /// `nrefs` references.
    #[inline(always)]
    pub const fn tagged_data_offset(self, nrefs: usize, j: usize) -> usize {
        self.data_offset_from(self.refs_offset(true), nrefs, j)
    }

    /// Offset of data word `j` of an object whose reference 0 is at
    /// `refs_offset` ([`RefWidth::refs_offset`]) and which has `nrefs`
    /// references: the first 8-byte boundary after the slots, plus `j`
    /// words.
    #[inline(always)]
    pub const fn data_offset_from(self, refs_offset: usize, nrefs: usize, j: usize) -> usize {
        (refs_offset + self.slot_bytes() * nrefs).next_multiple_of(WORD_BYTES) + WORD_BYTES * j
    }

    /// What a slot holds for the reference `addr` (0 for null), as a
    /// 64-bit value: the address itself, or its compressed form (which
    /// fits 32 bits for every address of a compressed or unscaled heap).
    #[inline(always)]
    pub const fn encode(self, addr: usize) -> usize {
        addr >> self.shift()
    }

    /// The reference a slot's value `slot` names (0 for null).
    #[inline(always)]
    pub const fn decode(self, slot: usize) -> usize {
        slot << self.shift()
    }
}

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

/// Offset of reference `i` from the object's address in a heap with
/// full-width references, in either form ([`RefWidth::ref_offset`] and
/// [`RefWidth::tagged_ref_offset`] for any width).
#[inline(always)]
pub const fn ref_offset(i: usize) -> usize {
    RefWidth::Full.ref_offset(i)
}

/// Offset of data word `j` from the address of an object with `nrefs`
/// full-width references, in either form ([`RefWidth::data_offset`] and
/// [`RefWidth::tagged_data_offset`] for any width).
#[inline(always)]
pub const fn data_offset(nrefs: usize, j: usize) -> usize {
    RefWidth::Full.data_offset(nrefs, j)
}

/// The untagged layout word of an object with `nrefs` references and
/// `ndata` data words (together at most [`MAX_CELL_WORDS`], which the
/// heap's largest object guarantees).
#[inline(always)]
pub const fn layout_word(nrefs: usize, ndata: usize) -> usize {
    nrefs | (ndata << LAYOUT_NDATA_SHIFT)
}

/// The tagged layout word of tag `tag` (at most [`MAX_LAYOUT_TAG`];
/// `None` beyond it): 4 bytes, returned zero-extended (an 8-byte store of
/// it also clears the 4 bytes that follow, reference 0 or padding).
#[inline(always)]
pub const fn tagged_layout_word(tag: u32) -> Option<usize> {
    if tag > MAX_LAYOUT_TAG {
        return None;
    }
    Some(LAYOUT_TAGGED_BIT | tag as usize)
}

/// Whether `word` (an object's own, read as 4 or 8 bytes) is tagged.
#[inline(always)]
pub const fn is_tagged_layout_word(word: usize) -> bool {
    word & LAYOUT_TAGGED_BIT != 0
}

/// `(nrefs, ndata)` of an untagged layout word (a tagged one's counts
/// are its tag's, in the heap's tag table).
#[inline(always)]
pub const fn untagged_counts(word: usize) -> (usize, usize) {
    debug_assert!(!is_tagged_layout_word(word));
    (word & LAYOUT_NREFS_MASK, word >> LAYOUT_NDATA_SHIFT)
}

/// The tag of an object's own layout word (read as 4 or 8 bytes): `None`
/// in the untagged form.
#[inline(always)]
pub const fn layout_tag(word: usize) -> Option<u32> {
    if is_tagged_layout_word(word) {
        Some((word & LAYOUT_TAG_MASK) as u32)
    } else {
        None
    }
}

/// The 8-byte word at [`LAYOUT_WORD_OFFSET`] of a compact-format original
/// whose copy is at `copy`: the address with its halves swapped and bit
/// 31 set (the address's high half, below 2^16 for a user-space address,
/// has it clear).
#[inline(always)]
pub const fn forwarded_layout_word(copy: usize) -> usize {
    copy.rotate_left(32) | LAYOUT_FORWARDED_BIT
}

/// Whether the 8-byte word at [`LAYOUT_WORD_OFFSET`] is a forwarded
/// original's (its low half's bit 31).
#[inline(always)]
pub const fn is_forwarded_layout_word(word: usize) -> bool {
    word & LAYOUT_FORWARDED_BIT != 0
}

/// The copy a forwarded original's word names.
#[inline(always)]
pub const fn forwardee_of_layout_word(word: usize) -> usize {
    (word & !LAYOUT_FORWARDED_BIT).rotate_left(32)
}

const _: () = {
    assert!(core::mem::size_of::<Header>() == WORD_BYTES);
    assert!(
        core::mem::size_of::<usize>() == WORD_BYTES,
        "the published layout is 64-bit"
    );
    assert!(FORWARDING_OFFSET == -(CellFormat::Brooks.cell_to_object() as isize));
    assert!(REFS_OFFSET == LAYOUT_WORD_OFFSET + WORD_BYTES);
    assert!(LAYOUT_WORD_OFFSET == HEADER_OFFSET + WORD_BYTES);
    assert!(
        CellFormat::Brooks.cell_to_object() + REFS_OFFSET == CellFormat::Brooks.header_words() * WORD_BYTES
    );
    assert!(
        CellFormat::Compact.cell_to_object() + REFS_OFFSET == CellFormat::Compact.header_words() * WORD_BYTES
    );
    // No object's own word has the forwarded bit, nor an untagged word the
    // tagged bit.
    assert!(!is_forwarded_layout_word(layout_word(
        MAX_CELL_WORDS,
        MAX_CELL_WORDS
    )));
    assert!(!is_tagged_layout_word(layout_word(
        MAX_CELL_WORDS,
        MAX_CELL_WORDS
    )));
    match tagged_layout_word(MAX_LAYOUT_TAG) {
        Some(w) => assert!(!is_forwarded_layout_word(w) && is_tagged_layout_word(w)),
        None => panic!("the largest tag fits"),
    }
    assert!(MAX_LAYOUT_TAG as usize <= LAYOUT_TAG_MASK);
    assert!(MAX_TAGGED_COUNT <= MAX_CELL_WORDS);
    // A forwarded word of any user-space address (below 2^48) decodes back.
    assert!(is_forwarded_layout_word(forwarded_layout_word(0x7fff_ffff_fff8)));
    assert!(forwardee_of_layout_word(forwarded_layout_word(0xffff_ffff_fff8)) == 0xffff_ffff_fff8);
    assert!(forwardee_of_layout_word(forwarded_layout_word(0x8000_0000)) == 0x8000_0000);
    assert!(GC_STATE_MARKING & GC_STATE_EVACUATION & GC_STATE_HAS_FORWARDED == 0);
    assert!(RefWidth::Compressed.encode(COMPRESSED_ADDRESS_LIMIT - 8) <= u32::MAX as usize);
    assert!(COMPRESSED_HEAP_MIN_ADDRESS + MAX_COMPRESSED_HEAP_BYTES < COMPRESSED_ADDRESS_LIMIT);
    assert!(RefWidth::Compressed.data_offset(3, 0) == REFS_OFFSET + 16);
    assert!(RefWidth::Compressed.tagged_data_offset(3, 0) == REFS_OFFSET + 8);
    assert!(RefWidth::Compressed.tagged_data_offset(0, 0) == REFS_OFFSET);
    assert!(RefWidth::Full.tagged_data_offset(3, 0) == RefWidth::Full.data_offset(3, 0));
    assert!(RefWidth::Unscaled.encode(UNSCALED_ADDRESS_LIMIT - 8) <= u32::MAX as usize);
    assert!(COMPRESSED_HEAP_MIN_ADDRESS + MAX_UNSCALED_HEAP_BYTES < UNSCALED_ADDRESS_LIMIT);
    assert!(RefWidth::Unscaled.data_offset(3, 0) == REFS_OFFSET + 16);
};

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::gc::{
        BarrierBits, BarrierSet, Dynamic, GcMode, Heap, HeapConfig, Obj, SerialBarriers,
        Shenandoah2017Barriers, ShenandoahBarriers, ShenandoahCompressedBarriers, Static,
    };

    /// The published constants are the words of real objects, in both
    /// formats: a fresh object's forwarding word (Brooks), header, layout
    /// word, references and data are where the constants say, with the
    /// values they say; the Rust accessors write exactly the words the
    /// offsets name; cells are laid end to end at the format's size.
    #[test]
    fn the_published_layout_is_the_heaps() {
        assert_eq!(CellFormat::for_barriers(BarrierBits::SERIAL), CellFormat::Compact);
        assert_eq!(
            CellFormat::for_barriers(BarrierBits::SHENANDOAH),
            CellFormat::Compact
        );
        assert_eq!(
            CellFormat::for_barriers(BarrierBits::SHENANDOAH_2017),
            CellFormat::Brooks
        );
        check_layout::<SerialBarriers>(BarrierBits::SERIAL, RefWidth::Full);
        check_layout::<ShenandoahBarriers>(BarrierBits::SHENANDOAH, RefWidth::Full);
        check_layout::<Shenandoah2017Barriers>(BarrierBits::SHENANDOAH_2017, RefWidth::Full);
        // Compressed slots: a static type of that width, and `Dynamic`.
        check_layout::<Static<{ BarrierBits::SERIAL.0 }, true>>(BarrierBits::SERIAL, RefWidth::Compressed);
        check_layout::<ShenandoahCompressedBarriers>(BarrierBits::SHENANDOAH, RefWidth::Compressed);
        check_layout::<Dynamic>(BarrierBits::SHENANDOAH_2017, RefWidth::Compressed);
        // Unscaled slots: `Dynamic`, in both formats.
        check_layout::<Dynamic>(BarrierBits::SHENANDOAH, RefWidth::Unscaled);
        check_layout::<Dynamic>(BarrierBits::SHENANDOAH_2017, RefWidth::Unscaled);
    }

    fn check_layout<B: BarrierSet>(bits: BarrierBits, refs: RefWidth) {
        let mut config = HeapConfig::new(4 << 20, bits, GcMode::Passive);
        config.refs = refs;
        let heap = Heap::new(config).unwrap();
        assert_eq!(heap.ref_width(), refs);
        let format = heap.cell_format();
        assert_eq!(format, CellFormat::for_barriers(bits));
        let c2o = format.cell_to_object();
        let mut m = heap.mutator::<B>().unwrap();
        let word = |a: usize| {
            // SAFETY: `a` is a word of a live object of the heap (no
            // safepoint since its address was read); atomic, as the heap's.
            unsafe {
                (*(a as *const core::sync::atomic::AtomicUsize)).load(core::sync::atomic::Ordering::Relaxed)
            }
        };
        // A reference slot's raw contents, at the width the heap publishes.
        let slot = |a: usize| {
            if refs.is_compressed() {
                // SAFETY: as `word`, a 4-aligned slot of a live object.
                unsafe {
                    (*(a as *const core::sync::atomic::AtomicU32)).load(core::sync::atomic::Ordering::Relaxed)
                        as usize
                }
            } else {
                word(a)
            }
        };
        for (nrefs, ndata) in [(0, 0), (0, 3), (2, 0), (3, 5), (1, 1)] {
            let h = m.alloc(nrefs, ndata).unwrap();
            let target = m.alloc(0, 0).unwrap();
            let (o, t) = (m.get(h).unwrap(), m.get(target).unwrap());
            let a = o.addr();
            assert_eq!(a % 8, 0);
            if refs.is_compressed() {
                assert!(a + 8 < refs.address_limit() && a >= COMPRESSED_HEAP_FALLBACK_MIN_ADDRESS);
            }
            if format.has_forwarding_word() {
                assert_eq!(
                    word(a.wrapping_add_signed(FORWARDING_OFFSET)),
                    a,
                    "not forwarded: itself"
                );
            }
            assert_eq!(word(a + HEADER_OFFSET), INITIAL_HEADER);
            assert_eq!(word(a + LAYOUT_WORD_OFFSET), layout_word(nrefs, ndata));
            assert_eq!(untagged_counts(word(a + LAYOUT_WORD_OFFSET)), (nrefs, ndata));
            assert_eq!(m.shape(o).unwrap(), (nrefs, ndata));
            for i in 0..nrefs {
                assert_eq!(slot(a + refs.ref_offset(i)), 0, "a new reference is null");
                m.store(o, i, Some(t)).unwrap();
                assert_eq!(refs.decode(slot(a + refs.ref_offset(i))), t.addr());
                assert_eq!(slot(a + refs.ref_offset(i)), refs.encode(t.addr()));
            }
            for j in 0..ndata {
                assert_eq!(word(a + refs.data_offset(nrefs, j)), 0, "a new data word is 0");
                m.write(o, j, 0x5eed + j).unwrap();
                assert_eq!(word(a + refs.data_offset(nrefs, j)), 0x5eed + j);
                // SAFETY: an object of this heap with `nrefs` references.
                let d = unsafe { m.data_unchecked(o, nrefs) } as usize;
                assert_eq!(d, a + refs.data_offset(nrefs, 0));
            }
            // The references kept their values through the data writes
            // (no data word overlaps a slot, the padding included).
            for i in 0..nrefs {
                assert_eq!(m.load(o, i).unwrap().map(|r| r.addr()), Some(t.addr()));
            }
            if refs == RefWidth::Full {
                assert_eq!(
                    (ref_offset(nrefs), data_offset(nrefs, 1)),
                    (refs.ref_offset(nrefs), refs.data_offset(nrefs, 1))
                );
            }
            // An address read back is the same object.
            // SAFETY: `a` is an object of this heap, no safepoint since.
            assert!(m.same(Some(unsafe { Obj::from_addr(a) }), Some(o)));
            // The next cell starts where this one ends (one TLAB, bump order).
            let ta = t.addr();
            assert_eq!(ta - c2o, a - c2o + format.cell_bytes_in(refs, nrefs, ndata));
            let next = m.alloc(0, 0).unwrap();
            let n = m.get(next).unwrap().addr();
            assert_eq!(
                n - c2o,
                ta - c2o + format.cell_bytes(0, 0),
                "cells are laid end to end"
            );
        }
        // The tagged form: the tag in a 4-byte word, read back by the
        // published mask; the references from the tagged offset (12 with
        // 4-byte slots: reference 0 shares the layout word's 8 bytes), the
        // data words after them, the cell the tagged size.
        let word32 = |a: usize| {
            // SAFETY: as `word`, the 4-byte layout word of a live object.
            unsafe {
                (*(a as *const core::sync::atomic::AtomicU32)).load(core::sync::atomic::Ordering::Relaxed)
                    as usize
            }
        };
        for (nrefs, ndata) in [(0, 1), (1, 1), (2, 0), (3, 2)] {
            let tag = 0x2345 + nrefs as u32;
            let h = m.alloc_tagged(nrefs, ndata, tag).unwrap();
            let target = m.alloc(0, 0).unwrap();
            let (o, t) = (m.get(h).unwrap(), m.get(target).unwrap());
            let a = o.addr();
            let w = word32(a + LAYOUT_WORD_OFFSET);
            assert_eq!(Some(w), tagged_layout_word(tag));
            assert_eq!(w & LAYOUT_TAGGED_BIT, LAYOUT_TAGGED_BIT);
            assert_eq!(w & LAYOUT_TAG_MASK, tag as usize);
            assert_eq!(layout_tag(w), Some(tag));
            assert_eq!(m.shape(o).unwrap(), (nrefs, ndata));
            assert_eq!(m.tag(o).unwrap(), Some(tag));
            for i in 0..nrefs {
                assert_eq!(slot(a + refs.tagged_ref_offset(i)), 0, "a new reference is null");
                m.store(o, i, Some(t)).unwrap();
                assert_eq!(refs.decode(slot(a + refs.tagged_ref_offset(i))), t.addr());
            }
            assert_eq!(word32(a + LAYOUT_WORD_OFFSET), w, "the stores left the tag");
            for j in 0..ndata {
                assert_eq!(
                    word(a + refs.tagged_data_offset(nrefs, j)),
                    0,
                    "a new data word is 0"
                );
                m.write(o, j, 0x7a9 + j).unwrap();
                assert_eq!(word(a + refs.tagged_data_offset(nrefs, j)), 0x7a9 + j);
                // SAFETY: an object of this heap with `nrefs` references.
                let d = unsafe { m.data_unchecked(o, nrefs) } as usize;
                assert_eq!(d, a + refs.tagged_data_offset(nrefs, 0));
            }
            for i in 0..nrefs {
                assert_eq!(m.load(o, i).unwrap().map(|r| r.addr()), Some(t.addr()));
            }
            if refs == RefWidth::Full {
                assert_eq!(
                    (ref_offset(nrefs), data_offset(nrefs, 1)),
                    (refs.tagged_ref_offset(nrefs), refs.tagged_data_offset(nrefs, 1))
                );
            }
            assert_eq!(
                t.addr() - c2o,
                a - c2o + format.tagged_cell_bytes_in(refs, nrefs, ndata)
            );
        }
        assert_eq!(layout_tag(layout_word(3, 5)), None);
        assert_eq!(INITIAL_HEADER, Header::new().raw());
        assert_eq!(object_layout_version(), OBJECT_LAYOUT_VERSION);
        // The values generated code is compiled against (version 6).
        assert_eq!(
            (
                FORWARDING_OFFSET,
                HEADER_OFFSET,
                LAYOUT_WORD_OFFSET,
                REFS_OFFSET,
                TAGGED_WORD_BYTES,
                TAGGED_COMPRESSED_REFS_OFFSET
            ),
            (-8, 0, 8, 16, 4, 12)
        );
        assert_eq!(
            (
                COMPRESSED_REF_BYTES,
                COMPRESSED_REF_SHIFT,
                COMPRESSED_ADDRESS_LIMIT,
                UNSCALED_ADDRESS_LIMIT
            ),
            (4, 3, 32 << 30, 4 << 30)
        );
        assert_eq!(
            (
                RefWidth::Full.shift(),
                RefWidth::Compressed.shift(),
                RefWidth::Unscaled.shift(),
                RefWidth::Unscaled.slot_bytes(),
                RefWidth::Unscaled.data_offset(3, 0)
            ),
            (0, 3, 0, 4, 32)
        );
        assert_eq!(
            (
                RefWidth::Compressed.ref_offset(3),
                RefWidth::Compressed.data_offset(3, 0),
                RefWidth::Compressed.data_offset(4, 1),
                RefWidth::Full.data_offset(3, 0)
            ),
            (28, 32, 40, 40)
        );
        assert_eq!(
            CellFormat::Compact.cell_bytes_in(RefWidth::Compressed, 3, 1),
            40,
            "16 + 12 bytes of slots padded to 16, one data word"
        );
        assert_eq!(
            (
                RefWidth::Compressed.tagged_ref_offset(1),
                RefWidth::Compressed.tagged_data_offset(1, 0),
                RefWidth::Compressed.tagged_data_offset(2, 0),
                RefWidth::Full.tagged_ref_offset(1),
                CellFormat::Compact.tagged_cell_bytes_in(RefWidth::Compressed, 1, 1),
                CellFormat::Compact.tagged_cell_bytes_in(RefWidth::Unscaled, 3, 1),
                CellFormat::Brooks.tagged_cell_bytes_in(RefWidth::Compressed, 0, 1),
            ),
            (16, 16, 24, 24, 24, 32, 32),
            "a tagged cell of one reference and one data word: 24 bytes, as HotSpot's"
        );
        assert_eq!(
            (
                CellFormat::Brooks.cell_to_object(),
                CellFormat::Brooks.header_words()
            ),
            (8, 3)
        );
        assert_eq!(
            (
                CellFormat::Compact.cell_to_object(),
                CellFormat::Compact.header_words()
            ),
            (0, 2)
        );
        assert_eq!(
            (
                forwarded_layout_word(0x7f12_3456_7890),
                forwardee_of_layout_word(0x3456_7890_8000_7f12),
                LAYOUT_FORWARDED_BIT
            ),
            (0x3456_7890_8000_7f12, 0x7f12_3456_7890, 1 << 31)
        );
        assert_eq!(
            (
                LAYOUT_TAGGED_BIT,
                LAYOUT_TAG_MASK,
                MAX_LAYOUT_TAG,
                MAX_TAGGED_COUNT,
                MAX_CELL_WORDS
            ),
            (1 << 30, (1 << 30) - 1, (1 << 22) - 1, 0xffff, (1 << 30) - 1)
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
