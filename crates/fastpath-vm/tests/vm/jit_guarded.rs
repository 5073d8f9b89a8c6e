//! Virtual and interface calls inlined behind guards, seen from the
//! command line: the corpus program `LateOverride` compiles `total`, whose virtual call has
//! one implementation among the loaded classes, before a subclass
//! overriding it is loaded (`-Xcomp`, and the default tiers after 2
//! calls); the JIT's log shows the call inlined behind a guard, the
//! output is HotSpot's (the overriding class's method runs, and throws
//! through the call site with HotSpot's trace), and the guard misses
//! counted are exactly the calls whose receiver is of the late class: the
//! thousand calls before it was loaded took the inlined path.
//! `LateImplementor` does the same with a virtual call of three
//! implementations and an interface call of two implementing classes,
//! each inlined behind guards, and a late subclass and a late
//! implementing class through them. `ProfiledReceivers` has calls with
//! five implementations each, more than class-hierarchy analysis
//! inlines: after 2 interpreted calls they are inlined behind guards for
//! the receiver classes the interpreter's profile saw, under `-Xcomp`
//! (nothing profiled) they stay calls, and the misses are exactly the
//! calls on the other classes. `ProfiledExact` checks that a virtual
//! call's profiled receivers are guarded on their exact classes: a
//! subclass inheriting a profiled class's method misses as one
//! overriding it does, and arrays and other classes at an `Object`-typed
//! call of `hashCode`, `equals` and `toString` miss.

use crate::harness;

use harness::summary_count as count;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// Compiles the corpus program `name` into a directory of its own.
fn classes(name: &str) -> PathBuf {
    let dir = harness::scratch_dir(&format!("fastpath-vm-jit-guarded-{name}"));
    let src = harness::corpus_dir().join(format!("{name}.java"));
    harness::javac(
        &dir,
        &[src],
        &["-Xlint:-options", "--release", "17", "-encoding", "UTF-8"],
    );
    dir
}

/// Runs the corpus program `name` with `env`, `opts` and `args`: stdout,
/// stderr without the JIT's lines, the JIT's log, its summary.
fn run(
    classes: &PathBuf,
    name: &str,
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
        .arg(name)
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
    late_class_through_guards("LateOverride", "total", 1, 1001);
}

/// `run`'s virtual call of `Step.apply` (three implementations) and its
/// interface call of `Source.next` (two implementing classes) are
/// inlined behind guards: 5. The misses are the calls on late receivers:
/// 1000 on the `LateAdd` of `run(mixed, counter, 1000)`, 4000 on the
/// `LateSource` of `run(early, lateSource(1), 1000)`, and the one that
/// throws.
#[test]
fn late_classes_through_polymorphic_and_interface_guards() {
    late_class_through_guards("LateImplementor", "run", 5, 5001);
}

/// `run`'s virtual call of `Shape.area` and its interface call of
/// `Op.apply` each have five implementations loaded; the interpreter's
/// profile sees a `Square` and a `Rect`, and an `Inc`, before `run` is
/// compiled: 3 guarded cases. The misses are the calls on the other
/// classes: 500 (`Tri` and `Line` 200, `Twice` 300), 200 (`Line`,
/// `Flip`), 200 (`Mix`), and the two that throw: 902, counted apart
/// from class-hierarchy analysis's guards' misses (none here).
#[test]
fn profiled_receivers_are_inlined_behind_guards() {
    let name = "ProfiledReceivers";
    let classes = classes(name);
    let expected = harness::corpus_dir().join("expected");
    let want_out = std::fs::read_to_string(expected.join(format!("{name}.out"))).unwrap();
    let want_err = std::fs::read_to_string(expected.join(format!("{name}.err"))).unwrap();
    let prefix = format!("jit: {name}.run(");
    let compiled_run = |log: &str| -> String {
        log.lines()
            .find(|l| l.starts_with(&prefix) && !l.contains(" OSR at "))
            .unwrap_or_else(|| panic!("run not compiled:\n{log}"))
            .to_string()
    };
    let env = [("FASTPATH_VM_JIT_THRESHOLD", "2")];
    let (out, err, log, summary) = run(&classes, name, &env, &["-Xbatch"], &[]);
    assert_eq!(out, want_out);
    assert_eq!(err, want_err);
    let line = compiled_run(&log);
    assert!(line.ends_with(" 3 calls inlined behind a guard"), "{line}");
    let (_, _, _, early_summary) = run(&classes, name, &env, &["-Xbatch"], &["early"]);
    // The class library's own profiled call sites, in what the late part
    // prints (its traces' exceptions are of other classes than the early
    // part's), miss a few times more: at most `LIBRARY`.
    const LIBRARY: u64 = 8;
    let misses = count(&summary, "of profiled guards");
    let early_misses = count(&early_summary, "of profiled guards");
    let late = misses.checked_sub(early_misses);
    assert!(
        late.is_some_and(|n| (902..=902 + LIBRARY).contains(&n)),
        "profiled guard misses {misses} with the other classes, {early_misses} without"
    );
    assert_eq!(
        count(&summary, "guard misses"),
        misses,
        "misses of other guards than profiled ones"
    );
    // Compiled before it ever ran: no profile, and too many
    // implementations for class-hierarchy analysis.
    let (out, err, log, _) = run(&classes, name, &[], &["-Xcomp"], &[]);
    assert_eq!((out, err), (want_out, want_err));
    let line = compiled_run(&log);
    assert!(!line.contains("inlined behind a guard"), "{line}");
}

