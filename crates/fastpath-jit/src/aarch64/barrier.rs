//! Object barriers on AArch64: the Brooks read barrier (`ldur obj, [obj,
//! #fwd]`, 1 instruction) and the card post-barrier (`lsr; ldr; strb wzr`,
//! 3 with a zero dirty value). A plain byte store, as the Rust barrier's.

use dynasmrt::dynasm;

use super::{uimm12, Aarch64Asm, Labels, Template, TemplateError};
use crate::layout::ThreadLayout;
use crate::reg::{Reg, RegSet};

/// `ldur obj, [obj, #forwarding]` (−256 ≤ forwarding < 256).
#[derive(Clone, Copy, Debug)]
pub struct BrooksReadBarrier {
    /// The object register, replaced by the copy to use.
    pub obj: Reg,
    /// Offset of the forwarding word (Brooks: −8).
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
    fn emit<A: Aarch64Asm>(&self, ops: &mut A, _labels: Labels) -> Result<(), TemplateError> {
        if !(-256..256).contains(&self.forwarding) {
            return Err(TemplateError::Offset {
                offset: self.forwarding,
                accepts: "-256..256 (LDUR)",
            });
        }
        let (o, off) = (self.obj.0, self.forwarding);
        dynasm!(ops ; .arch aarch64 ; ldur X(o), [X(o), off]);
        Ok(())
    }
}

/// The card post-barrier on `addr` (clobbered: it becomes the card
/// index), the biased base loaded from the thread block into `tmp`; a
/// non-zero dirty value needs `tmp2` for it.
#[derive(Clone, Copy, Debug)]
pub struct CardMark {
    /// The thread register.
    pub thread: Reg,
    /// Address stored to; shifted in place.
    pub addr: Reg,
    /// Scratch for the base.
    pub tmp: Reg,
    /// Scratch for a non-zero dirty value (unused when it is 0).
    pub tmp2: Reg,
    /// The block's layout.
    pub layout: ThreadLayout,
}

impl Template for CardMark {
    fn name(&self) -> &'static str {
        "card mark"
    }
    fn clobbers(&self) -> RegSet {
        let s = RegSet::of(&[self.addr, self.tmp]);
        if self.layout.dirty_card == 0 {
            s
        } else {
            s.with(self.tmp2)
        }
    }
    fn budget(&self) -> usize {
        if self.layout.dirty_card == 0 {
            3
        } else {
            4
        }
    }
    fn emit<A: Aarch64Asm>(&self, ops: &mut A, _labels: Labels) -> Result<(), TemplateError> {
        let off = uimm12(self.layout.card_table_base, 8)?;
        let (t, a, x, x2) = (self.thread.0, self.addr.0, self.tmp.0, self.tmp2.0);
        let shift = u32::from(self.layout.card_shift);
        dynasm!(ops
            ; .arch aarch64
            ; lsr X(a), X(a), shift
            ; ldr X(x), [X(t), off]
        );
        if self.layout.dirty_card == 0 {
            dynasm!(ops ; .arch aarch64 ; strb wzr, [X(x), X(a)]);
        } else {
            let dirty = u32::from(self.layout.dirty_card);
            dynasm!(ops ; .arch aarch64 ; movz W(x2), dirty ; strb W(x2), [X(x), X(a)]);
        }
        Ok(())
    }
}
