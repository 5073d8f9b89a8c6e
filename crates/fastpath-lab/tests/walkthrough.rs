//! The README's first comparison, on the pairs table: two quick runs of
//! this build (`fastpath lock --quick --only pairs --out …`), then
//! `fastpath compare`, which must call every single-threaded row `same`;
//! then the first run with a 20% slowdown written into its rows, which
//! `compare` must report as moved wherever the run's intervals can see it
//! (the unit tests of `report::compare` inject one into samples too).
//!
//! What it can honestly assert on a loaded 2-CPU machine: the
//! single-threaded rows are each one thread timing itself in short
//! interleaved samples, whose medians two runs mostly reproduce within a
//! few percent whatever the load (`compare`'s least change, 10%, is the
//! margin for what one process fixes: placement, clock, neighbours), but
//! not always: at most [`MAY_MOVE`] of them may move, by less than 30%.
//! The one two-thread row, `contended-2t`, times how two threads share two
//! vCPUs that other processes also use: its samples come in stretches
//! (which thread runs where, for a while), and `compare`'s interval, which
//! counts the samples' serial dependence, is as wide as that makes it, so
//! it is held to `same` like the others (within the same allowance, with
//! no bound on its %: a stretch can halve it). The two recursive rows'
//! verdicts (1.1–1.9 ns, a handful of cycles) are not asserted: one cycle
//! more or less between two processes is 15–20% of them
//! (parking-lot-reentrant-recursive came out 1.42, 1.63, 1.70 and 1.88 ns
//! in different processes of one build at load 2–13), more than the least
//! change; they too must pair and be judged, and the 20% slowdown must
//! still show wherever their intervals allow. And the slowdown must show
//! on some rows at least: intervals so wide that nothing could move would
//! pass the first half vacuously.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use fastpath_lab::harness::stats::{serial_median_interval, CONFIDENCE};
use fastpath_lab::report::jmh::{self, BenchResult, Metric};

fn fastpath() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fastpath"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fastpath-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The rows whose verdict on two runs of one build is asserted.
const SINGLE_THREADED: [&str; 12] = [
    "cas-pair",
    "uncontended",
    "after-deflation",
    "recursive",
    "churn",
    "synchronized",
    "monitor-mode",
    "monitor-churn",
    "parking-lot-mutex",
    "parking-lot-reentrant",
    "std-mutex",
    "parking-lot-reentrant-recursive",
];

/// How many of the other ten rows may still move between two runs of one
/// build, by less than 30%: one process's heap placement (monitor-churn,
/// whose monitors the library allocates: 31.7 against 37.5 ns) or a
/// stretch of the neighbours' load covering one whole run (every row
/// 4–14% slower, one of them past the least change) was seen to move one
/// row in about one pair of runs in four at load 3–13.
const MAY_MOVE: usize = 2;

/// Whether the verdicts that depend on how steady this build's timings are
/// (how many rows move between two runs, and how many a 20% slowdown shows
/// through) are asserted: in the release build the README's walk-through
/// runs, which CI tests (`cargo test --release ... --test walkthrough` in
/// .ci/run). A debug build's quick runs were seen 15-20% apart as a whole
/// (every row, one process against the next, on an idle guest) and to
/// drift in slow waves within one run (cas-pair 40 -> 47 -> 40 ns), which
/// widens every interval at once; there the test asserts what does not
/// depend on it: every row pairs and is judged, and each row's verdict
/// on the slowdown is the one its own interval gives. Release processes
/// too can differ as a whole with their address-space layout, which is why
/// CI runs this test without randomisation (.ci/run).
const TIMING_ASSERTED: bool = !cfg!(debug_assertions);

/// The threaded row, held to the same allowance without a bound on its %.
const THREADED: &str = "contended-2t";

/// The least number of rows whose intervals must be narrow enough for the
/// 20% slowdown to show: the three steadiest (churn and the two mutex
/// peers) stayed that narrow at load 11.
const MUST_SEE_SLOWDOWN: usize = 2;

/// Rows of a few cycles, whose same-build verdict is not asserted (see
/// the module's docs).
const CYCLE_SIZED: [&str; 2] = ["recursive", "parking-lot-reentrant-recursive"];

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
    verdict: String,
}

/// `fastpath compare a b`: each compared row by its benchmark name (the
/// first cell), and the whole output for messages.
fn compare(a: &Path, b: &Path) -> (BTreeMap<String, Row>, String) {
    let out = fastpath().arg("compare").arg(a).arg(b).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    // `name [threads=N] mode=M  ns/op  a ± e  b ± e  %  verdict`
    let cell = |v: &[&str], i: usize| -> (f64, f64) {
        (
            v[i].parse().unwrap_or(f64::NAN),
            v[i + 2].parse().unwrap_or(f64::NAN),
        )
    };
    let rows = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains(" [threads="))
        .map(|l| {
            let v: Vec<&str> = l.split_whitespace().collect();
            let row = Row {
                baseline: cell(&v, 4),
                change: cell(&v, 7),
                verdict: v[v.len() - 1].to_string(),
            };
            (v[0].to_string(), row)
        })
        .collect();
    (rows, text)
}

