//! One description per fast path, whatever the ISA: its roles (the
//! registers a JIT chooses, the layout it reads, its immediates), what it
//! clobbers and how long its common path is on each ISA, and what its
//! slow path is. The machine code is each ISA's emitter's
//! ([`crate::x64`], [`crate::aarch64`]), one per template per ISA.
//!
//! Where it sits: between the JIT and the emitters.
//!
//! ```text
//!  JIT ── fills ──▶ description (this module: roles, layout) ──▶ Template: clobbers(isa), budget(isa), slow_call()
//!                        │
//!                        └─ t.emit(&mut ops, labels) ──▶ Emit<X64Relocation>     (x64/*.rs)
//!                                                    └─▶ Emit<Aarch64Relocation> (aarch64/*.rs)
//!  C ABI table ──▶ Box<dyn Emitter<R>> (the same, as objects)
//! ```
//!
//! The assembler chooses the emitter: its relocation type names the ISA
//! ([`Arch`]). A role an ISA does not need is left alone there and named
//! so in its field's documentation (x86-64 tests a byte in memory where
//! AArch64 loads it into `tmp` first), as HotSpot's `BarrierSetAssembler`
//! takes `tmp1`..`tmp3` on every platform and each uses what it needs.
//!
//! Contract of every template, on both ISAs:
//! - The common path falls through; the uncommon case branches to
//!   `labels.slow`, where the JIT emits a [`SlowStub`] (HotSpot's late
//!   expansion: JEP 475's barrier stubs, `C2CodeStub`) making the template's
//!   [`SlowCall`]; `labels.done` is where the stub resumes, bound by the
//!   JIT (normally right after the fast path). Some templates branch to
//!   `done` themselves (a filter that needs no work: null, same region, an
//!   already dirty card).
//! - It writes only [`Template::clobbers`] and the flags (RFLAGS, NZCV).
//! - Its common path is at most [`Template::budget`] instructions, checked
//!   by decoding (x86-64, iced-x86) or counting words (AArch64) in the tests.
//! - Its shared-memory protocol is the Rust fast path's it mirrors: plain
//!   loads of thread-private state, and for the monitor templates and the
//!   reference CAS one CAS on shared memory (the only shared write).
//!
//! | file | templates |
//! |---|---|
//! | [`thread`] | thread-block tests: safepoint poll, SATB and LRB idle tests, TLAB bump |
//! | [`lock`] | lightweight monitor enter and exit, and the exit expecting a register's word |
//! | [`barrier`] | Brooks read and write barriers and the stored value's resolution, card post-barrier (plain and conditional), G1 filtered card post-barrier, reference CAS |
//! | [`gc_medium`] | the SATB enqueue and LRB collection-set medium paths, out of line after the idle tests |
//! | [`spin`] | on-spin-wait |
//! | [`stub`] | the out-of-line slow-path stub |
//!
//! A new template is its description here (a struct and its `Template`
//! impl) and one `Emit` impl in each of `x64/` and `aarch64/`; the C ABI
//! adds a row to its table (ARCHITECTURE.md, "JIT crates").

use dynasmrt::{DynasmLabelApi, VecAssembler};

pub use crate::isa::{Arch, Isa};
use crate::reg::{Reg, RegError, RegSet};
use crate::slow::LibraryPath;
use crate::Labels;

pub mod barrier;
pub mod gc_medium;
pub mod lock;
pub mod spin;
pub mod stub;
pub mod thread;

pub use barrier::{
    BrooksReadBarrier, BrooksStoreVal, BrooksWriteBarrier, CardBase, CardMark, CasRef, G1Card,
};
pub use gc_medium::{LrbCset, SatbEnqueue};
pub use lock::{LockEnter, LockExit, LockExitExpecting, LockRegs};
pub use spin::SpinWait;
pub use stub::{EmitStub, SlowStub, StubError};
pub use thread::{GcBarrier, GcStateTest, SafepointPoll, TlabAlloc};

