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
//!
//! Checks and loads the translator reuses within a basic block
//! (`jit/facts.rs`): `ReusedChecks` runs each reuse's edge (a field stored
//! between two reads, through the same reference and another one to the
//! same object, a call that replaces it, an index checked on one array and
//! used on a shorter one, the index equal to the length and a negative one
//! after a valid access, a reference replaced by null after its check, a
//! store on one path of a branch, an index checked before a branch and
//! used on each path)
//! compiled, under `-Xcomp`, after 2 calls and under the default tiers,
//! and must print what HotSpot 25 prints (recorded below).
//!
//! `HotCallee`: a callee over the small-callee limit is inlined once it
//! is compiled itself (hot), one over the hot limit is not.

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

use harness::Tier;

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

/// `ReusedChecks`: each method warmed in a loop (compiled before the end
/// of it under every tier), then run on its edge.
const REUSED_CHECKS: &str = r#"// The edges of checks and loads a compiler reuses within a basic block: a reference field
// read twice with a store to it in between (through the same reference and through another
// reference to the same object), with a call in between that replaces it; an index checked
// against one array and then used on a shorter one that replaced it; an index equal to the
// length and a negative one right after a valid access of the same array; a reference
// checked non-null and then replaced by null (a field stored between two reads); a field that reads null dereferenced twice.
// Each method is warmed in a loop first so that it runs compiled, then run on its edge.
public class ReusedChecks {
    int[] values;
    ReusedChecks peer;
    int hits;

    ReusedChecks(int n) {
        values = new int[n];
        for (int i = 0; i < n; i++) {
            values[i] = i + 1;
        }
    }

    // The field read, stored and read again in one basic block.
    int storeBetween(int[] other) {
        int a = values[0];
        values = other;
        return a * 100 + values[0];
    }

    // The same field of the same object stored through another reference.
    int storeThroughAlias(ReusedChecks alias, int[] other) {
        int a = values[1];
        alias.values = other;
        return a * 100 + values[1];
    }

    void replace() {
        values = new int[] {7, 8, 9};
        hits++;
    }

    // A call that replaces the field between two reads.
    int callBetween() {
        int a = values[0];
        replace();
        return a * 100 + values[0];
    }

    // Index i checked against the array read first, then used on the
    // (shorter) array that replaced it.
    static int replacedArray(int[] a, int[] shorter, int i) {
        int x = a[i];
        a = shorter;
        return x + a[i];
    }

    // Index i valid, then i + 1 (the length at the edge) and -1.
    static int nextIndex(int[] a, int i) {
        return a[i] + a[i + 1];
    }

    static int negative(int[] a, int i) {
        return a[i] + a[i - 1];
    }

    // A field checked non-null, then stored (null at the edge) and read again.
    int nullAfterCheck(ReusedChecks next) {
        int n = peer.values.length;
        peer = next;
        return n + peer.values.length;
    }

    // A read before a branch, a store on one of its paths, a read after
    // the join.
    int storeOnOnePath(int[] other, boolean replace) {
        int a = values[0];
        if (replace) {
            values = other;
        }
        return a * 100 + values[0];
    }

    // An index checked before a branch, then used on each path: on the
    // same array, and on another, shorter one.
    static int checkedBeforeBranch(int[] a, int[] shorter, int i, boolean other) {
        int x = a[i];
        if (other) {
            return x + shorter[i];
        }
        return x + a[i];
    }

    // A field that holds null, dereferenced twice.
    int peerTwice() {
        int a = peer.hits;
        return a + peer.hits;
    }

    public static void main(String[] args) {
        long sum = 0;
        for (int k = 0; k < 3000; k++) {
            ReusedChecks r = new ReusedChecks(4);
            sum += r.storeBetween(new int[] {k, 1});
            sum += r.storeThroughAlias(r, new int[] {0, k});
            sum += r.callBetween();
            sum += replacedArray(new int[] {1, 2, 3}, new int[] {4, 5, 6}, k % 3);
            sum += nextIndex(new int[] {1, 2, 3}, k % 2);
            sum += negative(new int[] {1, 2, 3}, 1 + k % 2);
            r.peer = r;
            sum += r.nullAfterCheck(r);
            sum += r.peerTwice();
            sum += r.storeOnOnePath(new int[] {k}, k % 2 == 0);
            sum += checkedBeforeBranch(new int[] {1, 2, 3}, new int[] {4, 5, 6}, k % 3, k % 2 == 0);
        }
        System.out.println("warm " + sum);

        ReusedChecks r = new ReusedChecks(4);
        System.out.println("storeBetween " + r.storeBetween(new int[] {5}));
        ReusedChecks s = new ReusedChecks(4);
        System.out.println("storeThroughAlias " + s.storeThroughAlias(s, new int[] {0, 6}));
        System.out.println("callBetween " + new ReusedChecks(4).callBetween());
        try {
            System.out.println(replacedArray(new int[] {1, 2, 3}, new int[] {4, 5}, 2));
        } catch (ArrayIndexOutOfBoundsException e) {
            System.out.println("replacedArray " + e.getMessage());
        }
        try {
            System.out.println(nextIndex(new int[] {1, 2, 3}, 2));
        } catch (ArrayIndexOutOfBoundsException e) {
            System.out.println("nextIndex " + e.getMessage());
        }
        try {
            System.out.println(negative(new int[] {1, 2, 3}, 0));
        } catch (ArrayIndexOutOfBoundsException e) {
            System.out.println("negative " + e.getMessage());
        }
        try {
            ReusedChecks t = new ReusedChecks(2);
            t.peer = t;
            System.out.println(t.nullAfterCheck(null));
        } catch (NullPointerException e) {
            System.out.println("nullAfterCheck " + e.getMessage());
        }
        System.out.println("storeOnOnePath " + new ReusedChecks(2).storeOnOnePath(new int[] {9}, true));
        try {
            System.out.println(checkedBeforeBranch(new int[] {1, 2, 3}, new int[] {4, 5}, 2, true));
        } catch (ArrayIndexOutOfBoundsException e) {
            System.out.println("checkedBeforeBranch " + e.getMessage());
        }
        try {
            System.out.println(new ReusedChecks(1).peerTwice());
        } catch (NullPointerException e) {
            System.out.println("peerTwice " + e.getMessage());
        }
    }
}
"#;

