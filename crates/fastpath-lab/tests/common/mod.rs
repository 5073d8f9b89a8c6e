//! What the lab's integration tests share: the binary, scratch folders, a
//! run that must succeed, the pairs table's rows, and whether
//! `--prof perfnorm` can count here.
// Each test binary uses its own part.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

use fastpath_lab::harness::perfnorm::{Profiler, Source};

/// Whether `--prof perfnorm` has a path on this machine (hardware counters,
/// or valgrind for the simulated fallback). Under CI a missing valgrind is
/// a failure (`.ci/run` installs it), never a silent skip; elsewhere the
/// test `name` says on stderr that it checked nothing.
pub fn can_profile(name: &str) -> bool {
    let pmu = Profiler::sense(name)
        .source()
        .is_ok_and(|s| s == Source::Hardware);
    let valgrind = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if pmu || valgrind {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set but valgrind is missing: .ci/run installs it"
    );
    eprintln!("{name}: no hardware counters, valgrind not installed and CI unset: nothing checked");
    false
}

/// The `fastpath` binary of this build.
pub fn fastpath() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fastpath"))
}

/// A scratch folder path for test `name`, unique to this process, empty
/// (an earlier one removed); not created.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fastpath-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Runs `cmd`, which must succeed, and returns its stdout (on failure the
/// assertion shows stdout and stderr).
pub fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.output().expect("runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// The lock pairs table's single-threaded rows (all but `contended-2t`).
pub const SINGLE_THREADED_PAIRS: [&str; 12] = [
    "cas-pair",
    "uncontended",
    "after-deflation",
    "recursive",
    "churn",
    "synchronized",
    "monitor-mode",
    "monitor-churn",
    "parking-lot-mutex",
    "parking-lot-reentrant",
    "std-mutex",
    "parking-lot-reentrant-recursive",
];
