//! The thread block's and the heap objects' layouts as generated code
//! sees them: offsets from the thread register and the bit masks and
//! constants tested there, and offsets from an object's address.
//!
//! Where it sits: the caller fills a [`ThreadLayout`] from the thread
//! block's published offsets (or, in tests, from a plain `#[repr(C)]`
//! struct) and hands it to each thread-relative template. Nothing here
//! hard-codes a layout, so one template set serves every block that
//! publishes these fields (the complaint against hard-coded metadata
//! layouts in MMTk's bindings). Offsets are signed bytes from the thread
//! register; bits are masks of one byte. Beside the block: the SATB
//! queue's offsets ([`SatbQueueLayout`]), the heap's collection-set map
//! ([`CsetMap`]), which the GC medium paths read, and the object layout
//! ([`ObjectLayout`]: where a copy is recorded ([`Forwardee`]), the
//! references and their width ([`RefWidth`]), the data words), which the
//! barrier and data-access templates address objects with. fastpath's
//! values come from the library's published layouts
//! (`fastpath::thread`'s offsets, `fastpath::gc::layout`), each behind a
//! check of its version.

pub use fastpath::gc::layout::{CellFormat, RefWidth};

use crate::template::TemplateError;

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

/// The thread-block layout version these templates were written against
/// (`fastpath::thread::LAYOUT_VERSION` when they were last checked).
pub const EXPECTED_LAYOUT_VERSION: u32 = 4;

/// The heap-object layout version these templates were written against
/// (`fastpath::gc::layout::OBJECT_LAYOUT_VERSION` when they were last checked).
pub const EXPECTED_OBJECT_LAYOUT_VERSION: u32 = 6;

/// The library's published layout differs from the one the templates know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayoutMismatch {
    /// Which layout: `"thread-block"` or `"heap-object"`.
    pub layout: &'static str,
    /// What the templates were written against.
    pub expected: u32,
    /// What the linked library reports.
    pub found: u32,
}

impl std::fmt::Display for LayoutMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} layout version {} (templates expect {}): regenerate the templates",
            self.layout, self.found, self.expected
        )
    }
}

impl std::error::Error for LayoutMismatch {}

/// Checks the linked library's thread-block layout version, as a JIT does
/// once at start before emitting any thread-relative template.
pub fn check_layout_version() -> Result<(), LayoutMismatch> {
    check_version(
        "thread-block",
        EXPECTED_LAYOUT_VERSION,
        fastpath::thread::layout_version(),
    )
}

/// Checks the linked library's heap-object layout version, as a JIT does
/// once at start before emitting any template that addresses an object.
pub fn check_object_layout_version() -> Result<(), LayoutMismatch> {
    check_version(
        "heap-object",
        EXPECTED_OBJECT_LAYOUT_VERSION,
        fastpath::gc::layout::object_layout_version(),
    )
}

fn check_version(layout: &'static str, expected: u32, found: u32) -> Result<(), LayoutMismatch> {
    if found == expected {
        Ok(())
    } else {
        Err(LayoutMismatch {
            layout,
            expected,
            found,
        })
    }
}

/// Offset that fits a displacement (the published offsets are < 256).
fn off(o: usize) -> i32 {
    i32::try_from(o).expect("thread-block offsets are below 256")
}

