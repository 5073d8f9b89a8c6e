//! The harness the JIT template tests share, one module per concern; each
//! test file holds only its cases and declares `mod common;`.
//!
//! | module | what | built for |
//! |---|---|---|
//! | [`block`] | a `#[repr(C)]` test thread block and its [`fastpath_jit::ThreadLayout`] | every host |
//! | [`real_heap`] | what the real-heap barrier scenarios share: the holder → target graph, the GC-state byte, driving the collector to a phase | every host |
//! | [`gc_world`] | the SATB buffer, collection-set heap (either cell format) and Rust slow paths the SATB/LRB medium paths run against, with their scenarios (and the SATB enqueue on real slots of either reference width) | every host |
//! | [`lrb_real`] | the LRB with the library's slow path on concurrent `shenandoah` heaps of both cell formats (and either reference width) | every host |
//! | [`brooks_world`] | the Brooks write barrier's differential against a Rust model | every host |
//! | [`brooks_real`] | the Brooks write barrier on a concurrent `shenandoah-2017` heap, its stub calling the library | every host |
//! | [`g1_world`] | G1's card barrier differential on twin `g1` heaps | every host |
//! | [`data_world`] | the data load and store templates against the Rust accessors, in every preset and during evacuation | every host |
//! | [`cas_real`] | the reference CAS's false failures retried by the library's slow entry on a concurrent heap (either reference width), and its outcomes on real slots of both widths | every host |
//! | [`ref_slots`] | the data templates' reference loads and stores on real heaps of both reference widths, and reading a slot of either width | every host |
//! | [`lock_world`] | the monitor templates' differential, mixed and stress tests | every host |
//! | [`cases`] | the cases every architecture runs alike, as macros over its builders | every host |
//! | [`frame`] | each ISA's frame of a test function, and a barrier laid out with its medium path out of line, over it | every host |
//! | [`a64`] | a template's AArch64 words, a slow-path stub's words checked against what it declares (emitting is bit manipulation) | every host |
//! | [`x64`] | the x86-64 run harness (label reached, registers after) and the iced-x86 checks of templates and slow-path stubs | x86-64 |
//! | [`aarch64`] | the AArch64 run harness (label reached, result register) | AArch64 |
// Each test binary uses its own part.
#![allow(dead_code)]
// dynasm's dynamic registers (`Rq(n)`, `X(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

pub mod a64;
#[cfg(target_arch = "aarch64")]
pub mod aarch64;
pub mod block;
pub mod brooks_real;
pub mod brooks_world;
pub mod cas_real;
pub mod cases;
pub mod data_world;
pub mod frame;
pub mod g1_world;
pub mod gc_world;
pub mod lock_world;
pub mod lrb_real;
pub mod real_heap;
pub mod ref_slots;
#[cfg(target_arch = "x86_64")]
pub mod x64;
