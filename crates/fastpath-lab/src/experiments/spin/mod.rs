//! `fastpath spin`: what a pause strategy costs by itself, and what it does
//! to handoff-heavy and lock-heavy code (seed 004: ISB instead of YIELD/NOP
//! for `Thread.onSpinWait` and `SpinPause` on AArch64).
//!
//! Where it sits: drives `fastpath::spin` through the harness and prints
//! three tables, each with the `none` strategy measured in the same run as
//! the baseline, and a check between the first and the second that every
//! strategy really spends the spin budgets the later tables give it:
//! 1. latency: ns per pause and hardware-counter ticks per pause, per
//!    strategy, plus `global` (the dispatched `spin::pause()`, to show what
//!    its one indirect call costs);
//! 2. handoff: a producer and a consumer pass a token through
//!    `spin::handoff` (the seed's SynchronousQueue microbenchmark), per
//!    strategy and per spin budget (from "park at once" to 100 µs), the two
//!    threads pinned to CPUs 0 and 1;
//! 3. LRU: a HashMap + linked-list LRU cache behind `spin::lock`
//!    (Caffeine's GetPutBenchmark `LinkedHashMap_Lru`), 1, 2 and 4 threads
//!    (4 oversubscribe a 2-CPU machine, and the table says so), 75% get /
//!    25% put over scrambled-Zipfian keys, per strategy and spin budget.
//!
//! In tables 2 and 3 the strategies take turns, one timed sample each per
//! round, so a change in the shared machine's load during the run lands on
//! every strategy alike instead of on whichever ran last.
//!
//! Every strategy is used through its own type (`S: PauseStrategy`), so one
//! process compares them without touching the process-wide choice. Spin
//! budgets are times, turned into pause counts with each strategy's own
//! calibration: a row differs from `none` by what the instruction does to
//! the waiting and the waited-for thread, not by spinning longer.

use fastpath::spin::{self, Budget, Calibration, PauseStrategy};

use crate::experiment::{Context, Experiment};
use crate::harness;
use crate::harness::perfnorm::Region;
use crate::report::Report;

/// A strategy the experiment measures.
#[derive(Clone, Copy, Debug)]
enum Candidate {
    None,
    Global,
    #[cfg(target_arch = "x86_64")]
    Pause,
    #[cfg(target_arch = "x86_64")]
    Pause2,
    #[cfg(target_arch = "x86_64")]
    Pause4,
    #[cfg(target_arch = "x86_64")]
    Tpause(spin::Tpause),
    #[cfg(target_arch = "aarch64")]
    Isb,
    #[cfg(target_arch = "aarch64")]
    Isb2,
    #[cfg(target_arch = "aarch64")]
    Yield,
    #[cfg(target_arch = "aarch64")]
    Nop,
    #[cfg(target_arch = "aarch64")]
    Sb(spin::Sb),
}

/// Runs `$body` with `$s` bound to the strategy value of `$c`
/// (monomorphised per strategy, so each runs its own instructions inline).
macro_rules! with_strategy {
    ($c:expr, $s:ident => $body:expr) => {
        match $c {
            Candidate::None => {
                let $s = fastpath::spin::NoPause;
                $body
            }
            Candidate::Global => {
                let $s = fastpath::spin::ConfiguredPause;
                $body
            }
            #[cfg(target_arch = "x86_64")]
            Candidate::Pause => {
                let $s = fastpath::spin::Pause;
                $body
            }
            #[cfg(target_arch = "x86_64")]
            Candidate::Pause2 => {
                let $s = fastpath::spin::Repeat::<fastpath::spin::Pause, 2>(fastpath::spin::Pause);
                $body
            }
            #[cfg(target_arch = "x86_64")]
            Candidate::Pause4 => {
                let $s = fastpath::spin::Repeat::<fastpath::spin::Pause, 4>(fastpath::spin::Pause);
                $body
            }
            #[cfg(target_arch = "x86_64")]
            Candidate::Tpause(t) => {
                let $s = t;
                $body
            }
            #[cfg(target_arch = "aarch64")]
            Candidate::Isb => {
                let $s = fastpath::spin::Isb;
                $body
            }
            #[cfg(target_arch = "aarch64")]
            Candidate::Isb2 => {
                let $s = fastpath::spin::Repeat::<fastpath::spin::Isb, 2>(fastpath::spin::Isb);
                $body
            }
            #[cfg(target_arch = "aarch64")]
            Candidate::Yield => {
                let $s = fastpath::spin::Yield;
                $body
            }
            #[cfg(target_arch = "aarch64")]
            Candidate::Nop => {
                let $s = fastpath::spin::Nop;
                $body
            }
            #[cfg(target_arch = "aarch64")]
            Candidate::Sb(sb) => {
                let $s = sb;
                $body
            }
        }
    };
}
mod budget;
mod handoff;
mod latency;
pub mod lru;
mod lru_table;

