//! `fastpath startup`: seed 002 (JDK-8283199, "os::cpu_microcode_revision()
//! stalls cold startup"), reproduced on the user's machine.
//!
//! Where it sits: drives `fastpath::cpu` in a child process. The child is
//! this very binary in a hidden mode (`fastpath __identify <source>`), which
//! identifies the CPU by one [`IdentifySource`] and exits; the parent times
//! each run as a whole process with [`harness::process`](crate::harness::process).
//!
//! Theory: on Linux 5.4-5.15 the first read of /proc/cpuinfo after about a
//! second without one stalled (~20 ms on the seed's machines) while the
//! kernel refreshed per-CPU frequency samples; back-to-back reads hit the
//! cache. So each source is timed twice:
//! - cold: the parent sleeps `idle` (1.05 s by default, as the seed's
//!   `sleep 1`) before every run, so any such cache has expired;
//! - warm: runs back to back after two untimed warm-up runs.
//!
//! Within each phase the sources take turns round-robin
//! ([`harness::interleave`](crate::harness::interleave)), so slow drift of a
//! shared, noisy machine (other builds) spreads over all sources instead of
//! biasing one. The phases themselves run one after the other (all cold
//! runs, then all warm runs): a warm run must follow another run closely,
//! which an idle cold run in between would defeat. `cpuid-only`, the library's
//! default path, is the in-run baseline every row is divided by.

use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::{value_parser, Arg, Command as ClapCommand};
use fastpath::cpu::testing::{read_microcode, NativeFiles};
use fastpath::cpu::{self, MicrocodeSource};

use crate::experiment::{Context, Experiment};
use crate::harness::interleave::{rounds, Order};
use crate::harness::process::{run_timed, ProcessSample};
use crate::harness::progress;
use crate::report::table::{num, ratio};
use crate::report::{BenchResult, Metric, Mode, Table};
use crate::stats::Stats;

/// The hidden subcommand the parent spawns.
pub const CHILD_COMMAND: &str = "__identify";

/// How the child identifies the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IdentifySource {
    /// `cpu::info()`: CPUID only, no file (the default path; the baseline).
    CpuidOnly,
    /// CPUID, then the microcode from /proc/cpuinfo: HotSpot before
    /// JDK-8283199.
    ProcCpuinfo,
    /// CPUID, then the microcode from sysfs only (fails fast where the
    /// microcode driver is absent, as on most KVM guests).
    SysfsMicrocode,
    /// CPUID, then the whole features string with the microcode part:
    /// sysfs, falling back to /proc/cpuinfo (HotSpot after JDK-8283199).
    FeaturesStringWithMicrocode,
}

impl IdentifySource {
    /// Every source, the baseline first.
    pub const ALL: [IdentifySource; 4] = [
        IdentifySource::CpuidOnly,
        IdentifySource::ProcCpuinfo,
        IdentifySource::SysfsMicrocode,
        IdentifySource::FeaturesStringWithMicrocode,
    ];

    /// The name on the command line and in results.
    pub fn name(self) -> &'static str {
        match self {
            IdentifySource::CpuidOnly => "cpuid-only",
            IdentifySource::ProcCpuinfo => "proc-cpuinfo",
            IdentifySource::SysfsMicrocode => "sysfs-microcode",
            IdentifySource::FeaturesStringWithMicrocode => "features-string-with-microcode",
        }
    }

    /// The source named `s`.
    pub fn parse(s: &str) -> Option<IdentifySource> {
        IdentifySource::ALL.into_iter().find(|x| x.name() == s)
    }
}

/// The child's work: identify by `source`, print one line
/// `ns=<in-process ns> answer=<what it found>`, exit.
pub fn child_main(source: IdentifySource) -> anyhow::Result<()> {
    let start = Instant::now();
    let answer = match source {
        IdentifySource::CpuidOnly => {
            let c = cpu::info();
            format!("{} family {} model {}", c.vendor_string, c.family, c.model)
        }
        IdentifySource::ProcCpuinfo | IdentifySource::SysfsMicrocode => {
            let _ = cpu::info();
            let only = if source == IdentifySource::ProcCpuinfo {
                MicrocodeSource::ProcCpuinfo
            } else {
                MicrocodeSource::Sysfs
            };
            match read_microcode(&NativeFiles, &[only]) {
                Ok(m) => format!("microcode {:#x} from {}", m.revision, m.source),
                Err(e) => format!("{e}"),
            }
        }
        IdentifySource::FeaturesStringWithMicrocode => {
            let s = cpu::features_string(true);
            match cpu::microcode() {
                Ok(m) => format!(
                    "microcode {:#x} from {} ({} chars)",
                    m.revision,
                    m.source,
                    s.len()
                ),
                Err(e) => format!("{e} ({} chars)", s.len()),
            }
        }
    };
    let ns = start.elapsed().as_nanos();
    println!("ns={ns} answer={answer}");
    Ok(())
}

