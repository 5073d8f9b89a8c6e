package fastpath.peers;

import java.lang.management.ManagementFactory;

/**
 * HotSpot beside `cargo run --release -p fastpath --example gc_full_compaction`: the same heap
 * shape, then one full GC. The heap (-Xms = -Xmx) is filled to three quarters with nodes of 2
 * references and 4 longs, allocated in pairs of which the first is kept (in chunk arrays of 4000
 * under one spine) and the second dropped, so every part of the heap holds about half live data,
 * interleaved with garbage; then System.gc(). Run it under Shenandoah's passive mode with explicit
 * GCs as full GCs (no cycle runs while the heap fills, so the garbage stays where it was
 * allocated, as in fastpath's passive heap), or under Serial (whose young collections sort the
 * garbage out while the heap fills: its full GC finds the old generation already dense).
 *
 * <p>Each round builds a fresh spine (the last one dropped and collected first) and prints the
 * live MiB after the full GC and the System.gc() call's wall time (the pause: one application
 * thread, so reaching the safepoint is immediate); -Xlog:gc prints HotSpot's own "Pause Full"
 * line beside it. The last line is the median.
 *
 * <p>Argument: rounds (default 5).
 */
public final class GcFullCompaction {
    /** The lab's node: 2 references, 4 data words. */
    static final class Node {
        Node a;
        Node b;
        long d0, d1, d2, d3;
    }

    static final int CHUNK = 4000;

    /** A Node without compressed oops: 16-byte header, 2 x 8, 4 x 8. */
    static final int NODE_BYTES = 64;

    static Node[][] spine;

    /**
     * Where each dropped node is stored once, so that it escapes and is allocated (C2 would
     * otherwise replace a node that never leaves the loop by its fields) and dies at the next one.
     */
    static Node sink;

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        long heap = Runtime.getRuntime().maxMemory();
        var memory = ManagementFactory.getMemoryMXBean();
        double[] perMib = new double[rounds];
        for (int round = 1; round <= rounds; round++) {
            spine = null;
            System.gc();
            // Pairs of nodes and the chunk arrays holding the kept ones, to three quarters.
            long pairs = heap * 3 / 4 / (2 * NODE_BYTES + 8);
            int chunks = (int) ((pairs + CHUNK - 1) / CHUNK);
            spine = new Node[chunks][];
            long kept = 0;
            for (int c = 0; c < chunks; c++) {
                Node[] chunk = new Node[CHUNK];
                spine[c] = chunk;
                for (int i = 0; i < CHUNK && kept < pairs; i++, kept++) {
                    Node n = new Node();
                    n.d0 = i;
                    chunk[i] = n;
                    Node dropped = new Node(); // the dropped half, between the kept ones
                    dropped.d0 = i;
                    sink = dropped;
                }
            }
            long t0 = System.nanoTime();
            System.gc();
            double ms = (System.nanoTime() - t0) / 1e6;
            double liveMib = memory.getHeapMemoryUsage().getUsed() / (double) (1 << 20);
            perMib[round - 1] = ms / liveMib;
            System.out.printf(
                    "round %d: heap %d MiB, live %.1f MiB, full GC %.2f ms (%.3f ms/MiB live)%n",
                    round, heap >> 20, liveMib, ms, ms / liveMib);
        }
        java.util.Arrays.sort(perMib);
        System.out.printf("median over %d rounds: %.3f ms per MiB live%n", rounds, perMib[rounds / 2]);
    }
}
