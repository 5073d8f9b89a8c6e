//! Smoke test: `fastpath lock --quick` runs in-process and its JSON parses
//! with the expected rows.

use fastpath_lab::experiments::{lock::Lock, Context, Experiment};
use fastpath_lab::report::jmh;

#[test]
fn lock_experiment_runs_quick_and_reports_every_row() {
    let e = Lock;
    let cmd = e.args(clap::Command::new("lock"));
    let ctx = Context {
        quick: true,
        out: None,
        matches: cmd.get_matches_from(["lock"]),
    };
    let report = e.run(&ctx).unwrap();
    let json = jmh::to_json(&report.results);
    let back = jmh::from_json(&json).unwrap();
    let names: Vec<&str> = back.iter().map(|r| r.benchmark.as_str()).collect();
    for row in [
        "cas-pair",
        "uncontended",
        "recursive",
        "churn",
        "synchronized",
        "monitor-mode",
        "monitor-churn",
        "contended-2t",
        "parking-lot-mutex",
        "std-mutex",
        "parking-lot-reentrant-recursive",
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
        // Issue 14's contended table: fastpath and its peers.
        "short-cs",
        "short-cs-parking-lot",
        "short-cs-reentrant",
        "short-cs-std",
        "long-cs",
    ] {
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
        fastpath::sync::set_current_thread_locking_mode(fastpath::config::LockingMode::Legacy).unwrap();
        fastpath::sync::current_thread_locking_mode() == fastpath::config::LockingMode::Legacy
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
