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
//!   already dirty card). A template that finishes an access after its
//!   slow path ([`DataStore`] under the Brooks write barrier) binds `done`
//!   itself, before the access: the stub resumes there, and the JIT binds
//!   nothing.
//! - It writes only [`Template::clobbers`] and the flags (RFLAGS, NZCV).
//! - Its common path is at most [`Template::budget`] instructions, checked
//!   by decoding (x86-64, iced-x86) or counting words (AArch64) in the tests.
//! - A template that loads, stores or CASes a reference slot takes the
//!   heap's width (`ObjectLayout::ref_width`: [`DataWidth::Ref`],
//!   [`CasRef::refs`], [`SatbEnqueue::refs`]) and hands out and takes
//!   addresses in either width: a compressed slot is decoded after its
//!   load and encoded before its store.
//! - Its shared-memory protocol is the Rust fast path's it mirrors: plain
//!   loads of thread-private state, and for the monitor templates and the
//!   reference CAS one CAS on shared memory (the only shared write).
//!
//! | file | templates |
//! |---|---|
//! | [`thread`] | thread-block tests: safepoint poll, SATB and LRB idle tests, TLAB bump |
//! | [`lock`] | lightweight monitor enter and exit, the enter guessing the header word, and the exit expecting a register's word |
//! | [`barrier`] | Brooks read and write barriers and the stored value's resolution, card post-barrier (plain and conditional), G1 filtered card post-barrier, reference CAS |
//! | [`data`] | data loads and stores (fields and elements, 1 to 8 bytes) with the barrier the set needs on data |
//! | [`gc_medium`] | the SATB enqueue and LRB collection-set medium paths, out of line after the idle tests |
//! | [`spin`] | on-spin-wait |
//! | [`stub`] | the out-of-line slow-path stub |
//! | `contract.rs` (its items re-exported here) | what every template shares: [`Template`], [`Emit`], [`Emitter`], [`Labels`], [`SlowCall`], [`TemplateError`] |
//!
//! A new template is its description here (a struct and its `Template`
//! impl) and one `Emit` impl in each of `x64/` and `aarch64/`; the C ABI
//! adds a row to its table (ARCHITECTURE.md, "JIT crates").

pub mod barrier;
mod contract;
pub mod data;
pub mod gc_medium;
pub mod lock;
pub mod spin;
pub mod stub;
pub mod thread;

pub use crate::isa::{Arch, Isa};
pub use barrier::{
    BrooksReadBarrier, BrooksStoreVal, BrooksWriteBarrier, CardBase, CardMark, CasRef, G1Card,
};
pub use contract::{Emit, Emitter, Labels, SlowArg, SlowCall, SlowPath, Template, TemplateError};
pub use data::{DataBarrier, DataLoad, DataStore, DataWidth};
pub use gc_medium::{LrbCset, SatbEnqueue};
pub use lock::{LockEnter, LockEnterGuessing, LockExit, LockExitExpecting, LockRegs};
pub use spin::SpinWait;
pub use stub::{EmitStub, SlowStub, StubError};
pub use thread::{GcBarrier, GcStateTest, SafepointPoll, TlabAlloc};
