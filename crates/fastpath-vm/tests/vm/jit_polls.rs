//! The safepoint poll's register-preserving stop (`jit/preserve.rs`): a
//! compiled loop with no call in it keeps more values live than the
//! callee-saved registers hold (ints, longs and doubles), and another
//! thread allocates in a small heap until the loop is done, so the
//! collector's safepoints stop the loop at its back-edge poll again and
//! again (until it has allocated 200 MB). Every value must be the same bits after each stop: `main`
//! compares the loop's result under the allocating thread with its result
//! before that thread started, and fails the run otherwise. Under `-Xcomp`
//! and under the default tiers (the loop reached by on-stack replacement),
//! with the passive and the concurrent collector and the heap verifier;
//! the collector must have run at least twice.

use crate::harness;

use harness::Tier;

const PROGRAM: &str = r#"
public class Polls {
    static volatile boolean done;
    static volatile int made;

    static long mix(int n) {
        int a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8;
        long x = 9, y = 10;
        double p = 0.5, q = 1.5, r = 2.5, s = 3.5;
        for (int i = 0; i < n; i++) {
            a += i;
            b ^= a;
            c += b >>> 3;
            d -= c;
            e += d * 3;
            f ^= e << 1;
            g += f;
            h -= g ^ i;
            x += h;
            y ^= x * 31;
            p += (a & 1023) * 0.25;
            q = q * 0.5 + (b & 255);
            r -= (c & 127) * 0.125;
            s += (d & 63);
        }
        return a + b + c + d + e + f + g + h + x + y + (long) (p + q + r + s);
    }

    public static void main(String[] args) throws Exception {
        long quiet = mix(200_000);
        Thread churn = new Thread(() -> {
            Object[] keep = new Object[64];
            int k = 0;
            while (!done) {
                keep[k++ & 63] = new int[512];
                made = k;
            }
        });
        churn.start();
        // Until the other thread has allocated 200 MB (a dozen cycles of
        // the 16 MB heap).
        for (int round = 0; made < 100_000 || round < 4; round++) {
            long busy = mix(200_000);
            if (busy != quiet) {
                throw new Error("round " + round + ": " + busy + " after " + quiet);
            }
        }
        done = true;
        churn.join();
        System.out.println("same");
    }
}
"#;

#[test]
fn values_live_across_a_stopped_poll_survive_it() {
    let dir = harness::scratch_dir("fastpath-vm-jit-polls");
    harness::javac_sources(&dir, &dir, &[("Polls", PROGRAM)]);
    let runs: [Tier; 3] = [
        harness::XCOMP_COLLECTING[0],
        harness::XCOMP_COLLECTING[1],
        (&[("FASTPATH_GC_MODE", "concurrent")], &["-Xmx16m"]),
    ];
    for (env, opts) in runs {
        let (out, err) = harness::run_in_tier(&dir, "Polls", (env, opts), &[("FASTPATH_VM_GC_STATS", "1")]);
        assert_eq!(out, "same\n", "stdout under {env:?} {opts:?}");
        harness::assert_collected_cleanly(&err, &format!("{env:?} {opts:?}"));
    }
}

/// A list walk whose loop keeps references it does not change (`b`,
/// `c`): the back edge's poll reloads them after a stop, so they are the
/// loop head's parameters.
const WALK: &str = r#"
public class Walk {
    static final class E {
        E next;
    }

    static int count(E a, E b, E c) {
        int n = 0;
        for (E p = a; p != null; p = p.next) {
            n++;
        }
        return n + (b == c ? 1 : 2);
    }

    public static void main(String[] args) {
        E head = null;
        for (int i = 0; i < 10; i++) {
            E e = new E();
            e.next = head;
            head = e;
        }
        long sum = 0;
        for (int i = 0; i < 1000; i++) {
            sum += count(head, head, null);
        }
        System.out.println("sum " + sum);
    }
}
"#;

/// The optimised IR `FASTPATH_VM_JIT_DUMP` printed, as blocks: each
/// block's name, whether it is cold, and its instructions.
fn clif_blocks(dump: &str) -> Vec<(String, bool, Vec<String>)> {
    let ir = dump.split("; ---- machine code").next().unwrap_or("");
    let mut blocks: Vec<(String, bool, Vec<String>)> = Vec::new();
    for line in ir.lines() {
        if line.starts_with("block") {
            if let Some(head) = line.strip_suffix(':') {
                let cold = head.ends_with(" cold");
                let name = head.split(['(', ' ']).next().unwrap_or(head).to_string();
                blocks.push((name, cold, Vec::new()));
            }
        } else if let (Some(ins), Some(last)) = (line.strip_prefix("    "), blocks.last_mut()) {
            last.2.push(ins.trim().to_string());
        }
    }
    blocks
}

/// A loop's back-edge poll goes on, when no stop is asked for, to the
/// loop's head itself: no join block between the poll and the head,
/// whose parameters would each take two sets of moves a trip (regalloc2
/// moved `ListBenchmark.tail`'s loop references through both, swapping
/// two registers and back). Read from the IR: the poll's branch (a cold
/// block first, after the poll byte's load) goes on to a block that the
/// loop's entry also enters, so that three branches name it (the entry,
/// the poll, the stop's way back); a join would be named by the poll's two
/// ways only.
#[test]
fn a_back_edge_poll_goes_on_to_the_loop_head_itself() {
    let dir = harness::scratch_dir("fastpath-vm-jit-polls-walk");
    harness::javac_sources(&dir, &dir, &[("Walk", WALK)]);
    let (out, err) = harness::run_in_tier(
        &dir,
        "Walk",
        (&[], &["-Xcomp"]),
        &[("FASTPATH_VM_JIT_DUMP", "Walk.main")],
    );
    assert_eq!(out, "sum 12000\n");
    let blocks = clif_blocks(&err);
    let cold: std::collections::HashSet<&str> = blocks.iter().filter(|b| b.1).map(|b| b.0.as_str()).collect();
    let named = |target: &str| -> usize {
        blocks
            .iter()
            .flat_map(|b| b.2.iter())
            .filter(|i| i.split([' ', ',', '(']).any(|w| w == target))
            .count()
    };
    // Each poll: its branch, and the block its hot way enters.
    let mut polls = Vec::new();
    for (name, _, body) in &blocks {
        for (k, ins) in body.iter().enumerate() {
            let Some(rest) = ins.strip_prefix("brif ") else {
                continue;
            };
            // `brif c, then(args), else(args)`: the two names after `c`
            // (an argument list splits at its commas too).
            let targets: Vec<&str> = rest
                .split(", ")
                .filter(|t| t.starts_with("block"))
                .map(|t| t.split('(').next().unwrap_or(t))
                .collect();
            if targets.len() == 2
                && cold.contains(targets[0])
                && body[..k].iter().any(|i| i.contains("uload8"))
            {
                polls.push((name.clone(), targets[1].to_string()));
            }
        }
    }
    // The method's entry poll goes on to its first instruction's block,
    // which only that poll enters; the loop's poll is the other one.
    let loop_polls: Vec<_> = polls.iter().filter(|(_, hot)| named(hot) >= 3).collect();
    assert_eq!(
        (polls.len(), loop_polls.len()),
        (2, 1),
        "two polls (the entry's and the loop's), the loop's going on to its head: {polls:?}\n{err}"
    );
}