/// The in-process nanoseconds a child reported.
fn child_ns(s: &ProcessSample) -> Option<f64> {
    s.stdout
        .split_whitespace()
        .find_map(|w| w.strip_prefix("ns="))
        .and_then(|v| v.parse().ok())
}

fn child_answer(s: &ProcessSample) -> String {
    s.stdout
        .split_once("answer=")
        .map(|(_, a)| a.trim().to_string())
        .unwrap_or_default()
}

/// `fastpath startup`.
pub struct Startup;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Cold,
    Warm,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Cold => "cold",
            Phase::Warm => "warm",
        }
    }
}

/// Samples of one (source, phase).
#[derive(Default)]
struct Series {
    wall_ms: Vec<f64>,
    user_ms: Vec<f64>,
    sys_ms: Vec<f64>,
    in_process_us: Vec<f64>,
}

impl Series {
    fn push(&mut self, s: &ProcessSample) {
        self.wall_ms.push(s.wall.as_secs_f64() * 1e3);
        self.user_ms.push(s.user.as_secs_f64() * 1e3);
        self.sys_ms.push(s.sys.as_secs_f64() * 1e3);
        if let Some(ns) = child_ns(s) {
            self.in_process_us.push(ns / 1e3);
        }
    }
}

fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        Stats::from_samples(v.to_vec()).median
    }
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

