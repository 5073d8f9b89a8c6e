//! Data loads and stores: an access to an object's data words (the
//! runtime's primitives, packed as it likes) or to one of its reference
//! slots, with the barrier the heap's set needs on the object accessed, so
//! a JIT emits one template per field access. The instructions are in
//! each ISA's emitter (`x64/data.rs`, `aarch64/data.rs`).
//!
//! What each set needs on data (`fastpath::gc`'s barrier table, the Rust
//! accessors `read`/`write` and `data_unchecked`/`data_mut_unchecked`),
//! which [`DataBarrier::read`] and [`DataBarrier::write`] compute from a
//! set:
//! - **none, serial, G1, the LRB sets** (`shenandoah`): nothing. The LRB
//!   sets heal every reference at its load, so every object address the
//!   code holds is the copy to use; the card and SATB barriers are on
//!   reference stores only.
//! - **Brooks read barrier** (`brooks-rb`): reads, and writes when the set
//!   has no write barrier, go through the forwarding word: one load
//!   ([`DataBarrier::Forwarded`]).
//! - **Brooks write barrier** (`brooks-wb`, Shenandoah 2017): a write
//!   tests the GC-state bits (evacuation, has-forwarded); when clear, it
//!   goes through the forwarding word; when set, to `slow`, where the JIT
//!   puts a stub calling [`crate::slow::brooks_wb`] (block, obj → the
//!   object to write: copied first if it is in the collection set while
//!   evacuation runs), resuming at `done` ([`DataBarrier::BrooksWrite`]).
//!
//! The access: `width` bytes at `obj + offset` (the byte offset of a field
//! in the data area: `ObjectLayout::data_offset`, or
//! `ObjectLayout::tagged_data_offset` for an object of the layout word's
//! tagged form, plus the field's byte within its word, little-endian), or
//! at `obj + offset + index × width`
//! with an index register (an array element). The offset must be a
//! multiple of the width (and the object address is 8-aligned), so every
//! access is single-copy atomic on both ISAs: no tearing, as Java demands;
//! loads are zero- or sign-extended to 64 bits.
//!
//! A reference field or element is the width [`DataWidth::Ref`] of the
//! heap's slots (`ObjectLayout::reference`), at `ObjectLayout::ref_offset`
//! (`ObjectLayout::tagged_ref_offset` for a tagged object; an element:
//! scaled by the slot's bytes). Full-width slots are a 64-bit
//! access; a compressed slot (4 bytes, the address shifted right by 3) is
//! loaded as a zero-extended 32-bit value shifted left by 3 and stored
//! shifted right by 3 (null is 0 in both forms); an unscaled slot (4
//! bytes, the address itself: the heap lies below 4 GiB) is a plain
//! 32-bit access, loaded zero-extended and stored as the address's low 32
//! bits, the [`DataWidth::U32`] instructions. So the template's value is
//! the decoded address in every width. The reference's own barriers stay
//! the JIT's, around the template as around any reference access: the LRB
//! ([`crate::GcStateTest`], [`crate::LrbCset`]) on a loaded value, the SATB
//! pre-barrier ([`crate::SatbEnqueue`]), the card post-barriers and the
//! Brooks stored-value resolution around a store.
//!
//! Plain loads and stores:
//! the Rust accessors' Relaxed; a runtime's volatile accesses add their
//! fences around the template (x86-64: a store followed by `mfence` or a
//! locked instruction; AArch64: `dmb ish` around, or its own `ldar`/`stlr`).
//!
//! [`DataStore`] with [`DataBarrier::BrooksWrite`] binds `labels.done`
//! itself, right before its store: the stub resumes there with the object
//! to write in `obj`, and the JIT binds nothing. Every other form branches
//! nowhere (the JIT binds neither label, or binds both anywhere).

use super::contract::{SlowCall, Template, TemplateError};
use crate::isa::Isa;
use crate::layout::{ObjectLayout, RefWidth, ThreadLayout};
use crate::reg::{Reg, RegSet};
use crate::slow::LibraryPath;

