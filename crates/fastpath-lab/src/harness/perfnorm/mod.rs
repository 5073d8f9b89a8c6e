//! `--prof perfnorm`: CPU counters per operation, named as JMH's perfnorm
//! profiler names them, for any experiment row.
//!
//! Where it sits: beside the timing. An experiment that supports the
//! profiler describes each row's measured loop as a [`Region`] (its
//! `Experiment::perfnorm_region(id)`), and after timing a row makes one
//! call, [`Profiler::profile`], whose [`Profile`] adds `#/op` secondary
//! metrics to the row's JSON ([`Profile::attach`]) and a row to the
//! experiment's counter table ([`ProfileTable`]).
//!
//! Two paths, chosen once per run ([`Profiler::sense`]):
//! - hardware: perf_event_open in this process ([`hardware`]), the region
//!   run once per counter group, `REPEATS` times for error bars;
//! - simulated, where the PMU is absent (a KVM guest without a virtual PMU:
//!   `perf stat -e instructions true` says "not supported"): the region is
//!   re-run alone in a child process, `fastpath __perfnorm <experiment>
//!   <id> <ops>`, under `valgrind --tool=callgrind --cache-sim=yes
//!   --branch-sim=yes --collect-atstart=no --toggle-collect=<the region's
//!   function>`, so that only the measured loop is counted (not the
//!   process start, the setup or the warm-up), and its totals
//!   ([`callgrind`]) are divided by the operations. Simulated figures say
//!   so, in the table and in the JSON.
//!
//! What cannot be profiled says why instead of printing zeros: no PMU and
//! no valgrind, a region with more than one thread (the hardware counters
//! follow the calling thread only; Valgrind serialises threads, so their
//! interplay, the thing such rows measure, is gone), a region that does
//! not run under Valgrind.

pub mod callgrind;
pub mod hardware;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::report::table::num;
use crate::report::{BenchResult, Metric, Table};
use crate::stats::Stats;

/// The hidden subcommand that runs one region under Valgrind.
pub const CHILD_COMMAND: &str = "__perfnorm";

/// The function Callgrind's `--toggle-collect` names: collection is on
/// exactly while it runs.
pub const REGION_SYMBOL: &str = "fastpath_perfnorm_measured_region";

/// Hardware samples per region (the error bars of a hardware row).
const REPEATS: usize = 5;

/// Counters per operation by perfnorm name.
pub type PerOp = Vec<(&'static str, Stats)>;

/// Performs a region's operation `n` times.
pub type RegionFn<'a> = Box<dyn FnMut(u64) + 'a>;

/// A measured loop the profiler can re-run on its own.
pub struct Region<'a> {
    /// Operations one profiled run performs (under Valgrind, about 50×
    /// slower than native: keep it to a fraction of a second natively).
    pub ops: u64,
    /// Threads the region runs; more than one cannot be profiled.
    pub threads: u32,
    /// `Err(why)` for a region that must not run under Valgrind.
    pub simulable: Result<(), String>,
    /// The loop.
    pub run: RegionFn<'a>,
}

impl<'a> Region<'a> {
    /// A single-threaded region of `ops` operations.
    pub fn new(ops: u64, run: impl FnMut(u64) + 'a) -> Region<'a> {
        Region {
            ops: ops.max(1),
            threads: 1,
            simulable: Ok(()),
            run: Box::new(run),
        }
    }

    /// Marks a region as running `threads` threads.
    pub fn threads(mut self, threads: u32) -> Self {
        self.threads = threads;
        self
    }

    /// Marks a region as one that Valgrind cannot run, and why.
    pub fn not_under_valgrind(mut self, why: impl Into<String>) -> Self {
        self.simulable = Err(why.into());
        self
    }
}

/// The loop, behind a symbol Callgrind can toggle collection on.
/// `#[inline(never)]` and unmangled so the symbol exists under this name
/// in every build.
#[no_mangle]
#[inline(never)]
pub fn fastpath_perfnorm_measured_region(run: &mut dyn FnMut(u64), ops: u64) {
    run(ops);
}

/// Which path produced a profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// perf_event_open on this CPU.
    Hardware,
    /// Callgrind's cache and branch simulation.
    Simulated,
}

impl Source {
    /// How tables and JSON name the path.
    pub fn label(&self) -> &'static str {
        match self {
            Source::Hardware => "perf_event (hardware counters)",
            Source::Simulated => "callgrind (SIMULATED: cache and branch-predictor model, not this CPU)",
        }
    }

    fn marker(&self) -> &'static str {
        match self {
            Source::Hardware => "perfnorm:perf_event",
            Source::Simulated => crate::report::jmh::SIMULATED_MARKER,
        }
    }
}

