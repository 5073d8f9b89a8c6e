//! `fastpath spin --quick` runs in-process, prints its four tables, and its
//! JMH-format JSON parses back with the expected rows.

use fastpath_lab::cli;
use fastpath_lab::experiment::Experiment;
use fastpath_lab::experiments;
use fastpath_lab::report::jmh;

#[test]
fn spin_quick_produces_four_tables_and_parseable_json() {
    let registry = experiments::registry();
    let spin: &dyn Experiment = *registry
        .iter()
        .find(|e| e.name() == "spin")
        .expect("`spin` is registered");
    let matches = cli::cli(&registry)
        .try_get_matches_from(["fastpath", "spin", "--quick"])
        .expect("cli parses");
    let sub = matches.subcommand_matches("spin").expect("spin subcommand");
    let ctx = cli::context(sub, true);
    spin.run(&ctx).expect("runs");
    let report = ctx.kept();

    assert_eq!(report.tables.len(), 4, "latency, budget check, handoff, lru");
    let text = report.to_text();
    println!("{text}");
    for title in ["pause latency", "budget check", "handoff", "LRU"] {
        assert!(report.tables.iter().any(|t| t.title.contains(title)), "{title}");
    }
    // Every table has the `none` baseline and a % column against it.
    for t in &report.tables {
        assert!(t.headers.iter().any(|h| h.contains("% vs none")), "{}", t.title);
        assert!(
            t.rows.iter().any(|r| r.iter().any(|c| c == "none")),
            "{}",
            t.title
        );
    }
    // Every strategy spends the budgets the contention tables give it.
    let check = report
        .tables
        .iter()
        .find(|t| t.title.contains("budget check"))
        .unwrap();
    assert!(
        check.rows.iter().all(|r| r.last().unwrap() == "ok"),
        "{}",
        check.to_text()
    );
    if fastpath::cpu::info().logical_cpus < 4 {
        assert!(
            text.contains("OVERSUBSCRIBED"),
            "4 threads on fewer CPUs must be flagged"
        );
    }

    let json = jmh::to_json(&report.results);
    let back = jmh::from_json(&json).expect("JSON parses");
    let rows = |name: &str| {
        back.iter()
            .filter(|r| r.benchmark == format!("fastpath.spin.{name}"))
            .collect::<Vec<_>>()
    };
    let latency = rows("latency");
    assert!(latency.iter().any(|r| r.params["strategy"] == "none"));
    assert!(latency.iter().any(|r| r.params["strategy"].starts_with("global")));
    #[cfg(target_arch = "x86_64")]
    assert!(latency.iter().any(|r| r.params["strategy"] == "pause"));
    assert!(latency.iter().all(|r| r.primary_metric.score > 0.0));
    let handoff = rows("handoff");
    let budgets: std::collections::BTreeSet<_> =
        handoff.iter().map(|r| r.params["spin_ns"].clone()).collect();
    assert_eq!(budgets.len(), 6, "{budgets:?}");
    let lru = rows("lru");
    for threads in [1, 2, 4] {
        assert!(
            lru.iter()
                .any(|r| r.threads == threads && r.params["strategy"] == "none"),
            "lru threads={threads}"
        );
    }
    assert!(back.iter().all(|r| r.primary_metric.score.is_finite()));
}

/// Asking for an instruction this CPU lacks is a configuration error
/// reported before anything runs (exit 2, naming the value and the
/// accepted ones), never SIGILL. On this project's machines (no WAITPKG)
/// that is `tpause`; on a CPU with WAITPKG the command must instead work.
#[test]
fn tpause_without_waitpkg_is_a_configuration_error() {
    let has_waitpkg = fastpath::cpu::info().has(fastpath::cpu::Feature::Waitpkg);
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fastpath"))
        .arg("cpu")
        .env("FASTPATH_SPIN_PAUSE", "tpause:2")
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    if has_waitpkg {
        // Past configuration: `cpu` runs.
        assert!(
            out.status.success() && !err.contains("FASTPATH_SPIN_PAUSE"),
            "{err}"
        );
    } else {
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("FASTPATH_SPIN_PAUSE") && err.contains("tpause") && err.contains("Waitpkg"),
            "{err}"
        );
        assert!(err.contains("accepted"), "{err}");
    }
    // A malformed count is refused the same way on every CPU.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fastpath"))
        .arg("cpu")
        .env("FASTPATH_SPIN_PAUSE", "pause:100")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 to 99"));
}
