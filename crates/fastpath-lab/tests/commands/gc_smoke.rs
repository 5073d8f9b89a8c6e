//! `fastpath gc --quick --prof perfnorm` end to end, on the real binary:
//! the passive tables (ops/min and the change against `none`), the
//! counters per operation of every row, and the per-barrier-execution
//! table with finite numbers whose branch delta matches the counted
//! executions. One set beside `none` (`brooks-wb`, the seed's barrier) and
//! one round keep it short in a debug build (about 20 s, most of it
//! Valgrind starting on the debug binary).
//!
//! Where this machine has no PMU, the counters come from the Callgrind
//! fallback; valgrind is then required under CI (`.ci/run` installs it).
//! Outside CI, with neither, it says so on stderr and checks nothing.

use crate::common::{fastpath, scratch, stdout_of};

use fastpath_lab::report::jmh;

/// The rows of the table whose title contains `title`: each row's cells.
fn table_rows(text: &str, title: &str) -> Vec<Vec<String>> {
    let mut lines = text.lines().skip_while(|l| !l.contains(title));
    assert!(lines.next().is_some(), "no table {title:?} in:\n{text}");
    // The title and the headers may wrap: the rows start after the dashes.
    lines
        .skip_while(|l| !l.starts_with("---"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty() && !l.starts_with("  "))
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

#[test]
fn prof_perfnorm_prints_counters_per_op_and_per_barrier_execution() {
    if !crate::common::can_profile("gc_smoke") {
        return;
    }
    let dir = scratch("gc-prof");
    let text = stdout_of(
        fastpath()
            .args([
                "gc",
                "--quick",
                "--only",
                "throughput",
                "--sets",
                "brooks-wb",
                "--rounds",
                "1",
                "--prof",
                "perfnorm",
                "--out",
            ])
            .arg(&dir),
    );
    // The seed's shape: ops/min per set and the change against none.
    for w in ["xml", "graph"] {
        let rows = table_rows(&text, &format!("Passive mode, {w}:"));
        let sets: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(sets, ["none", "brooks-wb"], "{text}");
        for r in &rows[1..] {
            assert!(r.last().unwrap().ends_with('%'), "{r:?}");
        }
    }
    // Counters per op in the JSON, for every row.
    let json = std::fs::read_to_string(dir.join("gc.json")).expect("gc.json");
    let _ = std::fs::remove_dir_all(&dir);
    let results = jmh::from_json(&json).unwrap();
    let passive: Vec<_> = results
        .iter()
        .filter(|r| r.benchmark.contains("passive"))
        .collect();
    assert_eq!(passive.len(), 4, "{json}");
    for r in &passive {
        assert_eq!(r.primary_metric.score_unit, "ops/min");
        let insns = r
            .secondary_metrics
            .get("instructions")
            .expect("instructions #/op");
        assert!(insns.score > 10.0, "{}: {}", r.benchmark, insns.score);
    }
    // The per-execution table: every row finite, and one extra branch per
    // execution (each barrier's fast path tests the state once; counted
    // executions, so a wrong count would show here).
    let rows = table_rows(&text, "counters per barrier execution");
    assert_eq!(rows.len(), 2, "{text}");
    for r in &rows {
        // workload, set, executions/op, Δinsns, Δloads, Δstores, Δbranches, fast path
        assert_eq!(r.len(), 8, "{r:?}");
        let v: Vec<f64> = r[2..7]
            .iter()
            .map(|c| c.parse().unwrap_or_else(|_| panic!("{c} in {r:?}")))
            .collect();
        assert!(v.iter().all(|x| x.is_finite()), "{r:?}");
        assert!(v[0] >= 1.0, "executions {r:?}");
        assert!(v[1] > 0.0, "a barrier adds instructions: {r:?}");
        if !cfg!(debug_assertions) {
            assert!((0.5..2.0).contains(&v[4]), "branches per execution {r:?}");
        }
    }
}