/// `sounds`' virtual call of `Animal.sound` (six implementations loaded)
/// profiles `Dog` and `Bird` before it is compiled, `hashes`' calls of
/// `Object.hashCode` and `equals` profile `Key`: 2 guarded cases each.
/// The late part's receivers other than `Dog` and `Bird`, `Puppy` (which
/// inherits `Dog.sound`) among them, miss: 4 of 6 receivers, 3000 rounds,
/// 12000 misses; a guard on the vtable entry would have passed `Puppy`'s
/// 3000. Then the arrays, boxes and strings of `mixed` miss, and the class
/// library's profiled sites as the early run's do (at most `LIBRARY`).
#[test]
fn profiled_receivers_are_checked_by_exact_class() {
    let name = "ProfiledExact";
    let classes = classes(name);
    let expected = harness::corpus_dir().join("expected");
    let want_out = std::fs::read_to_string(expected.join(format!("{name}.out"))).unwrap();
    let env = [("FASTPATH_VM_JIT_THRESHOLD", "2")];
    let (out, err, log, summary) = run(&classes, name, &env, &["-Xbatch"], &[]);
    assert_eq!(out, want_out);
    assert_eq!(err, "");
    for method in ["sounds", "hashes"] {
        let prefix = format!("jit: {name}.{method}(");
        let line = log
            .lines()
            .find(|l| l.starts_with(&prefix) && !l.contains(" OSR at "))
            .unwrap_or_else(|| panic!("{method} not compiled:\n{log}"));
        assert!(line.ends_with(" 2 calls inlined behind a guard"), "{line}");
    }
    let (_, _, _, early_summary) = run(&classes, name, &env, &["-Xbatch"], &["early"]);
    const LIBRARY: u64 = 40;
    let misses = count(&summary, "of profiled guards");
    let early_misses = count(&early_summary, "of profiled guards");
    let late = misses.checked_sub(early_misses);
    assert!(
        late.is_some_and(|n| (12000..=12000 + LIBRARY).contains(&n)),
        "profiled guard misses {misses} with the late receivers, {early_misses} without"
    );
}

/// Runs the corpus program `name` under `-Xbatch` with a threshold of 2
/// and under `-Xcomp`: its output is HotSpot's, its method `method` is
/// compiled with `guarded` calls inlined behind guards, and its guard
/// misses less those of a run that stops before the late classes load
/// (argument `early`) are `late_misses`.
fn late_class_through_guards(name: &str, method: &str, guarded: usize, late_misses: u64) {
    let classes = classes(name);
    let expected = harness::corpus_dir().join("expected");
    let want_out = std::fs::read_to_string(expected.join(format!("{name}.out"))).unwrap();
    let want_err = std::fs::read_to_string(expected.join(format!("{name}.err"))).unwrap();
    type Tier = (&'static [(&'static str, &'static str)], &'static [&'static str]);
    let tiers: [Tier; 2] = [
        (&[("FASTPATH_VM_JIT_THRESHOLD", "2")], &["-Xbatch"]),
        (&[], &["-Xcomp"]),
    ];
    let prefix = format!("jit: {name}.{method}(");
    for (env, opts) in tiers {
        let (out, err, log, summary) = run(&classes, name, env, opts, &[]);
        assert_eq!(out, want_out, "stdout under {env:?} {opts:?}");
        assert_eq!(err, want_err, "stderr (the traces) under {env:?} {opts:?}");
        let compiled = log
            .lines()
            .find(|l| l.starts_with(&prefix) && !l.contains(" OSR at "))
            .unwrap_or_else(|| panic!("{method} not compiled under {env:?} {opts:?}:\n{log}"));
        assert!(
            compiled.ends_with(&format!(" {guarded} calls inlined behind a guard")),
            "{method}'s calls not inlined behind guards: {compiled}"
        );
        // Without the late classes' part, the same run misses the guards
        // of everything else it compiled (the class library's) as often:
        // the difference is the misses on the late receivers.
        let (early_out, _, _, early_summary) = run(&classes, name, env, opts, &["early"]);
        assert!(want_out.starts_with(&early_out), "{early_out}");
        assert_eq!(early_out, want_out.lines().next().unwrap().to_string() + "\n");
        // Class-hierarchy analysis's guards: the class library's
        // profiled guards (`profiled_receivers_are_inlined_behind_guards`)
        // miss on what the late part prints.
        let cha = |s: &str| count(s, "guard misses") - count(s, "of profiled guards");
        let (misses, early_misses) = (cha(&summary), cha(&early_summary));
        assert_eq!(
            misses.checked_sub(early_misses),
            Some(late_misses),
            "guard misses {misses} with the late classes, {early_misses} without, under {env:?} {opts:?}"
        );
    }
}
