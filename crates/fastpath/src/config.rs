//! Strategy selection, in the style of HotSpot's `-XX:` flags.
//!
//! Where it sits: the top of the data flow. A runtime (or the lab) picks a
//! locking mode, an instruction-cache sync strategy and a spin pause either
//! from `FASTPATH_*` environment variables or in code; the subsystems read
//! the resolved choice from [`global`] on their slow paths and bake it into
//! their fast paths once.
//!
//! | variable | values | default | owner |
//! |---|---|---|---|
//! | `FASTPATH_LOCKING_MODE` | `lightweight`, `legacy`, `monitor` | `lightweight` | this file ([`LockingMode`]) |
//! | `FASTPATH_ICACHE_SYNC` | `auto`, `none`, `clflush`, `clflushopt`, `clwb`, `cpuid`, `serialize`, `iret`; aarch64: `auto`, `none`, `dc-ic` | `auto` | `code::icache` ([`ICacheSync`]) |
//! | `FASTPATH_SPIN_PAUSE` | `auto`, `none`, `pause`, `tpause`, `isb`, `yield`, `nop`, `sb`, each optionally `:N` (repeat 1–99) | `auto` | `spin::strategy` ([`SpinPause`]) |
//! | `FASTPATH_GC_BARRIERS` | a preset (`none`, `serial`, `g1`, `shenandoah-2017`, `shenandoah`) or a comma list of barriers (`satb`, `card`, `card-cond`, `g1-card`, `brooks-rb`, `brooks-wb`, `lrb`, `cas`) | `shenandoah` | `gc::settings` ([`BarrierBits`]) |
//! | `FASTPATH_GC_MODE` | `passive`, `concurrent` (which needs a complete set: `satb`, `lrb` or both Brooks barriers, `cas`) | `passive` | `gc::settings` ([`GcMode`]) |
//!
//! # One owner per setting
//!
//! Each setting belongs to the subsystem that executes it. An enum setting
//! is listed once, in its owner's table of [`Choice`]s ([`Choices::TABLE`]):
//! names, other spellings, parsing, the accepted list, every value, and the
//! words saying which CPUs run each value all come from that table. Whether
//! a value can run here is the owner's answer too ([`Choices::check`]: the
//! icache's one includes the calling thread's CET shadow stack, which makes
//! `iret` fault), and [`Config::validate`] only asks each owner. So a value
//! refused by `CodeCache::new` is refused by [`init`] first, with the same
//! words.
//!
//! Adding a fourth setting (say `FASTPATH_GC_MODE`, owned by `gc`):
//! 1. in the owner's module, the enum and its `impl Choices` (a `TABLE` with
//!    one [`Choice`] per value, and `check`), then
//!    `config::choices_setting!(GcMode, "what it selects")` and
//!    `config::choices_api!(GcMode)`, which generate `impl Setting`,
//!    `VAR`, `ACCEPTED`, `name()`, `all()`, `FromStr` and `Display` from the
//!    table (a setting with more than a name, as `SpinPause`'s `:N`,
//!    implements [`Setting`] by hand on top of its table);
//! 2. here, one field of [`Config`] and one line in each of
//!    [`Config::read`], [`Config::validate`], [`variables`] and the
//!    `Display` impl (each a call of the same generic helper).
//!
//! # Two ways in
//!
//! - strict: [`init`] (or [`set`]) parses, validates every requested
//!   instruction against [`crate::cpu::info`], and returns a [`ConfigError`]
//!   naming the bad value, the values that can work on this CPU, and which
//!   CPUs the others are for. A runtime calls it at start, as HotSpot
//!   refuses to start on a bad flag; the lab does.
//! - lazy: [`global`] is infallible. If nothing was initialised, the first
//!   caller reads the variables one by one: each valid one is kept, each bad
//!   one falls back to its default and is reported once (to the hook set by
//!   [`on_invalid_variable`], else to stderr), however many threads race to
//!   be first. It never panics, because it may be first reached from inside
//!   a lock.
//!
//! ```
//! use fastpath::config::{Config, SpinPause};
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

pub use crate::code::icache::ICacheSync;
pub use crate::gc::{BarrierBits, GcMode};
pub use crate::spin::strategy::{PauseInstruction, SpinPause};

/// A configuration value that was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The setting (the environment variable's name).
    pub setting: &'static str,
    /// The value given.
    pub value: String,
    /// Why it was refused (for a table setting, followed by the CPUs each
    /// value not accepted here is for).
    pub reason: String,
    /// The values accepted for this setting on this CPU.
    pub accepted: &'static [&'static str],
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}={:?}: {}; accepted here: {}",
            self.setting,
            self.value,
            self.reason,
            self.accepted.join(", ")
        )
    }
}