impl ThreadLayout {
    /// fastpath's own thread block (`fastpath::thread::ThreadBlock`): its
    /// published offsets, the GC-state bits, card shift and dirty value of
    /// `fastpath::gc::layout` (marking `1 << 0`, has-forwarded `1 << 2`,
    /// HotSpot's 512-byte cards with 0 as dirty), poll bit 1. Fails when
    /// either library layout's version is not the one these templates
    /// know.
    pub fn fastpath() -> Result<ThreadLayout, LayoutMismatch> {
        use fastpath::gc::layout as g;
        use fastpath::thread as t;
        check_layout_version()?;
        check_object_layout_version()?;
        Ok(ThreadLayout {
            gc_state: off(t::GC_STATE_OFFSET),
            marking_bit: g::GC_STATE_MARKING,
            has_forwarded_bit: g::GC_STATE_HAS_FORWARDED,
            poll: off(t::POLL_WORD_OFFSET),
            poll_bit: 1,
            card_table_base: off(t::CARD_TABLE_BASE_OFFSET),
            card_shift: g::CARD_SHIFT as u8,
            dirty_card: g::CARD_DIRTY,
            tlab_top: off(t::TLAB_TOP_OFFSET),
            tlab_end: off(t::TLAB_END_OFFSET),
        })
    }
}

/// Where generated code finds the copy of an object of the collection
/// set, which the heap's cell format decides
/// (`fastpath::gc::layout::CellFormat`, chosen when the heap is made, by
/// default by its barrier set):
/// what the LRB's collection-set path ([`crate::LrbCset`], and
/// fastpath-cranelift's `load_reference_barrier`) loads and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Forwardee {
    /// The Brooks format: every object carries a forwarding word at
    /// `offset` from its address (fastpath: −8), holding the object's own
    /// address until it is copied, then its copy's. Not copied yet: the
    /// word equals the object. The Brooks read and write barriers read
    /// this word on every access, so they need this format.
    BrooksWord {
        /// Offset of the forwarding word (AArch64: −256..256).
        offset: i32,
    },
    /// The compact format: no forwarding word; the original's 8 bytes at
    /// `offset` (fastpath: 8, the layout word) hold the object's own layout
    /// word, whose bit 31 is clear in either form (untagged: `nrefs` below
    /// 2^30 in the low half; tagged: the 4-byte word of the tag and bit 30,
    /// the 4 bytes after it, reference 0 or padding, ignored by the test),
    /// until the object is copied, then the copy's address with its
    /// halves swapped and bit 31 set (`fastpath::gc::layout::
    /// forwarded_layout_word`: `copy.rotate_left(32) | 1 << 31`). Not
    /// copied yet: bit 31 clear; the copy is the word with bit 31 cleared,
    /// rotated by 32 (`forwardee_of_layout_word`).
    LayoutWord {
        /// Offset of the layout word (AArch64: −256..256).
        offset: i32,
    },
}

impl Forwardee {
    /// fastpath's word for `format`: the forwarding word at
    /// `FORWARDING_OFFSET` (Brooks) or the layout word at
    /// `LAYOUT_WORD_OFFSET` (compact).
    pub fn fastpath(format: CellFormat) -> Forwardee {
        use fastpath::gc::layout as g;
        match format {
            CellFormat::Brooks => Forwardee::BrooksWord {
                offset: g::FORWARDING_OFFSET as i32,
            },
            CellFormat::Compact => Forwardee::LayoutWord {
                offset: off(g::LAYOUT_WORD_OFFSET),
            },
        }
    }

    /// Offset of the word from the object's address.
    pub fn offset(self) -> i32 {
        match self {
            Forwardee::BrooksWord { offset } | Forwardee::LayoutWord { offset } => offset,
        }
    }

    /// The cell format this word belongs to.
    pub fn format(self) -> CellFormat {
        match self {
            Forwardee::BrooksWord { .. } => CellFormat::Brooks,
            Forwardee::LayoutWord { .. } => CellFormat::Compact,
        }
    }
}

