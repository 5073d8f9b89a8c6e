//! The rule, the pairing and the warnings of `compare`, case by case.

use super::comparison::Comparison;
use super::estimate::Estimate;
use super::*;
use crate::report::jmh::{Metric, Mode};
use crate::stats::{median_interval, Stats, CONFIDENCE};

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
    // Paired exactly, nothing pairs: no table rows, both rows named.
    let exact = pair(
        std::slice::from_ref(&ours),
        std::slice::from_ref(&peer),
        MatchBy::Exact,
    );
    assert!(exact.table.rows.is_empty() && exact.unpaired_left_out);
    assert_eq!(exact.unpaired.len(), 2);
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
    // Outside both intervals but under the least change: same.
    let near = with_error(r("a", 97.0, Mode::AverageTime), 1.0);
    let c = pair(
        std::slice::from_ref(&a),
        std::slice::from_ref(&near),
        MatchBy::Exact,
    );
    assert_eq!(c.table.rows[0][5], "same");
    assert_eq!(c.table.rows[0][4], "~-3.0%");
    // With no least change it names a winner again.
    let any = Rule {
        min_change_percent: 0.0,
        ..Rule::default()
    };
    let c = pair_with(&[a], &[near], MatchBy::Exact, &any);
    assert_eq!(c.table.rows[0][5], "change");
    assert_eq!(c.moved, 1);
}

fn est(center: f64, lo: f64, hi: f64) -> Estimate {
    Estimate {
        center,
        lo,
        hi,
        median: false,
    }
}

/// The rule, case by case: moved only outside both intervals and by at
/// least the least change; the side named follows the mode.
#[test]
fn the_verdict_needs_disjoint_intervals_and_the_least_change() {
    let rule = Rule::default();
    let b = est(100.0, 99.0, 101.0);
    // 20% slower, tight intervals: moved, the baseline was better.
    assert_eq!(judge(&b, &est(120.0, 119.0, 121.0), false, &rule), "baseline");
    // The same figures as throughput: the change is better.
    assert_eq!(judge(&b, &est(120.0, 119.0, 121.0), true, &rule), "change");
    // 20% faster in time: the change is better.
    assert_eq!(judge(&b, &est(80.0, 79.0, 81.0), false, &rule), "change");
    // 20% apart but the intervals touch: same.
    assert_eq!(judge(&b, &est(120.0, 101.0, 140.0), false, &rule), "same");
    // Disjoint, but 9.9% < 10%: same; exactly 10%: moved.
    assert_eq!(judge(&b, &est(109.9, 109.0, 110.0), false, &rule), "same");
    assert_eq!(judge(&b, &est(110.0, 109.5, 110.5), false, &rule), "baseline");
    // The least change is relative to the baseline, either way.
    assert_eq!(judge(&b, &est(91.0, 90.5, 91.5), false, &rule), "same");
    assert_eq!(judge(&b, &est(89.0, 88.5, 89.5), false, &rule), "change");
    // A side without an interval is not judged, a NaN score ranks nothing.
    assert_eq!(
        judge(&b, &est(200.0, f64::NAN, f64::NAN), false, &rule),
        "no error"
    );
    assert_eq!(judge(&est(f64::NAN, 0.0, 1.0), &b, false, &rule), "n/a");
    // A zero baseline: any disjoint change is moved.
    assert_eq!(
        judge(&est(0.0, 0.0, 0.0), &est(1.0, 1.0, 1.0), false, &rule),
        "baseline"
    );
}

/// A result with raw samples `xs` (one fork).
fn raw(name: &str, xs: Vec<f64>) -> BenchResult {
    BenchResult::new("x", name, Mode::AverageTime, &Stats::from_samples(xs), "ns/op")
}

