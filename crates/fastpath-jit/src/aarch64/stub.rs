//! The AArch64 slow-path stub ([`crate::template::stub`]), bound at a
//! template's `slow` label (AAPCS64):
//! ```text
//! slow:  sub  sp, sp, #frame                  ; 16-byte multiple
//!        str  <live ∩ caller-saved, except ret>, [sp, #8i]
//!        str  x30, [sp, #…]                    ; the link register `blr` overwrites
//!        str  <args>, [sp, #…] ; ldr x0…x7, [sp, #…]   ; parallel move to the ABI
//!        movz/movk x16, #slow path ; blr x16   ; x16: the intra-procedure scratch
//!        mov  ret, x0                          (if a result elsewhere)
//!        ldr  <saved>, x30 ; add sp, sp, #frame
//!        b    resume
//! ```

use dynasmrt::{aarch64::Aarch64Relocation, dynasm, DynamicLabel};

use super::{halves, Aarch64Asm};
use crate::isa::Isa;
pub use crate::reg::aarch64::{CALLER_SAVED, LR};
use crate::reg::Reg;
use crate::template::{EmitStub, SlowStub, StubError};

impl EmitStub<Aarch64Relocation> for SlowStub {
    fn emit<A: Aarch64Asm>(
        &self,
        ops: &mut A,
        slow: DynamicLabel,
        resume: DynamicLabel,
    ) -> Result<(), StubError> {
        self.check(Isa::Aarch64)?;
        let saved: Vec<Reg> = self.saved(Isa::Aarch64).iter().chain([LR]).collect();
        let slots = saved.len() + self.args.len();
        let frame = (slots * 8).div_ceil(16) as u32 * 16;
        dynasm!(ops ; .arch aarch64 ; =>slow ; sub sp, sp, #frame);
        for (i, r) in saved.iter().enumerate() {
            let off = 8 * i as u32;
            dynasm!(ops ; .arch aarch64 ; str X(r.0), [sp, off]);
        }
        let base = saved.len();
        for (j, r) in self.args.iter().enumerate() {
            let off = 8 * (base + j) as u32;
            dynasm!(ops ; .arch aarch64 ; str X(r.0), [sp, off]);
        }
        for j in 0..self.args.len() {
            let off = 8 * (base + j) as u32;
            dynasm!(ops ; .arch aarch64 ; ldr X(j as u8), [sp, off]);
        }
        let [h0, h1, h2, h3] = halves(self.func as u64);
        dynasm!(ops
            ; .arch aarch64
            ; movz x16, #h0
            ; movk x16, #h1, lsl #16
            ; movk x16, #h2, lsl #32
            ; movk x16, #h3, lsl #48
            ; blr x16
        );
        if let Some(r) = self.ret.filter(|r| r.0 != 0) {
            dynasm!(ops ; .arch aarch64 ; mov X(r.0), x0);
        }
        for (i, r) in saved.iter().enumerate() {
            let off = 8 * i as u32;
            dynasm!(ops ; .arch aarch64 ; ldr X(r.0), [sp, off]);
        }
        dynasm!(ops ; .arch aarch64 ; add sp, sp, #frame ; b =>resume);
        Ok(())
    }
}
