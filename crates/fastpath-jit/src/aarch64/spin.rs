//! AArch64 on-spin-wait ([`crate::template::spin`]): `ISB` (HotSpot's
//! choice on Neoverse), `YIELD`, `NOP` or `SB`, repeated; `none` emits
//! nothing. Clobbers nothing. The instruction words are emitted directly
//! (fixed encodings, no operands).

use dynasmrt::aarch64::Aarch64Relocation;
use fastpath::spin::PauseInstruction;

use super::Aarch64Asm;
use crate::isa::Isa;
use crate::template::Labels;
use crate::template::{Emit, SpinWait, TemplateError};

/// `ISB` (`isb sy`).
pub const ISB: u32 = 0xD503_3FDF;
/// `YIELD`.
pub const YIELD: u32 = 0xD503_203F;
/// `NOP`.
pub const NOP: u32 = 0xD503_201F;
/// `SB` (FEAT_SB).
pub const SB: u32 = 0xD503_30FF;

impl Emit<Aarch64Relocation> for SpinWait {
    /// Never branches: `labels` is unused.
    fn emit_checked<A: Aarch64Asm>(&self, ops: &mut A, _labels: Labels) -> Result<(), TemplateError> {
        let pause = self.pause();
        let word = match pause.instruction {
            PauseInstruction::Isb => ISB,
            PauseInstruction::Yield => YIELD,
            PauseInstruction::Nop => NOP,
            PauseInstruction::Sb => SB,
            PauseInstruction::None => return Ok(()),
            other => {
                return Err(TemplateError::Unsupported {
                    what: other.name(),
                    isa: Isa::Aarch64,
                })
            }
        };
        for _ in 0..pause.repeat {
            ops.push_u32(word);
        }
        Ok(())
    }
}
