//! Pause strategies as types.
//!
//! Where it sits: between the resolved `FASTPATH_SPIN_PAUSE` setting
//! ([`SpinPause`], in `settings.rs`) and the ISA layer ([`crate::arch`]),
//! which emits the instructions. Each strategy is a zero-sized type
//! implementing [`PauseStrategy`], so a spin loop generic over
//! `S: PauseStrategy` compiles to exactly the strategy's instructions, and
//! the lab can compare strategies in one process without touching the
//! process-wide choice that [`super::pause`] dispatches on.
//!
//! Theory of operation: an instruction that the CPU may lack (x86 `TPAUSE`,
//! AArch64 `SB`) is a *capability*: its type has a private field and can
//! only be obtained from a constructor that checked [`CpuInfo`], so safe code
//! can never execute it on a CPU without the feature (a configuration error,
//! never SIGILL). Instructions of the base architecture (`PAUSE`, `ISB`,
//! `YIELD`, `NOP`) are plain unit structs.

use core::fmt;

use crate::cpu::{CpuInfo, Feature};
use crate::setting::{refused, ConfigError};

use super::settings::{PauseInstruction, SpinPause};

/// One spin-wait pause, as a zero-sized value.
///
/// # Safety
/// Implementations promise that [`PauseStrategy::pause`] only executes
/// instructions the running CPU implements whenever a value of the type
/// exists. Types whose instruction needs an optional feature therefore keep
/// their constructor private to a checked path, and
/// [`PauseStrategy::new_unchecked`] is `unsafe`.
pub unsafe trait PauseStrategy: Copy + Send + Sync + fmt::Debug + 'static {
    /// What this strategy executes, as the configuration spells it.
    fn describe(self) -> SpinPause;

    /// One pause.
    fn pause(self);

    /// A value of the strategy without checking the CPU.
    ///
    /// # Safety
    /// The running CPU implements the strategy's instruction (for `Tpause`,
    /// WAITPKG; for `Sb`, FEAT_SB).
    unsafe fn new_unchecked() -> Self;
}

/// No instruction at all: the spin loop's body is just its condition check.
/// The baseline every table compares against.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoPause;

// SAFETY: executes nothing.
unsafe impl PauseStrategy for NoPause {
    fn describe(self) -> SpinPause {
        SpinPause {
            instruction: PauseInstruction::None,
            repeat: 1,
        }
    }
    #[inline(always)]
    fn pause(self) {}
    unsafe fn new_unchecked() -> Self {
        NoPause
    }
}

/// x86 `PAUSE`: present on every x86-64 CPU.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pause;

// SAFETY: PAUSE is part of the x86-64 base architecture.
#[cfg(target_arch = "x86_64")]
unsafe impl PauseStrategy for Pause {
    fn describe(self) -> SpinPause {
        SpinPause {
            instruction: PauseInstruction::Pause,
            repeat: 1,
        }
    }
    #[inline(always)]
    fn pause(self) {
        crate::arch::x86_64::pause();
    }
    unsafe fn new_unchecked() -> Self {
        Pause
    }
}

/// x86 `TPAUSE` in the light C0.1 state until the TSC passes "now +
/// [`Tpause::DEADLINE_TICKS`]". Only obtainable through [`Tpause::new`],
/// which checks WAITPKG.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tpause {
    _waitpkg_checked: (),
}

#[cfg(target_arch = "x86_64")]
impl Tpause {
    /// How far ahead the deadline is, in TSC ticks: 128 ticks is 40–60 ns at
    /// the 2–3 GHz nominal TSC rates of current parts, about one
    /// Skylake-and-later PAUSE (~140 core cycles), so `tpause` and `pause`
    /// rows compare like with like.
    pub const DEADLINE_TICKS: u64 = 128;

    /// The strategy, if both `cpu` and the CPU this process runs on
    /// ([`crate::cpu::info`]) have WAITPKG; otherwise the configuration
    /// error the process reports instead of executing an undefined
    /// instruction.
    ///
    /// `cpu` can only narrow the answer (a test's fixture without the
    /// feature): [`CpuInfo`]'s fields are public, so a description that
    /// claims WAITPKG proves nothing, and safe code must not be able to
    /// reach `TPAUSE` through one.
    pub fn new(cpu: &CpuInfo) -> Result<Tpause, ConfigError> {
        if cpu.has(Feature::Waitpkg) && crate::cpu::info().has(Feature::Waitpkg) {
            Ok(Tpause { _waitpkg_checked: () })
        } else {
            Err(lacks("tpause", PauseInstruction::Tpause))
        }
    }
}

