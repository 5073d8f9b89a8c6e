//! `fastpath`: the lab CLI. Each experiment is a subcommand; `all` runs every
//! one (quick unless `--full`) and writes a report; `compare` diffs two
//! JMH-format result files (or two folders of them). Output to a closed
//! pipe stops the run quietly (see `output::print_out`); Ctrl-C stops it
//! cleanly (see `interrupt`).

use std::process::ExitCode;

use fastpath_lab::cli::{self, USAGE_ERROR};
use fastpath_lab::{experiments, interrupt, output};

fn main() -> ExitCode {
    // First, before any thread exists: every thread inherits the mask.
    interrupt::install();
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
    let (name, m) = matches.subcommand().expect("subcommand_required");
    // Usage errors that clap cannot see, before anything runs: an option a
    // command would ignore, and options that are each in range but do not
    // fit together.
    if let Err(e) = cli::check_usage(&experiments, name, m) {
        eprintln!("error: {e}");
        return ExitCode::from(USAGE_ERROR);
    }
    // From here on, stdout's reader leaving stops the run at once.
    interrupt::watch_stdout_reader();
    for w in cli::unknown_variable_warnings(std::env::vars_os().filter_map(|(k, _)| k.into_string().ok())) {
        eprintln!("fastpath: warning: {w}");
    }
    // A bad FASTPATH_* variable is a usage error, reported before any
    // experiment runs, as HotSpot refuses to start on a bad -XX flag.
    // `compare` only reads files: the configuration does not concern it.
    if name != "compare" {
        if let Err(e) = fastpath::config::init() {
            eprintln!("fastpath: {e}");
            return ExitCode::from(USAGE_ERROR);
        }
    }
    let result = match name {
        "all" => cli::run_all(&experiments, m),
        "cpu" => fastpath_lab::cpu_command::run(m),
        "compare" => cli::run_compare(m),
        name => {
            let e = experiments
                .iter()
                .find(|e| e.name() == name)
                .expect("clap only accepts registered names");
            cli::run_single(*e, m)
        }
    };
    match result {
        Ok(()) if output::stdout_failed() => {
            interrupt::remove_out_if_empty();
            eprintln!("fastpath: the output is incomplete (writing to stdout failed)");
            ExitCode::FAILURE
        }
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            interrupt::remove_out_if_empty();
            eprintln!("fastpath: {e:#}");
            ExitCode::FAILURE
        }
    }
}
