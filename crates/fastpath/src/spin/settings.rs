//! The `FASTPATH_SPIN_PAUSE` setting and the resolution of `auto`.
//!
//! Where it sits: between `crate::setting` (parsing, validation, the
//! process-wide value) and the pause strategies of this module's
//! `strategy.rs`: [`SpinPause`] (an instruction from the table
//! [`PauseInstruction`], and a repeat count) is what a configuration says;
//! [`SpinPause::resolve`] checks it against a CPU and turns `auto` into a
//! concrete instruction; `super::pause` runs the resolved value.
//!
//! `auto` is resolved by [`SpinPause::auto_for`], a pure function of the CPU
//! description, following HotSpot's ergonomics (openjdk/jdk mainline,
//! `src/hotspot/cpu/aarch64/vm_version_aarch64.cpp`):
//! - Arm Ltd. (implementer 0x41) Neoverse N1 0xd0c, N2 0xd49, V1 0xd40,
//!   V2 0xd4f: `OnSpinWaitInst=isb`, `OnSpinWaitInstCount=1`;
//! - Ampere (implementer 0xc0) AmpereOne 0xac3, 1A 0xac4, 1B 0xac5:
//!   `isb`, count 2;
//! - every other AArch64 core: HotSpot's flag default, `none`
//!   (`globals_aarch64.hpp`: `OnSpinWaitInst` defaults to `"none"`);
//! - x86-64: `pause` (HotSpot's `SpinPause` is `rep; nop` and C2's
//!   `onSpinWait` intrinsic emits PAUSE). Never `tpause`: it is opt-in.
//!
//! HotSpot's `model_is()` also matches the second core type of a
//! big.LITTLE system (`_model2`); `CpuInfo` carries one MIDR, so this
//! resolution looks at that one.
//!
//! Under KVM, PAUSE does not exit to the hypervisor per instruction: only
//! a long run of PAUSEs does, and that exit is the point (the host may run
//! the lock holder). On Intel that is pause-loop exiting (a loop longer than
//! `ple_window`, 4096 cycles by default); on AMD, the pause filter (3000
//! PAUSEs, `pause_filter_count`, each within `pause_filter_thresh` = 128
//! cycles of the last), so on this project's AMD guest a spin of more than
//! ~3000 back-to-back PAUSEs may be descheduled by the host. So `auto` never
//! picks an instruction that traps on every call.

use core::fmt;
use std::str::FromStr;

use crate::cpu::{CpuInfo, Feature};
use crate::setting::{
    self, parse_choice, refused, validate_choice, Choice, Choices, ConfigError, ProcessValue, Setting,
    Variable,
};

/// Which instruction a spin-wait iteration executes. The table of values
/// ([`Choices::TABLE`]) is the one place names, architectures and CPUs are
/// listed; [`SpinPause`] adds the repeat count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PauseInstruction {
    /// The best choice for this CPU, resolved by [`SpinPause::auto_for`].
    #[default]
    Auto,
    /// Nothing: a bare busy loop, the baseline.
    None,
    /// x86 PAUSE.
    Pause,
    /// x86 TPAUSE with a short TSC deadline (WAITPKG).
    Tpause,
    /// AArch64 ISB.
    Isb,
    /// AArch64 YIELD.
    Yield,
    /// AArch64 NOP.
    Nop,
    /// AArch64 SB (FEAT_SB).
    Sb,
}

const X86: bool = cfg!(target_arch = "x86_64");
const ARM: bool = cfg!(target_arch = "aarch64");

