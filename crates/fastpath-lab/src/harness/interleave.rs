//! Interleaved rounds: every candidate of a comparison takes one sample
//! per round, so that a change in a shared machine's load lands on every
//! candidate alike instead of on whichever ran last.
//!
//! Where it sits: between an experiment's candidates (strategies, sources,
//! configurations) and the timing of one sample. The experiment says how
//! to take one sample of candidate `i`; [`rounds`] decides the order and
//! which samples are warm-up. [`Order::Shuffled`] draws a fresh order every
//! round, for samples that leave state behind (cache lines a flush evicted):
//! with a fixed order, one candidate would always inherit its neighbour's
//! leftovers. [`Order::RoundRobin`] keeps the order fixed, for samples that
//! leave nothing behind (a whole process, a fresh lock).
//!
//! [`measure_rows`] is the same idea for a table of rows timed in one
//! process: every row is a [`Sampler`], warmed up, then sampled once per
//! round in a shuffled order, many short samples each. A row's samples
//! are then spread over the whole table's run instead of one contiguous
//! slice of it, so a change of the machine's state (another process
//! starting, the clock frequency, a neighbour's cache traffic) lands in
//! every row's spread and on every row alike; a short sample is mostly
//! not preempted on a loaded machine, so the median over the samples is
//! the unloaded cost and the preempted ones are its tail.

use std::pin::{pin, Pin};
use std::time::Duration;

use super::rng::SplitMix64;
use super::{black_box, calibrate_batch, run_for, Settings};
use crate::stats::Stats;

/// The order of candidates within a round.
#[derive(Clone, Debug)]
pub enum Order {
    /// 0, 1, …, n−1 every round.
    RoundRobin,
    /// A fresh random permutation every round, from this generator.
    Shuffled(SplitMix64),
}

/// Where a sample sits in the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Round {
    /// 0-based round, warm-up rounds included.
    pub index: usize,
    /// False in warm-up rounds, whose samples are discarded.
    pub measured: bool,
}

/// Runs `sample(round, i)` for candidates `0..n` in turns, `warmup` rounds
/// then `measured` rounds, and returns each candidate's measured samples
/// (`result[i]`, in round order). The first error ends the run.
pub fn rounds<T, E>(
    n: usize,
    warmup: usize,
    measured: usize,
    mut order: Order,
    mut sample: impl FnMut(Round, usize) -> Result<T, E>,
) -> Result<Vec<Vec<T>>, E> {
    let mut out: Vec<Vec<T>> = (0..n).map(|_| Vec::with_capacity(measured)).collect();
    let mut turn: Vec<usize> = (0..n).collect();
    for index in 0..warmup + measured {
        if let Order::Shuffled(rng) = &mut order {
            rng.shuffle(&mut turn);
        }
        let round = Round {
            index,
            measured: index >= warmup,
        };
        for &i in &turn {
            let s = sample(round, i)?;
            if round.measured {
                out[i].push(s);
            }
        }
    }
    Ok(out)
}

/// [`rounds`] in round-robin order with `settings`' warm-up and measured
/// iteration counts, for samples that score one figure plus a secondary
/// one: each candidate's [`Stats`] of scores and the mean of its secondary.
pub fn stats_with_mean(
    settings: &Settings,
    n: usize,
    mut sample: impl FnMut(usize) -> (f64, f64),
) -> Vec<(Stats, f64)> {
    let Ok(per) = rounds::<_, std::convert::Infallible>(
        n,
        settings.warmup_iterations,
        settings.iterations,
        Order::RoundRobin,
        |_, i| Ok(sample(i)),
    );
    per.into_iter()
        .map(|v| {
            let k = v.len().max(1) as f64;
            let extra = v.iter().map(|s| s.1).sum::<f64>() / k;
            (Stats::from_samples(v.into_iter().map(|s| s.0).collect()), extra)
        })
        .collect()
}

/// How [`measure_rows`] samples a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Rounds whose samples are discarded (after each row's calibration).
    pub warmup_rounds: usize,
    /// Measured rounds: each row's sample count.
    pub rounds: usize,
    /// One sample of a single-threaded row: short against a scheduler
    /// time slice (a few ms), so that most samples run uninterrupted.
    pub sample_time: Duration,
    /// One sample of a row that starts threads for it: long against
    /// starting them.
    pub threaded_sample_time: Duration,
}