impl std::error::Error for ConfigError {}

/// One value of an enum setting, as its owner's table lists it.
#[derive(Clone, Copy, Debug)]
pub struct Choice<T: 'static> {
    /// The value.
    pub value: T,
    /// Its canonical spelling.
    pub name: &'static str,
    /// Other spellings parsing accepts (HotSpot's numbers, for instance).
    pub aliases: &'static [&'static str],
    /// Whether the value exists on the architecture this was built for
    /// (`cfg!(target_arch = ...)`); one that does not is refused by the
    /// parser, naming the architecture it is for.
    pub on_this_arch: bool,
    /// Which CPUs run it, in words, for `--help`, the docs and the error
    /// that refuses it elsewhere ("x86-64 CPUs with SERIALIZE: ...").
    pub runs_on: &'static str,
}

impl<T> Choice<T> {
    /// A row with no other spellings.
    pub const fn new(value: T, name: &'static str, on_this_arch: bool, runs_on: &'static str) -> Self {
        Choice {
            value,
            name,
            aliases: &[],
            on_this_arch,
            runs_on,
        }
    }
}

/// The API every table setting offers, generated from its table: inherent
/// `VAR`, `ACCEPTED` (the names on this architecture), `name()` and
/// `all()`, and `FromStr`/`Display` through [`parse_choice`] and the
/// table's names. Used by each owner right after its `impl Choices`.
macro_rules! choices_api {
    ($ty:ty) => {
        impl $ty {
            /// The environment variable.
            pub const VAR: &'static str = <Self as $crate::config::Choices>::VAR;
            /// The accepted spellings on this architecture, from the table.
            pub const ACCEPTED: &'static [&'static str] = &$crate::config::names_on_this_arch::<
                _,
                { $crate::config::count_on_this_arch(<Self as $crate::config::Choices>::TABLE) },
            >(<Self as $crate::config::Choices>::TABLE);

            /// The canonical name.
            pub fn name(self) -> &'static str {
                $crate::config::Choices::choice(self).name
            }

            /// Every value, of every architecture, in the table's order.
            pub fn all() -> impl Iterator<Item = $ty> {
                <Self as $crate::config::Choices>::TABLE
                    .iter()
                    .map(|c| c.value)
            }
        }

        impl ::std::str::FromStr for $ty {
            type Err = $crate::config::ConfigError;
            fn from_str(s: &str) -> Result<Self, $crate::config::ConfigError> {
                $crate::config::parse_choice(s)
            }
        }

        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}
pub(crate) use choices_api;

/// `impl Setting` for a table setting whose value is the enum itself: parse
/// and validate through its table, and `$about` for `--help`.
macro_rules! choices_setting {
    ($ty:ty, $about:expr) => {
        impl $crate::config::Setting for $ty {
            const VAR: &'static str = <Self as $crate::config::Choices>::VAR;
            fn parse_setting(value: &str) -> Result<Self, $crate::config::ConfigError> {
                $crate::config::parse_choice(value)
            }
            fn validate(self, cpu: &$crate::cpu::CpuInfo) -> Result<(), $crate::config::ConfigError> {
                $crate::config::validate_choice(self, cpu)
            }
            fn variable() -> $crate::config::Variable {
                $crate::config::variable_for::<Self>($about)
            }
        }
    };
}
pub(crate) use choices_setting;

/// An enum setting whose values are listed once, in its owner's table.
pub trait Choices: Copy + PartialEq + fmt::Debug + 'static {
    /// The environment variable.
    const VAR: &'static str;
    /// Every value, in the order `--help` lists them; the first is not
    /// necessarily the default.
    const TABLE: &'static [Choice<Self>];
    /// Whether this value can run on `cpu` (and, where that matters, on the
    /// calling thread); why not, if it cannot. Called only for values of
    /// this architecture.
    fn check(self, cpu: &CpuInfo) -> Result<(), String>;

    /// This value's row of the table.
    fn choice(self) -> &'static Choice<Self> {
        Self::TABLE
            .iter()
            .find(|c| c.value == self)
            .unwrap_or_else(|| panic!("{self:?} is missing from {}'s table", Self::VAR))
    }
}

