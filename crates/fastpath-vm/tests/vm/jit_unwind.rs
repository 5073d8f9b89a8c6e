//! Throws whose exception leaves the compiled method (`jit/frame.rs`'s
//! `UNWINDING`): their stops store no reference, and the root scanner
//! reads none of the frame's slots while the throw's helper allocates
//! the exception and its stack trace. Here such throws run again and
//! again while another thread allocates in a small heap, so collections
//! fall inside the helpers: the throwing method (compiled on its own, its
//! call megamorphic) keeps references that its caller reads afterwards
//! through other variables, and its frame's slots may hold what earlier
//! interpreted frames left there, which the scanner must not read as
//! references. `main` checks every result and stack trace against the
//! values computed without the calls and fails the run otherwise; under
//! `-Xcomp` and the default tiers, with the passive and the concurrent
//! collector and the heap verifier after every cycle; the collector must
//! have run at least twice.

use crate::harness;

use harness::Tier;

const PROGRAM: &str = r#"
public class Unwinds {
    static volatile boolean done;
    static volatile int made;

    interface Ops {
        int pick(Object a, Object b, Object c, int[] arr, int i);
    }

    static final class Real implements Ops {
        public int pick(Object a, Object b, Object c, int[] arr, int i) {
            int x = arr[i];
            return x + (a == b ? 1 : 0) + (c == null ? 2 : 0);
        }
    }

    static class Zero implements Ops {
        public int pick(Object a, Object b, Object c, int[] arr, int i) {
            return 0;
        }
    }

    static final class Zero2 extends Zero {
    }

    static final class Zero3 extends Zero {
    }

    static final class Box {
        final int v;

        Box(int v) {
            this.v = v;
        }
    }

    public static void main(String[] args) throws Exception {
        Thread churn = new Thread(() -> {
            Object[] keep = new Object[64];
            int k = 0;
            while (!done) {
                keep[k++ & 63] = new int[512];
                made = k;
            }
        });
        churn.start();
        Ops[] ops = {new Zero(), new Zero2(), new Zero3(), new Real()};
        int[] arr = {5, 6};
        long sum = 0, want = 0, caught = 0, throwing = 0;
        // Until the other thread has allocated 200 MB (a dozen cycles of
        // the 16 MB heap), and at least 400,000 rounds.
        for (int round = 0; made < 100_000 || round < 400_000; round++) {
            Box a = new Box(round);
            Box b = (round & 16) == 0 ? a : new Box(-round);
            Object c = round % 5 == 0 ? null : a;
            int[] xs = (round & 8) == 0 ? arr : null;
            int i = round % 3;
            boolean real = (round & 3) == 3;
            boolean fails = real && (xs == null || i >= 2);
            try {
                sum += ops[round & 3].pick(a, b, c, xs, i);
                if (fails) {
                    throw new Error("round " + round + ": no exception");
                }
            } catch (NullPointerException | ArrayIndexOutOfBoundsException e) {
                caught++;
                String where = e.getStackTrace()[0].getMethodName();
                if (!fails || !where.equals("pick")) {
                    throw new Error("round " + round + ": " + e + " at " + where);
                }
            }
            if (real) {
                throwing++;
                if (!fails) {
                    want += arr[i] + (a == b ? 1 : 0) + (c == null ? 2 : 0);
                }
            }
            // The references the call had live: still the same objects.
            if (a.v != round || (b != a && b.v != -round) || (c != null && c != a)) {
                throw new Error("round " + round + ": a reference changed");
            }
        }
        done = true;
        churn.join();
        if (sum != want || caught == 0 || caught == throwing) {
            throw new Error(sum + " for " + want + ", " + caught + " of " + throwing + " caught");
        }
        System.out.println("same");
    }
}
"#;

#[test]
fn references_survive_collections_during_throws_that_leave() {
    let dir = harness::scratch_dir("fastpath-vm-jit-unwind");
    harness::javac_sources(&dir, &dir, &[("Unwinds", PROGRAM)]);
    let runs: [Tier; 4] = [
        harness::XCOMP_COLLECTING[0],
        harness::XCOMP_COLLECTING[1],
        (
            &[("FASTPATH_GC_MODE", "passive"), ("FASTPATH_VM_VERIFY_HEAP", "1")],
            &["-Xmx16m"],
        ),
        (
            &[
                ("FASTPATH_GC_MODE", "concurrent"),
                ("FASTPATH_VM_VERIFY_HEAP", "1"),
            ],
            &["-Xmx16m"],
        ),
    ];
    for (env, opts) in runs {
        let (out, err) = harness::run_in_tier(&dir, "Unwinds", (env, opts), &[("FASTPATH_VM_GC_STATS", "1")]);
        assert_eq!(out, "same\n", "stdout under {env:?} {opts:?}");
        harness::assert_collected_cleanly(&err, &format!("{env:?} {opts:?}"));
    }
}
