//! Inlining, seen from the command line: the corpus program
//! `InlinedFrames` (an exception thrown through inlined frames with its
//! stack trace, a handler inside an inlined callee, helpful
//! `NullPointerException` messages in and after inlined callees,
//! collections during calls out of an inlined callee) gives HotSpot's
//! output, stdout and stderr, under `-Xcomp` and the default tiers after
//! 2 calls, with the JIT's summary reporting the calls inlined. The
//! corpus's jit matrix runs it under GC stress (`-Xcomp`, a 16 MiB heap
//! that must collect, the passive and the concurrent collector, the heap
//! verifier after every cycle), its gc matrix under every barrier set.

mod harness;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// Compiles `InlinedFrames` from the corpus into a directory of its own.
fn classes() -> PathBuf {
    let dir = harness::scratch_dir("fastpath-vm-jit-inline");
    let src = harness::corpus_dir().join("InlinedFrames.java");
    harness::javac(&dir, &[src], &["-Xlint:-options", "-encoding", "UTF-8"]);
    dir
}

/// Runs `InlinedFrames` with `env` and `opts`; stdout, stderr (the JIT's
/// summary line removed) and the number of calls inlined.
fn run(classes: &PathBuf, env: &[(&str, &str)], opts: &[&str]) -> (String, String, u64) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fastpath-vm"));
    cmd.env("FASTPATH_VM_JIT_LOG", "1")
        .envs(env.iter().copied())
        .args(opts)
        .arg("-cp")
        .arg(classes)
        .arg("InlinedFrames");
    let o =
        harness::run_with_limit(cmd, Duration::from_secs(300)).unwrap_or_else(|e| panic!("{opts:?}: {e}"));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status, Some(0), "fastpath-vm {opts:?} failed:\n{out}\n{err}");
    let summary = err
        .lines()
        .find(|l| l.starts_with("fastpath-vm jit: "))
        .unwrap_or_else(|| panic!("no JIT summary on stderr:\n{err}"));
    let words: Vec<&str> = summary.split_whitespace().collect();
    assert_eq!(words[8..10], ["calls", "inlined,"], "{summary}");
    let inlined = words[7].parse().unwrap();
    let rest: String = err
        .lines()
        .filter(|l| !l.starts_with("jit: ") && !l.starts_with("fastpath-vm jit: "))
        .map(|l| format!("{l}\n"))
        .collect();
    (out, rest, inlined)
}

/// A run's environment and options.
type Tier = (&'static [(&'static str, &'static str)], &'static [&'static str]);

#[test]
fn exceptions_and_collections_through_inlined_frames_match_hotspot() {
    let classes = classes();
    let expected = harness::corpus_dir().join("expected");
    let want_out = std::fs::read_to_string(expected.join("InlinedFrames.out")).unwrap();
    let want_err = std::fs::read_to_string(expected.join("InlinedFrames.err")).unwrap();
    let runs: [Tier; 2] = [
        (&[], &["-Xcomp"]),
        (&[("FASTPATH_VM_JIT_THRESHOLD", "2")], &["-Xbatch"]),
    ];
    for (env, opts) in runs {
        let (out, err, inlined) = run(&classes, env, opts);
        assert_eq!(out, want_out, "stdout under {env:?} {opts:?}");
        assert_eq!(err, want_err, "stderr (the stack trace) under {env:?} {opts:?}");
        // level2 -> twice -> check, parseOr -> check, idOf -> id, nextId
        // -> next, build -> link, link -> next, sum -> idOf / next: at
        // least these ten.
        assert!(inlined >= 10, "{inlined} calls inlined under {env:?} {opts:?}");
    }
}
