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
//! `HotCallee`: a callee over the small-callee limit is inlined at a hot
//! call site, one over the hot limit is not. `CallFreq`: of two calls of
//! the same size, the hot one is inlined and the cold one left a call.
//! `HotFirst`: the inlining budget goes to a loop's call before the
//! straight-line calls ahead of it in bytecode order. `WarmLeaf`: at a
//! warm call site a leaf over the small-callee limit is inlined, a callee
//! of that size with a call of its own is not, and the leaf's throw
//! reports the inlined frame. `DeepLeaf`: three frames deep, a warm
//! leaf that does not allocate is inlined, one that allocates is not.
//! `ColdBytes`: a callee's instructions that can only throw do not spend
//! the inlining budget. `Unreached`: a small callee at a site that
//! never ran while its method was profiled is inlined, and runs right
//! once the program's later phase reaches it.

use crate::harness;

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

/// `x` mixed into `a`..`d`, then `rounds` pairs of mixing rounds (the
/// callees' bulk of bytecode: each pair 64 bytes), indented by `indent`.
fn mixing(rounds: usize, indent: &str) -> String {
    let mut s = format!("{indent}int a = x * 3 + 1, b = x ^ 0x55, c = a - b, d = c * 7;\n");
    for _ in 0..rounds {
        s += &format!("{indent}a += b * c - d; b ^= a + 11; c -= b * 5 + a; d += c ^ 13;\n");
        s += &format!("{indent}a = a * 31 + d; b = b * 17 - c; c = c * 13 + a; d = d * 11 - b;\n");
    }
    s
}

/// A `main` that sums `call` (a static method of one `int`) over 3000
/// arguments and prints the sum, closing the class.
fn summing_main(call: &str) -> String {
    format!(
        "
    public static void main(String[] args) {{
        int sum = 0;
        for (int k = 0; k < 3000; k++) {{
            sum += {call}(k);
        }}
        System.out.println(sum);
    }}
}}
"
    )
}

/// `HotCallee`: `driver` calls `big` (94 bytecode bytes) and `huge` (222)
/// twice each; both cross the invocation threshold before `driver` does.
fn hot_callee_source() -> String {
    format!(
        "public class HotCallee {{
    static int big(int x) {{
{}        return a + b + c + d;
    }}

    static int huge(int x) {{
{}        return a + b + c + d;
    }}

    static int driver(int i) {{
        return big(i) - big(i + 1) + huge(i) - huge(i + 2);
    }}
{}",
        mixing(1, "        "),
        mixing(3, "        "),
        summing_main("driver")
    )
}

