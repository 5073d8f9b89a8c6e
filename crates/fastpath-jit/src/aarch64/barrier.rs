//! AArch64 object barriers ([`crate::template::barrier`]: what each does):
//! - Brooks read barrier: `ldur obj, [obj, #fwd]` (1).
//! - Brooks write barrier: `ldrb tmp, [thread, #gc_state]`, one `tbnz tmp,
//!   #bit, slow` per state bit, `ldur obj, [obj, #fwd]` (4 with fastpath's
//!   two bits); the stored value after its stub: `cbz val, done; ldur val,
//!   [val, #fwd]` (2).
//! - Card post-barrier: `lsr addr, addr, #shift; ldr tmp, [thread, #base];
//!   strb wzr, [tmp, addr]` (3 when the dirty value is 0, as HotSpot's; one
//!   `movz` more otherwise); the conditional form adds `ldrb; cbz done`
//!   (`ldrb; cmp; b.eq` for a non-zero dirty value). The base comes from
//!   the thread block only.
//! - G1 post-barrier: `eor tmp, addr, val; lsr tmp, tmp, #region_shift; cbz
//!   tmp, done; cbz val, done; lsr tmp, addr, #card_shift; ldr tmp2,
//!   [thread, #base]; ldrb wtmp2, [tmp2, tmp]; cbnz wtmp2, slow` (8 with a
//!   zero dirty value, `cmp; b.ne` for another; HotSpot's shape, which
//!   materializes the base with `load_byte_map_base`).
//! - Reference CAS, 4 on success:
//! ```text
//!   mov  old, expected ; casal old, new, [addr]
//!   cmp  old, expected ; b.eq done
//!   ldrb wtmp, [thread, #gc_state] ; tbnz wtmp, #has_forwarded, slow
//! ```
//!   On a compressed heap, 6 on success (the encoded values in W
//!   registers, the witness decoded before the compare):
//! ```text
//!   lsr  old, expected, #3 ; lsr tmp, new, #3
//!   casal wold, wtmp, [addr] ; lsl old, old, #3
//!   cmp  old, expected ; b.eq done
//!   ldrb wtmp, [thread, #gc_state] ; tbnz wtmp, #has_forwarded, slow
//! ```
//!   On an unscaled heap (the slot holds the address, below 4 GiB), 4 on
//!   success: the full form with `casal wold, wnew, [addr]`, whose W
//!   witness is zero-extended into `old` for the 64-bit compare.

use dynasmrt::{aarch64::Aarch64Relocation, dynasm};

use super::{one_bit, simm9, uimm12, Aarch64Asm, COMPRESSED_SHIFT};
use crate::isa::Isa;
use crate::layout::RefWidth;
use crate::reg::Reg;
use crate::template::Labels;
use crate::template::{
    BrooksReadBarrier, BrooksStoreVal, BrooksWriteBarrier, CardBase, CardMark, CasRef, Emit, G1Card,
    TemplateError,
};

impl Emit<Aarch64Relocation> for BrooksReadBarrier {
    fn emit_checked<A: Aarch64Asm>(&self, ops: &mut A, _labels: Labels) -> Result<(), TemplateError> {
        let (o, off) = (self.obj.0, simm9(self.forwarding)?);
        dynasm!(ops ; .arch aarch64 ; ldur X(o), [X(o), off]);
        Ok(())
    }
}

impl Emit<Aarch64Relocation> for BrooksWriteBarrier {
    fn emit_checked<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        if self.state_bits == 0 {
            return Err(TemplateError::NoBit);
        }
        let off = simm9(self.forwarding)?;
        let gc = uimm12(self.gc_state, 1)?;
        let (t, o, x, slow) = (self.thread.0, self.obj.0, self.tmp.0, labels.slow);
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

impl Emit<Aarch64Relocation> for BrooksStoreVal {
    fn emit_checked<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let (v, off, done) = (self.val.0, simm9(self.forwarding)?, labels.done);
        dynasm!(ops ; .arch aarch64 ; cbz X(v), =>done ; ldur X(v), [X(v), off]);
        Ok(())
    }
}

