//! Object barriers on AArch64: the Brooks read barrier (`ldur obj, [obj,
//! #fwd]`, 1 instruction) and the card post-barrier (`lsr; ldr; strb wzr`,
//! 3 with a zero dirty value). A plain byte store, as the Rust barrier's.
//! The Brooks write barrier (as [`crate::x64::BrooksWriteBarrier`]):
//! `ldrb tmp, [thread, #gc_state]`, one `tbnz tmp, #bit, slow` per state
//! bit, `ldur obj, [obj, #fwd]` (4 with fastpath's two bits); after its
//! slow stub, [`BrooksStoreVal`] (`cbz val, done; ldur val, [val, #fwd]`).
//! The G1 post-barrier (as [`crate::x64::G1Card`], HotSpot's
//! `generate_post_barrier_fast_path`): `eor tmp, addr, val; lsr tmp, tmp,
//! #region_shift; cbz tmp, done; cbz val, done; lsr tmp, addr,
//! #card_shift; ldr tmp2, [thread, #base]; ldrb wtmp2, [tmp2, tmp]; cbnz
//! wtmp2, slow` (8 with a zero dirty value; `cmp; b.ne` for another).
//! The forwarding loads are plain, as the read barrier's: every later
//! access is through the loaded address (an address dependency orders it
//! after the load, as the Rust `forwardee`'s Acquire does).

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

/// The Brooks write barrier's state test and object resolution; see the
/// module docs.
#[derive(Clone, Copy, Debug)]
pub struct BrooksWriteBarrier {
    /// The thread register.
    pub thread: Reg,
    /// The object written to; replaced by the copy to write.
    pub obj: Reg,
    /// Scratch: receives the GC-state byte.
    pub tmp: Reg,
    /// Offset of the GC-state byte in the thread block (0..4096).
    pub gc_state: i32,
    /// The GC-state bits that send the write to `slow` (at least one;
    /// fastpath: [`BrooksWriteBarrier::FASTPATH_STATE_BITS`]).
    pub state_bits: u8,
    /// Offset of the forwarding word (Brooks: −8; −256 ≤ forwarding < 256).
    pub forwarding: i32,
}

impl BrooksWriteBarrier {
    /// fastpath's evacuation (`1 << 1`) and has-forwarded (`1 << 2`) bits.
    pub const FASTPATH_STATE_BITS: u8 = crate::x64::BrooksWriteBarrier::FASTPATH_STATE_BITS;
}

impl Template for BrooksWriteBarrier {
    fn name(&self) -> &'static str {
        "Brooks write barrier"
    }
    fn clobbers(&self) -> RegSet {
        RegSet::of(&[self.obj, self.tmp])
    }
    /// `ldrb`, a `tbnz` per bit, `ldur`.
    fn budget(&self) -> usize {
        2 + self.state_bits.count_ones() as usize
    }
    fn emit<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        if self.state_bits == 0 {
            return Err(TemplateError::NoBit);
        }
        if !(-256..256).contains(&self.forwarding) {
            return Err(TemplateError::Offset {
                offset: self.forwarding,
                accepts: "-256..256 (LDUR)",
            });
        }
        let gc = uimm12(self.gc_state, 1)?;
        let (t, o, x, off, slow) = (
            self.thread.0,
            self.obj.0,
            self.tmp.0,
            self.forwarding,
            labels.slow,
        );
        dynasm!(ops ; .arch aarch64 ; ldrb W(x), [X(t), gc]);
        for bit in 0..8u32 {
            if self.state_bits & (1 << bit) != 0 {
                dynasm!(ops ; .arch aarch64 ; tbnz W(x), bit, =>slow);
            }
        }
        dynasm!(ops ; .arch aarch64 ; ldur X(o), [X(o), off]);
        Ok(())
    }
}