/// A heap object as generated code addresses it, from the object's address
/// (its header's): where a copy is recorded ([`Forwardee`]: the Brooks
/// forwarding word below the header, or the layout word after it), then
/// after the header and layout words the references, in slots of the
/// heap's [`RefWidth`] (8 bytes holding the address; 4 holding it shifted
/// right by `fastpath::gc::layout::COMPRESSED_REF_SHIFT`, compressed, or
/// the address itself, unscaled, below 4 GiB; 4-byte slots packed),
/// and the data words, 8 bytes each from the first word boundary after the
/// slots (fastpath: `fastpath::gc::layout`).
///
/// Where reference 0 lies depends on the object's layout word's form: an
/// untagged object's (8-byte word) at [`ObjectLayout::refs`], a tagged
/// one's at [`ObjectLayout::tagged_refs`], right after its 4-byte word
/// when the slots are 4 bytes (fastpath: 12), else the same as an
/// untagged one's. A JIT knows the form of the objects it addresses (a
/// runtime that tags every instance and no array knows it from the
/// bytecode's types) and takes the offsets of that form:
/// [`ObjectLayout::ref_offset`] and [`ObjectLayout::data_offset`] for an
/// untagged object, [`ObjectLayout::tagged_ref_offset`] and
/// [`ObjectLayout::tagged_data_offset`] for a tagged one.
///
/// The templates that read, write or CAS a reference slot take the width
/// from here: [`ObjectLayout::reference`] for the data templates'
/// reference accesses ([`crate::DataLoad`], [`crate::DataStore`]), and
/// [`ObjectLayout::ref_width`] for [`crate::CasRef`] and
/// [`crate::SatbEnqueue`]. A compressed slot is loaded as a zero-extended
/// 32-bit value shifted left by 3 and stored shifted right by 3 (null is
/// 0 in both forms), an unscaled one loaded zero-extended and stored as
/// the address's low 32 bits, so a template hands out and takes decoded
/// addresses whatever the width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObjectLayout {
    /// Where the copy of an object of the collection set is recorded.
    pub forwardee: Forwardee,
    /// Offset of reference 0 of an untagged object (fastpath: 16);
    /// reference `i` follows at `ref_width.slot_bytes()`-byte steps, then
    /// the data words at 8-byte steps from the next word boundary
    /// ([`ObjectLayout::ref_offset`], [`ObjectLayout::data_offset`]).
    pub refs: i32,
    /// Offset of reference 0 of a tagged object (fastpath: 12 with 4-byte
    /// slots, `TAGGED_COMPRESSED_REFS_OFFSET`; 16 with 8-byte ones), the
    /// others and the data words following as from [`ObjectLayout::refs`]
    /// ([`ObjectLayout::tagged_ref_offset`],
    /// [`ObjectLayout::tagged_data_offset`]).
    pub tagged_refs: i32,
    /// The width of a reference slot (the heap's `RefWidth`: a heap's
    /// `fastpath::gc::Heap::ref_width()`, chosen by its configuration's
    /// `refs`, `FASTPATH_GC_REFS`).
    pub ref_width: RefWidth,
}

impl ObjectLayout {
    /// fastpath's heap objects in cell format `format` with full-width
    /// (8-byte) reference slots (a heap made with `RefWidth::Full`, the
    /// default): [`ObjectLayout::fastpath_with`]`(format,
    /// RefWidth::Full)`.
    pub fn fastpath(format: CellFormat) -> Result<ObjectLayout, LayoutMismatch> {
        ObjectLayout::fastpath_with(format, RefWidth::Full)
    }

    /// fastpath's heap objects in cell format `format` (a heap's
    /// `fastpath::gc::Heap::cell_format()`, which its configuration's
    /// `cell_format` chooses, by default the barrier set's:
    /// `CellFormat::for_barriers(set)`) with reference slots of width
    /// `refs` (the heap's `ref_width()`): [`Forwardee::fastpath`],
    /// `REFS_OFFSET` and the tagged form's `refs.refs_offset(true)`, after
    /// the object layout's version check.
    pub fn fastpath_with(format: CellFormat, refs: RefWidth) -> Result<ObjectLayout, LayoutMismatch> {
        use fastpath::gc::layout as g;
        check_object_layout_version()?;
        Ok(ObjectLayout {
            forwardee: Forwardee::fastpath(format),
            refs: off(g::REFS_OFFSET),
            tagged_refs: off(refs.refs_offset(true)),
            ref_width: refs,
        })
    }

