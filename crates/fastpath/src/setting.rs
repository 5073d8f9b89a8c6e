//! The settings machinery: how a `FASTPATH_*` variable is described,
//! parsed, validated against the CPU, reported when bad, and held as the
//! process-wide value its subsystem reads.
//!
//! Where it sits: under every subsystem that owns a setting (`sync`,
//! `code::icache`, `spin::strategy`, `gc::settings`) and under
//! the `config` module, which only gathers those settings for `init()` and
//! `--help`. It imports nothing of the crate but [`crate::cpu`] (the CPU a
//! value is checked against), which imports none of them: settings flow one
//! way, from this module up to their owners, and from the owners up to
//! `config`.
//!
//! An enum setting is one table of [`Choice`]s in its owner ([`Choices`]):
//! names, other spellings, parsing, the accepted list, every value, and the
//! words saying which CPUs run each value all come from that table. The
//! owner answers whether a value can run here ([`Choices::check`]). Two
//! macros generate the rest from the table (`choices_setting!`: the
//! [`Setting`] impl; `choices_api!`: `VAR`, `ACCEPTED`, `name()`, `all()`,
//! `FromStr`, `Display`). A setting with more than a name (a repeat count,
//! a comma list) implements [`Setting`] by hand on top of its tables.
//!
//! The process-wide value of a setting is a [`ProcessValue`] static in its
//! owner: the first read parses the variable, validates it against this CPU,
//! and keeps the default (reporting the bad value once, see
//! [`on_invalid_variable`]) when it is refused. It never panics: a
//! subsystem may first read it from inside a lock.
//!
//! Adding a setting: its owner defines the value, its table or parser, a
//! `ProcessValue` static that its code reads, and registers it with one
//! line in the `config` module.

use std::fmt;
use std::sync::{Mutex, OnceLock};

use crate::cpu::CpuInfo;

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

    /// A row that exists on every architecture and runs on every CPU.
    pub const fn everywhere(value: T, name: &'static str) -> Self {
        Choice::new(value, name, true, "every CPU")
    }
}

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

/// A setting: one environment variable, its parser and its validation.
pub trait Setting: Copy + Default + PartialEq + fmt::Display + Send + Sync + 'static {
    /// The environment variable.
    const VAR: &'static str;
    /// Parses a value; refuses what cannot exist on this architecture.
    fn parse_setting(value: &str) -> Result<Self, ConfigError>;
    /// Refuses a value `cpu` (or the calling thread) cannot run. A value
    /// built in code skips the parser, so this repeats its checks.
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

/// The API every table setting offers, generated from its table: inherent
/// `VAR`, `ACCEPTED` (the names on this architecture), `name()` and
/// `all()`, and `FromStr`/`Display` through the table. Used by each owner
/// right after its `impl Choices`.
macro_rules! choices_api {
    ($ty:ty) => {
        impl $ty {
            /// The environment variable.
            pub const VAR: &'static str = <Self as $crate::setting::Choices>::VAR;
            /// The accepted spellings on this architecture, from the table.
            pub const ACCEPTED: &'static [&'static str] = &$crate::setting::names_on_this_arch::<
                _,
                { $crate::setting::count_on_this_arch(<Self as $crate::setting::Choices>::TABLE) },
            >(<Self as $crate::setting::Choices>::TABLE);

            /// The canonical name.
            pub fn name(self) -> &'static str {
                $crate::setting::Choices::choice(self).name
            }

            /// Every value, of every architecture, in the table's order.
            pub fn all() -> impl Iterator<Item = $ty> {
                <Self as $crate::setting::Choices>::TABLE
                    .iter()
                    .map(|c| c.value)
            }
        }

        impl ::std::str::FromStr for $ty {
            type Err = $crate::setting::ConfigError;
            fn from_str(s: &str) -> Result<Self, $crate::setting::ConfigError> {
                $crate::setting::parse_choice(s)
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
        impl $crate::setting::Setting for $ty {
            const VAR: &'static str = <Self as $crate::setting::Choices>::VAR;
            fn parse_setting(value: &str) -> Result<Self, $crate::setting::ConfigError> {
                $crate::setting::parse_choice(value)
            }
            fn validate(self, cpu: &$crate::cpu::CpuInfo) -> Result<(), $crate::setting::ConfigError> {
                $crate::setting::validate_choice(self, cpu)
            }
            fn variable() -> $crate::setting::Variable {
                $crate::setting::variable_for::<Self>($about)
            }
        }
    };
}
pub(crate) use choices_setting;