/// A setting [`Config`] reads, parses and validates: its owner says how.
pub trait Setting: Copy + Default + PartialEq + fmt::Display + 'static {
    /// The environment variable.
    const VAR: &'static str;
    /// Parses a value; refuses what cannot exist on this architecture.
    fn parse_setting(value: &str) -> Result<Self, ConfigError>;
    /// Refuses a value `cpu` (or the calling thread) cannot run.
    fn validate(self, cpu: &CpuInfo) -> Result<(), ConfigError>;
    /// The variable, its values and its default, for `--help`.
    fn variable() -> Variable;
}

/// One `FASTPATH_*` variable as `--help` and the docs describe it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    /// The name.
    pub var: &'static str,
    /// The values accepted on this architecture, `|`-separated.
    pub values: String,
    /// The default.
    pub default: String,
    /// One line on what it selects.
    pub about: &'static str,
}

/// Parses `s` against `T`'s table (case and surrounding blanks ignored).
/// An unknown value, or one of another architecture, is an error listing
/// the values this CPU accepts and the CPUs the others are for.
pub fn parse_choice<T: Choices>(s: &str) -> Result<T, ConfigError> {
    let wanted = s.trim().to_ascii_lowercase();
    let Some(c) = T::TABLE
        .iter()
        .find(|c| c.name == wanted || c.aliases.contains(&wanted.as_str()))
    else {
        return Err(refusal::<T>(s, "unknown value".into(), None, crate::cpu::info()));
    };
    if !c.on_this_arch {
        let reason = format!(
            "`{}` does not exist on {}; it is for {}",
            c.name,
            std::env::consts::ARCH,
            c.runs_on
        );
        return Err(refusal::<T>(s, reason, Some(c.value), crate::cpu::info()));
    }
    Ok(c.value)
}

/// Asks `T`'s owner whether `value` can run on `cpu`; the error names the
/// CPUs it is for.
pub fn validate_choice<T: Choices + fmt::Display>(value: T, cpu: &CpuInfo) -> Result<(), ConfigError> {
    let c = value.choice();
    let why = if c.on_this_arch {
        match value.check(cpu) {
            Ok(()) => return Ok(()),
            Err(why) => why,
        }
    } else {
        format!("`{}` does not exist on {}", c.name, std::env::consts::ARCH)
    };
    Err(refused(value, why, cpu))
}

/// The error refusing `value` for `why`, naming the CPUs it is for (what
/// [`validate_choice`] returns; for an owner whose own resolution said no).
pub fn refused<T: Choices + fmt::Display>(value: T, why: String, cpu: &CpuInfo) -> ConfigError {
    let c = value.choice();
    let reason = format!("{why}; `{}` is for {}", c.name, c.runs_on);
    refusal::<T>(&value.to_string(), reason, Some(value), cpu)
}

/// The `--help` description of an enum setting.
pub fn variable_for<T: Choices + Default + fmt::Display>(about: &'static str) -> Variable {
    Variable {
        var: T::VAR,
        values: T::TABLE
            .iter()
            .filter(|c| c.on_this_arch)
            .map(|c| c.name)
            .collect::<Vec<_>>()
            .join("|"),
        default: T::default().to_string(),
        about,
    }
}

/// The error refusing `value` for `T`: `accepted` holds the values `cpu`
/// can run; `reason` is followed by each other value (but `refused`, which
/// `reason` already placed) and the CPUs it is for.
pub fn refusal<T: Choices>(value: &str, reason: String, refused: Option<T>, cpu: &CpuInfo) -> ConfigError {
    let (here, elsewhere): (Vec<&Choice<T>>, Vec<&Choice<T>>) = T::TABLE
        .iter()
        .partition(|c| c.on_this_arch && c.value.check(cpu).is_ok());
    let mut reason = reason;
    let others: Vec<String> = elsewhere
        .iter()
        .filter(|c| Some(c.value) != refused)
        .map(|c| format!("`{}` is for {}", c.name, c.runs_on))
        .collect();
    if !others.is_empty() {
        reason.push_str(&format!(". Not on this CPU: {}", others.join("; ")));
    }
    ConfigError {
        setting: T::VAR,
        value: value.to_string(),
        reason,
        accepted: intern(here.iter().map(|c| c.name).collect()),
    }
}

/// A `'static` copy of a list of accepted names. Each distinct list is
/// leaked once and reused (a process sees one CPU, so one list per setting,
/// plus those of test fixtures): errors keep `accepted` a plain slice.
pub fn intern(list: Vec<&'static str>) -> &'static [&'static str] {
    static LISTS: Mutex<Vec<&'static [&'static str]>> = Mutex::new(Vec::new());
    // A panic while holding this lock cannot leave the list inconsistent
    // (push is the only mutation): recover from poisoning.
    let mut lists = LISTS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(l) = lists.iter().find(|l| **l == list.as_slice()) {
        return l;
    }
    let l: &'static [&'static str] = Box::leak(list.into_boxed_slice());
    lists.push(l);
    l
}

