// SyncCounter: `threads` threads (default 1; the lab runs 1, 2 and 4) share `inner`
// increments of one counter, each increment in a synchronized block on the same object:
// the uncontended fast path at one thread, contention and inflation above. Check: the count
// is exactly `inner`.
final class SyncCounter extends Benchmark {
    static final class Counter {
        long value;
    }

    @Override
    Object run(int inner, int threads) {
        Counter counter = new Counter();
        Workers.runAll(threads, index -> {
            int n = Workers.share(inner, threads, index);
            for (int i = 0; i < n; i++) {
                synchronized (counter) {
                    counter.value++;
                }
            }
        });
        return counter.value;
    }

    @Override
    String verify(Object result, int inner, int threads) {
        return expect("count", (Long) result, inner);
    }

    @Override
    int defaultInner() {
        return 2_000_000;
    }
}
