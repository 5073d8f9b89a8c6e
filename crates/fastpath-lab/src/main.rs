//! `fastpath`: the lab CLI. Each experiment is a subcommand; `all` runs every
//! one (quick unless `--full`) and writes a report; `compare` diffs two
//! JMH-format result files. Output to a closed pipe ends quietly (see
//! `cli::print_out`).

use std::path::PathBuf;
use std::process::ExitCode;

use fastpath_lab::cli::{self, USAGE_ERROR};
use fastpath_lab::{experiments, report};

fn main() -> ExitCode {
    let experiments = experiments::registry();
    let matches = cli::cli(&experiments).get_matches();
    // The startup experiment's child runs before anything else (including
    // `config::init`, which identifies the CPU), so that what it times is
    // only the source it was asked for.
    if let Some((experiments::startup::CHILD_COMMAND, m)) = matches.subcommand() {
        let source = m.get_one::<String>("source").expect("required");
        let source = experiments::startup::IdentifySource::parse(source).expect("clap checked it");
        return match experiments::startup::child_main(source) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("fastpath: {e:#}");
                ExitCode::FAILURE
            }
        };
    }
    // The perfnorm child runs one row's loop under Valgrind, nothing else.
    if let Some((fastpath_lab::harness::perfnorm::CHILD_COMMAND, m)) = matches.subcommand() {
        return match cli::perfnorm_child(&experiments, m) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("fastpath: {e:#}");
                ExitCode::FAILURE
            }
        };
    }
    // A bad FASTPATH_* variable is a usage error, reported before any
    // experiment runs, as HotSpot refuses to start on a bad -XX flag.
    if let Err(e) = fastpath::config::init() {
        eprintln!("fastpath: {e}");
        return ExitCode::from(USAGE_ERROR);
    }
    let result = match matches.subcommand() {
        Some(("all", m)) => cli::run_all(&experiments, m),
        Some(("cpu", m)) => fastpath_lab::cpu_command::run(m),
        Some(("compare", m)) => (|| {
            let a = cli::read_results(m.get_one::<PathBuf>("baseline").expect("required"))?;
            let b = cli::read_results(m.get_one::<PathBuf>("change").expect("required"))?;
            let by = if m.get_flag("by-workload") {
                report::compare::MatchBy::Workload
            } else {
                report::compare::MatchBy::Exact
            };
            let c = report::compare::pair(&a, &b, by);
            fastpath_lab::outln!("{}", c.table.to_text());
            for w in c.warnings() {
                eprintln!("fastpath: compare: {w}");
            }
            anyhow::ensure!(c.compared > 0, "nothing to compare");
            Ok(())
        })(),
        Some((name, m)) => {
            let e = experiments
                .iter()
                .find(|e| e.name() == name)
                .expect("clap only accepts registered names");
            cli::checked_context(m, false).and_then(|ctx| cli::run_one(*e, &ctx).map(|_| ()))
        }
        None => unreachable!("subcommand_required"),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fastpath: {e:#}");
            ExitCode::FAILURE
        }
    }
}
