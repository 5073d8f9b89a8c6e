// WaitNotifyQueue: `threads` producer/consumer pairs (default 1) move `inner` numbered items
// through one bounded buffer of 16 slots built on synchronized, wait and notifyAll, so both
// sides block and wake each other constantly. Check: the consumers' sum is the sum of the
// items produced.
final class WaitNotifyQueue extends Benchmark {
    static final class Buffer {
        private final long[] slots = new long[16];
        private int head;
        private int size;

        synchronized void put(long v) throws InterruptedException {
            while (size == slots.length) {
                wait();
            }
            slots[(head + size) % slots.length] = v;
            size++;
            notifyAll();
        }

        synchronized long take() throws InterruptedException {
            while (size == 0) {
                wait();
            }
            long v = slots[head];
            head = (head + 1) % slots.length;
            size--;
            notifyAll();
            return v;
        }
    }

    @Override
    Object run(int inner, int threads) {
        Buffer buffer = new Buffer();
        long[] sums = new long[threads];
        Workers.runAll(2 * threads, index -> {
            int pair = index / 2;
            int n = Workers.share(inner, threads, pair);
            if (index % 2 == 0) {
                for (int i = 1; i <= n; i++) {
                    buffer.put(i);
                }
            } else {
                long s = 0;
                for (int i = 0; i < n; i++) {
                    s += buffer.take();
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
        return 20_000;
    }
}
