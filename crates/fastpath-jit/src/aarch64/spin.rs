//! On-spin-wait for AArch64: `ISB` (HotSpot's choice on Neoverse),
//! `YIELD`, `NOP` or `SB`, repeated; `none` emits nothing. Clobbers nothing.
//! The instruction words are emitted directly (fixed encodings, no
//! operands).

use fastpath::spin::strategy::{PauseInstruction, SpinPause};

use super::{Aarch64Asm, Labels, Template, TemplateError};
use crate::reg::RegSet;

/// `ISB` (`isb sy`).
pub const ISB: u32 = 0xD503_3FDF;
/// `YIELD`.
pub const YIELD: u32 = 0xD503_203F;
/// `NOP`.
pub const NOP: u32 = 0xD503_201F;
/// `SB` (FEAT_SB).
pub const SB: u32 = 0xD503_30FF;

/// The pause template for one AArch64 instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpinWait {
    word: Option<u32>,
    repeat: u8,
}

impl SpinWait {
    /// The process's configured pause (`fastpath::spin::active()`), when
    /// this process runs on AArch64.
    #[cfg(target_arch = "aarch64")]
    pub fn configured() -> SpinWait {
        SpinWait::for_instruction(fastpath::spin::active())
            .expect("the active pause on AArch64 is an AArch64 one")
    }

    /// The template for an already resolved pause (emitting for another
    /// machine: whether its CPU has FEAT_SB is the caller's knowledge;
    /// `fastpath::spin` checks it for the running process).
    pub fn for_instruction(pause: SpinPause) -> Result<SpinWait, TemplateError> {
        let word = match pause.instruction {
            PauseInstruction::Isb => Some(ISB),
            PauseInstruction::Yield => Some(YIELD),
            PauseInstruction::Nop => Some(NOP),
            PauseInstruction::Sb => Some(SB),
            PauseInstruction::None => None,
            other => return Err(TemplateError::NotAarch64(other.name())),
        };
        Ok(SpinWait {
            word,
            repeat: pause.repeat,
        })
    }
}

impl Template for SpinWait {
    fn name(&self) -> &'static str {
        "on-spin-wait"
    }
    fn clobbers(&self) -> RegSet {
        RegSet::EMPTY
    }
    fn budget(&self) -> usize {
        usize::from(self.repeat) * usize::from(self.word.is_some())
    }
    fn emit<A: Aarch64Asm>(&self, ops: &mut A, _labels: Labels) -> Result<(), TemplateError> {
        if let Some(w) = self.word {
            for _ in 0..self.repeat {
                ops.push_u32(w);
            }
        }
        Ok(())
    }
}