/// The canonical names of `table`'s values that exist on this architecture,
/// as an array (for the `ACCEPTED` constants); `N` is
/// [`count_on_this_arch`] of the same table.
pub const fn names_on_this_arch<T, const N: usize>(table: &[Choice<T>]) -> [&'static str; N] {
    let mut out = [""; N];
    let (mut i, mut n) = (0, 0);
    while i < table.len() {
        if table[i].on_this_arch {
            out[n] = table[i].name;
            n += 1;
        }
        i += 1;
    }
    out
}

/// How many of `table`'s values exist on this architecture.
pub const fn count_on_this_arch<T>(table: &[Choice<T>]) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < table.len() {
        if table[i].on_this_arch {
            n += 1;
        }
        i += 1;
    }
    n
}

/// How object monitors are locked (HotSpot `-XX:LockingMode`). Owned by
/// `sync`; its table lives here because `sync` is being reworked in its own
/// files, and every value runs on every CPU.
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

impl Choices for LockingMode {
    const VAR: &'static str = "FASTPATH_LOCKING_MODE";
    const TABLE: &'static [Choice<Self>] = &[
        Choice {
            value: LockingMode::Lightweight,
            name: "lightweight",
            aliases: &["2"],
            on_this_arch: true,
            runs_on: "every CPU",
        },
        Choice {
            value: LockingMode::Legacy,
            name: "legacy",
            aliases: &["1"],
            on_this_arch: true,
            runs_on: "every CPU",
        },
        Choice {
            value: LockingMode::Monitor,
            name: "monitor",
            aliases: &["0"],
            on_this_arch: true,
            runs_on: "every CPU",
        },
    ];
    fn check(self, _cpu: &CpuInfo) -> Result<(), String> {
        Ok(())
    }
}

choices_setting!(
    LockingMode,
    "how object monitors are locked (HotSpot -XX:LockingMode)"
);
choices_api!(LockingMode);

/// The whole selection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Config {
    /// Locking mode for `sync`.
    pub locking_mode: LockingMode,
    /// Instruction-cache sync for `code`.
    pub icache_sync: ICacheSync,
    /// Spin pause for `spin` (and the spinning of `sync`).
    pub spin_pause: SpinPause,
    /// Barrier set of a `gc` heap.
    pub gc_barriers: BarrierBits,
    /// When a `gc` heap collects.
    pub gc_mode: GcMode,
}

/// Reads `S` from `lookup` into `field`: unset keeps the default; a bad
/// value keeps the default and is pushed onto `errors`; with `cpu`, the
/// owner's validation too.
fn read_one<S: Setting>(
    lookup: &mut impl FnMut(&str) -> Option<String>,
    cpu: Option<&CpuInfo>,
    field: &mut S,
    errors: &mut Vec<ConfigError>,
) {
    let Some(v) = lookup(S::VAR) else { return };
    match S::parse_setting(&v).and_then(|s| cpu.map_or(Ok(()), |cpu| s.validate(cpu)).map(|()| s)) {
        Ok(s) => *field = s,
        Err(e) => errors.push(e),
    }
}

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
    /// left at its default and returned as an error. What the lazy path of
    /// [`global`] uses, so one bad variable does not cost the others.
    pub fn read(
        mut lookup: impl FnMut(&str) -> Option<String>,
        cpu: Option<&CpuInfo>,
    ) -> (Config, Vec<ConfigError>) {
        let mut c = Config::default();
        let mut errors = Vec::new();
        read_one(&mut lookup, cpu, &mut c.locking_mode, &mut errors);
        read_one(&mut lookup, cpu, &mut c.icache_sync, &mut errors);
        read_one(&mut lookup, cpu, &mut c.spin_pause, &mut errors);
        read_one(&mut lookup, cpu, &mut c.gc_barriers, &mut errors);
        read_one(&mut lookup, cpu, &mut c.gc_mode, &mut errors);
        // The pair: a concurrent mode the set cannot support falls back to
        // the default mode, reported as the other bad values are.
        if let Err(e) = crate::gc::settings::check_pair(c.gc_barriers, c.gc_mode) {
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
        self.locking_mode.validate(cpu)?;
        self.icache_sync.validate(cpu)?;
        self.spin_pause.validate(cpu)?;
        self.gc_barriers.validate(cpu)?;
        self.gc_mode.validate(cpu)?;
        crate::gc::settings::check_pair(self.gc_barriers, self.gc_mode)?;
        Ok(())
    }
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}={} {}={} {}={} {}={} {}={}",
            LockingMode::VAR,
            self.locking_mode,
            ICacheSync::VAR,
            self.icache_sync,
            SpinPause::VAR,
            self.spin_pause,
            BarrierBits::VAR,
            self.gc_barriers,
            GcMode::VAR,
            self.gc_mode
        )
    }
}

