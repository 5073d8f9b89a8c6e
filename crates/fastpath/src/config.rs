//! Every `FASTPATH_*` setting, gathered: the strict start-up check
//! ([`init`], [`set`]), the whole selection as one value ([`Config`]) and
//! the list `--help` prints ([`variables`]), in the style of HotSpot's
//! `-XX:` flags.
//!
//! Where it sits: above the subsystems, which own their settings. Each
//! setting's table, parser, validation and process-wide value live in the
//! subsystem that obeys it, built on `crate::setting`; a subsystem reads
//! its own value and never this module. This module only gathers them.
//!
//! | variable | values | default | owner |
//! |---|---|---|---|
//! | `FASTPATH_LOCKING_MODE` | `lightweight`, `legacy`, `monitor` | `lightweight` | `sync` ([`LockingMode`]) |
//! | `FASTPATH_ICACHE_SYNC` | `auto`, `none`, `clflush`, `clflushopt`, `clwb`, `cpuid`, `serialize`, `iret`; aarch64: `auto`, `none`, `dc-ic` | `auto` | `code` ([`ICacheSync`]) |
//! | `FASTPATH_SPIN_PAUSE` | `auto`, `none`, `pause`, `tpause`; aarch64: `auto`, `none`, `isb`, `yield`, `nop`, `sb`; each optionally `:N` (repeat 1–99) | `auto` | `spin` ([`SpinPause`]) |
//! | `FASTPATH_GC_BARRIERS` | a preset (`none`, `serial`, `g1`, `shenandoah-2017`, `shenandoah`) or a comma list of barriers (`satb`, `card`, `card-cond`, `g1-card`, `brooks-rb`, `brooks-wb`, `lrb`, `cas`) | `shenandoah` | `gc::settings` ([`BarrierBits`]) |
//! | `FASTPATH_GC_MODE` | `passive`, `concurrent` (which needs a complete set: `satb`, `lrb` or both Brooks barriers, `cas`) | `passive` | `gc::settings` ([`GcMode`]) |
//! | `FASTPATH_GC_WORKERS` | 1–64 | half the CPUs, 1–8 | `gc::settings` ([`GcWorkers`]) |
//! | `FASTPATH_GC_IMMEDIATE_GARBAGE` | 0–100 (percent) | 90 | `gc::settings` ([`GcImmediateGarbage`]) |
//! | `FASTPATH_GC_CELL_FORMAT` | `auto` (the barrier set's: `brooks` with `brooks-rb` or `brooks-wb`, else `compact`), `brooks`, `compact` | `auto` | `gc::settings` ([`GcCellFormat`]) |
//! | `FASTPATH_GC_REFS` | `full` (8-byte reference slots), `compressed` (4-byte, the heap below 32 GiB) | `full` | `gc::settings` ([`RefWidth`]) |
//! | `FASTPATH_FAST_LOCKING_SPINS` | 0–20 (`log2` of the pauses) | 13, or more where a pause is short: the least whose pauses last 0.5 ms (16 at 11 ns a pause; 1 on one CPU) | `sync` ([`FastLockingSpins`]) |
//! | `FASTPATH_FAST_LOCKING_YIELDS` | 0–64 | 8 | `sync` ([`FastLockingYields`]) |
//! | `FASTPATH_DEFLATION_INTERVAL_MS` | 1–3600000 | 250 | `sync` ([`DeflationIntervalMs`]) |
//! | `FASTPATH_DEFLATION_THRESHOLD` | 0–100 (percent) | 90 | `sync` ([`DeflationThreshold`]) |
//! | `FASTPATH_WAIT_SPIN_NS` | 0–1000000 | 30000 (0 on one CPU) | `sync` ([`WaitSpinNs`]) |
//!
//! The last five are where `sync`'s tuning knobs start: its setters
//! (`sync::fast_lock_spin::set_fast_locking_spins`, `set_fast_locking_yields`,
//! `sync::set_deflation_policy`, `sync::wait_spin::set_wait_spin_ns`)
//! change them at run time, and [`Config`] keeps the starting values.
//!
//! Whether a value can run here is its owner's answer ([`Setting::validate`];
//! the icache's includes the calling thread's CET shadow stack, which makes
//! `iret` fault), so a value refused by `CodeCache::new` is refused by
//! [`init`] first, with the same words.
//!
//! Adding a setting: its owner defines it on `crate::setting` (a table of
//! [`Choice`]s and two macros, or a hand-written [`Setting`]) with a
//! process-wide value its code reads; here, one line (with its doc) in
//! `for_each_setting!`, the list that makes [`Config`] and that every
//! function below reads.
//!
//! # Two ways in
//!
//! - strict: [`init`] (or [`set`]) parses, validates every requested
//!   instruction against [`crate::cpu::info`], and returns a [`ConfigError`]
//!   naming the bad value, the values that can work on this CPU, and which
//!   CPUs the others are for. A runtime calls it at start, as HotSpot
//!   refuses to start on a bad flag; the lab does. Called after a subsystem
//!   has read a setting lazily, it no longer refuses that setting's bad
//!   value (reported then, its default in force): it returns what is in
//!   force, whichever subsystem read first.
//! - lazy: a subsystem that reads its setting before any `init` reads its
//!   variable then: a valid one is kept, a bad one falls back to its default
//!   and is reported once (to the hook set by [`on_invalid_variable`], else
//!   to stderr), however many threads race to be first. It never panics,
//!   because it may be first reached from inside a lock. [`global`] is that
//!   path for every setting at once.
//!
//! ```
//! use fastpath::config::Config;
//! use fastpath::spin::SpinPause;
//! let c = Config::from_lookup(|var| match var {
//!     "FASTPATH_SPIN_PAUSE" => Some("none:2".to_string()),
//!     _ => None,
//! }).unwrap();
//! assert_eq!(c.spin_pause, "none:2".parse::<SpinPause>().unwrap());
//! let err = "pasue".parse::<SpinPause>().unwrap_err();
//! assert!(err.to_string().contains("accepted"));
//! ```

