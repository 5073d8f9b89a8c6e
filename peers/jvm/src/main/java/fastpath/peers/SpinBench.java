package fastpath.peers;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The HotSpot side of `fastpath spin` (seed 004): the cost of one Thread.onSpinWait(), a
 * SynchronousQueue handoff between two threads, and an access-ordered LinkedHashMap LRU behind
 * `synchronized` with Zipfian keys (Caffeine's GetPutBenchmark LinkedHashMap_Lru pattern).
 * Run with -jvmArgsAppend -XX:OnSpinWaitInst=... on AArch64; on x86 onSpinWait is PAUSE.
 */
public class SpinBench {

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public void onSpinWait() {
        Thread.onSpinWait();
    }

    @State(Scope.Group)
    public static class Handoff {
        final SynchronousQueue<Integer> queue = new SynchronousQueue<>();
        final Integer token = 42;
    }

    @Benchmark
    @Group("handoff")
    @GroupThreads(1)
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public boolean put(Handoff h) throws InterruptedException {
        // Timed, so that when JMH stops the partner the last put gives up instead of
        // blocking the iteration's end forever.
        return h.queue.offer(h.token, 10, TimeUnit.MILLISECONDS);
    }

    @Benchmark
    @Group("handoff")
    @GroupThreads(1)
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public Integer take(Handoff h) throws InterruptedException {
        return h.queue.poll(10, TimeUnit.MILLISECONDS);
    }

    /**
     * A shared access-ordered LRU shaped as Caffeine's GetPutBenchmark and the lab's LRU table:
     * 32768 pre-drawn Zipfian keys (theta 0.99) over 10922 items, capacity 65536.
     */
    @State(Scope.Benchmark)
    public static class Lru {
        static final int SIZE = 2 << 14;
        static final int ITEMS = SIZE / 3;
        static final int CAPACITY = 2 * SIZE;
        final Map<Integer, Integer> map = new LinkedHashMap<>(CAPACITY * 2, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Integer, Integer> eldest) {
                return size() > CAPACITY;
            }
        };
        int[] zipf;

        @Setup(Level.Trial)
        public void setUp() {
            zipf = Zipf.sample(ITEMS, 0.99, SIZE, 0x5eed);
            for (int i = 0; i < ITEMS; i++) {
                map.put(i, i);
            }
        }
    }

    @State(Scope.Thread)
    public static class Cursor {
        int next = (int) (Thread.currentThread().getId() * 7919);
    }

    /** 75% get, 25% put, as the lab's LRU workload (Caffeine's 6 readers : 2 writers). */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public void lruGetPut(Lru lru, Cursor c, Blackhole bh) {
        int i = c.next++;
        int key = lru.zipf[i & (lru.zipf.length - 1)];
        synchronized (lru.map) {
            if ((i & 3) == 0) {
                lru.map.put(key, i);
            } else {
                bh.consume(lru.map.get(key));
            }
        }
    }

    /** Zipf sampling by inverse CDF over a precomputed table. */
    static final class Zipf {
        static int[] sample(int n, double s, int count, long seed) {
            double[] cdf = new double[n];
            double sum = 0;
            for (int k = 1; k <= n; k++) {
                sum += 1.0 / Math.pow(k, s);
                cdf[k - 1] = sum;
            }
            SplittableRandom r = new SplittableRandom(seed);
            int[] out = new int[count];
            for (int i = 0; i < count; i++) {
                double u = r.nextDouble() * sum;
                int lo = 0, hi = n - 1;
                while (lo < hi) {
                    int mid = (lo + hi) >>> 1;
                    if (cdf[mid] < u) lo = mid + 1; else hi = mid;
                }
                out[i] = lo;
            }
            return out;
        }
    }
}