// SAFETY: a `Tpause` exists only after `Tpause::new` saw WAITPKG on the
// running CPU (`cpu::info()`, from CPUID), or through `new_unchecked`, whose
// caller promises it.
#[cfg(target_arch = "x86_64")]
unsafe impl PauseStrategy for Tpause {
    fn describe(self) -> SpinPause {
        SpinPause {
            instruction: PauseInstruction::Tpause,
            repeat: 1,
        }
    }
    #[inline(always)]
    fn pause(self) {
        let deadline = crate::arch::x86_64::rdtsc().wrapping_add(Self::DEADLINE_TICKS);
        // SAFETY: a value of this type proves WAITPKG (see the impl's SAFETY).
        unsafe { crate::arch::x86_64::tpause(deadline, false) };
    }
    unsafe fn new_unchecked() -> Self {
        Tpause { _waitpkg_checked: () }
    }
}

/// AArch64 `ISB` (HotSpot `OnSpinWaitInst=isb`). Tested under emulation only (ARCHITECTURE.md, "aarch64: what is verified").
#[cfg(target_arch = "aarch64")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Isb;

// SAFETY: ISB is in the AArch64 base architecture.
#[cfg(target_arch = "aarch64")]
unsafe impl PauseStrategy for Isb {
    fn describe(self) -> SpinPause {
        SpinPause {
            instruction: PauseInstruction::Isb,
            repeat: 1,
        }
    }
    #[inline(always)]
    fn pause(self) {
        crate::arch::aarch64::isb();
    }
    unsafe fn new_unchecked() -> Self {
        Isb
    }
}

/// AArch64 `YIELD`: a NOP on most cores. Tested under emulation only (ARCHITECTURE.md, "aarch64: what is verified").
#[cfg(target_arch = "aarch64")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Yield;

// SAFETY: YIELD is a hint in the AArch64 base architecture.
#[cfg(target_arch = "aarch64")]
unsafe impl PauseStrategy for Yield {
    fn describe(self) -> SpinPause {
        SpinPause {
            instruction: PauseInstruction::Yield,
            repeat: 1,
        }
    }
    #[inline(always)]
    fn pause(self) {
        crate::arch::aarch64::yield_hint();
    }
    unsafe fn new_unchecked() -> Self {
        Yield
    }
}

/// AArch64 `NOP`. Tested under emulation only (ARCHITECTURE.md, "aarch64: what is verified").
#[cfg(target_arch = "aarch64")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Nop;

// SAFETY: NOP is in the AArch64 base architecture.
#[cfg(target_arch = "aarch64")]
unsafe impl PauseStrategy for Nop {
    fn describe(self) -> SpinPause {
        SpinPause {
            instruction: PauseInstruction::Nop,
            repeat: 1,
        }
    }
    #[inline(always)]
    fn pause(self) {
        crate::arch::aarch64::nop();
    }
    unsafe fn new_unchecked() -> Self {
        Nop
    }
}

/// AArch64 `SB` (FEAT_SB). Only obtainable through [`Sb::new`], which checks
/// HWCAP_SB. Tested under emulation only (ARCHITECTURE.md, "aarch64: what is verified").
#[cfg(target_arch = "aarch64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sb {
    _sb_checked: (),
}

#[cfg(target_arch = "aarch64")]
impl Sb {
    /// The strategy, if both `cpu` and the CPU this process runs on
    /// ([`crate::cpu::info`]) have FEAT_SB. As for [`Tpause::new`], `cpu`
    /// can only narrow the answer: a hand-edited description proves nothing.
    pub fn new(cpu: &CpuInfo) -> Result<Sb, ConfigError> {
        if cpu.has(Feature::Sb) && crate::cpu::info().has(Feature::Sb) {
            Ok(Sb { _sb_checked: () })
        } else {
            Err(lacks("sb", PauseInstruction::Sb))
        }
    }
}

// SAFETY: an `Sb` exists only after `Sb::new` saw HWCAP_SB on the running
// CPU (`cpu::info()`), or through `new_unchecked`, whose caller promises it.
#[cfg(target_arch = "aarch64")]
unsafe impl PauseStrategy for Sb {
    fn describe(self) -> SpinPause {
        SpinPause {
            instruction: PauseInstruction::Sb,
            repeat: 1,
        }
    }
    #[inline(always)]
    fn pause(self) {
        // SAFETY: a value of this type proves FEAT_SB (see the impl's SAFETY).
        unsafe { crate::arch::aarch64::sb() };
    }
    unsafe fn new_unchecked() -> Self {
        Sb { _sb_checked: () }
    }
}

