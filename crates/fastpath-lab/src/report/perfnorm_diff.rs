//! The seed 003 diff of secondary metrics: for each counter (or any other
//! secondary metric) of a row present in both files, the difference as a
//! range from the error bounds and a percentage, `+77..101M +17%`, shown
//! only where the difference exceeds the errors.
//!
//! Where it sits: `fastpath compare` lists the primary scores
//! ([`compare`](super::compare)); this appends, per matched row, the
//! secondary metrics that moved. With errors `ea` and `eb` on scores `a`
//! and `b`, the difference lies in `[(b − eb) − (a + ea), (b + eb) − (a −
//! ea)]`; a range that contains zero is inside the noise and is not shown
//! (Shipilëv's reading of perfnorm tables in the seed). The percentage is
//! `(b − a) / a`. Numbers are cut toward zero, not rounded, to the
//! precision shown (the seed's 77.1M shows as 77M, +17.1% as +17%), so a
//! bound is never overstated.

use super::jmh::{BenchResult, Metric};
use super::table::{num, Table};

/// A secondary metric that moved beyond its errors.
#[derive(Clone, Debug, PartialEq)]
pub struct Moved {
    /// Lower bound of the difference.
    pub lo: f64,
    /// Upper bound of the difference.
    pub hi: f64,
    /// `(b − a) / a` in percent (NaN when `a` is 0).
    pub percent: f64,
}

/// An error JMH could not compute ("NaN", one sample) counts as none where
/// the count is exact (a simulated counter, see [`exact`]).
fn err(m: &Metric) -> f64 {
    if m.score_error.is_finite() {
        m.score_error.abs()
    } else {
        0.0
    }
}

/// The difference of `b` against `a`, if it exceeds their errors.
pub fn moved(a: &Metric, b: &Metric) -> Option<Moved> {
    if !a.score.is_finite() || !b.score.is_finite() {
        return None;
    }
    let lo = (b.score - err(b)) - (a.score + err(a));
    let hi = (b.score + err(b)) - (a.score - err(a));
    if lo <= 0.0 && hi >= 0.0 {
        return None;
    }
    let percent = if a.score == 0.0 {
        f64::NAN
    } else {
        (b.score - a.score) / a.score * 100.0
    };
    Some(Moved { lo, hi, percent })
}

/// Cuts toward zero at `decimals` places.
fn trunc(v: f64, decimals: i32) -> f64 {
    let f = 10f64.powi(decimals);
    (v * f).trunc() / f
}

/// The seed's shape: `+77..101M +17%` (a decrease: `-23..-14M -9%`).
pub fn format(m: &Moved) -> String {
    let big = m.lo.abs().max(m.hi.abs());
    let (div, suffix) = [(1e9, "G"), (1e6, "M"), (1e3, "K")]
        .into_iter()
        .find(|(d, _)| big >= *d)
        .unwrap_or((1.0, ""));
    let (lo, hi) = (m.lo / div, m.hi / div);
    // Integers from 10 up (77..101M); one or two decimals below, so
    // per-operation counts of a few instructions keep their meaning.
    let decimals = if big / div >= 10.0 {
        0
    } else if big / div >= 1.0 {
        1
    } else {
        2
    };
    let show = |v: f64| {
        let t = trunc(v, decimals);
        format!("{t:.prec$}", prec = decimals as usize)
    };
    let sign = if lo > 0.0 { "+" } else { "" };
    let pct = if m.percent.is_finite() {
        format!(" {:+}%", trunc(m.percent, 0) as i64)
    } else {
        String::new()
    };
    format!("{sign}{}..{}{suffix}{pct}", show(lo), show(hi))
}

/// Whether a row's secondary metrics are exact counts: Callgrind's
/// simulation is deterministic, so a single sample has no error to
/// estimate and any difference is real.
fn exact(r: &BenchResult) -> bool {
    r.secondary_metrics
        .contains_key(crate::report::jmh::SIMULATED_MARKER)
}