/// `ReusedChecks`'s output on HotSpot 25 (`java ReusedChecks`).
const REUSED_CHECKS_OUT: &str = "warm 14062500
storeBetween 105
storeThroughAlias 206
callBetween 107
replacedArray Index 2 out of bounds for length 2
nextIndex Index 3 out of bounds for length 3
negative Index -1 out of bounds for length 3
nullAfterCheck Cannot read field \"values\" because \"this.peer\" is null
storeOnOnePath 109
checkedBeforeBranch Index 2 out of bounds for length 2
peerTwice Cannot read field \"hits\" because \"this.peer\" is null
";

#[test]
fn reused_checks_and_loads_keep_their_edges() {
    let dir = harness::scratch_dir("fastpath-vm-jit-reused-checks");
    harness::javac_sources(&dir, &dir, &[("ReusedChecks", REUSED_CHECKS)]);
    let runs: [Tier; 3] = [
        (&[], &["-Xcomp"]),
        // Compiled on the calling thread at the third call, so the edges
        // after it run compiled whatever the machine's load.
        (&[("FASTPATH_VM_JIT_THRESHOLD", "2")], &["-Xbatch"]),
        (&[], &[]),
    ];
    harness::expect_in_tiers(&dir, "ReusedChecks", &runs, REUSED_CHECKS_OUT);
}

/// `driver` calls `big` (94 bytecode bytes) and `huge` (222) twice each;
/// both cross the invocation threshold before `driver` does.
const HOT_CALLEE: &str = r#"
public class HotCallee {
    static int big(int x) {
        int a = x * 3 + 1, b = x ^ 0x55, c = a - b, d = c * 7;
        a += b * c - d; b ^= a + 11; c -= b * 5 + a; d += c ^ 13;
        a = a * 31 + d; b = b * 17 - c; c = c * 13 + a; d = d * 11 - b;
        return a + b + c + d;
    }

    static int huge(int x) {
        int a = x * 3 + 1, b = x ^ 0x55, c = a - b, d = c * 7;
        a += b * c - d; b ^= a + 11; c -= b * 5 + a; d += c ^ 13;
        a = a * 31 + d; b = b * 17 - c; c = c * 13 + a; d = d * 11 - b;
        a += b * c - d; b ^= a + 11; c -= b * 5 + a; d += c ^ 13;
        a = a * 31 + d; b = b * 17 - c; c = c * 13 + a; d = d * 11 - b;
        a += b * c - d; b ^= a + 11; c -= b * 5 + a; d += c ^ 13;
        a = a * 31 + d; b = b * 17 - c; c = c * 13 + a; d = d * 11 - b;
        return a + b + c + d;
    }

    static int driver(int i) {
        return big(i) - big(i + 1) + huge(i) - huge(i + 2);
    }

    public static void main(String[] args) {
        int sum = 0;
        for (int i = 0; i < 3000; i++) {
            sum += driver(i);
        }
        System.out.println(sum);
    }
}
"#;

/// A callee over `MAX_INLINE_BYTES` is inlined once it is compiled itself
/// (hot), up to `HOT_INLINE_BYTES`: under `-Xbatch`, `driver` inlines its
/// two calls of the compiled `big` and keeps its two calls of `huge`
/// (over the hot limit): 2 calls inlined, where `big` as a cold callee
/// (over `MAX_INLINE_BYTES`) would make 0 and `huge` inlined 4. The sum
/// is HotSpot 25's.
#[test]
fn a_hot_callee_up_to_the_hot_limit_is_inlined() {
    use fastpath_vm::jit::translate::{HOT_INLINE_BYTES, MAX_INLINE_BYTES};
    const { assert!(MAX_INLINE_BYTES < 94 && 94 <= HOT_INLINE_BYTES && HOT_INLINE_BYTES < 222) };
    let dir = harness::scratch_dir("fastpath-vm-jit-hot-callee");
    harness::javac_sources(&dir, &dir, &[("HotCallee", HOT_CALLEE)]);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fastpath-vm"));
    cmd.env("FASTPATH_VM_JIT_LOG", "1")
        .env("FASTPATH_VM_JIT_THRESHOLD", "1000")
        .arg("-Xbatch")
        .arg("-cp")
        .arg(&dir)
        .arg("HotCallee");
    let o = harness::run_with_limit(cmd, Duration::from_secs(60)).unwrap_or_else(|e| panic!("{e}"));
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status, Some(0), "{out}\n{err}");
    assert_eq!(out, "491108512\n");
    let summary = err
        .lines()
        .find(|l| l.starts_with("fastpath-vm jit: "))
        .unwrap_or_else(|| panic!("no JIT summary on stderr:\n{err}"));
    assert_eq!(harness::summary_count(summary, "calls inlined"), 2, "{summary}");
}

