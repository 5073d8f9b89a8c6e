//! One side of a compared row as an estimate with its 99.9% interval, and
//! the verdict on a row from its two sides ([`judge`]): the rule of the
//! [module's docs](super).

use super::Rule;
use crate::report::jmh::Metric;
use crate::report::table::score;
use crate::stats::{serial_median_interval, CONFIDENCE};

/// The least samples a side needs for its median to be its estimate: the
/// fewest for which a 99.9% interval of the median exists.
pub const MEDIAN_SAMPLES: usize = 11;

/// One side of a row: its centre and 99.9% interval, in the baseline's
/// unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The median (with enough raw samples) or the score.
    pub center: f64,
    /// The interval's ends; NaN when there is no error estimate.
    pub lo: f64,
    /// See `lo`.
    pub hi: f64,
    /// Whether `center` is a median of raw samples.
    pub median: bool,
}

impl Estimate {
    /// The estimate of `m` scaled by `factor` (a unit conversion): the
    /// median of its raw samples and its interval where it has at least
    /// [`MEDIAN_SAMPLES`] of them, all finite (the lab's rows), else its
    /// score ± error (JMH's mean, from a handful of iterations). Each side
    /// of a row gets its own: a lab row keeps the median its own table
    /// printed, beside a JMH row's score.
    pub(super) fn of(m: &Metric, factor: f64) -> Estimate {
        let samples: Vec<f64> = m.raw_data.iter().flatten().map(|x| x * factor).collect();
        if samples.len() >= MEDIAN_SAMPLES && samples.iter().all(|x| x.is_finite()) {
            if let Some(e) = Estimate::median_of(&samples) {
                return e;
            }
        }
        let (s, e) = (m.score * factor, m.score_error * factor);
        Estimate {
            center: s,
            lo: s - e,
            hi: s + e,
            median: false,
        }
    }

    /// The median of `samples` (taken in this order) with its serially
    /// dependent interval; `None` when they are too few or one is not
    /// finite.
    fn median_of(samples: &[f64]) -> Option<Estimate> {
        let (lo, hi) = serial_median_interval(samples, CONFIDENCE)?;
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let center = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        Some(Estimate {
            center,
            lo,
            hi,
            median: true,
        })
    }

    /// The estimate of `row / base`, two rows of one run (the [module's
    /// docs](super), "Whole-run shifts"). Where both carry as many samples, at
    /// least [`MEDIAN_SAMPLES`], all finite and the baseline's positive,
    /// the k-th samples are taken to be one round's (the lab's
    /// interleaved tables sample every row once per round, in round
    /// order): the median of the per-round ratios with its serially
    /// dependent interval. A shift of the machine within the run moves
    /// both samples of a round alike and leaves their ratio, so the
    /// interval is that of the ratio itself, not of two figures that share
    /// their noise. Otherwise, the quotient of the two rows' intervals
    /// (their extreme quotients: both relative errors added), which holds
    /// the ratio whenever both intervals hold their figures; NaN ends (no
    /// error) when the baseline's interval reaches zero or either has none.
    pub fn ratio(row: &Metric, base: &Metric) -> Estimate {
        let xs: Vec<f64> = row.raw_data.iter().flatten().copied().collect();
        let bs: Vec<f64> = base.raw_data.iter().flatten().copied().collect();
        let pairable = xs.len() == bs.len()
            && xs.len() >= MEDIAN_SAMPLES
            && xs.iter().all(|x| x.is_finite())
            && bs.iter().all(|b| b.is_finite() && *b > 0.0);
        if pairable {
            let ratios: Vec<f64> = xs.iter().zip(&bs).map(|(x, b)| x / b).collect();
            if let Some(e) = Estimate::median_of(&ratios) {
                return e;
            }
        }
        let (x, b) = (Estimate::of(row, 1.0), Estimate::of(base, 1.0));
        let center = x.center / b.center;
        let ends = [x.lo / b.lo, x.lo / b.hi, x.hi / b.lo, x.hi / b.hi];
        let (lo, hi) = if b.lo > 0.0 && ends.iter().all(|e| e.is_finite()) {
            (
                ends.iter().copied().fold(f64::INFINITY, f64::min),
                ends.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            )
        } else {
            (f64::NAN, f64::NAN)
        };
        Estimate {
            center,
            lo,
            hi,
            median: false,
        }
    }

    /// The larger distance from the centre to an end of the interval.
    pub(super) fn half_width(&self) -> f64 {
        (self.center - self.lo).max(self.hi - self.center)
    }

    /// `centre ± half-width` for the table.
    pub(super) fn cell(&self) -> String {
        score(self.center, self.half_width())
    }
}

/// The verdict on one row, by the rule in the [module's docs](super): `n/a` (a
/// score that is not a number), `no error` (a side without an interval),
/// `same`, or which side is better: `change` or `baseline`.
pub fn judge(b: &Estimate, c: &Estimate, higher_is_better: bool, rule: &Rule) -> &'static str {
    if !b.center.is_finite() || !c.center.is_finite() {
        // JMH writes a score it could not compute as "NaN": nothing to rank.
        return "n/a";
    }
    // An error JMH could not compute (one iteration, a derived figure):
    // the difference cannot be told from noise.
    if [b.lo, b.hi, c.lo, c.hi].iter().any(|x| !x.is_finite()) {
        return "no error";
    }
    let overlap = b.lo <= c.hi && c.lo <= b.hi;
    let relative = if b.center != 0.0 {
        ((c.center - b.center) / b.center).abs() * 100.0
    } else {
        f64::INFINITY
    };
    if overlap || relative < rule.min_change_percent {
        "same"
    } else if (c.center > b.center) == higher_is_better {
        "change"
    } else {
        "baseline"
    }
}

/// `(c − b) / b` of two estimates' centres, in percent (NaN when `b`'s
/// is 0 or either is not a number).
pub(super) fn relative_change(b: &Estimate, c: &Estimate) -> f64 {
    if b.center != 0.0 && b.center.is_finite() && c.center.is_finite() {
        (c.center / b.center - 1.0) * 100.0
    } else {
        f64::NAN
    }
}

/// Whether a row's own figure changed with its ratio to its baseline row:
/// by at least [`Rule::min_change_percent`] of it, the way the ratio
/// changed. A shift of the whole run that moved the baseline row and
/// passed this row by changes its ratio, not its figure.
pub fn own_followed(own_change_percent: f64, ratio_change_percent: f64, rule: &Rule) -> bool {
    own_change_percent.abs() >= rule.min_change_percent
        && own_change_percent.signum() == ratio_change_percent.signum()
}

/// The verdict on a row with a baseline row (the [module's
/// docs](super), "Whole-run shifts"): [`judge`]'s verdict on its ratios (`against`),
/// kept only when the row's own figure moved with it ([`own_followed`]),
/// else `same`. A shift that moves the row with its baseline leaves the
/// ratio `same`; one that passes the row by leaves its own figure; a
/// change of the row itself moves both.
pub fn with_own_change(against: &'static str, own_followed: bool) -> &'static str {
    match against {
        "change" | "baseline" if !own_followed => "same",
        v => v,
    }
}