/// How many bytes a data access moves, and how a load extends them to 64
/// bits (a store writes the value register's low bytes: its signedness is
/// ignored).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataWidth {
    /// One byte, zero-extended (Java `boolean`).
    U8,
    /// One byte, sign-extended (`byte`).
    I8,
    /// Two bytes, zero-extended (`char`).
    U16,
    /// Two bytes, sign-extended (`short`).
    I16,
    /// Four bytes, zero-extended (`float` bits).
    U32,
    /// Four bytes, sign-extended (`int`).
    I32,
    /// Eight bytes (`long`, `double` bits, a whole data word).
    U64,
    /// A reference slot of the heap's width (`ObjectLayout::reference`):
    /// full, 8 bytes holding the address; compressed, 4 bytes holding the
    /// address shifted right by 3, which a load decodes (zero-extended,
    /// shifted left by 3: null stays 0) and a store encodes; unscaled, 4
    /// bytes holding the address itself (below 4 GiB), a load
    /// zero-extended and a store of the low 32 bits, as [`DataWidth::U32`].
    /// Not in [`DataWidth::ALL`], the data widths.
    Ref(RefWidth),
}

impl DataWidth {
    /// Every data width, narrowest first (the reference widths are
    /// [`DataWidth::Ref`]'s).
    pub const ALL: [DataWidth; 7] = [
        DataWidth::U8,
        DataWidth::I8,
        DataWidth::U16,
        DataWidth::I16,
        DataWidth::U32,
        DataWidth::I32,
        DataWidth::U64,
    ];

    /// Bytes moved.
    pub fn bytes(self) -> u32 {
        match self {
            DataWidth::U8 | DataWidth::I8 => 1,
            DataWidth::U16 | DataWidth::I16 => 2,
            DataWidth::U32 | DataWidth::I32 => 4,
            DataWidth::U64 => 8,
            DataWidth::Ref(w) => w.slot_bytes() as u32,
        }
    }

    /// log2 of [`DataWidth::bytes`] (an index's scale).
    pub fn shift(self) -> u32 {
        self.bytes().trailing_zeros()
    }

    /// Whether a load sign-extends.
    pub fn signed(self) -> bool {
        matches!(self, DataWidth::I8 | DataWidth::I16 | DataWidth::I32)
    }

    /// Checks that an access of this width at `offset` from an object is
    /// aligned (a multiple of the width: the object is 8-aligned), so it is
    /// single-copy atomic; every form of the data templates requires it.
    pub fn check_offset(self, offset: i32) -> Result<(), TemplateError> {
        if offset % self.bytes() as i32 == 0 {
            Ok(())
        } else {
            Err(TemplateError::Offset {
                offset,
                accepts: "a multiple of the access width (an aligned, untearable access)",
            })
        }
    }

    /// `raw`'s low bytes as this width loads them (zero- or sign-extended;
    /// a compressed reference decoded, an unscaled one zero-extended from
    /// 32 bits, which is its decoding): the value a load template leaves,
    /// for a runtime's own constant folding and for tests.
    pub fn extend(self, raw: u64) -> u64 {
        match self {
            DataWidth::U8 => raw as u8 as u64,
            DataWidth::I8 => raw as i8 as i64 as u64,
            DataWidth::U16 => raw as u16 as u64,
            DataWidth::I16 => raw as i16 as i64 as u64,
            DataWidth::U32 | DataWidth::Ref(RefWidth::Unscaled) => raw as u32 as u64,
            DataWidth::I32 => raw as i32 as i64 as u64,
            DataWidth::U64 | DataWidth::Ref(RefWidth::Full) => raw,
            DataWidth::Ref(RefWidth::Compressed) => RefWidth::Compressed.decode(raw as u32 as usize) as u64,
        }
    }

    /// Whether this is a compressed reference slot (the load's extra
    /// shift left, the store's shift right into a scratch register).
    /// False for an unscaled slot, 4 bytes as well: it needs no shift, so
    /// neither the extra instruction nor the scratch (its accesses are
    /// [`DataWidth::U32`]'s).
    pub fn compressed(self) -> bool {
        self == DataWidth::Ref(RefWidth::Compressed)
    }
}

