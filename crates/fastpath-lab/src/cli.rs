//! The command line: subcommands, common options, `all` and `compare`.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::{value_parser, Arg, ArgAction, ArgMatches, Command};

use crate::experiments::{Context, Experiment};
use crate::report;

/// Exit code for usage and configuration errors, as clap uses.
pub const USAGE_ERROR: u8 = 2;

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
        .subcommand(
            common_args(
                Command::new("all")
                    .about("Run every experiment in quick mode and write report.md, JSON and SVGs"),
            )
            .mut_arg("out", |a| a.default_value("fastpath-report")),
        )
        .subcommand(
            Command::new("compare")
                .about("Compare two JMH-format result files: baseline, change and % per row")
                .arg(
                    Arg::new("baseline")
                        .required(true)
                        .value_parser(value_parser!(PathBuf)),
                )
                .arg(
                    Arg::new("change")
                        .required(true)
                        .value_parser(value_parser!(PathBuf)),
                )
                .arg(
                    Arg::new("by-workload")
                        .long("by-workload")
                        .action(ArgAction::SetTrue)
                        .help(
                            "Pair rows by workload name and threads only, e.g. a fastpath run \
                             against its HotSpot peer from peers/jvm",
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
/// `force_quick` sets quick mode whatever the flag says (as `all` does).
pub fn context(m: &ArgMatches, force_quick: bool) -> Context {
    Context {
        quick: force_quick || m.get_flag("quick"),
        out: m.get_one::<PathBuf>("out").cloned(),
        matches: m.clone(),
    }
}

/// Runs one experiment, prints its tables and, with `--out`, writes its
/// JSON and plots there.
pub fn run_one(e: &dyn Experiment, ctx: &Context) -> anyhow::Result<report::Report> {
    let report = e.run(ctx).with_context(|| format!("experiment `{}`", e.name()))?;
    println!("{}", report.to_text());
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

/// `fastpath all`: every experiment in quick mode, each with its own
/// options at their defaults; writes `report.md` (and each experiment's
/// JSON and plots) under `--out`. Carries on past a failing experiment and
/// fails at the end, naming every one that failed.
pub fn run_all(experiments: &[&'static dyn Experiment], m: &ArgMatches) -> anyhow::Result<()> {
    let ctx = context(m, true);
    let out = ctx.out.clone().expect("`all` has a default --out");
    let mut md = format!(
        "# fastpath report\n\nfastpath {}, quick mode. CPU: {}.\n\n",
        env!("CARGO_PKG_VERSION"),
        cpu_line()
    );
    let mut failures = Vec::new();
    for e in experiments {
        eprintln!("== {} ==", e.name());
        // Each experiment gets matches of its own subcommand (its options at
        // their defaults, `--quick` set), not `all`'s: `get_one` on an option
        // `all` does not define would panic.
        let own = e
            .args(common_args(Command::new(e.name())))
            .try_get_matches_from([e.name(), "--quick"])
            .with_context(|| format!("default options of `{}`", e.name()));
        let result = own.and_then(|own| {
            let ectx = Context {
                quick: true,
                out: ctx.out.clone(),
                matches: own,
            };
            run_one(*e, &ectx)
        });
        match result {
            Ok(r) => {
                md.push_str(&format!(
                    "## {}\n\n{}\n\nJSON: [{n}.json]({n}.json)\n\n",
                    e.name(),
                    r.to_markdown(),
                    n = e.name()
                ));
            }
            Err(err) => {
                eprintln!("fastpath: {err:#}");
                md.push_str(&format!("## {}\n\nFAILED: {err:#}\n\n", e.name()));
                failures.push(e.name());
            }
        }
    }
    fs::create_dir_all(&out)?;
    let path = out.join("report.md");
    fs::write(&path, md).with_context(|| format!("writing {}", path.display()))?;
    eprintln!("fastpath: wrote {}", path.display());
    anyhow::ensure!(failures.is_empty(), "experiments failed: {}", failures.join(", "));
    Ok(())
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
            anyhow::ensure!(ctx.quick, "`all` runs quick");
            let mut t = report::Table::new("t", &["n"]);
            t.row(vec![format!("n={n}")]);
            Ok(report::Report {
                tables: vec![t],
                ..Default::default()
            })
        }
    }

    #[test]
    fn all_gives_each_experiment_its_own_options_at_their_defaults() {
        let exps: Vec<&'static dyn Experiment> = vec![&WithOption];
        let dir = std::env::temp_dir().join(format!("fastpath-cli-all-{}", std::process::id()));
        let m = cli(&exps)
            .try_get_matches_from([
                std::ffi::OsStr::new("fastpath"),
                "all".as_ref(),
                "--out".as_ref(),
                dir.as_os_str(),
            ])
            .unwrap();
        let (_, all) = m.subcommand().unwrap();
        run_all(&exps, all).unwrap();
        let md = fs::read_to_string(dir.join("report.md")).unwrap();
        let _ = fs::remove_dir_all(&dir);
        assert!(md.contains("n=3"), "{md}");
    }
}