/// A callee over `MAX_INLINE_BYTES` is inlined at a hot call site (one
/// that runs on every call of its method), up to `HOT_INLINE_BYTES`:
/// under `-Xbatch`, `driver` inlines its two calls of `big` and keeps its
/// two calls of `huge` (over the hot limit): 2 calls inlined, where `big`
/// as a warm callee (over `MAX_INLINE_BYTES`) would make 0 and `huge`
/// inlined 4. The sum is HotSpot 25's.
#[test]
fn a_hot_callee_up_to_the_hot_limit_is_inlined() {
    use fastpath_vm::jit::inlining::{HOT_INLINE_BYTES, MAX_INLINE_BYTES};
    const { assert!(MAX_INLINE_BYTES < 94 && 94 <= HOT_INLINE_BYTES && HOT_INLINE_BYTES < 222) };
    let dir = harness::scratch_dir("fastpath-vm-jit-hot-callee");
    harness::javac_sources(&dir, &dir, &[("HotCallee", &hot_callee_source())]);
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

/// `LoopCallee`: `work` calls `huge` (222 bytecode bytes) twelve times
/// in one loop and twice in another, and `loopy` (318 bytes, a loop of
/// 20 iterations) twelve times in a third.
fn loop_callee_source() -> String {
    format!(
        "public class LoopCallee {{
    static int huge(int x) {{
{}        return a + b + c + d;
    }}

    static int loopy(int y) {{
        int s = 0;
        for (int r = 0; r < 20; r++) {{
            int x = y + r;
{}            s += a + b + c + d;
        }}
        return s;
    }}

    static int work(int n) {{
        int s = 0;
        for (int i = 0; i < 12; i++) {{
            s += huge(n + i);
        }}
        for (int j = 0; j < 2; j++) {{
            s -= huge(n - j);
        }}
        for (int i = 0; i < 12; i++) {{
            s ^= loopy(n + i);
        }}
        return s;
    }}
{}",
        mixing(3, "        "),
        mixing(3, "            "),
        summing_main("work")
    )
}

/// A callee over `HOT_INLINE_BYTES`, up to `FREQ_INLINE_BYTES`, is
/// inlined at a hot site that runs at least `LOOP_FREQ` times per run of
/// the compiled method, unless its own loops ran `MAX_BIG_CALLEE_TRIPS`
/// times per run: `work`'s first call of `huge` (12 runs a call) is
/// inlined, its second (2 a call, as hot) is left a call, and so is the
/// call of `loopy`. The sum is HotSpot 25's.
#[test]
fn a_big_callee_in_a_loop_is_inlined_up_to_the_frequent_limit() {
    use fastpath_vm::jit::inlining::{
        FREQ_INLINE_BYTES, HOT_FREQ_RATIO, HOT_INLINE_BYTES, LOOP_FREQ, MAX_BIG_CALLEE_TRIPS,
    };
    const {
        assert!(HOT_INLINE_BYTES < 222 && 318 <= FREQ_INLINE_BYTES && MAX_BIG_CALLEE_TRIPS <= 20);
        assert!(2.0 >= HOT_FREQ_RATIO && 2.0 < LOOP_FREQ && LOOP_FREQ <= 12.0);
    };
    let dir = harness::scratch_dir("fastpath-vm-jit-loop-callee");
    harness::javac_sources(&dir, &dir, &[("LoopCallee", &loop_callee_source())]);
    let (out, line) = run_logged(&dir, "LoopCallee", "work(I)I");
    assert_eq!(out, "1165968504\n");
    assert!(line.ends_with(", 1 calls inlined, 0 cold calls left"), "{line}");
}

/// A static method of 43 bytecode bytes named `name`, its result
/// scaled by `k`.
fn small_method(name: &str, k: u32) -> String {
    format!(
        "    static int {name}(int x) {{
        int y = x * 7 + 3;
        if (y > 100) {{
            y -= 50;
        }}
        y ^= (x << 2) + (y >>> 3);
        return y * {k} + (x & 15) - (y % 11) + 1;
    }}
"
    )
}

/// `CallFreq`: `work` calls `hot` (43 bytecode bytes) four times in a
/// loop and `cold` (43 bytes too) on one call in a thousand.
fn call_freq_source() -> String {
    let mut src = String::from("public class CallFreq {\n");
    src += &small_method("hot", 31);
    src += &small_method("cold", 37);
    src += "
    static int work(int n) {
        int s = 0;
        for (int i = 0; i < 4; i++) {
            s += hot(n + i);
        }
        if (n % 1000 == 999) {
            s += cold(n);
        }
        return s;
    }

    public static void main(String[] args) {
        int sum = 0;
        for (int k = 0; k < 5000; k++) {
            sum += work(k);
        }
        System.out.println(sum);
    }
}
";
    src
}

/// `HotFirst`: `work` calls 24 static methods of 43 bytecode bytes once
/// each, then `g` (94 bytes) one to four times in a loop.
fn hot_first_source() -> String {
    let mut src = String::from("public class HotFirst {\n");
    for i in 0..24 {
        src += &small_method(&format!("a{i}"), 31 + i);
        src.push('\n');
    }
    let calls: Vec<String> = (0..24).map(|i| format!("a{i}(n)")).collect();
    src += &format!(
        "    static int g(int x) {{
        int a = x * 3 + 1, b = x ^ 0x55, c = a - b, d = c * 7;
        a += b * c - d; b ^= a + 11; c -= b * 5 + a; d += c ^ 13;
        a = a * 31 + d; b = b * 17 - c; c = c * 13 + a; d = d * 11 - b;
        return a + b + c + d;
    }}

    static int work(int n) {{
        int s = {};
        for (int i = 0; i <= n % 4; i++) {{
            s += g(n + i);
        }}
        return s;
    }}

    public static void main(String[] args) {{
        int sum = 0;
        for (int k = 0; k < 3000; k++) {{
            sum += work(k);
        }}
        System.out.println(sum);
    }}
}}
",
        calls.join(" + ")
    );
    src
}

