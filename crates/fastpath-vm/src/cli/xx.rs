//! `-XX:` options: the HotSpot flags fastpath-vm has a counterpart for,
//! read as HotSpot reads them, and turned into the library's `FASTPATH_*`
//! settings (which they override) and the VM's own options.
//!
//! Where it sits: between the command line (`cli`) and `Vm::boot`, which
//! installs the settings through `fastpath::config::set` before anything
//! reads them. A flag HotSpot has and fastpath-vm does not is refused with
//! HotSpot's words (`Unrecognized VM option 'X'`) unless
//! `-XX:+IgnoreUnrecognizedVMOptions` is given, as HotSpot does: a flag
//! silently ignored would let a script believe it measured what it did not.
//!
//! | flag | fastpath setting |
//! |---|---|
//! | `LockingMode=0/1/2` | `FASTPATH_LOCKING_MODE` `monitor`/`legacy`/`lightweight` |
//! | `+UseSerialGC`, `+UseParallelGC` | the one collector, passive, `serial` barriers (both HotSpot collectors use the card-table barrier) |
//! | `+UseG1GC` | passive, `g1` barriers |
//! | `+UseShenandoahGC` | `ShenandoahGCMode` `satb` (default): concurrent, `satb,lrb,cas`; `passive` (diagnostic): passive, no barriers |
//! | none of these, no `FASTPATH_GC_BARRIERS` | with the passive collector (`FASTPATH_GC_MODE` unset or `passive`) no barriers, which it does not need (`runtime::vm::ergonomic_settings`; `PrintFlagsFinal` shows `{ergonomic}`); with `FASTPATH_GC_MODE=concurrent` the library's default set, `shenandoah` |
//! | `±ShenandoahSATBBarrier`, `±ShenandoahLoadRefBarrier`, `±ShenandoahCASBarrier` (diagnostic) | add or remove `satb`, `lrb`, `cas` from Shenandoah's set |
//! | `ShenandoahImmediateThreshold=0..100` (experimental) | `FASTPATH_GC_IMMEDIATE_GARBAGE`: the share of a cycle's garbage in wholly dead regions above which it ends at final mark (HotSpot 25's default is 70, the library's 90) |
//! | `X86ICacheSync=-1..5` (diagnostic, x86-64) | `FASTPATH_ICACHE_SYNC` `auto`, `none`, `clflush`, `clflushopt`, `clwb`, `cpuid`, `serialize` |
//! | `OnSpinWaitInst=NAME`, `OnSpinWaitInstCount=1..99` | `FASTPATH_SPIN_PAUSE` `NAME:COUNT` (HotSpot's AArch64 flags; on x86-64 the names are `none`, `pause`, `tpause`) |
//! | `LightweightFastLockingSpins=N` (diagnostic) | `FASTPATH_FAST_LOCKING_SPINS` (the library takes 0–20) |
//! | `AsyncDeflationInterval=MS`, `MonitorUsedDeflationThreshold=0..100` (diagnostic) | `FASTPATH_DEFLATION_INTERVAL_MS`, `FASTPATH_DEFLATION_THRESHOLD` |
//! | `ParallelGCThreads=N`, `ConcGCThreads=N` | `FASTPATH_GC_WORKERS` (one pool serves both) |
//! | `±UseCompressedOops` | `FASTPATH_GC_REFS` `compressed`/`full`; neither given, the VM chooses 4-byte references for a heap that they reach, as HotSpot's ergonomics do: unscaled (`unscaled`, the address itself, the heap below 4 GiB) for a heap up to 2 GiB, else compressed |
//! | `CompileThreshold=N` | interpreted calls before a method is compiled |
//! | `-UseOnStackReplacement` | no interpreted loop moves to compiled code while it runs |
//! | `-BackgroundCompilation` (also `-Xbatch`) | the thread that finds a method hot compiles it and waits, instead of queuing it for the compiler thread |
//! | `-OptimizeStringConcat` | `StringBuilder` chains run as written, each `append` a call (by default the pre-decoder fuses a chain that never escapes into one concatenation, as C2 does) |
//! | `-EliminateLocks` | compiled code releases and re-acquires a lock at every `monitorexit` and `monitorenter` (no lock coarsening) |
//! | `-OmitStackTraceInFastThrow` | what fastpath-vm always does: every implicit exception (null pointer, array index, array store, class cast, arithmetic) is a new object with its message and stack trace. HotSpot's default, `+`, lets C2 throw one preallocated exception without either from a hot site, so a program's output then depends on when C2 compiled it; fastpath-vm refuses `+` (it has no such exceptions) and takes `-` so that a command line runs the same on both |
//! | `+VerifyAfterGC` (diagnostic) | the collector's verifier after every cycle |
//! | `+PrintFlagsFinal` | prints these flags' values in force at start, with `GCBarriers` (fastpath's name for the barrier set in force) |
//!
//! `+UnlockDiagnosticVMOptions` must precede a diagnostic flag and
//! `+UnlockExperimentalVMOptions` an experimental one, as in HotSpot. Shenandoah's flags apply only with `+UseShenandoahGC` (HotSpot
//! ignores them under another collector). ZGC and Epsilon have no
//! counterpart and are refused.

use fastpath::code::ICacheSync;
use fastpath::config::Config;
use fastpath::gc::layout::RefWidth;
use fastpath::gc::{BarrierBits, GcImmediateGarbage, GcMode, GcWorkers};
use fastpath::spin::SpinPause;
use fastpath::sync::LockingMode;

/// What a command line's `-XX:` options select.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct XxOptions {
    /// `FASTPATH_*` settings as (variable, value), in the order given;
    /// they win over the environment.
    pub settings: Vec<(&'static str, String)>,
    /// `-XX:CompileThreshold`.
    pub compile_threshold: Option<u32>,
    /// `-XX:-UseOnStackReplacement`.
    pub no_osr: bool,
    /// `-XX:-BackgroundCompilation` (`-Xbatch`).
    pub no_background: bool,
    /// `-XX:-EliminateLocks`.
    pub no_eliminate_locks: bool,
    /// `-XX:-OptimizeStringConcat`.
    pub no_optimize_string_concat: bool,
    /// `-XX:+VerifyAfterGC`.
    pub verify_after_gc: bool,
    /// `-XX:-OmitStackTraceInFastThrow` given (the VM's only behaviour).
    pub full_fast_throw_given: bool,
    /// `-XX:+PrintFlagsFinal`.
    pub print_flags_final: bool,
}

