//! The command line: subcommands, common options, `all` and `compare`, and
//! the lab's way of writing to stdout.
//!
//! Output: every table goes through [`print_out`] (and the [`outln!`](crate::outln)
//! macro), so that `fastpath … | head` ends quietly: once the reader has
//! gone (a broken pipe), printing stops and the command finishes its work
//! (`all` still writes its report) and exits as it would have.
//!
//! `--out DIR` is checked before anything is measured ([`prepare_out`]):
//! created if missing, refused with its path named if it cannot be written.

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::Context as _;
use clap::{value_parser, Arg, ArgAction, ArgMatches, Command};

use crate::experiments::{Context, Experiment};
use crate::report;

/// Exit code for usage and configuration errors, as clap uses.
pub const USAGE_ERROR: u8 = 2;

/// Set once stdout has failed (its reader left): nothing more is printed.
static STDOUT_GONE: AtomicBool = AtomicBool::new(false);
/// Set when a write to stdout failed for any reason but a closed pipe (a
/// full disk, `> /dev/full`): the command exits with a failure.
static STDOUT_FAILED: AtomicBool = AtomicBool::new(false);

/// Writes `args` to stdout. A closed pipe (`fastpath … | head`: the reader
/// has what it wanted) stops the run quietly, exit 0, through
/// [`interrupt::stop`](crate::interrupt::stop), which keeps what a stop
/// keeps (`all`'s partial report). Any other write error is reported once
/// on stderr, printing stops, and [`stdout_failed`] makes the command fail
/// at its end.
pub fn print_out(args: std::fmt::Arguments<'_>) {
    // Relaxed: flags with no data behind them; a thread that misses the
    // store tries one more write, which fails the same way.
    if STDOUT_GONE.load(Ordering::Relaxed) {
        return;
    }
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        drop(out);
        if e.kind() == io::ErrorKind::BrokenPipe {
            STDOUT_GONE.store(true, Ordering::Relaxed);
            crate::interrupt::stop("", 0);
        }
        if !STDOUT_GONE.swap(true, Ordering::Relaxed) {
            STDOUT_FAILED.store(true, Ordering::Relaxed);
            eprintln!("fastpath: writing to stdout: {e}");
        }
    }
}

/// Whether a write to stdout failed (other than a closed pipe): the
/// command's output is incomplete, so it must not exit 0.
pub fn stdout_failed() -> bool {
    // Relaxed: read by `main` after the work that wrote is done.
    STDOUT_FAILED.load(Ordering::Relaxed)
}

/// `println!` through [`print_out`]: quiet on a closed pipe.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::cli::print_out(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::print_out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` through [`print_out`]: quiet on a closed pipe.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::print_out(format_args!($($arg)*))
    };
}

/// Checks `--out DIR` before anything runs: creates it if missing and makes
/// sure a file can be written there. The error names the path and what is
/// wrong with it, once.
///
/// A directory this creates is handed to
/// [`interrupt::watch_out_dir`](crate::interrupt::watch_out_dir): if the
/// run is interrupted or fails before writing anything there, it is
/// removed again.
pub fn prepare_out(dir: &Path) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        anyhow::bail!("--out {}: exists and is not a directory", dir.display());
    }
    if !dir.exists() {
        // The directories this run creates: `dir` and its missing
        // ancestors, deepest first.
        let mut created = vec![dir.to_path_buf()];
        while let Some(parent) = created.last().and_then(|d| d.parent()) {
            if parent.as_os_str().is_empty() || parent.exists() {
                break;
            }
            created.push(parent.to_path_buf());
        }
        crate::interrupt::watch_out_dir(created);
    }
    fs::create_dir_all(dir)
        .with_context(|| format!("--out {}: cannot create the directory", dir.display()))?;
    let probe = dir.join(crate::interrupt::out_probe_name());
    fs::write(&probe, b"").with_context(|| format!("--out {}: cannot write a file there", dir.display()))?;
    let _ = fs::remove_file(&probe);
    Ok(())
}