/// Every `FASTPATH_*` variable, for `--help` and the docs.
pub fn variables() -> Vec<Variable> {
    vec![
        LockingMode::variable(),
        ICacheSync::variable(),
        SpinPause::variable(),
        BarrierBits::variable(),
        GcMode::variable(),
    ]
}

static GLOBAL: OnceLock<Config> = OnceLock::new();

/// Who hears about a bad variable on the lazy path (see
/// [`on_invalid_variable`]).
type Hook = Box<dyn Fn(&ConfigError) + Send + Sync>;
static HOOK: OnceLock<Hook> = OnceLock::new();

/// Routes the lazy path's reports of bad `FASTPATH_*` variables to `hook`
/// instead of stderr (an embedding runtime's own log). Install it before the
/// first [`global`]; the first hook installed stays, and `false` says one
/// already was.
///
/// ```
/// let installed = fastpath::config::on_invalid_variable(|e| {
///     // e.g. runtime_log::warn(&format!("ignored {e}"));
///     let _ = e;
/// });
/// # let _ = installed;
/// ```
pub fn on_invalid_variable(hook: impl Fn(&ConfigError) + Send + Sync + 'static) -> bool {
    let mut installed = false;
    HOOK.get_or_init(|| {
        installed = true;
        Box::new(hook)
    });
    installed
}

fn report_invalid(e: &ConfigError) {
    match HOOK.get() {
        Some(hook) => hook(e),
        None => eprintln!("fastpath: ignoring {e}; using the default"),
    }
}

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
    lazy_init(
        &GLOBAL,
        |k| std::env::var(k).ok(),
        crate::cpu::info(),
        &report_invalid,
    )
}

/// The lazy path on `cell`: one thread reads the variables (the others wait
/// in `get_or_init`), keeps the good ones and reports each bad one once.
fn lazy_init<'a>(
    cell: &'a OnceLock<Config>,
    lookup: impl FnMut(&str) -> Option<String>,
    cpu: &CpuInfo,
    report: &dyn Fn(&ConfigError),
) -> &'a Config {
    cell.get_or_init(|| {
        let (c, errors) = Config::read(lookup, Some(cpu));
        for e in &errors {
            report(e);
        }
        c
    })
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
        #[cfg(target_arch = "x86_64")]
        {
            assert!(!e.accepted.contains(&"clwb"), "{e}");
            assert!(
                e.accepted.contains(&"cpuid") && e.accepted.contains(&"none"),
                "{e}"
            );
            assert!(e.reason.contains("`clwb` is for x86-64 CPUs with CLWB"), "{e}");
            assert!(e.reason.contains("`dc-ic` is for aarch64 CPUs"), "{e}");
        }
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

#[cfg(test)]
mod lazy_tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

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

    #[test]
    fn the_lazy_path_reports_each_bad_variable_once_across_racing_threads() {
        let cell = Arc::new(OnceLock::new());
        let reports = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (cell, reports) = (cell.clone(), reports.clone());
                std::thread::spawn(move || {
                    let report = |_: &ConfigError| {
                        reports.fetch_add(1, Ordering::SeqCst);
                    };
                    *lazy_init(
                        &cell,
                        env(&[
                            ("FASTPATH_LOCKING_MODE", "bogus"),
                            ("FASTPATH_SPIN_PAUSE", "none:3"),
                        ]),
                        crate::cpu::info(),
                        &report,
                    )
                })
            })
            .collect();
        for t in threads {
            let c = t.join().unwrap();
            assert_eq!(c.spin_pause.repeat, 3);
            assert_eq!(c.locking_mode, LockingMode::Lightweight);
        }
        assert_eq!(reports.load(Ordering::SeqCst), 1);
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
        assert_eq!(vars.len(), 5);
        assert!(vars
            .iter()
            .all(|v| v.var.starts_with("FASTPATH_") && !v.values.is_empty()));
        assert_eq!(
            Config::default().to_string(),
            "FASTPATH_LOCKING_MODE=lightweight FASTPATH_ICACHE_SYNC=auto FASTPATH_SPIN_PAUSE=auto FASTPATH_GC_BARRIERS=shenandoah FASTPATH_GC_MODE=passive"
        );
    }
}
