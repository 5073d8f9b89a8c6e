//! Smoke tests: `fastpath lock --quick --only pairs --prof perfnorm` (the
//! real binary: the profiler re-runs it as its child) adds counters per
//! operation to the single-threaded rows and a refusal to the
//! multi-threaded one; the pairs table under `FASTPATH_LOCKING_MODE=monitor`
//! labels its rows with that mode. The whole quick run (`fastpath lock
//! --quick`: every table's rows, no lost update) is checked on
//! `fastpath all`'s `lock.json` in `cli.rs`, not run a second time
//! here.
//!
//! The profiled test needs valgrind where the CPU has no counters (this
//! KVM guest; `.ci/run` installs it): under CI it fails without it, outside
//! CI it says so on stderr and checks nothing.

use crate::common::{fastpath, scratch, stdout_of, SINGLE_THREADED_PAIRS};

use fastpath_lab::report::jmh;

#[test]
fn prof_perfnorm_counts_the_pairs_and_refuses_the_contended_row() {
    if !crate::common::can_profile("lock_smoke") {
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