impl Choices for PauseInstruction {
    const VAR: &'static str = "FASTPATH_SPIN_PAUSE";
    const TABLE: &'static [Choice<Self>] = &[
        Choice::new(PauseInstruction::Auto, "auto", true, "every CPU"),
        Choice::new(PauseInstruction::None, "none", true, "every CPU"),
        Choice::new(PauseInstruction::Pause, "pause", X86, "every x86-64 CPU"),
        Choice::new(
            PauseInstruction::Tpause,
            "tpause",
            X86,
            "x86-64 CPUs with WAITPKG (Intel Tremont, Alder Lake, Sapphire Rapids and later; no AMD part)",
        ),
        Choice::new(PauseInstruction::Isb, "isb", ARM, "every aarch64 CPU"),
        Choice::new(PauseInstruction::Yield, "yield", ARM, "every aarch64 CPU"),
        Choice::new(PauseInstruction::Nop, "nop", ARM, "every aarch64 CPU"),
        Choice::new(
            PauseInstruction::Sb,
            "sb",
            ARM,
            "aarch64 CPUs with FEAT_SB (Armv8.5: Neoverse V1/N2, Apple M2 and later)",
        ),
    ];

    fn check(self, cpu: &CpuInfo) -> Result<(), String> {
        match self.required_feature() {
            Some(f) if !cpu.has(f) => Err(format!("this CPU lacks {f:?}")),
            _ => Ok(()),
        }
    }
}

setting::choices_api!(PauseInstruction);

impl PauseInstruction {
    /// Whether the instruction exists on the architecture this was built for.
    pub fn exists_on_this_arch(self) -> bool {
        self.choice().on_this_arch
    }

    /// The CPU feature the instruction needs beyond the base architecture.
    pub fn required_feature(self) -> Option<Feature> {
        match self {
            PauseInstruction::Tpause => Some(Feature::Waitpkg),
            PauseInstruction::Sb => Some(Feature::Sb),
            _ => None,
        }
    }
}

/// A spin pause: an instruction and how many times one pause repeats it
/// (HotSpot `-XX:OnSpinWaitInst` and `-XX:OnSpinWaitInstCount`); the value
/// of `FASTPATH_SPIN_PAUSE`, spelled `name` or `name:N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SpinPause {
    /// The instruction.
    pub instruction: PauseInstruction,
    /// Repeat count, 1–99.
    pub repeat: u8,
}

impl Default for SpinPause {
    fn default() -> Self {
        SpinPause {
            instruction: PauseInstruction::Auto,
            repeat: 1,
        }
    }
}

impl SpinPause {
    /// The environment variable.
    pub const VAR: &'static str = <PauseInstruction as Choices>::VAR;
    /// Accepted instruction names on this architecture, each optionally
    /// followed by `:N`, 1 ≤ N ≤ [`SpinPause::MAX_REPEAT`].
    pub const ACCEPTED: &'static [&'static str] = PauseInstruction::ACCEPTED;
    /// Largest accepted repeat count.
    pub const MAX_REPEAT: u8 = 99;

    /// The error for a repeat count outside 1–99.
    fn bad_repeat(value: &str, count: &str) -> ConfigError {
        let mut e = refused(PauseInstruction::Auto, String::new(), crate::cpu::info());
        e.value = value.to_string();
        e.reason = format!("repeat count `{count}` is not a number from 1 to 99");
        e
    }
}

impl Setting for SpinPause {
    const VAR: &'static str = SpinPause::VAR;

    fn parse_setting(value: &str) -> Result<Self, ConfigError> {
        let lower = value.trim().to_ascii_lowercase();
        let (name, count) = match lower.split_once(':') {
            Some((n, c)) => (n, Some(c)),
            None => (lower.as_str(), None),
        };
        let instruction = parse_choice::<PauseInstruction>(name).map_err(|mut e| {
            e.value = value.to_string();
            e
        })?;
        let repeat = match count {
            None => 1,
            Some(c) => match c.parse::<u8>() {
                Ok(n) if (1..=Self::MAX_REPEAT).contains(&n) => n,
                _ => return Err(Self::bad_repeat(value, c)),
            },
        };
        Ok(SpinPause { instruction, repeat })
    }

