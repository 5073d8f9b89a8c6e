// tags: monitor
// release: 8
// Monitors in one thread and against one other thread: nested synchronized blocks over many
// distinct objects (more than a lock-stack holds), recursive locking in the pattern
// A A A B C C, synchronized instance and static methods, exceptions leaving synchronized
// blocks and methods (the monitor is released; another thread proves it), identity hash codes
// taken before, during and after locking staying stable, wait and notify misuse
// (IllegalMonitorStateException), and a lock on a class object, an array and a string.
public class MonitorBasics {
    private int value;
    private static int staticValue;

    synchronized void add(int x) {
        value += x;
        if (x < 0) {
            throw new IllegalArgumentException("negative " + x);
        }
    }

    synchronized int addTwiceRecursively(int x) {
        add(x);
        synchronized (this) {
            add(x);
            return value;
        }
    }

    static synchronized void staticAdd(int x) {
        staticValue += x;
    }

    static int nest(Object[] locks, int i) {
        if (i == locks.length) {
            return 0;
        }
        synchronized (locks[i]) {
            return 1 + nest(locks, i + 1);
        }
    }

    static boolean otherThreadCanLock(Object lock) throws InterruptedException {
        boolean[] got = new boolean[1];
        Thread t = new Thread(() -> {
            synchronized (lock) {
                got[0] = true;
            }
        });
        t.start();
        t.join();
        return got[0];
    }

    public static void main(String[] args) throws InterruptedException {
        Object[] locks = new Object[40];
        for (int i = 0; i < locks.length; i++) {
            locks[i] = new Object();
        }
        System.out.println("nested distinct locks: " + nest(locks, 0));
        Object a = new Object();
        Object b = new Object();
        Object c = new Object();
        int steps = 0;
        synchronized (a) {
            synchronized (a) {
                synchronized (a) {
                    synchronized (b) {
                        synchronized (c) {
                            synchronized (c) {
                                steps = 6;
                            }
                        }
                    }
                    synchronized (a) {
                        steps++;
                    }
                }
            }
        }
        System.out.println("A A A B C C then A again: " + steps + ", released: " + otherThreadCanLock(a) + " "
            + otherThreadCanLock(b) + " " + otherThreadCanLock(c));
        int deep = 0;
        Object r = new Object();
        deep = recurse(r, 100);
        System.out.println("recursive depth 100 on one lock: " + deep + ", released: " + otherThreadCanLock(r));

        MonitorBasics m = new MonitorBasics();
        System.out.println("synchronized methods: " + m.addTwiceRecursively(5));
        try {
            m.add(-1);
        } catch (IllegalArgumentException e) {
            System.out.println("exception left the synchronized method: " + e.getMessage() + ", released: "
                + otherThreadCanLock(m));
        }
        try {
            synchronized (a) {
                synchronized (b) {
                    throw new IllegalStateException("thrown inside two blocks");
                }
            }
        } catch (IllegalStateException e) {
            System.out.println(e.getMessage() + ", released: " + otherThreadCanLock(a) + " " + otherThreadCanLock(b));
        }
        for (int i = 0; i < 10; i++) {
            staticAdd(i);
        }
        System.out.println("static synchronized: " + staticValue + ", class lock released: "
            + otherThreadCanLock(MonitorBasics.class));

        Object hashedFirst = new Object();
        int h1 = System.identityHashCode(hashedFirst);
        int h2;
        synchronized (hashedFirst) {
            h2 = System.identityHashCode(hashedFirst);
        }
        Object lockedFirst = new Object();
        int h3;
        int h4;
        synchronized (lockedFirst) {
            h3 = lockedFirst.hashCode();
            synchronized (lockedFirst) {
                h4 = System.identityHashCode(lockedFirst);
            }
        }
        Object waited = new Object();
        int h5 = waited.hashCode();
        synchronized (waited) {
            waited.wait(1);
        }
        System.out.println("identity hashes stable: " + (h1 == h2 && h1 == hashedFirst.hashCode()) + " "
            + (h3 == h4 && h3 == System.identityHashCode(lockedFirst)) + " " + (h5 == waited.hashCode()));

        Object unowned = new Object();
        try {
            unowned.wait();
        } catch (IllegalMonitorStateException e) {
            System.out.println("wait without the lock: " + e.getMessage());
        }
        try {
            unowned.notify();
        } catch (IllegalMonitorStateException e) {
            System.out.println("notify without the lock: " + e.getMessage());
        }
        try {
            synchronized (a) {
                b.notifyAll();
            }
        } catch (IllegalMonitorStateException e) {
            System.out.println("notifyAll holding a different lock: " + e.getMessage());
        }
        synchronized (unowned) {
            unowned.notify();
            unowned.notifyAll();
        }
        System.out.println("notify with no waiters is fine");
        int[] array = new int[4];
        String text = "interned lock";
        synchronized (array) {
            synchronized (text) {
                synchronized (Integer.valueOf(7)) {
                    array[0] = text.length();
                }
            }
        }
        System.out.println("array/string/box locks: " + array[0] + " " + otherThreadCanLock("interned lock"));
        long sum = 0;
        Object hot = new Object();
        for (int i = 0; i < 200000; i++) {
            synchronized (hot) {
                sum += i;
            }
        }
        System.out.println("uncontended loop " + sum);
    }

    static int recurse(Object lock, int n) {
        synchronized (lock) {
            return n == 0 ? 0 : 1 + recurse(lock, n - 1);
        }
    }
}
