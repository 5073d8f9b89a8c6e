//! The out-of-line slow-path stub (HotSpot's late expansion: the fast path
//! inline, this stub after the method body, `C2CodeStub`).
//!
//! Shape, bound at the template's `slow` label:
//! ```text
//! slow:  push <live ∩ caller-saved, except ret>     ; what the call may destroy
//!        lea rsp, [rsp-8]          (odd count)       ; keep rsp 16-aligned
//!        push <args>; pop rdi, rsi, rdx, rcx, r8, r9 ; parallel move to the ABI
//!        mov rax, imm64(slow path); call rax
//!        mov ret, rax              (if a result)
//!        lea rsp, [rsp+8]          (odd count)
//!        pop <saved>
//!        jmp resume
//! ```
//! Precondition: rsp is 16-byte aligned where the fast path runs (as at a
//! call site of the JIT's frame). The stub writes `ret`, RFLAGS, and the
//! caller-saved registers not in `live`; callee-saved registers are kept by
//! the `extern "C"` callee.

use dynasmrt::{dynasm, DynamicLabel};

use super::X64Asm;
use crate::reg::{x64::*, Reg, RegSet};

/// SysV caller-saved general registers.
pub const CALLER_SAVED: RegSet =
    RegSet(1 << 0 | 1 << 1 | 1 << 2 | 1 << 6 | 1 << 7 | 1 << 8 | 1 << 9 | 1 << 10 | 1 << 11);

/// SysV integer argument registers, in order.
pub const ARGS: [Reg; 6] = [RDI, RSI, RDX, RCX, R8, R9];

/// A call to an `extern "C"` slow path from a template's `slow` label.
#[derive(Clone, Debug)]
pub struct SlowStub {
    /// Address of the `extern "C"` function.
    pub func: usize,
    /// Registers passed as its arguments, in order (at most 6).
    pub args: Vec<Reg>,
    /// Register receiving its result, if any.
    pub ret: Option<Reg>,
    /// Registers live across the fast path.
    pub live: RegSet,
}

/// A stub that cannot be emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StubError {
    /// More than 6 arguments.
    TooManyArgs(usize),
    /// rsp as an argument, result or live register.
    StackPointer,
}

impl std::fmt::Display for StubError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StubError::TooManyArgs(n) => {
                write!(f, "{n} arguments; a slow-path stub passes at most 6 in registers")
            }
            StubError::StackPointer => f.write_str("rsp cannot be a stub argument, result or live register"),
        }
    }
}

impl std::error::Error for StubError {}

impl SlowStub {
    /// The registers the stub saves and restores around the call.
    pub fn saved(&self) -> RegSet {
        let mut s = self.live.intersect(CALLER_SAVED);
        if let Some(r) = self.ret {
            s = RegSet(s.0 & !(1 << r.0));
        }
        s
    }

    /// Binds `slow` and emits the stub, which resumes at `resume`.
    pub fn emit<A: X64Asm>(
        &self,
        ops: &mut A,
        slow: DynamicLabel,
        resume: DynamicLabel,
    ) -> Result<(), StubError> {
        if self.args.len() > ARGS.len() {
            return Err(StubError::TooManyArgs(self.args.len()));
        }
        if self.args.contains(&RSP) || self.ret == Some(RSP) || self.live.contains(RSP) {
            return Err(StubError::StackPointer);
        }
        let saved = self.saved();
        let pad = saved.len() % 2 == 1;
        let func = self.func as i64;
        dynasm!(ops ; .arch x64 ; =>slow);
        for r in saved.iter() {
            dynasm!(ops ; .arch x64 ; push Rq(r.0));
        }
        if pad {
            dynasm!(ops ; .arch x64 ; lea rsp, [rsp - 8]);
        }
        for r in &self.args {
            dynasm!(ops ; .arch x64 ; push Rq(r.0));
        }
        for r in ARGS[..self.args.len()].iter().rev() {
            dynasm!(ops ; .arch x64 ; pop Rq(r.0));
        }
        dynasm!(ops ; .arch x64 ; mov rax, QWORD func ; call rax);
        if let Some(r) = self.ret.filter(|&r| r != RAX) {
            dynasm!(ops ; .arch x64 ; mov Rq(r.0), rax);
        }
        if pad {
            dynasm!(ops ; .arch x64 ; lea rsp, [rsp + 8]);
        }
        for r in saved.iter().rev() {
            dynasm!(ops ; .arch x64 ; pop Rq(r.0));
        }
        dynasm!(ops ; .arch x64 ; jmp =>resume);
        Ok(())
    }
}