    /// The repeat count (a `SpinPause` built in code skips the parser), the
    /// architecture and the CPU's features.
    fn validate(self, cpu: &CpuInfo) -> Result<(), ConfigError> {
        if !(1..=Self::MAX_REPEAT).contains(&self.repeat) {
            return Err(Self::bad_repeat(&self.to_string(), &self.repeat.to_string()));
        }
        validate_choice(self.instruction, cpu).map_err(|mut e| {
            e.value = self.to_string();
            e
        })
    }

    fn variable() -> Variable {
        let mut v = setting::variable_for::<PauseInstruction>(
            "what one spin-wait pause executes, repeated N times with :N, 1-99 (HotSpot -XX:OnSpinWaitInst)",
        );
        v.values.push_str("[:N]");
        v
    }
}

impl FromStr for SpinPause {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        Self::parse_setting(s)
    }
}

impl fmt::Display for SpinPause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.repeat == 1 {
            f.write_str(self.instruction.name())
        } else {
            write!(f, "{}:{}", self.instruction.name(), self.repeat)
        }
    }
}

/// The process-wide spin pause (`FASTPATH_SPIN_PAUSE`, or what
/// `config::init`/`set` installed), before `auto` is resolved.
pub(crate) static SPIN_PAUSE: ProcessValue<SpinPause> = ProcessValue::new();

/// MIDR_EL1 implementer (bits 31:24) and part number (bits 15:4).
pub(crate) fn midr_implementer_part(midr: u64) -> (u8, u16) {
    (((midr >> 24) & 0xff) as u8, ((midr >> 4) & 0xfff) as u16)
}

/// HotSpot's AArch64 `auto` for a core with this MIDR (see the module
/// docs). Compiled on every architecture so the rules are tested with MIDR
/// fixtures on the x86-64 build machines.
pub fn aarch64_auto_for_midr(midr: Option<u64>) -> SpinPause {
    const ARM: u8 = 0x41;
    const AMPERE: u8 = 0xc0;
    const NEOVERSE_N1_N2_V1_V2: [u16; 4] = [0xd0c, 0xd49, 0xd40, 0xd4f];
    const AMPERE_1_1A_1B: [u16; 3] = [0xac3, 0xac4, 0xac5];
    let isb = |repeat| SpinPause {
        instruction: PauseInstruction::Isb,
        repeat,
    };
    match midr.map(midr_implementer_part) {
        Some((ARM, part)) if NEOVERSE_N1_N2_V1_V2.contains(&part) => isb(1),
        Some((AMPERE, part)) if AMPERE_1_1A_1B.contains(&part) => isb(2),
        _ => SpinPause {
            instruction: PauseInstruction::None,
            repeat: 1,
        },
    }
}

impl SpinPause {
    /// What `auto` means on `cpu` (for the architecture this was built for).
    pub fn auto_for(cpu: &CpuInfo) -> SpinPause {
        if cfg!(target_arch = "x86_64") {
            SpinPause {
                instruction: PauseInstruction::Pause,
                repeat: 1,
            }
        } else if cfg!(target_arch = "aarch64") {
            aarch64_auto_for_midr(cpu.midr)
        } else {
            SpinPause {
                instruction: PauseInstruction::None,
                repeat: 1,
            }
        }
    }