/// The `FASTPATH_*` variables, for `--help`.
fn environment_help() -> String {
    let mut s = String::from(
        "Environment (read at start; a bad value exits 2 naming the values this CPU accepts):\n",
    );
    for v in fastpath::config::variables() {
        s.push_str(&format!(
            "  {}={}\n      {} (default: {})\n",
            v.var, v.values, v.about, v.default
        ));
    }
    s
}

fn common_args(cmd: Command) -> Command {
    cmd.arg(
        Arg::new("quick")
            .long("quick")
            .action(ArgAction::SetTrue)
            .help("Run for seconds instead of minutes (what CI and `all` use)"),
    )
    .arg(
        Arg::new("out")
            .long("out")
            .value_name("DIR")
            .value_parser(value_parser!(PathBuf))
            .help("Write JSON results (JMH format) and plots into DIR"),
    )
}

/// The whole command line: `all`, `compare`, `cpu`, the hidden startup
/// child, and one subcommand per experiment with `--quick` and `--out`.
pub fn cli(experiments: &[&'static dyn Experiment]) -> Command {
    let mut cmd = Command::new("fastpath")
        .version(env!("CARGO_PKG_VERSION"))
        .about(
            "The fastpath lab: measures the fast paths of a managed runtime the way the HotSpot threads did",
        )
        .subcommand_required(true)
        .arg_required_else_help(true)
        .after_help(environment_help())
        .subcommand(
            common_args(Command::new("all").about(
                "Run every experiment and write report.md, JSON and SVGs (quick by default: \
                 under a minute; --full for the full runs)",
            ))
            .mut_arg("out", |a| a.default_value("fastpath-report"))
            .mut_arg("quick", |a| {
                a.help("Run each experiment for seconds (the default for `all`)")
            })
            .arg(
                Arg::new("full")
                    .long("full")
                    .action(ArgAction::SetTrue)
                    .conflicts_with("quick")
                    .help("Run each experiment at its full length (minutes each) instead of quick"),
            )
            .arg(Arg::new("check").long("check").action(ArgAction::SetTrue).help(
                "Exit 1 when an experiment misses a goal (a FAIL verdict), not only when one fails to run",
            )),
        )
        .subcommand(
            Command::new("compare")
                .about("Compare two JMH-format result files: baseline, change and % per row")
                .after_help(
                    "A result file is what `fastpath <experiment> --out DIR` writes \
                     (DIR/<experiment>.json) or what JMH writes with -rf json (peers/jvm/run.sh). \
                     Exits 1 when no row pairs.\n\n\
                     Whole-run shifts: a process can run faster or slower as a whole (the CAS \
                     pair 18% faster than in the run before, most rows with it), which no \
                     interval from inside a run sees. A row measured against a baseline row of \
                     its own run (a `ratio_to_<row>` metric: the lock pairs table's rows against \
                     cas-pair) is judged on its own figures (`%`) and on its ratio to that row \
                     (`ratio %`: the median of the per-round ratios of the two rows' samples, \
                     taken side by side, with its 99.9% interval), and has moved only when both \
                     moved, the same way: a shift that moves the row with its baseline leaves the \
                     ratio, one that passes the row by leaves its figure, a change of the row \
                     moves both. A header line above the table gives the baseline row's change \
                     (`whole-run shift: baseline row cas-pair +16.1% …`), and the baseline row \
                     says `reference`. Rows with no baseline row in their run (other tables, JMH \
                     files) are judged on their own figures, `ratio %` `-`, and the header counts \
                     them. --raw judges every row on its own figures alone.",
                )
                .arg(
                    Arg::new("baseline")
                        .required(true)
                        .value_name("BASELINE.json")
                        .help("The reference run (its unit is the table's)")
                        .value_parser(value_parser!(PathBuf)),
                )
                .arg(
                    Arg::new("change")
                        .required(true)
                        .value_name("CHANGE.json")
                        .help("The run compared against it")
                        .value_parser(value_parser!(PathBuf)),
                )
                .arg(
                    Arg::new("by-workload")
                        .long("by-workload")
                        .action(ArgAction::SetTrue)
                        .help(
                            "Pair rows by workload name and threads, e.g. a fastpath run against \
                             its HotSpot peer from peers/jvm (casPair = cas-pair, onSpinWait = \
                             latency, lruGetPut = lru); parameters pair only where both rows have \
                             them, and units of one kind are converted (ops/us to ops/s)",
                        ),
                )
                .arg(Arg::new("raw").long("raw").action(ArgAction::SetTrue).help(
                    "Judge every row on its own figures, also rows that have a baseline \
                             row in their run, so that a shift of the whole run moves them (the \
                             header still states the shift)",
                ))
                .arg(
                    Arg::new("min-change")
                        .long("min-change")
                        .value_name("PCT")
                        .value_parser(parse_min_change)
                        .default_value("10")
                        .help(
                            "The least change, in % of the baseline (0 to 1000), for a row to \
                             count as moved; it must also leave both 99.9% intervals. Two runs of \
                             one build differ by several % on a shared machine: the default 10 \
                             keeps them `same` and still reports a 20% regression",
                        ),
                ),
        )
        .subcommand(crate::cpu_command::command())
        .arg(prof_arg().global(true))
        .subcommand(
            // The child of `--prof perfnorm` under Valgrind: run one
            // experiment row's measured loop, counted, and exit.
            Command::new(crate::harness::perfnorm::CHILD_COMMAND)
                .hide(true)
                .arg(Arg::new("experiment").required(true))
                .arg(Arg::new("id").required(true))
                .arg(Arg::new("ops").required(true).value_parser(value_parser!(u64))),
        )
        .subcommand(
            // The child of `fastpath startup`: identify by one source, print
            // one line, exit. Hidden: it is an interface between two
            // processes of this binary, not a user command.
            Command::new(crate::experiments::startup::CHILD_COMMAND)
                .hide(true)
                .arg(
                    Arg::new("source")
                        .required(true)
                        .value_parser(crate::experiments::startup::IdentifySource::ALL.map(|s| s.name())),
                ),
        );
    for e in experiments {
        cmd = cmd.subcommand(e.args(common_args(Command::new(e.name()).about(e.about()))));
    }
    cmd
}

/// The usage errors clap cannot see, checked before anything runs (exit
/// 2): `--prof` given to a command that measures nothing (`cpu`,
/// `compare`), and an experiment's options that are each in range but do
/// not fit together ([`Experiment::check`]).
pub fn check_usage(
    experiments: &[&'static dyn Experiment],
    name: &str,
    m: &ArgMatches,
) -> Result<(), String> {
    let prof = m.try_get_one::<String>("prof").ok().flatten();
    if let (Some(p), "cpu" | "compare") = (prof, name) {
        return Err(format!(
            "--prof {p} applies to experiments and `all`; `{name}` measures nothing to profile"
        ));
    }
    match experiments.iter().find(|e| e.name() == name) {
        Some(e) => e.check(m, m.get_flag("quick")),
        None => Ok(()),
    }
}

/// The [`Context`] an experiment runs with, from its subcommand's matches;
/// `force_quick` sets quick mode whatever the flag says. Does not look at
/// `--out`: [`checked_context`] does.
pub fn context(m: &ArgMatches, force_quick: bool) -> Context {
    Context {
        quick: force_quick || m.get_flag("quick"),
        out: m.get_one::<PathBuf>("out").cloned(),
        matches: m.clone(),
    }
}

/// [`context`], after checking `--out` ([`prepare_out`]): what the CLI
/// uses, so that a bad directory is refused before anything is measured.
pub fn checked_context(m: &ArgMatches, force_quick: bool) -> anyhow::Result<Context> {
    let ctx = context(m, force_quick);
    if let Some(dir) = &ctx.out {
        prepare_out(dir)?;
    }
    Ok(ctx)
}

/// Runs one experiment, prints its tables and, with `--out`, writes its
/// JSON and plots there.
pub fn run_one(e: &dyn Experiment, ctx: &Context) -> anyhow::Result<report::Report> {
    let report = e.run(ctx).with_context(|| format!("experiment `{}`", e.name()))?;
    // Results are written before the tables are printed: a reader that
    // leaves early (`| head`) stops the run, and what was measured stays.
    if let Some(dir) = &ctx.out {
        report
            .write(e.name(), dir, &report::RunInfo::current(ctx.quick))
            .with_context(|| format!("writing results to {}", dir.display()))?;
    }
    outln!("{}", report.to_text());
    if ctx.option::<String>("prof").is_some() && !crate::harness::perfnorm::profiled(&report) {
        eprintln!(
            "fastpath: `{}` has no rows wired to --prof perfnorm yet: no counters were added",
            e.name()
        );
    }
    Ok(report)
}

/// What `fastpath all` has done so far: enough to write `report.md` at the
/// end, or a partial one when the run is stopped
/// ([`interrupt::on_stop`](crate::interrupt::on_stop)).
struct AllState {
    quick: bool,
    /// Summary rows: experiment, ran, seconds, goals met, goals (the
    /// verdicts joined, or `-`).
    summary: Vec<Vec<String>>,
    /// Each experiment's section of `report.md`.
    sections: String,
    /// Experiments that failed to run.
    failures: Vec<&'static str>,
    /// Experiments that ran but missed a goal.
    missed: Vec<&'static str>,
    /// The experiment running now.
    running: Option<&'static str>,
}

impl AllState {
    /// The summary: in Markdown (`report.md`) one row per experiment with
    /// its goals in a column and a link to its section; as text (printed
    /// at the end of the run) the goals as notes under the table, so that
    /// the table stays narrow.
    fn summary_table(&self, markdown: bool) -> report::Table {
        let mut headers = vec!["experiment", "ran", "seconds", "goals met"];
        if markdown {
            headers.push("goals (measured value; limit)");
        }
        let mut table = report::Table::new("Summary", &headers);
        for row in &self.summary {
            let mut cells = row.clone();
            let goals = cells.pop().expect("five cells");
            if markdown {
                if cells[1] == "ok" {
                    cells[0] = format!("[{n}](#{n})", n = cells[0]);
                }
                cells.push(goals);
            } else if goals != "-" {
                table.note(format!("{}: {goals}", cells[0]));
            }
            table.row(cells);
        }
        table.note("ran: the experiment finished (ok) or not; goals met: every PASS/FAIL verdict it gave is a PASS (yes), some is a FAIL (NO), or it has none (-)");
        table
    }

    /// `report.md`; `stopped` says why a partial report ends early.
    fn markdown(&self, stopped: Option<&str>) -> String {
        let mut head = report_header(self.quick);
        if let Some(why) = stopped {
            head.push_str(&format!(
                "\n\n**Partial report**: the run was {why} during `{}`; the experiments below it did not run.",
                self.running.unwrap_or("-")
            ));
        }
        format!(
            "# fastpath report\n\n{head}\n\n{}\n{}",
            self.summary_table(true).to_markdown(),
            self.sections
        )
    }
}

/// `fastpath all`: every experiment, quick unless `--full`, each with its
/// own options at their defaults (and `--prof` if given); writes
/// `report.md` (a summary first: what ran, on which CPU, which goals were
/// met, with the measured values; then each experiment's tables) and each
/// experiment's JSON and plots under `--out`, which is checked before
/// anything runs. Carries on past a failing experiment and fails at the
/// end, naming every one that failed; with `--check`, fails too when an
/// experiment missed a goal. Prints the summary at the end. Interrupted
/// (Ctrl-C, a closed pipe), it writes the report of what finished.
pub fn run_all(experiments: &[&'static dyn Experiment], m: &ArgMatches) -> anyhow::Result<()> {
    use std::sync::{Arc, Mutex};
    let quick = !m.get_flag("full");
    let check = m.get_flag("check");
    let prof = m.get_one::<String>("prof").cloned();
    let ctx = checked_context(m, quick)?;
    let out = ctx.out.clone().expect("`all` has a default --out");
    let state = Arc::new(Mutex::new(AllState {
        quick,
        summary: Vec::new(),
        sections: String::new(),
        failures: Vec::new(),
        missed: Vec::new(),
        running: None,
    }));
    {
        let state = Arc::clone(&state);
        let path = out.join("report.md");
        crate::interrupt::on_stop(move |why| {
            let why = if why.is_empty() {
                "stopped (stdout closed)"
            } else {
                why
            };
            let md = state
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .markdown(Some(why));
            if fs::write(&path, md).is_ok() {
                eprintln!("fastpath: wrote a partial {}", path.display());
            }
        });
    }
    // Plain data: a panic elsewhere cannot leave it half-updated in a way
    // that matters to a report.
    fn guard(s: &Mutex<AllState>) -> std::sync::MutexGuard<'_, AllState> {
        s.lock().unwrap_or_else(|e| e.into_inner())
    }
    for e in experiments {
        eprintln!("== {} ==", e.name());
        guard(&state).running = Some(e.name());
        let started = Instant::now();
        // Each experiment gets matches of its own subcommand (its options at
        // their defaults, `--quick` as `all` was asked), not `all`'s:
        // `get_one` on an option `all` does not define would panic.
        let mut argv = vec![e.name()];
        if quick {
            argv.push("--quick");
        }
        if let Some(p) = &prof {
            argv.extend(["--prof", p.as_str()]);
        }
        let own = e
            .args(common_args(Command::new(e.name())).arg(prof_arg()))
            .try_get_matches_from(argv)
            .with_context(|| format!("default options of `{}`", e.name()));
        let result = own.and_then(|own| {
            let ectx = Context {
                quick,
                out: ctx.out.clone(),
                matches: own,
            };
            run_one(*e, &ectx)
        });
        let secs = format!("{:.1}", started.elapsed().as_secs_f64());
        let mut st = guard(&state);
        st.running = None;
        match result {
            Ok(r) => {
                let goals = r.goals();
                let met = if goals.is_empty() {
                    "-"
                } else if goals.iter().any(|g| g.starts_with("FAIL")) {
                    st.missed.push(e.name());
                    "NO"
                } else {
                    "yes"
                };
                st.summary.push(vec![
                    e.name().to_string(),
                    "ok".to_string(),
                    secs,
                    met.to_string(),
                    if goals.is_empty() {
                        "-".to_string()
                    } else {
                        goals.join("; ")
                    },
                ]);
                st.sections.push_str(&format!(
                    "## {}\n\n{}\n\nJSON: [{n}.json]({n}.json)\n\n",
                    e.name(),
                    r.to_markdown(),
                    n = e.name()
                ));
            }
            Err(err) => {
                eprintln!("fastpath: {err:#}");
                st.summary.push(vec![
                    e.name().to_string(),
                    format!("FAILED: {err:#}"),
                    secs,
                    "-".into(),
                    "-".into(),
                ]);
                st.sections
                    .push_str(&format!("## {}\n\nFAILED: {err:#}\n\n", e.name()));
                st.failures.push(e.name());
            }
        }
    }
    crate::interrupt::clear_on_stop();
    // The state's lock is let go before printing: a closed pipe stops the
    // run from inside the print, and the stop must not wait on it.
    let (md, summary, failures, missed) = {
        let st = guard(&state);
        (
            st.markdown(None),
            st.summary_table(false).to_text(),
            st.failures.clone(),
            st.missed.clone(),
        )
    };
    let path = out.join("report.md");
    fs::write(&path, md).with_context(|| format!("writing {}", path.display()))?;
    outln!("{summary}");
    eprintln!("fastpath: wrote {}", path.display());
    anyhow::ensure!(failures.is_empty(), "experiments failed: {}", failures.join(", "));
    if !missed.is_empty() {
        let msg = format!("goals not met: {}", missed.join(", "));
        anyhow::ensure!(!check, "{msg} (--check)");
        eprintln!("fastpath: {msg} (exit 0 without --check)");
    }
    Ok(())
}

/// `--prof`, as the root command defines it (global) and `all` passes it
/// on to each experiment.
fn prof_arg() -> Arg {
    Arg::new("prof")
        .long("prof")
        .value_name("PROFILER")
        .value_parser(["perfnorm"])
        .help("Add CPU counters per operation to profiled rows (perfnorm: hardware counters, or Valgrind's simulation where the CPU has none)")
}

/// The lines under the report's title: the version, the mode, the CPU and
/// the configuration in force.
fn report_header(quick: bool) -> String {
    let c = fastpath::config::global();
    format!(
        "fastpath {}, `fastpath all`{}.\n\nCPU: {}.\n\nConfiguration: {}.",
        env!("CARGO_PKG_VERSION"),
        if quick {
            " in quick mode (seconds per experiment; `--full` for the full runs)"
        } else {
            " in full mode"
        },
        report::run_info::cpu_line(),
        c
    )
}

/// `fastpath __perfnorm <experiment> <id> <ops>`: the child
/// [`harness::perfnorm`](crate::harness::perfnorm) runs under Valgrind.
pub fn perfnorm_child(experiments: &[&'static dyn Experiment], m: &ArgMatches) -> anyhow::Result<()> {
    let name = m.get_one::<String>("experiment").expect("required");
    let id = m.get_one::<String>("id").expect("required");
    let ops = *m.get_one::<u64>("ops").expect("required");
    let e = experiments
        .iter()
        .find(|e| e.name() == name)
        .ok_or_else(|| anyhow::anyhow!("no experiment `{name}`"))?;
    crate::harness::perfnorm::child_main(e.perfnorm_region(id), name, id, ops)
}

/// The `*.json` files directly in `dir`, by file name.
fn json_files(dir: &Path) -> anyhow::Result<std::collections::BTreeMap<String, PathBuf>> {
    let mut files = std::collections::BTreeMap::new();
    for entry in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry
            .with_context(|| format!("reading {}", dir.display()))?
            .path();
        if path.is_file() && path.extension().is_some_and(|e| e == "json") {
            if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
                files.insert(name.to_string(), path.clone());
            }
        }
    }
    Ok(files)
}

/// `--min-change`: a percentage from 0 to 1000.
fn parse_min_change(v: &str) -> Result<f64, String> {
    match v.trim().parse::<f64>() {
        Ok(x) if (0.0..=1000.0).contains(&x) => Ok(x),
        _ => Err(format!("{v:?} is not a percentage from 0 to 1000")),
    }
}

/// `fastpath compare BASELINE CHANGE`: two result files, or two folders
/// (what `--out` or `all` wrote), whose `*.json` files are paired by name
/// and compared one pair at a time. Fails when nothing pairs.
pub fn run_compare(m: &ArgMatches) -> anyhow::Result<()> {
    let a = m.get_one::<PathBuf>("baseline").expect("required");
    let b = m.get_one::<PathBuf>("change").expect("required");
    let by = if m.get_flag("by-workload") {
        report::compare::MatchBy::Workload
    } else {
        report::compare::MatchBy::Exact
    };
    let pairs: Vec<(String, PathBuf, PathBuf)> = match (a.is_dir(), b.is_dir()) {
        (false, false) => vec![(String::new(), a.clone(), b.clone())],
        (true, true) => {
            let (fa, fb) = (json_files(a)?, json_files(b)?);
            let only_a: Vec<&str> = fa
                .keys()
                .filter(|n| !fb.contains_key(*n))
                .map(String::as_str)
                .collect();
            let only_b: Vec<&str> = fb
                .keys()
                .filter(|n| !fa.contains_key(*n))
                .map(String::as_str)
                .collect();
            for (dir, only) in [(a, only_a), (b, only_b)] {
                if !only.is_empty() {
                    eprintln!(
                        "fastpath: compare: only in {}: {}",
                        dir.display(),
                        only.join(", ")
                    );
                }
            }
            let both: Vec<_> = fa
                .iter()
                .filter_map(|(n, pa)| fb.get(n).map(|pb| (n.clone(), pa.clone(), pb.clone())))
                .collect();
            anyhow::ensure!(
                !both.is_empty(),
                "{} and {} have no JSON result file of the same name",
                a.display(),
                b.display()
            );
            both
        }
        _ => anyhow::bail!(
            "compare takes two files or two folders; {} is a folder and {} is not",
            if a.is_dir() { a.display() } else { b.display() },
            if a.is_dir() { b.display() } else { a.display() }
        ),
    };
    let mut compared = 0;
    let mut told = std::collections::BTreeSet::new();
    for (name, pa, pb) in &pairs {
        let (ra, rb) = (report::jmh::read_results(pa)?, report::jmh::read_results(pb)?);
        let run = |r: &[report::BenchResult]| r.iter().find_map(|x| x.run.clone());
        if let (Some(x), Some(y)) = (run(&ra), run(&rb)) {
            let d = x.differences(&y);
            if !d.is_empty() && told.insert(d.clone()) {
                eprintln!(
                    "fastpath: compare: warning: the two runs differ in more than the change: {} (baseline run {}, change run {})",
                    d.join("; "),
                    x.date,
                    y.date
                );
            }
        }
        let rule = report::compare::Rule {
            min_change_percent: *m.get_one::<f64>("min-change").expect("has a default"),
            raw: m.get_flag("raw"),
        };
        let c = report::compare::pair_with(&ra, &rb, by, &rule);
        if !name.is_empty() {
            outln!("== {name} ==");
        }
        for line in c.header() {
            outln!("{line}");
        }
        outln!("{}", c.table.to_text());
        let label = if name.is_empty() {
            String::new()
        } else {
            format!("{name}: ")
        };
        for w in c.warnings() {
            eprintln!("fastpath: compare: {label}{w}");
        }
        compared += c.compared;
    }
    anyhow::ensure!(compared > 0, "nothing to compare");
    Ok(())
}

/// The `FASTPATH_*` names something in this binary reads: the
/// configuration's ([`fastpath::config::variables`]), the lab's own and the
/// test suites'.
pub fn known_variables() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = fastpath::config::variables().iter().map(|v| v.var).collect();
    v.extend([
        crate::experiments::lock::contended::DEFLATE_AFTER_CONTENTION_VAR,
        "FASTPATH_BLESS",
        "FASTPATH_SYNC_ABORT_CHILD",
        "FASTPATH_STRESS_MS",
        "FASTPATH_EXPECT_CPU",
        "FASTPATH_QEMU_CPU",
    ]);
    v
}

