//! `fastpath all`: every experiment in turn (quick unless `--full`), each
//! with its own options at their defaults (`--rounds` and `--idle-ms`, when
//! given, passed to the experiments that have them), then `report.md`: a summary
//! first (what ran, on which CPU and configuration, which goals were met,
//! with the measured values), then every experiment's tables.
//!
//! Where it sits: under the CLI, over [`run_one`]. Each
//! experiment prints and writes its tables as it keeps them, as it does
//! when run alone; a stop (Ctrl-C, a closed pipe) writes a partial
//! `report.md` of the experiments that finished and the tables the running
//! one had finished ([`interrupt::on_stop`](crate::interrupt::on_stop)).

use std::fs;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use anyhow::Context as _;
use clap::ArgMatches;

use super::out::{Writes, REPORT};
use super::{checked_context, experiment_command, run_one};
use crate::experiment::{Context, Experiment};
use crate::outln;
use crate::report::{self, Report};

/// What `fastpath all` has done so far: enough to write `report.md` at the
/// end, or a partial one when the run is stopped.
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
    /// The experiment running now, and what it has kept so far.
    running: Option<(&'static str, Arc<Mutex<Report>>)>,
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
        let mut sections = self.sections.clone();
        if let Some(why) = stopped {
            let running = self.running.as_ref().map_or("-", |r| r.0);
            head.push_str(&format!(
                "\n\n**Partial report**: the run was {why} during `{running}`; the experiments after it did not run."
            ));
            if let Some((name, kept)) = &self.running {
                let kept = kept.lock().unwrap_or_else(|e| e.into_inner());
                if !kept.tables.is_empty() {
                    sections.push_str(&format!(
                        "## {name}\n\nStopped: the {} table(s) it finished.\n\n{}\n\nJSON: [{name}.json]({name}.json)\n\n",
                        kept.tables.len(),
                        kept.to_markdown()
                    ));
                }
            }
        }
        format!(
            "# fastpath report\n\n{head}\n\n{}\n{sections}",
            self.summary_table(true).to_markdown(),
        )
    }

    /// Records `e`'s outcome: its summary row and its section.
    fn finished(&mut self, e: &dyn Experiment, secs: String, result: anyhow::Result<Report>) {
        match result {
            Ok(r) => {
                let goals = r.goals();
                let met = if goals.is_empty() {
                    "-"
                } else if goals.iter().any(|g| g.starts_with("FAIL")) {
                    self.missed.push(e.name());
                    "NO"
                } else {
                    "yes"
                };
                self.summary.push(vec![
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
                self.sections.push_str(&format!(
                    "## {}\n\n{}\n\nJSON: [{n}.json]({n}.json)\n\n",
                    e.name(),
                    r.to_markdown(),
                    n = e.name()
                ));
            }
            Err(err) => {
                eprintln!("fastpath: {err:#}");
                self.summary.push(vec![
                    e.name().to_string(),
                    format!("FAILED: {err:#}"),
                    secs,
                    "-".into(),
                    "-".into(),
                ]);
                self.sections
                    .push_str(&format!("## {}\n\nFAILED: {err:#}\n\n", e.name()));
                self.failures.push(e.name());
            }
        }
    }
}

/// Plain data: a panic elsewhere cannot leave it half-updated in a way
/// that matters to a report.
fn guard(s: &Mutex<AllState>) -> MutexGuard<'_, AllState> {
    s.lock().unwrap_or_else(|e| e.into_inner())
}