    /// Resolves `self` for `cpu`: `auto` becomes [`SpinPause::auto_for`]; an
    /// explicit instruction must exist on this architecture and on this CPU,
    /// otherwise the result is the configuration error naming it. The result
    /// never has [`PauseInstruction::Auto`].
    pub fn resolve(self, cpu: &CpuInfo) -> Result<SpinPause, ConfigError> {
        let requested = self;
        // Checked for `auto` too: a `SpinPause` built in code (not parsed) can
        // say `auto` with a count of 0 or 200, and the result promises 1–99.
        requested.validate(cpu)?;
        if requested.instruction == PauseInstruction::Auto {
            let d = SpinPause::auto_for(cpu);
            // An explicit count on `auto` ("auto:3") overrides the ergonomic one,
            // as an explicit -XX:OnSpinWaitInstCount does in HotSpot.
            let repeat = if requested.repeat == 1 {
                d.repeat
            } else {
                requested.repeat
            };
            return Ok(SpinPause { repeat, ..d });
        }
        Ok(requested)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MIDR_EL1 values as Linux prints them in /proc/cpuinfo (implementer,
    /// variant, part, revision) on the machines named.
    const NEOVERSE_N1_GRAVITON2: u64 = 0x413f_d0c1;
    const NEOVERSE_V1_GRAVITON3: u64 = 0x411f_d401;
    const NEOVERSE_N2: u64 = 0x410f_d490;
    const NEOVERSE_V2_GRAVITON4: u64 = 0x410f_d4f1;
    const AMPERE_ONE: u64 = 0xc00f_ac30;
    const AMPERE_ONE_A: u64 = 0xc00f_ac41;
    const AMPERE_ONE_B: u64 = 0xc00f_ac50;
    const AMPERE_ALTRA_IS_N1: u64 = 0x413f_d0c1;
    const CORTEX_A72_RPI4: u64 = 0x410f_d083;
    const APPLE_M1_FIRESTORM: u64 = 0x611f_0230;
    const THUNDERX2: u64 = 0x431f_0af1;

    fn isb(n: u8) -> SpinPause {
        SpinPause {
            instruction: PauseInstruction::Isb,
            repeat: n,
        }
    }

    #[test]
    fn midr_fields() {
        assert_eq!(midr_implementer_part(NEOVERSE_N1_GRAVITON2), (0x41, 0xd0c));
        assert_eq!(midr_implementer_part(AMPERE_ONE_A), (0xc0, 0xac4));
    }

    #[test]
    fn aarch64_defaults_follow_hotspot_ergonomics() {
        for m in [
            NEOVERSE_N1_GRAVITON2,
            NEOVERSE_V1_GRAVITON3,
            NEOVERSE_N2,
            NEOVERSE_V2_GRAVITON4,
            AMPERE_ALTRA_IS_N1,
        ] {
            assert_eq!(aarch64_auto_for_midr(Some(m)), isb(1), "{m:#x}");
        }
        for m in [AMPERE_ONE, AMPERE_ONE_A, AMPERE_ONE_B] {
            assert_eq!(aarch64_auto_for_midr(Some(m)), isb(2), "{m:#x}");
        }
        for m in [
            Some(CORTEX_A72_RPI4),
            Some(APPLE_M1_FIRESTORM),
            Some(THUNDERX2),
            None,
        ] {
            assert_eq!(
                aarch64_auto_for_midr(m).instruction,
                PauseInstruction::None,
                "{m:x?}"
            );
        }
        // The part number alone is not enough: implementer must be Arm.
        assert_eq!(
            aarch64_auto_for_midr(Some(0xc00f_d0c0)).instruction,
            PauseInstruction::None
        );
    }

    #[test]
    fn auto_resolves_per_cpu_and_keeps_an_explicit_count() {
        let mut cpu = crate::cpu::info().clone();
        cpu.midr = Some(AMPERE_ONE);
        let auto = SpinPause::default();
        let r = auto.resolve(&cpu).unwrap();
        assert_ne!(r.instruction, PauseInstruction::Auto);
        #[cfg(target_arch = "x86_64")]
        assert_eq!(r, "pause".parse().unwrap());
        #[cfg(target_arch = "aarch64")]
        assert_eq!(r, isb(2));
        let r3 = SpinPause::resolve(
            SpinPause {
                repeat: 3,
                ..SpinPause::default()
            },
            &cpu,
        )
        .unwrap();
        assert_eq!(r3.repeat, 3);
        // A count outside 1–99 built in code is refused for `auto` too.
        for repeat in [0, 100, 255] {
            let bad = SpinPause {
                repeat,
                ..SpinPause::default()
            };
            let e = bad.resolve(&cpu).unwrap_err();
            assert!(e.reason.contains("1 to 99"), "{e}");
        }
    }
}
