//! On-spin-wait (`Thread.onSpinWait()`): the configured pause inlined.
//!
//! Where it sits: a JIT's spin loops call [`SpinWait::emit`] where C2
//! emits its `OnSpinWait` node. The instruction is the one
//! `fastpath::spin` resolved for this process (`FASTPATH_SPIN_PAUSE`,
//! `auto` resolved per CPU), repeated its `:N` count:
//! - `pause`: `PAUSE` (`F3 90`), clobbers nothing;
//! - `none`: no instruction (the baseline);
//! - `tpause`: `rdtsc; add eax, 128; adc edx, 0; mov ecx, 1; tpause ecx`
//!   (C0.1 with a 128-tick deadline, as `fastpath::spin::Tpause`), clobbers
//!   rax, rcx, rdx; refused unless the CPU has WAITPKG (a value error,
//!   never `#UD`).

use dynasmrt::dynasm;
use fastpath::config::ConfigError;
use fastpath::spin::strategy::{PauseInstruction, SpinPause};

/// TSC ticks to the TPAUSE deadline: `fastpath::spin::Tpause::DEADLINE_TICKS`
/// (about one PAUSE), so template and Rust pause alike.
pub const TPAUSE_DEADLINE_TICKS: i32 = 128;

use super::{Labels, Template, X64Asm};
use crate::reg::{x64::*, RegSet};

/// The pause template, for one resolved strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpinWait {
    pause: SpinPause,
}

impl SpinWait {
    /// The process's configured pause (`fastpath::spin::active()`).
    pub fn configured() -> SpinWait {
        SpinWait {
            pause: fastpath::spin::active(),
        }
    }

    /// `pause` resolved (`auto`) and checked against this CPU; an
    /// instruction this CPU or architecture lacks is the configuration error
    /// `fastpath::spin` gives for the same request.
    pub fn new(pause: SpinPause) -> Result<SpinWait, ConfigError> {
        let cpu = fastpath::cpu::info();
        let pause = fastpath::spin::strategy::resolve(pause, cpu)?;
        #[cfg(target_arch = "x86_64")]
        if pause.instruction == PauseInstruction::Tpause {
            // The same proof `fastpath::spin` requires before executing it.
            fastpath::spin::Tpause::new(cpu)?;
        }
        Ok(SpinWait { pause })
    }

    /// The strategy emitted.
    pub fn pause(&self) -> SpinPause {
        self.pause
    }

    fn per_pause(&self) -> usize {
        match self.pause.instruction {
            PauseInstruction::Tpause => 5,
            PauseInstruction::None => 0,
            _ => 1,
        }
    }
}

impl Template for SpinWait {
    fn name(&self) -> &'static str {
        "on-spin-wait"
    }

    fn clobbers(&self) -> RegSet {
        match self.pause.instruction {
            PauseInstruction::Tpause => RegSet::of(&[RAX, RCX, RDX]),
            _ => RegSet::EMPTY,
        }
    }

    fn budget(&self) -> usize {
        self.per_pause() * usize::from(self.pause.repeat)
    }

    /// Never branches: `labels` is unused.
    fn emit<A: X64Asm>(&self, ops: &mut A, _labels: Labels) {
        for _ in 0..self.pause.repeat {
            match self.pause.instruction {
                PauseInstruction::Pause => dynasm!(ops ; .arch x64 ; pause),
                PauseInstruction::Tpause => {
                    dynasm!(ops
                        ; .arch x64
                        ; rdtsc
                        ; add eax, TPAUSE_DEADLINE_TICKS
                        ; adc edx, 0
                        ; mov ecx, 1
                    );
                    // TPAUSE ecx: 66 0F AE /6, ModRM 11 110 001.
                    ops.extend([0x66u8, 0x0F, 0xAE, 0xF1]);
                }
                // `none`, and (unreachable after `resolve` on x86-64) the
                // AArch64 instructions: nothing.
                _ => {}
            }
        }
    }
}
