//! The JIT's tiers, seen from the command line: `-Xcomp` compiles every
//! method it runs and refuses none of these programs' methods; the
//! default tiers compile a method past its invocation threshold, and a
//! rarely called method whose loops are hot (the back-edge counter) on
//! its next call; the output is the interpreter's in every tier, with an
//! exception thrown through compiled frames and caught in an interpreted
//! one; a compiled synchronized method stopped at its entry poll reports
//! no lock it has not taken yet; compiled locks stay balanced while
//! concurrent and passive cycles run; a compiled `monitorexit` of an object
//! the thread does not hold throws `IllegalMonitorStateException` in every
//! locking mode, and leaves the lock-stack and the monitors as they were.
//! Background compilation: a hot method queued for the compiler thread
//! while the interpreter runs on is installed and then called compiled,
//! with `-Xbatch`'s output; a VM that exits with compilations queued and
//! running exits promptly (by returning from `main` and by
//! `System.exit`); with `FASTPATH_VM_JIT_TIERS=2` a hot method is
//! compiled at the quick first tier, then again with inlining. Lock coarsening: the corpus program `CoarsenedLocks`
//! compiled gives HotSpot's output with its loops' lock exits coarsened
//! and their blocks' fields kept in registers where nothing else may see
//! them, and none with `-XX:-EliminateLocks` or outside lightweight locking. The corpus
//! (`FASTPATH_VM_CORPUS_MATRIX=jit`) checks the tiers against HotSpot on
//! every program.

use crate::classfile_support::asm;
use crate::harness;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use harness::summary_count as count;

const PROGRAM: &str = r#"
public class Tiers {
    static int calls;

    // Called 3 times, each with 40,000 backward branches: compiled for
    // its second call by the back-edge counter alone.
    static long spin(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += (i ^ (s >>> 3)) & 1023;
        }
        calls++;
        return s;
    }

    static int depth(int n) {
        if (n == 0) {
            throw new IllegalStateException("bottom");
        }
        return depth(n - 1) + 1;
    }

    public static void main(String[] args) {
        long total = 0;
        for (int r = 0; r < 3; r++) {
            total += spin(40_000);
        }
        System.out.println("spin " + total + " calls " + calls);
        int caught = 0;
        for (int r = 0; r < 3000; r++) {
            try {
                depth(r % 7);
            } catch (IllegalStateException e) {
                caught++;
                if (r == 2999) {
                    StackTraceElement[] st = e.getStackTrace();
                    System.out.println(e.getMessage() + " " + st.length + " " + st[0].getMethodName());
                }
            }
        }
        System.out.println("caught " + caught);
    }
}
"#;

/// A synchronized method entered over stale slot bits while another
/// thread collects: `six`'s frame header puts its method word where
/// `bump`'s frame, entered next at the same stack depth, keeps its lock
/// (`six` has 6 locals, `bump` 1: both words are 6 slots above the
/// arguments), and a collection requested meanwhile often stops `main`
/// at `bump`'s entry poll, before the lock is taken.
const SYNC_ENTRY: &str = r#"
public class SyncEntry {
    static volatile boolean done;
    int count;

    static int six(int a, int b, int c, int d, int e, int f) {
        return a + b + c + d + e + f;
    }

    synchronized void bump() {
        count++;
    }

    public static void main(String[] args) throws Exception {
        Thread collector = new Thread() {
            public void run() {
                for (int i = 0; i < 40; i++) {
                    System.gc();
                }
                done = true;
            }
        };
        SyncEntry s = new SyncEntry();
        collector.start();
        int n = 0;
        int x = 0;
        do {
            x = six(n, 1, 2, 3, 4, 5);
            s.bump();
            n++;
        } while (!done);
        collector.join();
        System.out.println("counted " + (s.count == n) + ", summed " + (x == n - 1 + 15));
    }
}
"#;

/// `Unbalanced` is assembled (javac pairs every `monitorexit`):
/// `exit(o)` is `monitorexit` on `o` alone, `exitTwice(o)` one
/// `monitorenter` and two exits. `main` exits an object it does not hold,
/// alone and inside a recursive pair on another object, and exits a lock
/// once more than it entered it.
const UNBALANCED_MAIN: &str = r#"
public class UnbalancedMain {
    static int caught;
    static int twice;