    /// The objects of `m`'s heap ([`ObjectLayout::fastpath_with`] of its
    /// `cell_format()` and `ref_width()`), after the version check.
    pub fn of<B: fastpath::gc::BarrierSet>(
        m: &fastpath::gc::Mutator<B>,
    ) -> Result<ObjectLayout, LayoutMismatch> {
        ObjectLayout::fastpath_with(m.cell_format(), m.ref_width())
    }

    /// The cell format of these objects.
    pub fn format(&self) -> CellFormat {
        self.forwardee.format()
    }

    /// The data templates' width of a reference field or element of these
    /// objects: `DataWidth::Ref(self.ref_width)` (4-byte slots, scale 4,
    /// when compressed or unscaled).
    pub fn reference(&self) -> crate::DataWidth {
        crate::DataWidth::Ref(self.ref_width)
    }

    /// Offset of the Brooks forwarding word, which the Brooks read and
    /// write barriers ([`crate::BrooksReadBarrier`],
    /// [`crate::BrooksWriteBarrier`], [`crate::BrooksStoreVal`],
    /// [`crate::DataBarrier::Forwarded`] and `BrooksWrite`) read: refused
    /// ([`TemplateError::NoForwardingWord`]) for compact-format objects,
    /// which have none.
    pub fn brooks_forwarding(&self) -> Result<i32, TemplateError> {
        match self.forwardee {
            Forwardee::BrooksWord { offset } => Ok(offset),
            Forwardee::LayoutWord { .. } => Err(TemplateError::NoForwardingWord),
        }
    }

    /// Offset of reference `i` of an untagged object (`refs + slot_bytes
    /// * i`); `None` past `i32`'s range.
    pub fn ref_offset(&self, i: u32) -> Option<i32> {
        self.ref_offset_from(self.refs, i)
    }

    /// Offset of data word `j` of an untagged object with `nrefs`
    /// references (byte `k` of it is at this plus `k`: little-endian):
    /// the first word boundary after the slots, plus `j` words; `None`
    /// past `i32`'s range.
    pub fn data_offset(&self, nrefs: u32, j: u32) -> Option<i32> {
        self.data_offset_from(self.refs, nrefs, j)
    }

    /// Offset of reference `i` of a tagged object (`tagged_refs +
    /// slot_bytes * i`); `None` past `i32`'s range.
    pub fn tagged_ref_offset(&self, i: u32) -> Option<i32> {
        self.ref_offset_from(self.tagged_refs, i)
    }

    /// Offset of data word `j` of a tagged object with `nrefs` references:
    /// the first word boundary after its slots (from
    /// [`ObjectLayout::tagged_refs`]), plus `j` words; `None` past `i32`'s
    /// range.
    pub fn tagged_data_offset(&self, nrefs: u32, j: u32) -> Option<i32> {
        self.data_offset_from(self.tagged_refs, nrefs, j)
    }

    fn ref_offset_from(&self, refs: i32, i: u32) -> Option<i32> {
        let slot = self.ref_width.slot_bytes() as i64;
        i32::try_from(i64::from(refs) + slot * i64::from(i)).ok()
    }

    fn data_offset_from(&self, refs: i32, nrefs: u32, j: u32) -> Option<i32> {
        let slot = self.ref_width.slot_bytes() as i64;
        let end = i64::from(refs) + slot * i64::from(nrefs);
        // Rounded up to a multiple of 8 (the slots' end, padded to a word).
        let first = (end + 7) & !7;
        i32::try_from(first + 8 * i64::from(j)).ok()
    }
}

