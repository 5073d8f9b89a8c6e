//! Object barriers: the Brooks read barrier, the card post-barrier and the
//! reference CAS.
//!
//! - Brooks read barrier: `mov obj, [obj+fwd]` (1 instruction; every
//!   object's forwarding word points to itself or to its copy).
//! - Brooks write barrier (Shenandoah 2017): `test byte [thread+gc_state],
//!   evacuation|has_forwarded; jnz slow; mov obj, [obj+fwd]` (3), the
//!   Rust `brooks-wb` barrier's fast path. At `slow` the JIT puts a
//!   [`super::SlowStub`] calling [`crate::slow::brooks_wb`] (block, obj →
//!   obj: evacuate while evacuation runs and the object is in the
//!   collection set, else its forwardee), resuming at a
//!   [`BrooksStoreVal`] that resolves the stored value through its
//!   forwarding word (null kept): together the Rust slow path's two
//!   halves. Only loads: the evacuation's CAS on the forwarding word is the
//!   library's.
//! - Card post-barrier (HotSpot `CardTableBarrierSetAssembler`):
//!   `shr addr, shift; mov tmp, [thread+card_table_base]; mov byte
//!   [tmp+addr], dirty` (3), or with the biased base as an immediate when
//!   the JIT knows it: `mov tmp, imm64; shr; mov byte` (3). The conditional
//!   form (`UseCondCardMark`) adds `cmp byte [tmp+addr], dirty; je done`
//!   so an already dirty card is not written again (no false sharing on
//!   the card table). A plain byte store, as the Rust barrier's: cards are
//!   only ever set to dirty by mutators and cleaned at a pause.
//! - G1 post-barrier (HotSpot `G1BarrierSetAssembler`'s
//!   `generate_post_barrier_fast_path`, JDK 24's late-expanded form): the
//!   cross-region filter `mov tmp, addr; xor tmp, val; shr tmp,
//!   region_shift; jz done`, the null filter `test val, val; jz done`,
//!   then the card of the field: `mov tmp, addr; shr tmp, card_shift; add
//!   tmp, [thread+card_table_base]; cmp byte [tmp], dirty; jne slow` (11;
//!   with the base as an immediate `mov tmp2, imm64; cmp byte [tmp+tmp2],
//!   dirty; jne slow`, also 11; HotSpot: 12, its `movptr imm64; addptr`
//!   cannot fold). A store within a region takes 4, a null one 6. At
//!   `slow` the JIT puts a [`super::SlowStub`] calling
//!   [`crate::slow::g1_card`] (block, field): G1's StoreLoad fence, the
//!   re-check, the dirtying and the enqueue, the Rust `g1-card` barrier's
//!   slow path. Only loads inline: the card is written by the library.
//! - Reference CAS: `lock cmpxchg [addr], new` with the expected value in
//!   rax, success to `done`; a failure while forwarded objects exist may be
//!   a false one (the field holds the other copy of the expected object),
//!   so it goes to `slow`, whose slow path retries on resolved copies
//!   (Shenandoah's CAS barrier); a genuine failure falls through with the
//!   witnessed value in rax. The locked `cmpxchg` is the only shared write.

use dynasmrt::dynasm;

use super::{Labels, Template, X64Asm};
use crate::layout::ThreadLayout;
use crate::reg::{x64::RAX, Reg, RegSet};

/// `mov obj, [obj + forwarding]`.
#[derive(Clone, Copy, Debug)]
pub struct BrooksReadBarrier {
    /// The object register, replaced by the copy to use.
    pub obj: Reg,
    /// Offset of the forwarding word from the object address (Brooks: -8).
    pub forwarding: i32,
}

impl Template for BrooksReadBarrier {
    fn name(&self) -> &'static str {
        "Brooks read barrier"
    }
    fn clobbers(&self) -> RegSet {
        RegSet::of(&[self.obj])
    }
    fn budget(&self) -> usize {
        1
    }
    /// Never branches: `labels` is unused.
    fn emit<A: X64Asm>(&self, ops: &mut A, _labels: Labels) {
        let (o, off) = (self.obj.0, self.forwarding);
        dynasm!(ops ; .arch x64 ; mov Rq(o), QWORD [Rq(o) + off]);
    }
}