/// With 11 samples or more a side the medians and their intervals
/// judge, so a few preempted samples (a long tail that drags the mean
/// and its error) change nothing; with fewer, the means do.
#[test]
fn medians_judge_rows_with_enough_samples() {
    let steady: Vec<f64> = (0..60).map(|i| 10.0 + f64::from(i % 5) * 0.01).collect();
    let mut tail = steady.clone();
    for x in tail.iter_mut().step_by(10) {
        *x = 300.0;
    }
    let c = pair(&[raw("r", steady.clone())], &[raw("r", tail)], MatchBy::Exact);
    assert_eq!(c.table.rows[0][5], "same", "{:?}", c.table.rows[0]);
    assert_eq!(
        c.table.rows[0][2], "10.02 ± 0.010",
        "the median ± its interval's larger side"
    );
    // The same runs 20% slower: moved, though the tail is on the
    // baseline's side.
    let mut slow_tail: Vec<f64> = steady.iter().map(|x| x * 1.2).collect();
    slow_tail[3] = 1.0;
    let c = pair(&[raw("r", steady)], &[raw("r", slow_tail)], MatchBy::Exact);
    assert_eq!(c.table.rows[0][5], "baseline", "{:?}", c.table.rows[0]);
    assert_eq!(c.moved, 1);
    // Ten samples a side: the means (with their t intervals) judge.
    let few = pair(
        &[raw("r", vec![10.0; 10])],
        &[raw("r", vec![10.5; 10])],
        MatchBy::Exact,
    );
    assert_eq!(few.table.rows[0][2], "10.00 ± 0.000");
}

/// A row that spends stretches of its run at one level and stretches
/// at another (threads sharing CPUs with a neighbour for a while) and
/// a second run of it that spent more of its time at the other level:
/// independent-sample intervals would call the two 100% apart, but
/// the stretches leave few effective samples, the intervals span both
/// levels, and the row is `same`. A steady row 20% slower is still
/// moved.
#[test]
fn samples_in_stretches_are_judged_by_their_effective_number() {
    let stretches = |at_20: &[usize]| -> Vec<f64> {
        (0..10)
            .flat_map(|b| {
                let level = if at_20.contains(&b) { 20.0 } else { 10.0 };
                (0..6).map(move |i| level + 0.01 * f64::from(i))
            })
            .collect()
    };
    let mostly_10 = stretches(&[3, 7]);
    let mostly_20 = stretches(&[0, 1, 2, 4, 5, 6, 8, 9]);
    let sign_test = |xs: &[f64]| median_interval(xs, CONFIDENCE).unwrap();
    assert!(
        sign_test(&mostly_10).1 < sign_test(&mostly_20).0,
        "independent-sample intervals are disjoint"
    );
    let c = pair(
        &[raw("r", mostly_10.clone())],
        &[raw("r", mostly_20)],
        MatchBy::Exact,
    );
    assert_eq!(c.table.rows[0][5], "same", "{:?}", c.table.rows[0]);
    assert_eq!(c.moved, 0);

    let steady: Vec<f64> = (0..60).map(|i| 10.0 + f64::from(i % 7) * 0.01).collect();
    let slower: Vec<f64> = steady.iter().map(|x| x * 1.2).collect();
    let c = pair(&[raw("r", steady)], &[raw("r", slower)], MatchBy::Exact);
    assert_eq!(c.table.rows[0][5], "baseline", "{:?}", c.table.rows[0]);
}

/// Three rows slower together are named as possibly the machine's
/// doing; rows that moved both ways are not.
#[test]
fn rows_that_all_moved_one_way_are_named() {
    let steady = |k: f64| -> Vec<f64> { (0..60).map(|i| k * (10.0 + f64::from(i % 7) * 0.01)).collect() };
    let names = ["a", "b", "c"];
    let base: Vec<BenchResult> = names.iter().map(|n| raw(n, steady(1.0))).collect();
    let slow: Vec<BenchResult> = names.iter().map(|n| raw(n, steady(1.3))).collect();
    let c = pair(&base, &slow, MatchBy::Exact);
    assert_eq!((c.moved, c.moved_to_baseline), (3, 3));
    assert!(
        c.warnings()
            .iter()
            .any(|w| w.starts_with("all 3 moved rows favour the baseline")),
        "{:?}",
        c.warnings()
    );
    let mut mixed = slow.clone();
    mixed[1] = raw("b", steady(0.7));
    let c = pair(&base, &mixed, MatchBy::Exact);
    assert_eq!((c.moved, c.moved_to_baseline), (3, 2));
    assert!(
        !c.warnings().iter().any(|w| w.contains("moved rows favour")),
        "{:?}",
        c.warnings()
    );
}

