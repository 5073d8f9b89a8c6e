//! Time per iteration of programs under configurations, in interleaved
//! rounds of whole processes.
//!
//! Where it sits: under the tables that time programs (programs, locking,
//! barriers, spin). A table hands groups of [`Cell`]s (one program at one
//! thread count under each configuration it compares) to [`measure`];
//! every cell of a group runs one process per round, the group's cells in
//! a fresh random order each round, so that a change of the shared
//! machine's load lands on every configuration of a comparison alike.
//! Cells may form blocks ([`Cell::block`]): a block's cells run back to
//! back within a round (the blocks in a fresh random order, and the cells
//! within each), so that a paired ratio of two of them (a barrier set
//! against none) is taken between processes minutes apart at most. Groups
//! run one after another: a ratio is only ever taken within one group.
//!
//! One process runs `Harness <program> <iterations> <inner> <threads>`
//! and prints one time per iteration. Its first iterations are warm-up
//! (class loading and decoding in the interpreter, compilation in the JIT
//! tiers) and are dropped: the first half, or [`Cell::warmup_iterations`];
//! the rest are the cell's samples, so a cell's samples are `rounds ×`
//! the kept iterations, from as many processes. A table's figure is their
//! median; [`Measured::round_medians`] keeps each process's own median
//! for ratios paired round by round.
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
use crate::harness::interleave::Round;
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
    /// Iterations at the start of each process that are dropped as warm-up
    /// (`None`: the first half).
    pub warmup_iterations: Option<usize>,
    /// The cells of a group with the same block run back to back in each
    /// round (`None`: a block of its own).
    pub block: Option<usize>,
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
    /// Per timed round that ran: the round's index among the timed rounds
    /// and the median of that process's kept iterations, in ms.
    pub round_medians: Vec<(usize, f64)>,
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

/// The iterations of one process that count: those after `warmup` (its
/// second half when `None`; at least the last one).
pub fn kept(ns: &[f64], warmup: Option<usize>) -> &[f64] {
    let drop = warmup.unwrap_or(ns.len() / 2).min(ns.len().saturating_sub(1));
    &ns[drop..]
}

/// One round's order of a group's cells: the blocks (`blocks[i]`, the
/// block of cell `i`) in a random order, each block's cells back to back
/// in a random order.
pub fn block_order(blocks: &[usize], rng: &mut SplitMix64) -> Vec<usize> {
    let mut ids: Vec<usize> = blocks.to_vec();
    ids.sort_unstable();
    ids.dedup();
    rng.shuffle(&mut ids);
    let mut order = Vec::with_capacity(blocks.len());
    for id in ids {
        let mut members: Vec<usize> = (0..blocks.len()).filter(|&i| blocks[i] == id).collect();
        rng.shuffle(&mut members);
        order.extend(members);
    }
    order
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
            let mut order_rng = SplitMix64::new(rng.next_u64());
            // A cell without a block is a block of its own: ids past every
            // named block's.
            let named = cells.iter().filter_map(|c| c.block).max().map_or(0, |b| b + 1);
            let blocks: Vec<usize> = cells
                .iter()
                .enumerate()
                .map(|(i, c)| c.block.unwrap_or(named + i))
                .collect();
            for index in 0..plan.warmup_rounds + plan.rounds {
                let round = Round {
                    index,
                    measured: index >= plan.warmup_rounds,
                };
                for i in block_order(&blocks, &mut order_rng) {
                    bar.inc(1);
                    let cell = &cells[i];
                    let m = &mut out[i];
                    if m.error.is_some() {
                        continue;
                    }
                    let extra: &[String] = if round.measured { &[] } else { &cell.warmup_extra };
                    let launch = cell
                        .config
                        .launch(setup, extra, "Harness", &cell.args(), plan.deadline);
                    match launch.run_ok().and_then(|o| o.iteration_ns().map(|ns| (o, ns))) {
                        Ok((o, ns)) if ns.len() == cell.iterations => {
                            if round.measured {
                                let ms: Vec<f64> = kept(&ns, cell.warmup_iterations)
                                    .iter()
                                    .map(|t| t / 1e6)
                                    .collect();
                                let median = Stats::from_samples(ms.clone()).median;
                                m.round_medians.push((index - plan.warmup_rounds, median));
                                m.samples_ms.extend(ms);
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
                }
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_second_half_of_a_process_is_kept() {
        assert_eq!(kept(&[9.0, 8.0, 1.0, 2.0], None), [1.0, 2.0]);
        assert_eq!(kept(&[9.0, 8.0, 1.0], None), [8.0, 1.0]);
        assert_eq!(kept(&[5.0], None), [5.0]);
    }

    #[test]
    fn a_cells_warm_up_iterations_are_dropped() {
        assert_eq!(kept(&[9.0, 8.0, 7.0, 1.0, 2.0], Some(3)), [1.0, 2.0]);
        assert_eq!(kept(&[9.0, 8.0], Some(0)), [9.0, 8.0]);
        assert_eq!(kept(&[9.0, 8.0], Some(5)), [8.0], "the last iteration is kept");
    }

    #[test]
    fn a_blocks_cells_run_back_to_back_in_a_round() {
        // Cells 0..4 in block 7, 4..6 in block 2, 6 alone.
        let blocks = [7, 7, 7, 7, 2, 2, 9];
        let mut rng = SplitMix64::new(5);
        let mut firsts = std::collections::BTreeSet::new();
        for _ in 0..50 {
            let order = block_order(&blocks, &mut rng);
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..7).collect::<Vec<_>>(), "each cell once: {order:?}");
            // Each block is one contiguous run of the order.
            let runs = order.windows(2).filter(|w| blocks[w[0]] != blocks[w[1]]).count();
            assert_eq!(runs, 2, "three blocks, two boundaries: {order:?}");
            firsts.insert(order[0]);
        }
        assert!(firsts.len() > 3, "blocks and cells are shuffled: {firsts:?}");
    }
}
