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
