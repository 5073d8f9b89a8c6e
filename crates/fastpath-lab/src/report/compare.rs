//! `fastpath compare A.json B.json`: baseline, change and % per row, in the
//! shape of the seed 001 tables (DaCapo/Renaissance, stack-locking vs
//! fast-locking). Rows are matched by benchmark, threads and parameters; a
//! row present in only one file is listed as such, never dropped silently,
//! and [`Comparison::warnings`] says so in words (two unrelated files pair
//! nothing, which the CLI reports as an error).
//!
//! [`MatchBy::Workload`] matches on the workload name (the last component of
//! the benchmark name, case and punctuation folded, HotSpot peer names mapped
//! through [`PEER_WORKLOADS`]) and the thread count, which pairs a fastpath
//! run with its HotSpot peer (`fastpath.lock.cas-pair` with
//! `fastpath.peers.LockBench.casPair`, `fastpath.spin.latency` with
//! `fastpath.peers.SpinBench.onSpinWait`). Parameters then pair only where
//! both sides name them: each of the lab's `strategy=…` rows meets the one
//! JMH row, which has no such parameter, on a row of its own.
//!
//! Units are converted when they measure the same thing (`ops/s` against
//! JMH's `ops/us`, `ns/op` against `us/op`); the change's score is shown in
//! the baseline's unit. "better" names a side only when the two 99.9%
//! confidence intervals do not overlap; otherwise it says `same`. A row
//! without an error estimate on either side (one sample, a derived ratio)
//! cannot be judged and says `no error`, whatever its %; a % inside the
//! errors is marked `~`. When the intervals are so wide that a change of a
//! few percent would read `same` anyway (quick mode on a shared machine),
//! [`Comparison::warnings`] says so.

use std::collections::BTreeMap;

use super::jmh::BenchResult;
use super::table::{num, percent, Table};

/// HotSpot peer method names (folded) and the lab workload each one measures,
/// for [`MatchBy::Workload`]. Names that already fold alike (`casPair` and
/// `cas-pair`, the `handoff` group) need no entry.
pub const PEER_WORKLOADS: &[(&str, &str)] = &[
    // peers/jvm SpinBench.onSpinWait: the cost of one pause.
    ("onspinwait", "latency"),
    // peers/jvm SpinBench.lruGetPut: the shared LRU behind a lock.
    ("lrugetput", "lru"),
];

/// How rows of the two files are paired.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MatchBy {
    /// Benchmark name, threads and parameters, exactly.
    #[default]
    Exact,
    /// Folded workload name and threads; parameters only where both sides
    /// have them.
    Workload,
}

/// The folded workload name of a benchmark: its last dotted component,
/// lower case, letters and digits only, peer names mapped to the lab's.
fn workload(benchmark: &str) -> String {
    let last = benchmark.rsplit('.').next().unwrap_or(benchmark);
    let folded: String = last
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    match PEER_WORKLOADS.iter().find(|(peer, _)| *peer == folded) {
        Some((_, ours)) => ours.to_string(),
        None => folded,
    }
}

impl MatchBy {
    /// Whether `b` and `c` are the same row under this rule.
    fn pairs(self, b: &BenchResult, c: &BenchResult) -> bool {
        match self {
            MatchBy::Exact => b.key() == c.key(),
            MatchBy::Workload => {
                b.threads == c.threads
                    && workload(&b.benchmark) == workload(&c.benchmark)
                    && b.params
                        .iter()
                        .all(|(k, v)| c.params.get(k).is_none_or(|cv| cv == v))
            }
        }
    }

    /// The row's label in the table.
    fn label(self, b: &BenchResult, c: Option<&BenchResult>) -> String {
        match self {
            MatchBy::Exact => b.key(),
            MatchBy::Workload => {
                let mut params: BTreeMap<&str, &str> = BTreeMap::new();
                for r in std::iter::once(b).chain(c) {
                    for (k, v) in &r.params {
                        params.entry(k).or_insert(v);
                    }
                }
                let params: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!(
                    "{} [threads={}] {}",
                    workload(&b.benchmark),
                    b.threads,
                    params.join(",")
                )
                .trim_end()
                .to_string()
            }
        }
    }
}

