//! Summary statistics over iteration samples, as JMH reports them.
//!
//! Where it sits: at the bottom of the lab, below both the `harness`
//! (which summarises each row's samples into a [`Stats`]) and `report`
//! (which writes them as JMH scores and judges two runs by their
//! intervals in `compare`); it depends on neither.
//!
//! JMH's "score error" is the half-width of a 99.9% confidence interval of
//! the mean under Student's t distribution with n − 1 degrees of freedom:
//! `t(1 − 0.001/2, n − 1) · s / √n`. With a single sample it is undefined
//! (JMH prints NaN); here it is reported as NaN too, and rendered as "≈".
//!
//! [`median_interval`] is the distribution-free confidence interval of the
//! median from order statistics (the sign-test interval: the ranks `k` and
//! `n + 1 − k` with `P(Binomial(n, ½) < k) ≤ α/2`, as in Conover, *Practical
//! Nonparametric Statistics*, §3.2). It assumes nothing about the shape of
//! the samples, which on a shared machine have a long right tail (a sample
//! that was preempted), and it needs at least 11 samples at 99.9%.
//!
//! The sign test also assumes independent samples, and a run's samples are
//! not: a row that starts threads keeps, for stretches of many samples,
//! the same placement of its threads on the CPUs and the same share of
//! them against the neighbours' processes, so its samples come in runs of
//! one level and then another. Independent-sample intervals are then too
//! narrow: two runs of one build differ by more than either run's interval.
//! [`serial_median_interval`], which [`Stats`] and `compare` use, widens the
//! sign-test interval by the samples' dependence, with batch medians: it
//! estimates how many consecutive samples carry the information of one
//! independent sample (the integrated autocorrelation time `τ`, by
//! Geyer's initial positive sequence, "Practical Markov chain Monte
//! Carlo", Statistical Science 1992, of the indicators `x_t ≤ median` and
//! of the samples' ranks, whichever is larger: [`dependence_time`]), cuts
//! the samples into batches of about `τ`, and takes the sign-test interval
//! of the batches' medians, which are about independent (the batch-means
//! method of steady-state simulation output analysis, with medians so that
//! a preempted sample weighs no more than in the median of all). It never
//! returns less than the independent samples' interval.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Confidence level of [`Stats::error`], as JMH.
pub const CONFIDENCE: f64 = 0.999;

/// Statistics of one series of samples (one score per measured iteration).
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    /// The samples, in measurement order.
    pub samples: Vec<f64>,
    /// Arithmetic mean.
    pub mean: f64,
    /// Half-width of the 99.9% confidence interval (NaN for n < 2).
    pub error: f64,
    /// Sample standard deviation (n − 1).
    pub stddev: f64,
    /// Median.
    pub median: f64,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
}

