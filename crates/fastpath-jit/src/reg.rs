//! Registers as the JIT names them, and register sets for clobbers.
//!
//! Where it sits: every template takes its registers as [`Reg`]s chosen by
//! the JIT (object, thread, temporaries) and reports what it writes as a
//! [`RegSet`], so the JIT's register allocator can keep values live across
//! an inlined fast path. Numbers are the architecture's encoding numbers:
//! x86-64 0 = rax … 15 = r15; AArch64 0 = x0 … 30 = x30. Beside the names,
//! each ISA's module holds what its calling convention fixes (the
//! caller-saved set, the argument registers), which [`crate::isa::Isa`]
//! hands to the slow-path stub.

use std::fmt;

/// A general-purpose register by encoding number.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u8);

impl fmt::Debug for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}", self.0)
    }
}

/// x86-64 register names (encoding numbers).
pub mod x64 {
    use super::{Reg, RegSet};
    /// rax
    pub const RAX: Reg = Reg(0);
    /// rcx
    pub const RCX: Reg = Reg(1);
    /// rdx
    pub const RDX: Reg = Reg(2);
    /// rbx
    pub const RBX: Reg = Reg(3);
    /// rsp
    pub const RSP: Reg = Reg(4);
    /// rbp
    pub const RBP: Reg = Reg(5);
    /// rsi
    pub const RSI: Reg = Reg(6);
    /// rdi
    pub const RDI: Reg = Reg(7);
    /// r8
    pub const R8: Reg = Reg(8);
    /// r9
    pub const R9: Reg = Reg(9);
    /// r10
    pub const R10: Reg = Reg(10);
    /// r11
    pub const R11: Reg = Reg(11);
    /// r12
    pub const R12: Reg = Reg(12);
    /// r13
    pub const R13: Reg = Reg(13);
    /// r14
    pub const R14: Reg = Reg(14);
    /// r15, HotSpot's thread register on x86-64.
    pub const R15: Reg = Reg(15);

    /// SysV caller-saved general registers: rax, rcx, rdx, rsi, rdi, r8–r11.
    pub const CALLER_SAVED: RegSet =
        RegSet(1 << 0 | 1 << 1 | 1 << 2 | 1 << 6 | 1 << 7 | 1 << 8 | 1 << 9 | 1 << 10 | 1 << 11);

    /// SysV integer argument registers, in order.
    pub const ARGS: [Reg; 6] = [RDI, RSI, RDX, RCX, R8, R9];
}

/// AArch64 register names (x0–x30; 31 is sp or zr, never an operand).
pub mod aarch64 {
    use super::{Reg, RegSet};

    /// x0, the first argument and the result.
    pub const X0: Reg = Reg(0);
    /// x1
    pub const X1: Reg = Reg(1);
    /// x2
    pub const X2: Reg = Reg(2);
    /// x3
    pub const X3: Reg = Reg(3);
    /// x4
    pub const X4: Reg = Reg(4);
    /// x9, the first temporary of AAPCS64.
    pub const X9: Reg = Reg(9);
    /// x16 (IP0), the slow-path stub's call scratch.
    pub const X16: Reg = Reg(16);
    /// x17 (IP1), the other intra-procedure scratch.
    pub const X17: Reg = Reg(17);
    /// x28, HotSpot's thread register on AArch64 (`rthread`).
    pub const RTHREAD: Reg = Reg(28);
    /// x30, the link register `blr` overwrites.
    pub const LR: Reg = Reg(30);

    /// AAPCS64 caller-saved general registers: x0–x18 (x18 included: on
    /// Linux it is an ordinary temporary).
    pub const CALLER_SAVED: RegSet = RegSet((1 << 19) - 1);

    /// AAPCS64 integer argument registers, in order.
    pub const ARGS: [Reg; 8] = [Reg(0), Reg(1), Reg(2), Reg(3), Reg(4), Reg(5), Reg(6), Reg(7)];
}

/// A set of registers (bit `n` = register `n`; 32 fit both architectures).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct RegSet(pub u32);

impl RegSet {
    /// No register.
    pub const EMPTY: RegSet = RegSet(0);

    /// The set of `regs`.
    pub fn of(regs: &[Reg]) -> RegSet {
        regs.iter().fold(RegSet::EMPTY, |s, &r| s.with(r))
    }

    /// `self` plus `r`.
    #[must_use]
    pub fn with(self, r: Reg) -> RegSet {
        RegSet(self.0 | 1 << r.0)
    }

    /// `self` without `r`.
    #[must_use]
    pub fn without(self, r: Reg) -> RegSet {
        RegSet(self.0 & !(1 << r.0))
    }

    /// Registers in either.
    #[must_use]
    pub fn union(self, other: RegSet) -> RegSet {
        RegSet(self.0 | other.0)
    }

    /// Whether `r` is in the set.
    pub fn contains(self, r: Reg) -> bool {
        self.0 & (1 << r.0) != 0
    }

    /// Whether every register of `self` is in `other`.
    pub fn is_subset(self, other: RegSet) -> bool {
        self.0 & !other.0 == 0
    }

    /// Registers in both.
    #[must_use]
    pub fn intersect(self, other: RegSet) -> RegSet {
        RegSet(self.0 & other.0)
    }

    /// Registers in increasing number.
    pub fn iter(self) -> impl DoubleEndedIterator<Item = Reg> {
        (0..32u8).filter(move |&n| self.0 & (1 << n) != 0).map(Reg)
    }

    /// Number of registers.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl fmt::Debug for RegSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// A register a template refuses (its roles, or an ISA's rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegError {
    /// Two roles share a register.
    Aliased(Reg),
    /// The ISA reserves it for this role: x86-64's rsp (the stack), or rax
    /// where `cmpxchg` fixes it (a lock template's or the reference CAS's).
    Reserved(Reg),
    /// Not a general register of the architecture (x86-64: 0–15; AArch64: 0–30).
    NotARegister(Reg),
    /// The ISA fixes the role's register (x86-64's reference CAS: the
    /// witnessed value in rax, `cmpxchg`'s operand).
    Fixed {
        /// The register given.
        given: Reg,
        /// The one the role must be.
        fixed: Reg,
    },
}

impl fmt::Display for RegError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegError::Aliased(r) => write!(f, "{r:?} is used for two roles of a template"),
            RegError::Reserved(r) => write!(
                f,
                "{r:?} cannot take this role (rsp: the stack; rax: cmpxchg's operand)"
            ),
            RegError::NotARegister(r) => write!(f, "{r:?} is not a general register of the architecture"),
            RegError::Fixed { given, fixed } => {
                write!(f, "{given:?} given for a role this ISA fixes to {fixed:?}")
            }
        }
    }
}

impl std::error::Error for RegError {}
