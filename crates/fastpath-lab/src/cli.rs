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

/// Writes `args` to stdout. A closed pipe is not an error for a command
/// whose output was cut short on purpose (`| head`): it stops all further
/// printing and is otherwise ignored. Any other write error is reported once
/// on stderr and printing stops too.
pub fn print_out(args: std::fmt::Arguments<'_>) {
    // Relaxed: a flag with no data behind it; a thread that misses the store
    // tries one more write, which fails the same way.
    if STDOUT_GONE.load(Ordering::Relaxed) {
        return;
    }
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        if !STDOUT_GONE.swap(true, Ordering::Relaxed) && e.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("fastpath: writing to stdout: {e}");
        }
    }
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
pub fn prepare_out(dir: &Path) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        anyhow::bail!("--out {}: exists and is not a directory", dir.display());
    }
    fs::create_dir_all(dir)
        .with_context(|| format!("--out {}: cannot create the directory", dir.display()))?;
    let probe = dir.join(format!(".fastpath-write-test-{}", std::process::id()));
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
            ),
        )
        .subcommand(
            Command::new("compare")
                .about("Compare two JMH-format result files: baseline, change and % per row")
                .after_help(
                    "A result file is what `fastpath <experiment> --out DIR` writes \
                     (DIR/<experiment>.json) or what JMH writes with -rf json (peers/jvm/run.sh). \
                     Exits 1 when no row pairs.",
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
                ),
        )
        .subcommand(crate::cpu_command::command())
        .arg(
            Arg::new("prof")
                .long("prof")
                .global(true)
                .value_name("PROFILER")
                .value_parser(["perfnorm"])
                .help("Add CPU counters per operation to profiled rows (perfnorm: hardware counters, or Valgrind's simulation where the CPU has none)"),
        )
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
    outln!("{}", report.to_text());
    if ctx.option::<String>("prof").is_some() && !crate::harness::perfnorm::profiled(&report) {
        eprintln!(
            "fastpath: `{}` has no rows wired to --prof perfnorm yet: no counters were added",
            e.name()
        );
    }
    if let Some(dir) = &ctx.out {
        report
            .write(e.name(), dir)
            .with_context(|| format!("writing results to {}", dir.display()))?;
    }
    Ok(report)
}

/// `fastpath all`: every experiment, quick unless `--full`, each with its
/// own options at their defaults; writes `report.md` (a summary first: what
/// ran, on which CPU, which goals passed; then each experiment's tables) and
/// each experiment's JSON and plots under `--out`, which is checked before
/// anything runs. Carries on past a failing experiment and fails at the end,
/// naming every one that failed.
pub fn run_all(experiments: &[&'static dyn Experiment], m: &ArgMatches) -> anyhow::Result<()> {
    let quick = !m.get_flag("full");
    let ctx = checked_context(m, quick)?;
    let out = ctx.out.clone().expect("`all` has a default --out");
    let mut sections = String::new();
    let mut summary = Vec::new();
    let mut failures = Vec::new();
    for e in experiments {
        eprintln!("== {} ==", e.name());
        let started = Instant::now();
        // Each experiment gets matches of its own subcommand (its options at
        // their defaults, `--quick` as `all` was asked), not `all`'s:
        // `get_one` on an option `all` does not define would panic.
        let argv: &[&str] = if quick {
            &[e.name(), "--quick"]
        } else {
            &[e.name()]
        };
        let own = e
            .args(common_args(Command::new(e.name())))
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
        match result {
            Ok(r) => {
                let goals = r.goals();
                summary.push(vec![
                    format!("[{n}](#{n})", n = e.name()),
                    "ok".to_string(),
                    secs,
                    if goals.is_empty() {
                        "-".to_string()
                    } else {
                        goals.join("; ")
                    },
                ]);
                sections.push_str(&format!(
                    "## {}\n\n{}\n\nJSON: [{n}.json]({n}.json)\n\n",
                    e.name(),
                    r.to_markdown(),
                    n = e.name()
                ));
            }
            Err(err) => {
                eprintln!("fastpath: {err:#}");
                summary.push(vec![
                    e.name().to_string(),
                    format!("FAILED: {err:#}"),
                    secs,
                    "-".into(),
                ]);
                sections.push_str(&format!("## {}\n\nFAILED: {err:#}\n\n", e.name()));
                failures.push(e.name());
            }
        }
    }
    let mut table = report::Table::new("Summary", &["experiment", "result", "seconds", "goals"]);
    for row in summary {
        table.row(row);
    }
    let md = format!(
        "# fastpath report\n\n{}\n\n{}\n{}",
        report_header(quick),
        table.to_markdown(),
        sections
    );
    let path = out.join("report.md");
    fs::write(&path, md).with_context(|| format!("writing {}", path.display()))?;
    eprintln!("fastpath: wrote {}", path.display());
    anyhow::ensure!(failures.is_empty(), "experiments failed: {}", failures.join(", "));
    Ok(())
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
        cpu_line(),
        c
    )
}

fn cpu_line() -> String {
    let c = fastpath::cpu::info();
    format!(
        "{} family {} model {} stepping {}, {} logical CPUs{}",
        if c.brand.is_empty() {
            &c.vendor_string
        } else {
            &c.brand
        },
        c.family,
        c.model,
        c.stepping,
        c.logical_cpus,
        c.hypervisor
            .as_ref()
            .map(|h| format!(", hypervisor {h}"))
            .unwrap_or_default()
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

/// Reads a JMH-format result file (for `compare`); the error names the
/// file.
pub fn read_results(path: &Path) -> anyhow::Result<Vec<report::BenchResult>> {
    let text = fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    report::jmh::from_json(&text).with_context(|| format!("{} is not a JMH result file", path.display()))
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