/// The barrier work a data access needs; see the module docs. The two
/// Brooks forms read the forwarding word, which only objects of a heap of
/// the Brooks cell format have (`fastpath::gc::layout::CellFormat`; every
/// heap whose set has `brooks-rb` or `brooks-wb`); [`DataBarrier::read`] and
/// [`DataBarrier::write`] refuse them for compact-format objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataBarrier {
    /// None: the address the code holds is the object to access.
    None,
    /// Through the forwarding word at `obj + forwarding` (Brooks: −8;
    /// Brooks-format heaps only).
    Forwarded {
        /// Offset of the forwarding word (AArch64: −256..256).
        forwarding: i32,
    },
    /// The Brooks write barrier (stores only; Brooks-format heaps only):
    /// `state_bits` of the GC-state byte at `thread + gc_state` send the
    /// store to `slow`, else through the forwarding word.
    BrooksWrite {
        /// Offset of the GC-state byte in the thread block (AArch64:
        /// 0..4096).
        gc_state: i32,
        /// The bits that take the slow path (fastpath:
        /// `BrooksWriteBarrier::FASTPATH_STATE_BITS`).
        state_bits: u8,
        /// Offset of the forwarding word (AArch64: −256..256).
        forwarding: i32,
    },
}

impl DataBarrier {
    /// What a data read needs under the barrier set `set`: through the
    /// forwarding word with `brooks-rb`, else nothing (the Rust
    /// accessors' `read`). `object` is the layout of the heap's objects
    /// (`ObjectLayout::fastpath(heap.cell_format())`); a Brooks barrier on
    /// compact-format objects, which have no forwarding word, is refused
    /// ([`TemplateError::NoForwardingWord`]: a heap of `set` has the Brooks
    /// format).
    pub fn read(set: fastpath::gc::BarrierBits, object: &ObjectLayout) -> Result<DataBarrier, TemplateError> {
        use fastpath::gc::Barrier;
        if set.has(Barrier::BrooksRb) {
            Ok(DataBarrier::Forwarded {
                forwarding: object.brooks_forwarding()?,
            })
        } else {
            Ok(DataBarrier::None)
        }
    }

    /// What a data write needs under `set`: the Brooks write barrier with
    /// `brooks-wb` (the GC-state byte of `thread`, fastpath's evacuation
    /// and has-forwarded bits), else through the forwarding word with
    /// `brooks-rb`, else nothing (the Rust accessors' `write`). Refused for
    /// compact-format objects as [`DataBarrier::read`] is.
    pub fn write(
        set: fastpath::gc::BarrierBits,
        thread: &ThreadLayout,
        object: &ObjectLayout,
    ) -> Result<DataBarrier, TemplateError> {
        use fastpath::gc::Barrier;
        if set.has(Barrier::BrooksWb) {
            Ok(DataBarrier::BrooksWrite {
                gc_state: thread.gc_state,
                state_bits: super::BrooksWriteBarrier::FASTPATH_STATE_BITS,
                forwarding: object.brooks_forwarding()?,
            })
        } else {
            DataBarrier::read(set, object)
        }
    }

    /// Instructions its common path adds on `isa` (the Brooks write
    /// barrier's: x86-64 `test; jnz; mov`, AArch64 `ldrb`, a `tbnz` per
    /// bit, `ldur`).
    fn budget(self, isa: Isa) -> usize {
        match self {
            DataBarrier::None => 0,
            DataBarrier::Forwarded { .. } => 1,
            DataBarrier::BrooksWrite { state_bits, .. } => match isa {
                Isa::X64 => 3,
                Isa::Aarch64 => 2 + state_bits.count_ones() as usize,
            },
        }
    }
}

/// The offset checked against the width: a multiple of it (aligned).
fn check_offset(offset: i32, width: DataWidth) -> Result<(), TemplateError> {
    width.check_offset(offset)
}

/// A load of a data field or element into `dst`; see the module docs.
/// Never branches.
#[derive(Clone, Copy, Debug)]
pub struct DataLoad {
    /// The object (kept).
    pub obj: Reg,
    /// Receives the value, extended to 64 bits (also holds the resolved
    /// object under [`DataBarrier::Forwarded`], and AArch64's element
    /// address with an index and an offset).
    pub dst: Reg,
    /// The element index (kept), scaled by the width; `None` for a field.
    pub index: Option<Reg>,
    /// Byte offset from the object (a multiple of the width; AArch64: a
    /// scaled unsigned 12-bit offset or −256..256 without an index,
    /// 0..4096 with one).
    pub offset: i32,
    /// Bytes loaded and their extension, or a reference slot's width
    /// (decoded when compressed, zero-extended when unscaled).
    pub width: DataWidth,
    /// [`DataBarrier::None`] or [`DataBarrier::Forwarded`]
    /// ([`DataBarrier::read`]); the write barrier is refused.
    pub barrier: DataBarrier,
}