/// The Brooks write barrier's state test and object resolution; see the
/// module docs.
#[derive(Clone, Copy, Debug)]
pub struct BrooksWriteBarrier {
    /// The thread register.
    pub thread: Reg,
    /// The object written to; replaced by the copy to write.
    pub obj: Reg,
    /// Offset of the GC-state byte in the thread block.
    pub gc_state: i32,
    /// The GC-state bits that send the write to `slow` (fastpath:
    /// [`BrooksWriteBarrier::FASTPATH_STATE_BITS`]).
    pub state_bits: u8,
    /// Offset of the forwarding word from the object address (Brooks: -8).
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
    fn clobbers(&self) -> RegSet {
        RegSet::of(&[self.obj])
    }
    fn budget(&self) -> usize {
        3
    }
    /// Branches only to `slow`.
    fn emit<A: X64Asm>(&self, ops: &mut A, labels: Labels) {
        let (t, o, gc, bits, off, slow) = (
            self.thread.0,
            self.obj.0,
            self.gc_state,
            self.state_bits as i8,
            self.forwarding,
            labels.slow,
        );
        dynasm!(ops
            ; .arch x64
            ; test BYTE [Rq(t) + gc], bits
            ; jnz =>slow
            ; mov Rq(o), QWORD [Rq(o) + off]
        );
    }
}

/// The Brooks write barrier's stored-value resolution after its slow
/// path: `test val, val; jz done; mov val, [val+fwd]` (Shenandoah's
/// storeval barrier), falling through after the load.
#[derive(Clone, Copy, Debug)]
pub struct BrooksStoreVal {
    /// The value to store; replaced by its forwardee (null stays null).
    pub val: Reg,
    /// Offset of the forwarding word from the object address (Brooks: -8).
    pub forwarding: i32,
}

impl Template for BrooksStoreVal {
    fn name(&self) -> &'static str {
        "Brooks store-value resolution"
    }
    fn clobbers(&self) -> RegSet {
        RegSet::of(&[self.val])
    }
    /// A non-null value.
    fn budget(&self) -> usize {
        3
    }
    /// Branches only to `done` (a null value).
    fn emit<A: X64Asm>(&self, ops: &mut A, labels: Labels) {
        let (v, off, done) = (self.val.0, self.forwarding, labels.done);
        dynasm!(ops
            ; .arch x64
            ; test Rq(v), Rq(v)
            ; jz =>done
            ; mov Rq(v), QWORD [Rq(v) + off]
        );
    }
}

/// Where the card post-barrier finds the biased card-table base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardBase {
    /// Loaded from `[thread + layout.card_table_base]`.
    Thread(Reg),
    /// Embedded as a 64-bit immediate (HotSpot embeds the byte map base).
    Imm(u64),
}

/// The card post-barrier on the store address in `addr` (clobbered: it
/// becomes the card index).
#[derive(Clone, Copy, Debug)]
pub struct CardMark {
    /// Address stored to (or the object's); shifted in place.
    pub addr: Reg,
    /// Scratch for the base.
    pub tmp: Reg,
    /// Where the base comes from.
    pub base: CardBase,
    /// Test the card before writing it (`UseCondCardMark`).
    pub conditional: bool,
    /// The block's layout (offset of the base, shift, dirty value).
    pub layout: ThreadLayout,
}

impl Template for CardMark {
    fn name(&self) -> &'static str {
        if self.conditional {
            "conditional card mark"
        } else {
            "card mark"
        }
    }
    fn clobbers(&self) -> RegSet {
        RegSet::of(&[self.addr, self.tmp])
    }
    fn budget(&self) -> usize {
        if self.conditional {
            5
        } else {
            3
        }
    }
    /// Branches only to `done` (conditional form, card already dirty).
    fn emit<A: X64Asm>(&self, ops: &mut A, labels: Labels) {
        let (a, t, shift, dirty) = (
            self.addr.0,
            self.tmp.0,
            self.layout.card_shift as i8,
            self.layout.dirty_card as i8,
        );
        match self.base {
            CardBase::Thread(thread) => {
                let off = self.layout.card_table_base;
                dynasm!(ops ; .arch x64 ; shr Rq(a), shift ; mov Rq(t), QWORD [Rq(thread.0) + off]);
            }
            CardBase::Imm(base) => {
                dynasm!(ops ; .arch x64 ; mov Rq(t), QWORD base as i64 ; shr Rq(a), shift);
            }
        }
        if self.conditional {
            let done = labels.done;
            dynasm!(ops ; .arch x64 ; cmp BYTE [Rq(t) + Rq(a)], dirty ; je =>done);
        }
        dynasm!(ops ; .arch x64 ; mov BYTE [Rq(t) + Rq(a)], dirty);
    }
}

