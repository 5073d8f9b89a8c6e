//! Object barriers: the Brooks read and write barriers, the card
//! post-barrier (plain and conditional), G1's filtered card post-barrier
//! and the reference CAS. The instructions are in each ISA's emitter
//! (`x64/barrier.rs`, `aarch64/barrier.rs`).
//!
//! - Brooks read barrier: the object replaced by the word at `obj +
//!   forwarding` (every object's forwarding word points to itself or to
//!   its copy): one load.
//! - Brooks write barrier (Shenandoah 2017), the Rust `brooks-wb`
//!   barrier's fast path: the GC-state bits tested (evacuation,
//!   has-forwarded) and, when clear, the object resolved through its
//!   forwarding word. At `slow` the JIT puts a stub calling
//!   [`crate::slow::brooks_wb`] (block, obj → obj: evacuate while
//!   evacuation runs and the object is in the collection set, else its
//!   forwardee), resuming at a [`BrooksStoreVal`] that resolves the stored
//!   value through its forwarding word (null kept): together the Rust slow
//!   path's two halves. Only loads: the evacuation's CAS on the forwarding
//!   word is the library's.
//! - Card post-barrier (HotSpot `CardTableBarrierSetAssembler`): the card
//!   of the address, `base + (addr >> card_shift)`, set to the dirty
//!   value; the base loaded from the thread block, or (x86-64) an
//!   immediate as HotSpot embeds the byte map base. The conditional form
//!   (`UseCondCardMark`) tests the card first so an already dirty card is
//!   not written again (no false sharing on the card table). A plain byte
//!   store, as the Rust barrier's: cards are only ever set to dirty by
//!   mutators and cleaned at a pause.
//! - G1 post-barrier (HotSpot `G1BarrierSetAssembler`'s
//!   `generate_post_barrier_fast_path`, JDK 24's late-expanded form): the
//!   cross-region filter (`(addr ^ val) >> region_shift == 0` → `done`),
//!   the null filter (`val == 0` → `done`), then the field's card compared
//!   with the dirty value, a clean one to `slow`, where the JIT puts a stub
//!   calling [`crate::slow::g1_card`] (block, field): G1's StoreLoad fence,
//!   the re-check, the dirtying and the enqueue, the Rust `g1-card`
//!   barrier's slow path. Only loads inline: the card is written by the
//!   library.
//! - Reference CAS (Shenandoah's CAS barrier): the CAS, success to `done`;
//!   a failure while forwarded objects exist may be a false one (the field
//!   holds the other copy of the expected object), so it goes to `slow`,
//!   where the JIT puts a stub calling [`crate::slow::cas_ref`] (block,
//!   field, expected, new → `expected` on success, else the witnessed
//!   value, into `old`), the retry of the Rust `cas` barrier's slow path;
//!   a genuine failure falls through with the witnessed value in `old`. So
//!   after the template and its stub, `old == expected` says the CAS took
//!   place. `expected` is kept (x86-64 copies it into rax, `cmpxchg`'s
//!   operand, which then holds the witness: the slow path needs both, as
//!   HotSpot's `cmpxchg_oop` keeps `oldval` in `tmp1`). The CAS (x86-64
//!   `lock cmpxchg`, AArch64 `casal`: the Rust barrier's `AcqRel`) is the
//!   only shared write inline. On a heap with compressed references
//!   ([`CasRef::refs`]) it compares and swaps the 4-byte slot's encoded
//!   values (`expected >> 3` and `new >> 3`: x86-64 a dword `lock
//!   cmpxchg`, AArch64 `casal` on W registers) and decodes the witness
//!   (`<< 3`), so `old`, `expected`, `new` and the slow call's arguments
//!   and result are addresses in either width, and `old == expected` still
//!   says the CAS took place (encoding is one-to-one on the heap's 8-aligned
//!   addresses below 32 GiB, null 0). On a heap with unscaled references
//!   the 4-byte slot holds the address itself (the heap lies below 4 GiB):
//!   the CAS is the full-width form's on 32 bits (x86-64 a dword `lock
//!   cmpxchg` of `new`'s low half, AArch64 `casal` on W registers), the
//!   witness zero-extended into `old`, nothing encoded or decoded, so it
//!   takes no scratch beyond the full form's and the same instruction
//!   count.
//!
//! The three Brooks templates read the forwarding word, which objects have
//! only on a heap of the Brooks cell format (`fastpath::gc::Heap::
//! cell_format`; a set with `brooks-rb` or `brooks-wb` always has it): they
//! are valid only there, and their `forwarding` offset is
//! [`crate::ObjectLayout::brooks_forwarding`]'s, which refuses a
//! compact-format layout. On a compact heap the LRB's
//! collection-set path resolves copies instead ([`crate::LrbCset`]).
//!
//! The forwarding loads are plain, as the read barrier's: every later
//! access is through the loaded address (an address dependency orders it
//! after the load on AArch64, as the Rust `forwardee`'s Acquire does; on
//! x86-64 an Acquire load is a plain `mov`).