enum PathKind {
    Hardware(Vec<hardware::Sensed>),
    Callgrind(PathBuf),
}

/// The profiler of one run: the path it found, and what it dropped.
pub struct Profiler {
    path: Result<PathKind, String>,
    notes: Vec<String>,
    exe: PathBuf,
    experiment: String,
    /// The rows to count (`None`: every row).
    rows: Option<Vec<String>>,
}

/// Counters per operation for one row, or why there are none.
#[derive(Clone, Debug)]
pub struct Profile {
    /// The row.
    pub id: String,
    /// Per-op counters by perfnorm name: the mean and its 99.9% error
    /// (0 for a simulation: deterministic, one run). `Err(why)` if none.
    pub per_op: Result<PerOp, String>,
    /// The path, when there was one.
    pub source: Option<Source>,
    /// Operations counted per run.
    pub ops: u64,
    /// The kernel time-shared a counter group (counts scaled).
    pub multiplexed: bool,
}

impl Profiler {
    /// The profiler `--prof` asks for: `None` without the flag, an error
    /// for a profiler other than `perfnorm`.
    pub fn from_flag(flag: Option<&str>, experiment: &str) -> anyhow::Result<Option<Profiler>> {
        match flag {
            None => Ok(None),
            Some("perfnorm") => Ok(Some(Profiler::sense(experiment))),
            Some(other) => anyhow::bail!("unknown profiler `{other}` (accepted: perfnorm)"),
        }
    }

    /// Senses the hardware path, then the simulated one, for regions of
    /// `experiment` (which names the child's experiment).
    pub fn sense(experiment: &str) -> Profiler {
        let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("fastpath"));
        let (events, dropped) = hardware::sense();
        let mut notes = Vec::new();
        let path = if events.iter().any(|e| e.name == "instructions") {
            if !dropped.is_empty() {
                notes.push(format!(
                    "perf events not supported here, dropped: {}",
                    dropped.join("; ")
                ));
            }
            Ok(PathKind::Hardware(events))
        } else {
            notes.push(format!(
                "no hardware counters (perf_event_open refused instructions: {}); falling back to Valgrind",
                dropped
                    .iter()
                    .find(|d| d.starts_with("instructions"))
                    .map_or("not sensed", String::as_str)
            ));
            find_valgrind().map(PathKind::Callgrind)
        };
        Profiler {
            path,
            notes,
            exe,
            experiment: experiment.to_string(),
            rows: None,
        }
    }

    /// The simulated path with a given valgrind and child executable (the
    /// `fastpath` binary), whatever the PMU offers: for tests, and for a
    /// simulated profile on a machine that has counters.
    pub fn simulated(experiment: &str, valgrind: PathBuf, exe: PathBuf) -> Profiler {
        Profiler {
            path: Ok(PathKind::Callgrind(valgrind)),
            notes: Vec::new(),
            exe,
            experiment: experiment.to_string(),
            rows: None,
        }
    }

    /// This profiler counting only the rows `ids`; the others get no
    /// counters, with that reason (an experiment's `--prof-rows`).
    pub fn only_rows(mut self, ids: Vec<String>) -> Profiler {
        self.rows = Some(ids);
        self
    }

    /// The path in use, or why there is none.
    pub fn source(&self) -> Result<Source, String> {
        match &self.path {
            Ok(PathKind::Hardware(_)) => Ok(Source::Hardware),
            Ok(PathKind::Callgrind(_)) => Ok(Source::Simulated),
            Err(e) => Err(e.clone()),
        }
    }

    /// Notes for the experiment's counter table: the path, what was
    /// dropped, why nothing could be counted.
    pub fn notes(&self) -> Vec<String> {
        let mut n = vec![match self.source() {
            Ok(s) => format!("counters per operation from {}", s.label()),
            Err(e) => format!("no counters: {e}"),
        }];
        n.extend(self.notes.iter().cloned());
        n
    }

    /// Counts `region` (row `id` of this profiler's experiment) and
    /// normalises per operation. Never panics and never returns zeros for
    /// an error: a failure is `per_op: Err(why)`.
    pub fn profile(&self, id: &str, mut region: Region<'_>) -> Profile {
        let mut p = Profile {
            id: id.to_string(),
            per_op: Err(String::new()),
            source: self.source().ok(),
            ops: region.ops,
            multiplexed: false,
        };
        p.per_op = match &self.path {
            _ if self.rows.as_ref().is_some_and(|r| !r.iter().any(|x| x == id)) => {
                Err("not counted: not in --prof-rows".into())
            }
            Err(e) => Err(e.clone()),
            Ok(_) if region.threads > 1 => Err(format!(
                "{} threads: counters follow one thread (and Valgrind serialises threads), so multi-threaded rows are not profiled",
                region.threads
            )),
            Ok(PathKind::Hardware(events)) => {
                count_hardware(events, &mut region).map(|(v, m)| {
                    p.multiplexed = m;
                    v
                })
            }
            Ok(PathKind::Callgrind(valgrind)) => match &region.simulable {
                Err(why) => Err(format!("not run under Valgrind: {why}")),
                Ok(()) => run_callgrind(valgrind, &self.exe, &self.experiment, id, region.ops),
            },
        };
        p
    }
}

