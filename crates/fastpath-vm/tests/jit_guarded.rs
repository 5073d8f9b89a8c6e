//! Virtual calls inlined behind a guard, seen from the command line: the
//! corpus program `LateOverride` compiles `total`, whose virtual call has
//! one implementation among the loaded classes, before a subclass
//! overriding it is loaded (`-Xcomp`, and the default tiers after 2
//! calls); the JIT's log shows the call inlined behind a guard, the
//! output is HotSpot's (the overriding class's method runs, and throws
//! through the call site with HotSpot's trace), and the guard misses
//! counted are exactly the calls whose receiver is of the late class: the
//! thousand calls before it was loaded took the inlined path.

mod harness;

use harness::summary_count as count;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// Compiles `LateOverride` from the corpus into a directory of its own.
fn classes() -> PathBuf {
    let dir = harness::scratch_dir("fastpath-vm-jit-guarded");
    let src = harness::corpus_dir().join("LateOverride.java");
    harness::javac(
        &dir,
        &[src],
        &["-Xlint:-options", "--release", "17", "-encoding", "UTF-8"],
    );
    dir
}

/// Runs `LateOverride` with `env`, `opts` and `args`: stdout, stderr
/// without the JIT's lines, the JIT's log, its summary.
fn run(
    classes: &PathBuf,
    env: &[(&str, &str)],
    opts: &[&str],
    args: &[&str],
) -> (String, String, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fastpath-vm"));
    cmd.env("FASTPATH_VM_JIT_LOG", "1")
        .envs(env.iter().copied())
        .args(opts)
        .arg("-cp")
        .arg(classes)
        .arg("LateOverride")
        .args(args);
    let o = harness::run_with_limit(cmd, Duration::from_secs(300))
        .unwrap_or_else(|e| panic!("{env:?} {opts:?}: {e}"));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(
        o.status,
        Some(0),
        "fastpath-vm {env:?} {opts:?} failed:\n{out}\n{err}"
    );
    let summary = err
        .lines()
        .find(|l| l.starts_with("fastpath-vm jit: "))
        .unwrap_or_else(|| panic!("no JIT summary on stderr:\n{err}"))
        .to_string();
    let ours = |l: &str| l.starts_with("jit: ") || l.starts_with("fastpath-vm jit: ");
    let rest = err
        .lines()
        .filter(|l| !ours(l))
        .map(|l| format!("{l}\n"))
        .collect();
    let log = err
        .lines()
        .filter(|l| l.starts_with("jit: "))
        .map(|l| format!("{l}\n"))
        .collect();
    (out, rest, log, summary)
}

#[test]
fn a_class_loaded_late_overrides_a_call_inlined_behind_a_guard() {
    let classes = classes();
    let expected = harness::corpus_dir().join("expected");
    let want_out = std::fs::read_to_string(expected.join("LateOverride.out")).unwrap();
    let want_err = std::fs::read_to_string(expected.join("LateOverride.err")).unwrap();
    type Tier = (&'static [(&'static str, &'static str)], &'static [&'static str]);
    let tiers: [Tier; 2] = [
        (&[("FASTPATH_VM_JIT_THRESHOLD", "2")], &["-Xbatch"]),
        (&[], &["-Xcomp"]),
    ];
    for (env, opts) in tiers {
        let (out, err, log, summary) = run(&classes, env, opts, &[]);
        assert_eq!(out, want_out, "stdout under {env:?} {opts:?}");
        assert_eq!(err, want_err, "stderr (the trace) under {env:?} {opts:?}");
        let total = log
            .lines()
            .find(|l| l.starts_with("jit: LateOverride.total(") && !l.contains(" OSR at "))
            .unwrap_or_else(|| panic!("total not compiled under {env:?} {opts:?}:\n{log}"));
        assert!(
            total.ends_with(" 1 calls inlined behind a guard"),
            "total's weight() call not inlined behind a guard: {total}"
        );
        // Without the late class's part, the same run misses the guards
        // of everything else it compiled (the class library's) as often:
        // the difference is total's misses, the 1000 calls of
        // `total(mixed, 1000)` on a `Late` and the one that throws.
        let (early_out, _, _, early_summary) = run(&classes, env, opts, &["early"]);
        assert_eq!(early_out, want_out.lines().next().unwrap().to_string() + "\n");
        let misses = count(&summary, "guard misses");
        let early_misses = count(&early_summary, "guard misses");
        assert_eq!(
            misses.checked_sub(early_misses),
            Some(1001),
            "guard misses {misses} with the late class, {early_misses} without, under {env:?} {opts:?}"
        );
    }
}