    static void tryExit(Object o) {
        try {
            Unbalanced.exit(o);
        } catch (IllegalMonitorStateException e) {
            caught++;
        }
    }

    public static void main(String[] args) {
        Object free = new Object();
        Object held = new Object();
        for (int i = 0; i < 3; i++) {
            tryExit(free);
            synchronized (held) {
                synchronized (held) {
                    tryExit(free);
                }
            }
            try {
                Unbalanced.exitTwice(free);
            } catch (IllegalMonitorStateException e) {
                twice++;
            }
        }
        System.out.println("caught " + caught + ", twice " + twice + ", holds "
            + Thread.holdsLock(held) + " " + Thread.holdsLock(free));
    }
}

// What javac compiles against; the test replaces its class file.
class Unbalanced {
    static void exit(Object o) {}

    static void exitTwice(Object o) {}
}
"#;

/// Compiled `synchronized` blocks held while the collector runs: three
/// workers lock boxes in turn (some recursively), allocate while holding
/// them (so cycles start with locks held, and objects are locked between
/// a cycle's marking and its evacuation), and count; a fourth thread asks
/// for 30 collections. Every increment is under its box's lock, so the
/// boxes' sum is the workers' total. The boxes are spread among garbage,
/// so their regions are worth evacuating.
const LOCKED_WHILE_COLLECTED: &str = r#"
public class LockedWhileCollected {
    static final class Box {
        long n;
        Object[] junk;
    }

    static final Box[] BOXES = new Box[64];
    static volatile boolean done;

    static final class Worker extends Thread {
        final int seed;
        long count;

        Worker(int seed) {
            this.seed = seed;
        }

        public void run() {
            int k = seed;
            while (!done) {
                Box b = BOXES[k & 63];
                synchronized (b) {
                    b.n++;
                    b.junk = new Object[16];
                    if ((k & 7) == 0) {
                        synchronized (b) {
                            b.n++;
                            count++;
                        }
                    }
                }
                count++;
                k += 7;
            }
        }
    }

    public static void main(String[] args) throws Exception {
        // Each box among garbage: its region is worth evacuating.
        Object keep = null;
        for (int i = 0; i < BOXES.length; i++) {
            BOXES[i] = new Box();
            for (int j = 0; j < 64; j++) {
                keep = new long[64];
            }
        }
        Worker[] ws = { new Worker(1), new Worker(2), new Worker(3) };
        for (Worker w : ws) {
            w.start();
        }
        for (int i = 0; i < 30; i++) {
            System.gc();
        }
        done = true;
        long counted = 0;
        for (Worker w : ws) {
            w.join();
            counted += w.count;
        }
        long summed = 0;
        for (Box b : BOXES) {
            summed += b.n;
        }
        System.out.println("balanced " + (counted == summed) + ", held " + Thread.holdsLock(BOXES[0]));
    }
}
"#;

const BACKGROUND: &str = r#"
public class Background {
    // Hot after 1000 calls: queued, compiled by the compiler thread while
    // main's loop calls it interpreted, then called compiled.
    static int work(int x) {
        int s = 0;
        for (int i = 0; i < 4; i++) {
            s += (x ^ i) * 31;
        }
        return s;
    }

    public static void main(String[] args) {
        long sum = 0;
        for (int b = 0; b < 400; b++) {
            for (int i = 0; i < 5000; i++) {
                sum += work(i + b);
            }
        }
        System.out.println("sum " + sum);
    }
}
"#;

/// A hot method with a small callee: compiled by the compiler thread
/// first at the quick tier (the callee a call), then again at the second
/// (the callee inlined), while main's loop runs on (interpreted: the test
/// turns OSR off, so that the loop outlasts both compilations).
const TIERED: &str = r#"
public class Tiered {
    static int mix(int x, int i) {
        return (x ^ i) * 31;
    }

