//! Object barriers: the Brooks read barrier, the card post-barrier and the
//! reference CAS.
//!
//! - Brooks read barrier: `mov obj, [obj+fwd]` (1 instruction; every
//!   object's forwarding word points to itself or to its copy).
//! - Card post-barrier (HotSpot `CardTableBarrierSetAssembler`):
//!   `shr addr, shift; mov tmp, [thread+card_table_base]; mov byte
//!   [tmp+addr], dirty` (3), or with the biased base as an immediate when
//!   the JIT knows it: `mov tmp, imm64; shr; mov byte` (3). The conditional
//!   form (`UseCondCardMark`) adds `cmp byte [tmp+addr], dirty; je done`
//!   so an already dirty card is not written again (no false sharing on
//!   the card table). A plain byte store, as the Rust barrier's: cards are
//!   only ever set to dirty by mutators and cleaned at a pause.
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