/// A fast path's description: what a JIT needs to place it, on any ISA.
/// Dyn-compatible; the emitters are [`Emit`].
pub trait Template {
    /// Short name for reports.
    fn name(&self) -> &'static str;
    /// The registers it takes on `isa`, one per role (inputs, results and
    /// scratch alike): they must be distinct general registers of the ISA
    /// ([`Template::check`]). Roles the ISA does not use are not listed.
    fn operands(&self, isa: Isa) -> Vec<Reg>;
    /// The registers it may write on `isa` (the flags always).
    fn clobbers(&self, isa: Isa) -> RegSet;
    /// Most instructions on its common path on `isa`.
    fn budget(&self, isa: Isa) -> usize;
    /// What the stub at `labels.slow` calls, or `None` if the template
    /// never branches there.
    fn slow_call(&self) -> Option<SlowCall>;

    /// Checks [`Template::operands`] for `isa`: general registers, not
    /// reserved, one per role. Every emitter runs it first.
    fn check(&self, isa: Isa) -> Result<(), TemplateError> {
        isa.check_operands(&self.operands(isa))
            .map_err(TemplateError::Register)
    }
}

/// A template's emitter for the ISA of relocation type `R`
/// (`X64Relocation`: x86-64, `Aarch64Relocation`: AArch64).
pub trait Emit<R: Arch>: Template {
    /// Emits the fast path at the assembler's current offset, branching to
    /// `labels` (see the module's contract), after [`Template::check`].
    fn emit<A: DynasmLabelApi<Relocation = R>>(
        &self,
        ops: &mut A,
        labels: Labels,
    ) -> Result<(), TemplateError> {
        self.check(R::ISA)?;
        self.emit_checked(ops, labels)
    }

    /// The machine code alone, for operands [`Template::check`] accepted.
    fn emit_checked<A: DynasmLabelApi<Relocation = R>>(
        &self,
        ops: &mut A,
        labels: Labels,
    ) -> Result<(), TemplateError>;
}

/// A template as an object, for tables of templates chosen at run time
/// (the C ABI's): [`Emit::emit`] into a `VecAssembler`.
pub trait Emitter<R: Arch>: Template {
    /// [`Emit::emit`].
    fn emit_into(&self, ops: &mut VecAssembler<R>, labels: Labels) -> Result<(), TemplateError>;
}

impl<R: Arch, T: Emit<R>> Emitter<R> for T {
    fn emit_into(&self, ops: &mut VecAssembler<R>, labels: Labels) -> Result<(), TemplateError> {
        self.emit(ops, labels)
    }
}

/// What the stub at a template's `slow` label calls, in the template's
/// registers: the contract a JIT implements there (or hands to
/// [`SlowCall::stub`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlowCall {
    /// The slow path.
    pub path: SlowPath,
    /// Its arguments, in order.
    pub args: Vec<SlowArg>,
    /// The register its result goes to before resuming at `done`, when
    /// the template resumes with it (the Brooks write barrier's object,
    /// the LRB's reference).
    pub ret: Option<Reg>,
}

/// Whose slow path a [`SlowCall`] calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowPath {
    /// One of the library's ([`crate::slow`]).
    Library(LibraryPath),
    /// The runtime's own (it is not the library's to provide), described:
    /// the safepoint, a TLAB refill, the reference CAS's retry on resolved
    /// copies.
    Runtime(&'static str),
}

/// One argument of a [`SlowCall`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowArg {
    /// The value of one of the template's registers.
    Reg(Reg),
    /// A value the template does not hold, which the JIT passes (named:
    /// the LRB's field address, the SATB idle test's previous value).
    Jit(&'static str),
}

impl SlowCall {
    /// The library's `path` with the template's registers `args`, resuming
    /// with its result in `ret`.
    pub fn library(path: LibraryPath, args: &[Reg], ret: Option<Reg>) -> SlowCall {
        SlowCall {
            path: SlowPath::Library(path),
            args: args.iter().map(|&r| SlowArg::Reg(r)).collect(),
            ret,
        }
    }