/// The thread register of a card barrier's base: AArch64 loads it from
/// the block only.
fn block_base(base: CardBase) -> Result<Reg, TemplateError> {
    match base {
        CardBase::Thread(t) => Ok(t),
        CardBase::Imm(_) => Err(TemplateError::Unsupported {
            what: "an immediate card-table base",
            isa: Isa::Aarch64,
        }),
    }
}

impl Emit<Aarch64Relocation> for CardMark {
    fn emit_checked<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let thread = block_base(self.base)?;
        let off = uimm12(self.layout.card_table_base, 8)?;
        let (t, a, x, x2) = (thread.0, self.addr.0, self.tmp.0, self.tmp2.0);
        let shift = u32::from(self.layout.card_shift);
        dynasm!(ops
            ; .arch aarch64
            ; lsr X(a), X(a), shift
            ; ldr X(x), [X(t), off]
        );
        let dirty = u32::from(self.layout.dirty_card);
        if self.conditional {
            let done = labels.done;
            dynasm!(ops ; .arch aarch64 ; ldrb W(x2), [X(x), X(a)]);
            if dirty == 0 {
                dynasm!(ops ; .arch aarch64 ; cbz W(x2), =>done);
            } else {
                dynasm!(ops ; .arch aarch64 ; cmp WSP(x2), #dirty ; b.eq =>done);
            }
        }
        if dirty == 0 {
            dynasm!(ops ; .arch aarch64 ; strb wzr, [X(x), X(a)]);
        } else {
            dynasm!(ops ; .arch aarch64 ; movz W(x2), dirty ; strb W(x2), [X(x), X(a)]);
        }
        Ok(())
    }
}

impl Emit<Aarch64Relocation> for G1Card {
    fn emit_checked<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let thread = block_base(self.base)?;
        let off = uimm12(self.layout.card_table_base, 8)?;
        if !(1..64).contains(&self.layout.card_shift) {
            return Err(TemplateError::Offset {
                offset: i32::from(self.layout.card_shift),
                accepts: "a card shift in 1..64 (LSR)",
            });
        }
        let (t, a, v, x, x2) = (thread.0, self.addr.0, self.val.0, self.tmp.0, self.tmp2.0);
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

impl Emit<Aarch64Relocation> for CasRef {
    fn emit_checked<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let bit = one_bit(self.layout.has_forwarded_bit)?;
        let gc = uimm12(self.layout.gc_state, 1)?;
        let (t, a, e, n, o, x) = (
            self.thread.0,
            self.addr.0,
            self.expected.0,
            self.new.0,
            self.old.0,
            self.tmp.0,
        );
        let (slow, done) = (labels.slow, labels.done);
        match self.refs {
            RefWidth::Full => dynasm!(ops
                ; .arch aarch64
                ; mov X(o), X(e)
                ; casal X(o), X(n), [X(a)]
            ),
            // The slot's 32 bits are the address: `casal`'s W form
            // zero-extends the witness into `o`.
            RefWidth::Unscaled => dynasm!(ops
                ; .arch aarch64
                ; mov X(o), X(e)
                ; casal W(o), W(n), [X(a)]
            ),
            RefWidth::Compressed => {
                let shift = COMPRESSED_SHIFT;
                dynasm!(ops
                    ; .arch aarch64
                    ; lsr X(o), X(e), shift
                    ; lsr X(x), X(n), shift
                    ; casal W(o), W(x), [X(a)]
                    ; lsl X(o), X(o), shift
                )
            }
        }
        dynasm!(ops
            ; .arch aarch64
            ; cmp X(o), X(e)
            ; b.eq =>done
            ; ldrb W(x), [X(t), gc]
            ; tbnz W(x), bit, =>slow
        );
        Ok(())
    }
}