    static int work(int x) {
        int s = 0;
        for (int i = 0; i < 4; i++) {
            s += mix(x, i);
        }
        return s;
    }

    public static void main(String[] args) {
        long sum = 0;
        for (int b = 0; b < 400; b++) {
            for (int i = 0; i < 5000; i++) {
                sum += work(i + b);
            }
        }
        System.out.println("sum " + sum);
    }
}
"#;

/// `FASTPATH_VM_JIT_TIERS=2` compiles a hot method twice, in the
/// background: its first-tier compilation (no inlining) is logged before
/// its second (its callee inlined), each once, and the summary counts
/// both; by default (and with `1`) it is compiled once, with inlining,
/// and another value is a clear error. The output is `-Xint`'s
/// throughout.
#[test]
fn a_hot_method_is_compiled_at_the_first_tier_then_the_second() {
    let classes = classes("Tiered", TIERED);
    let (int_out, _) = run_main(&classes, "Tiered", &[], &["-Xint"]);
    let no_osr = ["-XX:-UseOnStackReplacement"];
    let (out, err) = run_main(&classes, "Tiered", &[("FASTPATH_VM_JIT_TIERS", "2")], &no_osr);
    assert_eq!(
        out, int_out,
        "the default tiers printed something else than -Xint"
    );
    let lines: Vec<&str> = err.lines().collect();
    let at = |prefix: &str| {
        let found: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].starts_with(prefix))
            .collect();
        assert_eq!(found.len(), 1, "{prefix}: {} lines:\n{err}", found.len());
        found[0]
    };
    let (first, second) = (
        at("jit: Tiered.work(I)I tier 1 "),
        at("jit: Tiered.work(I)I tier 2 "),
    );
    assert!(first < second, "the second tier before the first:\n{err}");
    let summary = lines.iter().find(|l| l.starts_with("fastpath-vm jit: ")).unwrap();
    assert!(count(summary, "methods compiled at tier 1") >= 1, "{summary}");
    assert!(count(summary, "recompiled at tier 2") >= 1, "{summary}");
    // `mix` is inlined by the second tier only (the first inlines none).
    assert!(count(summary, "calls inlined") >= 1, "{summary}");

    for env in [&[][..], &[("FASTPATH_VM_JIT_TIERS", "1")][..]] {
        let (once_out, once_err) = run_main(&classes, "Tiered", env, &no_osr);
        assert_eq!(once_out, int_out, "{env:?} printed something else than -Xint");
        assert!(
            once_err.lines().any(|l| l.starts_with("jit: Tiered.work(I)I "))
                && !once_err
                    .lines()
                    .any(|l| l.starts_with("jit: ") && l.contains(" tier ")),
            "{env:?}:\n{once_err}"
        );
        let once = once_err
            .lines()
            .find(|l| l.starts_with("fastpath-vm jit: "))
            .unwrap();
        assert_eq!(count(once, "methods compiled at tier 1"), 0, "{once}");
        assert_eq!(count(once, "recompiled at tier 2"), 0, "{once}");
        assert!(count(once, "calls inlined") >= 1, "{once}");
    }

    let o = Command::new(env!("CARGO_BIN_EXE_fastpath-vm"))
        .env("FASTPATH_VM_JIT_TIERS", "3")
        .arg("-cp")
        .arg(&classes)
        .arg("Tiered")
        .output()
        .unwrap();
    let bad = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "accepted FASTPATH_VM_JIT_TIERS=3:\n{bad}");
    assert!(
        bad.contains("FASTPATH_VM_JIT_TIERS=3: expected 1 or 2"),
        "unclear error:\n{bad}"
    );
}