/// The lock-stack as generated code sees it (HotSpot `LockStack`): `top`
/// a `u32` byte offset from the thread register, entries addressed as
/// `[thread + top − 8]`, a zero sentinel below the first entry, and every
/// thread that does not run lightweight locking holding a `top` above
/// `end` whose low byte is the empty lock-stack's top (layout version 2),
/// so enter's one unsigned bounds check, and exit's on-top check after a
/// byte load of `top`, send it to the slow path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockStackLayout {
    /// Offset of the `u32` top.
    pub top: i32,
    /// `top` of a full lock-stack (one past the last entry).
    pub end: i32,
}

impl LockStackLayout {
    /// fastpath's thread block (`LOCK_STACK_TOP_OFFSET`,
    /// `LOCK_STACK_END_OFFSET`), after the layout version check.
    pub fn fastpath() -> Result<LockStackLayout, LayoutMismatch> {
        use fastpath::thread as t;
        check_layout_version()?;
        Ok(LockStackLayout {
            top: off(t::LOCK_STACK_TOP_OFFSET),
            end: off(t::LOCK_STACK_END_OFFSET),
        })
    }
}

/// The SATB queue's place in the thread block (HotSpot `SATBMarkQueue`:
/// the index is the byte offset of the last filled slot, the buffer fills
/// downwards, 0 = full).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SatbQueueLayout {
    /// Offset of the index word (bytes; 0 = full).
    pub index: i32,
    /// Offset of the buffer pointer.
    pub buffer: i32,
}

impl SatbQueueLayout {
    /// fastpath's thread block (`SATB_INDEX_OFFSET`, `SATB_BUFFER_OFFSET`),
    /// after the layout version check.
    pub fn fastpath() -> Result<SatbQueueLayout, LayoutMismatch> {
        use fastpath::thread as t;
        check_layout_version()?;
        Ok(SatbQueueLayout {
            index: off(t::SATB_INDEX_OFFSET),
            buffer: off(t::SATB_BUFFER_OFFSET),
        })
    }
}

/// The collection set as generated code tests it: one byte per region,
/// bit 0 set while the region is in the collection set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CsetMap {
    /// The map's address minus `heap_base >> region_shift`, so the byte of
    /// address `a` is at `biased + (a >> region_shift)`.
    pub biased: usize,
    /// log2 of the region size.
    pub region_shift: u8,
}