/// The variable the fast-lock spin count is read from.
const FAST_LOCKING_SPINS_VAR: &str = "FASTPATH_FAST_LOCKING_SPINS";
/// The variable the deflation interval is read from.
const DEFLATION_INTERVAL_VAR: &str = "FASTPATH_DEFLATION_INTERVAL_MS";
/// The variable the deflation threshold is read from.
const DEFLATION_THRESHOLD_VAR: &str = "FASTPATH_DEFLATION_THRESHOLD";

/// How a flag is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `-XX:+Name` / `-XX:-Name`.
    Bool,
    /// `-XX:Name=N` within a range.
    Int(i64, i64),
    /// `-XX:Name=TEXT`.
    Text,
}

/// One flag fastpath-vm knows.
struct Flag {
    name: &'static str,
    kind: Kind,
    /// HotSpot's diagnostic flags need `+UnlockDiagnosticVMOptions` first.
    diagnostic: bool,
    /// HotSpot's experimental flags need `+UnlockExperimentalVMOptions` first.
    experimental: bool,
}

const fn flag(name: &'static str, kind: Kind, diagnostic: bool) -> Flag {
    Flag {
        name,
        kind,
        diagnostic,
        experimental: false,
    }
}

const fn experimental(name: &'static str, kind: Kind) -> Flag {
    Flag {
        name,
        kind,
        diagnostic: false,
        experimental: true,
    }
}

const FLAGS: &[Flag] = &[
    flag("UnlockDiagnosticVMOptions", Kind::Bool, false),
    flag("UnlockExperimentalVMOptions", Kind::Bool, false),
    flag("IgnoreUnrecognizedVMOptions", Kind::Bool, false),
    flag("PrintFlagsFinal", Kind::Bool, false),
    flag("UseSerialGC", Kind::Bool, false),
    flag("UseParallelGC", Kind::Bool, false),
    flag("UseG1GC", Kind::Bool, false),
    flag("UseShenandoahGC", Kind::Bool, false),
    flag("UseZGC", Kind::Bool, false),
    flag("UseEpsilonGC", Kind::Bool, false),
    flag("ShenandoahGCMode", Kind::Text, false),
    flag("ShenandoahSATBBarrier", Kind::Bool, true),
    flag("ShenandoahLoadRefBarrier", Kind::Bool, true),
    flag("ShenandoahCASBarrier", Kind::Bool, true),
    experimental("ShenandoahImmediateThreshold", Kind::Int(0, 100)),
    flag("LockingMode", Kind::Int(0, 2), false),
    #[cfg(target_arch = "x86_64")]
    flag("X86ICacheSync", Kind::Int(-1, 5), true),
    flag("OnSpinWaitInst", Kind::Text, false),
    flag("OnSpinWaitInstCount", Kind::Int(1, 99), false),
    flag("LightweightFastLockingSpins", Kind::Int(1, 30), true),
    flag("AsyncDeflationInterval", Kind::Int(0, i32::MAX as i64), true),
    flag("MonitorUsedDeflationThreshold", Kind::Int(0, 100), true),
    flag("ParallelGCThreads", Kind::Int(0, u32::MAX as i64), false),
    flag("ConcGCThreads", Kind::Int(0, u32::MAX as i64), false),
    flag("UseCompressedOops", Kind::Bool, false),
    flag("CompileThreshold", Kind::Int(0, i32::MAX as i64), false),
    flag("UseOnStackReplacement", Kind::Bool, false),
    flag("BackgroundCompilation", Kind::Bool, false),
    flag("EliminateLocks", Kind::Bool, false),
    flag("OptimizeStringConcat", Kind::Bool, false),
    flag("VerifyAfterGC", Kind::Bool, true),
    flag("OmitStackTraceInFastThrow", Kind::Bool, false),
];

/// A flag's value as written.
#[derive(Clone, Debug)]
enum Value {
    Bool(bool),
    Int(i64),
    Text(String),
}

/// The collectors HotSpot selects with `-XX:+Use…GC`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Gc {
    Serial,
    Parallel,
    G1,
    Shenandoah,
    Z,
    Epsilon,
}

/// The flags as read, before they become settings.
#[derive(Default)]
struct Read {
    unlock_diagnostic: bool,
    unlock_experimental: bool,
    gcs: Vec<Gc>,
    shenandoah_passive: Option<bool>,
    /// `satb`, `lrb`, `cas`: on, off, or the mode's default.
    shenandoah_barriers: [Option<bool>; 3],
    /// `ShenandoahImmediateThreshold`, applied only with Shenandoah.
    shenandoah_immediate: Option<i64>,
    spin_instruction: Option<String>,
    spin_count: Option<i64>,
    out: XxOptions,
}

/// What HotSpot prints after a command line it refuses.
const CANNOT_CREATE: &str =
    "Error: Could not create the Java Virtual Machine.\nError: A fatal exception has occurred. Program will exit.";

/// What HotSpot prints before a flag combination it refuses at start.
const INIT_ERROR: &str = "Error occurred during initialization of VM";

