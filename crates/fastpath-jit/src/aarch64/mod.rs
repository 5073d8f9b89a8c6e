//! The AArch64 emitters: one `Emit<Aarch64Relocation>` per template
//! ([`crate::template`]), through the same dynasm traits with AArch64
//! relocations (any host can emit them; they run on AArch64), and the
//! slow-path stub's.
//!
//! HotSpot's shapes (`cpu/aarch64`, thread in x28 `rthread`); each file's
//! header lists its instructions:
//!
//! | file | emitters |
//! |---|---|
//! | [`thread`] | safepoint poll and SATB/LRB idle tests (`ldrb; tbnz`, 2), TLAB bump (6) |
//! | [`lock`] | lightweight monitor enter and exit with an LSE CAS, `casa` on enter and `casl` on exit (18 and 18), and the enter guessing the header (17 with fastpath's neutral header) |
//! | [`barrier`] | Brooks read barrier (1) and write barrier (4), card post-barrier (3 with a zero dirty value), G1 filtered card post-barrier (8), reference CAS with `casal` (4; 6 on a compressed heap) |
//! | [`data`] | data loads and stores with the set's barrier: 1 plain, 2 through the forwarding word, 5 with the Brooks write barrier (fastpath's two bits); one `add` more for an element at an offset, one `lsl`/`lsr` more for a compressed reference |
//! | [`gc_medium`] | the SATB enqueue (8; 9 on a compressed heap) and LRB collection-set (12) medium paths |
//! | [`spin`] | on-spin-wait: `ISB`, `YIELD`, `NOP` or `SB`, repeated |
//! | [`stub`] | the slow-path stub: saves the live caller-saved registers and x30 |
//!
//! Immediates the instructions cannot take are [`TemplateError`]s, never
//! a panic: offsets out of range or misaligned, masks of more than one bit.

use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::DynasmLabelApi;

use crate::template::TemplateError;

pub mod barrier;
pub mod data;
pub mod gc_medium;
pub mod lock;
pub mod spin;
pub mod stub;
pub mod thread;

/// An assembler emitting AArch64.
pub trait Aarch64Asm: DynasmLabelApi<Relocation = Aarch64Relocation> {}
impl<T: DynasmLabelApi<Relocation = Aarch64Relocation>> Aarch64Asm for T {}

/// A compressed reference's shift (`fastpath::gc::layout::COMPRESSED_REF_SHIFT`):
/// decoding is `lsl` after a W load, encoding `lsr` before a W store.
const COMPRESSED_SHIFT: u32 = fastpath::gc::layout::COMPRESSED_REF_SHIFT;

/// `off` as a scaled unsigned 12-bit offset of an access of `size` bytes.
fn uimm12(off: i32, size: i32) -> Result<u32, TemplateError> {
    if off >= 0 && off % size == 0 && off / size < 4096 {
        Ok(off as u32)
    } else {
        Err(TemplateError::Offset {
            offset: off,
            accepts: "a non-negative multiple of the access size below 4096 × size",
        })
    }
}

/// `off` as `ldur`'s signed 9-bit offset (a forwarding word's).
fn simm9(off: i32) -> Result<i32, TemplateError> {
    if (-256..256).contains(&off) {
        Ok(off)
    } else {
        Err(TemplateError::Offset {
            offset: off,
            accepts: "-256..256 (LDUR)",
        })
    }
}

/// The bit `tbnz` tests for a one-bit `mask`.
fn one_bit(mask: u8) -> Result<u32, TemplateError> {
    if mask.count_ones() == 1 {
        Ok(mask.trailing_zeros())
    } else {
        Err(TemplateError::NotOneBit(mask))
    }
}

/// `movz`/`movk` halves of a 64-bit immediate, low first.
fn halves(x: u64) -> [u32; 4] {
    [0, 16, 32, 48].map(|s| (x >> s) as u32 & 0xffff)
}