/// One run of an interleaved table: per row (name, level), 60
/// samples, sample k taken in round k when the machine ran at
/// `machine(k)` times its speed, with a little noise of the row's own;
/// every row names `cas-pair` as its baseline row, as the lock pairs
/// table's do.
fn interleaved(rows: &[(&str, f64)], machine: impl Fn(usize) -> f64) -> Vec<BenchResult> {
    rows.iter()
        .enumerate()
        .map(|(j, (name, level))| {
            let xs: Vec<f64> = (0..60)
                .map(|k| level * machine(k) * (1.0 + 0.002 * ((k * 7 + j * 3) % 11) as f64))
                .collect();
            let ratio = Metric::single(1.0, "x");
            BenchResult::new("lock", name, Mode::AverageTime, &Stats::from_samples(xs), "ns/op")
                .param(
                    "mode",
                    if *name == "cas-pair" {
                        "baseline"
                    } else {
                        "lightweight"
                    },
                )
                .secondary("ratio_to_cas_pair", ratio.clone())
                .secondary("ratio_to_best_peer", ratio)
        })
        .collect()
}

const PAIRS: [(&str, f64); 4] = [
    ("cas-pair", 20.0),
    ("uncontended", 26.0),
    ("churn", 32.0),
    ("std-mutex", 40.0),
];

fn verdicts(c: &Comparison) -> Vec<(&str, &str)> {
    c.table
        .rows
        .iter()
        .map(|r| (r[0].split(' ').next().unwrap(), r[r.len() - 1].as_str()))
        .collect()
}

/// A second run 16% slower as a whole, every row alike: on their
/// own figures every row has moved; on their ratios to the CAS pair
/// none has, and the header states the shift.
#[test]
fn a_whole_run_shift_moves_no_row_judged_on_its_ratio() {
    let first = interleaved(&PAIRS, |_| 1.0);
    let slower = interleaved(&PAIRS, |_| 1.16);
    let c = pair(&first, &slower, MatchBy::Exact);
    assert_eq!(
        verdicts(&c),
        [
            ("cas-pair", "reference"),
            ("uncontended", "same"),
            ("churn", "same"),
            ("std-mutex", "same")
        ],
        "{}",
        c.table.to_text()
    );
    assert_eq!((c.moved, c.compared, c.unjudged), (0, 4, 0));
    assert_eq!(
        c.table.headers,
        [
            "benchmark",
            "unit",
            "baseline",
            "change",
            "%",
            "ratio %",
            "better"
        ]
    );
    // The row's own change stays in %, unmarked; the judged ratio's in
    // `ratio %`, marked as noise.
    let churn = &c.table.rows[2];
    assert_eq!(churn[4], "+16.0%");
    assert!(
        churn[5].starts_with('~') && churn[5].ends_with("0.0%"),
        "{churn:?}"
    );
    assert_eq!(c.table.rows[0][5], "-");
    assert_eq!(
        c.header(),
        ["whole-run shift: baseline row cas-pair +16.0% (beyond its intervals and the least change); verdicts on ratios to it too: 3 row(s) moved only if both % and `ratio %` moved"]
    );
    assert_eq!(
        c.warnings(),
        ["the baseline row cas-pair moved +16.0%, beyond the noise: the whole run ran at another speed; a row is called moved only if its ratio to cas-pair moved and its own figure changed by the least change too, so a change of a row that this shift offsets reads `same`; repeat both runs before trusting a `same`"]
    );
    // --raw: the old verdicts, every row moved, and the header says so.
    let raw = Rule {
        raw: true,
        ..Rule::default()
    };
    let r = pair_with(&first, &slower, MatchBy::Exact, &raw);
    assert_eq!(r.table.headers.len(), 6, "no ratio column under --raw");
    assert_eq!((r.moved, r.moved_to_baseline), (3, 3));
    assert_eq!(verdicts(&r)[0], ("cas-pair", "reference"));
    assert_eq!(
        r.header(),
        ["whole-run shift: baseline row cas-pair +16.0% (beyond its intervals and the least change); verdicts on each row's own figures (--raw), this shift included"]
    );
    // No shift at all: the header says it is within the noise.
    let again = pair(&first, &first, MatchBy::Exact);
    assert!(again.header()[0].contains("cas-pair +0.0% (within the noise)"));
    assert!(again.warnings().is_empty(), "{:?}", again.warnings());
}

