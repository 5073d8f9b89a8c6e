import java.util.concurrent.SynchronousQueue;

// HandOff: `threads` producer/consumer pairs (default 1) pass `inner` items through one
// SynchronousQueue, where every put waits for a take (the hand-off microbenchmark of
// JDK-8267502 that seed 004 cites; its waiting spins with Thread.onSpinWait on JDKs that do).
// Check: the consumers' sum is the sum of the items produced.
final class HandOff extends Benchmark {
    @Override
    Object run(int inner, int threads) {
        SynchronousQueue<Long> queue = new SynchronousQueue<>();
        long[] sums = new long[threads];
        Workers.runAll(2 * threads, index -> {
            int pair = index / 2;
            int n = Workers.share(inner, threads, pair);
            if (index % 2 == 0) {
                for (int i = 1; i <= n; i++) {
                    queue.put((long) i);
                }
            } else {
                long s = 0;
                for (int i = 0; i < n; i++) {
                    s += queue.take();
                }
                sums[pair] = s;
            }
        });
        long total = 0;
        for (long s : sums) {
            total += s;
        }
        return total;
    }

    @Override
    String verify(Object result, int inner, int threads) {
        long expected = 0;
        for (int p = 0; p < threads; p++) {
            long n = Workers.share(inner, threads, p);
            expected += n * (n + 1) / 2;
        }
        return expect("sum of items", (Long) result, expected);
    }

    @Override
    int defaultInner() {
        return 5_000;
    }
}