/// Every figure of `m` multiplied by `k`: the same run, `k` times slower.
fn scale(m: &mut Metric, k: f64) {
    m.score *= k;
    m.score_error *= k;
    m.score_confidence.iter_mut().for_each(|x| *x *= k);
    m.score_percentiles.values_mut().for_each(|x| *x *= k);
    m.raw_data.iter_mut().flatten().for_each(|x| *x *= k);
}

/// What two runs of one build must show: every single-threaded row
/// judged, and (where [`TIMING_ASSERTED`]) at most [`MAY_MOVE`] of the
/// rows that are not [`CYCLE_SIZED`] moved, each by less than 30%. `Err`
/// says which rule failed, with the comparison.
fn same_build_verdicts(rows: &BTreeMap<String, Row>, text: &str) -> Result<Vec<&'static str>, String> {
    let mut moved = Vec::new();
    for name in SINGLE_THREADED {
        let row = rows
            .get(name)
            .unwrap_or_else(|| panic!("{name} not compared:\n{text}"));
        assert!(
            ["same", "change", "baseline"].contains(&row.verdict.as_str()),
            "{name} is judged: {text}"
        );
        if row.verdict != "same" && !CYCLE_SIZED.contains(&name) {
            let change = (row.change.0 / row.baseline.0 - 1.0).abs();
            if TIMING_ASSERTED && change >= 0.3 {
                return Err(format!("{name} moved {:.0}%:\n{text}", change * 100.0));
            }
            moved.push(name);
        }
    }
    if TIMING_ASSERTED && moved.len() > MAY_MOVE {
        return Err(format!("{moved:?} moved between two runs of one build:\n{text}"));
    }
    Ok(moved)
}

/// How many pairs of runs the same-build half may take. Each verdict is a
/// 99% interval, and a pair of processes can differ as a whole (the
/// placement effect under [`TIMING_ASSERTED`]): one pair in many fails on
/// a healthy build. A second, fresh pair makes a false alarm the square of
/// that rare, while a `compare` whose intervals are too narrow for its
/// samples fails both pairs (it moves rows in most pairs of runs).
const SAME_BUILD_PAIRS: usize = 2;

#[test]
fn two_quick_runs_of_one_build_compare_same_and_a_20_percent_slowdown_is_moved() {
    let dir = scratch("walkthrough");
    let mut failed = Vec::new();
    let (run1, rows, text, mut moved_same_build) = loop {
        let attempt = failed.len() + 1;
        let run1 = quick_pairs(&dir.join(format!("pair{attempt}-run1")));
        let run2 = quick_pairs(&dir.join(format!("pair{attempt}-run2")));
        let (rows, text) = compare(&run1, &run2);
        match same_build_verdicts(&rows, &text) {
            Ok(moved) => break (run1, rows, text, moved),
            Err(why) => {
                eprintln!("same build, pair {attempt} of {SAME_BUILD_PAIRS}: {why}");
                failed.push(why);
                assert!(
                    failed.len() < SAME_BUILD_PAIRS,
                    "every pair of runs of one build moved rows:\n{}",
                    failed.join("\n\n")
                );
            }
        }
    };
    eprintln!(
        "same build: {} of 13 rows moved: {moved_same_build:?} (pairs that failed first: {})",
        moved_same_build.len(),
        failed.len()
    );
    let two = rows.get(THREADED).expect("contended-2t compared");
    assert!(
        ["same", "change", "baseline"].contains(&two.verdict.as_str()),
        "contended-2t is judged: {text}"
    );
    if two.verdict != "same" {
        moved_same_build.push(THREADED);
    }

    // The first run again, each single-threaded row 20% slower: moved
    // exactly where the row's own interval is narrower than 20%
    // (1.2 × its low end above its high end), and to the baseline's side.
    let text1 = std::fs::read_to_string(&run1).unwrap();
    let mut slow: Vec<BenchResult> = jmh::from_json(&text1).unwrap();
    let mut expected = BTreeMap::new();
    for r in &mut slow {
        let Some(name) = SINGLE_THREADED
            .iter()
            .find(|n| r.benchmark.ends_with(&format!(".{n}")))
        else {
            continue;
        };
        let samples: Vec<f64> = r.primary_metric.raw_data.iter().flatten().copied().collect();
        let (lo, hi) = serial_median_interval(&samples, CONFIDENCE).expect("60 samples");
        expected.insert(*name, if 1.2 * lo > hi { "baseline" } else { "same" });
        scale(&mut r.primary_metric, 1.2);
    }
    let slow_file = dir.join("run1-slow.json");
    std::fs::write(&slow_file, jmh::to_json(&slow)).unwrap();
    let (rows, text) = compare(&run1, &slow_file);
    for (name, want) in &expected {
        assert_eq!(rows[*name].verdict, *want, "{name} 20% slower:\n{text}");
    }
    let seen = expected.values().filter(|v| **v == "baseline").count();
    eprintln!("20% slower: {seen} of {} rows moved", expected.len());
    assert!(
        !TIMING_ASSERTED || seen >= MUST_SEE_SLOWDOWN,
        "only {seen} rows' intervals are narrow enough to see a 20% slowdown:\n{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