/// A row 30% slower against its baseline row, in a run that is also
/// 16% slower as a whole, is moved (to the baseline's side), and a row
/// 30% faster in a run without a shift is moved the other way; a row
/// that the shift passed by (its own figure unchanged, its ratio 14%
/// lower: churn and contended-2t in a real shift) is `same`, as are
/// the rows that followed the shift.
#[test]
fn a_row_that_moves_against_its_baseline_row_is_moved() {
    let first = interleaved(&PAIRS, |_| 1.0);
    let mut rows = PAIRS;
    rows[1].1 *= 1.3;
    rows[3].1 /= 1.16;
    let changed = interleaved(&rows, |_| 1.16);
    let c = pair(&first, &changed, MatchBy::Exact);
    assert_eq!(
        verdicts(&c),
        [
            ("cas-pair", "reference"),
            ("uncontended", "baseline"),
            ("churn", "same"),
            ("std-mutex", "same")
        ],
        "{}",
        c.table.to_text()
    );
    assert_eq!(
        (c.table.rows[1][4].as_str(), c.table.rows[1][5].as_str()),
        ("+50.8%", "+30.0%")
    );
    // std-mutex: its own figure ~0%, its ratio -13.8%, moved alone.
    let std = &c.table.rows[3];
    assert!(std[4].starts_with('~') && std[4].ends_with("0.0%"), "{std:?}");
    assert_eq!(std[5], "-13.8%");
    assert_eq!((c.moved, c.moved_to_baseline), (1, 1));

    let mut rows = PAIRS;
    rows[2].1 *= 0.7;
    let c = pair(&first, &interleaved(&rows, |_| 1.0), MatchBy::Exact);
    assert_eq!(verdicts(&c)[2], ("churn", "change"), "{}", c.table.to_text());
    assert_eq!(
        (c.table.rows[2][4].as_str(), c.table.rows[2][5].as_str()),
        ("-30.0%", "-30.0%")
    );
    assert_eq!((c.moved, c.moved_to_baseline), (1, 0));
}

/// Moved only when the ratio moved and the row's own figure moved by
/// the least change, the same way; other verdicts carry over.
#[test]
fn a_ratio_that_moved_needs_the_rows_own_change() {
    let rule = Rule::default();
    assert!(own_followed(30.0, 30.0, &rule));
    assert!(own_followed(-10.0, -25.0, &rule));
    assert!(!own_followed(9.9, 30.0, &rule), "under the least change");
    assert!(!own_followed(-15.0, 15.0, &rule), "the other way");
    assert!(!own_followed(f64::NAN, 15.0, &rule));
    assert_eq!(with_own_change("baseline", true), "baseline");
    assert_eq!(with_own_change("change", true), "change");
    assert_eq!(with_own_change("baseline", false), "same");
    assert_eq!(with_own_change("change", false), "same");
    assert_eq!(with_own_change("same", true), "same");
    assert_eq!(with_own_change("no error", false), "no error");
    assert_eq!(with_own_change("n/a", true), "n/a");
}