impl Experiment for Startup {
    fn name(&self) -> &'static str {
        "startup"
    }

    fn about(&self) -> &'static str {
        "Cold/warm process start with each CPU identification source (seed 002, JDK-8283199)"
    }

    fn args(&self, cmd: ClapCommand) -> ClapCommand {
        cmd.arg(
            Arg::new("runs")
                .long("runs")
                .value_name("N")
                .value_parser(value_parser!(u32).range(1..=1000))
                .help("Timed runs per source and phase, 1 to 1000 (default 10 cold, 30 warm; 2 cold and 5 warm with --quick)"),
        )
        .arg(
            Arg::new("idle-ms")
                .long("idle-ms")
                .value_name("MS")
                .value_parser(clap::builder::RangedI64ValueParser::<u64>::new().range(0..=60_000))
                .help("Idle time before each cold run in ms, 0 to 60000 (default 1050, as the seed; 300 with --quick)"),
        )
    }

    fn run(&self, ctx: &Context) -> anyhow::Result<()> {
        let exe = std::env::current_exe().context("locating the fastpath binary")?;
        let runs = ctx.option::<u32>("runs");
        let cold_runs = runs.unwrap_or(if ctx.quick { 2 } else { 10 }) as usize;
        // Warm runs are cheap (no idle), so full mode takes more of them.
        let warm_runs = runs.unwrap_or(if ctx.quick { 5 } else { 30 }) as usize;
        let idle =
            Duration::from_millis(
                ctx.option::<u64>("idle-ms")
                    .unwrap_or(if ctx.quick { 300 } else { 1050 }),
            );
        let spawn = |src: IdentifySource| {
            let mut c = Command::new(&exe);
            c.args([CHILD_COMMAND, src.name()]);
            run_timed(&mut c).with_context(|| format!("child `{}`", src.name()))
        };

        let sources = IdentifySource::ALL;
        // One untimed probe per source: checks the child works and records
        // what each source answered on this machine.
        let total = (1 + cold_runs + warm_runs) * sources.len();
        let bar = progress(total as u64, "startup");
        let mut answers = Vec::new();
        for s in sources {
            answers.push((s, child_answer(&spawn(s)?)));
            bar.inc(1);
        }

        let mut series: Vec<[Series; 2]> = sources.iter().map(|_| Default::default()).collect();
        // Cold: the idle comes before every run, so every run is cold.
        let cold = rounds(sources.len(), 0, cold_runs, Order::RoundRobin, |_, i| {
            std::thread::sleep(idle);
            bar.inc(1);
            spawn(sources[i])
        })?;
        // Warm: two untimed runs per source, then back to back.
        let warm = rounds(sources.len(), 2, warm_runs, Order::RoundRobin, |round, i| {
            if round.measured {
                bar.inc(1);
            }
            spawn(sources[i])
        })?;
        for (i, (c, w)) in cold.iter().zip(&warm).enumerate() {
            c.iter().for_each(|s| series[i][0].push(s));
            w.iter().for_each(|s| series[i][1].push(s));
        }
        bar.finish_and_clear();

        let stats: Vec<[Stats; 2]> = series
            .iter()
            .map(|p| {
                [
                    Stats::from_samples(p[0].wall_ms.clone()),
                    Stats::from_samples(p[1].wall_ms.clone()),
                ]
            })
            .collect();
        let mut table = Table::new(
            format!(
                "Process start, `fastpath {CHILD_COMMAND} <source>` (seed 002): {} cold runs (idle {} ms before each), {} warm runs",
                cold_runs,
                idle.as_millis(),
                warm_runs
            ),
            &[
                "source",
                "phase",
                "mean ± σ [ms]",
                "median [ms]",
                "min … max [ms]",
                "user [ms]",
                "sys [ms]",
                "in-proc median [µs]",
                "in-proc × base",
                "× base",
                "cold ÷ warm",
            ],
        );
        let mut results = Vec::new();
        for (i, s) in sources.iter().enumerate() {
            for (p, phase) in [Phase::Cold, Phase::Warm].into_iter().enumerate() {
                let st = &stats[i][p];
                let se = &series[i][p];
                let label = if i == 0 {
                    format!("{} (baseline)", s.name())
                } else {
                    s.name().to_string()
                };
                // Ratios of medians: a shared machine's outliers (another
                // build's burst) move means far more than medians.
                let vs_base = ratio(st.median, stats[0][p].median);
                let cold_warm = if phase == Phase::Cold {
                    ratio(stats[i][0].median, stats[i][1].median)
                } else {
                    String::new()
                };
                table.row(vec![
                    label,
                    phase.name().to_string(),
                    format!("{} ± {}", num(st.mean), num(st.stddev)),
                    num(st.median),
                    format!("{} … {}", num(st.min), num(st.max)),
                    num(mean(&se.user_ms)),
                    num(mean(&se.sys_ms)),
                    num(median(&se.in_process_us)),
                    ratio(median(&se.in_process_us), median(&series[0][p].in_process_us)),
                    vs_base,
                    cold_warm,
                ]);
                let mut r = BenchResult::new("startup", s.name(), Mode::SingleShot, st, "ms/op")
                    .param("source", s.name())
                    .param("phase", phase.name())
                    .param("idle_ms", idle.as_millis())
                    .secondary("user", Metric::single(mean(&se.user_ms), "ms/op"))
                    .secondary("sys", Metric::single(mean(&se.sys_ms), "ms/op"))
                    .secondary(
                        "median_ratio_vs_cpuid_only",
                        Metric::single(st.median / stats[0][p].median, "ratio"),
                    );
                if !se.in_process_us.is_empty() {
                    r = r.secondary(
                        "in_process",
                        Metric::from_stats(&Stats::from_samples(se.in_process_us.clone()), "us/op"),
                    );
                }
                if phase == Phase::Cold {
                    r = r.secondary(
                        "median_ratio_cold_over_warm",
                        Metric::single(stats[i][0].median / stats[i][1].median, "ratio"),
                    );
                }
                results.push(r);
            }
        }
        table.note("mean ± σ over runs (σ is the sample standard deviation, hyperfine style); wall time spans spawn to wait4");
        table.note("× base (against cpuid-only, the baseline) and cold ÷ warm are ratios of wall-time medians; in-proc × base of in-process medians");
        table.note("user/sys: the child's CPU time from wait4's rusage (the kernel splits it by tick samples, so at ~1 ms per child it is coarse); in-proc: the identification step as the child timed it");
        if ctx.quick && idle < Duration::from_millis(1050) {
            table.note(format!(
                "--quick: {} ms idle before a cold run is NOT seed-faithful (the seed sleeps 1 s); run without --quick for that",
                idle.as_millis()
            ));
        }
        for (s, a) in &answers {
            table.note(format!("{} answered: {a}", s.name()));
        }
        table
            .note("the machine may be shared and noisy: compare rows of one run, not runs of different days");
        ctx.keep_table(table, results)
    }
}