/// A unit JMH writes: time per operation or operations per time, with the
/// time in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Unit {
    /// `<time>/op` (also a bare time such as `ns`: one operation).
    TimePerOp(f64),
    /// `ops/<time>`.
    OpsPerTime(f64),
}

fn seconds(time: &str) -> Option<f64> {
    Some(match time {
        "ns" => 1e-9,
        "us" | "µs" | "μs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "min" => 60.0,
        _ => return None,
    })
}

impl Unit {
    fn parse(unit: &str) -> Option<Unit> {
        match unit.trim().split_once('/') {
            Some(("ops", t)) => seconds(t).map(Unit::OpsPerTime),
            Some((t, "op")) => seconds(t).map(Unit::TimePerOp),
            None => seconds(unit.trim()).map(Unit::TimePerOp),
            _ => None,
        }
    }

    /// The factor that turns a value in `self` into one in `to`, if both
    /// measure the same thing.
    fn factor_to(self, to: Unit) -> Option<f64> {
        match (self, to) {
            (Unit::TimePerOp(a), Unit::TimePerOp(b)) => Some(a / b),
            (Unit::OpsPerTime(a), Unit::OpsPerTime(b)) => Some(b / a),
            _ => None,
        }
    }
}

/// Which side is better, if the intervals say so.
fn better(b: &BenchResult, bs: f64, be: f64, cs: f64, ce: f64) -> &'static str {
    if !bs.is_finite() || !cs.is_finite() {
        // JMH writes a score it could not compute as "NaN": nothing to rank.
        return "n/a";
    }
    // An error JMH could not compute (one iteration, a derived figure):
    // the difference cannot be told from noise.
    if !be.is_finite() || !ce.is_finite() {
        return "no error";
    }
    if (cs - bs).abs() <= be.abs() + ce.abs() {
        "same"
    } else if (cs > bs) == b.mode.higher_is_better() {
        "change"
    } else {
        "baseline"
    }
}

/// The result of pairing two files: the table, and what the user should be
/// told about rows that did not pair.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// baseline, change, % and "better" per row.
    pub table: Table,
    /// Rows compared (paired, units compatible).
    pub compared: usize,
    /// Baseline rows with no partner in the change file.
    pub only_baseline: usize,
    /// Change rows with no partner in the baseline file.
    pub only_change: usize,
    /// Paired rows whose units measure different things (time against
    /// throughput, or a unit this reader does not know).
    pub incompatible_units: usize,
    /// Median over the compared rows (with errors) of the two intervals'
    /// half-widths added, as a percentage of the baseline score: the
    /// smallest change the comparison can tell from noise. NaN when no row
    /// has errors.
    pub resolution_percent: f64,
    /// Paired rows with no error estimate on a side, not judged.
    pub unjudged: usize,
}

/// A comparison whose median row cannot see a change below this (in %) is
/// too coarse for the few-percent effects most changes have.
pub const COARSE_PERCENT: f64 = 5.0;

impl Comparison {
    /// What went unpaired, in sentences for stderr; empty when every row
    /// paired.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if self.only_baseline + self.only_change > 0 {
            w.push(format!(
                "{} baseline row(s) and {} change row(s) have no partner (listed as \"(missing)\")",
                self.only_baseline, self.only_change
            ));
        }
        if self.incompatible_units > 0 {
            w.push(format!(
                "{} paired row(s) have units that measure different things (\"units differ\")",
                self.incompatible_units
            ));
        }
        if self.resolution_percent > COARSE_PERCENT {
            w.push(format!(
                "the intervals are wide: the median row can only tell a change of more than {:.0}% from noise, so a change of a few percent reads `same`; compare full runs (no --quick), on a quiet machine",
                self.resolution_percent
            ));
        }
        if self.unjudged > 0 {
            w.push(format!(
                "{} paired row(s) have no error estimate and are not judged (\"no error\")",
                self.unjudged
            ));
        }
        if self.compared == 0 {
            w.push(
                "no row was compared: are these results of the same experiment? \
                 (--by-workload pairs a fastpath run with its HotSpot peer from peers/jvm)"
                    .to_string(),
            );
        }
        w
    }
}