/// Samples taken side by side share the machine's state: a run whose
/// machine ran at two speeds in stretches (rounds 20-39 20% slower)
/// leaves each row's own interval wide, the per-round ratios' narrow.
/// Without samples to pair, the ratio's interval is the quotient of
/// the two intervals, wider than either.
#[test]
fn the_ratios_interval_pairs_samples_of_one_round() {
    let run = interleaved(&PAIRS[..2], |k| if (20..40).contains(&k) { 1.2 } else { 1.0 });
    let (base, row) = (&run[0].primary_metric, &run[1].primary_metric);
    let own = Estimate::of(row, 1.0);
    let paired = Estimate::ratio(row, base);
    assert!(paired.median);
    let rel = |e: &Estimate| (e.hi - e.lo) / e.center;
    assert!(
        rel(&paired) < rel(&own) / 5.0,
        "paired {paired:?} against the row's own {own:?}"
    );
    assert!((paired.center - 1.3).abs() < 0.01, "{paired:?}");
    // Unequal sample counts: nothing to pair.
    let mut short = run[1].primary_metric.clone();
    short.raw_data[0].truncate(50);
    let q = Estimate::ratio(&short, base);
    assert!(!q.median);
    let (x, b) = (Estimate::of(&short, 1.0), Estimate::of(base, 1.0));
    assert_eq!((q.lo, q.hi), (x.lo / b.hi, x.hi / b.lo));
    assert!(rel(&q) > rel(&x) && rel(&q) > rel(&b), "{q:?}");
    // A baseline without an error estimate: the ratio has none.
    let one = Metric::single(20.0, "ns/op");
    let single = Metric::single(26.0, "ns/op");
    assert!(Estimate::ratio(&single, &one).lo.is_nan());
}

/// Rows with no baseline row in their run are judged on their own
/// figures: in a file without one, exactly as before (no ratio column,
/// no header); beside rows that have one, with `-` for a ratio and a
/// header line that counts them. A run whose baseline row is missing
/// from the other run judges every row on its own figures.
#[test]
fn a_baseline_row_is_named_by_workload_and_thread_count_or_by_a_parameter_value() {
    // The contended table: one peer row per thread count.
    let sample = |name: &str, threads: u32, lock: &str, level: f64, ratio_to: &str| {
        let xs: Vec<f64> = (0..20).map(|k| level * (1.0 + 0.001 * (k % 5) as f64)).collect();
        BenchResult::new("lock", name, Mode::Throughput, &Stats::from_samples(xs), "ops/us")
            .param("lock", lock)
            .threads(threads)
            .secondary(ratio_to, Metric::single(1.0, "x"))
    };
    let run = |level: f64| {
        let mut rows = Vec::new();
        for t in [1, 2, 4] {
            let peer = "ratio_to_short-cs-parking-lot";
            rows.push(sample("short-cs", t, "fastpath", level * 30.0 / t as f64, peer));
            rows.push(sample(
                "short-cs-parking-lot",
                t,
                "parking_lot::Mutex",
                level * 28.0 / t as f64,
                peer,
            ));
        }
        rows
    };
    let rows = run(1.0);
    for r in &rows {
        let base = baseline_row(&rows, r).expect("a baseline row");
        assert_eq!(base.benchmark, "fastpath.lock.short-cs-parking-lot");
        assert_eq!(base.threads, r.threads);
    }
    // Each thread count's peer moved alike with its own rows: no row moved,
    // three baseline rows summarised in one line.
    let c = pair(&rows, &run(1.3), MatchBy::Exact);
    assert_eq!(c.moved, 0, "{}", c.table.to_text());
    assert_eq!(c.shifts.len(), 3);
    assert_eq!(c.header().len(), 1, "{:?}", c.header());
    assert!(
        c.header()[0].starts_with("whole-run shifts seen by 3 baseline rows"),
        "{:?}",
        c.header()
    );
    assert!(c.shifts[1].row.contains("[threads=2]"), "{:?}", c.shifts);

    // The workloads table: `ratio_to_legacy` names the row of the same
    // workload whose mode is `legacy`.
    let mode_row = |mode: &str| {
        BenchResult::new(
            "lock",
            "monitor-bench",
            Mode::AverageTime,
            &Stats::from_samples(vec![5.0; 20]),
            "ns/op",
        )
        .param("mode", mode)
        .threads(2)
        .secondary("ratio_to_legacy", Metric::single(1.0, "x"))
    };
    let rows = vec![mode_row("legacy"), mode_row("lightweight"), mode_row("monitor")];
    for r in &rows {
        assert_eq!(baseline_row(&rows, r).unwrap().params["mode"], "legacy");
    }
    // A name that is neither a row nor a value names nothing.
    let r = rows[1]
        .clone()
        .secondary("ratio_to_best_peer", Metric::single(1.0, "x"));
    let mut only_peer = r.clone();
    only_peer
        .secondary_metrics
        .retain(|k, _| k == "ratio_to_best_peer");
    assert!(baseline_row(&rows, &only_peer).is_none());
}

