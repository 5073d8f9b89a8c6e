//! The experiments, one file per seed, each registered by name in
//! [`registry`].
//!
//! Where it sits: an experiment drives one subsystem of the `fastpath`
//! library through the `harness` and returns a `report::Report`. The CLI
//! makes each one a subcommand (`fastpath <name> [--quick] [--out DIR]
//! [its own options]`), and `fastpath all` runs every one in quick mode.

pub mod gc;
pub mod icache;
pub mod jit;
pub mod lock;
pub mod spin;
pub mod startup;

use std::path::PathBuf;

use clap::{ArgMatches, Command};

use crate::harness::Settings;
use crate::report::Report;

/// What every experiment is given.
pub struct Context {
    /// Seconds instead of minutes (CI and `fastpath all`).
    pub quick: bool,
    /// Where results go, if anywhere.
    pub out: Option<PathBuf>,
    /// The experiment's own parsed options (see [`Experiment::args`]).
    pub matches: ArgMatches,
}

impl Context {
    /// Harness settings for this run.
    pub fn settings(&self) -> Settings {
        Settings::new(self.quick)
    }

    /// The experiment's option `id`, if given (or defaulted by clap). `None`
    /// too when the matches do not define it (a `Context` built by hand,
    /// as tests do), so an experiment falls back to its own default.
    pub fn option<T: Clone + Send + Sync + 'static>(&self, id: &str) -> Option<T> {
        self.matches.try_get_one::<T>(id).ok().flatten().cloned()
    }

    /// The counter profiler `--prof` asked for (`None` without the flag),
    /// sensed once for `experiment`'s rows: see
    /// [`harness::perfnorm`](crate::harness::perfnorm).
    pub fn profiler(&self, experiment: &str) -> anyhow::Result<Option<crate::harness::perfnorm::Profiler>> {
        crate::harness::perfnorm::Profiler::from_flag(self.option::<String>("prof").as_deref(), experiment)
    }
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
    /// Runs it.
    fn run(&self, ctx: &Context) -> anyhow::Result<Report>;
    /// The measured loop of row `id`, for `--prof perfnorm` to re-run
    /// alone under Valgrind (`fastpath __perfnorm <name> <id> <ops>`);
    /// `None` for an unknown id or an experiment without profiled rows.
    fn perfnorm_region(&self, id: &str) -> Option<crate::harness::perfnorm::Region<'static>> {
        let _ = id;
        None
    }
}

/// Every experiment, in the order `fastpath all` runs them.
pub fn registry() -> Vec<&'static dyn Experiment> {
    vec![
        &startup::Startup,
        &spin::Spin,
        &icache::ICache,
        &lock::Lock,
        &gc::Gc,
        &jit::Jit,
    ]
}
