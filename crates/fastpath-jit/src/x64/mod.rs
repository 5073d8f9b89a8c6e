//! x86-64 templates: each fast path emitted through dynasm-rs's
//! [`DynasmApi`](dynasmrt::DynasmApi)/[`DynasmLabelApi`] into the JIT's own buffer.
//!
//! Where it sits: a JIT holds an assembler implementing the dynasm traits
//! (dynasmrt's `Assembler`, `VecAssembler`, or its own), picks registers,
//! makes two dynamic labels and calls [`Template::emit`] where the fast path
//! belongs. Later, with its other out-of-line code, it emits the
//! [`SlowStub`] at `slow` (HotSpot's late expansion: JEP 475's barrier
//! stubs, `C2CodeStub`), which saves what it must, calls the library's
//! `extern "C"` slow path and resumes at `done`.
//!
//! Contract of every template:
//! - The common path falls through; the uncommon case jumps to `slow`;
//!   `done` is where the stub resumes (the JIT binds it, normally right
//!   after the fast path).
//! - It writes only [`Template::clobbers`] and RFLAGS.
//! - Its common path is at most [`Template::budget`] instructions (the
//!   budgets: poll 2, SATB/LRB idle 2, card 3, G1 card 11, Brooks RB 1, Brooks WB 3, monitor enter 15,
//!   monitor exit 12), checked
//!   by decoding the emitted bytes in the tests.
//! - Its shared-memory protocol is the Rust fast path's: plain loads of
//!   thread-private state, and, for the reference CAS and the monitor
//!   templates, one locked `cmpxchg` (the only shared write, as in the
//!   Rust `compare_exchange`).
//!
//! | file | templates |
//! |---|---|
//! | [`spin`] | on-spin-wait: the configured pause (PAUSE, none, TPAUSE) |
//! | [`thread`] | thread-block tests: safepoint poll, SATB and LRB idle tests, TLAB bump |
//! | [`lock`] | lightweight monitor enter and exit |
//! | [`barrier`] | Brooks read and write barriers, card post-barrier (plain and conditional), G1 filtered card post-barrier, reference CAS |
//! | [`gc_medium`] | the SATB enqueue and LRB collection-set medium paths, out of line after the idle tests |
//! | [`stub`] | the out-of-line slow-path stub |

use dynasmrt::x64::X64Relocation;
use dynasmrt::DynasmLabelApi;

use crate::reg::RegSet;

pub mod barrier;
pub mod gc_medium;
pub mod lock;
pub mod spin;
pub mod stub;
pub mod thread;

pub use barrier::{BrooksReadBarrier, BrooksStoreVal, BrooksWriteBarrier, CardMark, CasRef, G1Card};
pub use gc_medium::{CsetMap, LrbCset, SatbEnqueue, SatbQueueLayout};
pub use lock::{LockEnter, LockExit, LockRegError, LockRegs};
pub use spin::SpinWait;
pub use stub::SlowStub;
pub use thread::{GcStateTest, SafepointPoll, TlabAlloc};

/// An assembler emitting x86-64 (any dynasm assembler with x64 relocations).
pub trait X64Asm: DynasmLabelApi<Relocation = X64Relocation> {}
impl<T: DynasmLabelApi<Relocation = X64Relocation>> X64Asm for T {}

pub use crate::Labels;

/// A fast path the JIT inlines.
pub trait Template {
    /// Short name for reports.
    fn name(&self) -> &'static str;
    /// The registers the template may write (RFLAGS always).
    fn clobbers(&self) -> RegSet;
    /// Most instructions on the common path.
    fn budget(&self) -> usize;
    /// Emits the fast path at the assembler's current offset.
    fn emit<A: X64Asm>(&self, ops: &mut A, labels: Labels);
}