/// Reads the `-XX:` options (each without its `-XX:` prefix), in command
/// line order. `Err` is the message to print before exiting with 1.
pub fn parse(options: &[&str]) -> Result<XxOptions, String> {
    let ignore_unrecognized = options.contains(&"+IgnoreUnrecognizedVMOptions");
    let mut r = Read::default();
    for &text in options {
        let (name, value) = match split(text) {
            Ok(Some(nv)) => nv,
            Ok(None) => continue,
            Err(msg) => return Err(format!("{msg}\n{CANNOT_CREATE}")),
        };
        let Some(flag) = FLAGS.iter().find(|f| f.name == name) else {
            if ignore_unrecognized {
                continue;
            }
            return Err(format!(
                "Unrecognized VM option '{}'\n{}{CANNOT_CREATE}",
                text.trim_start_matches(['+', '-']),
                did_you_mean(name)
            ));
        };
        if flag.experimental && !r.unlock_experimental {
            return Err(format!(
                "Error: VM option '{name}' is experimental and must be enabled via -XX:+UnlockExperimentalVMOptions.\nError: The unlock option must precede '{name}'.\nImproperly specified VM option '{}'\n{CANNOT_CREATE}",
                text.trim_start_matches(['+', '-'])
            ));
        }
        if flag.diagnostic && !r.unlock_diagnostic {
            return Err(format!(
                "Error: VM option '{name}' is diagnostic and must be enabled via -XX:+UnlockDiagnosticVMOptions.\nError: The unlock option must precede '{name}'.\nImproperly specified VM option '{}'\n{CANNOT_CREATE}",
                text.trim_start_matches(['+', '-'])
            ));
        }
        let value = typed(flag, text, value).map_err(|msg| format!("{msg}\n{CANNOT_CREATE}"))?;
        r.apply(flag.name, value, text)
            .map_err(|msg| format!("{msg}\n{CANNOT_CREATE}"))?;
    }
    r.finish()
}

/// `+Name`, `-Name`, `Name=value`: the name and what follows it (`None`
/// for an empty option).
fn split(text: &str) -> Result<Option<(&str, Option<&str>)>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    if let Some(name) = text.strip_prefix('+').or_else(|| text.strip_prefix('-')) {
        return Ok(Some((name, None)));
    }
    if let Some((name, value)) = text.split_once('=') {
        return Ok(Some((name, Some(value))));
    }
    // `-XX:Name` with neither a sign nor a value.
    match FLAGS.iter().find(|f| f.name == text) {
        Some(f) if f.kind == Kind::Bool => Err(format!("Missing +/- setting for VM option '{text}'")),
        Some(_) => Err(format!("Improperly specified VM option '{text}'")),
        None => Ok(Some((text, Some("")))),
    }
}

