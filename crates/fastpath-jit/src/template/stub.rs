//! The out-of-line slow-path stub (HotSpot's late expansion: the fast path
//! inline, this stub after the method body, `C2CodeStub`): bound at a
//! template's `slow` label, it saves the live caller-saved registers the
//! call may destroy, moves the arguments into the ABI's registers (a
//! parallel move through the stack), calls the `extern "C"` slow path,
//! moves its result, restores what it saved and resumes at `done`. The
//! instructions are each ISA's (`x64/stub.rs`, `aarch64/stub.rs`).
//!
//! Precondition: the stack pointer is 16-byte aligned where the fast path
//! runs (as at a call site of the JIT's frame; AArch64 requires it at every
//! sp access). The stub writes `ret`, the flags, the caller-saved
//! registers not in `live` (and AArch64's call scratch x16/x17); x30 is
//! restored on AArch64; callee-saved registers are kept by the `extern "C"`
//! callee.

use dynasmrt::{DynamicLabel, DynasmLabelApi};

use crate::isa::{Arch, Isa};
use crate::reg::{aarch64, x64, Reg, RegSet};

/// A call to an `extern "C"` slow path from a template's `slow` label
/// (a template's [`SlowCall`](super::SlowCall) makes one with
/// [`SlowCall::stub`](super::SlowCall::stub)).
#[derive(Clone, Debug)]
pub struct SlowStub {
    /// Address of the `extern "C"` function.
    pub func: usize,
    /// Registers passed as its arguments, in order (at most 6 on x86-64,
    /// 8 on AArch64).
    pub args: Vec<Reg>,
    /// Register receiving its result, if any.
    pub ret: Option<Reg>,
    /// Registers live across the fast path.
    pub live: RegSet,
}

/// A stub that cannot be emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StubError {
    /// More arguments than the ABI passes in registers.
    TooManyArgs(usize),
    /// A register the stub needs for itself, as an argument, result or
    /// live register: x86-64's rsp; AArch64's sp/zr (31) and the call
    /// scratch x16/x17.
    Reserved(Reg),
}

impl std::fmt::Display for StubError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StubError::TooManyArgs(n) => write!(
                f,
                "{n} arguments; a slow-path stub passes at most 6 (x86-64) or 8 (AArch64) in registers"
            ),
            StubError::Reserved(r) => write!(
                f,
                "{r:?} cannot be a stub argument, result or live register (rsp; sp/zr, or the call scratch x16/x17)"
            ),
        }
    }
}

impl std::error::Error for StubError {}

impl SlowStub {
    /// The registers the stub saves and restores around the call on `isa`
    /// (x30 besides on AArch64, always): the live caller-saved ones but the
    /// result.
    pub fn saved(&self, isa: Isa) -> RegSet {
        let s = self.live.intersect(isa.caller_saved());
        match self.ret {
            Some(r) => s.without(r),
            None => s,
        }
    }

    /// Checks the stub's registers for `isa`.
    pub fn check(&self, isa: Isa) -> Result<(), StubError> {
        if self.args.len() > isa.arg_regs().len() {
            return Err(StubError::TooManyArgs(self.args.len()));
        }
        let reserved = |r: Reg| match isa {
            Isa::X64 => r == x64::RSP || r.0 > 15,
            Isa::Aarch64 => r.0 >= 31 || r == aarch64::X16 || r == aarch64::X17,
        };
        let used = self.live.iter().chain(self.args.iter().copied()).chain(self.ret);
        match used.into_iter().find(|&r| reserved(r)) {
            Some(r) => Err(StubError::Reserved(r)),
            None => Ok(()),
        }
    }
}

/// The stub's emitter for the ISA of relocation type `R`.
pub trait EmitStub<R: Arch> {
    /// Binds `slow` and emits the stub, which resumes at `resume`.
    fn emit<A: DynasmLabelApi<Relocation = R>>(
        &self,
        ops: &mut A,
        slow: DynamicLabel,
        resume: DynamicLabel,
    ) -> Result<(), StubError>;
}
