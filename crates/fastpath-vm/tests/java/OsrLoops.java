// tags: gc monitor exception
// release: 17
// Loops that run once, long enough that only on-stack replacement moves
// them into compiled code (the default tiers, and the jit matrix's
// threshold of 2 calls): locals of every kind live at the loop head; a
// list built in the loop while the collector runs; exceptions thrown in the
// loop caught in the same method and in the caller, with their stack
// traces; a synchronized method and a held monitor whose loops move into
// compiled code, each lock released once; loops in interpreted callers'
// callees and in a callee of main once main's own loop is compiled.
public class OsrLoops {
    static final class Node {
        final int value;
        final Node next;
        final int[] payload;

        Node(int value, Node next) {
            this.value = value;
            this.next = next;
            this.payload = new int[] {value, value * 3};
        }
    }

    static String last = "none";

    int counter;

    static String kinds(int n) {
        long l = 1;
        float f = 0.5f;
        double d = 0.25;
        Object o = "seed";
        int i = 0;
        short s = 3;
        char c = 'a';
        for (int k = 0; k < n; k++) {
            l = l * 31 + k;
            f = f * 0.999f + 1.0f;
            d = d + k / 3.0;
            i ^= k * 7;
            if ((k & 0xfff) == 0) {
                o = "k" + k;
                c++;
            }
        }
        return l + " " + Float.floatToIntBits(f) + " " + Double.doubleToLongBits(d) + " " + o + " " + i + " " + s
                + " " + c;
    }

    static long allocate(int n) {
        Node head = null;
        long sum = 0;
        for (int k = 0; k < n; k++) {
            head = new Node(k, (k % 1000 == 0) ? null : head);
            int[] junk = new int[64 + (k & 63)];
            junk[k & 15] = k;
            sum += junk[k & 15] + head.payload[1];
        }
        int len = 0;
        long check = 0;
        for (Node p = head; p != null; p = p.next) {
            len++;
            check += p.value + p.payload[0];
        }
        return sum * 31 + len * 7 + check;
    }

    static int caughtHere(int n) {
        int caught = 0;
        int[] data = new int[8];
        for (int k = 0; k < n; k++) {
            try {
                if (k % 10007 == 10006) {
                    throw new IllegalStateException("k " + k);
                }
                data[k & 7] += k;
                if (k % 15013 == 15012) {
                    data[8 + (k & 1)] = 1;
                }
            } catch (IllegalStateException e) {
                caught += 1;
                last = e.getMessage();
            } catch (ArrayIndexOutOfBoundsException e) {
                caught += 1000;
                last = e.getMessage();
            }
        }
        return caught + data[3];
    }

    static int escapes(int n) {
        int k = 0;
        int[] data = new int[4];
        while (true) {
            k++;
            if (k == n) {
                throw new IllegalArgumentException("escaped at " + k);
            }
            data[k & 3] ^= k;
        }
    }

    static long escapesLate(int n) {
        long s = 0;
        for (int k = 0; ; k++) {
            s += k;
            if (k == n) {
                throw new UnsupportedOperationException("late " + s);
            }
        }
    }

    static int nullAt(Node[] nodes, int n) {
        int s = 0;
        for (int k = 0; k < n; k++) {
            s += nodes[k % nodes.length].value;
            if (k == n - 2) {
                nodes[(k + 1) % nodes.length] = null;
            }
        }
        return s;
    }

    synchronized long syncLoop(int n) {
        long s = 0;
        for (int k = 0; k < n; k++) {
            s += k ^ (counter >> 1);
            counter++;
        }
        return s;
    }

    synchronized int syncThrows(int n) {
        for (int k = 0; ; k++) {
            counter += k;
            if (k == n) {
                throw new IllegalStateException("sync " + k + " " + counter);
            }
        }
    }

    static long heldMonitor(Object lock, int n) {
        long s = 0;
        synchronized (lock) {
            for (int k = 0; k < n; k++) {
                s += k % 7;
            }
        }
        return s;
    }

    static double sumSquares(int n) {
        double s = 0;
        for (int k = 0; k < n; k++) {
            s += (double) k * k;
        }
        return s;
    }

    public static void main(String[] args) {
        System.out.println("kinds " + kinds(60_000));
        System.out.println("allocate " + allocate(150_000));
        System.out.println("caught here " + caughtHere(60_000) + " " + last);
        try {
            escapes(60_000);
        } catch (IllegalArgumentException e) {
            e.printStackTrace();
        }
        Node[] nodes = new Node[7];
        for (int k = 0; k < nodes.length; k++) {
            nodes[k] = new Node(k, null);
        }
        try {
            System.out.println("null at " + nullAt(nodes, 60_000));
        } catch (NullPointerException e) {
            System.out.println("NPE " + e.getMessage());
        }
        OsrLoops o = new OsrLoops();
        synchronized (o) {
            long s = o.syncLoop(60_000);
            System.out.println("sync " + s + " held " + Thread.holdsLock(o));
            try {
                o.syncThrows(60_000);
            } catch (IllegalStateException e) {
                System.out.println(e.getMessage() + " held " + Thread.holdsLock(o));
            }
        }
        System.out.println("released " + !Thread.holdsLock(o));
        Object lock = new Object();
        System.out.println("monitor " + heldMonitor(lock, 60_000) + " held " + Thread.holdsLock(lock));
        // main's own loop: main runs once, so only OSR compiles it; the
        // callees after it are called from compiled code.
        long warm = 0;
        for (int k = 0; k < 60_000; k++) {
            warm += k % 13;
        }
        System.out.println("main loop " + warm);
        System.out.println("squares " + (long) sumSquares(60_000));
        try {
            escapesLate(70_000);
        } catch (UnsupportedOperationException e) {
            e.printStackTrace();
        }
    }
}
