//! The CLI as a user meets it: exit codes, `all` writing a parseable report
//! (every experiment's results checked there; the lock and vm experiments'
//! quick runs are checked on it, not run again), `compare` reading it back.

use crate::common::{fastpath, scratch};

use std::path::PathBuf;

#[test]
fn unknown_experiment_and_bad_option_exit_2() {
    let out = fastpath().arg("no-such-experiment").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-experiment"));
    let out = fastpath().args(["all", "--no-such-option"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn bad_configuration_variable_exits_2_naming_it() {
    let out = fastpath()
        .args(["cpu"])
        .env("FASTPATH_LOCKING_MODE", "fast")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("FASTPATH_LOCKING_MODE") && err.contains("lightweight"),
        "{err}"
    );
}

/// `fastpath all` at its smallest sizes (one round, no idle before a cold
/// start): every experiment runs, its report and JSON are checked, and the
/// lock and vm experiments' results are checked as their smoke tests did
/// on runs of their own ([`check_lock_quick_run`], [`check_vm_quick_run`]).
#[test]
fn all_writes_a_report_whose_json_parses_and_compares() {
    let dir = scratch("all");
    let out = fastpath()
        .args(["all", "--rounds", "1", "--idle-ms", "0", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "fastpath all failed: {stderr}");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.starts_with("# fastpath report"), "{md}");
    // The summary comes first: mode, CPU, configuration, one row per
    // experiment; each experiment's own section follows it.
    let summary_at = md.find("**Summary**").expect("a summary table");
    let first_section = md.find("\n## ").expect("experiment sections");
    assert!(summary_at < first_section, "{md}");
    for needle in [
        "quick mode",
        "CPU: ",
        "FASTPATH_ICACHE_SYNC=",
        "| experiment | ran | seconds | goals met | goals (measured value; limit) |",
    ] {
        assert!(md.contains(needle), "{needle}: {md}");
    }
    for e in fastpath_lab::experiments::registry() {
        assert!(
            md.contains(&format!("| [{n}](#{n}) | ok |", n = e.name())),
            "{}: {md}",
            e.name()
        );
    }
    let mut rows = 0;
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(&path).unwrap();
            let results = fastpath_lab::report::jmh::from_json(&text)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            for r in &results {
                assert!(
                    r.primary_metric.score.is_finite(),
                    "{}: {}",
                    path.display(),
                    r.key()
                );
            }
            rows += results.len();
            files.push(path);
        }
    }
    println!(
        "`fastpath all` wrote {} JSON files with {rows} result rows",
        files.len()
    );
    assert_eq!(files.len(), fastpath_lab::experiments::registry().len());
    if let Some(f) = files.first() {
        let out = fastpath().arg("compare").arg(f).arg(f).output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("+0.0%"), "{text}");
    }
    // The sizes reached the experiments that take them.
    assert!(section(&md, "vm").contains("1 round of one process"), "{md}");
    check_lock_quick_run(&dir, &md);
    check_vm_quick_run(&dir, &md);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Experiment `name`'s section of a `report.md`.