use super::contract::{SlowArg, SlowCall, SlowPath, Template, TemplateError};
use crate::isa::Isa;
use crate::layout::{RefWidth, ThreadLayout};
use crate::reg::{x64::RAX, Reg, RegSet};
use crate::slow::LibraryPath;

/// The Brooks read barrier: `obj` replaced by the copy to use. Brooks-format
/// heaps only (module docs).
#[derive(Clone, Copy, Debug)]
pub struct BrooksReadBarrier {
    /// The object register, replaced by the copy to use.
    pub obj: Reg,
    /// Offset of the forwarding word from the object address (Brooks: −8,
    /// `ObjectLayout::brooks_forwarding`; AArch64: −256..256).
    pub forwarding: i32,
}

impl Template for BrooksReadBarrier {
    fn name(&self) -> &'static str {
        "Brooks read barrier"
    }
    fn operands(&self, _isa: Isa) -> Vec<Reg> {
        vec![self.obj]
    }
    fn clobbers(&self, _isa: Isa) -> RegSet {
        RegSet::of(&[self.obj])
    }
    fn budget(&self, _isa: Isa) -> usize {
        1
    }
    /// Never branches.
    fn slow_call(&self) -> Option<SlowCall> {
        None
    }
}

/// The Brooks write barrier's state test and object resolution; see the
/// module docs. Brooks-format heaps only.
#[derive(Clone, Copy, Debug)]
pub struct BrooksWriteBarrier {
    /// The thread register.
    pub thread: Reg,
    /// The object written to; replaced by the copy to write.
    pub obj: Reg,
    /// Scratch: AArch64 loads the GC-state byte into it; x86-64 tests the
    /// byte in memory and leaves it alone.
    pub tmp: Reg,
    /// Offset of the GC-state byte in the thread block (AArch64: 0..4096).
    pub gc_state: i32,
    /// The GC-state bits that send the write to `slow` (at least one;
    /// fastpath: [`BrooksWriteBarrier::FASTPATH_STATE_BITS`]).
    pub state_bits: u8,
    /// Offset of the forwarding word (Brooks: −8,
    /// `ObjectLayout::brooks_forwarding`; AArch64: −256..256).
    pub forwarding: i32,
}

impl BrooksWriteBarrier {
    /// fastpath's evacuation (`1 << 1`) and has-forwarded (`1 << 2`) bits,
    /// the ones its Rust Brooks write barrier tests.
    pub const FASTPATH_STATE_BITS: u8 = 1 << 1 | 1 << 2;
}

impl Template for BrooksWriteBarrier {
    fn name(&self) -> &'static str {
        "Brooks write barrier"
    }
    fn operands(&self, isa: Isa) -> Vec<Reg> {
        match isa {
            Isa::X64 => vec![self.thread, self.obj],
            Isa::Aarch64 => vec![self.thread, self.obj, self.tmp],
        }
    }
    fn clobbers(&self, isa: Isa) -> RegSet {
        match isa {
            Isa::X64 => RegSet::of(&[self.obj]),
            Isa::Aarch64 => RegSet::of(&[self.obj, self.tmp]),
        }
    }
    /// x86-64: `test; jnz; mov`. AArch64: `ldrb`, a `tbnz` per bit, `ldur`.
    fn budget(&self, isa: Isa) -> usize {
        match isa {
            Isa::X64 => 3,
            Isa::Aarch64 => 2 + self.state_bits.count_ones() as usize,
        }
    }
    fn slow_call(&self) -> Option<SlowCall> {
        Some(SlowCall::library(
            LibraryPath::BrooksWb,
            &[self.thread, self.obj],
            Some(self.obj),
        ))
    }
}

