//! On-stack replacement, seen from the command line: the corpus program
//! `OsrLoops`, whose eleven loops each run in a method called once (main
//! among them), gives HotSpot's output, stdout and stderr (two stack
//! traces through frames that entered compiled code mid-loop), under the
//! default tiers and with a compile threshold of 2 calls, with the JIT's
//! summary counting an OSR entry for every loop and the log naming each
//! method; under a 16 MiB heap with the evacuating collector and the heap
//! verifier, the list `allocate` builds while it runs compiled survives
//! the cycles; `-Xint` and `-Xcomp` enter no OSR code. The corpus runs
//! the program too: the jit matrix under `-Xint` and after 2 calls, the
//! locking matrix in every locking mode, the gc matrix under every
//! barrier set, passive and concurrent.

use crate::harness;

use harness::summary_count as count;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// The methods whose loops move into compiled code.
const LOOPS: [&str; 11] = [
    "kinds",
    "allocate",
    "caughtHere",
    "escapes",
    "escapesLate",
    "nullAt",
    "syncLoop",
    "syncThrows",
    "heldMonitor",
    "sumSquares",
    "main",
];

/// Compiles `OsrLoops` from the corpus into a directory of its own.
fn classes() -> PathBuf {
    let dir = harness::scratch_dir("fastpath-vm-jit-osr");
    let src = harness::corpus_dir().join("OsrLoops.java");
    harness::javac(
        &dir,
        &[src],
        &["-Xlint:-options", "--release", "17", "-encoding", "UTF-8"],
    );
    dir
}

/// What one run printed: stdout, stderr less the JIT's and the
/// collector's lines, the JIT's log and summary, the collector's summary.
struct Ran {
    out: String,
    err: String,
    log: String,
    jit: String,
    gc: Option<String>,
}

/// Runs `OsrLoops` with `env` and `opts`.
fn run(classes: &PathBuf, env: &[(&str, &str)], opts: &[&str]) -> Ran {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fastpath-vm"));
    cmd.env("FASTPATH_VM_JIT_LOG", "1")
        .envs(env.iter().copied())
        .args(opts)
        .arg("-cp")
        .arg(classes)
        .arg("OsrLoops");
    let o = harness::run_with_limit(cmd, Duration::from_secs(300))
        .unwrap_or_else(|e| panic!("{env:?} {opts:?}: {e}"));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(
        o.status,
        Some(0),
        "fastpath-vm {env:?} {opts:?} failed:\n{out}\n{err}"
    );
    let ours = |l: &str| l.starts_with("jit: ") || l.starts_with("fastpath-vm ");
    let jit = err
        .lines()
        .find(|l| l.starts_with("fastpath-vm jit: "))
        .unwrap_or_else(|| panic!("no JIT summary on stderr:\n{err}"))
        .to_string();
    let gc = err
        .lines()
        .find(|l| l.starts_with("fastpath-vm gc: "))
        .map(str::to_string);
    Ran {
        out,
        err: err
            .lines()
            .filter(|l| !ours(l))
            .map(|l| format!("{l}\n"))
            .collect(),
        log: err
            .lines()
            .filter(|l| l.starts_with("jit: "))
            .map(|l| format!("{l}\n"))
            .collect(),
        jit,
        gc,
    }
}

#[test]
fn loops_run_once_enter_compiled_code_and_match_hotspot() {
    let classes = classes();
    let expected = harness::corpus_dir().join("expected");
    let want_out = std::fs::read_to_string(expected.join("OsrLoops.out")).unwrap();
    let want_err = std::fs::read_to_string(expected.join("OsrLoops.err")).unwrap();
    type Tier = (&'static [(&'static str, &'static str)], &'static [&'static str]);
    // `-Xbatch`: each OSR entry compiled when first asked for, so every
    // loop, run once, enters it (in the background a loop may end first).
    let tiers: [Tier; 3] = [
        (&[], &["-Xbatch"]),
        (&[("FASTPATH_VM_JIT_THRESHOLD", "2")], &["-Xbatch"]),
        // An evacuating collector at safepoints, several cycles while
        // `allocate`'s loop runs compiled, the verifier after each.
        (
            &[
                ("FASTPATH_GC_BARRIERS", "shenandoah"),
                ("FASTPATH_GC_MODE", "passive"),
                ("FASTPATH_VM_VERIFY_HEAP", "1"),
                ("FASTPATH_VM_GC_STATS", "1"),
            ],
            &["-Xmx16m", "-Xbatch"],
        ),
    ];
    for (env, opts) in tiers {
        let r = run(&classes, env, opts);
        assert_eq!(r.out, want_out, "stdout under {env:?} {opts:?}");
        assert_eq!(
            r.err, want_err,
            "stderr (the stack traces) under {env:?} {opts:?}"
        );
        assert_eq!(count(&r.jit, "OSR refused"), 0, "{}", r.log);
        let entries = count(&r.jit, "OSR entries");
        assert!(
            entries >= LOOPS.len() as u64,
            "{entries} OSR entries under {env:?}:\n{}",
            r.log
        );
        for m in LOOPS {
            let named = format!("jit: OsrLoops.{m}(");
            assert!(
                r.log
                    .lines()
                    .any(|l| l.starts_with(&named) && l.contains(" OSR at bci ")),
                "no OSR compile of {m} under {env:?}:\n{}",
                r.log
            );
        }
        if let Some(gc) = r.gc {
            let words: Vec<&str> = gc.split_whitespace().collect();
            let cycles: u64 = words[2].parse().unwrap();
            assert!(cycles >= 2, "{gc}");
            assert!(gc.ends_with(" 0 errors"), "{gc}");
        }
    }
    for opts in [["-Xint"], ["-Xcomp"]] {
        let r = run(&classes, &[], &opts);
        assert_eq!(r.out, want_out, "stdout under {opts:?}");
        assert_eq!(r.err, want_err, "stderr under {opts:?}");
        assert_eq!(count(&r.jit, "OSR entries"), 0, "{opts:?} entered OSR code");
        assert_eq!(count(&r.jit, "OSR compiled"), 0, "{opts:?} compiled OSR code");
    }
    // HotSpot's switch turns OSR off in the default tiers too.
    let r = run(
        &classes,
        &[("FASTPATH_VM_JIT_THRESHOLD", "2")],
        &["-XX:-UseOnStackReplacement"],
    );
    assert_eq!(r.out, want_out, "stdout without OSR");
    assert_eq!(
        count(&r.jit, "OSR entries"),
        0,
        "-XX:-UseOnStackReplacement entered OSR code"
    );
}
