//! `fastpath compare A.json B.json`: baseline, change and % per row, in the
//! shape of the seed 001 tables (DaCapo/Renaissance, stack-locking vs
//! fast-locking). Rows are matched by benchmark, threads and parameters; a
//! row present in only one file is listed as such, never dropped silently.
//!
//! [`MatchBy::Workload`] matches on the workload name alone (the last
//! component of the benchmark name, case and punctuation folded, plus the
//! thread count), which pairs a fastpath run with its HotSpot peer
//! (`fastpath.lock.cas-pair` with `fastpath.peers.LockBench.casPair`).

use super::jmh::BenchResult;
use super::table::{num, percent, Table};

/// How rows of the two files are paired.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MatchBy {
    /// Benchmark name, threads and parameters, exactly.
    #[default]
    Exact,
    /// Folded workload name and threads; parameters ignored.
    Workload,
}

impl MatchBy {
    fn key(self, r: &BenchResult) -> String {
        match self {
            MatchBy::Exact => r.key(),
            MatchBy::Workload => {
                let last = r.benchmark.rsplit('.').next().unwrap_or(&r.benchmark);
                let folded: String = last
                    .chars()
                    .filter(char::is_ascii_alphanumeric)
                    .map(|c| c.to_ascii_lowercase())
                    .collect();
                format!("{folded} [threads={}]", r.threads)
            }
        }
    }
}

/// Builds the comparison table of `baseline` against `change`, rows matched
/// exactly.
pub fn compare(baseline: &[BenchResult], change: &[BenchResult]) -> Table {
    compare_by(baseline, change, MatchBy::Exact)
}

/// Builds the comparison table of `baseline` against `change`, rows matched
/// by `by`. Rows whose units differ are listed but not compared.
pub fn compare_by(baseline: &[BenchResult], change: &[BenchResult], by: MatchBy) -> Table {
    let mut t = Table::new(
        "compare: baseline vs change",
        &["benchmark", "unit", "baseline", "change", "%", "better"],
    );
    for b in baseline {
        let key = by.key(b);
        match change.iter().find(|c| by.key(c) == key) {
            Some(c) if c.primary_metric.score_unit != b.primary_metric.score_unit => {
                // Different units (ns/op against us/op, ops/s against
                // ns/op): a ratio of the raw scores would be meaningless.
                t.row(vec![
                    key,
                    format!(
                        "{} vs {}",
                        b.primary_metric.score_unit, c.primary_metric.score_unit
                    ),
                    num(b.primary_metric.score),
                    num(c.primary_metric.score),
                    "n/a".into(),
                    "units differ".into(),
                ]);
            }
            Some(c) => {
                let (bs, cs) = (b.primary_metric.score, c.primary_metric.score);
                let better = if !bs.is_finite() || !cs.is_finite() {
                    // JMH writes a score it could not compute as "NaN":
                    // nothing to rank.
                    "n/a"
                } else if bs == cs {
                    "same"
                } else if (cs > bs) == b.mode.higher_is_better() {
                    "change"
                } else {
                    "baseline"
                };
                t.row(vec![
                    key,
                    b.primary_metric.score_unit.clone(),
                    format!("{} ± {}", num(bs), num(b.primary_metric.score_error)),
                    format!("{} ± {}", num(cs), num(c.primary_metric.score_error)),
                    percent(cs, bs),
                    better.to_string(),
                ]);
            }
            None => {
                t.row(vec![
                    key,
                    b.primary_metric.score_unit.clone(),
                    num(b.primary_metric.score),
                    "(missing)".into(),
                    "n/a".into(),
                    String::new(),
                ]);
            }
        }
    }
    for c in change {
        let key = by.key(c);
        if !baseline.iter().any(|b| by.key(b) == key) {
            t.row(vec![
                key,
                c.primary_metric.score_unit.clone(),
                "(missing)".into(),
                num(c.primary_metric.score),
                "n/a".into(),
                String::new(),
            ]);
        }
    }
    t.note("% is change against baseline; \"better\" follows the mode (lower time, higher throughput)");
    super::perfnorm_diff::append(&mut t, baseline, change, |r| by.key(r));
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Stats;
    use crate::report::jmh::Mode;

    fn r(name: &str, v: f64, mode: Mode) -> BenchResult {
        BenchResult::new("x", name, mode, &Stats::from_samples(vec![v, v]), "ns/op")
    }

    #[test]
    fn matches_rows_and_reports_missing_ones() {
        let a = vec![
            r("a", 100.0, Mode::AverageTime),
            r("only_a", 1.0, Mode::AverageTime),
        ];
        let b = vec![
            r("a", 80.0, Mode::AverageTime),
            r("only_b", 1.0, Mode::AverageTime),
        ];
        let t = compare(&a, &b);
        assert_eq!(t.rows.len(), 3);
        assert_eq!(t.rows[0][4], "-20.0%");
        assert_eq!(t.rows[0][5], "change");
        assert_eq!(t.rows[1][3], "(missing)");
        assert_eq!(t.rows[2][2], "(missing)");
        let tp = compare(
            &[r("t", 100.0, Mode::Throughput)],
            &[r("t", 80.0, Mode::Throughput)],
        );
        assert_eq!(tp.rows[0][5], "baseline");
    }

    #[test]
    fn workload_matching_pairs_a_jmh_peer_and_refuses_unit_mismatches() {
        let mut peer = r("casPair", 12.0, Mode::AverageTime);
        peer.benchmark = "fastpath.peers.LockBench.casPair".into();
        let ours = r("cas-pair", 10.0, Mode::AverageTime).param("mode", "baseline");
        assert_eq!(
            compare(std::slice::from_ref(&ours), std::slice::from_ref(&peer))
                .rows
                .len(),
            2
        );
        let t = compare_by(
            std::slice::from_ref(&ours),
            std::slice::from_ref(&peer),
            MatchBy::Workload,
        );
        assert_eq!(t.rows.len(), 1);
        assert_eq!(t.rows[0][4], "+20.0%");
        peer.primary_metric.score_unit = "us/op".into();
        let t = compare_by(&[ours], &[peer], MatchBy::Workload);
        assert_eq!(t.rows[0][5], "units differ");
    }

    #[test]
    fn a_non_finite_score_ranks_nothing() {
        let t = compare(
            &[r("a", f64::NAN, Mode::AverageTime)],
            &[r("a", 1.0, Mode::AverageTime)],
        );
        assert_eq!(t.rows[0][5], "n/a");
        let t = compare(
            &[r("a", 1.0, Mode::AverageTime)],
            &[r("a", f64::NAN, Mode::AverageTime)],
        );
        assert_eq!(t.rows[0][5], "n/a");
    }

    #[test]
    fn different_units_are_not_compared() {
        let a = r("a", 100.0, Mode::AverageTime);
        let b = BenchResult::new(
            "x",
            "a",
            Mode::AverageTime,
            &Stats::from_samples(vec![0.1, 0.1]),
            "us/op",
        );
        let t = compare(&[a], &[b]);
        assert_eq!(t.rows.len(), 1);
        assert_eq!(t.rows[0][1], "ns/op vs us/op");
        assert_eq!(t.rows[0][4], "n/a");
        assert_eq!(t.rows[0][5], "units differ");
    }
}
