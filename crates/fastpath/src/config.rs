//! Strategy selection, in the style of HotSpot's `-XX:` flags.
//!
//! Where it sits: the top of the data flow. A runtime (or the lab) picks a
//! locking mode, an instruction-cache sync strategy and a spin pause either
//! from `FASTPATH_*` environment variables or in code; the subsystems read
//! the resolved choice from [`global`] on their slow paths and bake it into
//! their fast paths once.
//!
//! | variable | values | default |
//! |---|---|---|
//! | `FASTPATH_LOCKING_MODE` | `lightweight`, `legacy`, `monitor` | `lightweight` |
//! | `FASTPATH_ICACHE_SYNC` | `auto`, `none`, `clflush`, `clflushopt`, `clwb`, `cpuid`, `serialize`, `iret`; aarch64: `auto`, `none`, `dc-ic` | `auto` |
//! | `FASTPATH_SPIN_PAUSE` | `auto`, `none`, `pause`, `tpause`, `isb`, `yield`, `nop`, `sb`, each optionally `:N` (repeat 1–99) | `auto` |
//!
//! Two ways in:
//! - strict: [`init`] (or [`set`]) parses, validates every requested
//!   instruction against [`crate::cpu::info`], and returns a [`ConfigError`]
//!   naming the bad value and the accepted ones. A runtime calls it at start,
//!   as HotSpot refuses to start on a bad flag; the lab does.
//! - lazy: [`global`] is infallible. If nothing was initialised it runs
//!   [`init`]; on an error it prints the error once to stderr and falls back
//!   to the defaults (which never name an instruction the CPU lacks). It
//!   never panics, because it may be first reached from inside a lock.
//!
//! ```
//! use fastpath::config::{Config, SpinPause};
//! let c = Config::from_lookup(|var| match var {
//!     "FASTPATH_SPIN_PAUSE" => Some("pause:2".to_string()),
//!     _ => None,
//! }).unwrap();
//! assert_eq!(c.spin_pause, "pause:2".parse::<SpinPause>().unwrap());
//! let err = "pasue".parse::<SpinPause>().unwrap_err();
//! assert!(err.to_string().contains("accepted"));
//! ```

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use crate::cpu::{CpuInfo, Feature};

/// A configuration value that was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The setting (the environment variable's name).
    pub setting: &'static str,
    /// The value given.
    pub value: String,
    /// Why it was refused.
    pub reason: String,
    /// The values accepted for this setting.
    pub accepted: &'static [&'static str],
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}={:?}: {}; accepted: {}",
            self.setting,
            self.value,
            self.reason,
            self.accepted.join(", ")
        )
    }
}

impl std::error::Error for ConfigError {}

/// How object monitors are locked (HotSpot `-XX:LockingMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LockingMode {
    /// Fast-locking with a per-thread lock-stack (HotSpot LockingMode=2,
    /// `LM_LIGHTWEIGHT`).
    #[default]
    Lightweight,
    /// Stack-locking with displaced headers (HotSpot LockingMode=1, `LM_LEGACY`).
    Legacy,
    /// Every lock is a full monitor (HotSpot LockingMode=0, `LM_MONITOR`).
    Monitor,
}

impl LockingMode {
    /// The environment variable.
    pub const VAR: &'static str = "FASTPATH_LOCKING_MODE";
    /// Accepted spellings.
    pub const ACCEPTED: &'static [&'static str] = &["lightweight", "legacy", "monitor"];

    /// The canonical name.
    pub fn name(self) -> &'static str {
        match self {
            LockingMode::Lightweight => "lightweight",
            LockingMode::Legacy => "legacy",
            LockingMode::Monitor => "monitor",
        }
    }
}

impl FromStr for LockingMode {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "lightweight" | "2" => Ok(LockingMode::Lightweight),
            "legacy" | "1" => Ok(LockingMode::Legacy),
            "monitor" | "0" => Ok(LockingMode::Monitor),
            _ => Err(unknown(Self::VAR, s, Self::ACCEPTED)),
        }
    }
}