impl Template for DataLoad {
    fn name(&self) -> &'static str {
        "data load"
    }
    fn operands(&self, _isa: Isa) -> Vec<Reg> {
        let mut v = vec![self.obj, self.dst];
        v.extend(self.index);
        v
    }
    fn clobbers(&self, _isa: Isa) -> RegSet {
        RegSet::of(&[self.dst])
    }
    /// The barrier's (0 or 1), the load, the decoding shift of a
    /// compressed reference (x86-64 `shl`, AArch64 `lsl`; none for an
    /// unscaled one), and on AArch64 an `add` for an indexed element at a
    /// non-zero offset.
    fn budget(&self, isa: Isa) -> usize {
        let add = isa == Isa::Aarch64 && self.index.is_some() && self.offset != 0;
        self.barrier.budget(isa) + 1 + usize::from(self.width.compressed()) + usize::from(add)
    }
    fn slow_call(&self) -> Option<SlowCall> {
        None
    }
    fn check(&self, isa: Isa) -> Result<(), TemplateError> {
        if let DataBarrier::BrooksWrite { .. } = self.barrier {
            return Err(TemplateError::Unsupported {
                what: "the Brooks write barrier on a load",
                isa,
            });
        }
        check_offset(self.offset, self.width)?;
        isa.check_operands(&self.operands(isa))
            .map_err(TemplateError::Register)
    }
}

/// A store of `src`'s low `width` bytes into a data field or element;
/// see the module docs.
#[derive(Clone, Copy, Debug)]
pub struct DataStore {
    /// The thread register ([`DataBarrier::BrooksWrite`]'s state test and
    /// slow call; otherwise not an operand).
    pub thread: Reg,
    /// The object; replaced by the object written (its copy) under
    /// [`DataBarrier::Forwarded`] and [`DataBarrier::BrooksWrite`], kept
    /// under [`DataBarrier::None`].
    pub obj: Reg,
    /// The value (kept; a reference as an address, encoded into `tmp` or
    /// `tmp2` for a compressed slot).
    pub src: Reg,
    /// The element index (kept), scaled by the width; `None` for a field.
    pub index: Option<Reg>,
    /// Scratch: a compressed reference's encoded value (x86-64; AArch64
    /// when `tmp2` is not needed for it), and on AArch64 the GC-state byte
    /// ([`DataBarrier::BrooksWrite`]) and an indexed element's address at
    /// a non-zero offset; not an operand otherwise.
    pub tmp: Reg,
    /// Scratch, AArch64: a compressed reference's encoded value when `tmp`
    /// holds an indexed element's address (an element at a non-zero
    /// offset); not an operand otherwise, nor ever on x86-64.
    pub tmp2: Reg,
    /// Byte offset from the object (as [`DataLoad::offset`]).
    pub offset: i32,
    /// Bytes stored (the signedness is ignored), or a reference slot's
    /// width (encoded when compressed, the low 32 bits when unscaled).
    pub width: DataWidth,
    /// The set's barrier ([`DataBarrier::write`]).
    pub barrier: DataBarrier,
}

impl DataStore {
    /// Whether AArch64's form uses `tmp`.
    fn a64_tmp(&self) -> bool {
        matches!(self.barrier, DataBarrier::BrooksWrite { .. })
            || self.a64_indexed_add()
            || self.width.compressed()
    }

    /// Whether AArch64's form computes an element's address into `tmp`.
    fn a64_indexed_add(&self) -> bool {
        self.index.is_some() && self.offset != 0
    }

    /// Whether AArch64's form encodes a compressed reference into `tmp2`
    /// (`tmp` holds the element's address).
    fn a64_tmp2(&self) -> bool {
        self.width.compressed() && self.a64_indexed_add()
    }

    /// Whether `isa`'s form uses `tmp`.
    fn uses_tmp(&self, isa: Isa) -> bool {
        match isa {
            Isa::X64 => self.width.compressed(),
            Isa::Aarch64 => self.a64_tmp(),
        }
    }

