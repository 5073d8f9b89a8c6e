package fastpath.peers;

/**
 * HotSpot beside `fastpath gc --only access`: the cost of one heap access by a mutator when no GC
 * runs, in the lab's shape. A table of 1024 nodes (the lab's node: 2 references, 4 data words),
 * each node's `a` pointing at the next; one access per iteration on node `i & 1023`: a data read
 * (`d0`), a reference load (`a`, then a test of it), a reference store (`a = the next node`) or a
 * data write (`d0 = i`). The loop's own work (the index, the table load) is in every row, as in
 * the lab's rows; the `table` row has only it.
 *
 * <p>Arguments: accesses per round (default 20,000,000), rounds (default 15), the row to run
 * alone (default all). Prints one line per row: the median ns per access over the rounds after
 * 5 warm-up rounds. Run with the barriers of interest: -XX:+UseShenandoahGC (SATB + LRB, idle
 * with no cycle) or -XX:+UnlockExperimentalVMOptions -XX:+UseEpsilonGC (none), with a heap that
 * never fills. With one row alone and a given count, the process's instructions (Callgrind) at
 * two counts give the instructions per access as their difference over the added accesses.
 */
public final class GcAccess {
    static final class Node {
        Node a;
        Node b;
        long d0, d1, d2, d3;
    }

    static final int MASK = 1023;

    static long tableOnly(Node[] t, long n) {
        long s = 0;
        for (long i = 0; i < n; i++) {
            Node x = t[(int) i & MASK];
            s += x == null ? 1 : 0;
        }
        return s;
    }

    static long read(Node[] t, long n) {
        long s = 0;
        for (long i = 0; i < n; i++) {
            s += t[(int) i & MASK].d0;
        }
        return s;
    }

    static long load(Node[] t, long n) {
        long s = 0;
        for (long i = 0; i < n; i++) {
            Node x = t[(int) i & MASK].a;
            s += x == null ? 1 : 0;
        }
        return s;
    }

    static long store(Node[] t, long n) {
        for (long i = 0; i < n; i++) {
            t[(int) i & MASK].a = t[(int) (i + 1) & MASK];
        }
        return t[0].a == null ? 1 : 0;
    }

    static long write(Node[] t, long n) {
        for (long i = 0; i < n; i++) {
            t[(int) i & MASK].d0 = i;
        }
        return t[0].d0;
    }

    static long run(String row, Node[] t, long n) {
        switch (row) {
            case "table":
                return tableOnly(t, n);
            case "read":
                return read(t, n);
            case "load":
                return load(t, n);
            case "store":
                return store(t, n);
            case "write":
                return write(t, n);
            default:
                throw new IllegalArgumentException("row: table, read, load, store or write, not " + row);
        }
    }

    public static void main(String[] args) {
        long n = args.length > 0 ? Long.parseLong(args[0]) : 20_000_000L;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
        String[] rows = args.length > 2 ? new String[] {args[2]} : new String[] {"table", "read", "load", "store", "write"};
        Node[] t = new Node[MASK + 1];
        for (int i = 0; i <= MASK; i++) {
            t[i] = new Node();
            t[i].d0 = i;
        }
        for (int i = 0; i <= MASK; i++) {
            t[i].a = t[(i + 1) & MASK];
        }
        long sink = 0;
        for (String row : rows) {
            for (int w = 0; w < 5; w++) {
                sink += run(row, t, n);
            }
            double[] ns = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                long start = System.nanoTime();
                sink += run(row, t, n);
                ns[r] = (System.nanoTime() - start) / (double) n;
            }
            java.util.Arrays.sort(ns);
            System.out.printf("%s %.3f ns/access (median of %d rounds of %d)%n", row, ns[rounds / 2], rounds, n);
        }
        if (sink == 42) {
            System.out.println("(sink)");
        }
    }
}
