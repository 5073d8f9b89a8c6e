//! On-spin-wait (`Thread.onSpinWait()`): a resolved pause strategy inlined
//! where C2 emits its `OnSpinWait` node, repeated its `:N` count. The
//! instructions are each ISA's (`x64/spin.rs`: PAUSE, TPAUSE;
//! `aarch64/spin.rs`: ISB, YIELD, NOP, SB); `none` emits nothing on both.

use fastpath::config::ConfigError;
use fastpath::spin::{PauseInstruction, SpinPause};

use super::contract::{SlowCall, Template};
use crate::isa::Isa;
use crate::reg::{x64, Reg, RegSet};

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
        let pause = pause.resolve(cpu)?;
        #[cfg(target_arch = "x86_64")]
        if pause.instruction == PauseInstruction::Tpause {
            // The same proof `fastpath::spin` requires before executing it.
            fastpath::spin::Tpause::new(cpu)?;
        }
        Ok(SpinWait { pause })
    }

    /// The template for an already resolved pause, unchecked against this
    /// CPU (emitting for another machine: whether its CPU has WAITPKG or
    /// FEAT_SB is the caller's knowledge). An instruction of the other ISA,
    /// or `auto`, is refused when emitted.
    pub fn for_instruction(pause: SpinPause) -> SpinWait {
        SpinWait { pause }
    }

    /// The strategy emitted.
    pub fn pause(&self) -> SpinPause {
        self.pause
    }

    /// Instructions per pause on `isa` (`None`: not an instruction of it).
    pub fn per_pause(&self, isa: Isa) -> Option<usize> {
        use PauseInstruction as P;
        match (isa, self.pause.instruction) {
            (_, P::None) => Some(0),
            (Isa::X64, P::Pause) => Some(1),
            // rdtsc; add; adc; mov; tpause.
            (Isa::X64, P::Tpause) => Some(5),
            (Isa::Aarch64, P::Isb | P::Yield | P::Nop | P::Sb) => Some(1),
            _ => None,
        }
    }
}

impl Template for SpinWait {
    fn name(&self) -> &'static str {
        "on-spin-wait"
    }
    /// x86-64's TPAUSE takes rax, rcx and rdx (its deadline and hint).
    fn operands(&self, isa: Isa) -> Vec<Reg> {
        self.clobbers(isa).iter().collect()
    }
    fn clobbers(&self, isa: Isa) -> RegSet {
        match (isa, self.pause.instruction) {
            (Isa::X64, PauseInstruction::Tpause) => RegSet::of(&[x64::RAX, x64::RCX, x64::RDX]),
            _ => RegSet::EMPTY,
        }
    }
    fn budget(&self, isa: Isa) -> usize {
        self.per_pause(isa).unwrap_or(0) * usize::from(self.pause.repeat)
    }
    /// Never branches.
    fn slow_call(&self) -> Option<SlowCall> {
        None
    }
}