    /// Whether `isa`'s form uses `tmp2`.
    fn uses_tmp2(&self, isa: Isa) -> bool {
        isa == Isa::Aarch64 && self.a64_tmp2()
    }

    /// Whether `obj` is replaced by the object written.
    fn resolves(&self) -> bool {
        self.barrier != DataBarrier::None
    }
}

impl Template for DataStore {
    fn name(&self) -> &'static str {
        "data store"
    }
    fn operands(&self, isa: Isa) -> Vec<Reg> {
        let mut v = Vec::new();
        if let DataBarrier::BrooksWrite { .. } = self.barrier {
            v.push(self.thread);
        }
        v.extend([self.obj, self.src]);
        v.extend(self.index);
        if self.uses_tmp(isa) {
            v.push(self.tmp);
        }
        if self.uses_tmp2(isa) {
            v.push(self.tmp2);
        }
        v
    }
    fn clobbers(&self, isa: Isa) -> RegSet {
        let mut s = RegSet::EMPTY;
        if self.resolves() {
            s = s.with(self.obj);
        }
        if self.uses_tmp(isa) {
            s = s.with(self.tmp);
        }
        if self.uses_tmp2(isa) {
            s = s.with(self.tmp2);
        }
        s
    }
    /// The barrier's (0, 1, or the write barrier's 3 / 2 + bits), the
    /// store, a compressed reference's encoding (x86-64 `mov tmp, src; shr
    /// tmp, 3`, AArch64 `lsr`; none for an unscaled one), and on AArch64
    /// an `add` for an indexed element at a non-zero offset.
    fn budget(&self, isa: Isa) -> usize {
        let add = isa == Isa::Aarch64 && self.index.is_some() && self.offset != 0;
        let encode = match (isa, self.width.compressed()) {
            (_, false) => 0,
            (Isa::X64, true) => 2,
            (Isa::Aarch64, true) => 1,
        };
        self.barrier.budget(isa) + 1 + encode + usize::from(add)
    }
    /// Under [`DataBarrier::BrooksWrite`]: the library's Brooks write
    /// barrier slow path on (thread, obj), the object to write into `obj`.
    fn slow_call(&self) -> Option<SlowCall> {
        match self.barrier {
            DataBarrier::BrooksWrite { .. } => Some(SlowCall::library(
                LibraryPath::BrooksWb,
                &[self.thread, self.obj],
                Some(self.obj),
            )),
            _ => None,
        }
    }
    fn check(&self, isa: Isa) -> Result<(), TemplateError> {
        if let DataBarrier::BrooksWrite { state_bits: 0, .. } = self.barrier {
            return Err(TemplateError::NoBit);
        }
        check_offset(self.offset, self.width)?;
        isa.check_operands(&self.operands(isa))
            .map_err(TemplateError::Register)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reg::x64::{RAX, RCX, RDI, RDX, RSI};
    use fastpath::gc::BarrierBits;

    /// Each preset's data barriers are the Rust accessors' (the table in
    /// `fastpath::gc`'s barriers), for the layout of its heap's cell format.
    #[test]
    fn barriers_follow_the_set() {
        use crate::layout::CellFormat;
        let t = ThreadLayout::fastpath().unwrap();
        let fwd = DataBarrier::Forwarded { forwarding: -8 };
        for (set, read, write_wb) in [
            (BarrierBits::NONE, DataBarrier::None, false),
            (BarrierBits::SERIAL, DataBarrier::None, false),
            (BarrierBits::G1, DataBarrier::None, false),
            (BarrierBits::SHENANDOAH, DataBarrier::None, false),
            (BarrierBits::SHENANDOAH_2017, fwd, true),
        ] {
            let o = ObjectLayout::fastpath(CellFormat::for_barriers(set)).unwrap();
            assert_eq!(DataBarrier::read(set, &o), Ok(read), "{set:?}");
            let w = DataBarrier::write(set, &t, &o).unwrap();
            assert_eq!(matches!(w, DataBarrier::BrooksWrite { .. }), write_wb, "{set:?}");
            if !write_wb {
                assert_eq!(w, read);
            }
        }
        let rb_only: BarrierBits = "brooks-rb".parse().unwrap();
        let brooks = ObjectLayout::fastpath(CellFormat::Brooks).unwrap();
        assert_eq!(
            DataBarrier::write(rb_only, &t, &brooks),
            Ok(fwd),
            "writes read through"
        );
        // Compact objects have no forwarding word: the Brooks forms are
        // refused, the others need none.
        let compact = ObjectLayout::fastpath(CellFormat::Compact).unwrap();
        for set in [rb_only, BarrierBits::SHENANDOAH_2017] {
            assert_eq!(
                DataBarrier::read(set, &compact),
                Err(TemplateError::NoForwardingWord)
            );
            assert_eq!(
                DataBarrier::write(set, &t, &compact),
                Err(TemplateError::NoForwardingWord)
            );
        }
        assert_eq!(
            DataBarrier::read(BarrierBits::SHENANDOAH, &compact),
            Ok(DataBarrier::None)
        );
    }

    #[test]
    fn widths_extend_as_loads_do() {
        assert_eq!(DataWidth::I8.extend(0x1_80), 0xffff_ffff_ffff_ff80);
        assert_eq!(DataWidth::U8.extend(0x1_80), 0x80);
        assert_eq!(DataWidth::I16.extend(0x8001), 0xffff_ffff_ffff_8001);
        assert_eq!(DataWidth::I32.extend(0x8000_0000), 0xffff_ffff_8000_0000);
        assert_eq!(DataWidth::U32.extend(u64::MAX), 0xffff_ffff);
        assert_eq!(DataWidth::ALL.map(DataWidth::shift), [0, 0, 1, 1, 2, 2, 3]);
    }

    /// A reference slot's width: 8 bytes full, 4 compressed (scale 4, a
    /// load's value decoded); the compressed store's encoding takes `tmp`
    /// on x86-64 and `tmp`, or `tmp2` beside an element's address, on
    /// AArch64, each counted in the budget.
    #[test]
    fn reference_widths_scale_decode_and_take_their_scratch() {
        let (full, packed) = (
            DataWidth::Ref(RefWidth::Full),
            DataWidth::Ref(RefWidth::Compressed),
        );
        assert_eq!(
            (full.bytes(), full.shift(), packed.bytes(), packed.shift()),
            (8, 3, 4, 2)
        );
        assert!(!full.signed() && !packed.signed() && packed.compressed() && !full.compressed());
        assert_eq!(full.extend(0x1234_5678_9abc_def0), 0x1234_5678_9abc_def0);
        assert_eq!(
            packed.extend(0xdead_beef_ffff_ffff),
            0x7_ffff_fff8,
            "zero-extended, then << 3"
        );
        assert_eq!(packed.extend(0), 0, "null");
        assert!(packed.check_offset(20).is_ok() && full.check_offset(20).is_err());
        let load = DataLoad {
            obj: RDI,
            dst: RAX,
            index: Some(RCX),
            offset: 16,
            width: packed,
            barrier: DataBarrier::None,
        };
        assert_eq!((load.budget(Isa::X64), load.budget(Isa::Aarch64)), (2, 3));
        assert_eq!(DataLoad { width: full, ..load }.budget(Isa::X64), 1);
        let unscaled_load = DataLoad {
            width: DataWidth::Ref(RefWidth::Unscaled),
            ..load
        };
        assert_eq!(
            (unscaled_load.budget(Isa::X64), unscaled_load.budget(Isa::Aarch64)),
            (1, 2),
            "no decoding shift: the load (and AArch64's add)"
        );
        let store = DataStore {
            thread: RSI,
            obj: RDI,
            src: RAX,
            index: None,
            tmp: RCX,
            tmp2: RSI,
            offset: 20,
            width: packed,
            barrier: DataBarrier::None,
        };
        assert_eq!(store.operands(Isa::X64), vec![RDI, RAX, RCX]);
        assert_eq!(store.clobbers(Isa::X64), RegSet::of(&[RCX]));
        assert_eq!((store.budget(Isa::X64), store.budget(Isa::Aarch64)), (3, 2));
        let element = DataStore {
            index: Some(RDX),
            offset: 16,
            ..store
        };
        assert_eq!(element.operands(Isa::X64), vec![RDI, RAX, RDX, RCX]);
        assert_eq!(element.operands(Isa::Aarch64), vec![RDI, RAX, RDX, RCX, RSI]);
        assert_eq!(element.budget(Isa::Aarch64), 3, "lsr, add, str");
        let plain = DataStore {
            width: full,
            ..element
        };
        assert_eq!(
            plain.operands(Isa::X64),
            vec![RDI, RAX, RDX],
            "no scratch at full width"
        );
        let unscaled = DataStore {
            width: DataWidth::Ref(RefWidth::Unscaled),
            ..element
        };
        assert_eq!(
            unscaled.operands(Isa::X64),
            vec![RDI, RAX, RDX],
            "no scratch unscaled"
        );
        assert_eq!(
            unscaled.operands(Isa::Aarch64),
            vec![RDI, RAX, RDX, RCX],
            "AArch64: tmp the element's address, no tmp2"
        );
        assert_eq!(unscaled.clobbers(Isa::Aarch64), RegSet::of(&[RCX]));
        assert_eq!(
            (unscaled.budget(Isa::X64), unscaled.budget(Isa::Aarch64)),
            (1, 2),
            "the store (and AArch64's add)"
        );
        let field = DataStore {
            index: None,
            offset: 20,
            ..unscaled
        };
        assert_eq!(field.operands(Isa::Aarch64), vec![RDI, RAX]);
        assert_eq!(field.clobbers(Isa::X64), RegSet::EMPTY);
        assert_eq!((field.budget(Isa::X64), field.budget(Isa::Aarch64)), (1, 1));
    }

    /// An unscaled slot: 4 bytes (scale 4, a 4-aligned offset), its value
    /// the address itself, zero-extended as a U32 load's (null 0), not
    /// compressed (no shift).
    #[test]
    fn unscaled_references_are_zero_extended_addresses() {
        let unscaled = DataWidth::Ref(RefWidth::Unscaled);
        assert_eq!((unscaled.bytes(), unscaled.shift()), (4, 2));
        assert!(!unscaled.signed() && !unscaled.compressed());
        assert_eq!(
            unscaled.extend(0xdead_beef_ffff_fff8),
            0xffff_fff8,
            "zero-extended, no shift"
        );
        assert_eq!(unscaled.extend(0x8765_4320), 0x8765_4320);
        assert_eq!(unscaled.extend(0), 0, "null");
        for raw in [0, 8, 0x8000_0000, 0xffff_fff8, u64::MAX] {
            assert_eq!(unscaled.extend(raw), DataWidth::U32.extend(raw));
            assert_eq!(
                unscaled.extend(raw),
                RefWidth::Unscaled.decode(raw as u32 as usize) as u64
            );
        }
        assert!(unscaled.check_offset(20).is_ok() && unscaled.check_offset(18).is_err());
    }

    #[test]
    fn misaligned_offsets_and_a_write_barrier_on_a_load_are_refused() {
        let load = DataLoad {
            obj: RDI,
            dst: RAX,
            index: None,
            offset: 18,
            width: DataWidth::U32,
            barrier: DataBarrier::None,
        };
        assert!(matches!(load.check(Isa::X64), Err(TemplateError::Offset { .. })));
        assert!(DataLoad { offset: 20, ..load }.check(Isa::X64).is_ok());
        let wb = DataBarrier::BrooksWrite {
            gc_state: 4,
            state_bits: 6,
            forwarding: -8,
        };
        assert!(matches!(
            DataLoad {
                offset: 20,
                barrier: wb,
                ..load
            }
            .check(Isa::Aarch64),
            Err(TemplateError::Unsupported { .. })
        ));
        let store = DataStore {
            thread: RSI,
            obj: RDI,
            src: RAX,
            index: Some(RCX),
            tmp: RCX,
            tmp2: RCX,
            offset: 16,
            width: DataWidth::U16,
            barrier: wb,
        };
        assert!(store.check(Isa::X64).is_ok(), "x86-64 has no tmp");
        assert!(store.check(Isa::Aarch64).is_err(), "AArch64's tmp is the index");
        assert_eq!(store.slow_call().unwrap().ret, Some(RDI));
        let plain = DataStore {
            barrier: DataBarrier::None,
            index: None,
            ..store
        };
        assert_eq!(plain.clobbers(Isa::X64), RegSet::EMPTY);
        assert!(plain.slow_call().is_none());
        assert_eq!(plain.operands(Isa::X64), vec![RDI, RAX], "no thread");
    }
}
