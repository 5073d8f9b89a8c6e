//! Smoke tests: `fastpath lock --quick` runs in-process and its JSON parses
//! with the expected rows; `fastpath lock --quick --only pairs --prof
//! perfnorm` (the real binary: the profiler re-runs it as its child) adds
//! counters per operation to the single-threaded rows and a refusal to the
//! multi-threaded one.
//!
//! The profiled test needs valgrind where the CPU has no counters (this
//! KVM guest; `.ci/run` installs it): under CI it fails without it, outside
//! CI it says so on stderr and checks nothing.

mod common;

use common::{fastpath, scratch, stdout_of, SINGLE_THREADED_PAIRS};

use fastpath_lab::experiment::{Context, Experiment};
use fastpath_lab::experiments::lock::Lock;
use fastpath_lab::report::jmh;

#[test]
fn lock_experiment_runs_quick_and_reports_every_row() {
    let e = Lock;
    let cmd = e.args(clap::Command::new("lock"));
    let ctx = Context::new(true, None, cmd.get_matches_from(["lock"]));
    e.run(&ctx).unwrap();
    let report = ctx.kept();
    let json = jmh::to_json(&report.results);
    let back = jmh::from_json(&json).unwrap();
    let names: Vec<&str> = back.iter().map(|r| r.benchmark.as_str()).collect();
    let others = [
        "contended-2t",
        // Seed 001's suite, one row per locking mode.
        "basic-simple",
        "inflated-recursive-only",
        "recursive-synchronization",
        "contended-3t",
        "monitor-bench",
        "single-use",
        "single-use-recursive",
        "producer-consumer",
        "philosophers",
        // The contended table: fastpath and its peers.
        "short-cs",
        "short-cs-parking-lot",
        "short-cs-reentrant",
        "short-cs-std",
        "long-cs",
    ];
    for row in SINGLE_THREADED_PAIRS.iter().chain(&others) {
        assert!(
            names.contains(&format!("fastpath.lock.{row}").as_str()),
            "{names:?}"
        );
    }
    assert!(back.iter().all(|r| r.primary_metric.score > 0.0));
    let text = report.to_text();
    assert!(text.contains("ratio"));
    // Every goal is marked.
    assert!(text.contains("pass (") || text.contains("FAIL ("), "{text}");

    // The suite has the three modes of every workload.
    for mode in ["legacy", "lightweight", "monitor"] {
        assert!(
            back.iter().any(|r| r.benchmark == "fastpath.lock.philosophers"
                && r.params.get("mode").map(String::as_str) == Some(mode)),
            "philosophers in {mode} missing"
        );
    }
    // While legacy stack-locking is lightweight underneath, the table says so.
    let legacy_real = std::thread::spawn(|| {
        fastpath::sync::set_current_thread_locking_mode(fastpath::sync::LockingMode::Legacy).unwrap();
        fastpath::sync::current_thread_locking_mode() == fastpath::sync::LockingMode::Legacy
    })
    .join()
    .unwrap();
    assert_eq!(text.contains("legacy column ran as lightweight"), !legacy_real);

    // The contended table: every lock at 1, 2 and 4 threads at least, no
    // lost update anywhere.
    let contended: Vec<_> = back.iter().filter(|r| r.benchmark.contains("-cs")).collect();
    for t in [1, 2, 4] {
        // At one thread, the diagnostic "fastpath, inflated" row too.
        let locks = if t == 1 { 5 } else { 4 };
        assert_eq!(
            contended.iter().filter(|r| r.threads == t).count(),
            2 * locks,
            "2 sections × {locks} locks at {t} threads"
        );
    }
    for r in &contended {
        let lost = &r.secondary_metrics["lost_updates"];
        assert_eq!(
            lost.score, 0.0,
            "{} lost updates at {} threads",
            r.benchmark, r.threads
        );
        let fair = r.secondary_metrics["fairness_min_over_max"].score;
        assert!((0.0..=1.0).contains(&fair), "{fair}");
    }
}