/// A whole-number setting in `MIN..=MAX`: a newtype with `VAR`, `MIN`,
/// `MAX`, `Default` (`$default`, which may depend on the machine),
/// `Display`, `FromStr` and [`Setting`], for a tunable that starts from its
/// variable.
macro_rules! number_setting {
    (
        $(#[$doc:meta])*
        $name:ident($int:ty): $var:literal, $min:literal..=$max:literal,
        default $default:expr, $about:literal
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $name(pub $int);

        impl $name {
            /// The environment variable.
            pub const VAR: &'static str = $var;
            /// The smallest accepted value.
            pub const MIN: $int = $min;
            /// The largest accepted value.
            pub const MAX: $int = $max;

            fn refusal(value: &str, reason: String) -> $crate::setting::ConfigError {
                $crate::setting::ConfigError {
                    setting: $var,
                    value: value.to_string(),
                    reason,
                    accepted: &[concat!(stringify!($min), "-", stringify!($max))],
                }
            }
        }

        impl Default for $name {
            fn default() -> Self {
                $name($default)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, "{}", self.0)
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::setting::ConfigError;
            fn from_str(s: &str) -> Result<Self, $crate::setting::ConfigError> {
                <Self as $crate::setting::Setting>::parse_setting(s)
            }
        }

        impl $crate::setting::Setting for $name {
            const VAR: &'static str = $var;
            fn parse_setting(value: &str) -> Result<Self, $crate::setting::ConfigError> {
                let n = value
                    .trim()
                    .parse::<$int>()
                    .map_err(|_| Self::refusal(value, "not a whole number".into()))?;
                $crate::setting::Setting::validate($name(n), $crate::cpu::info()).map(|()| $name(n))
            }
            fn validate(self, _cpu: &$crate::cpu::CpuInfo) -> Result<(), $crate::setting::ConfigError> {
                if (Self::MIN..=Self::MAX).contains(&self.0) {
                    Ok(())
                } else {
                    Err(Self::refusal(
                        &self.0.to_string(),
                        format!("{} is outside {}..={}", self.0, Self::MIN, Self::MAX),
                    ))
                }
            }
            fn variable() -> $crate::setting::Variable {
                $crate::setting::Variable {
                    var: $var,
                    values: format!("{}-{}", Self::MIN, Self::MAX),
                    default: Self::default().to_string(),
                    about: $about,
                }
            }
        }
    };
}
pub(crate) use number_setting;

/// Parses `s` against `T`'s table (case and surrounding blanks ignored).
/// An unknown value, or one of another architecture, is an error listing
/// the values this CPU accepts and the CPUs the others are for.
pub(crate) fn parse_choice<T: Choices>(s: &str) -> Result<T, ConfigError> {
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
pub(crate) fn validate_choice<T: Choices + fmt::Display>(value: T, cpu: &CpuInfo) -> Result<(), ConfigError> {
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
pub(crate) fn refused<T: Choices + fmt::Display>(value: T, why: String, cpu: &CpuInfo) -> ConfigError {
    let c = value.choice();
    let reason = format!("{why}; `{}` is for {}", c.name, c.runs_on);
    refusal::<T>(&value.to_string(), reason, Some(value), cpu)
}

/// The `--help` description of an enum setting.
pub(crate) fn variable_for<T: Choices + Default + fmt::Display>(about: &'static str) -> Variable {
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
pub(crate) fn refusal<T: Choices>(
    value: &str,
    reason: String,
    refused: Option<T>,
    cpu: &CpuInfo,
) -> ConfigError {
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
pub(crate) fn intern(list: Vec<&'static str>) -> &'static [&'static str] {
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
pub(crate) const fn names_on_this_arch<T, const N: usize>(table: &[Choice<T>]) -> [&'static str; N] {
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
pub(crate) const fn count_on_this_arch<T>(table: &[Choice<T>]) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < table.len() {
        if table[i].on_this_arch {
            n += 1;
        }
        i += 1;
    }
    n
}

/// Reads `S` through `lookup`: `None` when unset; with `cpu`, the value is
/// also validated against it.
pub(crate) fn read<S: Setting>(
    lookup: &mut impl FnMut(&str) -> Option<String>,
    cpu: Option<&CpuInfo>,
) -> Option<Result<S, ConfigError>> {
    let v = lookup(S::VAR)?;
    Some(S::parse_setting(&v).and_then(|s| cpu.map_or(Ok(()), |cpu| s.validate(cpu)).map(|()| s)))
}

/// Who hears about a bad variable on the lazy path (see
/// [`on_invalid_variable`]).
type Hook = Box<dyn Fn(&ConfigError) + Send + Sync>;
static HOOK: OnceLock<Hook> = OnceLock::new();

/// Routes the reports of bad `FASTPATH_*` variables that a subsystem read
/// lazily (kept at their defaults) to `hook` instead of stderr: an
/// embedding runtime's own log. Install it before the first use of the
/// library; the first hook installed stays, and `false` says one already
/// was.
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

/// The process-wide value of setting `S`, held by the subsystem that obeys
/// it. Fixed once: by the first read (from the environment) or by
/// `config::init`/`config::set`, whichever comes first,
/// since subsystems bake it into their fast paths.
pub(crate) struct ProcessValue<S: Setting> {
    cell: OnceLock<S>,
}

impl<S: Setting> ProcessValue<S> {
    /// Unset: the first [`get`](Self::get) reads the environment.
    pub(crate) const fn new() -> Self {
        ProcessValue {
            cell: OnceLock::new(),
        }
    }

    /// The value in force; the first call reads `S::VAR` (a bad value is
    /// reported once and the default kept). Never fails, never panics.
    #[inline]
    pub(crate) fn get(&self) -> S {
        match self.cell.get() {
            Some(v) => *v,
            None => self.get_slow(|_| Ok(())),
        }
    }

    /// As [`get`](Self::get), where a value must also agree with other
    /// settings: `fits` refuses a value read from the environment, which
    /// then falls back to the default as a bad variable does.
    #[inline]
    pub(crate) fn get_fitting(&self, fits: impl FnOnce(S) -> Result<(), ConfigError>) -> S {
        match self.cell.get() {
            Some(v) => *v,
            None => self.get_slow(fits),
        }
    }

    #[cold]
    fn get_slow(&self, fits: impl FnOnce(S) -> Result<(), ConfigError>) -> S {
        self.read_once(
            |k| std::env::var(k).ok(),
            crate::cpu::info(),
            &report_invalid,
            fits,
        )
    }

    /// The lazy path: one thread reads the variable (racing readers wait in
    /// `get_or_init`), keeps a good value and reports a bad one once.
    fn read_once(
        &self,
        mut lookup: impl FnMut(&str) -> Option<String>,
        cpu: &CpuInfo,
        report: &dyn Fn(&ConfigError),
        fits: impl FnOnce(S) -> Result<(), ConfigError>,
    ) -> S {
        *self.cell.get_or_init(|| {
            let read = read::<S>(&mut lookup, Some(cpu)).unwrap_or(Ok(S::default()));
            match read.and_then(|s| fits(s).map(|()| s)) {
                Ok(s) => s,
                Err(e) => {
                    report(&e);
                    S::default()
                }
            }
        })
    }

    /// The value, if one is fixed already.
    pub(crate) fn peek(&self) -> Option<S> {
        self.cell.get().copied()
    }

    /// Fixes `value` unless a value is fixed already; returns the one in
    /// force.
    pub(crate) fn install(&self, value: S) -> S {
        *self.cell.get_or_init(|| value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// A two-value table setting of this file's own, so these tests depend
    /// on no subsystem.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    enum Knob {
        #[default]
        Low,
        High,
    }

    impl Choices for Knob {
        const VAR: &'static str = "FASTPATH_TEST_KNOB";
        const TABLE: &'static [Choice<Self>] = &[
            Choice {
                value: Knob::Low,
                name: "low",
                aliases: &["0"],
                on_this_arch: true,
                runs_on: "every CPU",
            },
            Choice::new(Knob::High, "high", true, "CPUs with nothing"),
        ];
        fn check(self, cpu: &CpuInfo) -> Result<(), String> {
            match self {
                Knob::High if cpu.features == Default::default() => Err("no features".into()),
                _ => Ok(()),
            }
        }
    }
    choices_setting!(Knob, "a test knob");
    choices_api!(Knob);

    #[test]
    fn a_table_gives_names_parsing_and_refusals() {
        assert_eq!(Knob::ACCEPTED, ["low", "high"]);
        assert_eq!(" LOW ".parse::<Knob>().unwrap(), Knob::Low);
        assert_eq!("0".parse::<Knob>().unwrap(), Knob::Low);
        assert_eq!(Knob::all().collect::<Vec<_>>(), [Knob::Low, Knob::High]);
        let e = "medium".parse::<Knob>().unwrap_err();
        assert_eq!((e.setting, e.value.as_str()), ("FASTPATH_TEST_KNOB", "medium"));
        let mut bare = crate::cpu::info().clone();
        bare.features = Default::default();
        let e = Knob::High.validate(&bare).unwrap_err();
        assert_eq!(e.accepted, ["low"]);
        assert!(e.reason.contains("`high` is for CPUs with nothing"), "{e}");
        assert_eq!(Knob::variable().values, "low|high");
    }

    #[test]
    fn the_lazy_path_reports_a_bad_variable_once_across_racing_threads() {
        let value = Arc::new(ProcessValue::<Knob>::new());
        let reports = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (value, reports) = (value.clone(), reports.clone());
                std::thread::spawn(move || {
                    let report = |_: &ConfigError| {
                        reports.fetch_add(1, Ordering::SeqCst);
                    };
                    value.read_once(
                        |k| (k == "FASTPATH_TEST_KNOB").then(|| "bogus".to_string()),
                        crate::cpu::info(),
                        &report,
                        |_| Ok(()),
                    )
                })
            })
            .collect();
        for t in threads {
            assert_eq!(t.join().unwrap(), Knob::Low);
        }
        assert_eq!(reports.load(Ordering::SeqCst), 1);
        // Fixed now: a later install keeps the value in force.
        assert_eq!(value.install(Knob::High), Knob::Low);
        assert_eq!(value.peek(), Some(Knob::Low));
    }

    #[test]
    fn a_value_that_does_not_fit_falls_back_to_the_default() {
        let value = ProcessValue::<Knob>::new();
        let reported = std::cell::Cell::new(0);
        let got = value.read_once(
            |_| Some("high".into()),
            crate::cpu::info(),
            &|_| reported.set(reported.get() + 1),
            |k| match k {
                Knob::High => Err(ConfigError {
                    setting: Knob::VAR,
                    value: "high".into(),
                    reason: "not with the other knob".into(),
                    accepted: &["low"],
                }),
                Knob::Low => Ok(()),
            },
        );
        assert_eq!((got, reported.get()), (Knob::Low, 1));
    }
}
