//! `--prof perfnorm`'s simulated path end to end: the real `fastpath`
//! binary re-runs one spin row (`latency/none`, a bare loop) under
//! Callgrind, and the counters per operation come back plausible and
//! labelled simulated; `fastpath compare` then prints the seed's diff for
//! two result files whose counters differ.
//!
//! Valgrind is required under CI (`.ci/run` installs it): the test fails
//! there without it. Outside CI, without valgrind, it says so on stderr and
//! checks nothing.

use std::path::PathBuf;
use std::process::Command;

use fastpath_lab::harness::perfnorm::{Profiler, Region, Source};
use fastpath_lab::report::{jmh, BenchResult, Metric, Mode};

fn valgrind() -> Option<PathBuf> {
    let ok = Command::new("valgrind")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if ok {
        return Some(PathBuf::from("valgrind"));
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set but valgrind is missing: .ci/run installs it"
    );
    eprintln!("perfnorm_smoke: valgrind not installed and CI unset: nothing checked");
    None
}

#[test]
fn simulated_counters_of_a_tiny_region() {
    let Some(vg) = valgrind() else { return };
    let prof = Profiler::simulated("spin", vg, PathBuf::from(env!("CARGO_BIN_EXE_fastpath")));
    assert_eq!(prof.source(), Ok(Source::Simulated));
    // The in-process closure is not what runs: the child rebuilds region
    // `latency/none` itself. Its op count is what the child is told.
    let p = prof.profile("latency/none", Region::new(5_000, |_| {}));
    let per_op = p.per_op.clone().expect("callgrind profile");
    let get = |n: &str| per_op.iter().find(|(k, _)| *k == n).map(|(_, s)| s.mean);
    let insns = get("instructions").expect("instructions");
    // A loop iteration of `none`: a black_box store, increment, compare,
    // branch (4 instructions in a release build, ~75 in a debug build);
    // the warm-up and the process around it are not counted, or the
    // figure would be in the thousands.
    assert!((2.0..200.0).contains(&insns), "{insns} instructions per op");
    let branches = get("branches").expect("branches");
    assert!((0.9..20.0).contains(&branches), "{branches} branches per op");
    assert!(
        get("cycles").is_none() && get("CPI").is_none(),
        "no simulated cycles"
    );

    let r = BenchResult::new(
        "spin",
        "latency",
        Mode::AverageTime,
        &fastpath_lab::stats::Stats::from_samples(vec![1.0, 1.2]),
        "ns/op",
    );
    let r = p.attach(r);
    assert_eq!(r.secondary_metrics["instructions"].score_unit, "#/op");
    assert!(r.secondary_metrics.contains_key("perfnorm:callgrind-simulated"));

    // An unknown row is an error with a reason, not zeros.
    let bad = prof.profile("latency/no-such-strategy", Region::new(10, |_| {}));
    let e = bad.per_op.unwrap_err();
    assert!(e.contains("no perfnorm region"), "{e}");
}

#[test]
fn compare_prints_the_seed_diff() {
    let row = |loads: f64, err: f64| {
        let mut m = Metric::single(loads, "#/op");
        m.score_error = err;
        BenchResult::new(
            "xv",
            "test",
            Mode::Throughput,
            &fastpath_lab::stats::Stats::from_samples(vec![236.0, 237.0]),
            "ops/min",
        )
        .secondary("L1-dcache-loads", m)
    };
    let dir = std::env::temp_dir().join(format!("fastpath-perfnorm-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    std::fs::write(&a, jmh::to_json(&[row(520038766.0, 6177479.0)])).unwrap();
    std::fs::write(&b, jmh::to_json(&[row(609183240.0, 5857280.0)])).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_fastpath"))
        .arg("compare")
        .args([&a, &b])
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(":L1-dcache-loads"), "{text}");
    assert!(text.contains("+77..101M +17%"), "{text}");
}

/// icache's rows run under Valgrind (they died of SIGSEGV before rustix
/// took its page size from libc): a 256-byte dirty + sync + read-back
/// counts hundreds of instructions, and its memset's stores.
#[test]
fn icache_rows_run_under_valgrind() {
    let Some(vg) = valgrind() else { return };
    let prof = Profiler::simulated("icache", vg, PathBuf::from(env!("CARGO_BIN_EXE_fastpath")));
    let p = prof.profile("none/256", Region::new(200, |_| {}));
    let per_op = p.per_op.expect("callgrind profile of icache none/256");
    let get = |n: &str| per_op.iter().find(|(k, _)| *k == n).map(|(_, s)| s.mean).unwrap();
    assert!(get("instructions") > 100.0, "{per_op:?}");
    assert!(get("L1-dcache-stores") >= 256.0 / 8.0, "{per_op:?}");
}