/// HotSpot's hint after an unknown flag: the known flag most like it, if
/// any is alike enough (a Dice coefficient over adjacent letter pairs
/// above 0.7, the measure of HotSpot's `StringUtils::similarity`).
fn did_you_mean(name: &str) -> String {
    fn pairs(s: &str) -> Vec<(char, char)> {
        let c: Vec<char> = s.to_ascii_lowercase().chars().collect();
        c.windows(2).map(|w| (w[0], w[1])).collect()
    }
    let similarity = |a: &str, b: &str| {
        let (x, mut y) = (pairs(a), pairs(b));
        let total = x.len() + y.len();
        if total == 0 {
            return 0.0;
        }
        let mut hits = 0;
        for p in x {
            if let Some(i) = y.iter().position(|&q| q == p) {
                y.swap_remove(i);
                hits += 1;
            }
        }
        2.0 * hits as f64 / total as f64
    };
    let best = FLAGS
        .iter()
        .map(|f| (similarity(name, f.name), f))
        .filter(|(s, _)| *s > 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match best {
        Some((_, f)) if f.kind == Kind::Bool => format!("Did you mean '(+/-){}'?\n", f.name),
        Some((_, f)) => format!("Did you mean '{}=<value>'?\n", f.name),
        None => String::new(),
    }
}

/// The value `text` gives `flag`, checked against its kind and range.
fn typed(flag: &Flag, text: &str, value: Option<&str>) -> Result<Value, String> {
    let shown = text.trim_start_matches(['+', '-']);
    match (flag.kind, value) {
        (Kind::Bool, None) => Ok(Value::Bool(text.starts_with('+'))),
        (Kind::Bool, Some(_)) => Err(format!("Improperly specified VM option '{shown}'")),
        (_, None) => Err(format!("Unexpected +/- setting in VM option '{}'", flag.name)),
        (Kind::Int(min, max), Some(v)) => {
            let n: i64 = v
                .trim()
                .parse()
                .map_err(|_| format!("Improperly specified VM option '{shown}'"))?;
            if n < min || n > max {
                return Err(format!(
                    "int {}={n} is outside the allowed range [ {min} ... {max} ]\nImproperly specified VM option '{shown}'",
                    flag.name
                ));
            }
            Ok(Value::Int(n))
        }
        (Kind::Text, Some(v)) => Ok(Value::Text(v.to_string())),
    }
}

impl Read {
    fn apply(&mut self, name: &'static str, value: Value, text: &str) -> Result<(), String> {
        let shown = text.trim_start_matches(['+', '-']);
        let gc = |on: bool, gc: Gc, gcs: &mut Vec<Gc>| {
            gcs.retain(|&g| g != gc);
            if on {
                gcs.push(gc);
            }
        };
        match (name, value) {
            ("UnlockDiagnosticVMOptions", Value::Bool(on)) => self.unlock_diagnostic = on,
            ("UnlockExperimentalVMOptions", Value::Bool(on)) => self.unlock_experimental = on,
            ("IgnoreUnrecognizedVMOptions", _) => {}
            ("PrintFlagsFinal", Value::Bool(on)) => self.out.print_flags_final = on,
            ("UseSerialGC", Value::Bool(on)) => gc(on, Gc::Serial, &mut self.gcs),
            ("UseParallelGC", Value::Bool(on)) => gc(on, Gc::Parallel, &mut self.gcs),
            ("UseG1GC", Value::Bool(on)) => gc(on, Gc::G1, &mut self.gcs),
            ("UseShenandoahGC", Value::Bool(on)) => gc(on, Gc::Shenandoah, &mut self.gcs),
            ("UseZGC", Value::Bool(on)) => gc(on, Gc::Z, &mut self.gcs),
            ("UseEpsilonGC", Value::Bool(on)) => gc(on, Gc::Epsilon, &mut self.gcs),
            ("ShenandoahGCMode", Value::Text(mode)) => {
                self.shenandoah_passive = Some(match mode.as_str() {
                    "satb" => false,
                    "passive" if self.unlock_diagnostic => true,
                    "passive" => {
                        return Err(format!(
                            "{INIT_ERROR}\nGC mode \"Passive\" is diagnostic, and must be enabled via -XX:+UnlockDiagnosticVMOptions."
                        ))
                    }
                    "generational" => {
                        return Err(format!(
                            "{INIT_ERROR}\nShenandoahGCMode=generational: fastpath-vm's collector has no generations (its modes: satb, passive)"
                        ))
                    }
                    _ => return Err(format!("{INIT_ERROR}\nUnknown -XX:ShenandoahGCMode option")),
                })
            }
            ("ShenandoahSATBBarrier", Value::Bool(on)) => self.shenandoah_barriers[0] = Some(on),
            ("ShenandoahLoadRefBarrier", Value::Bool(on)) => self.shenandoah_barriers[1] = Some(on),
            ("ShenandoahCASBarrier", Value::Bool(on)) => self.shenandoah_barriers[2] = Some(on),
            ("ShenandoahImmediateThreshold", Value::Int(p)) => {
                check(GcImmediateGarbage::VAR, &p.to_string(), shown)?;
                self.shenandoah_immediate = Some(p);
            }
            ("LockingMode", Value::Int(n)) => {
                // HotSpot's numbering: LM_MONITOR 0, LM_LEGACY 1, LM_LIGHTWEIGHT 2.
                let mode = [LockingMode::Monitor, LockingMode::Legacy, LockingMode::Lightweight][n as usize];
                self.set(LockingMode::VAR, mode.name().to_string(), shown)?;
            }
            ("X86ICacheSync", Value::Int(n)) => {
                // HotSpot's numbering (-1: chosen for the CPU).
                let names = ["auto", "none", "clflush", "clflushopt", "clwb", "cpuid", "serialize"];
                self.set(ICacheSync::VAR, names[(n + 1) as usize].to_string(), shown)?;
            }
            ("OnSpinWaitInst", Value::Text(inst)) => {
                check(SpinPause::VAR, &inst, shown)?;
                self.spin_instruction = Some(inst);
            }
            ("OnSpinWaitInstCount", Value::Int(n)) => self.spin_count = Some(n),
            ("LightweightFastLockingSpins", Value::Int(n)) => self.set(FAST_LOCKING_SPINS_VAR, n.to_string(), shown)?,
            ("AsyncDeflationInterval", Value::Int(ms)) => self.set(DEFLATION_INTERVAL_VAR, ms.to_string(), shown)?,
            ("MonitorUsedDeflationThreshold", Value::Int(p)) => {
                self.set(DEFLATION_THRESHOLD_VAR, p.to_string(), shown)?
            }
            ("ParallelGCThreads" | "ConcGCThreads", Value::Int(n)) => self.set(GcWorkers::VAR, n.to_string(), shown)?,
            ("UseCompressedOops", Value::Bool(on)) => {
                let width = if on { RefWidth::Compressed } else { RefWidth::Full };
                self.set(RefWidth::VAR, width.name().to_string(), shown)?
            }
            ("CompileThreshold", Value::Int(n)) => self.out.compile_threshold = Some(n as u32),
            ("UseOnStackReplacement", Value::Bool(on)) => self.out.no_osr = !on,
            ("BackgroundCompilation", Value::Bool(on)) => self.out.no_background = !on,
            ("EliminateLocks", Value::Bool(on)) => self.out.no_eliminate_locks = !on,
            ("OptimizeStringConcat", Value::Bool(on)) => self.out.no_optimize_string_concat = !on,
            ("VerifyAfterGC", Value::Bool(on)) => self.out.verify_after_gc = on,
            ("OmitStackTraceInFastThrow", Value::Bool(false)) => self.out.full_fast_throw_given = true,
            ("OmitStackTraceInFastThrow", Value::Bool(true)) => {
                return Err(format!(
                    "Improperly specified VM option '{shown}'\nfastpath-vm throws every implicit exception with its message and stack trace (it has no preallocated ones): only -XX:-OmitStackTraceInFastThrow is taken"
                ))
            }
            (name, value) => unreachable!("FLAGS lists {name} with a kind apply does not take: {value:?}"),
        }
        Ok(())
    }

    /// Records a setting after the library's own parser accepts its value.
    fn set(&mut self, var: &'static str, value: String, shown: &str) -> Result<(), String> {
        check(var, &value, shown)?;
        self.out.settings.retain(|(v, _)| *v != var);
        self.out.settings.push((var, value));
        Ok(())
    }

    /// The collector's settings, once every flag is read.
    fn finish(mut self) -> Result<XxOptions, String> {
        let gc = match self.gcs.as_slice() {
            [] => None,
            [one] => Some(*one),
            _ => return Err(format!("{INIT_ERROR}\nMultiple garbage collectors selected")),
        };
        let (barriers, mode) = match gc {
            None => (None, GcMode::default()),
            Some(Gc::Z) | Some(Gc::Epsilon) => {
                return Err(format!(
                    "{INIT_ERROR}\nfastpath-vm has one collector, with the barrier sets of Serial, Parallel, G1 and Shenandoah: -XX:+UseZGC and -XX:+UseEpsilonGC have no counterpart"
                ))
            }
            Some(Gc::Serial) | Some(Gc::Parallel) => (Some("serial".to_string()), GcMode::Passive),
            Some(Gc::G1) => (Some("g1".to_string()), GcMode::Passive),
            Some(Gc::Shenandoah) => {
                let passive = self.shenandoah_passive.unwrap_or(false);
                // Passive mode turns every barrier off unless the command
                // line turns it on (HotSpot's ShenandoahPassiveMode).
                let names = ["satb", "lrb", "cas"];
                let on: Vec<&str> = names
                    .iter()
                    .zip(self.shenandoah_barriers)
                    .filter(|(_, b)| b.unwrap_or(!passive))
                    .map(|(n, _)| *n)
                    .collect();
                let list = if on.is_empty() { "none".to_string() } else { on.join(",") };
                if let Some(p) = self.shenandoah_immediate {
                    self.out.settings.push((GcImmediateGarbage::VAR, p.to_string()));
                }
                (Some(list), if passive { GcMode::Passive } else { GcMode::Concurrent })
            }
        };
        if let Some(list) = barriers {
            let bits: BarrierBits = list.parse().map_err(|e| format!("{INIT_ERROR}\n{e}"))?;
            fastpath::gc::check_barriers_for_mode(bits, mode).map_err(|e| {
                format!(
                    "{INIT_ERROR}\nthe -XX: options select barriers {list} in {} mode: {}",
                    mode.name(),
                    e.reason
                )
            })?;
            self.out.settings.push((BarrierBits::VAR, list));
            self.out.settings.push((GcMode::VAR, mode.name().to_string()));
        }
        if self.spin_instruction.is_some() || self.spin_count.is_some() {
            // A count alone repeats the instruction the environment names.
            let inst = self.spin_instruction.take().unwrap_or_else(|| {
                std::env::var(SpinPause::VAR)
                    .ok()
                    .and_then(|v| v.split(':').next().map(|i| i.trim().to_string()))
                    .filter(|i| !i.is_empty())
                    .unwrap_or_else(|| "auto".into())
            });
            let value = match self.spin_count {
                Some(n) => format!("{inst}:{n}"),
                None => inst,
            };
            self.set(SpinPause::VAR, value, "OnSpinWaitInst")?;
        }
        Ok(self.out)
    }
}

/// Refuses a value the library's parser refuses, naming the flag.
fn check(var: &'static str, value: &str, shown: &str) -> Result<(), String> {
    Config::from_lookup(|k| (k == var).then(|| value.to_string()))
        .map(|_| ())
        .map_err(|e| {
            format!(
                "Improperly specified VM option '{shown}'\n{}; accepted here: {}",
                e.reason,
                e.accepted.join(", ")
            )
        })
}

/// `-XX:+PrintFlagsFinal`'s table: each flag fastpath-vm takes, with the
/// value in force and where it came from (`command line`, `environment`
/// for a `FASTPATH_*` variable, `default`).
pub fn flags_final(
    config: &Config,
    xx: &XxOptions,
    compile_threshold: u32,
    osr: bool,
    background: bool,
    verify: bool,
    refs: RefWidth,
) -> String {
    let origin = |var: &str| {
        if xx.settings.iter().any(|(v, _)| *v == var) {
            "{command line}"
        } else if std::env::var_os(var).is_some() {
            "{environment}"
        } else {
            "{default}"
        }
    };
    let locking = match config.locking_mode {
        LockingMode::Monitor => 0,
        LockingMode::Legacy => 1,
        LockingMode::Lightweight => 2,
    };
    let bits = config.gc_barriers;
    // The VM chose the set where nothing named one
    // (`runtime::vm::ergonomic_settings`).
    let gc_origin = match origin(BarrierBits::VAR) {
        "{default}" if config.gc_mode == GcMode::Passive => "{ergonomic}",
        given => given,
    };
    let mut rows: Vec<(&str, &str, String, &str)> = vec![
        (
            "int",
            "LockingMode",
            locking.to_string(),
            origin(LockingMode::VAR),
        ),
        (
            "ccstr",
            "ShenandoahGCMode",
            if config.gc_mode == GcMode::Passive {
                "passive"
            } else {
                "satb"
            }
            .to_string(),
            origin(GcMode::VAR),
        ),
        ("ccstr", "GCBarriers", bits.to_string(), gc_origin),
        (
            "ccstr",
            "X86ICacheSync",
            config.icache_sync.to_string(),
            origin(ICacheSync::VAR),
        ),
        (
            "ccstr",
            "OnSpinWaitInst",
            config.spin_pause.to_string(),
            origin(SpinPause::VAR),
        ),
        (
            "uintx",
            "ShenandoahImmediateThreshold",
            config.gc_immediate_garbage.to_string(),
            origin(GcImmediateGarbage::VAR),
        ),
        (
            "uint",
            "ParallelGCThreads",
            config.gc_workers.to_string(),
            origin(GcWorkers::VAR),
        ),
        (
            "int",
            "LightweightFastLockingSpins",
            config.fast_locking_spins.to_string(),
            origin(FAST_LOCKING_SPINS_VAR),
        ),
        (
            "intx",
            "AsyncDeflationInterval",
            config.deflation_interval_ms.to_string(),
            origin(DEFLATION_INTERVAL_VAR),
        ),
        (
            "uintx",
            "MonitorUsedDeflationThreshold",
            config.deflation_threshold.to_string(),
            origin(DEFLATION_THRESHOLD_VAR),
        ),
        (
            "intx",
            "CompileThreshold",
            compile_threshold.to_string(),
            if xx.compile_threshold.is_some() {
                "{command line}"
            } else {
                "{default}"
            },
        ),
        (
            "bool",
            "UseOnStackReplacement",
            osr.to_string(),
            if xx.no_osr { "{command line}" } else { "{default}" },
        ),
        (
            "bool",
            "BackgroundCompilation",
            background.to_string(),
            if xx.no_background {
                "{command line}"
            } else {
                "{default}"
            },
        ),
        (
            "bool",
            "EliminateLocks",
            (!xx.no_eliminate_locks).to_string(),
            if xx.no_eliminate_locks {
                "{command line}"
            } else {
                "{default}"
            },
        ),
        (
            "bool",
            "OptimizeStringConcat",
            (!xx.no_optimize_string_concat).to_string(),
            if xx.no_optimize_string_concat {
                "{command line}"
            } else {
                "{default}"
            },
        ),
        (
            "bool",
            "UseCompressedOops",
            refs.is_compressed().to_string(),
            match origin(RefWidth::VAR) {
                "{default}" => "{ergonomic}",
                given => given,
            },
        ),
        (
            "bool",
            "OmitStackTraceInFastThrow",
            "false".to_string(),
            if xx.full_fast_throw_given {
                "{command line}"
            } else {
                "{default}"
            },
        ),
        (
            "bool",
            "VerifyAfterGC",
            verify.to_string(),
            if xx.verify_after_gc {
                "{command line}"
            } else {
                "{default}"
            },
        ),
    ];
    rows.sort_by_key(|r| r.1);
    let mut s = String::from("[Global flags]\n");
    for (ty, name, value, origin) in rows {
        s.push_str(&format!("{ty:>9} {name:<40} = {value:<30} {origin}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(args: &[&str]) -> Vec<(&'static str, String)> {
        parse(args).unwrap().settings
    }

    #[test]
    fn locking_modes_take_hotspots_numbers() {
        assert_eq!(
            settings(&["LockingMode=0"]),
            [(LockingMode::VAR, "monitor".to_string())]
        );
        assert_eq!(
            settings(&["LockingMode=1"]),
            [(LockingMode::VAR, "legacy".to_string())]
        );
        assert_eq!(
            settings(&["LockingMode=2"]),
            [(LockingMode::VAR, "lightweight".to_string())]
        );
        let e = parse(&["LockingMode=3"]).unwrap_err();
        assert!(
            e.starts_with("int LockingMode=3 is outside the allowed range [ 0 ... 2 ]"),
            "{e}"
        );
        assert!(parse(&["LockingMode=x"])
            .unwrap_err()
            .starts_with("Improperly specified VM option 'LockingMode=x'"));
        assert!(parse(&["+LockingMode"])
            .unwrap_err()
            .starts_with("Unexpected +/- setting in VM option 'LockingMode'"));
    }

    #[test]
    fn unknown_flags_are_refused_unless_ignored() {
        let e = parse(&["+UseLargePages"]).unwrap_err();
        assert!(
            e.starts_with("Unrecognized VM option 'UseLargePages'\nError: Could not create"),
            "{e}"
        );
        assert!(parse(&["Foo=1"])
            .unwrap_err()
            .starts_with("Unrecognized VM option 'Foo=1'\nError"));
        assert!(parse(&["+UseShenandoaGC"])
            .unwrap_err()
            .contains("\nDid you mean '(+/-)UseShenandoahGC'?\n"));
        assert!(parse(&["LockinMode=1"])
            .unwrap_err()
            .contains("\nDid you mean 'LockingMode=<value>'?\n"));
        assert!(parse(&["UseG1GC"])
            .unwrap_err()
            .starts_with("Missing +/- setting for VM option 'UseG1GC'"));
        // HotSpot reads the ignore flag wherever it stands.
        let x = parse(&["Foo=1", "+IgnoreUnrecognizedVMOptions", "LockingMode=1"]).unwrap();
        assert_eq!(x.settings, [(LockingMode::VAR, "legacy".to_string())]);
    }

    #[test]
    fn experimental_flags_need_the_unlock_first() {
        let e = parse(&["+UseShenandoahGC", "ShenandoahImmediateThreshold=50"]).unwrap_err();
        assert!(
            e.starts_with("Error: VM option 'ShenandoahImmediateThreshold' is experimental and must be enabled via -XX:+UnlockExperimentalVMOptions."),
            "{e}"
        );
        let unlocked = ["+UnlockExperimentalVMOptions", "ShenandoahImmediateThreshold=50"];
        let with = |gc: &str| {
            parse(&[gc, unlocked[0], unlocked[1]])
                .unwrap()
                .settings
                .into_iter()
                .find(|(v, _)| *v == GcImmediateGarbage::VAR)
        };
        assert_eq!(
            with("+UseShenandoahGC"),
            Some((GcImmediateGarbage::VAR, "50".to_string()))
        );
        // Shenandoah's flag is read but ignored under another collector.
        assert_eq!(with("+UseG1GC"), None);
        let e = parse(&[unlocked[0], "ShenandoahImmediateThreshold=101"]).unwrap_err();
        assert!(e.contains("is outside the allowed range [ 0 ... 100 ]"), "{e}");
    }

    #[test]
    fn diagnostic_flags_need_the_unlock_first() {
        let e = parse(&["+VerifyAfterGC", "+UnlockDiagnosticVMOptions"]).unwrap_err();
        assert!(
            e.contains("The unlock option must precede 'VerifyAfterGC'"),
            "{e}"
        );
        assert!(
            parse(&["+UnlockDiagnosticVMOptions", "+VerifyAfterGC"])
                .unwrap()
                .verify_after_gc
        );
        assert!(parse(&["MonitorUsedDeflationThreshold=50"]).is_err());
        assert_eq!(
            settings(&["+UnlockDiagnosticVMOptions", "LightweightFastLockingSpins=4"]),
            [(FAST_LOCKING_SPINS_VAR, "4".to_string())]
        );
        // HotSpot takes up to 30; the library refuses more than 20.
        assert!(parse(&["+UnlockDiagnosticVMOptions", "LightweightFastLockingSpins=25"]).is_err());
        assert_eq!(
            settings(&[
                "+UnlockDiagnosticVMOptions",
                "MonitorUsedDeflationThreshold=50",
                "AsyncDeflationInterval=100"
            ]),
            [
                (DEFLATION_THRESHOLD_VAR, "50".to_string()),
                (DEFLATION_INTERVAL_VAR, "100".to_string())
            ]
        );
        // The library refuses an interval of 0 ms, naming the flag.
        let e = parse(&["+UnlockDiagnosticVMOptions", "AsyncDeflationInterval=0"]).unwrap_err();
        assert!(
            e.starts_with("Improperly specified VM option 'AsyncDeflationInterval=0'"),
            "{e}"
        );
    }

    #[test]
    fn only_the_full_fast_throw_is_taken() {
        assert!(
            parse(&["-OmitStackTraceInFastThrow"])
                .unwrap()
                .full_fast_throw_given
        );
        assert!(!parse(&[]).unwrap().full_fast_throw_given);
        let e = parse(&["+OmitStackTraceInFastThrow"]).unwrap_err();
        assert!(
            e.starts_with("Improperly specified VM option 'OmitStackTraceInFastThrow'"),
            "{e}"
        );
        assert!(e.contains("only -XX:-OmitStackTraceInFastThrow is taken"), "{e}");
    }

    #[test]
    fn collectors_select_barrier_sets_and_modes() {
        let gc = |args: &[&str]| {
            let s = settings(args);
            let get = |var| s.iter().find(|(v, _)| *v == var).map(|(_, x)| x.clone());
            (get(BarrierBits::VAR), get(GcMode::VAR))
        };
        assert_eq!(
            gc(&["+UseSerialGC"]),
            (Some("serial".into()), Some("passive".into()))
        );
        assert_eq!(
            gc(&["+UseParallelGC"]),
            (Some("serial".into()), Some("passive".into()))
        );
        assert_eq!(gc(&["+UseG1GC"]), (Some("g1".into()), Some("passive".into())));
        assert_eq!(
            gc(&["+UseShenandoahGC"]),
            (Some("satb,lrb,cas".into()), Some("concurrent".into()))
        );
        let passive = [
            "+UseShenandoahGC",
            "+UnlockDiagnosticVMOptions",
            "ShenandoahGCMode=passive",
        ];
        assert_eq!(gc(&passive), (Some("none".into()), Some("passive".into())));
        let mut some = passive.to_vec();
        some.extend(["+ShenandoahSATBBarrier", "+ShenandoahCASBarrier"]);
        assert_eq!(gc(&some), (Some("satb,cas".into()), Some("passive".into())));
        // Shenandoah's flags alone leave the collector as it is, as in HotSpot.
        assert_eq!(
            gc(&["+UnlockDiagnosticVMOptions", "-ShenandoahSATBBarrier"]),
            (None, None)
        );
        // A concurrent cycle cannot run without its barriers.
        let e = parse(&[
            "+UseShenandoahGC",
            "+UnlockDiagnosticVMOptions",
            "-ShenandoahLoadRefBarrier",
        ])
        .unwrap_err();
        assert!(e.contains("satb,cas in concurrent mode"), "{e}");
        assert!(parse(&["+UseShenandoahGC", "ShenandoahGCMode=passive"])
            .unwrap_err()
            .contains("is diagnostic"));
        assert!(parse(&["+UseG1GC", "+UseSerialGC"])
            .unwrap_err()
            .contains("Multiple garbage collectors selected"));
        assert!(parse(&["+UseG1GC", "-UseG1GC", "+UseSerialGC"]).is_ok());
        assert!(parse(&["+UseZGC"]).unwrap_err().contains("no counterpart"));
        // Every resolved pair is one the library accepts.
        for args in [&["+UseSerialGC"][..], &["+UseG1GC"], &["+UseShenandoahGC"], &some] {
            let s = settings(args);
            Config::from_lookup(|k| s.iter().find(|(v, _)| *v == k).map(|(_, x)| x.clone())).unwrap();
        }
    }

    #[test]
    fn spin_pause_and_workers_and_thresholds() {
        let pause = if cfg!(target_arch = "x86_64") {
            "pause"
        } else {
            "isb"
        };
        assert_eq!(
            settings(&[&format!("OnSpinWaitInst={pause}"), "OnSpinWaitInstCount=3"]),
            [(SpinPause::VAR, format!("{pause}:3"))]
        );
        if std::env::var_os(SpinPause::VAR).is_none() {
            assert_eq!(
                settings(&["OnSpinWaitInstCount=2"]),
                [(SpinPause::VAR, "auto:2".to_string())]
            );
        }
        let e = parse(&["OnSpinWaitInst=spin"]).unwrap_err();
        assert!(
            e.starts_with("Improperly specified VM option 'OnSpinWaitInst=spin'"),
            "{e}"
        );
        assert!(parse(&["OnSpinWaitInstCount=100"]).is_err());
        assert_eq!(
            settings(&["ParallelGCThreads=3"]),
            [(GcWorkers::VAR, "3".to_string())]
        );
        assert!(parse(&["ConcGCThreads=0"]).is_err());
        assert_eq!(
            parse(&["CompileThreshold=50"]).unwrap().compile_threshold,
            Some(50)
        );
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn icache_sync_takes_hotspots_numbers() {
        let names = [
            "auto",
            "none",
            "clflush",
            "clflushopt",
            "clwb",
            "cpuid",
            "serialize",
        ];
        for (n, name) in (-1..=5).zip(names) {
            let s = settings(&["+UnlockDiagnosticVMOptions", &format!("X86ICacheSync={n}")]);
            assert_eq!(s, [(ICacheSync::VAR, name.to_string())]);
        }
        assert!(parse(&["+UnlockDiagnosticVMOptions", "X86ICacheSync=6"])
            .unwrap_err()
            .contains("[ -1 ... 5 ]"));
    }

    #[test]
    fn flags_final_names_where_each_value_came_from() {
        let xx = parse(&["LockingMode=1"]).unwrap();
        let c = Config::from_lookup(|k| xx.settings.iter().find(|(v, _)| *v == k).map(|(_, x)| x.clone()))
            .unwrap();
        let table = flags_final(&c, &xx, 1000, true, true, false, RefWidth::Compressed);
        let line = table.lines().find(|l| l.contains(" LockingMode ")).unwrap();
        assert!(line.contains("= 1") && line.ends_with("{command line}"), "{line}");
        assert!(table
            .lines()
            .any(|l| l.contains("CompileThreshold") && l.contains("= 1000")));
        let line = table
            .lines()
            .find(|l| l.contains(" BackgroundCompilation "))
            .unwrap();
        assert!(line.contains("= true") && line.ends_with("{default}"), "{line}");
        let xx = parse(&["-BackgroundCompilation"]).unwrap();
        let table = flags_final(&c, &xx, 1000, true, false, false, RefWidth::Compressed);
        let line = table
            .lines()
            .find(|l| l.contains(" BackgroundCompilation "))
            .unwrap();
        assert!(
            line.contains("= false") && line.ends_with("{command line}"),
            "{line}"
        );
    }

    /// The `PrintFlagsFinal` line of `flag` under `c` and `xx`, the VM's
    /// other options at their defaults.
    fn flags_final_line(c: &Config, xx: &XxOptions, refs: RefWidth, flag: &str) -> String {
        let table = flags_final(c, xx, 1000, true, true, false, refs);
        let line = table.lines().find(|l| l.contains(&format!(" {flag} ")));
        line.unwrap_or_else(|| panic!("no {flag} in:\n{table}"))
            .to_string()
    }

    /// `±UseCompressedOops` sets `FASTPATH_GC_REFS`, the last one given
    /// winning; `PrintFlagsFinal` shows the width in force, the VM's own
    /// choice as ergonomic.
    #[test]
    fn compressed_oops_select_the_reference_width() {
        let var = |xx: &XxOptions| {
            xx.settings
                .iter()
                .find(|(v, _)| *v == RefWidth::VAR)
                .map(|(_, x)| x.clone())
        };
        assert_eq!(
            var(&parse(&["+UseCompressedOops"]).unwrap()).as_deref(),
            Some("compressed")
        );
        assert_eq!(
            var(&parse(&["-UseCompressedOops"]).unwrap()).as_deref(),
            Some("full")
        );
        assert_eq!(
            var(&parse(&["-UseCompressedOops", "+UseCompressedOops"]).unwrap()).as_deref(),
            Some("compressed")
        );
        assert_eq!(var(&parse(&[]).unwrap()), None);
        let c = Config::from_lookup(|_| None).unwrap();
        let xx = parse(&["-UseCompressedOops"]).unwrap();
        let line = flags_final_line(&c, &xx, RefWidth::Full, "UseCompressedOops");
        assert!(
            line.contains("= false") && line.ends_with("{command line}"),
            "{line}"
        );
        if std::env::var_os(RefWidth::VAR).is_none() {
            let line = flags_final_line(
                &c,
                &parse(&[]).unwrap(),
                RefWidth::Compressed,
                "UseCompressedOops",
            );
            assert!(line.contains("= true") && line.ends_with("{ergonomic}"), "{line}");
        }
    }

    /// With no collector flag and no barrier set in the environment, the
    /// passive collector runs without barriers (the VM's ergonomic choice,
    /// and `PrintFlagsFinal` says so); a collector's flag, the
    /// environment's set or the concurrent mode keeps its own.
    #[test]
    fn the_passive_collector_runs_without_barriers_unless_a_set_is_named() {
        use crate::runtime::vm::ergonomic_settings;
        let none = vec![(BarrierBits::VAR, "none")];
        let set_in_env = std::env::var_os(BarrierBits::VAR).is_some();
        let concurrent_in_env =
            std::env::var(GcMode::VAR).is_ok_and(|m| !m.trim().eq_ignore_ascii_case("passive"));
        let by_default = if set_in_env || concurrent_in_env {
            Vec::new()
        } else {
            none.clone()
        };
        assert_eq!(ergonomic_settings(&[]), by_default);
        for flags in [
            &["+UseParallelGC"][..],
            &["+UseG1GC"],
            &["+UseShenandoahGC"],
            &[
                "+UseShenandoahGC",
                "+UnlockDiagnosticVMOptions",
                "ShenandoahGCMode=passive",
            ],
        ] {
            let xx = parse(flags).unwrap();
            assert_eq!(ergonomic_settings(&xx.settings), Vec::new(), "{flags:?}");
        }
        assert_eq!(
            ergonomic_settings(&[(GcMode::VAR, "concurrent".to_string())]),
            Vec::new()
        );
        assert_eq!(
            ergonomic_settings(&[(BarrierBits::VAR, "g1".to_string())]),
            Vec::new()
        );
        if !set_in_env {
            assert_eq!(ergonomic_settings(&[(GcMode::VAR, " Passive".to_string())]), none);
        }
        let c = Config::from_lookup(|v| (v == BarrierBits::VAR).then(|| "none".to_string())).unwrap();
        let line = flags_final_line(&c, &parse(&[]).unwrap(), RefWidth::Compressed, "GCBarriers");
        if !set_in_env && !concurrent_in_env {
            assert!(line.contains("= none") && line.ends_with("{ergonomic}"), "{line}");
        }
        let xx = parse(&["+UseParallelGC"]).unwrap();
        let c = Config::from_lookup(|v| {
            xx.settings
                .iter()
                .find(|(var, _)| *var == v)
                .map(|(_, x)| x.clone())
        })
        .unwrap();
        let line = flags_final_line(&c, &xx, RefWidth::Compressed, "GCBarriers");
        assert!(line.ends_with("{command line}"), "{line}");
    }

    #[test]
    fn eliminate_locks_is_a_bool_flag_shown_in_flags_final() {
        assert!(parse(&["-EliminateLocks"]).unwrap().no_eliminate_locks);
        assert!(!parse(&["+EliminateLocks"]).unwrap().no_eliminate_locks);
        assert!(
            !parse(&["-EliminateLocks", "+EliminateLocks"])
                .unwrap()
                .no_eliminate_locks
        );
        let c = Config::from_lookup(|_| None).unwrap();
        let line = |xx: &XxOptions| {
            flags_final(&c, xx, 1000, true, true, false, RefWidth::Compressed)
                .lines()
                .find(|l| l.contains(" EliminateLocks "))
                .unwrap()
                .to_string()
        };
        let on = line(&parse(&[]).unwrap());
        assert!(on.contains("= true") && on.ends_with("{default}"), "{on}");
        let off = line(&parse(&["-EliminateLocks"]).unwrap());
        assert!(
            off.contains("= false") && off.ends_with("{command line}"),
            "{off}"
        );
    }

    #[test]
    fn background_compilation_is_a_bool_flag() {
        assert!(parse(&["-BackgroundCompilation"]).unwrap().no_background);
        assert!(!parse(&["+BackgroundCompilation"]).unwrap().no_background);
        // The last one given wins, as HotSpot reads flags.
        assert!(
            !parse(&["-BackgroundCompilation", "+BackgroundCompilation"])
                .unwrap()
                .no_background
        );
        assert!(!parse(&[]).unwrap().no_background);
        let e = parse(&["BackgroundCompilation=0"]).unwrap_err();
        assert!(e.starts_with("Improperly specified VM option"), "{e}");
    }
}
