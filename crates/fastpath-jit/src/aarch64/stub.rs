//! The out-of-line slow-path stub on AArch64 (HotSpot's late expansion:
//! the fast path inline, this stub after the method body, `C2CodeStub`).
//!
//! Shape, bound at the template's `slow` label (AAPCS64):
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
//! Precondition: sp is 16-byte aligned (AArch64 requires it at every sp
//! access). The stub writes `ret`, NZCV, x16/x17 and the caller-saved
//! registers not in `live`; x30 is restored; callee-saved registers are
//! kept by the `extern "C"` callee.

use dynasmrt::{dynasm, DynamicLabel};

use super::Aarch64Asm;
use crate::reg::{Reg, RegSet};

/// AAPCS64 caller-saved general registers: x0–x18 (x18 included: on Linux
/// it is an ordinary temporary).
pub const CALLER_SAVED: RegSet = RegSet((1 << 19) - 1);

/// The link register.
pub const LR: Reg = Reg(30);

/// A call to an `extern "C"` slow path from a template's `slow` label.
#[derive(Clone, Debug)]
pub struct SlowStub {
    /// Address of the `extern "C"` function.
    pub func: usize,
    /// Registers passed as its arguments, in order (at most 8).
    pub args: Vec<Reg>,
    /// Register receiving its result, if any.
    pub ret: Option<Reg>,
    /// Registers live across the fast path.
    pub live: RegSet,
}

/// A stub that cannot be emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StubError {
    /// More than 8 arguments.
    TooManyArgs(usize),
    /// Register 31 (sp/zr), or x16/x17 (the stub's call scratch), as an
    /// argument, result or live register.
    Reserved(Reg),
}

impl std::fmt::Display for StubError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StubError::TooManyArgs(n) => {
                write!(f, "{n} arguments; a slow-path stub passes at most 8 in registers")
            }
            StubError::Reserved(r) => write!(
                f,
                "{r:?} cannot be a stub argument, result or live register (sp/zr, or the call scratch x16/x17)"
            ),
        }
    }
}

impl std::error::Error for StubError {}

impl SlowStub {
    /// The registers the stub saves and restores around the call (x30
    /// besides, always).
    pub fn saved(&self) -> RegSet {
        let mut s = self.live.intersect(CALLER_SAVED);
        if let Some(r) = self.ret {
            s = RegSet(s.0 & !(1 << r.0));
        }
        s
    }

    /// Binds `slow` and emits the stub, which resumes at `resume`.
    pub fn emit<A: Aarch64Asm>(
        &self,
        ops: &mut A,
        slow: DynamicLabel,
        resume: DynamicLabel,
    ) -> Result<(), StubError> {
        if self.args.len() > 8 {
            return Err(StubError::TooManyArgs(self.args.len()));
        }
        let used = self.live.iter().chain(self.args.iter().copied()).chain(self.ret);
        for r in used {
            if r.0 >= 31 || r.0 == 16 || r.0 == 17 {
                return Err(StubError::Reserved(r));
            }
        }
        let saved: Vec<Reg> = self.saved().iter().chain([LR]).collect();
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
        let f = self.func as u64;
        let [h0, h1, h2, h3] = [0, 16, 32, 48].map(|s| (f >> s) as u32 & 0xffff);
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