fn count_hardware(events: &[hardware::Sensed], region: &mut Region<'_>) -> Result<(PerOp, bool), String> {
    let ops = region.ops;
    (region.run)((ops / 10).max(1));
    let mut samples: BTreeMap<&'static str, Vec<f64>> = BTreeMap::new();
    let mut multiplexed = false;
    for _ in 0..REPEATS {
        let (totals, m) = hardware::count(events, &mut || {
            fastpath_perfnorm_measured_region(&mut region.run, ops)
        })
        .map_err(|e| format!("perf_event: {e}"))?;
        multiplexed |= m;
        for (name, v) in &totals {
            samples.entry(name).or_default().push(v / ops as f64);
        }
        if let (Some(c), Some(i)) = (totals.get("cycles"), totals.get("instructions")) {
            if *i > 0.0 {
                samples.entry("CPI").or_default().push(c / i);
            }
        }
    }
    let out = COLUMNS
        .iter()
        .filter_map(|n| samples.remove(n).map(|v| (*n, Stats::from_samples(v))))
        .collect();
    Ok((out, multiplexed))
}

/// `valgrind` on PATH (or `$VALGRIND`), or why not.
fn find_valgrind() -> Result<PathBuf, String> {
    if let Some(v) = std::env::var_os("VALGRIND") {
        return Ok(PathBuf::from(v));
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join("valgrind"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            "no valgrind on PATH for the simulated fallback (install it: apt-get install valgrind)"
                .to_string()
        })
}