#[test]
fn rows_without_a_baseline_row_are_judged_on_their_own_figures() {
    let strip = |mut rows: Vec<BenchResult>| {
        for r in &mut rows {
            r.secondary_metrics.clear();
        }
        rows
    };
    let first = strip(interleaved(&PAIRS, |_| 1.0));
    let slower = strip(interleaved(&PAIRS, |_| 1.16));
    let c = pair(&first, &slower, MatchBy::Exact);
    assert!(c.header().is_empty());
    assert_eq!(c.table.headers.len(), 6);
    assert_eq!(c.moved, 4, "{}", c.table.to_text());

    // One row of a table that has a baseline row does not name it.
    let mut first = interleaved(&PAIRS, |_| 1.0);
    let mut slower = interleaved(&PAIRS, |_| 1.16);
    for run in [&mut first, &mut slower] {
        run[3].secondary_metrics.clear();
    }
    let c = pair(&first, &slower, MatchBy::Exact);
    assert_eq!(c.table.rows[3][5], "-");
    assert_eq!(c.table.rows[3][6], "baseline", "{}", c.table.to_text());
    assert_eq!(c.without_baseline, 1);
    assert_eq!(
        c.header()[1],
        "1 row(s) have no baseline row in their run and are judged on their own figures (`ratio %` is -), which a whole-run shift moves too"
    );
    assert!(c.header()[0].contains("verdicts on ratios to it too: 2 row(s)"));

    // The change run lacks the baseline row: nothing to take ratios to.
    let first = interleaved(&PAIRS, |_| 1.0);
    let slower = interleaved(&PAIRS[1..], |_| 1.16);
    let c = pair(&first, &slower, MatchBy::Exact);
    assert!(c.header().is_empty());
    assert_eq!(c.table.headers.len(), 6);
    assert_eq!((c.moved, c.only_baseline), (3, 1));
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
            "latency / onSpinWait [threads=1] strategy=none",
            "latency / onSpinWait [threads=1] strategy=pause",
            "lru / lruGetPut [threads=4] strategy=pause"
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

/// Paired by workload, the lab's rows without a HotSpot peer are left out
/// of the table and named in one warning; the lab's side keeps the median
/// its own table printed (60 samples) beside JMH's score (3 iterations).
#[test]
fn by_workload_leaves_unpaired_rows_out_and_keeps_each_sides_own_estimate() {
    let skewed: Vec<f64> = (0..60).map(|i| if i % 3 == 0 { 40.0 } else { 20.0 }).collect();
    let ours = BenchResult::new(
        "lock",
        "cas-pair",
        Mode::AverageTime,
        &Stats::from_samples(skewed),
        "ns/op",
    );
    let lonely: Vec<BenchResult> = ["churn", "monitor-churn"]
        .iter()
        .map(|n| raw(n, vec![30.0; 60]))
        .collect();
    let mut peer = BenchResult::new(
        "x",
        "casPair",
        Mode::AverageTime,
        &Stats::from_samples(vec![21.0, 22.0, 23.0]),
        "ns/op",
    );
    peer.benchmark = "fastpath.peers.LockBench.casPair".into();
    let mut base = vec![ours];
    base.extend(lonely);
    let c = pair(&base, &[peer], MatchBy::Workload);
    assert_eq!((c.compared, c.only_baseline), (1, 2));
    assert_eq!(c.table.rows.len(), 1, "{}", c.table.to_text());
    let row = &c.table.rows[0];
    assert!(row[0].starts_with("cas-pair / casPair"), "{row:?}");
    assert!(
        row[2].starts_with("20.00 ±"),
        "the lab's median, not its mean 26.67: {row:?}"
    );
    assert!(row[3].starts_with("22.00 ±"), "JMH's score: {row:?}");
    let w = c.warnings().join("\n");
    assert!(
        w.contains("left out of the table") && w.contains("churn") && w.contains("monitor-churn"),
        "{w}"
    );
}