/// Builds the comparison table of `baseline` against `change`, rows matched
/// exactly.
pub fn compare(baseline: &[BenchResult], change: &[BenchResult]) -> Table {
    compare_by(baseline, change, MatchBy::Exact)
}

/// Builds the comparison table of `baseline` against `change`, rows matched
/// by `by` (see [`pair`] for the counts behind it).
pub fn compare_by(baseline: &[BenchResult], change: &[BenchResult], by: MatchBy) -> Table {
    pair(baseline, change, by).table
}

/// Pairs the rows of `baseline` and `change` by `by` and compares each pair.
pub fn pair(baseline: &[BenchResult], change: &[BenchResult], by: MatchBy) -> Comparison {
    let mut t = Table::new(
        "compare: baseline vs change",
        &["benchmark", "unit", "baseline", "change", "%", "better"],
    );
    let mut cmp = Comparison {
        table: Table::default(),
        compared: 0,
        only_baseline: 0,
        only_change: 0,
        incompatible_units: 0,
        resolution_percent: f64::NAN,
        unjudged: 0,
    };
    let mut resolutions = Vec::new();
    let mut change_paired = vec![false; change.len()];
    for b in baseline {
        let candidates: Vec<usize> = (0..change.len()).filter(|&i| by.pairs(b, &change[i])).collect();
        // A partner with exactly the same parameters beats one that merely
        // lacks some.
        let exact: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&i| change[i].params == b.params)
            .collect();
        let partners = if exact.is_empty() { candidates } else { exact };
        if partners.is_empty() {
            cmp.only_baseline += 1;
            t.row(vec![
                by.label(b, None),
                b.primary_metric.score_unit.clone(),
                num(b.primary_metric.score),
                "(missing)".into(),
                "n/a".into(),
                String::new(),
            ]);
        }
        for i in partners {
            change_paired[i] = true;
            let c = &change[i];
            let (bu, cu) = (&b.primary_metric.score_unit, &c.primary_metric.score_unit);
            let factor = if bu == cu {
                Some(1.0)
            } else {
                Unit::parse(cu)
                    .zip(Unit::parse(bu))
                    .and_then(|(c, b)| c.factor_to(b))
            };
            let Some(factor) = factor else {
                // Time against throughput, or a unit not known here: a ratio
                // of the raw scores would be meaningless.
                cmp.incompatible_units += 1;
                t.row(vec![
                    by.label(b, Some(c)),
                    format!("{bu} vs {cu}"),
                    num(b.primary_metric.score),
                    num(c.primary_metric.score),
                    "n/a".into(),
                    "units differ".into(),
                ]);
                continue;
            };
            cmp.compared += 1;
            let (bs, be) = (b.primary_metric.score, b.primary_metric.score_error);
            let (cs, ce) = (
                c.primary_metric.score * factor,
                c.primary_metric.score_error * factor,
            );
            let unit = if bu == cu {
                bu.clone()
            } else {
                format!("{bu} (change from {cu})")
            };
            let verdict = better(b, bs, be, cs, ce);
            if verdict == "no error" {
                cmp.unjudged += 1;
            } else if bs != 0.0 && bs.is_finite() {
                resolutions.push((be.abs() + ce.abs()) / bs.abs() * 100.0);
            }
            let pct = percent(cs, bs);
            t.row(vec![
                by.label(b, Some(c)),
                unit,
                format!("{} ± {}", num(bs), num(be)),
                format!("{} ± {}", num(cs), num(ce)),
                // A % inside the errors is noise: flagged, not hidden.
                if verdict == "same" && pct != "n/a" {
                    format!("~{pct}")
                } else {
                    pct
                },
                verdict.to_string(),
            ]);
        }
    }
    for (c, paired) in change.iter().zip(change_paired) {
        if !paired {
            cmp.only_change += 1;
            t.row(vec![
                by.label(c, None),
                c.primary_metric.score_unit.clone(),
                "(missing)".into(),
                num(c.primary_metric.score),
                "n/a".into(),
                String::new(),
            ]);
        }
    }
    if !resolutions.is_empty() {
        resolutions.sort_by(f64::total_cmp);
        cmp.resolution_percent = resolutions[resolutions.len() / 2];
    }
    t.note("% is change against baseline; \"better\" follows the mode (lower time, higher throughput)");
    t.note("\"same\": the two 99.9% confidence intervals (score ± error) overlap (its % marked ~: within the noise); \"no error\": a side has no error estimate, not judged");
    super::perfnorm_diff::append(&mut t, baseline, change, |b, c| by.pairs(b, c));
    strip_common_prefix(&mut t);
    cmp.table = t;
    cmp
}