/// The Brooks write barrier's stored-value resolution after its slow
/// path (Shenandoah's storeval barrier): null to `done`, else the value
/// replaced by its forwardee, falling through. Brooks-format heaps only.
#[derive(Clone, Copy, Debug)]
pub struct BrooksStoreVal {
    /// The value to store; replaced by its forwardee (null stays null).
    pub val: Reg,
    /// Offset of the forwarding word (Brooks: −8; AArch64: −256..256).
    pub forwarding: i32,
}

impl Template for BrooksStoreVal {
    fn name(&self) -> &'static str {
        "Brooks store-value resolution"
    }
    fn operands(&self, _isa: Isa) -> Vec<Reg> {
        vec![self.val]
    }
    fn clobbers(&self, _isa: Isa) -> RegSet {
        RegSet::of(&[self.val])
    }
    /// A non-null value: x86-64 `test; jz; mov`, AArch64 `cbz; ldur`.
    fn budget(&self, isa: Isa) -> usize {
        match isa {
            Isa::X64 => 3,
            Isa::Aarch64 => 2,
        }
    }
    /// Branches only to `done` (a null value).
    fn slow_call(&self) -> Option<SlowCall> {
        None
    }
}

/// Where a card barrier finds the biased card-table base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardBase {
    /// Loaded from `[thread + layout.card_table_base]`.
    Thread(Reg),
    /// Embedded as a 64-bit immediate (HotSpot embeds the byte map base;
    /// x86-64 only).
    Imm(u64),
}

impl CardBase {
    /// The thread register, if the base is loaded from the block.
    fn thread(self) -> Option<Reg> {
        match self {
            CardBase::Thread(t) => Some(t),
            CardBase::Imm(_) => None,
        }
    }
}

/// The card post-barrier on the store address in `addr` (clobbered: it
/// becomes the card index).
#[derive(Clone, Copy, Debug)]
pub struct CardMark {
    /// Address stored to (or the object's); shifted in place.
    pub addr: Reg,
    /// Scratch for the base.
    pub tmp: Reg,
    /// Scratch, AArch64: the card's value in the conditional form, and a
    /// non-zero dirty value (unused otherwise, and on x86-64).
    pub tmp2: Reg,
    /// Where the base comes from.
    pub base: CardBase,
    /// Test the card before writing it (`UseCondCardMark`).
    pub conditional: bool,
    /// The block's layout (offset of the base, shift, dirty value).
    pub layout: ThreadLayout,
}

impl CardMark {
    /// Whether AArch64's form needs `tmp2`.
    fn a64_tmp2(&self) -> bool {
        self.conditional || self.layout.dirty_card != 0
    }
}

impl Template for CardMark {
    fn name(&self) -> &'static str {
        if self.conditional {
            "conditional card mark"
        } else {
            "card mark"
        }
    }
    fn operands(&self, isa: Isa) -> Vec<Reg> {
        let mut v = vec![self.addr, self.tmp];
        v.extend(self.base.thread());
        if isa == Isa::Aarch64 && self.a64_tmp2() {
            v.push(self.tmp2);
        }
        v
    }
    fn clobbers(&self, isa: Isa) -> RegSet {
        let s = RegSet::of(&[self.addr, self.tmp]);
        if isa == Isa::Aarch64 && self.a64_tmp2() {
            s.with(self.tmp2)
        } else {
            s
        }
    }
    /// x86-64: 3, conditional 5. AArch64: 3, one `mov` more for a non-zero
    /// dirty value, and the conditional test `ldrb; cbz` (`ldrb; cmp;
    /// b.eq` for a non-zero dirty value).
    fn budget(&self, isa: Isa) -> usize {
        match isa {
            Isa::X64 if self.conditional => 5,
            Isa::X64 => 3,
            Isa::Aarch64 => {
                let check = match (self.conditional, self.layout.dirty_card) {
                    (false, _) => 0,
                    (true, 0) => 2,
                    (true, _) => 3,
                };
                3 + usize::from(self.layout.dirty_card != 0) + check
            }
        }
    }
    /// Never branches to `slow` (the conditional form branches to `done`
    /// when the card is already dirty).
    fn slow_call(&self) -> Option<SlowCall> {
        None
    }
}