impl CsetMap {
    /// The collection-set map of `m`'s heap (`fastpath::gc::Mutator::cset_map`).
    pub fn of<B: fastpath::gc::BarrierSet>(m: &fastpath::gc::Mutator<B>) -> CsetMap {
        let (biased, region_shift) = m.cset_map();
        CsetMap { biased, region_shift }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_check_refuses_another_layout() {
        assert_eq!(check_version("thread-block", 2, 2), Ok(()));
        let e = check_version("heap-object", 1, 2).unwrap_err();
        assert_eq!((e.layout, e.expected, e.found), ("heap-object", 1, 2));
        assert!(e.to_string().contains("heap-object layout version 2"));
        assert!(e.to_string().contains("regenerate"));
        assert_eq!(
            check_layout_version(),
            Ok(()),
            "the linked library's layout is the known one"
        );
        assert_eq!(check_object_layout_version(), Ok(()));
    }

    /// The object layout is the library's published one in each format,
    /// and its offsets are the library's functions' (which the heap itself
    /// uses).
    #[test]
    fn object_layout_is_the_published_one() {
        use fastpath::gc::layout as g;
        let brooks = ObjectLayout::fastpath(CellFormat::Brooks).unwrap();
        let compact = ObjectLayout::fastpath(CellFormat::Compact).unwrap();
        assert_eq!(brooks.forwardee, Forwardee::BrooksWord { offset: -8 });
        assert_eq!(compact.forwardee, Forwardee::LayoutWord { offset: 8 });
        assert_eq!(
            (brooks.forwardee.offset(), compact.forwardee.offset()),
            (g::FORWARDING_OFFSET as i32, g::LAYOUT_WORD_OFFSET as i32)
        );
        assert_eq!(
            (brooks.format(), compact.format()),
            (CellFormat::Brooks, CellFormat::Compact)
        );
        assert_eq!(brooks.brooks_forwarding(), Ok(-8));
        assert_eq!(compact.brooks_forwarding(), Err(TemplateError::NoForwardingWord));
        for l in [brooks, compact] {
            assert_eq!((l.refs, l.tagged_refs), (16, 16), "full-width slots: one offset");
            for (nrefs, j) in [(0u32, 0u32), (3, 0), (3, 4), (1000, 7)] {
                assert_eq!(l.ref_offset(j), Some(g::ref_offset(j as usize) as i32));
                assert_eq!(
                    l.data_offset(nrefs, j),
                    Some(g::data_offset(nrefs as usize, j as usize) as i32)
                );
                assert_eq!(l.tagged_ref_offset(j), l.ref_offset(j));
                assert_eq!(l.tagged_data_offset(nrefs, j), l.data_offset(nrefs, j));
            }
            assert_eq!(l.ref_offset(u32::MAX), None, "past i32");
            assert_eq!(l.data_offset(u32::MAX / 2, u32::MAX / 2), None);
            assert_eq!(l.tagged_ref_offset(u32::MAX), None, "past i32");
            assert_eq!(l.tagged_data_offset(u32::MAX / 2, u32::MAX / 2), None);
        }
        // The format each preset's heap has.
        use fastpath::gc::BarrierBits as B;
        for (set, format) in [
            (B::NONE, CellFormat::Compact),
            (B::SERIAL, CellFormat::Compact),
            (B::G1, CellFormat::Compact),
            (B::SHENANDOAH, CellFormat::Compact),
            (B::SHENANDOAH_2017, CellFormat::Brooks),
        ] {
            assert_eq!(CellFormat::for_barriers(set), format, "{set}");
        }
        let t = ThreadLayout::fastpath().unwrap();
        assert_eq!(
            (t.marking_bit, t.has_forwarded_bit, t.card_shift, t.dirty_card),
            (g::GC_STATE_MARKING, g::GC_STATE_HAS_FORWARDED, 9, g::CARD_DIRTY)
        );
    }

    /// The compact format's forwarded word is what the LRB's compact form
    /// tests and decodes: bit 31 set, the copy the word with that bit
    /// cleared and rotated by 32. An object's own word has bit 31 clear in
    /// either form, read as 8 bytes as the LRB reads it: untagged (`nrefs`
    /// below 2^30 in the low half), and tagged (the tag and bit 30 in the
    /// low half) whatever the high half holds (reference 0 of a tagged
    /// object with 4-byte slots, or padding), so the test never takes an
    /// object for a copy, even where its reference 0's bit 31 (the high
    /// word's bit 63) is set, as in an unscaled heap above 2 GiB.
    #[test]
    fn a_forwarded_layout_word_has_bit_31_and_rotates_to_the_copy() {
        use fastpath::gc::layout as g;
        assert_eq!(g::LAYOUT_FORWARDED_BIT, 1 << 31);
        for copy in [
            0x7f12_3456_7890usize,
            0x8000_0008,
            0xffff_fff8,
            0x7fff_ffff_fff8,
            16,
        ] {
            let w = g::forwarded_layout_word(copy);
            assert_eq!(w & g::LAYOUT_FORWARDED_BIT, 1 << 31, "{copy:#x}");
            assert!(g::is_forwarded_layout_word(w));
            // The templates' decode: clear bit 31 (x86-64 `btr`, AArch64
            // `and`), rotate by 32 (`rol`, `ror`).
            assert_eq!((w & !(1 << 31)).rotate_right(32), copy, "{copy:#x}");
            assert_eq!(g::forwardee_of_layout_word(w), copy);
            // The test reads the low half's bit 31: a 32-bit sign.
            assert!(
                (w as u32 as i32) < 0,
                "{copy:#x}: the 32-bit sign test sees a copy"
            );
        }
        let untagged = g::layout_word(g::MAX_CELL_WORDS, g::MAX_CELL_WORDS);
        assert!(!g::is_forwarded_layout_word(untagged));
        assert!((untagged as u32 as i32) >= 0);
        for tag in [0, 1, 0x2345, g::MAX_LAYOUT_TAG] {
            let tagged = g::tagged_layout_word(tag).unwrap();
            assert_eq!(tagged >> 32, 0, "4 bytes, zero-extended");
            assert_eq!(tagged & !g::LAYOUT_TAG_MASK, g::LAYOUT_TAGGED_BIT);
            assert_eq!(g::layout_tag(tagged), Some(tag));
            // Whatever follows the 4-byte word: a null, a reference with
            // bit 31 set, all ones.
            for high in [0usize, 0x8000_0010, 0xffff_ffff] {
                let w = tagged | high << 32;
                assert!(!g::is_forwarded_layout_word(w), "{w:#x}: tagged, not forwarded");
                assert!(
                    (w as u32 as i32) >= 0,
                    "{w:#x}: the 32-bit sign test reads it as not copied"
                );
                assert_eq!(g::layout_tag(w as u32 as usize), Some(tag));
            }
        }
        // Past the tag table there is no tagged word at all.
        assert_eq!(g::tagged_layout_word(g::MAX_LAYOUT_TAG + 1), None);
        assert_eq!(g::tagged_layout_word(u32::MAX), None);
    }

    #[test]
    fn fastpath_layout_is_the_published_offsets() {
        use fastpath::thread as t;
        let l = ThreadLayout::fastpath().unwrap();
        assert_eq!(l.gc_state as usize, t::GC_STATE_OFFSET);
        assert_eq!(l.poll as usize, t::POLL_WORD_OFFSET);
        assert_eq!(l.card_table_base as usize, t::CARD_TABLE_BASE_OFFSET);
        assert_eq!(
            (l.tlab_top as usize, l.tlab_end as usize),
            (t::TLAB_TOP_OFFSET, t::TLAB_END_OFFSET)
        );
        let s = LockStackLayout::fastpath().unwrap();
        assert_eq!(
            (s.top as usize, s.end as usize),
            (t::LOCK_STACK_TOP_OFFSET, t::LOCK_STACK_END_OFFSET)
        );
        assert!(t::LOCK_STACK_INACTIVE > s.end as u32);
        // The exit template loads the low byte of top: an inactive thread's
        // reads as the empty lock-stack's (the sentinel on top).
        assert_eq!(t::LOCK_STACK_INACTIVE as u8 as usize, t::LOCK_STACK_OFFSET);
    }

    /// A heap of every reference width is accepted, and its layout is the
    /// library's: the width, each reference's offset and each data word's
    /// (the 4-byte slots, compressed or unscaled, packed, the data words
    /// after them at the next word), and the data templates' reference
    /// width.
    #[test]
    fn heaps_of_every_reference_width_are_accepted() {
        use crate::DataWidth;
        use fastpath::gc::{BarrierBits, Dynamic, GcMode, Heap, HeapConfig};
        for refs in [RefWidth::Compressed, RefWidth::Full, RefWidth::Unscaled] {
            let mut c = HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, GcMode::Passive);
            c.refs = refs;
            let heap = Heap::new(c).unwrap();
            let mut m = heap.mutator::<Dynamic>().unwrap();
            let l = ObjectLayout::of(&m).unwrap();
            assert_eq!(l, ObjectLayout::fastpath_with(m.cell_format(), refs).unwrap());
            assert_eq!((l.ref_width, l.reference()), (refs, DataWidth::Ref(refs)));
            assert_eq!(l.reference().bytes() as usize, refs.slot_bytes());
            assert_eq!(l.tagged_refs as usize, refs.refs_offset(true), "{refs:?}");
            for (nrefs, j) in [(0u32, 0u32), (1, 0), (2, 0), (3, 0), (3, 4), (1000, 7), (1001, 2)] {
                assert_eq!(
                    l.ref_offset(j),
                    Some(refs.ref_offset(j as usize) as i32),
                    "{refs:?}"
                );
                assert_eq!(
                    l.data_offset(nrefs, j),
                    Some(refs.data_offset(nrefs as usize, j as usize) as i32),
                    "{refs:?} {nrefs} {j}"
                );
                assert_eq!(
                    l.tagged_ref_offset(j),
                    Some(refs.tagged_ref_offset(j as usize) as i32),
                    "{refs:?} tagged"
                );
                assert_eq!(
                    l.tagged_data_offset(nrefs, j),
                    Some(refs.tagged_data_offset(nrefs as usize, j as usize) as i32),
                    "{refs:?} tagged {nrefs} {j}"
                );
            }
            assert_eq!(l.ref_offset(u32::MAX), None, "past i32");
            // A real tagged object's words are where the tagged offsets say.
            let (nrefs, ndata) = (3usize, 2usize);
            let h = m.alloc_tagged(nrefs, ndata, 0x1234).unwrap();
            let target = m.alloc(0, 0).unwrap();
            let (o, t) = (m.get(h).unwrap(), m.get(target).unwrap());
            m.store(o, 2, Some(t)).unwrap();
            m.write(o, 1, 0x5eed).unwrap();
            let a = o.addr();
            let slot = a + l.tagged_ref_offset(2).unwrap() as usize;
            // SAFETY: a reference slot of a live object of this heap (no
            // stop since `get`), at the width the heap publishes.
            let raw = unsafe {
                if refs.is_compressed() {
                    (slot as *const u32).read() as usize
                } else {
                    (slot as *const u64).read() as usize
                }
            };
            assert_eq!(
                refs.decode(raw),
                t.addr(),
                "{refs:?}: reference 2 of a tagged object"
            );
            let data = a + l.tagged_data_offset(nrefs as u32, 1).unwrap() as usize;
            // SAFETY: data word 1 of the same object (8-aligned).
            let word = unsafe { (data as *const u64).read() };
            assert_eq!(word, 0x5eed, "{refs:?}: its data word 1");
        }
        let full = ObjectLayout::fastpath(CellFormat::Compact).unwrap();
        assert_eq!(full.ref_width, RefWidth::Full, "fastpath(format): full width");
        let packed = ObjectLayout::fastpath_with(CellFormat::Compact, RefWidth::Compressed).unwrap();
        assert_eq!(
            (
                packed.ref_offset(3),
                packed.data_offset(3, 0),
                full.data_offset(3, 0)
            ),
            (Some(28), Some(32), Some(40))
        );
        let unscaled = ObjectLayout::fastpath_with(CellFormat::Brooks, RefWidth::Unscaled).unwrap();
        assert_eq!(
            (
                unscaled.ref_offset(3),
                unscaled.data_offset(3, 0),
                unscaled.data_offset(4, 1)
            ),
            (Some(28), Some(32), Some(40)),
            "unscaled slots are packed as compressed ones"
        );
        assert_eq!(unscaled.reference().bytes(), 4);
        // A tagged object with 4-byte slots: reference 0 in the tagged
        // word's 8 bytes, the data words at the boundary after the slots.
        assert_eq!(
            (
                packed.tagged_refs,
                packed.tagged_ref_offset(1),
                packed.tagged_data_offset(0, 0),
                packed.tagged_data_offset(1, 0),
                packed.tagged_data_offset(2, 0),
                packed.tagged_data_offset(3, 1),
                unscaled.tagged_data_offset(3, 0),
            ),
            (12, Some(16), Some(16), Some(16), Some(24), Some(32), Some(24))
        );
        assert_eq!((full.tagged_refs, full.tagged_data_offset(1, 0)), (16, Some(24)));
    }
}
