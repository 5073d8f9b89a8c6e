//! `fastpath vm`: the seeds' experiments on whole Java programs, run on
//! fastpath-vm (a JVM built from the library, `crates/fastpath-vm`) with
//! fastpath's strategies selected at run time, beside HotSpot with the
//! matching `-XX:` flags on the same class files.
//!
//! Where it sits: drives two external VMs. [`setup`] compiles the
//! programs of `crates/fastpath-vm/bench/java` with javac and finds (or
//! builds) `fastpath-vm` and HotSpot; [`vms`] turns a configuration into
//! a command line; [`measure`] times programs in interleaved rounds of
//! whole processes; [`startup`] times starts, cold and warm; each table is
//! one file, in the order:
//!
//! 1. [`awfy`]: time per iteration per program, fastpath-vm's interpreter
//!    (and JIT: default tiers, and `-Xcomp` in a full run) beside HotSpot's
//!    `-Xint` and C2, ratios and their geometric mean;
//! 2. [`locking`]: seed 001's table on programs, the three locking modes
//!    of each VM, % against legacy stack-locking, 1/2/4 threads where a
//!    program takes them, monitors inflated and deflated per run;
//! 3. [`barriers`]: seed 003's, passive mode per barrier set, % time
//!    against no barriers as the median of per-round paired ratios with
//!    their spread, a goal table with a verdict per program and tier
//!    (and, with `--prof perfnorm`, instructions,
//!    branches and loads per iteration: [`counters`]), beside Shenandoah
//!    passive with the same barriers switched on;
//! 4. [`icache`]: seed 000's, start-up per icache strategy (`-Xcomp`, so
//!    every method is installed, and the default tiers) beside HotSpot's
//!    `-XX:X86ICacheSync`;
//! 5. [`cpuid`]: seed 002's, cold and warm starts per CPU-identification
//!    source (fastpath-vm's `FASTPATH_VM_CPU_SOURCE`) beside HotSpot;
//! 6. [`spin`]: seed 004's, the SynchronousQueue hand-off and the
//!    LinkedHashMap LRU per spin-pause strategy, beside HotSpot's
//!    `Thread.onSpinWait()`.
//!
//! Every table is kept (printed, and written as JMH-format rows of
//! `fastpath.vm.<table>.<program>`) as soon as it is measured; plots go to
//! `vm-<table>.svg`. What the fastpath-vm given cannot run (a JIT, a CPU
//! identification source, monitor counts) is said in the table, never
//! filled with another figure.

pub mod awfy;
pub mod barriers;
pub mod bars;
pub mod counters;
pub mod cpuid;
pub mod icache;
pub mod launch;
pub mod locking;
pub mod measure;
pub mod programs;
pub mod rows;
pub mod setup;
pub mod spin;
pub mod startup;
pub mod vms;

use std::path::PathBuf;
use std::time::Duration;

use clap::{Arg, ArgMatches, Command};
use indicatif::ProgressBar;

use self::measure::{Cell, Plan};
use self::programs::Program;
use self::setup::{Locations, Setup};
use self::vms::{Engine, RunConfig, Tier};
use crate::experiment::{Context, Experiment};
use crate::report::{BenchResult, Report, Table};

/// The tables, in the order they run (`--only` names).
pub const TABLES: [&str; 6] = ["programs", "locking", "barriers", "icache", "cpuid", "spin"];

/// The heap both VMs get (HotSpot also as `-Xms`, so it does not resize).
pub const HEAP: &str = "256m";

/// `fastpath vm`.
pub struct Vm;

/// One table's finished part: its tables, rows and plots.
pub struct Part {
    tables: Vec<Table>,
    results: Vec<BenchResult>,
    plots: Vec<(String, String)>,
}

impl Part {
    /// A part of one table.
    pub fn new(table: Table, results: Vec<BenchResult>) -> Part {
        Part {
            tables: vec![table],
            results,
            plots: Vec::new(),
        }
    }

    /// Adds a table (a second view of the same runs).
    pub fn table(&mut self, table: Table) {
        self.tables.push(table);
    }

    /// Adds a plot, `vm-….svg`.
    pub fn plot(&mut self, name: &str, svg: String) {
        debug_assert!(name.starts_with("vm-") && name.ends_with(".svg"));
        self.plots.push((name.to_string(), svg));
    }