/// G1's filtered card post-barrier for a store of `val` into the field at
/// `addr`; see the module docs. Falls through when the card is already
/// dirty, branches to `done` for a store within a region or of null, and
/// to `slow` for a card to dirty (the stub recomputes the card from
/// `addr`).
#[derive(Clone, Copy, Debug)]
pub struct G1Card {
    /// Address of the field stored to (kept).
    pub addr: Reg,
    /// The reference stored (kept).
    pub val: Reg,
    /// Scratch: the filters, then the card (its index, or its address
    /// with the block's base on x86-64).
    pub tmp: Reg,
    /// Scratch: AArch64's base and card value; x86-64's immediate base
    /// (unused with the block's).
    pub tmp2: Reg,
    /// Where the biased card-table base comes from.
    pub base: CardBase,
    /// log2 of the region size: addresses that agree above it are in one
    /// region (HotSpot `LogOfHRGrainBytes`; fastpath: the heap's
    /// `region_bytes.trailing_zeros()`; 1..64).
    pub region_shift: u8,
    /// The block's layout (offset of the base, card shift, dirty value).
    pub layout: ThreadLayout,
}

impl G1Card {
    /// Whether `isa`'s form uses `tmp2`.
    fn uses_tmp2(&self, isa: Isa) -> bool {
        isa == Isa::Aarch64 || matches!(self.base, CardBase::Imm(_))
    }
}

impl Template for G1Card {
    fn name(&self) -> &'static str {
        "G1 card post-barrier"
    }
    fn operands(&self, isa: Isa) -> Vec<Reg> {
        let mut v = vec![self.addr, self.val, self.tmp];
        v.extend(self.base.thread());
        if self.uses_tmp2(isa) {
            v.push(self.tmp2);
        }
        v
    }
    fn clobbers(&self, isa: Isa) -> RegSet {
        let s = RegSet::of(&[self.tmp]);
        if self.uses_tmp2(isa) {
            s.with(self.tmp2)
        } else {
            s
        }
    }
    /// The longest path that stays inline: a non-null store across regions
    /// into a dirty card. x86-64: 11 (within a region: 4; null: 6; HotSpot:
    /// 12, its `movptr imm64; addptr` cannot fold); AArch64: 8, 9 with a
    /// non-zero dirty value (within a region: 3; null: 4).
    fn budget(&self, isa: Isa) -> usize {
        match isa {
            Isa::X64 => 11,
            Isa::Aarch64 => 8 + usize::from(self.layout.dirty_card != 0),
        }
    }
    /// The operands, and the region shift: in 1..64 (a shift by 0 would
    /// leave x86-64's flags stale, one by 64 is no shift).
    fn check(&self, isa: Isa) -> Result<(), TemplateError> {
        if !(1..64).contains(&self.region_shift) {
            return Err(TemplateError::Offset {
                offset: i32::from(self.region_shift),
                accepts: "a region shift in 1..64",
            });
        }
        isa.check_operands(&self.operands(isa))
            .map_err(TemplateError::Register)
    }
    /// The thread is the block's base register; with an immediate base the
    /// JIT passes its thread register itself.
    fn slow_call(&self) -> Option<SlowCall> {
        let thread = match self.base.thread() {
            Some(t) => SlowArg::Reg(t),
            None => SlowArg::Jit("thread"),
        };
        Some(SlowCall {
            path: SlowPath::Library(LibraryPath::G1Card),
            args: vec![thread, SlowArg::Reg(self.addr)],
            ret: None,
        })
    }
}

/// The reference CAS on the field at `addr` (Shenandoah's CAS barrier);
/// see the module docs. The set's other barriers around a reference CAS
/// are the JIT's, as around a store: the SATB pre-barrier before it, the
/// card post-barrier after a success, and under `brooks-wb` the object
/// and `new` resolved before it.
#[derive(Clone, Copy, Debug)]
pub struct CasRef {
    /// The thread register (for the GC-state test after a failure).
    pub thread: Reg,
    /// Address of the reference field.
    pub addr: Reg,
    /// The expected reference (kept; x86-64: not rax).
    pub expected: Reg,
    /// The new reference (kept).
    pub new: Reg,
    /// Receives the witnessed value, `expected` on success (x86-64: rax,
    /// `cmpxchg`'s operand).
    pub old: Reg,
    /// Scratch: AArch64's GC-state byte (and, compressed, the encoded
    /// `new` before it); x86-64's encoded `new` on a compressed heap (not
    /// rax), unused on a full-width or unscaled one.
    pub tmp: Reg,
    /// The block's layout.
    pub layout: ThreadLayout,
    /// The width of the heap's reference slots (`ObjectLayout::ref_width`):
    /// a compressed slot is CASed as 4 bytes of encoded values, an
    /// unscaled one as 4 bytes of the addresses themselves.
    pub refs: RefWidth,
}