impl Stats {
    /// Summarises `samples`; panics on an empty series (a harness bug).
    pub fn from_samples(samples: Vec<f64>) -> Stats {
        assert!(!samples.is_empty(), "no samples to summarise");
        let n = samples.len() as f64;
        let mean = samples.iter().sum::<f64>() / n;
        let stddev = if samples.len() > 1 {
            (samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
        } else {
            f64::NAN
        };
        let error = if samples.len() > 1 {
            t_quantile(1.0 - (1.0 - CONFIDENCE) / 2.0, n - 1.0) * stddev / n.sqrt()
        } else {
            f64::NAN
        };
        let mut sorted = samples.clone();
        sorted.sort_by(f64::total_cmp);
        Stats {
            mean,
            error,
            stddev,
            median: percentile_sorted(&sorted, 50.0),
            min: sorted[0],
            max: sorted[sorted.len() - 1],
            samples,
        }
    }

    /// The `p`-th percentile (0–100), interpolated as JMH (Apache Commons
    /// Math's default estimation) does.
    pub fn percentile(&self, p: f64) -> f64 {
        let mut sorted = self.samples.clone();
        sorted.sort_by(f64::total_cmp);
        percentile_sorted(&sorted, p)
    }

    /// The confidence interval `[mean − error, mean + error]`.
    pub fn confidence(&self) -> (f64, f64) {
        (self.mean - self.error, self.mean + self.error)
    }

    /// The larger distance from the median to an end of its interval
    /// ([`Stats::median_interval`]), for a table's `median ± error`; NaN
    /// with too few samples.
    pub fn median_error(&self) -> f64 {
        self.median_interval()
            .map_or(f64::NAN, |(lo, hi)| (self.median - lo).max(hi - self.median))
    }

    /// The [`CONFIDENCE`] interval of the median, widened by the samples'
    /// serial dependence ([`serial_median_interval`]); `None` with too few
    /// samples for one.
    pub fn median_interval(&self) -> Option<(f64, f64)> {
        serial_median_interval(&self.samples, CONFIDENCE)
    }
}

/// The distribution-free `confidence` interval of the median of `samples`:
/// `[x(k), x(n+1−k)]` of the sorted samples, with `k` the largest rank such
/// that `P(Binomial(n, ½) ≤ k − 1) ≤ (1 − confidence)/2`. `None` when even
/// the extremes do not reach the confidence (n < 11 at 99.9%) or a sample
/// is not finite.
pub fn median_interval(samples: &[f64], confidence: f64) -> Option<(f64, f64)> {
    let n = samples.len();
    if n == 0 || samples.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let k = sign_test_rank(n, confidence);
    if k == 0 {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    Some((sorted[k - 1], sorted[n - k]))
}

/// The `confidence` interval of the median of `samples` taken in this
/// order, allowing for serial dependence (the module's docs): with `τ`
/// the samples' [`dependence_time`], the samples are cut into batches of
/// `L` consecutive ones (`L` = ⌈τ⌉, made odd by going down: 1 for τ ≤ 2),
/// each batch is summarised by its median, and the sign-test interval of
/// those batch medians, which are about independent of each other, is
/// the interval (batch medians: the median of an odd batch's median has
/// the samples' median as its own, and a batch's median ignores a
/// preempted sample as the median of all does). `L` is at most what
/// leaves as many batches as `confidence` needs for a rank (11 at 99.9%:
/// batches of 5 for 60 samples): a run whose dependence is longer than
/// that is too short to bound its median at `confidence`, and its
/// interval, though widened, is narrower than it should be. The result
/// always contains the independent
/// samples' sign-test interval ([`median_interval`]): dependence only
/// widens it, and independent samples (`L` = 1) keep it exactly. `None`
/// when the samples are too few for a sign-test interval, or one is not
/// finite.
pub fn serial_median_interval(samples: &[f64], confidence: f64) -> Option<(f64, f64)> {
    let (lo, hi) = median_interval(samples, confidence)?;
    let n = samples.len();
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let tau = dependence_time(samples, median_sorted(&sorted));
    // At least as many batches as a rank at `confidence` needs.
    let fewest = (1..=n).find(|&b| sign_test_rank(b, confidence) > 0).unwrap_or(n);
    let mut len = (tau.ceil() as usize).min(n / fewest).max(1);
    if len % 2 == 0 {
        len -= 1;
    }
    if len <= 1 {
        return Some((lo, hi));
    }
    let batches = n / len;
    // The last batch takes the remainder, so that every sample counts.
    let mut medians: Vec<f64> = (0..batches)
        .map(|b| {
            let end = if b + 1 == batches { n } else { (b + 1) * len };
            let mut batch = samples[b * len..end].to_vec();
            batch.sort_by(f64::total_cmp);
            median_sorted(&batch)
        })
        .collect();
    medians.sort_by(f64::total_cmp);
    let k = sign_test_rank(batches, confidence);
    Some((lo.min(medians[k - 1]), hi.max(medians[batches - k])))
}

/// How many consecutive `samples` (in their order) carry the information
/// of one independent sample about the median: the larger of the
/// integrated autocorrelation times ([`autocorrelation_time`]) of the
/// indicators `x_t ≤ center` and of the samples' ranks. The indicators'
/// is what the asymptotic variance of the median depends on; but a row
/// whose samples mix stretches at two levels has its median inside one
/// level, where the indicators follow the noise within stretches, and it
/// is the mix's proportions, which the ranks' dependence sees, that move
/// the median from run to run (Vehtari et al., "Rank-normalization,
/// folding, and localization", Bayesian Analysis 2021, likewise take
/// the smaller of a quantile's and the ranks' effective sample sizes).
pub fn dependence_time(samples: &[f64], center: f64) -> f64 {
    let indicators: Vec<f64> = samples
        .iter()
        .map(|&x| f64::from(u8::from(x <= center)))
        .collect();
    let mut order: Vec<usize> = (0..samples.len()).collect();
    order.sort_by(|&i, &j| samples[i].total_cmp(&samples[j]));
    let mut ranks = vec![0.0; samples.len()];
    for (r, &i) in order.iter().enumerate() {
        ranks[i] = r as f64;
    }
    autocorrelation_time(&indicators).max(autocorrelation_time(&ranks))
}

/// The integrated autocorrelation time `τ = 1 + 2 Σ ρ(k)` of `series`,
/// by Geyer's initial positive sequence: the sums of adjacent pairs of
/// lags, `ρ(2j) + ρ(2j + 1)`, are added while positive, each capped by the
/// one before (for a stationary series they are positive and decreasing;
/// the first that is not marks where noise takes over), over lags up to
/// half the series. At least 1: negative dependence is not counted in the
/// samples' favour. 1 for a constant series or one of fewer than 4.
pub fn autocorrelation_time(series: &[f64]) -> f64 {
    let n = series.len();
    if n < 4 {
        return 1.0;
    }
    let mean = series.iter().sum::<f64>() / n as f64;
    let a: Vec<f64> = series.iter().map(|x| x - mean).collect();
    let var = a.iter().map(|x| x * x).sum::<f64>();
    if var == 0.0 {
        return 1.0;
    }
    let rho = |k: usize| a.iter().zip(&a[k..]).map(|(x, y)| x * y).sum::<f64>() / var;
    let mut sum = 0.0;
    let mut prev = f64::INFINITY;
    let mut j = 0;
    while 2 * j + 1 < n / 2 {
        let pair = (rho(2 * j) + rho(2 * j + 1)).min(prev);
        if pair <= 0.0 {
            break;
        }
        sum += pair;
        prev = pair;
        j += 1;
    }
    (2.0 * sum - 1.0).max(1.0)
}

/// The median of sorted samples (the mean of the middle two for even n).
fn median_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// The largest rank `k` such that `P(Binomial(n, ½) ≤ k − 1) ≤ (1 −
/// confidence)/2`, the sign-test interval's lower rank; 0 when even the
/// extremes do not reach the confidence.
fn sign_test_rank(n: usize, confidence: f64) -> usize {
    let tail = (1.0 - confidence) / 2.0;
    // P(B ≤ i) for i = 0, 1, …, accumulated in f64 from log-space terms
    // (2^-n underflows for large n).
    let ln2 = std::f64::consts::LN_2;
    let mut ln_choose = 0.0f64; // ln C(n, 0)
    let mut cdf = 0.0f64;
    let mut k = 0usize; // ranks 1..=k have P(B ≤ rank − 1) ≤ tail
    for i in 0..n / 2 {
        cdf += (ln_choose - n as f64 * ln2).exp();
        if cdf > tail {
            break;
        }
        k = i + 1;
        ln_choose += ((n - i) as f64).ln() - ((i + 1) as f64).ln();
    }
    k
}

fn t_quantile(p: f64, dof: f64) -> f64 {
    StudentsT::new(0.0, 1.0, dof)
        .expect("degrees of freedom are positive")
        .inverse_cdf(p)
}

fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    if n == 1 {
        return sorted[0];
    }
    // Commons Math Percentile, default (R6-like) estimation.
    let pos = p / 100.0 * (n as f64 + 1.0);
    if pos < 1.0 {
        return sorted[0];
    }
    if pos >= n as f64 {
        return sorted[n - 1];
    }
    let lower = sorted[pos.floor() as usize - 1];
    let upper = sorted[pos.floor() as usize];
    lower + (pos - pos.floor()) * (upper - lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_a_known_series() {
        let s = Stats::from_samples(vec![1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(s.mean, 3.0);
        assert_eq!(s.median, 3.0);
        assert_eq!((s.min, s.max), (1.0, 5.0));
        assert!((s.stddev - 2.5f64.sqrt()).abs() < 1e-12);
        // t(0.9995, 4) = 8.6103; error = 8.6103 * 1.5811 / 2.2361
        assert!((s.error - 6.0882).abs() < 1e-3, "{}", s.error);
    }

    #[test]
    fn single_sample_has_no_error() {
        let s = Stats::from_samples(vec![7.0]);
        assert!(s.error.is_nan());
        assert_eq!(s.median, 7.0);
    }

    #[test]
    fn the_median_interval_takes_the_sign_test_ranks() {
        // n = 10 cannot reach 99.9% (2 · 2^-10 = 0.002); n = 11 can, with
        // the extremes (2 · 2^-11 = 0.00098).
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(median_interval(&ten, 0.999), None);
        let eleven: Vec<f64> = (1..=11).map(f64::from).collect();
        assert_eq!(median_interval(&eleven, 0.999), Some((1.0, 11.0)));
        // n = 100 at 95%: ranks 40 and 61 (the textbook pair), whatever
        // the order the samples came in.
        let mut hundred: Vec<f64> = (1..=100).map(f64::from).collect();
        hundred.reverse();
        assert_eq!(median_interval(&hundred, 0.95), Some((40.0, 61.0)));
        // A preempted sample far out changes nothing.
        let mut tail = eleven.clone();
        tail[10] = 1e9;
        assert_eq!(median_interval(&tail, 0.999), Some((1.0, 1e9)));
        let mut tail: Vec<f64> = (1..=60).map(f64::from).collect();
        let (lo, hi) = median_interval(&tail, 0.999).unwrap();
        tail[59] = 1e9;
        assert_eq!(median_interval(&tail, 0.999), Some((lo, hi)));
        assert_eq!(median_interval(&[1.0, f64::NAN], 0.5), None);
    }

    /// Samples that alternate about their median carry no run of one
    /// level: the serial interval is the sign-test interval, rank for
    /// rank.
    #[test]
    fn independent_looking_samples_keep_the_sign_test_interval() {
        let alternating: Vec<f64> = (0..60)
            .map(|i| {
                if i % 2 == 0 {
                    f64::from(i)
                } else {
                    1000.0 - f64::from(i)
                }
            })
            .collect();
        let m = Stats::from_samples(alternating.clone()).median;
        assert_eq!(dependence_time(&alternating, m), 1.0);
        assert_eq!(
            serial_median_interval(&alternating, 0.999),
            median_interval(&alternating, 0.999)
        );
        for n in [11, 12, 31, 60, 100] {
            let xs: Vec<f64> = (0..n)
                .map(|i| if i % 2 == 0 { i as f64 } else { -(i as f64) })
                .collect();
            assert_eq!(
                serial_median_interval(&xs, 0.999),
                median_interval(&xs, 0.999),
                "n = {n}"
            );
        }
        assert_eq!(serial_median_interval(&[1.0; 10], 0.999), None);
        assert_eq!(serial_median_interval(&[1.0, f64::NAN], 0.5), None);
    }

    /// Samples in stretches of one level (a threaded row keeping one
    /// placement for a while): their dependence time is a few samples,
    /// and the interval widens from the sign test's to that of the
    /// batches' medians.
    #[test]
    fn samples_in_stretches_widen_the_interval() {
        // Ten stretches of six samples, levels 1..=10 in a scrambled
        // order, a little noise within each stretch.
        let levels = [4.0, 9.0, 1.0, 7.0, 3.0, 10.0, 6.0, 2.0, 8.0, 5.0];
        let xs: Vec<f64> = levels
            .iter()
            .flat_map(|&l| (0..6).map(move |i| l + 0.01 * f64::from(i)))
            .collect();
        let m = Stats::from_samples(xs.clone()).median;
        let tau = dependence_time(&xs, m);
        assert!((3.0..4.0).contains(&tau), "τ = {tau}");
        assert_eq!(median_interval(&xs, 0.999), Some((3.04, 8.01)));
        // Batches of 3 (τ rounded up, made odd): 20 batch medians, two per
        // level (l + 0.01, l + 0.04), ranks 3 and 18 of them.
        assert_eq!(serial_median_interval(&xs, 0.999), Some((2.01, 9.04)));
        // A level that drifts through the run, 1 to 10: batches as long
        // as 11 batches allow (5), whose medians span nearly the range.
        let drift: Vec<f64> = (1..=10)
            .flat_map(|l| (0..6).map(move |i| f64::from(l) + 0.001 * f64::from(i)))
            .collect();
        let m = Stats::from_samples(drift.clone()).median;
        assert!(dependence_time(&drift, m) > 60.0 / 11.0);
        assert_eq!(median_interval(&drift, 0.999), Some((3.004, 8.001)));
        assert_eq!(serial_median_interval(&drift, 0.999), Some((1.002, 10.003)));
        // A preempted sample at the start of every stretch: the batch
        // medians stay on the levels.
        let mut tail = xs.clone();
        for x in tail.iter_mut().step_by(6) {
            *x = 1e6;
        }
        let (lo, hi) = serial_median_interval(&tail, 0.999).unwrap();
        assert!(hi < 11.0, "[{lo}, {hi}]");
    }

    #[test]
    fn percentiles_interpolate() {
        let s = Stats::from_samples(vec![4.0, 1.0, 3.0, 2.0]);
        assert_eq!(s.percentile(0.0), 1.0);
        assert_eq!(s.percentile(100.0), 4.0);
        assert_eq!(s.median, 2.5);
    }
}
