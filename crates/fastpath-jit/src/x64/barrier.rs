//! x86-64 object barriers ([`crate::template::barrier`]: what each does):
//! - Brooks read barrier: `mov obj, [obj+fwd]` (1).
//! - Brooks write barrier: `test byte [thread+gc_state], bits; jnz slow;
//!   mov obj, [obj+fwd]` (3); the stored value after its stub: `test val,
//!   val; jz done; mov val, [val+fwd]` (3).
//! - Card post-barrier: `shr addr, shift; mov tmp, [thread+card_table_base];
//!   mov byte [tmp+addr], dirty` (3), or with an immediate base `mov tmp,
//!   imm64; shr; mov byte` (3); the conditional form adds `cmp byte
//!   [tmp+addr], dirty; je done` (5).
//! - G1 post-barrier: `mov tmp, addr; xor tmp, val; shr tmp, region_shift;
//!   jz done; test val, val; jz done; mov tmp, addr; shr tmp, card_shift;
//!   add tmp, [thread+card_table_base]; cmp byte [tmp], dirty; jne slow`
//!   (11; with an immediate base `mov tmp2, imm64; cmp byte [tmp+tmp2],
//!   dirty; jne slow`, also 11). A store within a region takes 4, a null
//!   one 6.
//! - Reference CAS: `mov rax, expected; lock cmpxchg [addr], new; je done;
//!   test byte [thread+gc_state], has_forwarded; jnz slow` (3 on success),
//!   the witnessed value in rax, `expected` kept for the slow path. On a
//!   compressed heap: `mov rax, expected; shr rax, 3; mov tmp, new; shr
//!   tmp, 3; lock cmpxchg dword [addr], tmp32; lea rax, [rax*8]; je done;
//!   test; jnz slow` (7 on success): `lea` decodes the witness (or, on
//!   success, `expected` again) without touching the flags `je` reads. On
//!   an unscaled heap (the slot holds the address, below 4 GiB): `mov rax,
//!   expected; lock cmpxchg dword [addr], new32; je done; test; jnz slow`
//!   (3 on success), rax the witness zero-extended after a failure and
//!   `expected` (whose upper half is 0) after a success.

use dynasmrt::{dynasm, x64::X64Relocation};

use super::{X64Asm, COMPRESSED_SHIFT};
use crate::layout::RefWidth;
use crate::template::Labels;
use crate::template::{
    BrooksReadBarrier, BrooksStoreVal, BrooksWriteBarrier, CardBase, CardMark, CasRef, Emit, G1Card,
    TemplateError,
};

impl Emit<X64Relocation> for BrooksReadBarrier {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, _labels: Labels) -> Result<(), TemplateError> {
        let (o, off) = (self.obj.0, self.forwarding);
        dynasm!(ops ; .arch x64 ; mov Rq(o), QWORD [Rq(o) + off]);
        Ok(())
    }
}

impl Emit<X64Relocation> for BrooksWriteBarrier {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        if self.state_bits == 0 {
            return Err(TemplateError::NoBit);
        }
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
        Ok(())
    }
}

impl Emit<X64Relocation> for BrooksStoreVal {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let (v, off, done) = (self.val.0, self.forwarding, labels.done);
        dynasm!(ops
            ; .arch x64
            ; test Rq(v), Rq(v)
            ; jz =>done
            ; mov Rq(v), QWORD [Rq(v) + off]
        );
        Ok(())
    }
}

impl Emit<X64Relocation> for CardMark {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
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
        Ok(())
    }
}

impl Emit<X64Relocation> for G1Card {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
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
        Ok(())
    }
}

impl Emit<X64Relocation> for CasRef {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let (t, a, e, n) = (self.thread.0, self.addr.0, self.expected.0, self.new.0);
        let (done, slow) = (labels.done, labels.slow);
        let (off, bit) = (self.layout.gc_state, self.layout.has_forwarded_bit as i8);
        match self.refs {
            RefWidth::Full => dynasm!(ops
                ; .arch x64
                ; mov rax, Rq(e)
                ; lock cmpxchg QWORD [Rq(a)], Rq(n)
            ),
            // The expected value's upper half is 0 (every address of an
            // unscaled heap is below 4 GiB), so rax is the expected value
            // after a success and the witness, zero-extended, after a
            // failure.
            RefWidth::Unscaled => dynasm!(ops
                ; .arch x64
                ; mov rax, Rq(e)
                ; lock cmpxchg DWORD [Rq(a)], Rd(n)
            ),
            RefWidth::Compressed => {
                let (x, shift) = (self.tmp.0, COMPRESSED_SHIFT);
                dynasm!(ops
                    ; .arch x64
                    ; mov rax, Rq(e)
                    ; shr rax, shift
                    ; mov Rq(x), Rq(n)
                    ; shr Rq(x), shift
                    ; lock cmpxchg DWORD [Rq(a)], Rd(x)
                    ; lea rax, [rax * 8]
                )
            }
        }
        dynasm!(ops
            ; .arch x64
            ; je =>done
            ; test BYTE [Rq(t) + off], bit
            ; jnz =>slow
        );
        Ok(())
    }
}
