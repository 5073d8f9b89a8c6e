//! What the `vm` tables share: a cell's result row in JMH's format, its
//! figure as text, ratios and their geometric mean, the seed's signed
//! percentages, and the failures a table reports.
//!
//! Where it sits: between [`measure`](super::measure) and each table.

use super::measure::{Cell, Measured};
use crate::report::table::num;
use crate::report::{BenchResult, Metric, Mode};
use crate::stats::Stats;

/// The experiment's name in results.
pub const EXPERIMENT: &str = "vm";

/// The JMH-format row of a measured cell: `fastpath.vm.<table>.<program>`
/// with the VM, tier, configuration and size as parameters, time per
/// iteration in ms (average-time mode: lower is better).
pub fn cell_result(table: &str, cell: &Cell, stats: &Stats) -> BenchResult {
    BenchResult::new(
        EXPERIMENT,
        &format!("{table}.{}", cell.program.name),
        Mode::AverageTime,
        stats,
        "ms/op",
    )
    .param("vm", cell.config.engine.name())
    .param("tier", cell.config.tier.name())
    .param("config", &cell.config.label)
    .param("inner", cell.inner)
    .threads(cell.threads)
}

/// Adds `name` = `value` (a ratio) to a row.
pub fn with_ratio(r: BenchResult, name: &str, value: f64) -> BenchResult {
    if value.is_finite() {
        r.secondary(name, Metric::single(value, "ratio"))
    } else {
        r
    }
}

/// `median ± error` in ms, or what went wrong.
pub fn ms(m: &Measured) -> String {
    match (&m.error, m.stats()) {
        (Some(_), _) => "failed".into(),
        (None, None) => "-".into(),
        (None, Some(s)) => {
            let e = s.median_error();
            if e.is_finite() {
                format!("{} ± {}", num(s.median), num(e))
            } else {
                num(s.median)
            }
        }
    }
}

/// `a / b` as `1.23×`, or `-` when either is missing.
pub fn times(a: f64, b: f64) -> String {
    if a.is_finite() && b.is_finite() && b > 0.0 {
        format!("{:.2}×", a / b)
    } else {
        "-".into()
    }
}

/// The seed 001 convention: `baseline / value − 1` in percent, positive
/// when `value` (a time) is shorter than the baseline's.
pub fn faster_pct(value: f64, baseline: f64) -> f64 {
    (baseline / value - 1.0) * 100.0
}

/// The seed 003 convention for a time: `value / baseline − 1` in percent,
/// positive when `value` is slower (the barrier's cost).
pub fn slower_pct(value: f64, baseline: f64) -> f64 {
    (value / baseline - 1.0) * 100.0
}

/// A percentage as `+1.2%`, `-` when not finite.
pub fn pct(v: f64) -> String {
    if v.is_finite() {
        format!("{v:+.1}%")
    } else {
        "-".into()
    }
}

/// The geometric mean of the finite, positive values, and how many there
/// were; NaN for none.
pub fn geomean(values: impl IntoIterator<Item = f64>) -> (f64, usize) {
    let logs: Vec<f64> = values
        .into_iter()
        .filter(|v| v.is_finite() && *v > 0.0)
        .map(f64::ln)
        .collect();
    if logs.is_empty() {
        (f64::NAN, 0)
    } else {
        ((logs.iter().sum::<f64>() / logs.len() as f64).exp(), logs.len())
    }
}

/// Whether `a`'s median interval lies wholly above `b`'s (both need 11
/// samples for an interval; without one, `false`: not shown).
pub fn clearly_above(a: &Measured, b: &Measured) -> bool {
    match (
        a.stats().and_then(|s| s.median_interval()),
        b.stats().and_then(|s| s.median_interval()),
    ) {
        (Some((a_lo, _)), Some((_, b_hi))) => a_lo > b_hi,
        _ => false,
    }
}

/// The note listing the failed runs among `errors` (a cell's or a start's
/// `error`), if any (not a goal verdict: it starts with "runs that
/// failed").
pub fn failures_note<'a>(errors: impl IntoIterator<Item = Option<&'a str>>) -> Option<String> {
    let failed: Vec<&str> = errors.into_iter().flatten().collect();
    (!failed.is_empty()).then(|| format!("runs that failed ({}): {}", failed.len(), failed.join(" | ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_follow_the_seeds_signs() {
        // Seed 001: avrora 27859 (stack-locking) vs 27563 (fast-locking): +1.07%.
        assert!((faster_pct(27563.0, 27859.0) - 1.07).abs() < 0.01);
        // Seed 003: 236 → 206 ops/min is 4.24 → 4.85 ms/op: +14.6% time.
        assert!((slower_pct(1.0 / 206.0, 1.0 / 236.0) - 14.56).abs() < 0.01);
        assert_eq!(pct(1.234), "+1.2%");
        assert_eq!(pct(f64::NAN), "-");
    }

    #[test]
    fn geomean_skips_what_is_missing() {
        let (g, n) = geomean([2.0, 8.0, f64::NAN, 0.0]);
        assert!((g - 4.0).abs() < 1e-12 && n == 2);
        assert!(geomean([]).0.is_nan());
        assert_eq!(times(3.0, 2.0), "1.50×");
        assert_eq!(times(f64::NAN, 2.0), "-");
    }

    #[test]
    fn clearly_above_needs_disjoint_intervals() {
        let m = |v: Vec<f64>| Measured {
            samples_ms: v,
            ..Measured::default()
        };
        let low = m((0..20).map(|i| 10.0 + i as f64 * 0.01).collect());
        let high = m((0..20).map(|i| 20.0 + i as f64 * 0.01).collect());
        assert!(clearly_above(&high, &low));
        assert!(!clearly_above(&low, &high));
        assert!(!clearly_above(&m(vec![30.0]), &low), "one sample has no interval");
    }
}