impl fmt::Display for LockingMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How newly written code is made visible to instruction fetch
/// (HotSpot `-XX:X86ICacheSync`, extended).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ICacheSync {
    /// The best choice for this CPU, resolved by `code`.
    #[default]
    Auto,
    /// No flush at all: the baseline (x86 snoops its instruction cache, so
    /// this is what the hardware guarantees for same-thread execution).
    None,
    /// MFENCE; CLFLUSH per line; MFENCE (X86ICacheSync=1).
    Clflush,
    /// SFENCE; CLFLUSHOPT per line; SFENCE (X86ICacheSync=2).
    Clflushopt,
    /// SFENCE; CLWB per line; SFENCE (X86ICacheSync=3).
    Clwb,
    /// One CPUID (X86ICacheSync=4).
    Cpuid,
    /// One SERIALIZE (X86ICacheSync=5).
    Serialize,
    /// One IRET to the next instruction: architecturally serializing, no VM
    /// exit, no SERIALIZE needed (Linux's `sync_core()` fallback). Refused
    /// while a CET user shadow stack is active.
    Iret,
    /// AArch64: DC CVAU, DSB ISH, IC IVAU, DSB ISH, ISB (as compiler-rt's
    /// `__clear_cache`).
    DcIc,
}

impl ICacheSync {
    /// The environment variable.
    pub const VAR: &'static str = "FASTPATH_ICACHE_SYNC";
    /// Accepted spellings on x86-64.
    #[cfg(not(target_arch = "aarch64"))]
    pub const ACCEPTED: &'static [&'static str] = &[
        "auto",
        "none",
        "clflush",
        "clflushopt",
        "clwb",
        "cpuid",
        "serialize",
        "iret",
    ];
    /// Accepted spellings on aarch64.
    #[cfg(target_arch = "aarch64")]
    pub const ACCEPTED: &'static [&'static str] = &["auto", "none", "dc-ic"];

    /// The canonical name.
    pub fn name(self) -> &'static str {
        match self {
            ICacheSync::Auto => "auto",
            ICacheSync::None => "none",
            ICacheSync::Clflush => "clflush",
            ICacheSync::Clflushopt => "clflushopt",
            ICacheSync::Clwb => "clwb",
            ICacheSync::Cpuid => "cpuid",
            ICacheSync::Serialize => "serialize",
            ICacheSync::Iret => "iret",
            ICacheSync::DcIc => "dc-ic",
        }
    }

    /// The CPU feature this strategy executes, if any.
    pub fn required_feature(self) -> Option<Feature> {
        match self {
            ICacheSync::Clflush => Some(Feature::Clflush),
            ICacheSync::Clflushopt => Some(Feature::Clflushopt),
            ICacheSync::Clwb => Some(Feature::Clwb),
            ICacheSync::Serialize => Some(Feature::Serialize),
            _ => None,
        }
    }
}

impl FromStr for ICacheSync {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        let v = match s.trim().to_ascii_lowercase().as_str() {
            "auto" => ICacheSync::Auto,
            "none" => ICacheSync::None,
            "clflush" => ICacheSync::Clflush,
            "clflushopt" => ICacheSync::Clflushopt,
            "clwb" => ICacheSync::Clwb,
            "cpuid" => ICacheSync::Cpuid,
            "serialize" => ICacheSync::Serialize,
            "iret" => ICacheSync::Iret,
            "dc-ic" => ICacheSync::DcIc,
            _ => return Err(unknown(Self::VAR, s, Self::ACCEPTED)),
        };
        if !Self::ACCEPTED.contains(&v.name()) {
            return Err(ConfigError {
                setting: Self::VAR,
                value: s.to_string(),
                reason: format!("`{}` does not exist on {}", v.name(), std::env::consts::ARCH),
                accepted: Self::ACCEPTED,
            });
        }
        Ok(v)
    }
}