#[test]
fn prof_perfnorm_counts_the_pairs_and_refuses_the_contended_row() {
    if !common::can_profile("lock_smoke") {
        return;
    }
    let dir = scratch("lock-prof");
    let text = stdout_of(
        fastpath()
            .args([
                "lock", "--quick", "--only", "pairs", "--prof", "perfnorm", "--out",
            ])
            .arg(&dir),
    );
    let json = std::fs::read_to_string(dir.join("lock.json")).expect("lock.json");
    let _ = std::fs::remove_dir_all(&dir);
    let rows = jmh::from_json(&json).unwrap();
    let row = |name: &str| {
        rows.iter()
            .find(|r| r.benchmark == format!("fastpath.lock.{name}"))
            .unwrap_or_else(|| panic!("no row {name}"))
    };
    let insns = |name: &str| {
        let m = row(name)
            .secondary_metrics
            .get("instructions")
            .unwrap_or_else(|| panic!("{name} has no instructions: {text}"));
        assert_eq!(m.score_unit, "#/op");
        m.score
    };
    // Every single-threaded row is counted, and says which path counted it.
    for name in SINGLE_THREADED_PAIRS {
        let r = row(name);
        assert!(
            r.secondary_metrics.contains_key("perfnorm:callgrind-simulated")
                || r.secondary_metrics.contains_key("perfnorm:perf_event"),
            "{name}: {:?}",
            r.secondary_metrics.keys()
        );
        assert!(insns(name) > 0.0, "{name}");
    }
    // Only the loop is counted (not the process, the setup or the warm-up),
    // and the fast path's shape shows: a lock pair does at least the CAS
    // pair's work, a recursive pair skips the CAS and does less, a monitor
    // per object costs far more. A release build counts ~36 per uncontended
    // pair here, a debug build (`cargo test`) ~700.
    let (cas, unc, rec) = (insns("cas-pair"), insns("uncontended"), insns("recursive"));
    let most = if cfg!(debug_assertions) { 3_000.0 } else { 400.0 };
    assert!(
        (4.0..most).contains(&unc),
        "{unc} instructions per uncontended pair"
    );
    assert!(unc > cas, "uncontended {unc} vs cas-pair {cas}");
    // A debug build runs `LockStack::verify` at every transition, which
    // walks the stack: more work for a recursive pair (two entries) than
    // for an uncontended one, so the shape shows only in a release build.
    if !cfg!(debug_assertions) {
        assert!(rec < unc, "recursive {rec} vs uncontended {unc}");
    }
    assert!(insns("monitor-churn") > unc, "monitor-churn vs uncontended");
    // The two-thread row: no counters (never zeros), and the table says why.
    let contended = row("contended-2t");
    assert_eq!(contended.threads, 2);
    assert!(!contended.secondary_metrics.contains_key("instructions"));
    assert!(
        text.contains("not profiled (pairs/contended-2t): 2 threads"),
        "{text}"
    );
    assert!(text.contains("perfnorm: lock + unlock pairs"), "{text}");
}

/// Under `FASTPATH_LOCKING_MODE=monitor` the rows measured in the thread's
/// own mode say `monitor` (in the JSON's `mode` param and the table), so a
/// monitor-mode run never pairs with a lightweight one in `compare`.
#[test]
fn pairs_rows_are_labelled_with_the_mode_they_ran_in() {
    let dir = scratch("lock-mode");
    let text = stdout_of(
        fastpath()
            .env("FASTPATH_LOCKING_MODE", "monitor")
            .args(["lock", "--quick", "--only", "pairs", "--out"])
            .arg(&dir),
    );
    let json = std::fs::read_to_string(dir.join("lock.json")).expect("lock.json");
    let _ = std::fs::remove_dir_all(&dir);
    let rows = jmh::from_json(&json).unwrap();
    let mode = |name: &str| {
        rows.iter()
            .find(|r| r.benchmark == format!("fastpath.lock.{name}"))
            .unwrap_or_else(|| panic!("no row {name}"))
            .params
            .get("mode")
            .cloned()
            .unwrap_or_default()
    };
    for name in [
        "uncontended",
        "uncontended-on",
        "after-deflation",
        "recursive",
        "churn",
        "synchronized",
        "contended-2t",
        "monitor-mode",
    ] {
        assert_eq!(mode(name), "monitor", "{name}");
    }
    assert_eq!(mode("cas-pair"), "baseline");
    assert_eq!(mode("std-mutex"), "peer");
    assert!(!text.contains("lightweight"), "{text}");
}
