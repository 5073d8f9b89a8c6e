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

use super::rng::SplitMix64;
use super::{Settings, Stats};

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

#[cfg(test)]
mod tests {
    use super::*;

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