/// `S` executed `N` times per pause (HotSpot `OnSpinWaitInstCount`), with
/// `N` a compile-time constant from 1 to 99 so the sequence is unrolled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Repeat<S, const N: u8>(pub S);

// SAFETY: executes only what `S` executes, and a `Repeat` holds an `S`.
unsafe impl<S: PauseStrategy, const N: u8> PauseStrategy for Repeat<S, N> {
    fn describe(self) -> SpinPause {
        SpinPause {
            repeat: N,
            ..self.0.describe()
        }
    }
    #[inline(always)]
    fn pause(self) {
        const { assert!(N >= 1 && N <= SpinPause::MAX_REPEAT, "repeat count is 1..=99") };
        for _ in 0..N {
            self.0.pause();
        }
    }
    unsafe fn new_unchecked() -> Self {
        // SAFETY: forwarded: the caller vouches for `S`'s instruction.
        Repeat(unsafe { S::new_unchecked() })
    }
}

/// The process-wide strategy: [`super::pause`], whatever was configured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConfiguredPause;

// SAFETY: `super::pause` only runs validated strategies (see `spin::active`).
unsafe impl PauseStrategy for ConfiguredPause {
    fn describe(self) -> SpinPause {
        super::active()
    }
    #[inline(always)]
    fn pause(self) {
        super::pause();
    }
    unsafe fn new_unchecked() -> Self {
        ConfiguredPause
    }
}

fn lacks(name: &str, instruction: PauseInstruction) -> ConfigError {
    let why = match instruction.required_feature() {
        Some(f) => format!("this CPU lacks {f:?}"),
        None => "this CPU lacks it".to_string(),
    };
    let mut e = refused(instruction, why, crate::cpu::info());
    e.value = name.to_string();
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn tpause_is_a_configuration_error_without_waitpkg() {
        let mut cpu = crate::cpu::info().clone();
        cpu.features = Default::default();
        let e = SpinPause::resolve("tpause:2".parse().unwrap(), &cpu).unwrap_err();
        assert_eq!(e.setting, "FASTPATH_SPIN_PAUSE");
        assert!(e.reason.contains("Waitpkg"), "{e}");
        assert!(e.to_string().contains("accepted"), "{e}");
        assert!(Tpause::new(&cpu).is_err());
        // On this machine (no WAITPKG, checked by CPUID) the same holds for
        // the real CPU description; elsewhere the type is obtainable.
        let real = crate::cpu::info();
        assert_eq!(Tpause::new(real).is_ok(), real.has(Feature::Waitpkg));
        assert_eq!(
            SpinPause::resolve("tpause".parse().unwrap(), real).is_ok(),
            real.has(Feature::Waitpkg)
        );
        // Instructions of another architecture are refused even when built
        // by hand rather than parsed.
        let isb = SpinPause {
            instruction: PauseInstruction::Isb,
            repeat: 1,
        };
        assert!(SpinPause::resolve(isb, &cpu)
            .unwrap_err()
            .reason
            .contains("does not exist"));
        let bad = SpinPause {
            instruction: PauseInstruction::Pause,
            repeat: 0,
        };
        assert!(SpinPause::resolve(bad, &cpu).is_err());
    }

    /// `CpuInfo` has public fields, so a description can claim a feature
    /// the CPU lacks; the checked constructors must not believe it, or safe
    /// code could execute `TPAUSE`/`SB` and die of SIGILL.
    #[test]
    fn a_forged_cpu_description_does_not_unlock_an_optional_instruction() {
        let real = crate::cpu::info();
        let mut forged = real.clone();
        #[cfg(target_arch = "x86_64")]
        {
            forged.features.insert(Feature::Waitpkg);
            assert_eq!(Tpause::new(&forged).is_ok(), real.has(Feature::Waitpkg));
        }
        #[cfg(target_arch = "aarch64")]
        {
            forged.features.insert(Feature::Sb);
            assert_eq!(Sb::new(&forged).is_ok(), real.has(Feature::Sb));
        }
        let _ = &mut forged;
    }

    #[test]
    fn describe_reports_instruction_and_count() {
        assert_eq!(NoPause.describe().to_string(), "none");
        #[cfg(target_arch = "x86_64")]
        {
            assert_eq!(Repeat::<Pause, 4>(Pause).describe().to_string(), "pause:4");
            Repeat::<Pause, 3>(Pause).pause();
        }
    }
}
