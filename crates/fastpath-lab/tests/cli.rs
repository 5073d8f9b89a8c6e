//! The CLI as a user meets it: exit codes, `all` writing a parseable report,
//! `compare` reading it back.

use std::path::PathBuf;
use std::process::Command;

fn fastpath() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fastpath"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fastpath-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

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
        .args(["compare", "a", "b"])
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

#[test]
fn all_writes_a_report_whose_json_parses_and_compares() {
    let dir = scratch("all");
    let out = fastpath().arg("all").arg("--out").arg(&dir).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "fastpath all failed: {stderr}");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.starts_with("# fastpath report"), "{md}");
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
    let _ = std::fs::remove_dir_all(&dir);
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