/// G1's filtered card post-barrier for a store of `val` into the field at
/// `addr`; see the module docs. Falls through when the card is already
/// dirty, jumps to `done` for a store within a region or of null, and to
/// `slow` for a card to dirty (the stub recomputes the card from `addr`).
#[derive(Clone, Copy, Debug)]
pub struct G1Card {
    /// Address of the field stored to (kept).
    pub addr: Reg,
    /// The reference stored (kept).
    pub val: Reg,
    /// Scratch: the filters, then the card (its index, or its address
    /// with the block's base).
    pub tmp: Reg,
    /// Scratch for an immediate base ([`CardBase::Imm`]); unused otherwise.
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

impl Template for G1Card {
    fn name(&self) -> &'static str {
        "G1 card post-barrier"
    }
    fn clobbers(&self) -> RegSet {
        match self.base {
            CardBase::Thread(_) => RegSet::of(&[self.tmp]),
            CardBase::Imm(_) => RegSet::of(&[self.tmp, self.tmp2]),
        }
    }
    /// The longest path that stays inline: a non-null store across regions
    /// into a dirty card (within a region: 4; null: 6).
    fn budget(&self) -> usize {
        11
    }
    fn emit<A: X64Asm>(&self, ops: &mut A, labels: Labels) {
        let (a, v, t, t2) = (self.addr.0, self.val.0, self.tmp.0, self.tmp2.0);
        let (rshift, cshift, dirty) = (
            self.region_shift as i8,
            self.layout.card_shift as i8,
            self.layout.dirty_card as i8,
        );
        let (done, slow) = (labels.done, labels.slow);
        dynasm!(ops
            ; .arch x64
            ; mov Rq(t), Rq(a)
            ; xor Rq(t), Rq(v)
            ; shr Rq(t), rshift
            ; jz =>done
            ; test Rq(v), Rq(v)
            ; jz =>done
            ; mov Rq(t), Rq(a)
            ; shr Rq(t), cshift
        );
        match self.base {
            CardBase::Thread(thread) => {
                let off = self.layout.card_table_base;
                dynasm!(ops
                    ; .arch x64
                    ; add Rq(t), QWORD [Rq(thread.0) + off]
                    ; cmp BYTE [Rq(t)], dirty
                    ; jne =>slow
                );
            }
            CardBase::Imm(base) => {
                dynasm!(ops
                    ; .arch x64
                    ; mov Rq(t2), QWORD base as i64
                    ; cmp BYTE [Rq(t) + Rq(t2)], dirty
                    ; jne =>slow
                );
            }
        }
    }
}

/// `lock cmpxchg [addr], new` (expected in rax); see the module docs.
#[derive(Clone, Copy, Debug)]
pub struct CasRef {
    /// The thread register (for the GC-state test after a failure).
    pub thread: Reg,
    /// Address of the reference field.
    pub addr: Reg,
    /// The new reference.
    pub new: Reg,
    /// The block's layout.
    pub layout: ThreadLayout,
}

impl Template for CasRef {
    fn name(&self) -> &'static str {
        "reference CAS"
    }
    /// rax: the witnessed value on failure (`cmpxchg`'s rule).
    fn clobbers(&self) -> RegSet {
        RegSet::of(&[RAX])
    }
    /// The successful CAS and its branch.
    fn budget(&self) -> usize {
        2
    }
    fn emit<A: X64Asm>(&self, ops: &mut A, labels: Labels) {
        let (t, a, n, done, slow) = (self.thread.0, self.addr.0, self.new.0, labels.done, labels.slow);
        let (off, bit) = (self.layout.gc_state, self.layout.has_forwarded_bit as i8);
        dynasm!(ops
            ; .arch x64
            ; lock cmpxchg QWORD [Rq(a)], Rq(n)
            ; je =>done
            ; test BYTE [Rq(t) + off], bit
            ; jnz =>slow
        );
    }
}