use std::fmt;
use std::sync::{Mutex, OnceLock};

use crate::cpu::CpuInfo;
use crate::setting;

// The setting types stay in their owners (`sync::LockingMode`,
// `code::ICacheSync`, `spin::SpinPause`, `gc::BarrierBits`, ...): one path
// each. This module exports only the machinery they share. (`sync`'s own
// tests name `crate::config::LockingMode`, hence the crate-wide import.)
use crate::code::ICacheSync;
use crate::gc::layout::RefWidth;
use crate::gc::{BarrierBits, GcCellFormat, GcImmediateGarbage, GcMode, GcWorkers};
pub use crate::setting::{on_invalid_variable, Choice, Choices, ConfigError, Setting, Variable};
use crate::spin::SpinPause;
pub(crate) use crate::sync::{
    DeflationIntervalMs, DeflationThreshold, FastLockingSpins, FastLockingYields, LockingMode, WaitSpinNs,
};

/// The registration list: every setting, as its [`Config`] field (with
/// its doc), its type and its process-wide value in its owner. `Config`
/// and each function below are this list applied to one action.
macro_rules! for_each_setting {
    ($action:ident!($($args:tt)*)) => {
        $action! { $($args)*
            /// Locking mode for `sync`.
            locking_mode: LockingMode = crate::sync::settings::LOCKING_MODE,
            /// Instruction-cache sync for `code`.
            icache_sync: ICacheSync = crate::code::ICACHE_SYNC,
            /// Spin pause for `spin` (and the spinning of `sync`).
            spin_pause: SpinPause = crate::spin::SPIN_PAUSE,
            /// Barrier set of a heap made by `gc::HeapConfig::from_config`.
            gc_barriers: BarrierBits = crate::gc::settings::BARRIERS,
            /// Mode of a heap made by `gc::HeapConfig::from_config`.
            gc_mode: GcMode = crate::gc::settings::MODE,
            /// Collector workers of a heap made by `gc::HeapConfig::from_config`.
            gc_workers: GcWorkers = crate::gc::settings::WORKERS,
            /// Immediate-garbage threshold of a heap made by `gc::HeapConfig::from_config`.
            gc_immediate_garbage: GcImmediateGarbage = crate::gc::settings::IMMEDIATE_GARBAGE,
            /// Cell format of a heap made by `gc::HeapConfig::new`.
            gc_cell_format: GcCellFormat = crate::gc::settings::CELL_FORMAT,
            /// Reference width of a heap made by `gc::HeapConfig::new`.
            gc_refs: RefWidth = crate::gc::settings::REFS,
            /// The fast-lock spin budget `sync` starts with (its setter changes it).
            fast_locking_spins: FastLockingSpins = crate::sync::settings::FAST_LOCKING_SPINS,
            /// The fast-lock yields `sync` starts with (its setter changes it).
            fast_locking_yields: FastLockingYields = crate::sync::settings::FAST_LOCKING_YIELDS,
            /// The deflation interval `sync` starts with (its setter changes it).
            deflation_interval_ms: DeflationIntervalMs = crate::sync::settings::DEFLATION_INTERVAL,
            /// The deflation threshold `sync` starts with (its setter changes it).
            deflation_threshold: DeflationThreshold = crate::sync::settings::DEFLATION_THRESHOLD,
            /// The wait spin `sync` starts with (its setter changes it).
            wait_spin_ns: WaitSpinNs = crate::sync::settings::WAIT_SPIN,
        }
    };
}

