//! The instruction sets the templates are emitted for, and what each
//! fixes about registers: which are general, which a template may not take
//! as an operand, which a call destroys, where arguments go.
//!
//! Where it sits: under the descriptions ([`crate::template`]). A
//! description answers per [`Isa`] (its clobbers and budget differ by ISA;
//! its roles do not); an emitter is chosen by the assembler's relocation
//! type, which names its ISA ([`Arch`]), so `t.emit(&mut ops, labels)`
//! picks the x86-64 or the AArch64 emitter from `ops` alone.

use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::relocations::Relocation;
use dynasmrt::x64::X64Relocation;

use crate::reg::{aarch64, x64, Reg, RegError, RegSet};

/// An instruction set the templates cover.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// x86-64 (SysV ABI).
    X64,
    /// AArch64 (AAPCS64) with LSE atomics.
    Aarch64,
}

impl Isa {
    /// The ISA of the running process, if the templates cover it.
    pub const HOST: Option<Isa> = if cfg!(target_arch = "x86_64") {
        Some(Isa::X64)
    } else if cfg!(target_arch = "aarch64") {
        Some(Isa::Aarch64)
    } else {
        None
    };

    /// Its name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Isa::X64 => "x86-64",
            Isa::Aarch64 => "AArch64",
        }
    }

    /// Checks that `r` can be a template's operand: a general register of
    /// the ISA (x86-64: 0–15; AArch64: x0–x30, 31 being sp or zr), and on
    /// x86-64 not rsp (the stack).
    pub fn check_operand(self, r: Reg) -> Result<(), RegError> {
        match self {
            Isa::X64 if r.0 > 15 => Err(RegError::NotARegister(r)),
            Isa::X64 if r == x64::RSP => Err(RegError::Reserved(r)),
            Isa::Aarch64 if r.0 > 30 => Err(RegError::NotARegister(r)),
            _ => Ok(()),
        }
    }

    /// Checks every register of `regs` ([`Isa::check_operand`]) and that
    /// no two are the same: one register per role.
    pub fn check_operands(self, regs: &[Reg]) -> Result<(), RegError> {
        for (i, &r) in regs.iter().enumerate() {
            self.check_operand(r)?;
            if regs[..i].contains(&r) {
                return Err(RegError::Aliased(r));
            }
        }
        Ok(())
    }

    /// The general registers a call may destroy (SysV: rax, rcx, rdx, rsi,
    /// rdi, r8–r11; AAPCS64: x0–x18, x18 an ordinary temporary on Linux).
    pub fn caller_saved(self) -> RegSet {
        match self {
            Isa::X64 => x64::CALLER_SAVED,
            Isa::Aarch64 => aarch64::CALLER_SAVED,
        }
    }

    /// The integer argument registers, in order.
    pub fn arg_regs(self) -> &'static [Reg] {
        match self {
            Isa::X64 => &x64::ARGS,
            Isa::Aarch64 => &aarch64::ARGS,
        }
    }
}

/// A relocation type of dynasm-rs naming the ISA its assembler emits: the
/// parameter of [`Emit`](crate::template::Emit), so the assembler a JIT
/// holds selects the emitter.
pub trait Arch: Relocation {
    /// The ISA.
    const ISA: Isa;
}

impl Arch for X64Relocation {
    const ISA: Isa = Isa::X64;
}

impl Arch for Aarch64Relocation {
    const ISA: Isa = Isa::Aarch64;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operands_are_general_distinct_and_not_the_stack() {
        use crate::reg::x64::{RAX, RSP};
        assert_eq!(Isa::X64.check_operands(&[RAX, Reg(15)]), Ok(()));
        assert_eq!(
            Isa::X64.check_operand(Reg(16)),
            Err(RegError::NotARegister(Reg(16)))
        );
        assert_eq!(Isa::X64.check_operand(RSP), Err(RegError::Reserved(RSP)));
        assert_eq!(Isa::Aarch64.check_operands(&[Reg(4), Reg(30)]), Ok(()));
        assert_eq!(
            Isa::Aarch64.check_operand(Reg(31)),
            Err(RegError::NotARegister(Reg(31)))
        );
        assert_eq!(
            Isa::Aarch64.check_operands(&[Reg(9), Reg(1), Reg(9)]),
            Err(RegError::Aliased(Reg(9)))
        );
        assert_eq!(Isa::X64.arg_regs().len(), 6);
        assert_eq!(Isa::Aarch64.arg_regs().len(), 8);
        assert!(Isa::Aarch64.caller_saved().contains(Reg(18)));
        assert!(!Isa::X64.caller_saved().contains(Reg(3)));
    }
}
