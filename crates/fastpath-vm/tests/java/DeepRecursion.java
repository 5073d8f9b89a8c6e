// tags: stackoverflow monitor
// release: 8
// StackOverflowError: recursion a few thousand frames deep completes; unbounded recursion
// throws StackOverflowError, which is caught and the program continues (several times, so the
// guard pages are re-armed); monitors held by the unwound frames are released; finally blocks
// run during the unwinding; a thread's own overflow stays in that thread. The depth reached is
// never printed (it depends on frame sizes).
public class DeepRecursion {
    static int depth;

    static int sumTo(int n) {
        return n == 0 ? 0 : n + sumTo(n - 1);
    }

    static void unbounded() {
        depth++;
        unbounded();
    }

    static long unboundedWithLocals(long a, double b, Object c) {
        depth++;
        long x = a * 3 + (long) b;
        return unboundedWithLocals(x, b + 1, c) + x;
    }

    static final Object LOCK = new Object();

    static void lockedRecursion(int n) {
        synchronized (LOCK) {
            depth++;
            lockedRecursion(n + 1);
        }
    }

    static synchronized void synchronizedMethodRecursion() {
        depth++;
        synchronizedMethodRecursion();
    }

    static int finallyRuns;

    static void recursionWithFinally(int n) {
        try {
            recursionWithFinally(n + 1);
        } finally {
            if (n < 10) {
                finallyRuns++;
            }
        }
    }

    interface Node {
        int visit();
    }

    static Node chain() {
        return () -> chain().visit() + 1;
    }

    public static void main(String[] args) throws InterruptedException {
        System.out.println("sumTo(2000) = " + sumTo(2000));
        for (int round = 1; round <= 3; round++) {
            depth = 0;
            try {
                unbounded();
            } catch (StackOverflowError e) {
                System.out.println("round " + round + ": caught StackOverflowError, deep " + (depth > 1000));
            }
        }
        depth = 0;
        try {
            unboundedWithLocals(1, 2.0, "x");
        } catch (StackOverflowError e) {
            System.out.println("with locals: caught, deep " + (depth > 1000));
        }
        try {
            lockedRecursion(0);
        } catch (StackOverflowError e) {
            System.out.println("synchronized block recursion: caught");
        }
        try {
            synchronizedMethodRecursion();
        } catch (StackOverflowError e) {
            System.out.println("synchronized method recursion: caught");
        }
        boolean[] acquired = new boolean[2];
        Thread other = new Thread(() -> {
            synchronized (LOCK) {
                acquired[0] = true;
            }
            synchronized (DeepRecursion.class) {
                acquired[1] = true;
            }
        });
        other.start();
        other.join();
        System.out.println("monitors released after unwinding: " + acquired[0] + " " + acquired[1]);
        try {
            recursionWithFinally(0);
        } catch (StackOverflowError e) {
            System.out.println("finally blocks of the outer 10 frames ran: " + finallyRuns);
        }
        try {
            chain().visit();
        } catch (StackOverflowError e) {
            System.out.println("lambda recursion: caught");
        }
        String[] fromThread = new String[1];
        Thread t = new Thread(() -> {
            try {
                unbounded();
            } catch (StackOverflowError e) {
                fromThread[0] = "thread caught its own StackOverflowError";
            }
        });
        t.start();
        t.join();
        System.out.println(fromThread[0]);
        System.out.println("still working: sumTo(1000) = " + sumTo(1000));
    }
}