fn section<'a>(md: &'a str, name: &str) -> &'a str {
    let head = format!("\n## {name}\n");
    let start = md
        .find(&head)
        .unwrap_or_else(|| panic!("no section {name}: {md}"));
    let rest = &md[start + head.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

/// The rows of `dir/<name>.json`, parsed.
fn rows_of(dir: &std::path::Path, name: &str) -> Vec<fastpath_lab::report::BenchResult> {
    let json = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
    fastpath_lab::report::jmh::from_json(&json).unwrap()
}

/// `lock --quick` (as `all` runs it): every row of the pairs table, seed
/// 001's suite in each locking mode, the contended table at 1, 2 and 4
/// threads with no lost update; every goal marked.
fn check_lock_quick_run(dir: &std::path::Path, md: &str) {
    let back = rows_of(dir, "lock");
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
    for row in crate::common::SINGLE_THREADED_PAIRS.iter().chain(&others) {
        assert!(
            names.contains(&format!("fastpath.lock.{row}").as_str()),
            "{names:?}"
        );
    }
    assert!(back.iter().all(|r| r.primary_metric.score > 0.0));
    let text = section(md, "lock");
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

/// `vm --quick --rounds 1 --idle-ms 0` (as the test runs `all`): a table
/// of each seed's experiment, the rows each promises, HotSpot's beside
/// them where a JDK is expected (under CI `.ci/run` exports
/// `FASTPATH_VM_JDK`, Temurin 25; elsewhere, without one, it says on
/// stderr that HotSpot's rows were not checked).
fn check_vm_quick_run(dir: &std::path::Path, md: &str) {
    let text = section(md, "vm");
    // Table titles are bold lines in the Markdown; notes are list items.
    let titles: Vec<&str> = text.lines().filter(|l| l.starts_with("**")).collect();
    for title in [
        "time per iteration of each program",
        "seed 001 on programs",
        "seed 003 on programs",
        "seed 000 on start-up",
        "seed 002",
        "seed 004 on programs",
    ] {
        assert!(
            titles.iter().any(|t| t.contains(title)),
            "no table titled …{title}…: {titles:?}"
        );
    }
    // The JIT column is there exactly when the VM takes -Xcomp, and its
    // absence is said, never filled with interpreter figures.
    let programs = text
        .split("\n**")
        .find(|t| t.contains("time per iteration of each program"))
        .unwrap();
    let header = programs.lines().find(|l| l.starts_with("| ")).unwrap();
    let has_jit_column = header.contains("| fastpath-vm JIT");
    let says_no_jit = programs
        .lines()
        .any(|n| n.starts_with("- fastpath-vm JIT: not in this build"));
    assert!(has_jit_column != says_no_jit, "{programs}");

    let hotspot_expected = std::env::var_os("CI").is_some() || std::env::var_os("FASTPATH_VM_JDK").is_some();
    let back = rows_of(dir, "vm");
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
        eprintln!("all_writes_a_report_whose_json_parses_and_compares: no JDK 21+ found: HotSpot's rows not checked");
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
    assert!(monitor_inflated > 0.0, "monitor mode counted no monitor: {text}");
    // Seed 003: the no-barrier baseline and a preset, in passive mode.
    let barriers = rows("barriers", "fastpath-vm");
    for set in ["none", "shenandoah"] {
        assert!(barriers.iter().any(|r| r.params["config"] == set), "no {set} row");
    }
    // Each process's warm-up iterations and its rounds are in the rows; a
    // barrier set's row has its per-round paired ratios against none, and
    // fastpath-vm's shenandoah rows the goal's verdict where HotSpot ran.
    for r in &barriers {
        assert!(r.warmup_iterations > 0 && r.forks >= 1, "{}", r.key());
        let paired = r.secondary_metrics.get("paired_ratio_vs_no_barriers");
        assert_eq!(paired.is_some(), r.params["config"] != "none", "{}", r.key());
        if let Some(m) = paired {
            assert_eq!(m.raw_data[0].len(), r.forks as usize, "{}", r.key());
            assert!(m.score_confidence[0] <= m.score && m.score <= m.score_confidence[1]);
        }
    }
    if hotspot_ran {
        let verdicts: Vec<f64> = barriers
            .iter()
            .filter(|r| r.params["config"] == "shenandoah")
            .filter_map(|r| r.secondary_metrics.get("goal_verdict"))
            .map(|m| m.score)
            .collect();
        assert!(!verdicts.is_empty(), "no goal verdict on the shenandoah rows");
        // One round has no spread: undecided.
        assert!(verdicts.iter().all(|&v| v == 0.0), "{verdicts:?}");
        let goal = text
            .split("\n**")
            .find(|t| t.contains("seed 003's goal"))
            .expect("the goal table");
        let header = goal.lines().find(|l| l.starts_with("| ")).unwrap();
        assert!(header.contains("verdict"), "{goal}");
        assert!(goal.contains("| undecided"), "{goal}");
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

#[test]
fn compare_reports_a_missing_file_clearly() {
    let out = fastpath()
        .args(["compare", "/nonexistent/a.json", "/nonexistent/b.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/a.json"));
}

#[test]
fn icache_refuses_sizes_it_cannot_run() {
    // 0 used to be clamped silently; 10^8 stubs used to allocate code
    // memory until the machine ran out (about 32 GB).
    for args in [["--stubs", "0"], ["--stubs", "100000000"], ["--iterations", "1"]] {
        let out = fastpath().arg("icache").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(args[0]), "{args:?}: {err}");
    }
}

/// A result file with one row, for the `compare` tests.
fn result_file(dir: &std::path::Path, name: &str, workload: &str) -> PathBuf {
    use fastpath_lab::report::{jmh, BenchResult, Mode};
    use fastpath_lab::stats::Stats;
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    let r = BenchResult::new(
        "t",
        workload,
        Mode::AverageTime,
        &Stats::from_samples(vec![1.0, 2.0]),
        "ns/op",
    );
    std::fs::write(&path, jmh::to_json(&[r])).unwrap();
    path
}

/// `fastpath … | head` used to panic ("failed printing to stdout: Broken
/// pipe", exit 101). Here the reader is gone before the child writes.
#[test]
fn output_to_a_closed_pipe_ends_quietly() {
    use std::os::fd::{FromRawFd as _, OwnedFd};
    let dir = scratch("pipe");
    let f = result_file(&dir, "a.json", "x");
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors were just returned by pipe(2) and are owned
    // by nothing else.
    let (read_end, write_end) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read_end);
    // The experiment writes its results under --out before it prints its
    // tables: a lock.json there means it measured on for nobody.
    let measured = dir.join("lock-out");
    let runs: [Vec<std::ffi::OsString>; 4] = [
        vec!["compare".into(), f.clone().into(), f.clone().into()],
        vec!["cpu".into()],
        vec!["--help".into()],
        // An experiment: its tables are printed after it measured.
        vec![
            "lock".into(),
            "--quick".into(),
            "--out".into(),
            measured.clone().into(),
        ],
    ];
    for args in runs {
        let start = std::time::Instant::now();
        let out = fastpath()
            .args(&args)
            .stdout(write_end.try_clone().unwrap())
            .output()
            .unwrap();
        let took = start.elapsed();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "{args:?}: {err}"
        );
        println!("{args:?}: exit 0 in {took:?}");
    }
    // The lock experiment measures its three tables (seconds each) before
    // it writes or prints anything: with nobody reading, it stopped at
    // once, before its results (a count of events, not a time: a loaded
    // machine can make the stop itself take seconds).
    assert!(
        !measured.join("lock.json").exists(),
        "lock measured on for a closed pipe"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--out` is checked before anything is measured, once, naming the path.
#[test]
fn a_bad_out_directory_is_refused_before_measuring() {
    let dir = scratch("out");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    let missing_parent = "/proc/fastpath-no-such-dir";
    let cases: [(Vec<std::ffi::OsString>, &str, &str); 3] = [
        (
            vec![
                "lock".into(),
                "--quick".into(),
                "--out".into(),
                missing_parent.into(),
            ],
            missing_parent,
            "cannot create the directory",
        ),
        (
            vec!["all".into(), "--out".into(), missing_parent.into()],
            missing_parent,
            "cannot create the directory",
        ),
        (
            vec![
                "icache".into(),
                "--quick".into(),
                "--out".into(),
                file.clone().into(),
            ],
            file.to_str().unwrap(),
            "exists and is not a directory",
        ),
    ];
    for (args, path, why) in cases {
        let started = std::time::Instant::now();
        let out = fastpath().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.matches(path).count(), 1, "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
        // Nothing ran: no experiment's banner, no table.
        assert!(!err.contains("== ") && out.stdout.is_empty(), "{args:?}: {err}");
        println!("{args:?} refused in {:?}", started.elapsed());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compare_of_unrelated_files_says_so_and_fails() {
    let dir = scratch("unrelated");
    let a = result_file(&dir, "a.json", "one");
    let b = result_file(&dir, "b.json", "two");
    let out = fastpath().arg("compare").arg(&a).arg(&b).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("1 baseline row(s) and 1 change row(s) have no partner"),
        "{err}"
    );
    assert!(err.contains("no row was compared"), "{err}");
    // No table of rows that pair with nothing: the warning names them.
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        err.contains("left out of the table") && err.contains("one"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn help_documents_the_environment_and_compare_arguments() {
    let out = fastpath().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for v in fastpath::config::variables() {
        assert!(help.contains(v.var), "{}: {help}", v.var);
    }
    assert!(help.contains("Environment"), "{help}");
    let out = fastpath().args(["compare", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("BASELINE.json") && help.contains("The reference run"),
        "{help}"
    );
    assert!(
        help.contains("--raw") && help.contains("whole-run shift: baseline row"),
        "{help}"
    );
    let out = fastpath().args(["all", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("--full"));
}

/// Two runs of an interleaved table, the second 16% slower as a whole:
/// `compare` states the shift above the table and moves no row; `--raw`
/// judges the rows on their own figures and moves them all.
#[test]
fn compare_states_a_whole_run_shift_and_raw_judges_without_it() {
    use fastpath_lab::report::{jmh, BenchResult, Metric, Mode};
    use fastpath_lab::stats::Stats;
    let dir = scratch("shift");
    std::fs::create_dir_all(&dir).unwrap();
    let run = |name: &str, k: f64| {
        let rows: Vec<BenchResult> = [("cas-pair", 20.0), ("uncontended", 26.0), ("std-mutex", 17.0)]
            .iter()
            .enumerate()
            .map(|(j, (row, level))| {
                let xs = (0..60)
                    .map(|i| level * k * (1.0 + 0.002 * ((i * 7 + j * 3) % 11) as f64))
                    .collect();
                BenchResult::new("lock", row, Mode::AverageTime, &Stats::from_samples(xs), "ns/op")
                    .secondary("ratio_to_cas_pair", Metric::single(1.0, "x"))
            })
            .collect();
        let path = dir.join(name);
        std::fs::write(&path, jmh::to_json(&rows)).unwrap();
        path
    };
    let (a, b) = (run("a.json", 1.0), run("b.json", 1.16));
    let verdicts = |raw: bool| -> (String, Vec<String>) {
        let mut cmd = fastpath();
        cmd.arg("compare").arg(&a).arg(&b);
        if raw {
            cmd.arg("--raw");
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let v = text
            .lines()
            .filter(|l| l.contains(" [threads="))
            .map(|l| l.split_whitespace().last().unwrap().to_string())
            .collect();
        (text, v)
    };
    let (text, v) = verdicts(false);
    assert!(
        text.starts_with(
            "whole-run shift: baseline row cas-pair +16.0% (beyond its intervals and the least change)"
        ),
        "{text}"
    );
    assert_eq!(v, ["reference", "same", "same"], "{text}");
    let (text, v) = verdicts(true);
    assert!(text.contains("(--raw)"), "{text}");
    assert_eq!(v, ["reference", "baseline", "baseline"], "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every numeric option has a range, checked before anything runs: exit 2
/// and the range, never a silent clamp, a panic or an abort.
#[test]
fn every_numeric_option_out_of_range_exits_2_with_its_range() {
    let cases: &[(&[&str], &str)] = &[
        (&["gc", "--only", "pauses", "--heap-mib", "0"], "16..=65536"),
        (&["gc", "--heap-mib", "100000"], "16..=65536"),
        (&["gc", "--mutators", "5000"], "1..=256"),
        (&["gc", "--mutators", "0"], "1..=256"),
        (&["gc", "--rounds", "0"], "1..=10000"),
        (&["gc", "--seconds", "0"], "1..=3600"),
        (&["lock", "--threads", "30000"], "1..=1024"),
        (&["lock", "--threads", "0"], "1..=1024"),
        (&["startup", "--runs", "0"], "1..=1000"),
        (&["startup", "--idle-ms", "100000"], "0..=60000"),
        (&["icache", "--stubs", "0"], "1..=100000"),
        (&["icache", "--iterations", "1"], "2..=1000000"),
        (
            &["compare", "--min-change", "2000", "a.json", "b.json"],
            "from 0 to 1000",
        ),
        (
            &["compare", "--min-change=-1", "a.json", "b.json"],
            "from 0 to 1000",
        ),
        (
            &["compare", "--min-change", "-1", "a.json", "b.json"],
            "from 0 to 1000",
        ),
        (&["lock", "--threads", "-1"], "1..=1024"),
        (&["startup", "--idle-ms", "-5"], "0..=60000"),
        (&["startup", "--runs", "-2"], "1..=1000"),
        // In range each, but not together: the pause table's live set
        // would not fit (this used to panic once per mutator thread).
        (
            &["gc", "--only", "pauses", "--heap-mib", "16", "--mutators", "256"],
            "--heap-mib 1024 or more",
        ),
        (
            &["gc", "--only", "pauses", "--quick", "--mutators", "64"],
            "--mutators 8 or fewer",
        ),
    ];
    for (args, range) in cases {
        let started = std::time::Instant::now();
        let out = fastpath().args(*args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(range), "{args:?}: {err}");
        assert!(
            out.stdout.is_empty() && !err.contains("== "),
            "{args:?}: ran something: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(started.elapsed().as_secs() < 10, "{args:?}: not refused at once");
    }
}

/// `--prof` on a command that measures nothing is refused, not ignored,
/// and not offered by its `--help`.
#[test]
fn prof_is_refused_by_commands_that_measure_nothing() {
    for args in [
        &["cpu", "--prof", "perfnorm"][..],
        &["compare", "a.json", "b.json", "--prof", "perfnorm"],
        &["--prof", "perfnorm", "cpu"],
    ] {
        let out = fastpath().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("--prof"), "{args:?}: {err}");
    }
    let experiments = fastpath_lab::experiments::registry();
    let mut cli = fastpath_lab::cli::cli(&experiments);
    for sub in ["cpu", "compare"] {
        let help = cli
            .find_subcommand_mut(sub)
            .unwrap()
            .render_long_help()
            .to_string();
        assert!(!help.contains("--prof"), "{sub} --help offers --prof: {help}");
    }
    let help = cli
        .find_subcommand_mut("lock")
        .unwrap()
        .render_long_help()
        .to_string();
    assert!(help.contains("--prof"), "{help}");
}

/// Every numeric option of every command shows its range in `--help`, and
/// a negative number gets that range back (exit 2), not clap's
/// "unexpected argument '-1'". Walks the command line definition, so an
/// option added later is checked too.
#[test]
fn every_numeric_option_shows_its_range_and_refuses_a_negative_with_it() {
    use clap::builder::ValueParser;
    let experiments = fastpath_lab::experiments::registry();
    let cli = fastpath_lab::cli::cli(&experiments);
    let numeric: Vec<_> = [
        ValueParser::from(clap::value_parser!(u8)),
        clap::value_parser!(u16).into(),
        clap::value_parser!(u32).into(),
        clap::value_parser!(u64).into(),
        clap::value_parser!(usize).into(),
        clap::value_parser!(i64).into(),
        clap::value_parser!(f64).into(),
    ]
    .iter()
    .map(|p: &ValueParser| p.type_id())
    .collect();
    let mut checked = 0;
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        // The arguments a run of `sub` needs besides the one under test.
        let required: Vec<String> = sub
            .get_positionals()
            .filter(|a| a.is_required_set())
            .map(|a| format!("{}.json", a.get_id()))
            .collect();
        for arg in sub.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            if !numeric.contains(&arg.get_value_parser().type_id()) {
                continue;
            }
            let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            // "… 1 to 1024 …" in the help; clap's refusal says 1..=1024.
            let words: Vec<&str> = help
                .split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')' || c == ';')
                .filter(|w| !w.is_empty())
                .collect();
            let range = words.windows(3).find_map(|t| {
                let num = |w: &str| w.parse::<f64>().ok().map(|_| w.to_string());
                Some((num(t[0])?, (t[1] == "to").then_some(())?, num(t[2])?))
            });
            let Some((lo, (), hi)) = range else {
                panic!("{} --{long}: no range in its help: {help}", sub.get_name());
            };
            let mut argv = vec![
                "fastpath".to_string(),
                sub.get_name().to_string(),
                format!("--{long}"),
                "-1".into(),
            ];
            argv.extend(required.iter().cloned());
            let err = cli
                .clone()
                .try_get_matches_from(&argv)
                .expect_err("a negative number is refused");
            let text = err.to_string();
            assert_eq!(err.exit_code(), 2, "{argv:?}: {text}");
            assert!(
                !text.contains("unexpected argument") && text.contains("-1"),
                "{argv:?}: {text}"
            );
            assert!(
                text.contains(&format!("{lo}..={hi}")) || text.contains(&format!("{lo} to {hi}")),
                "{argv:?}: the refusal does not give the range {lo} to {hi}: {text}"
            );
            checked += 1;
        }
    }
    println!("{checked} numeric options refuse a negative number with their range");
    assert!(checked >= 12, "{checked}");
}

/// A failed write to stdout (a full disk) is a failure, not exit 0.
#[test]
fn failing_to_write_output_is_a_failure() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        println!("no /dev/full here: nothing to check");
        return;
    };
    let out = fastpath().arg("cpu").stdout(full).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("writing to stdout"), "{err}");
}

/// `compare` reads at most a bounded amount: an endless file is refused at
/// once instead of growing without end.
#[test]
fn compare_bounds_what_it_reads() {
    let dir = scratch("zero");
    let f = result_file(&dir, "a.json", "x");
    let started = std::time::Instant::now();
    let out = fastpath()
        .args(["compare", "/dev/zero"])
        .arg(&f)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("/dev/zero") && err.contains("larger than"), "{err}");
    assert!(started.elapsed().as_secs() < 20, "took {:?}", started.elapsed());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two folders (two `--out` runs) are compared file by file, paired by
/// name; a file in one folder only is named.
#[test]
fn compare_pairs_two_folders_by_file_name() {
    let dir = scratch("folders");
    let (a, b) = (dir.join("a"), dir.join("b"));
    result_file(&a, "lock.json", "one");
    result_file(&b, "lock.json", "one");
    result_file(&a, "spin.json", "two");
    result_file(&b, "gc.json", "three");
    let out = fastpath().arg("compare").arg(&a).arg(&b).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{err}");
    assert!(
        text.contains("== lock.json ==") && text.contains("(fastpath.t.…)") && text.contains("\none "),
        "{text}"
    );
    assert!(err.contains("spin.json") && err.contains("gc.json"), "{err}");
    // A folder against a file is a mistake, said as such.
    let out = fastpath()
        .arg("compare")
        .arg(&a)
        .arg(b.join("lock.json"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("two files or two folders"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A misspelt `FASTPATH_*` name is warned about, with the nearest known
/// name; `compare` does not read the configuration, so a bad value of a
/// variable it never uses does not stop it.
#[test]
fn unknown_variables_are_warned_about_and_compare_ignores_the_configuration() {
    let dir = scratch("envwarn");
    let f = result_file(&dir, "a.json", "x");
    let out = fastpath()
        .arg("compare")
        .arg(&f)
        .arg(&f)
        .env("FASTPATH_LOCK_MODE", "legacy")
        .env("FASTPATH_SPIN_PAUSE", "no-such-pause")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("FASTPATH_LOCK_MODE is not a fastpath variable")
            && err.contains("did you mean FASTPATH_LOCKING_MODE"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The longest a test waits for a stage of a child's run (a hard cap: on a
/// loaded machine a stage can take many times its usual seconds; a run that
/// never gets there fails clearly).
const STAGE_CAP_SECS: u64 = 300;

/// Waits until `path` exists (what the child writes when a stage is done),
/// at most `secs`.
fn wait_for(path: &std::path::Path, secs: u64) -> bool {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < until {
        if path.exists() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

/// Reads `child`'s piped stderr on a thread of its own until `line` comes
/// (at most `secs`): returns whether it came, and the reader, which yields
/// all of stderr once the child has exited.
fn stderr_until(
    child: &mut std::process::Child,
    line: &str,
    secs: u64,
) -> (bool, std::thread::JoinHandle<String>) {
    use std::io::BufRead as _;
    let stderr = child.stderr.take().expect("stderr piped");
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for l in std::io::BufReader::new(stderr).lines() {
            let Ok(l) = l else { break };
            all.push_str(&l);
            all.push('\n');
            // The receiver leaves once its line came: later lines are only kept.
            let _ = tx.send(l);
        }
        all
    });
    let until = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        let left = until.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(l) if l == line => return (true, reader),
            Ok(_) => {}
            // Timed out, or stderr closed (the child exited) without it.
            Err(_) => return (false, reader),
        }
    }
}

/// `fastpath args… dir` started, its stdout and stderr piped.
fn spawn_piped(args: &[&str], dir: &std::path::Path) -> std::process::Child {
    use std::process::Stdio;
    fastpath()
        .args(args)
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn interrupt(child: &std::process::Child) {
    // SAFETY: kill(2) with the pid of a child this test spawned and has
    // not yet waited for.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
}

/// Ctrl-C leaves no empty `--out` folder behind, and an interrupted `all`
/// keeps a partial report of what finished.
#[test]
fn ctrl_c_removes_an_empty_out_folder_and_keeps_alls_partial_report() {
    use std::process::Stdio;
    let dir = scratch("sigint");
    // An experiment: interrupted while measuring (seconds), before writing
    // anything.
    let out_dir = dir.join("new/out");
    let child = fastpath()
        .args(["lock", "--quick", "--only", "contended", "--out"])
        .arg(&out_dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert!(wait_for(&out_dir, STAGE_CAP_SECS), "the run never created --out");
    std::thread::sleep(std::time::Duration::from_millis(300));
    interrupt(&child);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    assert!(!dir.join("new").exists(), "an empty --out folder was left behind");
    // `all`: interrupted once its first experiment is done. Not when that
    // experiment's JSON appears: the file is written before `all` records
    // the experiment as finished, and an interrupt in between leaves a
    // partial report without it. `all` announces the second experiment
    // on stderr only after recording the first.
    let experiments = fastpath_lab::experiments::registry();
    let (first, second) = (experiments[0].name(), experiments[1].name());
    let all_dir = dir.join("all");
    let mut child = fastpath()
        .args(["all", "--out"])
        .arg(&all_dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (second_began, reader) = stderr_until(&mut child, &format!("== {second} =="), STAGE_CAP_SECS);
    if !second_began {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{first} never finished: {}", reader.join().unwrap());
    }
    interrupt(&child);
    let status = child.wait().unwrap();
    let err = reader.join().unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    let md = std::fs::read_to_string(all_dir.join("report.md")).expect("a partial report");
    assert!(
        md.contains("**Partial report**") && md.contains(&format!("| [{first}](#{first}) | ok |")),
        "{md}"
    );
    assert!(all_dir.join(format!("{first}.json")).exists(), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Output piped into a reader that leaves (`fastpath all | head`) stops the
/// run there, with the partial report written, instead of running on. The
/// reader takes the first byte of the first table and then closes its end;
/// the run stops within the experiment that follows (spin), so icache, the
/// third, never starts.
#[test]
fn a_closed_pipe_stops_all_after_the_first_table() {
    use std::io::Read as _;
    let dir = scratch("epipe-all");
    let mut child = spawn_piped(&["all", "--quick", "--out"], &dir);
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 1];
    stdout.read_exact(&mut first).expect("the first table begins");
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("== startup ==") && !err.contains("== icache =="),
        "ran on: {err}"
    );
    let md = std::fs::read_to_string(dir.join("report.md")).expect("a partial report");
    assert!(md.contains("**Partial report**"), "{md}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A reader gone before the run starts: the run stops at once, exit 0,
/// before any experiment past the first.
#[test]
fn a_pipe_closed_before_the_start_stops_all_at_once() {
    use std::os::fd::{FromRawFd as _, OwnedFd};
    let dir = scratch("epipe-start");
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe(2) writes.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors were just returned by pipe(2) and are owned
    // by nothing else.
    let (read_end, write_end) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read_end);
    let out = fastpath()
        .args(["all", "--quick", "--out"])
        .arg(&dir)
        .stdout(write_end)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("== spin =="), "ran on: {err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A finished result is never replaced without the user asking: a second
/// run into the same folder is refused before it measures anything,
/// naming the file and `--force`; with `--force` it replaces it. `all`
/// refuses a folder holding an earlier report the same way.
#[test]
fn an_existing_result_is_not_silently_replaced() {
    let dir = scratch("keep");
    let icache = |force: bool| {
        let mut cmd = fastpath();
        cmd.args(["icache", "--quick", "--iterations", "2", "--stubs", "1", "--out"])
            .arg(&dir);
        if force {
            cmd.arg("--force");
        }
        cmd.output().unwrap()
    };
    let first = icache(false);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let json = dir.join("icache.json");
    let written = std::fs::read_to_string(&json).unwrap();
    let again = icache(false);
    let err = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(1), "{err}");
    assert!(err.contains("icache.json") && err.contains("--force"), "{err}");
    assert!(again.stdout.is_empty(), "measured before refusing");
    assert_eq!(
        std::fs::read_to_string(&json).unwrap(),
        written,
        "the earlier result changed"
    );
    let forced = icache(true);
    assert!(
        forced.status.success(),
        "{}",
        String::from_utf8_lossy(&forced.stderr)
    );
    assert_ne!(
        std::fs::read_to_string(&json).unwrap(),
        written,
        "--force did not replace it"
    );
    // `all` into a folder with an earlier run's files: refused at once.
    let out = fastpath().args(["all", "--out"]).arg(&dir).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("icache.json") && !err.contains("== startup =="),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Ctrl-C during a single experiment keeps the tables it finished: the
/// lock experiment interrupted after its pairs table has printed it and
/// written its rows, exits 130, and says what it kept.
#[test]
fn an_interrupted_experiment_keeps_its_finished_tables() {
    use std::io::Read as _;
    let dir = scratch("keep-tables");
    let json = dir.join("lock.json");
    let mut child = spawn_piped(&["lock", "--quick", "--out"], &dir);
    // The pairs table (the first) is kept when its last line, the
    // inflations it caused, is printed: lock.json is written before it.
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let (mut all, mut buf) = (String::new(), [0u8; 4096]);
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 {
                break;
            }
            all.push_str(&String::from_utf8_lossy(&buf[..n]));
            if all.contains("during this table:") && all.ends_with('\n') {
                let _ = tx.send(());
            }
        }
        all
    });
    let kept = rx
        .recv_timeout(std::time::Duration::from_secs(STAGE_CAP_SECS))
        .is_ok();
    interrupt(&child);
    let out = child.wait_with_output().unwrap();
    let stdout = reader.join().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(kept, "the pairs table was never printed: {err}\n{stdout}");
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        stdout.contains("Lock + unlock pair"),
        "the pairs table was not printed: {stdout}"
    );
    let rows = fastpath_lab::report::jmh::from_json(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(
        rows.iter().any(|r| r.benchmark.ends_with(".cas-pair")),
        "{} rows",
        rows.len()
    );
    assert!(err.contains("kept the") && err.contains("lock.json"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each result row records its run (CPU, configuration, quick or full,
/// commit, date), and `compare` warns when two runs differ in any of them
/// but the date.
#[test]
fn result_files_record_their_run_and_compare_warns_when_runs_differ() {
    let dir = scratch("runinfo");
    let run = |name: &str, sync: &str| {
        let out = fastpath()
            .args(["icache", "--quick", "--iterations", "2", "--stubs", "1", "--out"])
            .arg(dir.join(name))
            .env("FASTPATH_ICACHE_SYNC", sync)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        dir.join(name).join("icache.json")
    };
    let (a, b) = (run("a", "auto"), run("b", "none"));
    let text = std::fs::read_to_string(&a).unwrap();
    let rows = fastpath_lab::report::jmh::from_json(&text).unwrap();
    let info = rows[0].run.as_ref().expect("fastpathRun");
    assert_eq!(info.mode, "quick");
    assert!(
        info.configuration.contains("FASTPATH_ICACHE_SYNC=auto"),
        "{info:?}"
    );
    assert!(
        info.cpu.contains("family") && info.date.ends_with('Z'),
        "{info:?}"
    );
    // Built from this git checkout: the commit is recorded.
    if std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../.git")).exists() {
        assert_eq!(info.commit.as_deref().map(str::len), Some(40), "{info:?}");
    }
    let out = fastpath().arg("compare").arg(&a).arg(&b).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("differ in more than the change") && err.contains("FASTPATH_ICACHE_SYNC=none"),
        "{err}"
    );
    // The same run against itself: no such warning.
    let out = fastpath().arg("compare").arg(&a).arg(&a).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("differ in more"));
    let _ = std::fs::remove_dir_all(&dir);
}
