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
    ] {
        assert!(
            names.contains(&format!("fastpath.lock.{row}").as_str()),
            "{names:?}"
        );
    }
    assert!(back.iter().all(|r| r.primary_metric.score > 0.0));
    assert!(report.to_text().contains("ratio"));
}
