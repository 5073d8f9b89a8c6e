// GcTrees: binary trees with a live set. A long-lived tree of depth 16 (65535 nodes) is built
// once and stays reachable across iterations; each iteration builds and walks `inner` trees
// of depth 10 and drops them, shared among `threads` threads (default 1). Exercises
// allocation (TLABs), collection with a large live set, and, on a moving collector, objects
// moving under the walks. Check: every short-lived tree has 2047 nodes and the item checksum
// its construction implies, and the long-lived tree is intact.
final class GcTrees extends Benchmark {
    static final class Node {
        final Node left;
        final Node right;
        final int item;

        Node(Node left, Node right, int item) {
            this.left = left;
            this.right = right;
            this.item = item;
        }
    }

    static Node build(int depth, int item) {
        if (depth == 0) {
            return new Node(null, null, item);
        }
        return new Node(build(depth - 1, 2 * item), build(depth - 1, 2 * item + 1), item);
    }

    // Node count and item sum.
    static long[] walk(Node n) {
        long count = 0;
        long sum = 0;
        Node[] stack = new Node[64];
        int top = 0;
        stack[top++] = n;
        while (top > 0) {
            Node x = stack[--top];
            count++;
            sum += x.item;
            if (x.left != null) {
                stack[top++] = x.left;
                stack[top++] = x.right;
            }
        }
        return new long[] {count, sum};
    }

    // Items of a tree of depth d rooted at item i: level k holds i*2^k .. i*2^k + 2^k - 1.
    static long expectedSum(int depth, long item) {
        long sum = 0;
        for (int k = 0; k <= depth; k++) {
            long width = 1L << k;
            sum += item * width * width + width * (width - 1) / 2;
        }
        return sum;
    }

    private final Node longLived = build(16, 1);
    private final long[] longLivedWalk = walk(longLived);

    @Override
    Object run(int inner, int threads) {
        long[] bad = new long[threads];
        long[] nodes = new long[threads];
        Workers.runAll(threads, index -> {
            int n = Workers.share(inner, threads, index);
            for (int i = 0; i < n; i++) {
                // Items stay below 2^20 so that a depth-10 tree's items (item * 2^10 + ...) fit an int.
                int item = 1 + (index * 100_003 + i) % 1_000_000;
                long[] w = walk(build(10, item));
                nodes[index] += w[0];
                if (w[0] != 2047 || w[1] != expectedSum(10, item)) {
                    bad[index]++;
                }
            }
        });
        long[] r = new long[3];
        for (int t = 0; t < threads; t++) {
            r[0] += nodes[t];
            r[1] += bad[t];
        }
        long[] live = walk(longLived);
        r[2] = live[0] == longLivedWalk[0] && live[1] == longLivedWalk[1] ? 1 : 0;
        return r;
    }

    @Override
    String verify(Object result, int inner, int threads) {
        long[] r = (long[]) result;
        String e = expect("short-lived trees with a wrong shape or checksum", r[1], 0);
        if (e == null) {
            e = expect("short-lived nodes", r[0], 2047L * inner);
        }
        if (e == null && r[2] != 1) {
            e = "the long-lived tree changed";
        }
        return e;
    }

    @Override
    int defaultInner() {
        return 300;
    }
}
