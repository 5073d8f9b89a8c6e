//! The x86-64 slow-path stub ([`crate::template::stub`]), bound at a
//! template's `slow` label:
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

use dynasmrt::{dynasm, x64::X64Relocation, DynamicLabel};

use super::X64Asm;
use crate::isa::Isa;
use crate::reg::x64::RAX;
pub use crate::reg::x64::{ARGS, CALLER_SAVED};
use crate::template::{EmitStub, SlowStub, StubError};

impl EmitStub<X64Relocation> for SlowStub {
    fn emit<A: X64Asm>(
        &self,
        ops: &mut A,
        slow: DynamicLabel,
        resume: DynamicLabel,
    ) -> Result<(), StubError> {
        self.check(Isa::X64)?;
        let saved = self.saved(Isa::X64);
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