/// `LoopBudget`: `work` calls six static methods of 43 bytecode bytes
/// each once, then `g` (43 bytes too) in a loop.
const LOOP_BUDGET: &str = r#"public class LoopBudget {
    static int a(int x) {
        int y = x * 7 + 3;
        if (y > 100) {
            y -= 50;
        }
        y ^= (x << 2) + (y >>> 3);
        return y * 31 + (x & 15) - (y % 11) + 1;
    }

    static int b(int x) {
        int y = x * 7 + 3;
        if (y > 100) {
            y -= 50;
        }
        y ^= (x << 2) + (y >>> 3);
        return y * 32 + (x & 15) - (y % 11) + 1;
    }

    static int c(int x) {
        int y = x * 7 + 3;
        if (y > 100) {
            y -= 50;
        }
        y ^= (x << 2) + (y >>> 3);
        return y * 33 + (x & 15) - (y % 11) + 1;
    }

    static int d(int x) {
        int y = x * 7 + 3;
        if (y > 100) {
            y -= 50;
        }
        y ^= (x << 2) + (y >>> 3);
        return y * 34 + (x & 15) - (y % 11) + 1;
    }

    static int e(int x) {
        int y = x * 7 + 3;
        if (y > 100) {
            y -= 50;
        }
        y ^= (x << 2) + (y >>> 3);
        return y * 35 + (x & 15) - (y % 11) + 1;
    }

    static int f(int x) {
        int y = x * 7 + 3;
        if (y > 100) {
            y -= 50;
        }
        y ^= (x << 2) + (y >>> 3);
        return y * 36 + (x & 15) - (y % 11) + 1;
    }

    static int g(int x) {
        int y = x * 7 + 3;
        if (y > 100) {
            y -= 50;
        }
        y ^= (x << 2) + (y >>> 3);
        return y * 37 + (x & 15) - (y % 11) + 1;
    }

    static int work(int n) {
        int s = a(n) + b(n) + c(n) + d(n) + e(n) + f(n);
        for (int i = 0; i < n; i++) {
            s += g(i);
        }
        return s;
    }

    public static void main(String[] args) {
        int sum = 0;
        for (int k = 0; k < 3000; k++) {
            sum += work(k % 4);
        }
        System.out.println(sum);
    }
}
"#;

/// Calls in a loop inline from a budget of their own: under `-Xbatch`,
/// `work`'s six straight-line calls fill `INLINE_BUDGET_BYTES` with five
/// of them (215 bytes; the sixth would pass 240), and the call of `g` in
/// its loop, which the 25 bytes left could not take, is inlined from
/// `LOOP_INLINE_BUDGET_BYTES`: 6 calls inlined, where one budget for all
/// makes 5. The sum is HotSpot 25's.
#[test]
fn a_loop_call_inlines_after_the_straight_line_budget_is_spent() {
    use fastpath_vm::jit::translate::{INLINE_BUDGET_BYTES, LOOP_INLINE_BUDGET_BYTES, MAX_INLINE_BYTES};
    const {
        assert!(43 <= MAX_INLINE_BYTES && 5 * 43 <= INLINE_BUDGET_BYTES && 6 * 43 > INLINE_BUDGET_BYTES);
        assert!(43 <= LOOP_INLINE_BUDGET_BYTES);
    };
    let dir = harness::scratch_dir("fastpath-vm-jit-loop-budget");
    harness::javac_sources(&dir, &dir, &[("LoopBudget", LOOP_BUDGET)]);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fastpath-vm"));
    cmd.env("FASTPATH_VM_JIT_LOG", "1")
        .env("FASTPATH_VM_JIT_THRESHOLD", "1000")
        .arg("-Xbatch")
        .arg("-cp")
        .arg(&dir)
        .arg("LoopBudget");
    let o = harness::run_with_limit(cmd, Duration::from_secs(60)).unwrap_or_else(|e| panic!("{e}"));
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status, Some(0), "{out}\n{err}");
    assert_eq!(out, "12060000\n");
    let summary = err
        .lines()
        .find(|l| l.starts_with("fastpath-vm jit: "))
        .unwrap_or_else(|| panic!("no JIT summary on stderr:\n{err}"));
    assert_eq!(harness::summary_count(summary, "calls inlined"), 6, "{summary}");
}