macro_rules! config_struct {
    ($($(#[$doc:meta])* $field:ident: $ty:ty = $value:path,)*) => {
        /// The whole selection: one field per setting.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct Config {
            $($(#[$doc])* pub $field: $ty,)*
        }
    };
}
for_each_setting!(config_struct!());

impl Config {
    /// Reads the `FASTPATH_*` environment variables (unset means default).
    pub fn from_env() -> Result<Config, ConfigError> {
        Self::from_lookup(|k| std::env::var(k).ok())
    }

    /// Like [`Config::from_env`] with a custom variable source (for tests and
    /// for runtimes that keep flags elsewhere). Fails on the first bad value
    /// (parsing only: [`Config::validate`] checks the CPU).
    pub fn from_lookup(lookup: impl FnMut(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let (c, errors) = Self::read(lookup, None);
        match errors.into_iter().next() {
            Some(e) => Err(e),
            None => Ok(c),
        }
    }

    /// Reads every variable on its own: each good value is kept, each bad one
    /// (unparseable, or with `cpu`, refused by its owner for that CPU) is
    /// left at its default and returned as an error, so one bad variable
    /// does not cost the others.
    pub fn read(
        mut lookup: impl FnMut(&str) -> Option<String>,
        cpu: Option<&CpuInfo>,
    ) -> (Config, Vec<ConfigError>) {
        let mut c = Config::default();
        let mut errors = Vec::new();
        macro_rules! read {
            ($($(#[$doc:meta])* $field:ident: $ty:ty = $value:path,)*) => {$(
                match setting::read::<$ty>(&mut lookup, cpu) {
                    Some(Ok(v)) => c.$field = v,
                    Some(Err(e)) => errors.push(e),
                    None => {}
                }
            )*};
        }
        for_each_setting!(read!());
        // The pair: a concurrent mode the set cannot support falls back to
        // the default mode, reported as the other bad values are.
        if let Err(e) = crate::gc::settings::check_barriers_for_mode(c.gc_barriers, c.gc_mode) {
            errors.push(e);
            c.gc_mode = GcMode::default();
        }
        (c, errors)
    }

    /// Asks each setting's owner whether `cpu` (and the calling thread) can
    /// run what it names; `auto` always passes, as its resolution only picks
    /// what the CPU has. A `Config` built in code skips the parsers, so the
    /// owners also repeat the checks that do not depend on the CPU.
    pub fn validate(&self, cpu: &CpuInfo) -> Result<(), ConfigError> {
        macro_rules! validate {
            ($($(#[$doc:meta])* $field:ident: $ty:ty = $value:path,)*) => {$( self.$field.validate(cpu)?; )*};
        }
        for_each_setting!(validate!());
        crate::gc::settings::check_barriers_for_mode(self.gc_barriers, self.gc_mode)
    }

    /// The values in force, each from its owner (reading its variable if
    /// nothing fixed it yet).
    fn in_force() -> Config {
        macro_rules! in_force {
            ($($(#[$doc:meta])* $field:ident: $ty:ty = $value:path,)*) => { Config { $($field: $value.get(),)* } };
        }
        for_each_setting!(in_force!())
    }
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        macro_rules! display {
            ($($(#[$doc:meta])* $field:ident: $ty:ty = $value:path,)*) => {{
                let words: Vec<String> = vec![$(format!("{}={}", <$ty as Setting>::VAR, self.$field),)*];
                f.write_str(&words.join(" "))
            }};
        }
        for_each_setting!(display!())
    }
}

/// Every `FASTPATH_*` variable, for `--help` and the docs.
pub fn variables() -> Vec<Variable> {
    macro_rules! variables {
        ($($(#[$doc:meta])* $field:ident: $ty:ty = $value:path,)*) => { vec![$(<$ty as Setting>::variable(),)*] };
    }
    for_each_setting!(variables!())
}

/// The configuration in force, gathered once from the owners.
static IN_FORCE: OnceLock<Config> = OnceLock::new();

/// Serialises [`init`] and [`set`], so that one checks and installs every
/// setting before the other looks.
static INSTALLING: Mutex<()> = Mutex::new(());

/// Installs `c` in every owner, all or nothing: refused, naming what is in
/// force, if a subsystem has already fixed a different value of any
/// setting (it may have baked it into a fast path).
fn install(c: Config) -> Result<&'static Config, ConfigError> {
    // Poisoning: the guard protects no data.
    let _one_at_a_time = INSTALLING.lock().unwrap_or_else(|e| e.into_inner());
    macro_rules! differs {
        ($($(#[$doc:meta])* $field:ident: $ty:ty = $value:path,)*) => { false $(|| $value.peek().is_some_and(|v| v != c.$field))* };
    }
    let differs = for_each_setting!(differs!());
    if !differs {
        macro_rules! install {
            ($($(#[$doc:meta])* $field:ident: $ty:ty = $value:path,)*) => {$( $value.install(c.$field); )*};
        }
        for_each_setting!(install!());
    }
    let in_force = global();
    if *in_force == c {
        Ok(in_force)
    } else {
        Err(ConfigError {
            setting: "fastpath::config::set",
            value: format!("{c:?}"),
            reason: format!("a different configuration is already in force: {in_force:?}"),
            accepted: &["a configuration set before first use"],
        })
    }
}

/// Parses the environment, validates it against this CPU and installs it as
/// the process-wide configuration. Returns the configuration in force: if
/// one was already installed (by an earlier `init`, [`set`] or [`global`]),
/// that one, unchanged. A bad value is refused, naming it, unless a
/// subsystem already read that setting lazily: it was reported then, its
/// default is in force, and `init` returns the configuration in force, as
/// after [`global`], whichever reader came first.
pub fn init() -> Result<&'static Config, ConfigError> {
    if let Some(c) = IN_FORCE.get() {
        return Ok(c);
    }
    let cpu = crate::cpu::info();
    let (c, errors) = Config::read(|k| std::env::var(k).ok(), Some(cpu));
    if errors.is_empty() {
        c.validate(cpu)?;
        // A subsystem that read its variable lazily read the same environment.
        return Ok(install(c).unwrap_or_else(|_| global()));
    }
    match errors.into_iter().find(|e| !read_lazily(e.setting)) {
        Some(e) => Err(e),
        None => Ok(global()),
    }
}

/// Whether the setting named `var` has its process value fixed already.
fn read_lazily(var: &str) -> bool {
    macro_rules! fixed {
        ($($(#[$doc:meta])* $field:ident: $ty:ty = $value:path,)*) => {
            false $(|| (<$ty as Setting>::VAR == var && $value.peek().is_some()))*
        };
    }
    for_each_setting!(fixed!())
}

/// Installs `config` as the process-wide configuration, after validating it.
/// Fails with an error naming the setting if another configuration is
/// already in force (subsystems may have baked it into their fast paths).
pub fn set(config: Config) -> Result<&'static Config, ConfigError> {
    config.validate(crate::cpu::info())?;
    install(config)
}

/// The process-wide configuration; never fails (see the module docs).
#[inline]
pub fn global() -> &'static Config {
    match IN_FORCE.get() {
        Some(c) => c,
        None => global_slow(),
    }
}

#[cold]
fn global_slow() -> &'static Config {
    // Every owner's value is fixed once read, so the snapshot stays true.
    IN_FORCE.get_or_init(Config::in_force)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spin::PauseInstruction;

    #[cfg(target_arch = "x86_64")]
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
            "iret",
        ] {
            assert_eq!(s.parse::<ICacheSync>().unwrap().name(), s);
        }
        assert_eq!(
            "pause:7".parse::<SpinPause>().unwrap(),
            SpinPause {
                instruction: PauseInstruction::Pause,
                repeat: 7
            }
        );
        assert_eq!(
            "tpause".parse::<SpinPause>().unwrap().instruction,
            PauseInstruction::Tpause
        );
        assert_eq!("none".parse::<SpinPause>().unwrap().repeat, 1);
        // The other architecture's spellings are refused, naming it.
        for s in ["isb", "yield", "nop", "sb"] {
            let e = s.parse::<SpinPause>().unwrap_err();
            assert!(e.reason.contains("does not exist on x86_64"), "{e}");
        }
        assert!("dc-ic".parse::<ICacheSync>().is_err());
    }

    /// aarch64's spellings: what the x86-64 test above checks, for the
    /// values that exist there (run under qemu-aarch64).
    #[cfg(target_arch = "aarch64")]
    #[test]
    fn parses_every_documented_spelling() {
        for s in ["lightweight", "legacy", "monitor", "LEGACY", " monitor "] {
            s.parse::<LockingMode>().unwrap();
        }
        for s in ["auto", "none", "dc-ic"] {
            assert_eq!(s.parse::<ICacheSync>().unwrap().name(), s);
        }
        assert_eq!(
            "isb:2".parse::<SpinPause>().unwrap(),
            SpinPause {
                instruction: PauseInstruction::Isb,
                repeat: 2
            }
        );
        for (s, i) in [
            ("yield", PauseInstruction::Yield),
            ("nop", PauseInstruction::Nop),
            ("sb", PauseInstruction::Sb),
        ] {
            assert_eq!(s.parse::<SpinPause>().unwrap().instruction, i);
        }
        assert_eq!(ICacheSync::ACCEPTED, ["auto", "none", "dc-ic"]);
        assert_eq!(SpinPause::ACCEPTED, ["auto", "none", "isb", "yield", "nop", "sb"]);
        // x86-64's spellings are refused, naming the architecture.
        for s in ["pause", "tpause:2"] {
            let e = s.parse::<SpinPause>().unwrap_err();
            assert!(e.reason.contains("does not exist on aarch64"), "{e}");
        }
        for s in ["clwb", "clflush", "serialize", "iret", "cpuid"] {
            let e = s.parse::<ICacheSync>().unwrap_err();
            assert!(e.reason.contains("does not exist on aarch64"), "{e}");
        }
    }

    #[test]
    fn errors_name_value_and_accepted_values() {
        let e = "spinny".parse::<LockingMode>().unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("FASTPATH_LOCKING_MODE") && msg.contains("spinny"),
            "{msg}"
        );
        assert!(
            msg.contains("accepted here: lightweight, legacy, monitor"),
            "{msg}"
        );
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

    #[cfg(target_arch = "x86_64")]
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
        // The accepted list holds only what this (feature-less) CPU runs;
        // each other value is named with the CPUs it is for.
        assert!(!e.accepted.contains(&"clwb"), "{e}");
        assert!(
            e.accepted.contains(&"cpuid") && e.accepted.contains(&"none"),
            "{e}"
        );
        assert!(e.reason.contains("`clwb` is for x86-64 CPUs with CLWB"), "{e}");
        assert!(e.reason.contains("`dc-ic` is for aarch64 CPUs"), "{e}");
        let c = Config {
            spin_pause: "tpause".parse().unwrap(),
            ..Config::default()
        };
        assert!(c.validate(&cpu).is_err());
        assert!(Config::default().validate(&cpu).is_ok());
    }

    /// aarch64: SB needs FEAT_SB; an x86-64 value built in code is refused
    /// as not of this architecture (run under qemu-aarch64).
    #[cfg(target_arch = "aarch64")]
    #[test]
    fn validate_refuses_instructions_the_cpu_lacks() {
        let mut cpu = crate::cpu::info().clone();
        cpu.features = Default::default();
        let sb = Config {
            spin_pause: "sb".parse().unwrap(),
            ..Config::default()
        };
        let e = sb.validate(&cpu).unwrap_err();
        assert_eq!(e.setting, SpinPause::VAR);
        assert!(!e.accepted.contains(&"sb"), "{e}");
        assert!(
            e.accepted.contains(&"isb") && e.accepted.contains(&"yield"),
            "{e}"
        );
        for pause in ["isb", "yield:3", "nop"] {
            let c = Config {
                spin_pause: pause.parse().unwrap(),
                ..Config::default()
            };
            assert!(c.validate(&cpu).is_ok(), "{pause}");
        }
        let clwb = Config {
            icache_sync: ICacheSync::Clwb,
            ..Config::default()
        };
        let e = clwb.validate(&cpu).unwrap_err();
        assert_eq!(e.setting, ICacheSync::VAR);
        assert!(e.reason.contains("does not exist on aarch64"), "{e}");
        assert!(
            e.accepted.contains(&"dc-ic") && !e.accepted.contains(&"clwb"),
            "{e}"
        );
        let pause = Config {
            spin_pause: SpinPause {
                instruction: PauseInstruction::Pause,
                repeat: 1,
            },
            ..Config::default()
        };
        assert!(pause
            .validate(&cpu)
            .unwrap_err()
            .reason
            .contains("does not exist"));
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

#[cfg(test)]
mod read_tests {
    use super::*;
    use crate::spin::PauseInstruction;

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl FnMut(&str) -> Option<String> {
        move |k| vars.iter().find(|(v, _)| *v == k).map(|(_, x)| x.to_string())
    }

    #[test]
    fn read_keeps_every_valid_variable_when_one_is_bad() {
        let (c, errors) = Config::read(
            env(&[
                ("FASTPATH_LOCKING_MODE", "bogus"),
                ("FASTPATH_SPIN_PAUSE", "none:4"),
                ("FASTPATH_ICACHE_SYNC", "none"),
            ]),
            Some(crate::cpu::info()),
        );
        assert_eq!(c.locking_mode, LockingMode::Lightweight);
        assert_eq!(c.spin_pause.to_string(), "none:4");
        assert_eq!(c.icache_sync, ICacheSync::None);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].setting, "FASTPATH_LOCKING_MODE");
        assert_eq!(errors[0].value, "bogus");
        // The strict reader fails on the same input, naming the bad one.
        let e = Config::from_lookup(env(&[("FASTPATH_LOCKING_MODE", "bogus")])).unwrap_err();
        assert_eq!(e.setting, "FASTPATH_LOCKING_MODE");
    }

    #[test]
    fn bad_gc_values_are_reported_per_variable() {
        let (c, errors) = Config::read(
            env(&[
                ("FASTPATH_GC_BARRIERS", "satb,lbr"),
                ("FASTPATH_GC_MODE", "paused"),
                ("FASTPATH_LOCKING_MODE", "legacy"),
            ]),
            Some(crate::cpu::info()),
        );
        let settings: Vec<&str> = errors.iter().map(|e| e.setting).collect();
        assert_eq!(
            settings,
            ["FASTPATH_GC_BARRIERS", "FASTPATH_GC_MODE"],
            "{errors:?}"
        );
        assert!(errors[0].to_string().contains("lbr"), "{}", errors[0]);
        assert!(errors[1].to_string().contains("concurrent"), "{}", errors[1]);
        assert_eq!(
            (c.gc_barriers, c.gc_mode),
            (BarrierBits::SHENANDOAH, GcMode::Passive)
        );
        assert_eq!(c.locking_mode, LockingMode::Legacy);
        // Good values are kept; a concurrent mode the set cannot support is
        // refused naming what is missing, and falls back to passive.
        let (c, errors) = Config::read(
            env(&[("FASTPATH_GC_BARRIERS", "g1"), ("FASTPATH_GC_MODE", "concurrent")]),
            None,
        );
        assert_eq!(c.gc_barriers, BarrierBits::G1);
        assert_eq!(c.gc_mode, GcMode::Passive);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].reason.contains("lrb"), "{}", errors[0]);
        let c = Config::from_lookup(env(&[
            ("FASTPATH_GC_BARRIERS", "shenandoah-2017"),
            ("FASTPATH_GC_MODE", "concurrent"),
        ]))
        .unwrap();
        assert_eq!(
            (c.gc_barriers, c.gc_mode),
            (BarrierBits::SHENANDOAH_2017, GcMode::Concurrent)
        );
        // A pair built in code is checked by validate.
        let bad = Config {
            gc_barriers: BarrierBits::SERIAL,
            gc_mode: GcMode::Concurrent,
            ..Config::default()
        };
        assert_eq!(
            bad.validate(crate::cpu::info()).unwrap_err().setting,
            "FASTPATH_GC_BARRIERS"
        );
    }

    #[test]
    fn read_with_a_cpu_drops_what_the_cpu_cannot_run() {
        let mut bare = crate::cpu::info().clone();
        bare.features = Default::default();
        let (c, errors) = Config::read(
            env(&[
                ("FASTPATH_ICACHE_SYNC", "clwb"),
                ("FASTPATH_LOCKING_MODE", "legacy"),
            ]),
            Some(&bare),
        );
        #[cfg(target_arch = "x86_64")]
        {
            assert_eq!(c.icache_sync, ICacheSync::Auto);
            assert_eq!(errors.len(), 1, "{errors:?}");
        }
        assert_eq!(c.locking_mode, LockingMode::Legacy);
        let _ = errors;
    }

    /// `Choices::choice` panics on a value missing from its table; the
    /// exhaustive matches below stop compiling when a variant is added, and
    /// the loop then proves each one has its row.
    #[test]
    fn every_variant_has_a_row_in_its_table() {
        use ICacheSync as I;
        use PauseInstruction as P;
        for v in [
            LockingMode::Lightweight,
            LockingMode::Legacy,
            LockingMode::Monitor,
        ] {
            match v {
                LockingMode::Lightweight | LockingMode::Legacy | LockingMode::Monitor => {}
            }
            assert_eq!(v.choice().value, v);
        }
        let icache = [
            I::Auto,
            I::None,
            I::Clflush,
            I::Clflushopt,
            I::Clwb,
            I::Cpuid,
            I::Serialize,
            I::Iret,
            I::DcIc,
        ];
        for v in icache {
            match v {
                I::Auto
                | I::None
                | I::Clflush
                | I::Clflushopt
                | I::Clwb
                | I::Cpuid
                | I::Serialize
                | I::Iret
                | I::DcIc => {}
            }
            assert_eq!(v.choice().value, v);
        }
        for v in [
            P::Auto,
            P::None,
            P::Pause,
            P::Tpause,
            P::Isb,
            P::Yield,
            P::Nop,
            P::Sb,
        ] {
            match v {
                P::Auto | P::None | P::Pause | P::Tpause | P::Isb | P::Yield | P::Nop | P::Sb => {}
            }
            assert_eq!(v.choice().value, v);
        }
    }

    #[test]
    fn every_table_value_round_trips_through_its_name() {
        for c in <LockingMode as Choices>::TABLE {
            assert_eq!(c.name.parse::<LockingMode>().unwrap(), c.value);
            assert_eq!(c.value.to_string(), c.name);
        }
        for c in <ICacheSync as Choices>::TABLE {
            assert_eq!(c.value.name(), c.name);
            assert_eq!(c.name.parse::<ICacheSync>().is_ok(), c.on_this_arch, "{}", c.name);
        }
        for c in <PauseInstruction as Choices>::TABLE {
            assert_eq!(c.value.name(), c.name);
            assert_eq!(c.name.parse::<SpinPause>().is_ok(), c.on_this_arch, "{}", c.name);
        }
        assert_eq!(ICacheSync::all().count(), <ICacheSync as Choices>::TABLE.len());
        assert_eq!(LockingMode::ACCEPTED, ["lightweight", "legacy", "monitor"]);
        #[cfg(target_arch = "x86_64")]
        {
            assert_eq!(
                ICacheSync::ACCEPTED,
                [
                    "auto",
                    "none",
                    "clflush",
                    "clflushopt",
                    "clwb",
                    "cpuid",
                    "serialize",
                    "iret"
                ]
            );
            assert_eq!(SpinPause::ACCEPTED, ["auto", "none", "pause", "tpause"]);
        }
        let vars = variables();
        assert_eq!(vars.len(), 14);
        assert!(vars
            .iter()
            .all(|v| v.var.starts_with("FASTPATH_") && !v.values.is_empty()));
        let (spins, workers, wait_spin) = (
            FastLockingSpins::default(),
            GcWorkers::default(),
            WaitSpinNs::default(),
        );
        assert_eq!(
            Config::default().to_string(),
            format!(
                "FASTPATH_LOCKING_MODE=lightweight FASTPATH_ICACHE_SYNC=auto FASTPATH_SPIN_PAUSE=auto \
                 FASTPATH_GC_BARRIERS=shenandoah FASTPATH_GC_MODE=passive FASTPATH_GC_WORKERS={workers} \
                 FASTPATH_GC_IMMEDIATE_GARBAGE=90 FASTPATH_GC_CELL_FORMAT=auto FASTPATH_GC_REFS=full \
                 FASTPATH_FAST_LOCKING_SPINS={spins} \
                 FASTPATH_FAST_LOCKING_YIELDS=8 FASTPATH_DEFLATION_INTERVAL_MS=250 FASTPATH_DEFLATION_THRESHOLD=90 \
                 FASTPATH_WAIT_SPIN_NS={wait_spin}"
            )
        );
    }

    #[test]
    fn number_settings_parse_their_range_and_refuse_the_rest() {
        assert_eq!("0".parse::<FastLockingSpins>().unwrap(), FastLockingSpins(0));
        assert_eq!(" 20 ".parse::<FastLockingSpins>().unwrap(), FastLockingSpins(20));
        for bad in ["21", "-1", "x", ""] {
            let e = bad.parse::<FastLockingSpins>().unwrap_err();
            assert_eq!(e.setting, "FASTPATH_FAST_LOCKING_SPINS", "{bad}");
            assert_eq!(e.accepted, ["0-20"], "{bad}");
        }
        assert!("0".parse::<DeflationIntervalMs>().is_err());
        assert!("101".parse::<DeflationThreshold>().is_err());
        assert!(FastLockingYields(65).validate(crate::cpu::info()).is_err());
        assert!("1000001".parse::<WaitSpinNs>().is_err());
        assert_eq!("0".parse::<WaitSpinNs>().unwrap(), WaitSpinNs(0));
        let (c, errors) = Config::read(
            |k| match k {
                "FASTPATH_FAST_LOCKING_YIELDS" => Some("3".into()),
                "FASTPATH_DEFLATION_THRESHOLD" => Some("250".into()),
                _ => None,
            },
            None,
        );
        assert_eq!(c.fast_locking_yields, FastLockingYields(3));
        assert_eq!(c.deflation_threshold, DeflationThreshold::default());
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].setting, "FASTPATH_DEFLATION_THRESHOLD");
        // The knobs' defaults are the policy HotSpot ships.
        let hotspot = crate::sync::DeflationPolicy::HOTSPOT;
        assert_eq!(
            hotspot.interval.as_millis(),
            u128::from(DeflationIntervalMs::default().0)
        );
        assert_eq!(hotspot.used_threshold_percent, DeflationThreshold::default().0);
    }
}
