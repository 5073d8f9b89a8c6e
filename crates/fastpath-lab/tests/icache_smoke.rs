//! Smoke test of `fastpath icache --quick`: runs in-process through the CLI
//! definition, checks the tables, the JSON round trip, the plots and the
//! rows it promises. Performance is not asserted here (that is the lab's
//! output, not a test).

use fastpath_lab::cli;
use fastpath_lab::experiments::{icache, registry};
use fastpath_lab::report::jmh;

#[test]
fn icache_quick_runs_and_reports_every_row() {
    let experiments = registry();
    let m = cli::cli(&experiments)
        .try_get_matches_from([
            "fastpath",
            "icache",
            "--quick",
            "--iterations",
            "20",
            "--stubs",
            "300",
        ])
        .unwrap();
    let (name, sub) = m.subcommand().unwrap();
    assert_eq!(name, "icache");
    let ctx = cli::context(sub, true);
    let e = experiments.iter().find(|e| e.name() == "icache").unwrap();
    e.run(&ctx).unwrap();
    let report = ctx.kept();

    let text = report.to_text();
    assert!(text.contains("ICacheTest: none"), "{text}");
    assert!(text.contains("auto check"), "{text}");
    assert!(text.contains("Install storm: 300 stubs"), "{text}");
    // A strategy this CPU cannot run is named with the reason, never
    // dropped without a word (`serialize` on a CPU without it).
    #[cfg(target_arch = "x86_64")]
    if !fastpath::cpu::info().has(fastpath::cpu::Feature::Serialize) {
        assert!(text.contains("serialize not measured"), "{text}");
    }

    let results = jmh::from_json(&jmh::to_json(&report.results)).unwrap();
    let strategies: Vec<String> = fastpath::code::ICacheStrategy::supported()
        .iter()
        .map(|s| s.name().to_string())
        .collect();
    assert!(strategies.contains(&"none".to_string()) && strategies.contains(&"auto".to_string()));
    for s in &strategies {
        for size in icache::SIZES {
            let row = results.iter().find(|r| {
                r.benchmark == "fastpath.icache.sync_and_read_back"
                    && r.params["strategy"] == *s
                    && r.params["bytes"] == size.to_string()
            });
            let row = row.unwrap_or_else(|| panic!("no row for {s} at {size} bytes"));
            assert!(row.primary_metric.score > 0.0);
            assert!(row.secondary_metrics.contains_key("flush_median"));
        }
        for mode in ["each", "batch"] {
            assert!(
                results
                    .iter()
                    .any(|r| r.benchmark == "fastpath.icache.install_storm"
                        && r.params["strategy"] == *s
                        && r.params["mode"] == mode),
                "no storm row for {s} {mode}"
            );
        }
    }
    let auto_rows = results
        .iter()
        .filter(|r| r.params.get("strategy").map(String::as_str) == Some("auto"))
        .filter(|r| r.secondary_metrics.contains_key("auto_vs_fastest"))
        .count();
    assert_eq!(auto_rows, icache::SIZES.len());

    for op in ["empty", "cross_modify_fence", "publish", "publish_with_peer"] {
        assert!(
            results
                .iter()
                .any(|r| r.benchmark == "fastpath.icache.serializing" && r.params["operation"] == op),
            "no serializing row for {op}"
        );
    }

    let names: Vec<&str> = report.plots.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["icache-flush.svg", "icache-readback.svg"]);
    for (_, svg) in &report.plots {
        assert!(svg.starts_with("<?xml") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<path").count(), strategies.len());
    }
}
