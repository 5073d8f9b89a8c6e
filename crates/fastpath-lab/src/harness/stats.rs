//! Summary statistics over iteration samples, as JMH reports them.
//!
//! JMH's "score error" is the half-width of a 99.9% confidence interval of
//! the mean under Student's t distribution with n − 1 degrees of freedom:
//! `t(1 − 0.001/2, n − 1) · s / √n`. With a single sample it is undefined
//! (JMH prints NaN); here it is reported as NaN too, and rendered as "≈".

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
    fn percentiles_interpolate() {
        let s = Stats::from_samples(vec![4.0, 1.0, 3.0, 2.0]);
        assert_eq!(s.percentile(0.0), 1.0);
        assert_eq!(s.percentile(100.0), 4.0);
        assert_eq!(s.median, 2.5);
    }
}
