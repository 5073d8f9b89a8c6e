package fastpath.peers;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * HotSpot beside `fastpath gc --only pauses`: N mutator threads churn a heap kept half live, in the
 * same shape as the lab's pause workload (nodes of 2 references and 4 data words, held in chunk
 * arrays of 4000 references under one spine per thread; each operation replaces a random node by a
 * new one that briefly links to the old). Run it under Shenandoah with -Xlog:safepoint,gc and parse
 * the log with gc_pauses.py (which also launches it): the pauses' parts come from HotSpot's own
 * log, not from this program.
 *
 * <p>Arguments: threads, seconds of churn, live MiB (default 4, 10, half of -Xmx).
 */
public final class GcPauses {
    /** The lab's node: 2 references, 4 data words. */
    static final class Node {
        Node a;
        Node b;
        long d0, d1, d2, d3;
    }

    static final int CHUNK = 4000;

    /** Rough size of a Node with compressed oops: 12-byte header, 2 x 4, 4 x 8, aligned to 8. */
    static final int NODE_BYTES = 56;

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        long liveMib = args.length > 2 ? Long.parseLong(args[2]) : Runtime.getRuntime().maxMemory() / 2 / (1 << 20);
        long perThread = (liveMib << 20) / NODE_BYTES / threads;
        CountDownLatch built = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        AtomicLong ops = new AtomicLong();
        AtomicLong worstNs = new AtomicLong();
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final long seed = 0x9E3779B97F4A7C15L ^ (t + 1) * 0xBF58476D1CE4E5B9L;
            ts[t] = new Thread(() -> {
                int chunks = (int) ((perThread + CHUNK - 1) / CHUNK);
                Node[][] spine = new Node[chunks][];
                for (int c = 0; c < chunks; c++) {
                    Node[] chunk = new Node[CHUNK];
                    for (int i = 0; i < CHUNK; i++) {
                        Node n = new Node();
                        n.d0 = i;
                        chunk[i] = n;
                    }
                    spine[c] = chunk;
                }
                built.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                long deadline = System.nanoTime() + seconds * 1_000_000_000L;
                long x = seed, n = 0, worst = 0;
                while (true) {
                    long t0 = System.nanoTime();
                    if (t0 >= deadline) {
                        break;
                    }
                    x ^= x << 13;
                    x ^= x >>> 7;
                    x ^= x << 17;
                    Node[] chunk = spine[(int) Long.remainderUnsigned(x, chunks)];
                    int slot = (int) Long.remainderUnsigned(x >>> 20, CHUNK);
                    Node old = chunk[slot];
                    Node fresh = new Node();
                    if (old != null) {
                        fresh.d0 = old.d0 + 1;
                    }
                    fresh.a = old;
                    chunk[slot] = fresh;
                    fresh.a = null;
                    n++;
                    worst = Math.max(worst, System.nanoTime() - t0);
                }
                ops.addAndGet(n);
                worstNs.accumulateAndGet(worst, Math::max);
            });
            ts[t].start();
        }
        built.await();
        System.gc();
        System.out.printf("GcPauses: churn starts at uptime %d ms%n", ManagementFactory.getRuntimeMXBean().getUptime());
        long start = System.nanoTime();
        go.countDown();
        for (Thread t : ts) {
            t.join();
        }
        double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf("GcPauses: churn ends at uptime %d ms%n", ManagementFactory.getRuntimeMXBean().getUptime());
        System.out.printf("GcPauses: %d threads, %d MiB live, %.0f ops/s, longest op %.2f ms%n",
                threads, liveMib, ops.get() / secs, worstNs.get() / 1e6);
    }
}