impl Plan {
    /// Quick mode: about 30 ms per single-threaded row, 0.2 s per threaded
    /// one; 60 samples each, enough for a 99.9% interval of the median
    /// from the 17th to the 44th of them.
    pub const QUICK: Plan = Plan {
        warmup_rounds: 5,
        rounds: 60,
        sample_time: Duration::from_micros(500),
        threaded_sample_time: Duration::from_millis(3),
    };
    /// Full runs: about 1 s per single-threaded row, 5 s per threaded one.
    pub const FULL: Plan = Plan {
        warmup_rounds: 10,
        rounds: 100,
        sample_time: Duration::from_millis(10),
        threaded_sample_time: Duration::from_millis(50),
    };

    /// [`Plan::QUICK`] or [`Plan::FULL`].
    pub fn new(quick: bool) -> Plan {
        if quick {
            Plan::QUICK
        } else {
            Plan::FULL
        }
    }

    /// The plan as [`Settings`] (iterations = rounds, iteration time = the
    /// threaded sample time), for code that takes one sample per call.
    pub fn threaded_settings(&self) -> Settings {
        Settings {
            warmup_iterations: self.warmup_rounds,
            iterations: self.rounds,
            iteration_time: self.threaded_sample_time,
        }
    }
}

/// One row of an interleaved table: takes one sample, given the plan, and
/// returns its score (nanoseconds per operation for [`batched`] rows), or
/// why it could not.
pub type Sampler<'a> = Box<dyn FnMut(&Plan) -> Result<f64, String> + 'a>;

/// A sampler of `op(n)` (which performs the measured operation `n` times)
/// for [`Plan::sample_time`]: batches sized on the first call, as
/// [`super::measure_ns_per_op`] sizes them, then timed until the sample's
/// time is up, each sample at a random stack depth (up to a page), so
/// that what the loop keeps on its stack is placed afresh per sample.
/// Set-up a row needs around its samples (a mode, an outer
/// hold) goes in a closure around this one, outside the timing.
pub fn batched<'a>(mut op: impl FnMut(u64) + 'a) -> impl FnMut(&Plan) -> f64 + 'a {
    let mut batch = 0;
    let mut rng = SplitMix64::new(0x57AC_0FF5);
    move |plan: &Plan| {
        if batch == 0 {
            batch = calibrate_batch(plan.sample_time, &mut op);
        }
        let lines = rng.below(STACK_SHIFT_LINES) as usize;
        at_stack_shift(lines, &mut || run_for(plan.sample_time, batch, &mut op))
    }
}

/// The most cache lines [`at_stack_shift`] moves a sample's stack by: a
/// page, so every alignment of the sample's stack against the heap and
/// the statics (set conflicts, 4K aliasing) is drawn.
const STACK_SHIFT_LINES: u64 = 64;

/// Runs `f` with the stack `lines` cache lines deeper than it would be:
/// objects a measured loop keeps on its stack (a fresh header per
/// operation) land at another address against everything else, as they
/// would in another process. Sampling the placement per sample puts its
/// effect into every run's spread instead of fixing it once per process
/// (Curtsinger and Berger, "Stabilizer: statistically sound performance
/// evaluation", ASPLOS 2013, randomize layout for the same reason).
#[inline(never)]
fn at_stack_shift(lines: usize, f: &mut dyn FnMut() -> f64) -> f64 {
    if lines == 0 {
        return f();
    }
    let pad = black_box([0u8; 64]);
    let r = at_stack_shift(lines - 1, f);
    black_box(&pad);
    r
}

/// A sampler of `op(state, n)` on a `state` made afresh by `make` for
/// every sample, on the sample's stack (at a random depth, as for [`batched`]): the
/// object a row times (a lock word, a mutex, a header) then sits at
/// another address, against the code, the thread's locals and the heap,
/// in every sample, instead of one address per process. Two processes
/// otherwise each draw one placement, and the same row can differ by a
/// cycle per operation between them (16% of a 1.6 ns recursive pair).
/// `make` runs outside the timing; batches are sized on the first sample.
pub fn fresh<'a, S>(
    mut make: impl FnMut() -> S + 'a,
    mut op: impl FnMut(Pin<&S>, u64) + 'a,
) -> impl FnMut(&Plan) -> f64 + 'a {
    let mut batch = 0;
    let mut rng = SplitMix64::new(0xF2E5_4000);
    move |plan: &Plan| {
        let lines = rng.below(STACK_SHIFT_LINES) as usize;
        at_stack_shift(lines, &mut || {
            let state = pin!(make());
            let mut timed = |n| op(state.as_ref(), n);
            if batch == 0 {
                batch = calibrate_batch(plan.sample_time, &mut timed);
            }
            run_for(plan.sample_time, batch, &mut timed)
        })
    }
}

