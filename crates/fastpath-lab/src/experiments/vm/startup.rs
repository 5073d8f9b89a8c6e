//! Whole-process starts of a VM running `Hello`, cold and warm, as seeds
//! 000 and 002 timed them (hyperfine's columns: mean ± σ, min … max, user
//! and sys).
//!
//! Where it sits: under the icache and cpuid tables, which name the
//! configurations (a strategy, a source); this file times them.
//!
//! Cold: the lab idles before every run (seed 002's `sleep 1`: whatever
//! the kernel caches for about a second, /proc/cpuinfo on the seed's
//! kernels, has expired); warm: two untimed starts per configuration, then
//! back to back. Within each phase the configurations take turns, in a
//! fresh random order per round, so the machine's drift lands on all of
//! them; the phases run one after the other (an idle would make a warm
//! run cold).

use std::time::Duration;

use indicatif::ProgressBar;

use super::launch::tail;
use super::setup::Setup;
use super::vms::RunConfig;
use crate::harness::interleave::{rounds, Order};
use crate::harness::rng::SplitMix64;
use crate::stats::Stats;

/// Samples of one configuration in one phase.
#[derive(Clone, Debug, Default)]
pub struct Starts {
    /// Wall time per start, ms.
    pub wall_ms: Vec<f64>,
    /// The child's user CPU time, ms.
    pub user_ms: Vec<f64>,
    /// The child's system CPU time, ms.
    pub sys_ms: Vec<f64>,
    /// Why it failed, if it did.
    pub error: Option<String>,
}

impl Starts {
    /// Wall-time statistics, `None` when failed or empty.
    pub fn stats(&self) -> Option<Stats> {
        (self.error.is_none() && !self.wall_ms.is_empty()).then(|| Stats::from_samples(self.wall_ms.clone()))
    }

    /// The median wall time, NaN when failed.
    pub fn median(&self) -> f64 {
        self.stats().map_or(f64::NAN, |s| s.median)
    }

    /// Mean of a series, NaN when empty.
    pub fn mean(v: &[f64]) -> f64 {
        if v.is_empty() {
            f64::NAN
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    }
}

/// How many starts.
#[derive(Clone, Copy, Debug)]
pub struct StartPlan {
    /// Timed cold starts per configuration.
    pub cold: usize,
    /// Timed warm starts per configuration.
    pub warm: usize,
    /// Idle before each cold start.
    pub idle: Duration,
    /// Each start is killed after this long.
    pub deadline: Duration,
}

impl StartPlan {
    /// The processes [`time_starts`] runs for `n` configurations.
    pub fn processes(&self, n: usize) -> usize {
        n * (self.cold + 2 + self.warm)
    }
}

/// Times `configs` starting `Hello`: `[cold, warm]` per configuration.
pub fn time_starts(
    setup: &Setup,
    configs: &[RunConfig],
    plan: &StartPlan,
    bar: &ProgressBar,
    seed: u64,
) -> Vec<[Starts; 2]> {
    let mut out: Vec<[Starts; 2]> = configs.iter().map(|_| Default::default()).collect();
    let mut rng = SplitMix64::new(seed);
    for (phase, (warmup, measured)) in [(0, plan.cold), (2, plan.warm)].into_iter().enumerate() {
        let order = Order::Shuffled(SplitMix64::new(rng.next_u64()));
        let Ok(_) =
            rounds::<(), std::convert::Infallible>(configs.len(), warmup, measured, order, |round, i| {
                bar.inc(1);
                let s = &mut out[i][phase];
                if s.error.is_some() {
                    return Ok(());
                }
                if phase == 0 {
                    std::thread::sleep(plan.idle);
                }
                let launch = configs[i].launch(setup, &[], "Hello", &[], plan.deadline);
                match launch.run_ok() {
                    Ok(o) if o.stdout == "Hello, world!\n" => {
                        if round.measured {
                            s.wall_ms.push(o.wall.as_secs_f64() * 1e3);
                            s.user_ms.push(o.user.as_secs_f64() * 1e3);
                            s.sys_ms.push(o.sys.as_secs_f64() * 1e3);
                        }
                    }
                    Ok(o) => {
                        s.error = Some(format!(
                            "{}: printed {:?}; stderr: {}",
                            configs[i].describe(),
                            o.stdout,
                            tail(&o.stderr)
                        ))
                    }
                    Err(e) => s.error = Some(format!("{}: {e:#}", configs[i].describe())),
                }
                Ok(())
            });
    }
    out
}
