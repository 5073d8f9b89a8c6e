//! The README's first comparison, on the pairs table: two quick runs of
//! this build (`fastpath lock --quick --only pairs --out …`), then
//! `fastpath compare`, which must call every single-threaded row `same`
//! and the CAS pair, the rows' baseline row, `reference`; then the first
//! run with a 20% slowdown written into its rows (not into the CAS pair),
//! which `compare` must report as moved wherever the rows' ratios to the
//! CAS pair can see it; and the first run with every row 16% slower, a
//! shift of the whole run, which must move nothing and be stated in the
//! header (the unit tests of `report::compare` do the same on samples).
//!
//! What it can honestly assert on a loaded 2-CPU machine: the
//! single-threaded rows are each one thread timing itself in short
//! interleaved samples, round by round beside the CAS pair, and `compare`
//! calls a row moved only when its ratio to the CAS pair (the median of
//! its per-round ratios) moved and its own figure changed by at least the
//! least change, the same way. A process that runs faster or slower as a
//! whole (the CAS pair at 17.4 against 21.2 ns, a state of the host that
//! holds for seconds) moves most rows with the CAS pair, which leaves
//! their ratios, and passes some by (`churn`, `contended-2t`), which
//! leaves their own figures: either way no row moves, with address-space
//! randomisation or
//! without. So every row that is not [`UNASSERTED`] must say `same`
//! ([`MAY_MOVE`] is 0), with `compare`'s least change, 10%, as the margin
//! for what one process fixes for one row and not for another (where its
//! code and data sit). The one two-thread row, `contended-2t`, times how
//! two threads share two vCPUs that other processes also use: its samples
//! come in stretches, and `compare`'s interval, which counts the samples'
//! serial dependence, is as wide as that makes it; it must be judged, and
//! its verdict is printed, not asserted. The two recursive rows' verdicts
//! (1.0–1.9 ns, a handful of cycles) are not asserted: one cycle more or
//! less between two processes is 15–20% of them (parking-lot-reentrant-
//! recursive came out 1.42, 1.63, 1.70 and 1.88 ns in different processes
//! of one build at load 2–13), and in a whole-run shift they move about
//! twice as much as the CAS pair (-38% against -18%), past both tests;
//! they too must pair and be judged, and the 20% slowdown must still show
//! wherever their intervals allow. `monitor-churn` is judged and printed
//! too, not asserted: its time is the allocator's as much as the lock's
//! (see [`UNASSERTED`]). Where the host changes state between two runs,
//! the pair of runs is repeated, as `compare` tells a user ([`ATTEMPTS`]).
//! And the slowdown must show on some rows
//! at least: intervals so wide that nothing could move would pass the
//! first half vacuously.

mod common;

use common::{fastpath, scratch, SINGLE_THREADED_PAIRS as SINGLE_THREADED};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use fastpath_lab::report::jmh::{self, BenchResult, Metric};
use fastpath_lab::stats::{serial_median_interval, CONFIDENCE};

/// How many of the single-threaded rows asserted (neither the CAS pair nor
/// [`UNASSERTED`]) may move between two runs of one build: none. Over 520
/// pairs of quick runs on a 2-vCPU guest at load 1.2–2.9 (70 pairs of
/// runs back to back and 450 pairs drawn from the same 140 runs; 100 runs
/// with address-space randomisation, 40 without; the CAS pair 12% or more
/// apart in 113 pairs), `compare`'s rule moved none of them (it moved
/// `monitor-churn`, now in [`UNASSERTED`], in two pairs), where the ratios
/// alone moved 34 rows and the rows' own figures alone 278 (in 75 pairs).
const MAY_MOVE: usize = 0;

/// Whether the verdicts that depend on how steady this build's timings are
/// (how many rows move between two runs, and how many a 20% slowdown shows
/// through) are asserted: in the release build the README's walk-through
/// runs, which CI tests (`cargo test --release ... --test walkthrough` in
/// .ci/run). A debug build's quick runs were seen to drift in slow waves
/// within one run (cas-pair 40 -> 47 -> 40 ns), which widens every
/// interval at once; there the test asserts what does not depend on it:
/// every row pairs and is judged, each row's verdict on the slowdown is
/// the one its own ratio's interval gives, and a whole-run shift moves
/// nothing.
const TIMING_ASSERTED: bool = !cfg!(debug_assertions);