impl CasRef {
    /// x86-64's form on a heap with full-width references: the witnessed
    /// value in rax, `expected` in a register of its own (kept, for the
    /// slow path). A compressed heap's form also takes a scratch for the
    /// encoded `new`: [`CasRef::x64_compressed`]. An unscaled heap's form
    /// takes the same registers as this one: `CasRef { refs:
    /// RefWidth::Unscaled, ..CasRef::x64(..) }`.
    pub fn x64(thread: Reg, addr: Reg, expected: Reg, new: Reg, layout: ThreadLayout) -> CasRef {
        CasRef {
            thread,
            addr,
            expected,
            new,
            old: RAX,
            tmp: RAX,
            layout,
            refs: RefWidth::Full,
        }
    }

    /// x86-64's form on a heap with compressed references: as
    /// [`CasRef::x64`], and `tmp` (not rax) receives `new`'s encoded value.
    pub fn x64_compressed(
        thread: Reg,
        addr: Reg,
        expected: Reg,
        new: Reg,
        tmp: Reg,
        layout: ThreadLayout,
    ) -> CasRef {
        CasRef {
            tmp,
            refs: RefWidth::Compressed,
            ..CasRef::x64(thread, addr, expected, new, layout)
        }
    }

    /// Whether the slot is compressed (encoded with a shift: an unscaled
    /// slot is not, and takes the full form's registers and count).
    fn compressed(&self) -> bool {
        self.refs == RefWidth::Compressed
    }
}

impl Template for CasRef {
    fn name(&self) -> &'static str {
        "reference CAS"
    }
    /// x86-64: rax as the witnessed value (`old`); `tmp` only on a
    /// compressed heap (not on a full-width or unscaled one).
    fn operands(&self, isa: Isa) -> Vec<Reg> {
        match isa {
            Isa::X64 if self.compressed() => {
                vec![self.thread, self.addr, self.expected, self.new, RAX, self.tmp]
            }
            Isa::X64 => vec![self.thread, self.addr, self.expected, self.new, RAX],
            Isa::Aarch64 => vec![
                self.thread,
                self.addr,
                self.expected,
                self.new,
                self.old,
                self.tmp,
            ],
        }
    }
    fn clobbers(&self, isa: Isa) -> RegSet {
        match isa {
            Isa::X64 if self.compressed() => RegSet::of(&[RAX, self.tmp]),
            Isa::X64 => RegSet::of(&[RAX]),
            Isa::Aarch64 => RegSet::of(&[self.old, self.tmp]),
        }
    }
    /// The successful CAS and its branch: x86-64 `mov rax, expected; lock
    /// cmpxchg; je`, 3 (unscaled: `lock cmpxchg dword [addr], new32`, also
    /// 3; compressed: `mov rax, expected; shr rax, 3; mov tmp, new; shr
    /// tmp, 3; lock cmpxchg dword; lea rax, [rax*8]; je`, 7); AArch64
    /// `mov; casal; cmp; b.eq`, 4 (unscaled: `casal w`, also 4;
    /// compressed: `lsr old; lsr tmp; casal w; lsl old; cmp; b.eq`, 6).
    fn budget(&self, isa: Isa) -> usize {
        match (isa, self.compressed()) {
            (Isa::X64, false) => 3,
            (Isa::X64, true) => 7,
            (Isa::Aarch64, false) => 4,
            (Isa::Aarch64, true) => 6,
        }
    }
    /// x86-64: `old` must be rax and `expected` another register (the
    /// failed `cmpxchg` overwrites rax with the witness); then the
    /// operands, distinct.
    fn check(&self, isa: Isa) -> Result<(), TemplateError> {
        if isa == Isa::X64 {
            if self.old != RAX {
                return Err(TemplateError::Register(crate::reg::RegError::Fixed {
                    given: self.old,
                    fixed: RAX,
                }));
            }
            if self.expected == RAX {
                return Err(TemplateError::Register(crate::reg::RegError::Reserved(RAX)));
            }
        }
        isa.check_operands(&self.operands(isa))
            .map_err(TemplateError::Register)
    }
    fn slow_call(&self) -> Option<SlowCall> {
        Some(SlowCall::library(
            LibraryPath::CasRef,
            &[self.thread, self.addr, self.expected, self.new],
            Some(self.old),
        ))
    }
}