/// A program with many methods hot at once (`FASTPATH_VM_JIT_THRESHOLD=1`:
/// each queued at its second call), each long enough to take the compiler
/// milliseconds, that exits as soon as they are queued: by returning from
/// `main`, or by `System.exit` with `exit` as its argument.
fn exit_busy_source() -> String {
    let mut s = String::from("public class ExitBusy {\n");
    for m in 0..12 {
        s += &format!("    static int m{m}(int x) {{\n        int a = x, b = x + {m};\n");
        for k in 0..60 {
            s += &format!(
                "        a = a * {} + (b ^ {k}); b = b - (a >>> {});\n",
                k + 3,
                k % 7 + 1
            );
        }
        s += "        return a ^ b;\n    }\n";
    }
    s += "    public static void main(String[] args) {\n        int r = 0;\n";
    s += "        for (int i = 0; i < 2; i++) {\n";
    for m in 0..12 {
        s += &format!("            r += m{m}(i);\n");
    }
    s += "        }\n        System.out.println(\"r \" + r);\n";
    s += "        if (args.length > 0) {\n            System.exit(0);\n        }\n    }\n}\n";
    s
}

/// Compiles the class `name` from `source`, in a directory of its own.
fn classes(name: &str, source: &str) -> PathBuf {
    let dir = harness::scratch_dir(&format!("fastpath-vm-jit/{name}"));
    let classes = dir.join("classes");
    harness::javac_sources(&dir, &classes, &[(name, source)]);
    classes
}

/// Runs `Tiers` with `opts`; stdout and stderr.
fn run(classes: &PathBuf, opts: &[&str]) -> (String, String) {
    run_main(classes, "Tiers", &[], opts)
}

/// Runs `main` with the environment `env` and `opts`; stdout and stderr.
fn run_main(classes: &PathBuf, main: &str, env: &[(&str, &str)], opts: &[&str]) -> (String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_fastpath-vm"))
        .env("FASTPATH_VM_JIT_LOG", "1")
        .envs(env.iter().copied())
        .args(opts)
        .arg("-cp")
        .arg(classes)
        .arg(main)
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    );
    assert!(o.status.success(), "fastpath-vm {opts:?} failed:\n{out}\n{err}");
    (out, err)
}

