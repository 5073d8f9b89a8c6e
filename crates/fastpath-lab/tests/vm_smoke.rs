//! `fastpath vm --quick` runs in-process (one round, no idle before cold
//! starts, so that it stays short), prints a table of each seed's
//! experiment, and its JMH-format JSON parses back with the rows each
//! table promises; bad options and a bad `FASTPATH_VM_JDK` are refused
//! at once with exit status 2 and a message naming them.
//!
//! The JDK: under CI (`.ci/run` exports `FASTPATH_VM_JDK`, Temurin 25)
//! HotSpot's rows must be there; elsewhere the test says on stderr when
//! it found no HotSpot and checks fastpath-vm's rows alone.

mod common;

use common::fastpath;

use fastpath_lab::cli;
use fastpath_lab::experiment::Experiment;
use fastpath_lab::experiments;
use fastpath_lab::report::jmh;

#[test]
fn vm_quick_runs_every_table_and_its_json_parses() {
    let registry = experiments::registry();
    let vm: &dyn Experiment = *registry
        .iter()
        .find(|e| e.name() == "vm")
        .expect("`vm` is registered");
    let args = ["fastpath", "vm", "--quick", "--rounds", "1", "--idle-ms", "0"];
    let matches = cli::cli(&registry)
        .try_get_matches_from(args)
        .expect("cli parses");
    let sub = matches.subcommand_matches("vm").expect("vm subcommand");
    vm.check(sub, true).expect("default options are accepted");
    let ctx = cli::context(sub, true);
    vm.run(&ctx).expect("runs");
    let report = ctx.kept();
    let text = report.to_text();
    println!("{text}");

    for title in [
        "time per iteration of each program",
        "seed 001 on programs",
        "seed 003 on programs",
        "seed 000 on start-up",
        "seed 002",
        "seed 004 on programs",
    ] {
        assert!(
            report.tables.iter().any(|t| t.title.contains(title)),
            "no table titled …{title}…"
        );
    }
    // The JIT column is there exactly when the VM takes -Xcomp, and its
    // absence is said, never filled with interpreter figures.
    let programs = report
        .tables
        .iter()
        .find(|t| t.title.contains("time per iteration of each program"))
        .unwrap();
    let has_jit_column = programs.headers.iter().any(|h| h.starts_with("fastpath-vm JIT"));
    let says_no_jit = programs
        .notes
        .iter()
        .any(|n| n.starts_with("fastpath-vm JIT: not in this build"));
    assert!(has_jit_column != says_no_jit, "{}", programs.to_text());

    let hotspot_expected = std::env::var_os("CI").is_some() || std::env::var_os("FASTPATH_VM_JDK").is_some();
    let json = jmh::to_json(&report.results);
    let back = jmh::from_json(&json).expect("JSON parses");
    assert!(back
        .iter()
        .all(|r| r.primary_metric.score.is_finite() && r.primary_metric.score > 0.0));
    let rows = |table: &str, vm: &str| {
        back.iter()
            .filter(|r| r.benchmark.starts_with(&format!("fastpath.vm.{table}.")) && r.params["vm"] == vm)
            .collect::<Vec<_>>()
    };
    for table in ["programs", "locking", "barriers", "cpuid", "spin"] {
        assert!(
            !rows(table, "fastpath-vm").is_empty(),
            "no fastpath-vm rows of {table}"
        );
    }
    let hotspot_ran = !rows("programs", "hotspot").is_empty();
    if hotspot_expected {
        for table in ["programs", "locking", "barriers", "icache", "cpuid", "spin"] {
            assert!(!rows(table, "hotspot").is_empty(), "no HotSpot rows of {table}");
        }
    } else if !hotspot_ran {
        eprintln!("vm_smoke: no JDK 21+ found: HotSpot's rows not checked");
    }

    // Seed 001: each locking mode of fastpath-vm, and monitor mode
    // installs a monitor for every object it locks, so it counted some.
    let locking = rows("locking", "fastpath-vm");
    for mode in ["legacy", "lightweight", "monitor"] {
        assert!(
            locking.iter().any(|r| r.params["config"] == mode),
            "no {mode} row"
        );
    }
    let monitor_inflated = locking
        .iter()
        .filter(|r| r.params["config"] == "monitor")
        .filter_map(|r| r.secondary_metrics.get("monitors_inflated"))
        .map(|m| m.score)
        .fold(0.0, f64::max);
    assert!(
        monitor_inflated > 0.0,
        "monitor mode counted no monitor: {}",
        text
    );
    // Seed 003: the no-barrier baseline and a preset, in passive mode.
    let barriers = rows("barriers", "fastpath-vm");
    for set in ["none", "shenandoah"] {
        assert!(barriers.iter().any(|r| r.params["config"] == set), "no {set} row");
    }
    // Seed 004: every strategy this CPU runs, `none` among them.
    let cpuid = rows("cpuid", "fastpath-vm");
    for source in [
        "lazy",
        "cpuid-only",
        "proc-cpuinfo",
        "features-string-with-microcode",
    ] {
        assert!(
            cpuid.iter().any(|r| r.params["source"] == source),
            "no cpuid row for {source}"
        );
    }
    let spin = rows("spin", "fastpath-vm");
    assert!(spin.iter().any(|r| r.params["config"] == "none"));
    assert!(spin.iter().any(|r| r.params["config"] == "auto"));
}

/// Every bad option of `vm` exits 2 before anything runs, naming what is
/// wrong.
#[test]
fn bad_vm_options_exit_2_naming_them() {
    let cases: &[(&[&str], Option<&str>, &str)] = &[
        (&["vm", "--only", "nosuch"], None, "nosuch"),
        (&["vm", "--programs", "NoSuchProgram"], None, "NoSuchProgram"),
        (&["vm", "--rounds", "0"], None, "1..=100"),
        (&["vm", "--idle-ms", "70000"], None, "0..=60000"),
        (
            &["vm", "--vm", "/no/such/fastpath-vm"],
            None,
            "--vm /no/such/fastpath-vm: no such file",
        ),
        (
            &["vm", "--jdk", "/no/such/jdk"],
            None,
            "--jdk /no/such/jdk: not a JDK",
        ),
        (
            &["vm", "--quick"],
            Some("/no/such/jdk"),
            "FASTPATH_VM_JDK /no/such/jdk: not a JDK",
        ),
    ];
    for (args, jdk, expected) in cases {
        let started = std::time::Instant::now();
        let mut cmd = fastpath();
        cmd.args(*args);
        if let Some(j) = jdk {
            cmd.env("FASTPATH_VM_JDK", j);
        }
        let out = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}: printed a table");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(started.elapsed().as_secs() < 10, "{args:?}: not refused at once");
    }
}
