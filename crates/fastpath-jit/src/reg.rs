//! Registers as the JIT names them, and register sets for clobbers.
//!
//! Where it sits: every template takes its registers as [`Reg`]s chosen by
//! the JIT (object, thread, temporaries) and reports what it writes as a
//! [`RegSet`], so the JIT's register allocator can keep values live across
//! an inlined fast path. Numbers are the architecture's encoding numbers:
//! x86-64 0 = rax … 15 = r15; AArch64 0 = x0 … 30 = x30.

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
    use super::Reg;
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

/// Registers a lock template's [`LockRegs`](crate::x64::LockRegs)
/// (either architecture's) refuses at construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockRegError {
    /// Two roles share a register.
    Aliased(Reg),
    /// x86-64: rax is the CAS's implicit operand; rsp is the stack.
    Reserved(Reg),
    /// Not a general register of the architecture (x86-64: 0–15; AArch64: 0–30).
    NotARegister(Reg),
}

impl fmt::Display for LockRegError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockRegError::Aliased(r) => write!(f, "{r:?} is used for two roles of a lock template"),
            LockRegError::Reserved(r) => {
                write!(
                    f,
                    "{r:?} cannot be a lock template's operand (rax: the CAS's; rsp: the stack)"
                )
            }
            LockRegError::NotARegister(r) => write!(f, "{r:?} is not a general register of the architecture"),
        }
    }
}

impl std::error::Error for LockRegError {}