/// The threaded row, held to the same allowance without a bound on its %.
const THREADED: &str = "contended-2t";

/// The least number of rows whose intervals must be narrow enough for the
/// 20% slowdown to show: the three steadiest (churn and the two mutex
/// peers) stayed that narrow at load 11.
const MUST_SEE_SLOWDOWN: usize = 2;

/// Rows whose same-build verdict is judged and printed, not asserted:
/// the two of a few cycles (see the module's docs); `monitor-churn`,
/// whose time is mostly the allocator's (a monitor allocated, registered
/// and freed per pair), which differs per process where one process's
/// heap sits: it was the only row the rule moved in the 520 pairs below
/// (-25.6% and +35.2% on its own figure), and CI saw it at 40.2 against
/// 56.2 ns in two back-to-back quick runs (+38.4% on its ratio) with
/// every other row within 2%.
const UNASSERTED: [&str; 3] = ["recursive", "parking-lot-reentrant-recursive", "monitor-churn"];

/// `fastpath lock --quick --only pairs --out dir`, its JSON file.
fn quick_pairs(dir: &Path) -> PathBuf {
    let out = fastpath()
        .args(["lock", "--quick", "--only", "pairs", "--out"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    dir.join("lock.json")
}

/// One row of `compare`'s table: its cells split on whitespace runs.
struct Row {
    baseline: (f64, f64),
    change: (f64, f64),
    /// The change of the row's ratio to its run's CAS pair, in %, which
    /// the verdict judges (NaN for `-`: not judged on a ratio).
    ratio_percent: f64,
    verdict: String,
}

/// `fastpath compare a b`: each compared row by its benchmark name (the
/// first cell), the whole-run shift's header line, and the whole output
/// for messages.
fn compare(a: &Path, b: &Path) -> (BTreeMap<String, Row>, String, String) {
    let out = fastpath().arg("compare").arg(a).arg(b).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let text = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{text}");
    // `name [threads=N] mode=M  ns/op  a ± e  b ± e  %  ratio %  verdict`
    let cell = |v: &[&str], i: usize| -> (f64, f64) {
        (
            v[i].parse().unwrap_or(f64::NAN),
            v[i + 2].parse().unwrap_or(f64::NAN),
        )
    };
    let rows = stdout
        .lines()
        .filter(|l| l.contains(" [threads="))
        .map(|l| {
            let v: Vec<&str> = l.split_whitespace().collect();
            let ratio = v[v.len() - 2].trim_start_matches('~').trim_end_matches('%');
            let row = Row {
                baseline: cell(&v, 4),
                change: cell(&v, 7),
                ratio_percent: ratio.parse().unwrap_or(f64::NAN),
                verdict: v[v.len() - 1].to_string(),
            };
            (v[0].to_string(), row)
        })
        .collect();
    let header = stdout
        .lines()
        .find(|l| l.starts_with("whole-run shift: "))
        .unwrap_or_else(|| panic!("no whole-run shift line:\n{text}"))
        .to_string();
    (rows, header, text)
}

/// Every figure of `m` multiplied by `k`: the same run, `k` times slower.
fn scale(m: &mut Metric, k: f64) {
    m.score *= k;
    m.score_error *= k;
    m.score_confidence.iter_mut().for_each(|x| *x *= k);
    m.score_percentiles.values_mut().for_each(|x| *x *= k);
    m.raw_data.iter_mut().flatten().for_each(|x| *x *= k);
}

/// The raw samples of `r`, in the order the run took them.
fn samples(r: &BenchResult) -> Vec<f64> {
    r.primary_metric.raw_data.iter().flatten().copied().collect()
}

/// What two runs of one build must show: the CAS pair as `reference`,
/// every single-threaded row judged on its ratio to it too, and (where
/// [`TIMING_ASSERTED`]) at most [`MAY_MOVE`] of the rows that are not
/// [`UNASSERTED`] moved, each by less than 30% of its ratio. `Err` says
/// which rule failed, with the comparison.
fn same_build_verdicts(rows: &BTreeMap<String, Row>, text: &str) -> Result<Vec<&'static str>, String> {
    let mut moved = Vec::new();
    for name in SINGLE_THREADED {
        let row = rows
            .get(name)
            .unwrap_or_else(|| panic!("{name} not compared:\n{text}"));
        if name == "cas-pair" {
            assert_eq!(row.verdict, "reference", "the baseline row: {text}");
            continue;
        }
        assert!(
            ["same", "change", "baseline"].contains(&row.verdict.as_str()) && row.ratio_percent.is_finite(),
            "{name} is judged on its ratio to cas-pair: {text}"
        );
        if row.verdict != "same" && !UNASSERTED.contains(&name) {
            if TIMING_ASSERTED && row.ratio_percent.abs() >= 30.0 {
                return Err(format!("{name} moved {:+.1}%:\n{text}", row.ratio_percent));
            }
            moved.push(name);
        }
    }
    if TIMING_ASSERTED && moved.len() > MAY_MOVE {
        return Err(format!("{moved:?} moved between two runs of one build:\n{text}"));
    }
    Ok(moved)
}

/// How many pairs of quick runs the test may take before the same-build
/// verdicts and the 20% slowdown's visibility must hold: what `compare`
/// tells a user whose two runs of one build differ ("repeat both runs").
/// A host state that holds for one run and not the next fails a pair. On
/// the Zen 3 guest of 1 Dec 2026 a vCPU ran for minutes in a slow state (a
/// busy neighbour on its core, by the pattern) that the recursive pairs,
/// `churn` and `monitor-mode` felt more than the CAS pair: pinned there
/// (`taskset -c 0`), the CAS pair 6.30–6.32 ns, recursive 3.8, churn
/// 6.9–7.1, monitor-mode 12.7–12.8; on the other vCPU, and on the first a
/// minute later, 5.6–5.8, 2.0–2.3, 5.2, 8.1–8.7. Two runs in different
/// states moved `monitor-mode` by +32.6% and `churn` by +18.1% on their
/// ratios (CI); of 46 single-pair runs of this test that hour, 5 failed
/// (those two rows three times, once `std-mutex` in a whole-run shift of
/// +38%, once intervals too wide for the slowdown). Three failing pairs in a row is
/// a finding, not the host.
const ATTEMPTS: usize = 3;

/// The first run with each single-threaded row but the CAS pair 20%
/// slower, and each such row's expected verdict on it: moved (to the
/// baseline's side) exactly where the interval of the row's per-round
/// ratios to the CAS pair is narrower than 20% (1.2 × its low end above
/// its high end; the row's own figure changed by 20%, more than the least
/// change).
fn slowed(first: &[BenchResult]) -> (Vec<BenchResult>, BTreeMap<&'static str, &'static str>) {
    let cas = samples(
        first
            .iter()
            .find(|r| r.benchmark.ends_with(".cas-pair"))
            .expect("a cas-pair row"),
    );
    let mut slow = first.to_vec();
    let mut expected = BTreeMap::new();
    for r in &mut slow {
        let Some(name) = SINGLE_THREADED
            .iter()
            .find(|n| **n != "cas-pair" && r.benchmark.ends_with(&format!(".{n}")))
        else {
            continue;
        };
        let ratios: Vec<f64> = samples(r).iter().zip(&cas).map(|(x, b)| x / b).collect();
        let (lo, hi) = serial_median_interval(&ratios, CONFIDENCE).expect("60 samples");
        expected.insert(*name, if 1.2 * lo > hi { "baseline" } else { "same" });
        scale(&mut r.primary_metric, 1.2);
    }
    (slow, expected)
}

#[test]
fn two_quick_runs_of_one_build_compare_same_and_a_20_percent_slowdown_is_moved() {
    let dir = scratch("walkthrough");
    let mut failed = Vec::new();
    let (run1, rows, header, text, mut moved_same_build) = loop {
        let n = failed.len();
        let run1 = quick_pairs(&dir.join(format!("run1-{n}")));
        let run2 = quick_pairs(&dir.join(format!("run2-{n}")));
        let (rows, header, text) = compare(&run1, &run2);
        let first: Vec<BenchResult> = jmh::from_json(&std::fs::read_to_string(&run1).unwrap()).unwrap();
        let visible = slowed(&first).1.values().filter(|v| **v == "baseline").count();
        let verdict = same_build_verdicts(&rows, &text).and_then(|moved| {
            if TIMING_ASSERTED && visible < MUST_SEE_SLOWDOWN {
                Err(format!(
                    "only {visible} rows' intervals are narrow enough to see a 20% slowdown:\n{text}"
                ))
            } else {
                Ok(moved)
            }
        });
        match verdict {
            Ok(moved) => break (run1, rows, header, text, moved),
            Err(why) => {
                eprintln!("pair {} of quick runs: {why}", n + 1);
                failed.push(why);
                assert!(
                    failed.len() < ATTEMPTS,
                    "same build, {ATTEMPTS} pairs of quick runs:\n{}",
                    failed.join("\n---\n")
                );
            }
        }
    };
    if !failed.is_empty() {
        eprintln!("same build: held on pair {} of quick runs", failed.len() + 1);
    }
    let shift = rows["cas-pair"].change.0 / rows["cas-pair"].baseline.0 - 1.0;
    // Every row but the CAS pair, its baseline, is judged on its ratio.
    let judged = rows.len() - 1;
    eprintln!(
        "same build: {} of {judged} rows moved: {moved_same_build:?}; cas-pair {:+.1}% ({header})",
        moved_same_build.len(),
        shift * 100.0
    );
    assert!(
        header.contains(&format!("verdicts on ratios to it too: {judged} row(s)")),
        "{text}"
    );
    let two = rows.get(THREADED).expect("contended-2t compared");
    assert!(
        ["same", "change", "baseline"].contains(&two.verdict.as_str()),
        "contended-2t is judged: {text}"
    );
    if two.verdict != "same" {
        moved_same_build.push(THREADED);
    }

    // The first run again, each single-threaded row but the CAS pair 20%
    // slower: moved exactly where [`slowed`] expects, and to the
    // baseline's side.
    let first: Vec<BenchResult> = jmh::from_json(&std::fs::read_to_string(&run1).unwrap()).unwrap();
    let (slow, expected) = slowed(&first);
    let slow_file = dir.join("run1-slow.json");
    std::fs::write(&slow_file, jmh::to_json(&slow)).unwrap();
    let (rows, _, text) = compare(&run1, &slow_file);
    for (name, want) in &expected {
        assert_eq!(rows[*name].verdict, *want, "{name} 20% slower:\n{text}");
    }
    assert_eq!(rows["cas-pair"].verdict, "reference", "{text}");
    let seen = expected.values().filter(|v| **v == "baseline").count();
    eprintln!("20% slower: {seen} of {} rows moved", expected.len());
    assert!(
        !TIMING_ASSERTED || seen >= MUST_SEE_SLOWDOWN,
        "only {seen} rows' intervals are narrow enough to see a 20% slowdown:\n{text}"
    );

    // The first run again, every row 16% slower, the CAS pair too: a
    // shift of the whole run, which moves no row and which the header
    // states.
    let mut shifted = first;
    for r in &mut shifted {
        scale(&mut r.primary_metric, 1.16);
    }
    let shifted_file = dir.join("run1-shifted.json");
    std::fs::write(&shifted_file, jmh::to_json(&shifted)).unwrap();
    let (rows, header, text) = compare(&run1, &shifted_file);
    assert!(
        header.starts_with("whole-run shift: baseline row cas-pair +16.0%"),
        "{text}"
    );
    for (name, row) in &rows {
        let want = if name == "cas-pair" { "reference" } else { "same" };
        assert_eq!(
            row.verdict, want,
            "{name} in a run 16% slower as a whole:\n{text}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