/// Runs `class` from `dir` under `-Xbatch`, compiled after 1000 calls,
/// with the JIT's log; its stdout and the log line of `method`'s
/// compilation.
fn run_logged(dir: &PathBuf, class: &str, method: &str) -> (String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fastpath-vm"));
    cmd.env("FASTPATH_VM_JIT_LOG", "1")
        .env("FASTPATH_VM_JIT_THRESHOLD", "1000")
        .arg("-Xbatch")
        .arg("-cp")
        .arg(dir)
        .arg(class);
    let o = harness::run_with_limit(cmd, Duration::from_secs(60)).unwrap_or_else(|e| panic!("{e}"));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status, Some(0), "{out}\n{err}");
    let prefix = format!("jit: {class}.{method} ");
    let line = err
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("{method} not compiled:\n{err}"))
        .to_string();
    (out, line)
}

/// The call-site profile decides: `work`, compiled after 1000 calls,
/// ran its call of `hot` four times a call and its call of `cold` once
/// in a thousand (below `MIN_FREQ_RATIO`): `hot` is inlined, `cold`,
/// the same size, is left a call, and still runs right when it is
/// reached from compiled code (k = 1999, 2999, ...). The sum is HotSpot
/// 25's.
#[test]
fn a_hot_call_site_is_inlined_and_a_cold_one_left_a_call() {
    use fastpath_vm::jit::inlining::{HOT_FREQ_RATIO, MAX_INLINE_BYTES, MIN_FREQ_RATIO};
    const { assert!(43 <= MAX_INLINE_BYTES && 1.0 / 1000.0 < MIN_FREQ_RATIO && 4.0 >= HOT_FREQ_RATIO) };
    let dir = harness::scratch_dir("fastpath-vm-jit-call-freq");
    harness::javac_sources(&dir, &dir, &[("CallFreq", &call_freq_source())]);
    let (out, line) = run_logged(&dir, "CallFreq", "work(I)I");
    assert_eq!(out, "569172534\n");
    assert!(line.ends_with(", 1 calls inlined, 1 cold calls left"), "{line}");
}

/// The budget goes to the hottest calls first: `work`'s 24 straight-line
/// calls (43 bytes each) come first in bytecode order and would fill
/// `INLINE_BUDGET_BYTES` before the call of `g` (94 bytes) in its loop,
/// which runs 2.5 times a call; `g` is inlined first and the straight-line
/// calls fill what is left: 1 + (budget - 94) / 43 calls inlined, where
/// bytecode order inlines budget / 43. The sum is HotSpot 25's.
#[test]
fn the_inlining_budget_goes_to_the_hottest_call_first() {
    use fastpath_vm::jit::inlining::{HOT_INLINE_BYTES, INLINE_BUDGET_BYTES};
    const {
        assert!(94 <= HOT_INLINE_BYTES && 24 * 43 > INLINE_BUDGET_BYTES && INLINE_BUDGET_BYTES >= 94);
        // Bytecode order would inline a different number.
        assert!(1 + (INLINE_BUDGET_BYTES - 94) / 43 != INLINE_BUDGET_BYTES / 43);
    };
    let dir = harness::scratch_dir("fastpath-vm-jit-hot-first");
    harness::javac_sources(&dir, &dir, &[("HotFirst", &hot_first_source())]);
    let (out, line) = run_logged(&dir, "HotFirst", "work(I)I");
    assert_eq!(out, "-1840004804\n");
    let want = 1 + (INLINE_BUDGET_BYTES - 94) / 43;
    assert!(
        line.ends_with(&format!(", {want} calls inlined, 0 cold calls left")),
        "{line}"
    );
}

/// `ColdBytes`: `work` calls 24 static methods once each, every one 52
/// bytecode bytes of which 14 only throw (`throw new
/// IllegalStateException("negative " + x + ...)`), then `work(-5)` throws
/// from the first, inlined.
fn cold_bytes_source() -> String {
    let mut src = String::from("public class ColdBytes {\n");
    for i in 0..24 {
        src += &format!(
            "    static int c{i}(int x) {{
        if (x < 0) {{
            throw new IllegalStateException(\"negative \" + x + \" in c{i}\");
        }}
        int y = x * 7 + 3;
        y ^= (x << 2) + (y >>> 3);
        return y * {} + (x & 15) - (y % 11) + 1;
    }}

",
            31 + i
        );
    }
    let calls: Vec<String> = (0..24).map(|i| format!("c{i}(n)")).collect();
    src += &format!(
        "    static int work(int n) {{
        return {};
    }}

    public static void main(String[] args) {{
        int sum = 0;
        for (int k = 0; k < 3000; k++) {{
            sum += work(k);
        }}
        System.out.println(sum);
        try {{
            work(-5);
        }} catch (IllegalStateException e) {{
            System.out.println(e.getMessage());
        }}
    }}
}}
",
        calls.join(" + ")
    );
    src
}