/// [`batched`] as a [`Sampler`] that cannot fail.
pub fn row<'a>(op: impl FnMut(u64) + 'a) -> Sampler<'a> {
    let mut sample = batched(op);
    Box::new(move |plan| Ok(sample(plan)))
}

/// Measures every row of `rows` in [`Plan::warmup_rounds`] discarded then
/// [`Plan::rounds`] measured rounds, each round in a fresh random order
/// (seeded by `seed`: a row never always follows the same neighbour), and
/// returns each row's [`Stats`] in the rows' order. The first sampler's
/// error ends the table. A progress bar labelled `what` counts the rounds
/// on a terminal.
pub fn measure_rows(
    plan: &Plan,
    seed: u64,
    rows: &mut [Sampler<'_>],
    what: &str,
) -> Result<Vec<Stats>, String> {
    let measured = plan.rounds.max(1);
    let bar = super::progress((plan.warmup_rounds + measured) as u64, what);
    let per = rounds(
        rows.len(),
        plan.warmup_rounds,
        measured,
        Order::Shuffled(SplitMix64::new(seed)),
        |round, i| {
            bar.set_position(round.index as u64);
            rows[i](plan)
        },
    );
    bar.finish_and_clear();
    Ok(per?.into_iter().map(Stats::from_samples).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measure_rows_samples_every_row_each_round_and_times_batches() {
        let plan = Plan {
            warmup_rounds: 2,
            rounds: 11,
            sample_time: Duration::from_micros(200),
            threaded_sample_time: Duration::from_millis(1),
        };
        let mut calls = [0usize; 2];
        let (a, b) = calls.split_at_mut(1);
        let mut rows: Vec<Sampler<'_>> = vec![
            Box::new(move |_: &Plan| {
                a[0] += 1;
                Ok(1.0)
            }),
            row(|n| {
                for _ in 0..n {
                    std::thread::sleep(Duration::from_micros(20));
                }
                b[0] += 1;
            }),
        ];
        let stats = measure_rows(&plan, 7, &mut rows, "test").unwrap();
        drop(rows);
        assert_eq!(calls[0], 13, "one call per round, warm-up included");
        assert!(calls[1] > 13, "batched samples run several batches");
        assert_eq!(stats[0].samples, vec![1.0; 11]);
        assert_eq!(stats[1].samples.len(), 11);
        // A 20 µs sleep can only take longer.
        assert!(stats[1].min >= 20_000.0, "{:?}", stats[1]);
        assert!(stats[1].median_interval().is_some());
    }

    #[test]
    fn every_candidate_samples_once_per_round_and_warmup_is_dropped() {
        let mut log = Vec::new();
        let out = rounds::<_, ()>(3, 2, 4, Order::RoundRobin, |r, i| {
            log.push((r.index, i));
            Ok(r.index * 10 + i)
        })
        .unwrap();
        assert_eq!(log.len(), 18);
        assert_eq!(&log[..3], &[(0, 0), (0, 1), (0, 2)]);
        assert_eq!(out[1], vec![21, 31, 41, 51]);
    }

    #[test]
    fn shuffled_rounds_vary_the_order_but_not_the_membership() {
        let mut first_of_round = std::collections::BTreeMap::new();
        let out = rounds::<_, ()>(4, 0, 40, Order::Shuffled(SplitMix64::new(3)), |r, i| {
            first_of_round.entry(r.index).or_insert(i);
            Ok(i)
        })
        .unwrap();
        assert!(out
            .iter()
            .enumerate()
            .all(|(i, v)| v.len() == 40 && v.iter().all(|&x| x == i)));
        let firsts: std::collections::BTreeSet<_> = first_of_round.values().collect();
        assert_eq!(firsts.len(), 4, "every candidate leads some round");
    }

    #[test]
    fn an_error_ends_the_run() {
        let mut calls = 0;
        let r = rounds(2, 0, 5, Order::RoundRobin, |round, i| {
            calls += 1;
            if round.index == 1 && i == 1 {
                Err("boom")
            } else {
                Ok(())
            }
        });
        assert_eq!(r, Err("boom"));
        assert_eq!(calls, 4);
    }
}
