//! What an experiment is: the [`Experiment`] trait, and the [`Context`] it
//! runs in, which keeps each table as soon as the experiment finishes it.
//!
//! Where it sits: between the CLI and the experiments. The CLI makes a
//! `Context` (options, `--out`) and calls [`Experiment::run`]; the
//! experiment measures through the `harness` and hands every finished
//! part (a table with its result rows, plots) to [`Context::keep`], which
//! prints it and rewrites `<experiment>.json` under `--out` with every row
//! kept so far. A run that is stopped (Ctrl-C, a closed pipe) or fails
//! half-way has therefore printed and written every table it finished;
//! [`Context::kept`] is what it finished, for `fastpath all`'s report and
//! for tests, which run experiments in-process with a quiet context
//! ([`Context::new`]: it collects, prints and writes nothing).
//!
//! An experiment's files under `--out` are `<name>.json` and its plots,
//! each named `<name>-….svg` ([`result_files`]), so that a run can tell
//! which files of a folder are an earlier run's result before it starts.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use clap::{ArgMatches, Command};

use crate::harness::Settings;
use crate::report::{Report, RunInfo};

/// What every experiment is given.
pub struct Context {
    /// Seconds instead of minutes (CI and `fastpath all`).
    pub quick: bool,
    /// Where results go, if anywhere.
    pub out: Option<PathBuf>,
    /// The experiment's own parsed options (see [`Experiment::args`]).
    pub matches: ArgMatches,
    /// What the experiment has finished so far, shared with `fastpath
    /// all`'s partial report.
    kept: Arc<Mutex<Report>>,
    /// Where a kept part goes besides [`Context::kept`]: `None` in a quiet
    /// context.
    publish: Option<Publish>,
}

/// How a publishing context prints and writes what is kept.
struct Publish {
    /// The experiment's name: its result file is `<name>.json`.
    experiment: &'static str,
    /// Stamped on every result row written.
    run: RunInfo,
}

impl Context {
    /// A quiet context: what the experiment keeps is collected
    /// ([`Context::kept`]), neither printed nor written.
    pub fn new(quick: bool, out: Option<PathBuf>, matches: ArgMatches) -> Context {
        Context {
            quick,
            out,
            matches,
            kept: Arc::default(),
            publish: None,
        }
    }

    /// This context, printing each kept table on stdout and, with `out`,
    /// rewriting `experiment`'s result file there at each keep.
    pub fn publishing(mut self, experiment: &'static str) -> Context {
        self.publish = Some(Publish {
            experiment,
            run: RunInfo::current(self.quick),
        });
        self
    }

    /// Harness settings for this run.
    pub fn settings(&self) -> Settings {
        Settings::new(self.quick)
    }

    /// The experiment's option `id`, if given (or defaulted by clap). `None`
    /// too when the matches do not define it (a context built by hand, as
    /// tests do), so an experiment falls back to its own default.
    pub fn option<T: Clone + Send + Sync + 'static>(&self, id: &str) -> Option<T> {
        self.matches.try_get_one::<T>(id).ok().flatten().cloned()
    }

    /// The counter profiler `--prof` asked for (`None` without the flag),
    /// sensed once for `experiment`'s rows: see
    /// [`harness::perfnorm`](crate::harness::perfnorm).
    pub fn profiler(&self, experiment: &str) -> anyhow::Result<Option<crate::harness::perfnorm::Profiler>> {
        crate::harness::perfnorm::Profiler::from_flag(self.option::<String>("prof").as_deref(), experiment)
    }

    /// Keeps a finished part of the run: its tables, result rows and plots.
    /// A publishing context writes first (every row kept so far into
    /// `<experiment>.json`, the part's plots), then prints the part's
    /// tables: a reader that leaves during the print (`| head`) stops the
    /// run with the part already on disk.
    pub fn keep(&self, part: Report) -> anyhow::Result<()> {
        // The lock is let go before printing: a closed pipe stops the run
        // from inside the print, and the stop reads what was kept.
        let results = {
            let mut kept = lock(&self.kept);
            kept.tables.extend(part.tables.iter().cloned());
            kept.results.extend(part.results.iter().cloned());
            kept.plots.extend(part.plots.iter().cloned());
            kept.results.clone()
        };
        let Some(p) = &self.publish else {
            return Ok(());
        };
        if let Some(dir) = &self.out {
            debug_assert!(part
                .plots
                .iter()
                .all(|(f, _)| f.starts_with(&format!("{}-", p.experiment))));
            let written = Report {
                tables: Vec::new(),
                results,
                plots: part.plots,
            };
            written
                .write(p.experiment, dir, &p.run)
                .map_err(|e| anyhow::anyhow!("writing results to {}: {e}", dir.display()))?;
        }
        for t in &part.tables {
            crate::outln!("{}", t.to_text());
        }
        Ok(())
    }

    /// Keeps one finished table with its result rows ([`Context::keep`]).
    pub fn keep_table(
        &self,
        table: crate::report::Table,
        results: Vec<crate::report::BenchResult>,
    ) -> anyhow::Result<()> {
        self.keep(Report {
            tables: vec![table],
            results,
            plots: Vec::new(),
        })
    }

    /// Everything kept so far.
    pub fn kept(&self) -> Report {
        lock(&self.kept).clone()
    }

    /// A handle on what this context keeps, for a report written when the
    /// run is stopped (`fastpath all`'s partial report).
    pub fn kept_handle(&self) -> Arc<Mutex<Report>> {
        Arc::clone(&self.kept)
    }
}

