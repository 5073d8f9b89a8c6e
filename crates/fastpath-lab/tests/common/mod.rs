//! What the smoke tests share.

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