impl fmt::Display for ICacheSync {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which instruction a spin-wait iteration executes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PauseInstruction {
    /// The best choice for this CPU, resolved by `spin`.
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

impl PauseInstruction {
    /// The canonical name.
    pub fn name(self) -> &'static str {
        match self {
            PauseInstruction::Auto => "auto",
            PauseInstruction::None => "none",
            PauseInstruction::Pause => "pause",
            PauseInstruction::Tpause => "tpause",
            PauseInstruction::Isb => "isb",
            PauseInstruction::Yield => "yield",
            PauseInstruction::Nop => "nop",
            PauseInstruction::Sb => "sb",
        }
    }

    /// Whether the instruction exists on the architecture this was built for.
    pub fn exists_on_this_arch(self) -> bool {
        match self {
            PauseInstruction::Auto | PauseInstruction::None => true,
            PauseInstruction::Pause | PauseInstruction::Tpause => cfg!(target_arch = "x86_64"),
            PauseInstruction::Isb
            | PauseInstruction::Yield
            | PauseInstruction::Nop
            | PauseInstruction::Sb => cfg!(target_arch = "aarch64"),
        }
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
/// (HotSpot `-XX:OnSpinWaitInst` and `-XX:OnSpinWaitInstCount`).
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
    pub const VAR: &'static str = "FASTPATH_SPIN_PAUSE";
    /// Accepted spellings (each optionally followed by `:N`, 1 ≤ N ≤ 99).
    pub const ACCEPTED: &'static [&'static str] = &[
        "auto",
        "none",
        "pause",
        "tpause",
        "isb",
        "yield",
        "nop",
        "sb",
        "<any of these>:N (N in 1..=99)",
    ];
    /// Largest accepted repeat count.
    pub const MAX_REPEAT: u8 = 99;
}

impl FromStr for SpinPause {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        let lower = s.trim().to_ascii_lowercase();
        let (name, count) = match lower.split_once(':') {
            Some((n, c)) => (n, Some(c)),
            None => (lower.as_str(), None),
        };
        let instruction = match name {
            "auto" => PauseInstruction::Auto,
            "none" => PauseInstruction::None,
            "pause" => PauseInstruction::Pause,
            "tpause" => PauseInstruction::Tpause,
            "isb" => PauseInstruction::Isb,
            "yield" => PauseInstruction::Yield,
            "nop" => PauseInstruction::Nop,
            "sb" => PauseInstruction::Sb,
            _ => return Err(unknown(Self::VAR, s, Self::ACCEPTED)),
        };
        let bad = |reason: String| ConfigError {
            setting: Self::VAR,
            value: s.to_string(),
            reason,
            accepted: Self::ACCEPTED,
        };
        if !instruction.exists_on_this_arch() {
            return Err(bad(format!(
                "`{}` does not exist on {}",
                instruction.name(),
                std::env::consts::ARCH
            )));
        }
        let repeat = match count {
            None => 1,
            Some(c) => match c.parse::<u8>() {
                Ok(n) if (1..=Self::MAX_REPEAT).contains(&n) => n,
                _ => return Err(bad(format!("repeat count `{c}` is not a number from 1 to 99"))),
            },
        };
        Ok(SpinPause { instruction, repeat })
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

fn unknown(setting: &'static str, value: &str, accepted: &'static [&'static str]) -> ConfigError {
    ConfigError {
        setting,
        value: value.to_string(),
        reason: "unknown value".to_string(),
        accepted,
    }
}

/// The whole selection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Config {
    /// Locking mode for `sync`.
    pub locking_mode: LockingMode,
    /// Instruction-cache sync for `code`.
    pub icache_sync: ICacheSync,
    /// Spin pause for `spin` (and the spinning of `sync`).
    pub spin_pause: SpinPause,
}

impl Config {
    /// Reads the `FASTPATH_*` environment variables (unset means default).
    pub fn from_env() -> Result<Config, ConfigError> {
        Self::from_lookup(|k| std::env::var(k).ok())
    }