/// The summary's compiled and refused counts.
fn counts(err: &str) -> (u64, u64) {
    let line = err
        .lines()
        .find(|l| l.starts_with("fastpath-vm jit: "))
        .unwrap_or_else(|| panic!("no JIT summary on stderr:\n{err}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    (words[2].parse().unwrap(), words[5].parse().unwrap())
}

#[test]
fn tiers_agree_and_compile_what_they_should() {
    let classes = classes("Tiers", PROGRAM);
    let (int_out, int_err) = run(&classes, &["-Xint"]);
    assert!(int_out.starts_with("spin "), "{int_out}");
    assert_eq!(counts(&int_err), (0, 0), "-Xint compiled something");

    let (comp_out, comp_err) = run(&classes, &["-Xcomp"]);
    assert_eq!(comp_out, int_out, "-Xcomp printed something else");
    let (compiled, refused) = counts(&comp_err);
    assert!(compiled >= 20, "-Xcomp compiled only {compiled} methods");
    assert_eq!(refused, 0, "-Xcomp refused methods:\n{comp_err}");
    assert!(
        comp_err.contains("jit: Tiers.main("),
        "main not compiled under -Xcomp"
    );

    // `-Xbatch`: the thread that finds a method hot compiles it before
    // going on, so what is compiled does not depend on timing.
    let (mixed_out, mixed_err) = run(&classes, &["-Xbatch"]);
    assert_eq!(mixed_out, int_out, "the default tiers printed something else");
    // depth() is called 3000 times (past 1000 invocations); spin() 3
    // times, compiled by its back edges.
    assert!(
        mixed_err.contains("jit: Tiers.depth(I)I"),
        "depth not compiled:\n{mixed_err}"
    );
    assert!(
        mixed_err.contains("jit: Tiers.spin(I)J"),
        "spin not compiled by its back edges:\n{mixed_err}"
    );
    assert!(
        !mixed_err.contains("jit: Tiers.main("),
        "main (called once, loops of 3 and 3000) compiled"
    );
}

/// A compiled synchronized method's lock word is a root from its first
/// safepoint, the entry poll before the lock: the scanner must find 0
/// there, not a word an earlier frame left (here a `Method` address, which
/// the collector takes for an object outside the heap and panics on).
#[test]
fn a_synchronized_frame_stopped_before_its_lock_reports_no_lock() {
    let classes = classes("SyncEntry", SYNC_ENTRY);
    for mode in ["passive", "concurrent"] {
        let (out, err) = run_main(
            &classes,
            "SyncEntry",
            &[("FASTPATH_GC_MODE", mode), ("FASTPATH_VM_VERIFY_HEAP", "1")],
            &["-Xcomp", "-Xmx16m"],
        );
        assert_eq!(out, "counted true, summed true\n", "{mode}:\n{err}");
        assert!(
            err.contains("jit: SyncEntry.bump()V"),
            "bump not compiled ({mode}):\n{err}"
        );
    }
}

/// `monitorexit` of an object the thread does not hold, compiled: the
/// inline exit misses and the runtime's answer throws
/// `IllegalMonitorStateException`; a held lock's exits succeed and a
/// second one throws; the thread's locks are as the interpreter leaves
/// them, in each locking mode (lightweight: the inline paths; legacy and
/// monitor: the runtime's calls).
#[test]
fn an_unbalanced_monitorexit_throws_in_compiled_code() {
    use asm::{ClassBuilder, MethodSpec};
    let classes = classes("UnbalancedMain", UNBALANCED_MAIN);
    let mut c = ClassBuilder::new("Unbalanced", "java/lang/Object");
    // aload_0; monitorexit; return
    c.method(MethodSpec::new(
        0x0009,
        "exit",
        "(Ljava/lang/Object;)V",
        1,
        1,
        vec![0x2a, 0xc3, 0xb1],
    ));
    // aload_0; monitorenter; aload_0; monitorexit; aload_0; monitorexit; return
    let twice = vec![0x2a, 0xc2, 0x2a, 0xc3, 0x2a, 0xc3, 0xb1];
    c.method(MethodSpec::new(
        0x0009,
        "exitTwice",
        "(Ljava/lang/Object;)V",
        1,
        1,
        twice,
    ));
    std::fs::write(classes.join("Unbalanced.class"), c.build()).unwrap();
    // 3 × 2 exits of an object not held, 3 second exits.
    let expected = "caught 6, twice 3, holds false false\n";
    let (int_out, _) = run_main(&classes, "UnbalancedMain", &[], &["-Xint"]);
    for mode in ["lightweight", "legacy", "monitor"] {
        let (out, err) = run_main(
            &classes,
            "UnbalancedMain",
            &[("FASTPATH_LOCKING_MODE", mode)],
            &["-Xcomp"],
        );
        assert!(
            err.contains("jit: Unbalanced.exit(Ljava/lang/Object;)V"),
            "exit not compiled ({mode}):\n{err}"
        );
        assert_eq!(
            out, int_out,
            "{mode}: -Xcomp printed something else than -Xint:\n{err}"
        );
    }
    assert!(int_out.starts_with(expected), "-Xint:\n{int_out}");
}

/// Compiled locks held across collections, concurrent and passive, with
/// the load-reference barrier set and the Brooks one (the inline enter and
/// exit on the object resolved for writing): no increment is lost, every
/// lock is released, and the heap verifier passes after every cycle (each
/// run evacuates a few thousand objects). A concurrent cycle evacuating
/// an object locked after marking scanned it needs a narrower window than
/// this run opens; the library's
/// `a_lock_taken_after_marking_keeps_its_object_in_place` drives that
/// window deterministically. This one checks the locks' bookkeeping under
/// collection.
#[test]
fn compiled_locks_hold_across_collections() {
    let classes = classes("LockedWhileCollected", LOCKED_WHILE_COLLECTED);
    for (set, mode) in [
        ("shenandoah", "concurrent"),
        ("shenandoah-2017", "concurrent"),
        ("shenandoah", "passive"),
    ] {
        let (out, err) = run_main(
            &classes,
            "LockedWhileCollected",
            &[
                ("FASTPATH_GC_BARRIERS", set),
                ("FASTPATH_GC_MODE", mode),
                ("FASTPATH_VM_VERIFY_HEAP", "1"),
            ],
            &["-Xcomp", "-Xmx16m"],
        );
        assert_eq!(out, "balanced true, held false\n", "{set} {mode}:\n{err}");
        assert!(
            err.contains("jit: LockedWhileCollected$Worker.run()V"),
            "run not compiled ({set} {mode}):\n{err}"
        );
    }
}

#[test]
fn a_hot_method_compiled_in_the_background_runs_compiled() {
    let classes = classes("Background", BACKGROUND);
    let (out, err) = run_main(&classes, "Background", &[], &[]);
    let summary = err.lines().find(|l| l.starts_with("fastpath-vm jit: ")).unwrap();
    assert!(
        err.lines().any(|l| l.starts_with("jit: Background.work(I)I ")),
        "work not compiled:\n{err}"
    );
    assert!(count(summary, "compiled in the background") >= 1, "{summary}");
    // main, interpreted (or OSR'd), called the installed code.
    assert!(count(summary, "calls into compiled code") >= 1, "{summary}");
    // -Xbatch: the same output, every compilation on the Java thread.
    let (batch_out, batch_err) = run_main(&classes, "Background", &[], &["-Xbatch"]);
    assert_eq!(batch_out, out, "-Xbatch printed something else");
    let batch = batch_err
        .lines()
        .find(|l| l.starts_with("fastpath-vm jit: "))
        .unwrap();
    assert_eq!(count(batch, "compiled in the background"), 0, "{batch}");
    assert!(count(batch, "methods compiled") >= 1, "{batch}");
    // The report of what stayed interpreted: main (called once; its loop
    // moved to OSR code), never work.
    assert!(
        batch_err
            .lines()
            .any(|l| l.starts_with("fastpath-vm jit: no compiled entry: Background.main([Ljava/lang/String;)V: 1 interpreted calls, ")),
        "{batch_err}"
    );
    assert!(
        !batch_err.contains("no compiled entry: Background.work"),
        "{batch_err}"
    );
    let (int_out, _) = run_main(&classes, "Background", &[], &["-Xint"]);
    assert_eq!(
        out, int_out,
        "the default tiers printed something else than -Xint"
    );
}

#[test]
fn exit_with_compilations_queued_is_prompt() {
    let classes = classes("ExitBusy", &exit_busy_source());
    let (want, _) = run_main(&classes, "ExitBusy", &[], &["-Xint"]);
    for args in [&[][..], &["exit"][..]] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_fastpath-vm"));
        cmd.env("FASTPATH_VM_JIT_LOG", "1")
            .env("FASTPATH_VM_JIT_THRESHOLD", "1")
            .arg("-cp")
            .arg(&classes)
            .arg("ExitBusy")
            .args(args);
        let start = Instant::now();
        let o = harness::run_with_limit(cmd, Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("ExitBusy {args:?}: {e}"));
        let took = start.elapsed();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status, Some(0), "ExitBusy {args:?}:\n{err}");
        assert_eq!(String::from_utf8_lossy(&o.stdout), want, "ExitBusy {args:?}");
        // Exit waits for one compilation at most, never for the queue
        // (12 methods of ~1 KB of bytecode, and the class library's).
        assert!(took < Duration::from_secs(30), "ExitBusy {args:?} took {took:?}");
        if let Some(summary) = err.lines().find(|l| l.starts_with("fastpath-vm jit: ")) {
            eprintln!(
                "ExitBusy {args:?}: {took:?}, {} compiled in the background, {} dropped at exit",
                count(summary, "compiled in the background"),
                count(summary, "dropped at exit")
            );
        }
    }
}