    fn into_report(self) -> Report {
        Report {
            tables: self.tables,
            results: self.results,
            plots: self.plots,
        }
    }
}

/// What every table is given: the context, the VMs and the run's sizes.
pub struct VmRun<'a> {
    /// The experiment's context.
    pub ctx: &'a Context,
    /// The VMs and programs.
    pub setup: &'a Setup,
    /// Quick mode.
    pub quick: bool,
    /// `--programs`, if given.
    pub only_programs: Option<Vec<&'static Program>>,
    /// `--rounds`, if given.
    pub rounds: Option<usize>,
    /// `--steady-iterations`, if given (the barriers table's kept
    /// iterations per process on a compiling tier).
    pub steady_iterations: Option<usize>,
    /// `--idle-ms`, if given.
    pub idle: Option<Duration>,
    /// `--prof perfnorm`.
    pub prof: bool,
}

impl VmRun<'_> {
    /// fastpath-vm at `tier` with the common heap.
    pub fn fastpath(&self, tier: Tier, label: &str) -> RunConfig {
        RunConfig::new(Engine::Fastpath, tier, label).flags([format!("-Xmx{HEAP}")])
    }

    /// HotSpot at `tier` with the common heap.
    pub fn hotspot(&self, tier: Tier, label: &str) -> RunConfig {
        RunConfig::new(Engine::HotSpot, tier, label).flags([format!("-Xms{HEAP}"), format!("-Xmx{HEAP}")])
    }

    /// The tiers each seed table runs: fastpath-vm's interpreter (and JIT
    /// when present); HotSpot's `-Xint` (the like-for-like peer of an
    /// interpreter) and, in a full run, C2 (the seeds' own tier).
    pub fn seed_tiers(&self) -> Vec<(Engine, Tier)> {
        let mut t = vec![(Engine::Fastpath, Tier::Interpreter)];
        if self.setup.jit.is_ok() {
            t.push((Engine::Fastpath, Tier::Jit));
        }
        if self.setup.hotspot.is_ok() {
            t.push((Engine::HotSpot, Tier::Interpreter));
            if !self.quick || self.setup.jit.is_ok() {
                t.push((Engine::HotSpot, Tier::Jit));
            }
        }
        t
    }

    /// The programs of a table: `--programs` when given (those of them
    /// `keep` accepts), else `quick` in a quick run and `full` (every
    /// program accepted by `keep` when `None`) in a full one.
    pub fn programs_where(
        &self,
        quick: &[&str],
        full: Option<&[&str]>,
        keep: impl Fn(&Program) -> bool,
    ) -> Vec<&'static Program> {
        if let Some(only) = &self.only_programs {
            return only.iter().copied().filter(|p| keep(p)).collect();
        }
        let named = |names: &[&str]| -> Vec<&'static Program> {
            names
                .iter()
                .filter_map(|n| programs::by_name(n))
                .filter(|p| keep(p))
                .collect()
        };
        match (self.quick, full) {
            (true, _) => named(quick),
            (false, Some(f)) => named(f),
            (false, None) => programs::ALL.iter().filter(|p| keep(p)).collect(),
        }
    }

    /// [`VmRun::programs_where`] keeping every program.
    pub fn programs(&self, quick: &[&str], full: Option<&[&str]>) -> Vec<&'static Program> {
        self.programs_where(quick, full, |_| true)
    }

    /// Iterations per process: 4 (quick) or 8, three times that for a
    /// compiling tier (C2 needs its warm-up; iterations are short there).
    pub fn iterations(&self, tier: Tier) -> usize {
        let base = if self.quick { 4 } else { 8 };
        if tier.compiles() {
            base * 3
        } else {
            base
        }
    }

    /// A cell of `program` under `config`.
    pub fn cell(&self, program: &'static Program, inner: u32, threads: u32, config: RunConfig) -> Cell {
        Cell {
            program,
            inner,
            threads,
            iterations: self.iterations(config.tier),
            config,
            warmup_extra: Vec::new(),
            warmup_iterations: None,
            block: None,
        }
    }

    /// Rounds: `--rounds`, else 2 (quick) or 3; `warmup_rounds` before.
    pub fn plan(&self, warmup_rounds: usize) -> Plan {
        Plan {
            warmup_rounds,
            rounds: self.rounds.unwrap_or(if self.quick { 2 } else { 3 }),
            deadline: self.deadline(),
        }
    }

    /// How long one process may run.
    pub fn deadline(&self) -> Duration {
        Duration::from_secs(if self.quick { 180 } else { 900 })
    }

    /// One group per program: a cell of it under each of `configs` (one
    /// iteration's inner size as the run asks, one thread).
    pub fn cells(&self, programs: &[&'static Program], configs: &[RunConfig]) -> Vec<Vec<Cell>> {
        programs
            .iter()
            .map(|p| {
                configs
                    .iter()
                    .map(|c| self.cell(p, p.inner(self.quick), 1, c.clone()))
                    .collect()
            })
            .collect()
    }

    /// Times `groups` in interleaved rounds (`warmup_rounds` discarded
    /// first) behind a progress bar named `what`; `seed` fixes the order.
    pub fn measure(
        &self,
        groups: &[Vec<Cell>],
        warmup_rounds: usize,
        what: &str,
        seed: u64,
    ) -> (Plan, Vec<Vec<measure::Measured>>) {
        let plan = self.plan(warmup_rounds);
        let bar = self.progress(groups, &plan, what);
        let measured = measure::measure(self.setup, groups, &plan, &bar, seed);
        bar.finish_and_clear();
        (plan, measured)
    }

    /// The start plan of a start-up table: `(cold, warm)` starts quick and
    /// full, each cold start after `--idle-ms` (default 300 ms quick, 1050
    /// ms full: past the host's idle states).
    pub fn start_plan(&self, quick: (usize, usize), full: (usize, usize)) -> startup::StartPlan {
        let (cold, warm) = if self.quick { quick } else { full };
        startup::StartPlan {
            cold,
            warm,
            idle: self
                .idle
                .unwrap_or(Duration::from_millis(if self.quick { 300 } else { 1050 })),
            deadline: self.deadline(),
        }
    }

    /// A progress bar over every process of `groups`.
    pub fn progress(&self, groups: &[Vec<Cell>], plan: &Plan, what: &str) -> ProgressBar {
        let n: usize = groups.iter().map(Vec::len).sum();
        crate::harness::progress((n * (plan.warmup_rounds + plan.rounds)) as u64, what)
    }

    /// The sizes, for a table's title.
    pub fn size_words(&self, plan: &Plan) -> String {
        format!(
            "{} {} of one process per configuration, {} iterations each ({} on a compiling tier), the second half kept",
            plan.rounds,
            if plan.rounds == 1 { "round" } else { "rounds" },
            self.iterations(Tier::Interpreter),
            self.iterations(Tier::Jit)
        )
    }

    /// The notes every table ends with: whether this build has the JIT,
    /// where the two VMs came from (and a warning when fastpath-vm is a
    /// dev-profile build), the runs that failed (`failed`, from
    /// [`rows::failures_note`]), and the load when the table finished.
    pub fn close_notes(&self, table: &mut Table, failed: Option<String>) {
        if let Some(n) = self.setup.no_jit_note() {
            table.note(n);
        }
        for n in self.setup.origin_notes() {
            table.note(n);
        }
        if let Some(f) = failed {
            table.note(f);
        }
        table.note(self.load_note());
    }

    /// The load when a table finished.
    pub fn load_note(&self) -> String {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        format!(
            "load average when this table finished: {} (1, 5, 15 min) on {cpus} CPUs; the machine may be shared: read the ratios of one run, whose configurations ran interleaved",
            crate::report::run_info::load_average_line()
        )
    }

    /// Keeps a finished part.
    fn keep(&self, part: Part) -> anyhow::Result<()> {
        self.ctx.keep(part.into_report())
    }
}