/// Runs region `id` of `experiment` alone under Callgrind in a child
/// (`exe __perfnorm experiment id ops`) and returns its counters per op.
fn run_callgrind(valgrind: &Path, exe: &Path, experiment: &str, id: &str, ops: u64) -> Result<PerOp, String> {
    let out = std::env::temp_dir().join(format!(
        "fastpath-perfnorm-{}-{}.callgrind",
        std::process::id(),
        NEXT_FILE.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let result = Command::new(valgrind)
        .args([
            "--tool=callgrind",
            "--cache-sim=yes",
            "--branch-sim=yes",
            "--collect-atstart=no",
        ])
        .arg(format!("--toggle-collect={REGION_SYMBOL}"))
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(exe)
        .args([CHILD_COMMAND, experiment, id, &ops.to_string()])
        .output()
        .map_err(|e| format!("starting {}: {e}", valgrind.display()));
    let text = std::fs::read_to_string(&out);
    let _ = std::fs::remove_file(&out);
    let result = result?;
    if !result.status.success() {
        // The child's own words, without Valgrind's `==pid==` and
        // `--pid--` lines (or,
        // if it said nothing, Valgrind's last ones: a crash report).
        let stderr = String::from_utf8_lossy(&result.stderr);
        let own: Vec<&str> = stderr
            .lines()
            .filter(|l| !l.starts_with("==") && !l.starts_with("--"))
            .collect();
        let lines = if own.is_empty() {
            stderr
                .lines()
                .rev()
                .take(6)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect()
        } else {
            own
        };
        return Err(format!(
            "callgrind run of {experiment} {id} failed ({}): {}",
            result.status,
            lines.join(" | ")
        ));
    }
    let text = text.map_err(|e| format!("reading the callgrind profile {}: {e}", out.display()))?;
    let totals = callgrind::parse_totals(&text)?;
    let named = callgrind::to_perfnorm(&totals)?;
    Ok(normalise(&named, ops))
}

/// Totals → per operation. A simulation is deterministic: one run, no
/// error bar (error 0, so a comparison shows any difference).
pub fn normalise(totals: &[(&'static str, u64)], ops: u64) -> PerOp {
    totals
        .iter()
        .map(|(n, v)| {
            let mut s = Stats::from_samples(vec![*v as f64 / ops.max(1) as f64]);
            s.error = 0.0;
            (*n, s)
        })
        .collect()
}

/// Distinct profile files within this process.
static NEXT_FILE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The child (`fastpath __perfnorm <experiment> <id> <ops>`): warms the
/// region up outside the counted function, then runs it once inside it.
pub fn child_main(region: Option<Region<'_>>, experiment: &str, id: &str, ops: u64) -> anyhow::Result<()> {
    let mut region =
        region.ok_or_else(|| anyhow::anyhow!("experiment `{experiment}` has no perfnorm region `{id}`"))?;
    (region.run)((ops / 10).max(1));
    fastpath_perfnorm_measured_region(&mut region.run, ops);
    Ok(())
}

impl Profile {
    /// Adds the counters to `r` as `#/op` secondary metrics under JMH
    /// perfnorm's names, plus a marker metric naming the path
    /// (`perfnorm:perf_event` or `perfnorm:callgrind-simulated`, its
    /// score the operations counted per run). Adds nothing on error.
    pub fn attach(&self, mut r: BenchResult) -> BenchResult {
        if let (Ok(v), Some(src)) = (&self.per_op, &self.source) {
            for (name, s) in v {
                let unit = if *name == "CPI" { "clks/insn" } else { "#/op" };
                r = r.secondary(name, Metric::from_stats(s, unit));
            }
            r = r.secondary(src.marker(), Metric::single(self.ops as f64, "ops"));
        }
        r
    }
}

/// Whether a report holds a perfnorm counter table (so `--prof perfnorm`
/// on an experiment that has no profiled rows can say so instead of
/// adding nothing silently).
pub fn profiled(report: &crate::report::Report) -> bool {
    report.tables.iter().any(|t| t.title.starts_with(TABLE_PREFIX))
}

/// How every counter table's title starts.
const TABLE_PREFIX: &str = "perfnorm: ";

/// The counter table of an experiment: a row per profiled row, a column
/// per counter, JMH's `:name` headers.
pub struct ProfileTable {
    title: String,
    rows: Vec<Profile>,
}

/// The columns, in perfnorm's reading order.
const COLUMNS: [&str; 10] = [
    "instructions",
    "cycles",
    "CPI",
    "branches",
    "branch-misses",
    "L1-dcache-loads",
    "L1-dcache-load-misses",
    "L1-dcache-stores",
    "LLC-loads",
    "LLC-load-misses",
];

impl ProfileTable {
    /// An empty table for rows of `what` (e.g. "spin pause latency").
    pub fn new(what: &str) -> ProfileTable {
        ProfileTable {
            title: format!("{TABLE_PREFIX}{what}, counters per operation (#/op)"),
            rows: Vec::new(),
        }
    }

    /// Adds a row.
    pub fn push(&mut self, p: Profile) {
        self.rows.push(p);
    }

    /// The table: columns of counters some row has, a `path` column, and
    /// a note per row that has no counters (with why).
    pub fn finish(self, prof: &Profiler) -> Table {
        let present: Vec<&str> = COLUMNS
            .iter()
            .copied()
            .filter(|c| {
                self.rows
                    .iter()
                    .any(|r| r.per_op.as_ref().is_ok_and(|v| v.iter().any(|(n, _)| n == c)))
            })
            .collect();
        let mut headers = vec!["row".to_string()];
        headers.extend(present.iter().map(|c| format!(":{c}")));
        headers.push("path".into());
        let header_refs: Vec<&str> = headers.iter().map(String::as_str).collect();
        let title = match prof.source() {
            Ok(Source::Simulated) => format!("{} — SIMULATED by callgrind", self.title),
            _ => self.title,
        };
        let mut t = Table::new(title, &header_refs);
        let mut failed = Vec::new();
        for r in &self.rows {
            let mut cells = vec![r.id.clone()];
            match &r.per_op {
                Ok(v) => {
                    for c in &present {
                        cells.push(v.iter().find(|(n, _)| n == c).map_or("n/a".into(), |(_, s)| {
                            if s.error > 0.0 && s.error.is_finite() {
                                format!("{} ± {}", num(s.mean), num(s.error))
                            } else {
                                num(s.mean)
                            }
                        }));
                    }
                    cells.push(match (&r.source, r.multiplexed) {
                        (Some(Source::Simulated), _) => "simulated".into(),
                        (_, true) => "hardware, multiplexed (scaled)".into(),
                        _ => "hardware".into(),
                    });
                }
                Err(e) => {
                    cells.extend(present.iter().map(|_| "—".to_string()));
                    cells.push("none".into());
                    failed.push((r.id.clone(), e.clone()));
                }
            }
            t.row(cells);
        }
        for n in prof.notes() {
            t.note(n);
        }
        if matches!(prof.source(), Ok(Source::Simulated)) {
            t.note("simulated: Ir, Dr, Dw, D1mr, DLmr, Bc+Bi, Bcm+Bim of Callgrind's model (branches: conditional and indirect only); no cycles or CPI; one deterministic run per row, counted only inside the measured loop (--toggle-collect), after a warm-up run");
            t.note("under Valgrind, CPUID reports Valgrind's synthetic CPU: `auto` and `global` rows resolve their strategy for it, which may differ from the timed row's; a strategy that CPU lacks is not profiled");
        }
        // One note per reason, naming its rows: a reason shared by every
        // row (icache under Valgrind) is said once.
        let mut by_reason: Vec<(String, Vec<String>)> = Vec::new();
        for (id, why) in failed {
            match by_reason.iter_mut().find(|(w, _)| *w == why) {
                Some((_, ids)) => ids.push(id),
                None => by_reason.push((why, vec![id])),
            }
        }
        for (why, ids) in by_reason {
            t.note(format!("not profiled ({}): {why}", ids.join(", ")));
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_totals_per_operation_without_an_error_bar() {
        let v = normalise(&[("instructions", 6000), ("branches", 1000)], 1000);
        assert_eq!(v[0].0, "instructions");
        assert!((v[0].1.mean - 6.0).abs() < 1e-12);
        assert!((v[1].1.mean - 1.0).abs() < 1e-12);
        assert_eq!(v[0].1.error, 0.0);
    }

    #[test]
    fn attach_names_metrics_as_perfnorm_and_marks_the_path() {
        let p = Profile {
            id: "x".into(),
            per_op: Ok(normalise(&[("instructions", 500), ("L1-dcache-loads", 100)], 100)),
            source: Some(Source::Simulated),
            ops: 100,
            multiplexed: false,
        };
        let r = BenchResult::new(
            "e",
            "w",
            crate::report::Mode::AverageTime,
            &Stats::from_samples(vec![1.0, 2.0]),
            "ns/op",
        );
        let r = p.attach(r);
        assert_eq!(r.secondary_metrics["instructions"].score, 5.0);
        assert_eq!(r.secondary_metrics["instructions"].score_unit, "#/op");
        assert_eq!(r.secondary_metrics["L1-dcache-loads"].score, 1.0);
        assert_eq!(r.secondary_metrics["perfnorm:callgrind-simulated"].score, 100.0);
    }

    #[test]
    fn an_error_attaches_nothing_and_the_table_says_why() {
        let prof = Profiler {
            path: Err("no valgrind".into()),
            notes: vec![],
            rows: None,
            exe: PathBuf::from("x"),
            experiment: "e".into(),
        };
        let p = prof.profile("row/a", Region::new(10, |_| {}));
        assert_eq!(p.per_op.as_ref().unwrap_err(), "no valgrind");
        let r = BenchResult::new(
            "e",
            "w",
            crate::report::Mode::AverageTime,
            &Stats::from_samples(vec![1.0]),
            "ns/op",
        );
        assert!(p.attach(r).secondary_metrics.is_empty());
        let mut t = ProfileTable::new("test");
        t.push(p);
        let text = t.finish(&prof).to_text();
        assert!(text.contains("not profiled (row/a): no valgrind"), "{text}");
        assert!(text.contains("no counters: no valgrind"), "{text}");
    }

    #[test]
    fn multi_threaded_regions_are_refused_with_a_note() {
        let prof = Profiler::simulated("e", PathBuf::from("/nonexistent/valgrind"), PathBuf::from("x"));
        let p = prof.profile("lru/4", Region::new(10, |_| {}).threads(4));
        assert!(p.per_op.unwrap_err().contains("4 threads"));
    }

    #[test]
    fn unknown_profilers_are_an_error() {
        assert!(Profiler::from_flag(Some("gc"), "spin").is_err());
        assert!(Profiler::from_flag(None, "spin").unwrap().is_none());
    }
}
