//! The command line: subcommands, common options, checks before anything
//! runs, and running one experiment; `all` ([`all`]) and `compare`
//! ([`compare`]) have files of their own, as has `--out` ([`out`]).
//!
//! Where it sits: at the top. `main` parses the command line with [`cli`],
//! refuses usage errors clap cannot see ([`check_usage`]), then runs a
//! command: an experiment through [`run_one`], which prints and writes
//! each table as the experiment keeps it
//! ([`Context::keep`](crate::experiment::Context::keep)).

pub mod all;
pub mod compare;
pub mod out;

use std::path::PathBuf;

use anyhow::Context as _;
use clap::{value_parser, Arg, ArgAction, ArgMatches, Command};

pub use all::run_all;
pub use compare::run_compare;
pub use out::prepare_out;

use crate::experiment::{Context, Experiment};
use crate::report;

/// Exit code for usage and configuration errors, as clap uses.
pub const USAGE_ERROR: u8 = 2;

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

/// The options of every experiment's subcommand and of `all`.
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
            .help("Write JSON results (JMH format) and plots into DIR (an earlier run's results there are refused, see --force)"),
    )
    .arg(
        Arg::new("force")
            .long("force")
            .action(ArgAction::SetTrue)
            .help("Replace an earlier run's results in the --out folder: they are removed before this run starts \
                 (without it, a folder named by --out that holds them is refused; `all`'s default folder moves them into its earlier/)"),
    )
    .arg(prof_arg())
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
                 about two minutes on 2 CPUs, most of it the vm experiment's Java programs; \
                 --full for the full runs)",
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
            ))
            .arg(
                Arg::new("rounds")
                    .long("rounds")
                    .value_name("N")
                    .value_parser(clap::builder::RangedI64ValueParser::<u64>::new().range(1..=100))
                    .help("Pass --rounds N, 1 to 100, to each experiment that has it (gc, vm) instead of its default"),
            )
            .arg(
                Arg::new("idle-ms")
                    .long("idle-ms")
                    .value_name("MS")
                    .value_parser(clap::builder::RangedI64ValueParser::<u64>::new().range(0..=60_000))
                    .help("Pass --idle-ms MS, 0 to 60000, to each experiment that has it (startup, vm) instead of its default"),
            ),
        )
        .subcommand(compare::command())
        .subcommand(crate::cpu_command::command())
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
        cmd = cmd.subcommand(experiment_command(*e));
    }
    accept_negative_numbers(cmd)
}

/// `e`'s subcommand: the common options and its own.
fn experiment_command(e: &dyn Experiment) -> Command {
    e.args(common_args(Command::new(e.name()).about(e.about())))
}

/// Lets every option and argument that takes a value take a negative
/// number, in every subcommand: `--threads -1` then reaches the option's
/// own parser, whose refusal names the range, instead of clap's
/// "unexpected argument '-1'".
fn accept_negative_numbers(cmd: Command) -> Command {
    cmd.mut_args(|a| {
        if a.get_action().takes_values() {
            a.allow_negative_numbers(true)
        } else {
            a
        }
    })
    .mut_subcommands(accept_negative_numbers)
}

