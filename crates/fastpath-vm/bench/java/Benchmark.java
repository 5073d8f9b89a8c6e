// The contract between Harness and a benchmark: one timed iteration runs `run(inner, threads)`,
// whose result `verify` checks (outside the timed region) before the next iteration starts.
// `inner` scales the work of one iteration; `defaultInner()` sizes it to 5-50 ms on HotSpot's
// C2 in steady state. Benchmarks that use threads take their count from `threads`; the others
// ignore it.
abstract class Benchmark {
    abstract Object run(int inner, int threads);

    /** Returns null when the result is right, otherwise what was wrong. */
    abstract String verify(Object result, int inner, int threads);

    abstract int defaultInner();

    int defaultThreads() {
        return 1;
    }

    /** A small, fully specified generator (a 31-bit Park-Miller-style LCG) shared by benchmarks. */
    static final class Lcg {
        private int seed;

        Lcg(int seed) {
            this.seed = seed;
        }

        int next() {
            seed = (int) ((seed * 16807L) % 2147483647L);
            return seed;
        }

        int next(int bound) {
            return next() % bound;
        }
    }

    /**
     * A result's checksum for `Harness --checksum`: the long[] results' elements folded as
     * Arrays.hashCode folds them (31 h + x, in 64 bits); other results have none (0).
     */
    static long checksum(Object result) {
        if (!(result instanceof long[])) {
            return 0;
        }
        long h = 1;
        for (long x : (long[]) result) {
            h = 31 * h + x;
        }
        return h;
    }

    static String expect(String what, long actual, long expected) {
        return actual == expected ? null : what + " was " + actual + ", expected " + expected;
    }
}