    /// The runtime's `what` with the template's registers `args`.
    pub fn runtime(what: &'static str, args: &[Reg], ret: Option<Reg>) -> SlowCall {
        SlowCall {
            path: SlowPath::Runtime(what),
            args: args.iter().map(|&r| SlowArg::Reg(r)).collect(),
            ret,
        }
    }

    /// The stub making this call to `func` (the library's function, or
    /// the JIT's own with the same arguments), keeping `live`; `jit`
    /// supplies the registers of the [`SlowArg::Jit`] arguments, in order.
    /// `None` when `jit` does not hold one register per such argument.
    pub fn stub(&self, func: usize, jit: &[Reg], live: RegSet) -> Option<stub::SlowStub> {
        let mut extra = jit.iter();
        let args = self
            .args
            .iter()
            .map(|a| match a {
                SlowArg::Reg(r) => Some(*r),
                SlowArg::Jit(_) => extra.next().copied(),
            })
            .collect::<Option<Vec<Reg>>>()?;
        if extra.next().is_some() {
            return None;
        }
        Some(stub::SlowStub {
            func,
            args,
            ret: self.ret,
            live,
        })
    }
}

/// A template that cannot be emitted for the values given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateError {
    /// A byte offset or immediate out of the instruction's range or
    /// alignment.
    Offset {
        /// The offset.
        offset: i32,
        /// What the instruction accepts.
        accepts: &'static str,
    },
    /// A mask that is not exactly one bit (AArch64's `tbnz` tests one).
    NotOneBit(u8),
    /// A mask of no bits (a state test that could never take its slow
    /// path).
    NoBit,
    /// A register the template or the ISA refuses for its role.
    Register(RegError),
    /// Fewer temporaries than the ISA's form needs.
    Temps {
        /// What the ISA's form needs.
        needed: usize,
        /// What the description holds.
        given: usize,
    },
    /// A form the ISA's emitter does not have (a pause instruction of the
    /// other ISA, or `auto`, which only the running process resolves; an
    /// immediate card-table base on AArch64).
    Unsupported {
        /// The form.
        what: &'static str,
        /// The ISA.
        isa: Isa,
    },
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TemplateError::Offset { offset, accepts } => write!(f, "offset {offset} out of range: {accepts}"),
            TemplateError::NotOneBit(m) => write!(f, "mask {m:#04x} is not a single bit"),
            TemplateError::NoBit => {
                f.write_str("an empty state mask: the test would never take its slow path")
            }
            TemplateError::Register(e) => e.fmt(f),
            TemplateError::Temps { needed, given } => {
                write!(f, "{given} temporaries; this form needs {needed}")
            }
            TemplateError::Unsupported { what, isa } => {
                write!(f, "{what} is not available on {}", isa.name())
            }
        }
    }
}

impl std::error::Error for TemplateError {}

impl From<RegError> for TemplateError {
    fn from(e: RegError) -> TemplateError {
        TemplateError::Register(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reg::x64::{RDI, RSI};

    #[test]
    fn a_slow_call_becomes_a_stub_with_the_jits_extra_arguments() {
        let call = SlowCall {
            path: SlowPath::Library(LibraryPath::Lrb),
            args: vec![SlowArg::Reg(RDI), SlowArg::Reg(Reg(0)), SlowArg::Jit("field")],
            ret: Some(Reg(0)),
        };
        let s = call.stub(LibraryPath::Lrb.addr(), &[RSI], RegSet::EMPTY).unwrap();
        assert_eq!((s.args, s.ret), (vec![RDI, Reg(0), RSI], Some(Reg(0))));
        assert!(call.stub(0, &[], RegSet::EMPTY).is_none(), "the field is missing");
        assert!(call.stub(0, &[RSI, RSI], RegSet::EMPTY).is_none(), "one too many");
    }
}