/// The budget counts a callee's bytes outside its throw-only paths: of
/// `ColdBytes`' 24 callees (52 bytes, 38 of them on the way to the
/// return), `work` inlines budget / 38, where counting every byte would
/// inline budget / 52; the throw from the inlined `c0` is caught. The
/// output is HotSpot 25's.
#[test]
fn a_callees_throw_only_bytes_do_not_spend_the_inlining_budget() {
    use fastpath_vm::jit::inlining::{HOT_INLINE_BYTES, INLINE_BUDGET_BYTES};
    const {
        assert!(52 <= HOT_INLINE_BYTES && 24 * 38 > INLINE_BUDGET_BYTES);
        assert!(INLINE_BUDGET_BYTES / 38 != INLINE_BUDGET_BYTES / 52);
    };
    let dir = harness::scratch_dir("fastpath-vm-jit-cold-bytes");
    harness::javac_sources(&dir, &dir, &[("ColdBytes", &cold_bytes_source())]);
    let (out, line) = run_logged(&dir, "ColdBytes", "work(I)I");
    assert_eq!(out, "48926080\nnegative -5 in c0\n");
    let want = INLINE_BUDGET_BYTES / 38;
    assert!(
        line.ends_with(&format!(", {want} calls inlined, 0 cold calls left")),
        "{line}"
    );
}

/// `WarmLeaf`: `work` calls `leaf` (113 bytecode bytes, its only call
/// the constructor and concatenation of a throw) and `notLeaf` (97 bytes,
/// calling `helper`) each on one call in ten, warm sites: `leaf` is
/// inlined (a leaf up to `HOT_INLINE_BYTES`), `notLeaf` is not (over
/// `MAX_INLINE_BYTES`, and not a leaf). `work(-1)` from the compiled
/// caller throws in the inlined `leaf`, whose trace names it. The output
/// is HotSpot 25's.
const WARM_LEAF: &str = r#"public class WarmLeaf {
    static int leaf(int x) {
        if (x == -1) {
            throw new IllegalArgumentException("leaf " + x);
        }
        int a = x * 3 + 1, b = x ^ 0x55, c = a - b, d = c * 7;
        a += b * c - d; b ^= a + 11; c -= b * 5 + a; d += c ^ 13;
        a = a * 31 + d; b = b * 17 - c; c = c * 13 + a; d = d * 11 - b;
        return a + b + c + d;
    }

    static int helper(int x) {
        return x * 7 + (x >>> 3) - (x % 13);
    }

    static int notLeaf(int x) {
        int a = x * 3 + 1, b = x ^ 0x55, c = a - b, d = c * 7;
        a += b * c - d; b ^= a + 11; c -= b * 5 + a; d += c ^ 13;
        a = a * 31 + d; b = b * 17 - c; c = c * 13 + a; d = d * 11 - b;
        return a + b + c + helper(d);
    }

    static int work(int n) {
        int s = n;
        if (n % 10 == 3 || n == -1) {
            s += leaf(n);
        }
        if (n % 10 == 7) {
            s += notLeaf(n);
        }
        return s;
    }

    public static void main(String[] args) {
        int sum = 0;
        for (int k = 0; k < 20000; k++) {
            sum += work(k);
        }
        System.out.println(sum);
        try {
            work(-1);
            System.out.println("no throw");
        } catch (IllegalArgumentException e) {
            System.out.println(e.getMessage());
            for (StackTraceElement f : e.getStackTrace()) {
                System.out.println("  at " + f.getClassName() + "." + f.getMethodName());
            }
        }
    }
}
"#;

#[test]
fn a_warm_leaf_over_the_small_limit_is_inlined() {
    use fastpath_vm::jit::inlining::{HOT_FREQ_RATIO, HOT_INLINE_BYTES, MAX_INLINE_BYTES, MIN_FREQ_RATIO};
    const {
        assert!(MAX_INLINE_BYTES < 97 && 113 <= HOT_INLINE_BYTES);
        assert!(MIN_FREQ_RATIO <= 0.1 && 0.1 < HOT_FREQ_RATIO);
    };
    let dir = harness::scratch_dir("fastpath-vm-jit-warm-leaf");
    harness::javac_sources(&dir, &dir, &[("WarmLeaf", WARM_LEAF)]);
    let (out, line) = run_logged(&dir, "WarmLeaf", "work(I)I");
    assert_eq!(
        out,
        "265510838\nleaf -1\n  at WarmLeaf.leaf\n  at WarmLeaf.work\n  at WarmLeaf.main\n"
    );
    assert!(line.ends_with(", 1 calls inlined, 0 cold calls left"), "{line}");
}

