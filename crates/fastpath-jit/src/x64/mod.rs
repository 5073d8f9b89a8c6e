//! The x86-64 emitters: one `Emit<X64Relocation>` per template
//! ([`crate::template`]), writing through dynasm-rs's
//! [`DynasmApi`](dynasmrt::DynasmApi)/[`DynasmLabelApi`] into the JIT's own
//! buffer, and the slow-path stub's.
//!
//! Where it sits: a JIT holds an assembler implementing the dynasm traits
//! with x64 relocations (dynasmrt's `Assembler`, `VecAssembler`, or its
//! own), fills a template's description and calls
//! [`Emit::emit`](crate::Emit::emit) on it; the relocation type selects
//! these emitters. HotSpot's shapes (thread in r15, the CAS operand in
//! rax); each file's header lists its instructions. A template touching a
//! reference slot on a heap with compressed references adds the encoding
//! (`shr`) or decoding (`shl`, or `lea [r*8]` where the flags must live).
//!
//! | file | emitters |
//! |---|---|
//! | [`thread`] | safepoint poll, SATB and LRB idle tests, TLAB bump |
//! | [`lock`] | lightweight monitor enter (and the enter guessing the header word) and exit |
//! | [`barrier`] | Brooks read and write barriers, card post-barrier, G1 filtered card post-barrier, reference CAS |
//! | [`data`] | data loads and stores with the set's barrier (none, the forwarding word, the Brooks write barrier) |
//! | [`gc_medium`] | the SATB enqueue and LRB collection-set medium paths |
//! | [`spin`] | on-spin-wait: PAUSE, none, TPAUSE |
//! | [`stub`] | the out-of-line slow-path stub |

use dynasmrt::x64::X64Relocation;
use dynasmrt::DynasmLabelApi;

pub mod barrier;
pub mod data;
pub mod gc_medium;
pub mod lock;
pub mod spin;
pub mod stub;
pub mod thread;

/// An assembler emitting x86-64 (any dynasm assembler with x64 relocations).
pub trait X64Asm: DynasmLabelApi<Relocation = X64Relocation> {}
impl<T: DynasmLabelApi<Relocation = X64Relocation>> X64Asm for T {}

/// A compressed reference's shift (`fastpath::gc::layout::COMPRESSED_REF_SHIFT`):
/// decoding is `shl` (or an address's scale 8), encoding `shr`.
const COMPRESSED_SHIFT: i8 = fastpath::gc::layout::COMPRESSED_REF_SHIFT as i8;