/// The Brooks write barrier's stored-value resolution after its slow
/// path: `cbz val, done; ldur val, [val, #fwd]`, falling through after the
/// load.
#[derive(Clone, Copy, Debug)]
pub struct BrooksStoreVal {
    /// The value to store; replaced by its forwardee (null stays null).
    pub val: Reg,
    /// Offset of the forwarding word (Brooks: −8; −256 ≤ forwarding < 256).
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
        2
    }
    /// Branches only to `done` (a null value).
    fn emit<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        if !(-256..256).contains(&self.forwarding) {
            return Err(TemplateError::Offset {
                offset: self.forwarding,
                accepts: "-256..256 (LDUR)",
            });
        }
        let (v, off, done) = (self.val.0, self.forwarding, labels.done);
        dynasm!(ops ; .arch aarch64 ; cbz X(v), =>done ; ldur X(v), [X(v), off]);
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
    /// Scratch for a non-zero dirty value, and for the card's value in
    /// the conditional form (unused otherwise).
    pub tmp2: Reg,
    /// `UseCondCardMark`: an already dirty card is not written again
    /// (`ldrb; cbz`/`cmp; b.eq done`).
    pub conditional: bool,
    /// The block's layout.
    pub layout: ThreadLayout,
}

impl Template for CardMark {
    fn name(&self) -> &'static str {
        "card mark"
    }
    fn clobbers(&self) -> RegSet {
        let s = RegSet::of(&[self.addr, self.tmp]);
        if self.layout.dirty_card == 0 && !self.conditional {
            s
        } else {
            s.with(self.tmp2)
        }
    }
    fn budget(&self) -> usize {
        let check = match (self.conditional, self.layout.dirty_card) {
            (false, _) => 0,
            (true, 0) => 2, // ldrb; cbz
            (true, _) => 3, // ldrb; cmp; b.eq
        };
        3 + usize::from(self.layout.dirty_card != 0) + check
    }
    fn emit<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let off = uimm12(self.layout.card_table_base, 8)?;
        let (t, a, x, x2) = (self.thread.0, self.addr.0, self.tmp.0, self.tmp2.0);
        let shift = u32::from(self.layout.card_shift);
        dynasm!(ops
            ; .arch aarch64
            ; lsr X(a), X(a), shift
            ; ldr X(x), [X(t), off]
        );
        if self.conditional {
            let done = labels.done;
            dynasm!(ops ; .arch aarch64 ; ldrb W(x2), [X(x), X(a)]);
            if self.layout.dirty_card == 0 {
                dynasm!(ops ; .arch aarch64 ; cbz W(x2), =>done);
            } else {
                let dirty = u32::from(self.layout.dirty_card);
                dynasm!(ops ; .arch aarch64 ; cmp WSP(x2), #dirty ; b.eq =>done);
            }
        }
        if self.layout.dirty_card == 0 {
            dynasm!(ops ; .arch aarch64 ; strb wzr, [X(x), X(a)]);
        } else {
            let dirty = u32::from(self.layout.dirty_card);
            dynasm!(ops ; .arch aarch64 ; movz W(x2), dirty ; strb W(x2), [X(x), X(a)]);
        }
        Ok(())
    }
}

/// G1's filtered card post-barrier for a store of `val` into the field at
/// `addr` (both kept); see the module docs. Falls through when the card is
/// already dirty, jumps to `done` for a store within a region or of null,
/// and to `slow` for a card to dirty; the
/// JIT's stub there calls [`crate::slow::g1_card`] with the block and
/// `addr`.
#[derive(Clone, Copy, Debug)]
pub struct G1Card {
    /// The thread register.
    pub thread: Reg,
    /// Address of the field stored to (kept).
    pub addr: Reg,
    /// The reference stored (kept).
    pub val: Reg,
    /// Scratch: the filters, then the card's index.
    pub tmp: Reg,
    /// Scratch: the base, then the card's value.
    pub tmp2: Reg,
    /// log2 of the region size (1..64; HotSpot `LogOfHRGrainBytes`).
    pub region_shift: u8,
    /// The block's layout (offset of the base, card shift, dirty value).
    pub layout: ThreadLayout,
}