#[test]
fn loops_coarsen_their_locks_unless_told_not_to() {
    let dir = harness::scratch_dir("fastpath-vm-jit/CoarsenedLocks");
    let src = harness::corpus_dir().join("CoarsenedLocks.java");
    harness::javac(&dir, &[src], &["-Xlint:-options"]);
    let want = std::fs::read_to_string(harness::corpus_dir().join("expected/CoarsenedLocks.out")).unwrap();
    let coarsened = |env: &[(&str, &str)], opts: &[&str]| {
        let (out, err) = run_main(&dir, "CoarsenedLocks", env, opts);
        assert_eq!(out, want, "{env:?} {opts:?}:\n{err}");
        let summary = err.lines().find(|l| l.starts_with("fastpath-vm jit: ")).unwrap();
        (
            count(summary, "lock exits coarsened"),
            count(summary, "fields promoted"),
        )
    };
    // counted, breakOut, returnFromTail, throwInside, nested, allocating,
    // alternating (an array load in its tail), the five whose tails
    // throw, and the two adders' loops; not heldBetween's and fresh's (a
    // call and an allocation in the tail). Fields kept in registers
    // across the kept lock (`promote.rs`): the first three's `value`
    // (released before `return c.value` reads it in the tail), the five's
    // `value` (their tails access other fields, elements and boxes) and
    // both adders' two; throwInside's, nested's and allocating's blocks
    // allocate or lock.
    assert_eq!(coarsened(&[], &["-Xcomp"]), (14, 12));
    assert_eq!(coarsened(&[], &["-Xcomp", "-XX:-EliminateLocks"]), (0, 0));
    assert_eq!(
        coarsened(&[("FASTPATH_LOCKING_MODE", "legacy")], &["-Xcomp"]),
        (0, 0)
    );
}