/// The usage errors clap cannot see, checked before anything runs (exit
/// 2): an experiment's options that are each in range but do not fit
/// together ([`Experiment::check`]).
pub fn check_usage(
    experiments: &[&'static dyn Experiment],
    name: &str,
    m: &ArgMatches,
) -> Result<(), String> {
    match experiments.iter().find(|e| e.name() == name) {
        Some(e) => e.check(m, m.get_flag("quick")),
        None => Ok(()),
    }
}

/// The quiet [`Context`] an experiment runs with, from its subcommand's
/// matches; `force_quick` sets quick mode whatever the flag says. Does not
/// look at `--out`: [`checked_context`] does.
pub fn context(m: &ArgMatches, force_quick: bool) -> Context {
    Context::new(
        force_quick || m.get_flag("quick"),
        m.get_one::<PathBuf>("out").cloned(),
        m.clone(),
    )
}

/// [`context`], after checking `--out` for what the run writes
/// ([`prepare_out`]): what the CLI uses, so that a bad directory is refused
/// before anything is measured, and an earlier run's results in it are
/// refused (`--out DIR`), removed (`--force`) or, in the default folder,
/// kept in its `earlier/`.
pub fn checked_context(
    m: &ArgMatches,
    force_quick: bool,
    writes: out::Writes<'_>,
) -> anyhow::Result<Context> {
    let ctx = context(m, force_quick);
    if let Some(dir) = &ctx.out {
        let on_earlier = if m.get_flag("force") {
            out::OnEarlier::Replace
        } else if m.value_source("out") == Some(clap::parser::ValueSource::DefaultValue) {
            out::OnEarlier::Keep
        } else {
            out::OnEarlier::Refuse
        };
        prepare_out(dir, writes, on_earlier)?;
    }
    Ok(ctx)
}

/// `fastpath <experiment>`: checks `--out`, runs `e`, printing and
/// writing each table as it is kept. Stopped (Ctrl-C, a closed pipe),
/// the tables it finished stay printed and written, and stderr says so.
pub fn run_single(e: &'static dyn Experiment, m: &ArgMatches) -> anyhow::Result<()> {
    let ctx = checked_context(
        m,
        false,
        out::Writes {
            experiments: &[e.name()],
            report: false,
        },
    )?;
    let ctx = ctx.publishing(e.name());
    let kept = ctx.kept_handle();
    let out = ctx.out.clone();
    crate::interrupt::on_stop(move |_| {
        let kept = kept.lock().unwrap_or_else(|p| p.into_inner());
        if kept.tables.is_empty() {
            return;
        }
        let titles: Vec<&str> = kept.tables.iter().map(|t| short_title(&t.title)).collect();
        let written = out.as_ref().map_or_else(String::new, |dir| {
            format!(
                ", {} result rows in {}",
                kept.results.len(),
                dir.join(format!("{}.json", e.name())).display()
            )
        });
        eprintln!(
            "fastpath: kept the {} finished table(s): {}{written}",
            kept.tables.len(),
            titles.join("; ")
        );
    });
    run_one(e, &ctx).map(|_| ())
}

/// A table's title up to its first `:` or `,`, for a one-line list.
fn short_title(title: &str) -> &str {
    title.split([':', ',']).next().unwrap_or(title).trim()
}

/// Runs one experiment in `ctx` (a publishing context prints and writes
/// each table as it is kept) and returns what it kept. An experiment that
/// fails half-way has still printed and written the tables it finished.
pub fn run_one(e: &dyn Experiment, ctx: &Context) -> anyhow::Result<report::Report> {
    e.run(ctx).with_context(|| format!("experiment `{}`", e.name()))?;
    let report = ctx.kept();
    if ctx.option::<String>("prof").is_some() && !crate::harness::perfnorm::profiled(&report) {
        eprintln!(
            "fastpath: `{}` has no rows wired to --prof perfnorm yet: no counters were added",
            e.name()
        );
    }
    Ok(report)
}

/// `--prof`, of every experiment and `all` (which passes it on to each
/// experiment).
fn prof_arg() -> Arg {
    Arg::new("prof")
        .long("prof")
        .value_name("PROFILER")
        .value_parser(["perfnorm"])
        .help("Add CPU counters per operation to profiled rows (perfnorm: hardware counters, or Valgrind's simulation where the CPU has none)")
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

/// The `FASTPATH_VM_*` names fastpath-vm reads (its own settings and its
/// test suites'): the `vm` experiment starts fastpath-vm with the lab's
/// environment, so they are read, not ignored. A test holds this list
/// against fastpath-vm's sources.
pub const VM_VARIABLES: &[&str] = &[
    "FASTPATH_VM_BENCH_SRC",
    "FASTPATH_VM_CORPUS",
    "FASTPATH_VM_CORPUS_MATRIX",
    "FASTPATH_VM_CORPUS_ONLY",
    "FASTPATH_VM_CORPUS_TIMES",
    "FASTPATH_VM_CPU_LOG",
    "FASTPATH_VM_CPU_SOURCE",
    "FASTPATH_VM_FUZZ_CASES",
    "FASTPATH_VM_FUZZ_DUMP",
    "FASTPATH_VM_FUZZ_RUNS",
    "FASTPATH_VM_FUZZ_SEED",
    "FASTPATH_VM_GC_STATS",
    "FASTPATH_VM_JAVA_BASE_STRIDE",
    "FASTPATH_VM_JDK",
    "FASTPATH_VM_JIT",
    "FASTPATH_VM_JIT_DUMP",
    "FASTPATH_VM_JIT_INLINE_LOCKS",
    "FASTPATH_VM_JIT_LOG",
    "FASTPATH_VM_JIT_THRESHOLD",
    "FASTPATH_VM_JIT_TIERS",
    "FASTPATH_VM_JIT_TRACE",
    "FASTPATH_VM_PERF_MAP",
    "FASTPATH_VM_READ_AHEAD",
    "FASTPATH_VM_SYNC_STATS",
    "FASTPATH_VM_VERIFY_HEAP",
];

/// The `FASTPATH_*` names something in this binary, or fastpath-vm which
/// it starts, reads: the configuration's ([`fastpath::config::variables`]),
/// the lab's own, fastpath-vm's ([`VM_VARIABLES`]) and the test suites'.
pub fn known_variables() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = fastpath::config::variables().iter().map(|v| v.var).collect();
    v.extend([
        crate::experiments::lock::contended::DEFLATE_AFTER_CONTENTION_VAR,
        crate::experiments::vm::setup::JDK_VAR,
        "FASTPATH_BLESS",
        "FASTPATH_SYNC_ABORT_CHILD",
        "FASTPATH_STRESS_MS",
        "FASTPATH_EXPECT_CPU",
        "FASTPATH_QEMU_CPU",
        "FASTPATH_EMULATION_SCALE",
    ]);
    v.extend(
        VM_VARIABLES
            .iter()
            .copied()
            .filter(|n| !v.contains(n))
            .collect::<Vec<_>>(),
    );
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

    /// Every `FASTPATH_VM_*` name in fastpath-vm's sources and tests is in
    /// [`VM_VARIABLES`], and every listed name is still read there.
    #[test]
    fn vm_variables_match_fastpath_vms_sources() {
        let vm = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fastpath-vm");
        let mut found = std::collections::BTreeSet::new();
        let mut dirs = vec![vm.join("src"), vm.join("tests"), vm.join("benches")];
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let text = std::fs::read_to_string(&p).expect("a readable source");
                    let mut rest = text.as_str();
                    while let Some(at) = rest.find("FASTPATH_VM_") {
                        let tail = &rest[at..];
                        let end = tail
                            .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
                            .unwrap_or(tail.len());
                        let name = tail[..end].trim_end_matches('_');
                        if name.len() > "FASTPATH_VM_".len() {
                            found.insert(name.to_string());
                        }
                        rest = &tail[end..];
                    }
                }
            }
        }
        let listed: std::collections::BTreeSet<String> = VM_VARIABLES.iter().map(|s| s.to_string()).collect();
        assert_eq!(
            found, listed,
            "fastpath-vm's FASTPATH_VM_* names against cli::VM_VARIABLES"
        );
    }
}
