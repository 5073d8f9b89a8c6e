//! The contract every template keeps, whatever the ISA: the [`Template`]
//! description a JIT reads (roles, clobbers and budget per ISA, operands,
//! slow call), the [`Emit`] emitter each ISA implements and its object
//! form [`Emitter`], the [`Labels`] a template branches to, the
//! [`SlowCall`] its stub makes, and the [`TemplateError`] it refuses
//! values with. The templates themselves are the sibling files; the
//! module docs (`template/mod.rs`) state the contract in words.

use dynasmrt::{DynasmLabelApi, VecAssembler};

use super::stub::SlowStub;
use crate::isa::{Arch, Isa};
use crate::reg::{Reg, RegError, RegSet};
use crate::slow::LibraryPath;

/// The labels a template branches to; the JIT creates and binds them.
#[derive(Clone, Copy, Debug)]
pub struct Labels {
    /// The uncommon case: where the JIT emits the slow-path stub.
    pub slow: dynasmrt::DynamicLabel,
    /// Where the stub resumes (and where a template's filters that need no
    /// work branch).
    pub done: dynasmrt::DynamicLabel,
}

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
    pub fn stub(&self, func: usize, jit: &[Reg], live: RegSet) -> Option<SlowStub> {
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
        Some(SlowStub {
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
    /// A Brooks barrier (read barrier, write barrier, stored-value
    /// resolution, a data access through the forwarding word) for objects
    /// of the compact cell format, which have no forwarding word: those
    /// barriers are valid only on a heap of the Brooks format (which every
    /// heap whose set has `brooks-rb` or `brooks-wb` has).
    NoForwardingWord,
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
            TemplateError::NoForwardingWord => f.write_str(
                "a Brooks barrier on compact-format objects, which have no forwarding word (Brooks heaps only)",
            ),
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