/// A method called once per long run: its loop's overflow queues its OSR
/// entry and, behind it, its normal entry, during its first call.
const LOOP_EVENT: &str = r#"
public class LoopEvent {
    static long spin(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) {
            s += (i ^ (s >>> 3)) & 1023;
        }
        return s;
    }

    public static void main(String[] args) throws Exception {
        long first = spin(200_000);
        // Time for the compiler thread to install what the loop queued.
        Thread.sleep(500);
        long second = spin(200_000);
        System.out.println(first + " " + second);
    }
}
"#;

/// A method whose loops cross the back-edge threshold in its first call
/// is queued for its normal entry then (`FASTPATH_VM_JIT_TRACE`'s queue
/// event counts one call), not at its second call, and that call runs
/// the installed code; the output is `-Xint`'s.
#[test]
fn a_loop_overflow_compiles_the_next_call() {
    let classes = classes("LoopEvent", LOOP_EVENT);
    let (out, err) = run_main(&classes, "LoopEvent", &[("FASTPATH_VM_JIT_TRACE", "1")], &[]);
    let queued = |osr: bool| {
        err.lines().find(|l| {
            l.starts_with("jit-trace: ")
                && l.contains(" queue LoopEvent.spin(I)J ")
                && l.contains(" OSR at bci ") == osr
        })
    };
    let osr = queued(true).unwrap_or_else(|| panic!("no OSR entry queued:\n{err}"));
    let normal = queued(false).unwrap_or_else(|| panic!("no normal entry queued:\n{err}"));
    assert!(osr.contains("(1 calls, "), "{osr}");
    assert!(normal.contains("(1 calls, "), "queued at a later call: {normal}");
    let summary = err.lines().find(|l| l.starts_with("fastpath-vm jit: ")).unwrap();
    assert!(
        count(summary, "calls into compiled code") >= 1,
        "{summary}\n{err}"
    );
    let (int_out, _) = run_main(&classes, "LoopEvent", &[], &["-Xint"]);
    assert_eq!(
        out, int_out,
        "the default tiers printed something else than -Xint"
    );
}

/// `FASTPATH_VM_JIT_TRACE` takes 0 or 1; another value is a clear error.
#[test]
fn jit_trace_refuses_a_bad_value() {
    let classes = classes("LoopEvent", LOOP_EVENT);
    let o = Command::new(env!("CARGO_BIN_EXE_fastpath-vm"))
        .env("FASTPATH_VM_JIT_TRACE", "yes")
        .arg("-cp")
        .arg(&classes)
        .arg("LoopEvent")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "accepted FASTPATH_VM_JIT_TRACE=yes:\n{err}");
    assert!(
        err.contains("FASTPATH_VM_JIT_TRACE=yes: expected 0 or 1"),
        "unclear error:\n{err}"
    );
}