/// `fastpath all`: every experiment, quick unless `--full`, each with its
/// own options at their defaults (and `--prof`, `--rounds`, `--idle-ms` if
/// given, to the experiments that have them); writes
/// `report.md` and each experiment's JSON and plots under `--out`, which is
/// checked (and, with `--force`, cleared of an earlier run's results)
/// before anything runs. Carries on past a failing experiment and fails at
/// the end, naming every one that failed; with `--check`, fails too when an
/// experiment missed a goal. Prints the summary at the end. Interrupted
/// (Ctrl-C, a closed pipe), it writes the report of what finished.
pub fn run_all(experiments: &[&'static dyn Experiment], m: &ArgMatches) -> anyhow::Result<()> {
    let quick = !m.get_flag("full");
    let check = m.get_flag("check");
    let prof = m.get_one::<String>("prof").cloned();
    // `all`'s sizes given to every experiment that has the option of that
    // name (each checks its own range; `all`'s range lies inside theirs).
    let passed_on: Vec<(&str, u64)> = ["rounds", "idle-ms"]
        .into_iter()
        .filter_map(|o| Some((o, *m.get_one::<u64>(o)?)))
        .collect();
    let names: Vec<&str> = experiments.iter().map(|e| e.name()).collect();
    let ctx = checked_context(
        m,
        quick,
        Writes {
            experiments: &names,
            report: true,
        },
    )?;
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
        let path = out.join(REPORT);
        crate::interrupt::on_stop(move |why| {
            let why = if why.is_empty() {
                "stopped (stdout closed)"
            } else {
                why
            };
            let md = guard(&state).markdown(Some(why));
            if fs::write(&path, md).is_ok() {
                eprintln!("fastpath: wrote a partial {}", path.display());
            }
        });
    }
    for e in experiments {
        eprintln!("== {} ==", e.name());
        let started = Instant::now();
        // Each experiment gets matches of its own subcommand (its options at
        // their defaults, `--quick` as `all` was asked), not `all`'s:
        // `get_one` on an option `all` does not define would panic.
        let cmd = experiment_command(*e);
        let mut argv = vec![e.name().to_string()];
        if quick {
            argv.push("--quick".into());
        }
        if let Some(p) = &prof {
            argv.extend(["--prof".into(), p.clone()]);
        }
        for (option, value) in &passed_on {
            if cmd.get_arguments().any(|a| a.get_long() == Some(option)) {
                argv.extend([format!("--{option}"), value.to_string()]);
            }
        }
        let result = cmd
            .try_get_matches_from(argv)
            .with_context(|| format!("default options of `{}`", e.name()))
            .and_then(|own| {
                let ectx = Context::new(quick, Some(out.clone()), own).publishing(e.name());
                guard(&state).running = Some((e.name(), ectx.kept_handle()));
                run_one(*e, &ectx)
            });
        let secs = format!("{:.1}", started.elapsed().as_secs_f64());
        let mut st = guard(&state);
        st.running = None;
        st.finished(*e, secs, result);
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
    let path = out.join(REPORT);
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

#[cfg(test)]
mod tests {
    use clap::{value_parser, Arg, Command};

    use super::*;

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
        fn run(&self, ctx: &Context) -> anyhow::Result<()> {
            let n = *ctx.matches.get_one::<u32>("n").expect("has a default");
            // What the experiment saw, in its own table, for the tests.
            let mut t = report::Table::new("t", &["n"]);
            t.row(vec![format!("n={n} quick={}", ctx.quick)]);
            t.note(format!("PASS: goal of n={n}"));
            ctx.keep_table(t, Vec::new())
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
        let m = super::super::cli(&exps).try_get_matches_from(argv).unwrap();
        let (_, all) = m.subcommand().unwrap();
        run_all(&exps, all).unwrap();
        let md = fs::read_to_string(dir.join(REPORT)).unwrap();
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
            super::super::cli(&[&WithOption as &dyn Experiment])
                .try_get_matches_from(["fastpath", "all", "--full", "--quick"])
                .is_err(),
            "--full and --quick contradict each other"
        );
    }

    #[test]
    fn a_partial_report_holds_the_running_experiments_finished_tables() {
        let kept = Arc::new(Mutex::new(Report::default()));
        kept.lock()
            .unwrap()
            .tables
            .push(report::Table::new("pairs done", &["a"]));
        let st = AllState {
            quick: true,
            summary: Vec::new(),
            sections: String::new(),
            failures: Vec::new(),
            missed: Vec::new(),
            running: Some(("lock", kept)),
        };
        let md = st.markdown(Some("interrupted (Ctrl-C)"));
        assert!(
            md.contains("**Partial report**") && md.contains("during `lock`") && md.contains("pairs done"),
            "{md}"
        );
        assert!(!st.markdown(None).contains("pairs done"), "only a stop adds it");
    }
}
