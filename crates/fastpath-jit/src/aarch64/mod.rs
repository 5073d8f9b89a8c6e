//! AArch64 templates, emitted through the same dynasm traits with
//! AArch64 relocations (any host can emit them; they run on AArch64).
//!
//! HotSpot's shapes (`cpu/aarch64`, thread in x28 `rthread`):
//! - on-spin-wait: `ISB`, `YIELD`, `NOP` or `SB` (`OnSpinWaitInst`), repeated;
//! - safepoint poll and SATB/LRB idle tests: `ldrb wtmp, [thread, #off];
//!   tbnz wtmp, #bit, slow` (2);
//! - Brooks read barrier: `ldur obj, [obj, #fwd]` (1);
//! - card post-barrier: `lsr addr, addr, #shift; ldr tmp, [thread, #base];
//!   strb wzr, [tmp, addr]` (3 when the dirty value is 0, as HotSpot's;
//!   one `mov` more otherwise; the conditional form adds `ldrb; cbz done`).
//! - G1 filtered card post-barrier: `eor; lsr; cbz done; cbz val, done;
//!   lsr; ldr; ldrb; cbnz slow` (8; HotSpot's shape, which materializes
//!   the base with `load_byte_map_base` and adds it before its `ldrb`).
//! - reference CAS: `casal` (4 on success), TLAB bump (6).
//! - the SATB enqueue (8) and LRB collection-set (12) medium paths
//!   ([`gc_medium`]), out of line after the idle tests.
//! - lightweight monitor enter and exit ([`lock`]): HotSpot's shape with an
//!   LSE CAS, `casa` on enter and `casl` on exit (18 and 18 instructions).
//! - the out-of-line slow-path stub ([`stub`]): saves the live caller-saved
//!   registers and x30, calls the library's `extern "C"` slow path.
//!
//! Same contract as [`crate::x64`]: common path falls through, `slow` for
//! the uncommon case, writes only the declared clobbers and NZCV.

use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::DynasmLabelApi;

use crate::reg::RegSet;
pub use crate::Labels;

pub mod barrier;
pub mod gc_medium;
pub mod lock;
pub mod spin;
pub mod stub;
pub mod thread;

pub use crate::reg::LockRegError;
pub use barrier::{BrooksReadBarrier, BrooksStoreVal, BrooksWriteBarrier, CardMark, CasRef, G1Card};
pub use gc_medium::{CsetMap, LrbCset, SatbEnqueue, SatbQueueLayout};
pub use lock::{ExpectingError, LockEnter, LockExit, LockRegs};
pub use spin::SpinWait;
pub use stub::SlowStub;
pub use thread::{GcStateTest, SafepointPoll, TlabAlloc};

/// The thread register HotSpot uses on AArch64 (`rthread`).
pub const RTHREAD: crate::reg::Reg = crate::reg::Reg(28);

/// An assembler emitting AArch64.
pub trait Aarch64Asm: DynasmLabelApi<Relocation = Aarch64Relocation> {}
impl<T: DynasmLabelApi<Relocation = Aarch64Relocation>> Aarch64Asm for T {}

/// An AArch64 template that cannot be emitted for the values given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateError {
    /// A byte-offset out of the instruction's immediate range or alignment.
    Offset {
        /// The offset.
        offset: i32,
        /// What the instruction accepts.
        accepts: &'static str,
    },
    /// A mask that is not exactly one bit (`tbnz` tests one).
    NotOneBit(u8),
    /// A mask of no bits (a state test that could never take its slow
    /// path).
    NoBit,
    /// A pause instruction that is not an AArch64 one (or `auto`, which
    /// only the running process can resolve).
    NotAarch64(&'static str),
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TemplateError::Offset { offset, accepts } => write!(f, "offset {offset} out of range: {accepts}"),
            TemplateError::NotOneBit(m) => write!(f, "mask {m:#04x} is not a single bit"),
            TemplateError::NoBit => {
                f.write_str("an empty state mask: the test would never take its slow path")
            }
            TemplateError::NotAarch64(n) => write!(f, "pause `{n}` is not an AArch64 instruction"),
        }
    }
}

impl std::error::Error for TemplateError {}

/// A fast path the JIT inlines (AArch64).
pub trait Template {
    /// Short name for reports.
    fn name(&self) -> &'static str;
    /// The registers the template may write (NZCV always).
    fn clobbers(&self) -> RegSet;
    /// Most instructions on the common path.
    fn budget(&self) -> usize;
    /// Emits the fast path at the assembler's current offset.
    fn emit<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError>;
}

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