impl Experiment for Vm {
    fn name(&self) -> &'static str {
        "vm"
    }

    fn about(&self) -> &'static str {
        "The seeds' experiments on whole Java programs: fastpath-vm beside HotSpot (programs, locking, barriers, icache, cpuid, spin)"
    }

    fn args(&self, cmd: Command) -> Command {
        cmd.arg(
            Arg::new("only")
                .long("only")
                .value_name("TABLES")
                .value_delimiter(',')
                .value_parser(TABLES)
                .help("Run only these tables (comma list): programs (time per iteration, fastpath-vm beside HotSpot), locking (seed 001), barriers (seed 003), icache (seed 000), cpuid (seed 002), spin (seed 004)"),
        )
        .arg(
            Arg::new("programs")
                .long("programs")
                .value_name("NAMES")
                .value_delimiter(',')
                .value_parser(programs::names())
                .help("Run these programs in the programs, locking and barriers tables instead of their own lists (comma list of crates/fastpath-vm/bench/java's Harness names)"),
        )
        .arg(
            Arg::new("rounds")
                .long("rounds")
                .value_name("N")
                .value_parser(clap::builder::RangedI64ValueParser::<usize>::new().range(1..=100))
                .help("Timed rounds (one process per configuration each), 1 to 100 (default 3; 2 with --quick)"),
        )
        .arg(
            Arg::new("steady-iterations")
                .long("steady-iterations")
                .value_name("N")
                .value_parser(clap::builder::RangedI64ValueParser::<usize>::new().range(2..=1000))
                .help("Barriers table: steady-state iterations kept per process on a compiling tier, after its warm-up iterations (dropped), 2 to 1000 (default 36; 6 with --quick); the interpreter keeps a quarter of them, at least 2"),
        )
        .arg(
            Arg::new("idle-ms")
                .long("idle-ms")
                .value_name("MS")
                .value_parser(clap::builder::RangedI64ValueParser::<u64>::new().range(0..=60_000))
                .help("Idle time before each cold start in ms, 0 to 60000 (default 1050, as seed 002's sleep 1; 300 with --quick)"),
        )
        .arg(
            Arg::new("vm")
                .long("vm")
                .value_name("PATH")
                .value_parser(clap::value_parser!(PathBuf))
                .help("The fastpath-vm binary to run (default: cargo builds it from this lab's source tree, in the lab's profile)"),
        )
        .arg(
            Arg::new("jdk")
                .long("jdk")
                .value_name("DIR")
                .value_parser(clap::value_parser!(PathBuf))
                .help("HotSpot's JDK, 21 or newer (default: FASTPATH_VM_JDK, JAVA_HOME, Temurin 25, the newest under /usr/lib/jvm)"),
        )
    }

    fn check(&self, matches: &ArgMatches, _quick: bool) -> Result<(), String> {
        if let Some(p) = matches.try_get_one::<PathBuf>("vm").ok().flatten() {
            if !p.is_file() {
                return Err(format!("--vm {}: no such file", p.display()));
            }
        }
        if let Some(d) = matches.try_get_one::<PathBuf>("jdk").ok().flatten() {
            setup::check_jdk_dir(d, "--jdk")?;
        }
        if let Some(d) = std::env::var_os(setup::JDK_VAR) {
            setup::check_jdk_dir(std::path::Path::new(&d), setup::JDK_VAR)?;
        }
        Ok(())
    }

    fn run(&self, ctx: &Context) -> anyhow::Result<()> {
        let prof = ctx.profiler(self.name())?.is_some();
        let only: Option<Vec<String>> = ctx
            .matches
            .try_get_many::<String>("only")
            .ok()
            .flatten()
            .map(|v| v.cloned().collect());
        let wanted = |t: &str| only.as_ref().is_none_or(|o| o.iter().any(|x| x == t));
        let locations = Locations {
            vm: ctx.option::<PathBuf>("vm"),
            jdk: ctx.option::<PathBuf>("jdk"),
        };
        let setup = Setup::prepare(&locations, &|s| eprintln!("{s}"))?;
        let only_programs = ctx
            .matches
            .try_get_many::<String>("programs")
            .ok()
            .flatten()
            .map(|v| v.filter_map(|n| programs::by_name(n)).collect());
        let run = VmRun {
            ctx,
            setup: &setup,
            quick: ctx.quick,
            only_programs,
            rounds: ctx.option::<usize>("rounds"),
            steady_iterations: ctx.option::<usize>("steady-iterations"),
            idle: ctx.option::<u64>("idle-ms").map(Duration::from_millis),
            prof,
        };
        type TableFn = fn(&VmRun) -> anyhow::Result<Part>;
        let tables: [(&str, TableFn); 6] = [
            ("programs", awfy::run),
            ("locking", locking::run),
            ("barriers", barriers::run),
            ("icache", icache::run),
            ("cpuid", cpuid::run),
            ("spin", spin::run),
        ];
        for (name, f) in tables {
            if wanted(name) {
                run.keep(f(&run)?)?;
            }
        }
        Ok(())
    }
}