/// Plain data: a panic elsewhere cannot leave it half-updated in a way that
/// matters to a report.
fn lock(kept: &Mutex<Report>) -> MutexGuard<'_, Report> {
    kept.lock().unwrap_or_else(|e| e.into_inner())
}

/// The files of `dir` that are results of `experiment`: `<experiment>.json`
/// and its plots (`<experiment>-….svg`).
pub fn result_files(dir: &Path, experiment: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let json = dir.join(format!("{experiment}.json"));
    if json.is_file() {
        files.push(json);
    }
    if let Ok(entries) = std::fs::read_dir(dir) {
        let prefix = format!("{experiment}-");
        let mut plots: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.is_file()
                    && p.extension().is_some_and(|e| e == "svg")
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(&prefix))
            })
            .collect();
        plots.sort();
        files.extend(plots);
    }
    files
}

/// One experiment.
pub trait Experiment: Sync {
    /// Subcommand name.
    fn name(&self) -> &'static str;
    /// One line for `--help`.
    fn about(&self) -> &'static str;
    /// Adds the experiment's own options to its subcommand.
    fn args(&self, cmd: Command) -> Command {
        cmd
    }
    /// Checks options that are each in range (clap checked that) but may
    /// not fit together, before anything runs; `quick` as the command line
    /// asked. An `Err` is a usage error (exit 2) and says what fits.
    fn check(&self, matches: &ArgMatches, quick: bool) -> Result<(), String> {
        let _ = (matches, quick);
        Ok(())
    }
    /// Runs it, handing each table to [`Context::keep`] as soon as it is
    /// finished.
    fn run(&self, ctx: &Context) -> anyhow::Result<()>;
    /// The measured loop of row `id`, for `--prof perfnorm` to re-run
    /// alone under Valgrind (`fastpath __perfnorm <name> <id> <ops>`);
    /// `None` for an unknown id or an experiment without profiled rows.
    fn perfnorm_region(&self, id: &str) -> Option<crate::harness::perfnorm::Region<'static>> {
        let _ = id;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Table;

    #[test]
    fn a_quiet_context_collects_every_kept_part_in_order() {
        let ctx = Context::new(true, None, Command::new("t").get_matches_from(["t"]));
        for title in ["first", "second"] {
            ctx.keep_table(Table::new(title, &["a"]), Vec::new()).unwrap();
        }
        let kept = ctx.kept();
        let titles: Vec<&str> = kept.tables.iter().map(|t| t.title.as_str()).collect();
        assert_eq!(titles, ["first", "second"]);
    }

    #[test]
    fn result_files_are_the_json_and_the_experiments_own_plots() {
        let dir = std::env::temp_dir().join(format!("fastpath-result-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for f in [
            "icache.json",
            "icache-flush.svg",
            "lock.json",
            "other.svg",
            "report.md",
        ] {
            std::fs::write(dir.join(f), "").unwrap();
        }
        let names = |e| -> Vec<String> {
            result_files(&dir, e)
                .iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(names("icache"), ["icache.json", "icache-flush.svg"]);
        assert_eq!(names("lock"), ["lock.json"]);
        assert!(names("spin").is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