impl Template for G1Card {
    fn name(&self) -> &'static str {
        "G1 card post-barrier"
    }
    fn clobbers(&self) -> RegSet {
        RegSet::of(&[self.tmp, self.tmp2])
    }
    /// The longest path that stays inline: a non-null store across regions
    /// into a dirty card (within a region: 3; null: 4).
    fn budget(&self) -> usize {
        8 + usize::from(self.layout.dirty_card != 0)
    }
    fn emit<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let off = uimm12(self.layout.card_table_base, 8)?;
        for shift in [self.region_shift, self.layout.card_shift] {
            if !(1..64).contains(&shift) {
                return Err(TemplateError::Offset {
                    offset: i32::from(shift),
                    accepts: "a shift in 1..64 (LSR)",
                });
            }
        }
        let (t, a, v, x, x2) = (self.thread.0, self.addr.0, self.val.0, self.tmp.0, self.tmp2.0);
        let (rshift, cshift) = (u32::from(self.region_shift), u32::from(self.layout.card_shift));
        let (done, slow) = (labels.done, labels.slow);
        dynasm!(ops
            ; .arch aarch64
            ; eor X(x), X(a), X(v)
            ; lsr X(x), X(x), rshift
            ; cbz X(x), =>done
            ; cbz X(v), =>done
            ; lsr X(x), X(a), cshift
            ; ldr X(x2), [X(t), off]
            ; ldrb W(x2), [X(x2), X(x)]
        );
        if self.layout.dirty_card == 0 {
            dynasm!(ops ; .arch aarch64 ; cbnz W(x2), =>slow);
        } else {
            let dirty = u32::from(self.layout.dirty_card);
            dynasm!(ops ; .arch aarch64 ; cmp WSP(x2), #dirty ; b.ne =>slow);
        }
        Ok(())
    }
}

/// The reference CAS on the field at `addr` (Shenandoah's CAS barrier, as
/// [`crate::x64::CasRef`]): `casal` (the Rust barrier's `AcqRel`), success
/// to `done`; a failure while forwarded objects exist may be a false one,
/// so it goes to `slow`; a genuine failure falls through with the
/// witnessed value in `old`. Common (successful) path: 4 instructions.
/// ```text
///   mov  old, expected ; casal old, new, [addr]
///   cmp  old, expected ; b.eq done
///   ldrb wtmp, [thread, #gc_state] ; tbnz wtmp, #has_forwarded, slow
/// ```
#[derive(Clone, Copy, Debug)]
pub struct CasRef {
    /// The thread register.
    pub thread: Reg,
    /// Address of the reference field.
    pub addr: Reg,
    /// The expected reference (kept).
    pub expected: Reg,
    /// The new reference (kept).
    pub new: Reg,
    /// Receives the witnessed value.
    pub old: Reg,
    /// Scratch (the GC-state byte).
    pub tmp: Reg,
    /// The block's layout.
    pub layout: ThreadLayout,
}

impl Template for CasRef {
    fn name(&self) -> &'static str {
        "reference CAS"
    }
    fn clobbers(&self) -> RegSet {
        RegSet::of(&[self.old, self.tmp])
    }
    fn budget(&self) -> usize {
        4
    }
    fn emit<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let bit = self.layout.has_forwarded_bit;
        if bit.count_ones() != 1 {
            return Err(TemplateError::NotOneBit(bit));
        }
        let (bit, gc) = (bit.trailing_zeros(), uimm12(self.layout.gc_state, 1)?);
        let (t, a, e, n, o, x) = (
            self.thread.0,
            self.addr.0,
            self.expected.0,
            self.new.0,
            self.old.0,
            self.tmp.0,
        );
        let (slow, done) = (labels.slow, labels.done);
        dynasm!(ops
            ; .arch aarch64
            ; mov X(o), X(e)
            ; casal X(o), X(n), [X(a)]
            ; cmp X(o), X(e)
            ; b.eq =>done
            ; ldrb W(x), [X(t), gc]
            ; tbnz W(x), bit, =>slow
        );
        Ok(())
    }
}
