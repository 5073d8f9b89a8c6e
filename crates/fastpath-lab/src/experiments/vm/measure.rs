//! Time per iteration of programs under configurations, in interleaved
//! rounds of whole processes.
//!
//! Where it sits: under the tables that time programs (programs, locking,
//! barriers, spin). A table hands groups of [`Cell`]s (one program at one
//! thread count under each configuration it compares) to [`measure`];
//! every cell of a group runs one process per round, the group's cells in
//! a fresh random order each round ([`Order::Shuffled`]), so that a change
//! of the shared machine's load lands on every configuration of a
//! comparison alike. Groups run one after another: a ratio is only ever
//! taken within one group.
//!
//! One process runs `Harness <program> <iterations> <inner> <threads>`
//! and prints one time per iteration. Its first half is warm-up (class
//! loading and decoding in the interpreter, compilation in the JIT tiers)
//! and is dropped; the second half are the cell's samples, so a cell's
//! samples are `rounds × iterations / 2` iteration times from as many
//! processes. A table's figure is their median.
//!
//! Warm-up rounds run first and are not timed; a cell may add VM options
//! to its warm-up runs only ([`Cell::warmup_extra`]): a log that counts
//! events (HotSpot's `-Xlog:monitorinflation`), so the timed runs carry
//! no logging. A cell whose process fails (a wrong result, a crash, the
//! deadline) is marked with the error and not run again; the table shows
//! it as failed.

use std::time::Duration;

use indicatif::ProgressBar;

use super::launch::Outcome;
use super::programs::Program;
use super::setup::Setup;
use super::vms::RunConfig;
use crate::harness::interleave::{rounds, Order};
use crate::harness::rng::SplitMix64;
use crate::stats::Stats;

/// One program at one size and thread count under one configuration.
#[derive(Clone, Debug)]
pub struct Cell {
    /// The program.
    pub program: &'static Program,
    /// The Harness's `inner`.
    pub inner: u32,
    /// The Harness's thread count.
    pub threads: u32,
    /// Iterations per process.
    pub iterations: usize,
    /// The configuration.
    pub config: RunConfig,
    /// VM options for the warm-up runs only.
    pub warmup_extra: Vec<String>,
}

/// How long to measure.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Untimed rounds first.
    pub warmup_rounds: usize,
    /// Timed rounds.
    pub rounds: usize,
    /// Each process is killed (and its cell failed) after this long.
    pub deadline: Duration,
}

/// What one cell measured.
#[derive(Clone, Debug, Default)]
pub struct Measured {
    /// Milliseconds per iteration, the kept iterations of every timed
    /// round, in order.
    pub samples_ms: Vec<f64>,
    /// The last warm-up run (its stderr holds what `warmup_extra` logged).
    pub warmup: Option<Outcome>,
    /// The timed runs' outcomes (their stdout and stderr).
    pub runs: Vec<Outcome>,
    /// Why the cell failed, if it did.
    pub error: Option<String>,
}

impl Measured {
    /// The samples' statistics, `None` for a failed or empty cell.
    pub fn stats(&self) -> Option<Stats> {
        (self.error.is_none() && !self.samples_ms.is_empty())
            .then(|| Stats::from_samples(self.samples_ms.clone()))
    }

    /// The median, NaN for a failed cell.
    pub fn median(&self) -> f64 {
        self.stats().map_or(f64::NAN, |s| s.median)
    }
}

impl Cell {
    /// The Harness's arguments.
    fn args(&self) -> Vec<String> {
        vec![
            self.program.name.to_string(),
            self.iterations.to_string(),
            self.inner.to_string(),
            self.threads.to_string(),
        ]
    }

    /// A one-line name for errors.
    pub fn describe(&self) -> String {
        format!(
            "{} (inner {}, {} threads) on {}",
            self.program.name,
            self.inner,
            self.threads,
            self.config.describe()
        )
    }
}

/// The iterations of one process that count: its second half.
pub fn kept(ns: &[f64]) -> &[f64] {
    &ns[ns.len() / 2..]
}

/// Runs every group's cells, interleaved within the group, and returns
/// what each measured (`result[g][c]` for `groups[g][c]`). `bar` is
/// advanced once per process.
pub fn measure(
    setup: &Setup,
    groups: &[Vec<Cell>],
    plan: &Plan,
    bar: &ProgressBar,
    seed: u64,
) -> Vec<Vec<Measured>> {
    let mut rng = SplitMix64::new(seed);
    groups
        .iter()
        .map(|cells| {
            let mut out: Vec<Measured> = cells.iter().map(|_| Measured::default()).collect();
            let order = Order::Shuffled(SplitMix64::new(rng.next_u64()));
            let Ok(_) = rounds::<(), std::convert::Infallible>(
                cells.len(),
                plan.warmup_rounds,
                plan.rounds,
                order,
                |round, i| {
                    bar.inc(1);
                    let cell = &cells[i];
                    let m = &mut out[i];
                    if m.error.is_some() {
                        return Ok(());
                    }
                    let extra: &[String] = if round.measured { &[] } else { &cell.warmup_extra };
                    let launch = cell
                        .config
                        .launch(setup, extra, "Harness", &cell.args(), plan.deadline);
                    match launch.run_ok().and_then(|o| o.iteration_ns().map(|ns| (o, ns))) {
                        Ok((o, ns)) if ns.len() == cell.iterations => {
                            if round.measured {
                                m.samples_ms.extend(kept(&ns).iter().map(|t| t / 1e6));
                                m.runs.push(o);
                            } else {
                                m.warmup = Some(o);
                            }
                        }
                        Ok((_, ns)) => {
                            m.error = Some(format!(
                                "{}: {} iterations printed of {}",
                                cell.describe(),
                                ns.len(),
                                cell.iterations
                            ))
                        }
                        Err(e) => m.error = Some(format!("{}: {e:#}", cell.describe())),
                    }
                    Ok(())
                },
            );
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_second_half_of_a_process_is_kept() {
        assert_eq!(kept(&[9.0, 8.0, 1.0, 2.0]), [1.0, 2.0]);
        assert_eq!(kept(&[9.0, 8.0, 1.0]), [8.0, 1.0]);
        assert_eq!(kept(&[5.0]), [5.0]);
    }
}