    /// Like [`Config::from_env`] with a custom variable source (for tests and
    /// for runtimes that keep flags elsewhere).
    pub fn from_lookup(mut lookup: impl FnMut(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let mut c = Config::default();
        if let Some(v) = lookup(LockingMode::VAR) {
            c.locking_mode = v.parse()?;
        }
        if let Some(v) = lookup(ICacheSync::VAR) {
            c.icache_sync = v.parse()?;
        }
        if let Some(v) = lookup(SpinPause::VAR) {
            c.spin_pause = v.parse()?;
        }
        Ok(c)
    }

    /// Checks that every instruction the configuration names explicitly
    /// exists on `cpu`. `auto` always passes: its resolution only picks what
    /// the CPU has.
    pub fn validate(&self, cpu: &CpuInfo) -> Result<(), ConfigError> {
        // A `Config` built in code skips the parsers: repeat the checks that
        // do not depend on the CPU.
        let sp = self.spin_pause;
        let spin_error = |reason: String| ConfigError {
            setting: SpinPause::VAR,
            value: sp.to_string(),
            reason,
            accepted: SpinPause::ACCEPTED,
        };
        if !(1..=SpinPause::MAX_REPEAT).contains(&sp.repeat) {
            return Err(spin_error(format!(
                "repeat count {} is not a number from 1 to 99",
                sp.repeat
            )));
        }
        if !sp.instruction.exists_on_this_arch() {
            return Err(spin_error(format!(
                "`{}` does not exist on {}",
                sp.instruction.name(),
                std::env::consts::ARCH
            )));
        }
        if !ICacheSync::ACCEPTED.contains(&self.icache_sync.name()) {
            return Err(ConfigError {
                setting: ICacheSync::VAR,
                value: self.icache_sync.name().to_string(),
                reason: format!(
                    "`{}` does not exist on {}",
                    self.icache_sync.name(),
                    std::env::consts::ARCH
                ),
                accepted: ICacheSync::ACCEPTED,
            });
        }
        if let Some(f) = self.icache_sync.required_feature() {
            if !cpu.has(f) {
                return Err(ConfigError {
                    setting: ICacheSync::VAR,
                    value: self.icache_sync.name().to_string(),
                    reason: format!("this CPU lacks {f:?}"),
                    accepted: ICacheSync::ACCEPTED,
                });
            }
        }
        if let Some(f) = self.spin_pause.instruction.required_feature() {
            if !cpu.has(f) {
                return Err(ConfigError {
                    setting: SpinPause::VAR,
                    value: self.spin_pause.to_string(),
                    reason: format!("this CPU lacks {f:?}"),
                    accepted: SpinPause::ACCEPTED,
                });
            }
        }
        Ok(())
    }
}

static GLOBAL: OnceLock<Config> = OnceLock::new();

/// Parses the environment, validates it against this CPU and installs it as
/// the process-wide configuration. Returns the configuration in force: if one
/// was already installed (by an earlier `init`, [`set`] or [`global`]), that
/// one, unchanged.
pub fn init() -> Result<&'static Config, ConfigError> {
    if let Some(c) = GLOBAL.get() {
        return Ok(c);
    }
    let c = Config::from_env()?;
    c.validate(crate::cpu::info())?;
    Ok(GLOBAL.get_or_init(|| c))
}

/// Installs `config` as the process-wide configuration, after validating it.
/// Fails with an error naming the setting if another configuration is
/// already in force (subsystems may have baked it into their fast paths).
pub fn set(config: Config) -> Result<&'static Config, ConfigError> {
    config.validate(crate::cpu::info())?;
    let mut installed = false;
    let c = GLOBAL.get_or_init(|| {
        installed = true;
        config
    });
    if installed || *c == config {
        Ok(c)
    } else {
        Err(ConfigError {
            setting: "fastpath::config::set",
            value: format!("{config:?}"),
            reason: format!("a different configuration is already in force: {c:?}"),
            accepted: &["a configuration set before first use"],
        })
    }
}

/// The process-wide configuration; never fails (see the module docs).
#[inline]
pub fn global() -> &'static Config {
    match GLOBAL.get() {
        Some(c) => c,
        None => global_slow(),
    }
}