/// The `spin` experiment.
pub struct Spin;

impl Experiment for Spin {
    fn name(&self) -> &'static str {
        "spin"
    }

    fn about(&self) -> &'static str {
        "Spin pauses: latency per strategy, handoff throughput per strategy and budget, LRU under a spin-then-park lock"
    }

    /// `latency/<strategy id>`: a loop of that strategy's pauses.
    fn perfnorm_region(&self, id: &str) -> Option<Region<'static>> {
        let id = id.strip_prefix("latency/")?;
        let c = candidates().0.into_iter().find(|c| c.id() == id)?;
        Some(latency::region(c))
    }

    fn run(&self, ctx: &Context) -> anyhow::Result<()> {
        let settings = ctx.settings();
        let cpus = fastpath::cpu::info().logical_cpus;
        let (all, missing) = candidates();
        let contention: Vec<Candidate> = all.iter().copied().filter(|c| c.in_contention_tables()).collect();
        let lru_rows: usize = lru_table::LRU_THREADS
            .iter()
            .map(|&t| lru_table::lru_budgets(t).len())
            .sum();
        let steps = all.len() + contention.len() * (1 + handoff::HANDOFF_BUDGETS.len() + lru_rows);
        let bar = harness::progress(steps as u64, "spin");

        let prof = ctx.profiler(self.name())?;
        let (tables, results) = latency::latency_table(&settings, &all, &missing, prof.as_ref(), &bar);
        ctx.keep(Report {
            tables,
            results,
            plots: Vec::new(),
        })?;

        bar.set_message("calibration");
        let cals: Vec<Calibration> = contention
            .iter()
            .map(|c| {
                let cal = with_strategy!(*c, s => Calibration::measure(s));
                bar.inc(1);
                cal
            })
            .collect();
        let (table, results) = budget::budget_table(ctx.quick, &contention, &cals);
        ctx.keep_table(table, results)?;

        let run = ContentionRun {
            settings: &settings,
            strategies: &contention,
            cals: &cals,
            cpus,
            bar: &bar,
        };
        let (table, results) = handoff::handoff_table(&run);
        ctx.keep_table(table, results)?;

        let (table, results) = lru_table::lru_table(&run);
        ctx.keep_table(table, results)?;
        bar.finish_and_clear();
        Ok(())
    }
}

impl Candidate {
    fn name(self) -> String {
        match self {
            Candidate::Global => format!("global ({})", spin::active()),
            c => with_strategy!(c, s => s.describe().to_string()),
        }
    }

    /// The name without spaces, for a profiler region id.
    fn id(self) -> String {
        match self {
            Candidate::Global => "global".to_string(),
            c => c.name().replace(' ', "-"),
        }
    }

    /// `global` is the same instructions as one of the others plus the
    /// dispatch; the contention tables compare instructions only. Repeat
    /// counts above 2 are only in the latency table.
    fn in_contention_tables(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        if matches!(self, Candidate::Pause4) {
            return false;
        }
        !matches!(self, Candidate::Global)
    }
}

/// What the two contention tables (handoff, LRU) run with.
#[derive(Clone, Copy)]
struct ContentionRun<'a> {
    settings: &'a harness::Settings,
    /// The strategies, `none` first.
    strategies: &'a [Candidate],
    /// Each strategy's calibration, by index.
    cals: &'a [Calibration],
    cpus: u32,
    bar: &'a indicatif::ProgressBar,
}

/// The strategies this CPU can run (baseline first), and notes on those it
/// cannot.
fn candidates() -> (Vec<Candidate>, Vec<String>) {
    #[allow(unused_variables, unused_mut)]
    let cpu = fastpath::cpu::info();
    #[allow(unused_mut)]
    let mut missing = Vec::new();
    let mut list = vec![Candidate::None];
    #[cfg(target_arch = "x86_64")]
    {
        list.extend([Candidate::Pause, Candidate::Pause2, Candidate::Pause4]);
        match spin::Tpause::new(cpu) {
            Ok(t) => list.push(Candidate::Tpause(t)),
            Err(e) => missing.push(format!(
                "tpause not measured: this CPU lacks WAITPKG, the feature TPAUSE needs ({e})"
            )),
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        list.extend([Candidate::Nop, Candidate::Yield, Candidate::Isb, Candidate::Isb2]);
        match spin::Sb::new(cpu) {
            Ok(s) => list.push(Candidate::Sb(s)),
            Err(e) => missing.push(format!("sb not measured: {e}")),
        }
    }
    list.push(Candidate::Global);
    (list, missing)
}

/// "park at once", "10 µs", "30 µs (default)".
fn budget_label(b: Budget) -> String {
    if b == Budget::PARK_AT_ONCE {
        return "park at once".to_string();
    }
    let mut s = format!("{} µs", b.spin_ns as f64 / 1000.0);
    if b == Budget::DEFAULT {
        s.push_str(" (default)");
    }
    s
}