/// `Unreached`: `work`'s call of `small` (18 bytecode bytes, run once
/// from `main` so that it is decoded) sits behind a flag that is false
/// for `work`'s first 5000 calls: compiled after 1000, its site never ran
/// (a 0 count, below `MIN_FREQ_RATIO`), yet `small` is inlined, not left
/// a cold call; the second phase runs the inlined body. The sum is
/// HotSpot 25's.
const UNREACHED: &str = r#"public class Unreached {
    static boolean late;

    static int small(int x) {
        int y = x * 31 + (x >>> 7) - 5;
        return y ^ (y >> 3);
    }

    static int work(int n) {
        int s = n * 3;
        if (late) {
            s += small(n);
        }
        return s;
    }

    public static void main(String[] args) {
        int sum = small(7);
        for (int k = 0; k < 5000; k++) {
            sum += work(k);
        }
        late = true;
        for (int k = 0; k < 5000; k++) {
            sum += work(k);
        }
        System.out.println(sum);
    }
}
"#;

#[test]
fn a_small_callee_at_a_site_never_reached_is_inlined() {
    use fastpath_vm::jit::inlining::{MAX_INLINE_BYTES, MAX_TRIVIAL_BYTES};
    const { assert!(MAX_TRIVIAL_BYTES < 18 && 18 <= MAX_INLINE_BYTES) };
    let dir = harness::scratch_dir("fastpath-vm-jit-unreached");
    harness::javac_sources(&dir, &dir, &[("Unreached", UNREACHED)]);
    let (out, line) = run_logged(&dir, "Unreached", "work(I)I");
    assert_eq!(out, "467177363\n");
    assert!(line.ends_with(", 1 calls inlined, 0 cold calls left"), "{line}");
}

/// `DeepLeaf`: `work` calls `outer` calls `mid` (hot, inlined two deep),
/// which calls `leaf` (14 bytecode bytes, no allocation) and `allocLeaf`
/// (18 bytes, a `new int[2]`) each on one call in ten: warm sites three
/// deep, past `MAX_INLINE_DEPTH`. `leaf` is inlined, `allocLeaf` is not:
/// 3 calls inlined. The sum is HotSpot 25's.
const DEEP_LEAF: &str = r#"public class DeepLeaf {
    static int[] sink = {0};

    static int leaf(int x) {
        return x * 7 + (x >>> 3) - (x % 13);
    }

    static int allocLeaf(int x) {
        int[] a = new int[2];
        a[0] = x;
        sink = a;
        return a[0] + 1;
    }

    static int mid(int n) {
        int s = n + 1;
        if (n % 10 == 3) {
            s += leaf(n);
        }
        if (n % 10 == 7) {
            s += allocLeaf(n);
        }
        return s;
    }

    static int outer(int n) {
        return mid(n) * 3 + 1;
    }

    static int work(int n) {
        return outer(n) - n;
    }

    public static void main(String[] args) {
        int sum = 0;
        for (int k = 0; k < 20000; k++) {
            sum += work(k);
        }
        System.out.println(sum + sink[0]);
    }
}
"#;

#[test]
fn a_warm_leaf_deeper_than_the_warm_depth_is_inlined_unless_it_allocates() {
    use fastpath_vm::jit::inlining::{
        MAX_HOT_INLINE_DEPTH, MAX_INLINE_BYTES, MAX_INLINE_DEPTH, MAX_TRIVIAL_BYTES,
    };
    const {
        assert!(MAX_INLINE_DEPTH < 3 && 3 <= MAX_HOT_INLINE_DEPTH);
        assert!(MAX_TRIVIAL_BYTES < 14 && 18 <= MAX_INLINE_BYTES);
    };
    let dir = harness::scratch_dir("fastpath-vm-jit-deep-leaf");
    harness::javac_sources(&dir, &dir, &[("DeepLeaf", DEEP_LEAF)]);
    let (out, line) = run_logged(&dir, "DeepLeaf", "work(I)I");
    assert_eq!(out, "887473506\n");
    assert!(line.ends_with(", 3 calls inlined, 0 cold calls left"), "{line}");
}