#[cold]
fn global_slow() -> &'static Config {
    match init() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("fastpath: ignoring invalid configuration ({e}); using defaults");
            GLOBAL.get_or_init(Config::default)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_documented_spelling() {
        for s in ["lightweight", "legacy", "monitor", "LEGACY", " monitor "] {
            s.parse::<LockingMode>().unwrap();
        }
        for s in [
            "auto",
            "none",
            "clflush",
            "clflushopt",
            "clwb",
            "cpuid",
            "serialize",
        ] {
            #[cfg(target_arch = "x86_64")]
            assert_eq!(s.parse::<ICacheSync>().unwrap().name(), s);
        }
        assert_eq!(
            "pause:7".parse::<SpinPause>().unwrap(),
            SpinPause {
                instruction: PauseInstruction::Pause,
                repeat: 7
            }
        );
        assert_eq!("none".parse::<SpinPause>().unwrap().repeat, 1);
    }

    #[test]
    fn errors_name_value_and_accepted_values() {
        let e = "spinny".parse::<LockingMode>().unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("FASTPATH_LOCKING_MODE") && msg.contains("spinny"),
            "{msg}"
        );
        assert!(msg.contains("lightweight, legacy, monitor"), "{msg}");
        for bad in ["pause:0", "pause:100", "pause:", "pause:x", "pause:2:3", "isbb"] {
            let e = bad.parse::<SpinPause>().unwrap_err();
            assert_eq!(e.setting, SpinPause::VAR, "{bad}");
        }
        #[cfg(target_arch = "x86_64")]
        {
            assert!("isb"
                .parse::<SpinPause>()
                .unwrap_err()
                .reason
                .contains("does not exist"));
            assert!("dc-ic".parse::<ICacheSync>().is_err());
        }
    }

    #[test]
    fn validate_refuses_instructions_the_cpu_lacks() {
        let mut cpu = crate::cpu::info().clone();
        cpu.features = Default::default();
        let c = Config {
            icache_sync: ICacheSync::Clwb,
            ..Config::default()
        };
        let e = c.validate(&cpu).unwrap_err();
        assert_eq!(e.setting, ICacheSync::VAR);
        assert!(e.reason.contains("Clwb"), "{e}");
        #[cfg(target_arch = "x86_64")]
        {
            let c = Config {
                spin_pause: "tpause".parse().unwrap(),
                ..Config::default()
            };
            assert!(c.validate(&cpu).is_err());
        }
        assert!(Config::default().validate(&cpu).is_ok());
    }

    #[test]
    fn validate_repeats_the_parsers_checks_for_configs_built_in_code() {
        let cpu = crate::cpu::info();
        for repeat in [0, 100, 255] {
            let c = Config {
                spin_pause: SpinPause {
                    instruction: PauseInstruction::Auto,
                    repeat,
                },
                ..Config::default()
            };
            let e = c.validate(cpu).unwrap_err();
            assert_eq!(e.setting, SpinPause::VAR);
            assert!(e.reason.contains("repeat count"), "{e}");
        }
        #[cfg(target_arch = "x86_64")]
        {
            let c = Config {
                spin_pause: SpinPause {
                    instruction: PauseInstruction::Isb,
                    repeat: 1,
                },
                ..Config::default()
            };
            assert!(c.validate(cpu).unwrap_err().reason.contains("does not exist"));
            let c = Config {
                icache_sync: ICacheSync::DcIc,
                ..Config::default()
            };
            assert_eq!(c.validate(cpu).unwrap_err().setting, ICacheSync::VAR);
        }
    }

    #[test]
    fn lookup_reads_each_variable() {
        let c = Config::from_lookup(|k| match k {
            "FASTPATH_LOCKING_MODE" => Some("legacy".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(c.locking_mode, LockingMode::Legacy);
        assert_eq!(c.icache_sync, ICacheSync::Auto);
        let e = Config::from_lookup(|k| (k == "FASTPATH_ICACHE_SYNC").then(|| "flush".into())).unwrap_err();
        assert_eq!(e.setting, "FASTPATH_ICACHE_SYNC");
    }
}