/// Moves the dotted prefix every row's label shares (`fastpath.lock.`)
/// into the title, so that the table is that much narrower.
fn strip_common_prefix(t: &mut Table) {
    let Some(first) = t.rows.first().map(|r| r[0].clone()) else {
        return;
    };
    let mut len = first.len();
    for r in &t.rows {
        len = len.min(
            first
                .bytes()
                .zip(r[0].bytes())
                .take_while(|(a, b)| a == b)
                .count(),
        );
    }
    // Back to the last dot inside the shared part, and only before the
    // first space (the benchmark name, not its parameters).
    let head = &first[..len];
    let head = &head[..head.find(' ').unwrap_or(head.len())];
    let Some(dot) = head.rfind('.') else {
        return;
    };
    let prefix = first[..=dot].to_string();
    for r in &mut t.rows {
        r[0] = r[0][prefix.len()..].to_string();
    }
    t.title = format!("{} ({prefix}…)", t.title);
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
        peer.primary_metric.score_unit = "ops/s".into();
        let c = pair(&[ours], &[peer], MatchBy::Workload);
        assert_eq!(c.table.rows[0][5], "units differ");
        assert_eq!(c.incompatible_units, 1);
        assert_eq!(c.compared, 0);
    }

    fn with_error(mut r: BenchResult, error: f64) -> BenchResult {
        r.primary_metric.score_error = error;
        r
    }

    #[test]
    fn a_difference_inside_the_error_bars_is_same() {
        let a = with_error(r("a", 100.0, Mode::AverageTime), 1.0);
        let b = with_error(r("a", 99.9, Mode::AverageTime), 1.0);
        let t = compare(std::slice::from_ref(&a), &[b]);
        assert_eq!(t.rows[0][4], "~-0.1%", "a % within the noise is flagged");
        assert_eq!(t.rows[0][5], "same");
        // Outside both intervals it names a winner again.
        let far = with_error(r("a", 97.0, Mode::AverageTime), 1.0);
        assert_eq!(compare(&[a], &[far]).rows[0][5], "change");
    }

    #[test]
    fn units_of_the_same_kind_are_converted() {
        // The lab writes throughput in ops/s, JMH's SpinBench in ops/us.
        let ours = BenchResult::new(
            "spin",
            "handoff",
            Mode::Throughput,
            &Stats::from_samples(vec![2.0e6, 2.0e6]),
            "ops/s",
        )
        .threads(2);
        let mut peer = BenchResult::new(
            "x",
            "handoff",
            Mode::Throughput,
            &Stats::from_samples(vec![3.0, 3.0]),
            "ops/us",
        )
        .threads(2);
        peer.benchmark = "fastpath.peers.SpinBench.handoff".into();
        let c = pair(&[ours], &[peer], MatchBy::Workload);
        assert_eq!(c.compared, 1, "{:?}", c.table);
        let row = &c.table.rows[0];
        assert_eq!(row[1], "ops/s (change from ops/us)");
        assert!(row[3].starts_with("3.00M"), "{row:?}");
        assert_eq!(row[4], "+50.0%");
        assert_eq!(row[5], "change");
        // Time per op: 1.5 us/op is 1500 ns/op.
        let a = r("t", 1000.0, Mode::AverageTime);
        let mut b = r("t", 1.5, Mode::AverageTime);
        b.primary_metric.score_unit = "us/op".into();
        assert_eq!(compare(&[a], &[b]).rows[0][4], "+50.0%");
    }

    #[test]
    fn workload_matching_pairs_spin_rows_with_spinbench_and_keeps_params_apart() {
        let ours: Vec<BenchResult> = ["none", "pause"]
            .iter()
            .map(|s| {
                BenchResult::new(
                    "spin",
                    "latency",
                    Mode::AverageTime,
                    &Stats::from_samples(vec![5.0, 5.0]),
                    "ns/op",
                )
                .param("strategy", s)
            })
            .collect();
        let mut peer = r("onSpinWait", 40.0, Mode::AverageTime);
        peer.benchmark = "fastpath.peers.SpinBench.onSpinWait".into();
        let mut lru = BenchResult::new(
            "x",
            "lruGetPut",
            Mode::Throughput,
            &Stats::from_samples(vec![1.0]),
            "ops/us",
        )
        .threads(4);
        lru.benchmark = "fastpath.peers.SpinBench.lruGetPut".into();
        let our_lru = BenchResult::new(
            "spin",
            "lru",
            Mode::Throughput,
            &Stats::from_samples(vec![1e6]),
            "ops/s",
        )
        .threads(4)
        .param("strategy", "pause");
        let mut all_ours = ours.clone();
        all_ours.push(our_lru);
        let c = pair(&all_ours, &[peer, lru], MatchBy::Workload);
        assert_eq!(
            (c.compared, c.only_baseline, c.only_change),
            (3, 0, 0),
            "{:?}",
            c.table
        );
        let labels: Vec<&str> = c.table.rows.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(
            labels,
            [
                "latency [threads=1] strategy=none",
                "latency [threads=1] strategy=pause",
                "lru [threads=4] strategy=pause"
            ]
        );
        // The LRU rows have one sample each: no error estimate, not judged.
        assert_eq!(c.table.rows[2][5], "no error");
        assert_eq!(
            c.warnings(),
            ["1 paired row(s) have no error estimate and are not judged (\"no error\")"]
        );
    }

    /// A row with no error estimate is neutral whatever its %, and a
    /// comparison whose intervals are wider than a few percent says so.
    #[test]
    fn rows_without_errors_are_neutral_and_wide_intervals_are_named() {
        let a = BenchResult::new(
            "x",
            "r",
            Mode::AverageTime,
            &Stats::from_samples(vec![1.0]),
            "ns/op",
        );
        let b = BenchResult::new(
            "x",
            "r",
            Mode::AverageTime,
            &Stats::from_samples(vec![1.2]),
            "ns/op",
        );
        let c = pair(&[a], &[b], MatchBy::Exact);
        assert_eq!(c.table.rows[0][5], "no error");
        assert_eq!(c.unjudged, 1);
        assert!(c.resolution_percent.is_nan());
        // ±10% on each side: a 3% change cannot be seen.
        let a = with_error(r("w", 100.0, Mode::AverageTime), 10.0);
        let b = with_error(r("w", 103.0, Mode::AverageTime), 10.0);
        let c = pair(&[a], &[b], MatchBy::Exact);
        assert_eq!(c.table.rows[0][5], "same");
        assert!(
            (c.resolution_percent - 20.0).abs() < 1e-9,
            "{}",
            c.resolution_percent
        );
        assert!(
            c.warnings().iter().any(|w| w.contains("more than 20%")),
            "{:?}",
            c.warnings()
        );
        // ±0.5%: fine-grained enough, no warning.
        let a = with_error(r("w", 100.0, Mode::AverageTime), 0.5);
        let b = with_error(r("w", 103.0, Mode::AverageTime), 0.5);
        assert!(pair(&[a], &[b], MatchBy::Exact).warnings().is_empty());
    }

    #[test]
    fn unrelated_files_are_said_to_be_unrelated() {
        let c = pair(
            &[r("a", 1.0, Mode::AverageTime)],
            &[r("b", 1.0, Mode::AverageTime), r("c", 1.0, Mode::AverageTime)],
            MatchBy::Exact,
        );
        assert_eq!((c.compared, c.only_baseline, c.only_change), (0, 1, 2));
        let w = c.warnings().join("\n");
        assert!(w.contains("1 baseline row(s) and 2 change row(s)"), "{w}");
        assert!(w.contains("no row was compared"), "{w}");
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
            "ops/s",
        );
        let t = compare(&[a], &[b]);
        assert_eq!(t.rows.len(), 1);
        assert_eq!(t.rows[0][1], "ns/op vs ops/s");
        assert_eq!(t.rows[0][4], "n/a");
        assert_eq!(t.rows[0][5], "units differ");
    }
}