/// A warning per `FASTPATH_*` name in `names` that nothing reads (a typo
/// would otherwise be silently ignored), naming the nearest known name.
pub fn unknown_variable_warnings(names: impl IntoIterator<Item = String>) -> Vec<String> {
    let known = known_variables();
    names
        .into_iter()
        .filter(|n| n.starts_with("FASTPATH_") && !known.contains(&n.as_str()))
        .map(|n| {
            let nearest = known
                .iter()
                .min_by_key(|k| edit_distance(&n, k))
                .expect("known names");
            format!("{n} is not a fastpath variable and is ignored; did you mean {nearest}? (`fastpath --help` lists them)")
        })
        .collect()
}

/// Levenshtein distance, by bytes (the names are ASCII).
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_consistent() {
        cli(&crate::experiments::registry()).debug_assert();
    }

    /// An experiment that reads its own option with `get_one`.
    struct WithOption;

    impl Experiment for WithOption {
        fn name(&self) -> &'static str {
            "with-option"
        }
        fn about(&self) -> &'static str {
            "test"
        }
        fn args(&self, cmd: Command) -> Command {
            cmd.arg(
                Arg::new("n")
                    .long("n")
                    .value_parser(value_parser!(u32))
                    .default_value("3"),
            )
        }
        fn run(&self, ctx: &Context) -> anyhow::Result<report::Report> {
            let n = *ctx.matches.get_one::<u32>("n").expect("has a default");
            // What the experiment saw, in its own table, for the tests.
            let mut t = report::Table::new("t", &["n"]);
            t.row(vec![format!("n={n} quick={}", ctx.quick)]);
            t.note(format!("PASS: goal of n={n}"));
            Ok(report::Report {
                tables: vec![t],
                ..Default::default()
            })
        }
    }

    /// Runs `all` with `args` over [`WithOption`] and returns `report.md`.
    fn run_all_with(args: &[&str]) -> String {
        // One directory per call: the tests run in parallel and each
        // removes its own at the end.
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        // Relaxed: a unique number, nothing else.
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let exps: Vec<&'static dyn Experiment> = vec![&WithOption];
        let dir = std::env::temp_dir().join(format!("fastpath-cli-all-{}-{call}", std::process::id()));
        let mut argv: Vec<std::ffi::OsString> = vec![
            "fastpath".into(),
            "all".into(),
            "--out".into(),
            dir.clone().into(),
        ];
        argv.extend(args.iter().map(|a| a.into()));
        let m = cli(&exps).try_get_matches_from(argv).unwrap();
        let (_, all) = m.subcommand().unwrap();
        run_all(&exps, all).unwrap();
        let md = fs::read_to_string(dir.join("report.md")).unwrap();
        let _ = fs::remove_dir_all(&dir);
        md
    }

    #[test]
    fn all_gives_each_experiment_its_own_options_at_their_defaults() {
        let md = run_all_with(&[]);
        assert!(md.contains("n=3"), "{md}");
    }

    #[test]
    fn all_is_quick_by_default_and_full_on_request() {
        let quick = run_all_with(&[]);
        assert!(
            quick.contains("quick=true") && quick.contains("in quick mode"),
            "{quick}"
        );
        let full = run_all_with(&["--full"]);
        assert!(
            full.contains("quick=false") && full.contains("in full mode"),
            "{full}"
        );
        // The goal verdicts are gathered into the summary, before the sections.
        let summary = full.split("## with-option").next().unwrap();
        assert!(summary.contains("| PASS: goal of n=3 |"), "{full}");
        assert!(
            cli(&[&WithOption as &dyn Experiment])
                .try_get_matches_from(["fastpath", "all", "--full", "--quick"])
                .is_err(),
            "--full and --quick contradict each other"
        );
    }

    #[test]
    fn prepare_out_names_the_path_and_creates_a_missing_directory() {
        let _serial = crate::interrupt::OUT_TEST_LOCK
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let base = std::env::temp_dir().join(format!("fastpath-prepare-out-{}", std::process::id()));
        let nested = base.join("a/b");
        prepare_out(&nested).unwrap();
        assert!(nested.is_dir());
        assert_eq!(
            fs::read_dir(&nested).unwrap().count(),
            0,
            "the probe file is removed"
        );
        let file = base.join("f");
        fs::write(&file, "").unwrap();
        let e = prepare_out(&file).unwrap_err().to_string();
        assert!(
            e.contains(&file.display().to_string()) && e.contains("not a directory"),
            "{e}"
        );
        let _ = fs::remove_dir_all(&base);
    }
}