/// Appends to a compare table, for every row of `baseline` matched in
/// `change` by `pairs`, a row per secondary metric that moved beyond its
/// errors: `<row> :<metric>`, unit, both scores, the percentage and the
/// seed-shaped difference. Adds a note saying how to read them.
pub fn append(
    t: &mut Table,
    baseline: &[BenchResult],
    change: &[BenchResult],
    pairs: impl Fn(&BenchResult, &BenchResult) -> bool,
) {
    let mut shown = 0;
    let mut within = 0;
    let mut unjudged = 0;
    for b in baseline {
        let Some(c) = change.iter().find(|c| pairs(b, c)) else {
            continue;
        };
        for (name, bm) in &b.secondary_metrics {
            let Some(cm) = c.secondary_metrics.get(name) else {
                continue;
            };
            if bm.score_unit != cm.score_unit {
                continue;
            }
            // No error estimate (a derived ratio, one sample of a timed
            // figure) and not an exact count: nothing can be said.
            let estimated = |m: &Metric| m.score_error.is_finite();
            let judged = (estimated(bm) && estimated(cm)) || (exact(b) && exact(c));
            if !judged {
                unjudged += 1;
                continue;
            }
            match moved(bm, cm) {
                Some(m) => {
                    shown += 1;
                    let pct = if m.percent.is_finite() {
                        format!("{:+.1}%", m.percent)
                    } else {
                        "n/a".into()
                    };
                    let mut cells = vec![
                        format!("{} :{name}", b.key()),
                        bm.score_unit.clone(),
                        format!("{} ± {}", num(bm.score), num(err(bm))),
                        format!("{} ± {}", num(cm.score), num(err(cm))),
                        pct,
                        format(&m),
                    ];
                    // The compare table's other columns (its ratio column)
                    // say `-`: the difference stays last.
                    while cells.len() < t.headers.len() {
                        cells.insert(cells.len() - 1, "-".into());
                    }
                    t.row(cells);
                }
                None => within += 1,
            }
        }
    }
    if shown + within > 0 {
        t.note(format!(
            "`:metric` rows: secondary metrics (perfnorm counters and others) whose difference exceeds both errors, as lo..hi of the difference and % (seed 003's shape); {within} more moved less than their errors and are not shown"
        ));
    }
    if unjudged > 0 {
        t.note(format!(
            "{unjudged} secondary metric(s) have no error estimate (derived ratios, single counts) and are not judged or shown"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(score: f64, error: f64) -> Metric {
        Metric {
            score,
            score_error: error,
            score_confidence: vec![],
            score_percentiles: Default::default(),
            score_unit: "#/op".into(),
            raw_data: vec![],
        }
    }

    /// The seed's own rows: passive against passive +ShenandoahWriteBarrier.
    #[test]
    fn reproduces_the_seed_rows() {
        let l1_loads = moved(&m(520038766.0, 6177479.0), &m(609183240.0, 5857280.0)).unwrap();
        assert_eq!(format(&l1_loads), "+77..101M +17%");
        let l1_stores = moved(&m(198131386.0, 2044458.0), &m(216852068.0, 2586890.0)).unwrap();
        assert_eq!(format(&l1_stores), "+14..23M +9%");
        let branches = moved(&m(320735964.0, 1510799.0), &m(361296218.0, 2117561.0)).unwrap();
        assert_eq!(format(&branches), "+36..44M +12%");
        // The seed wrote +220..257M; its lower bound is 219.38M, which
        // cutting toward zero shows as 219.
        let insns = moved(&m(1659286537.0, 8661844.0), &m(1897746787.0, 10418938.0)).unwrap();
        assert_eq!(format(&insns), "+219..257M +14%");
    }

    #[test]
    fn inside_the_errors_is_not_a_difference() {
        // CPI 0.417 ± 0 against 0.417 ± 0.004, and cycles that overlap.
        assert_eq!(moved(&m(0.417, 0.0), &m(0.417, 0.004)), None);
        assert_eq!(moved(&m(100.0, 6.0), &m(110.0, 5.0)), None);
        assert!(moved(&m(100.0, 4.0), &m(110.0, 5.0)).is_some());
    }

    #[test]
    fn decreases_small_counts_and_nan_errors() {
        let d = moved(&m(5.0, f64::NAN), &m(4.0, 0.0)).unwrap();
        assert_eq!((d.lo, d.hi), (-1.0, -1.0));
        assert_eq!(format(&d), "-1.0..-1.0 -20%");
        let d = moved(&m(0.0, 0.0), &m(0.25, 0.0)).unwrap();
        assert_eq!(format(&d), "+0.25..0.25");
        let k = moved(&m(10_000.0, 100.0), &m(14_000.0, 100.0)).unwrap();
        assert_eq!(format(&k), "+3.8..4.2K +40%");
    }

    #[test]
    fn appends_only_rows_that_moved() {
        let mk = |loads: f64| {
            crate::report::BenchResult::new(
                "e",
                "w",
                crate::report::Mode::Throughput,
                &crate::stats::Stats::from_samples(vec![1.0, 1.1]),
                "ops/s",
            )
            .secondary("L1-dcache-loads", m(loads, 1.0))
            .secondary("instructions", m(100.0, 1.0))
        };
        let mut t = Table::new("t", &["a", "b", "c", "d", "e", "f"]);
        append(&mut t, &[mk(50.0)], &[mk(60.0)], |b, c| b.key() == c.key());
        assert_eq!(t.rows.len(), 1, "{}", t.to_text());
        assert!(t.rows[0][0].ends_with(":L1-dcache-loads"));
        assert_eq!(t.rows[0][5], "+8..12 +20%");
        assert!(t.to_text().contains("1 more moved less"));
    }

    /// A metric without an error estimate (a derived ratio) is not judged;
    /// Callgrind's counts are exact, so theirs are.
    #[test]
    fn metrics_without_errors_are_judged_only_when_exact() {
        let mk = |ratio: f64, insns: f64, simulated: bool| {
            let r = crate::report::BenchResult::new(
                "e",
                "w",
                crate::report::Mode::AverageTime,
                &crate::stats::Stats::from_samples(vec![1.0, 1.1]),
                "ns/op",
            )
            .secondary("ratio_to_cas_pair", m(ratio, f64::NAN))
            .secondary("instructions", m(insns, f64::NAN));
            if simulated {
                r.secondary(crate::report::jmh::SIMULATED_MARKER, m(100.0, f64::NAN))
            } else {
                r
            }
        };
        let mut t = Table::new("t", &["a", "b", "c", "d", "e", "f"]);
        append(
            &mut t,
            &[mk(1.02, 40.0, false)],
            &[mk(1.21, 36.0, false)],
            |b, c| b.key() == c.key(),
        );
        assert!(t.rows.is_empty(), "{}", t.to_text());
        assert!(t
            .to_text()
            .contains("2 secondary metric(s) have no error estimate"));
        let mut t = Table::new("t", &["a", "b", "c", "d", "e", "f"]);
        append(
            &mut t,
            &[mk(1.02, 40.0, true)],
            &[mk(1.02, 36.0, true)],
            |b, c| b.key() == c.key(),
        );
        let rows: Vec<&str> = t.rows.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(rows.len(), 1, "{}", t.to_text());
        assert!(rows[0].ends_with(":instructions"), "{rows:?}");
    }
}
