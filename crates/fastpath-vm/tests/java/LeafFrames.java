// tags: exception gc thread
// release: 17
// Calls of small methods that call nothing themselves (a JIT may give them a cheaper entry: no
// frame header until their first safepoint, no entry poll), reached through polymorphic virtual
// calls so that no compiler inlines them: exceptions thrown inside them (helpful
// NullPointerException messages, index and divide errors, a thrown exception they construct)
// with their stack traces, each thrown right after a call of another method at the same depth;
// collections while they allocate with references live, forced by a second thread; a loop
// inside one that a collection stops at its back edge; and a thread in a recursion without
// loops that a collection must still stop.
public class LeafFrames {
    abstract static class Op {
        abstract int apply(int[] a, int i);

        abstract Object[] link(Object[] next, int v);

        abstract long sum(int[] a);
    }

    // Leaves: no call but on paths that only throw.
    static final class Get extends Op {
        int apply(int[] a, int i) {
            return a[i];
        }

        Object[] link(Object[] next, int v) {
            Object[] cell = new Object[2];
            int[] value = new int[] {v, v * 3};
            cell[0] = next;
            cell[1] = value;
            return cell;
        }

        long sum(int[] a) {
            long s = 0;
            for (int i = 0; i < a.length; i++) {
                s += a[i] * (long) (i + 1);
            }
            return s;
        }
    }

    static final class Div extends Op {
        int apply(int[] a, int i) {
            return a[0] / i;
        }

        Object[] link(Object[] next, int v) {
            if (v < 0) {
                throw new IllegalStateException("negative value");
            }
            Object[] cell = new Object[] {next, new int[] {v, -v}};
            return cell;
        }

        long sum(int[] a) {
            long s = 1;
            for (int x : a) {
                s = s * 31 + x;
            }
            return s;
        }
    }

    // Not a leaf: it calls, so its frame is set up at entry.
    static final class Twice extends Op {
        int apply(int[] a, int i) {
            return helper(a, i) * 2;
        }

        static int helper(int[] a, int i) {
            int s = 0;
            for (int k = 0; k <= i && k < a.length; k++) {
                s += a[k];
            }
            return s;
        }

        Object[] link(Object[] next, int v) {
            return new Object[] {next, String.valueOf(v)};
        }

        long sum(int[] a) {
            return helper(a, a.length);
        }
    }

    static final Op[] OPS = {new Get(), new Div(), new Twice()};

    static int call(Op op, int[] a, int i) {
        return op.apply(a, i);
    }

    static void printTrace(Throwable t) {
        System.out.println(t);
        StackTraceElement[] st = t.getStackTrace();
        for (int k = 0; k < st.length && k < 3; k++) {
            System.out.println("  at " + st[k].getClassName() + "." + st[k].getMethodName() + ":" + st[k].getLineNumber());
        }
    }

    static void throwsFromLeaves() {
        int[] a = {7, 8, 9};
        int[][] cases = {{0, 5}, {0, 1}, {1, 0}, {2, 1}};
        for (int round = 0; round < 3; round++) {
            for (int[] c : cases) {
                // The same depth was a Twice frame a moment ago.
                long warm = call(OPS[2], a, 2);
                try {
                    int r = call(OPS[c[0]], c[0] == 0 && round == 2 ? null : a, c[1]);
                    if (round == 0) {
                        System.out.println("ok " + r + " after " + warm);
                    }
                } catch (RuntimeException e) {
                    if (round > 0) {
                        printTrace(e);
                    }
                }
            }
        }
        try {
            OPS[2].link(null, 1);
            OPS[1].link(null, -1);
        } catch (IllegalStateException e) {
            printTrace(e);
        }
    }

    static volatile boolean collecting;

    static long linksUnderCollections() throws InterruptedException {
        collecting = true;
        Thread gc = new Thread(() -> {
            for (int k = 0; k < 30 && collecting; k++) {
                System.gc();
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        gc.start();
        Object[][] ring = new Object[64][];
        long check = 0;
        for (int i = 0; i < 60000; i++) {
            Op op = OPS[i % 3];
            Object[] head = ring[i & 63];
            head = op.link(head, i);
            if ((i & 1023) == 1023) {
                head = null;
            }
            ring[i & 63] = head;
        }
        collecting = false;
        gc.join();
        for (Object[] head : ring) {
            int n = 0;
            for (Object[] c = head; c != null; c = (Object[]) c[0]) {
                Object v = c[1];
                check = check * 17 + (v instanceof int[] ? ((int[]) v)[0] + ((int[]) v)[1] : Integer.parseInt((String) v));
                n++;
            }
            check += n;
        }
        return check;
    }

    static long sums() {
        int[] a = new int[2000];
        for (int i = 0; i < a.length; i++) {
            a[i] = i * 7 - 3000;
        }
        long s = 0;
        for (int r = 0; r < 60; r++) {
            s += OPS[r % 3].sum(a);
            if (r % 20 == 0) {
                System.gc();
            }
        }
        return s;
    }

    static volatile boolean stop;
    static long calls;

    // Recursion without a loop: a collection must be able to stop it.
    static void work(int depth) {
        calls++;
        if (stop || depth >= 40) {
            return;
        }
        work(depth + 1);
        work(depth + 1);
    }

    static void recursionStops() throws InterruptedException {
        Thread t = new Thread(() -> work(0));
        t.start();
        while (calls < 1000) {
            Thread.sleep(1);
        }
        for (int k = 0; k < 3; k++) {
            System.gc();
        }
        stop = true;
        t.join();
        System.out.println("recursion stopped: " + (calls > 1000));
    }

    public static void main(String[] args) throws InterruptedException {
        throwsFromLeaves();
        System.out.println("links " + linksUnderCollections());
        System.out.println("sums " + sums());
        recursionStops();
    }
}
