package java.util.concurrent.locks;

/**
 * Blocks and unblocks threads with a per-thread permit (fastpath-vm's `natives/park.rs`, after
 * HotSpot's Parker): `unpark` makes the permit available, `park` consumes it or blocks until
 * it is made available, the thread is interrupted, the time runs out, or for no reason at all;
 * callers re-check their condition in a loop. The blocker a thread parks for is kept in its
 * private `Thread.parkBlocker` while it is parked, for tools (`getBlocker`).
 */
public class LockSupport {
    private LockSupport() {}

    private static native void park0(boolean absolute, long time);
    private static native void unpark0(Thread thread);
    private static native void setBlocker0(Thread thread, Object blocker);
    private static native Object getBlocker0(Thread thread);

    public static void unpark(Thread thread) {
        if (thread != null) unpark0(thread);
    }

    public static void park() {
        park0(false, 0L);
    }

    public static void park(Object blocker) {
        Thread t = Thread.currentThread();
        setBlocker0(t, blocker);
        try {
            park0(false, 0L);
        } finally {
            setBlocker0(t, null);
        }
    }

    public static void parkNanos(long nanos) {
        if (nanos > 0) park0(false, nanos);
    }

    public static void parkNanos(Object blocker, long nanos) {
        if (nanos > 0) {
            Thread t = Thread.currentThread();
            setBlocker0(t, blocker);
            try {
                park0(false, nanos);
            } finally {
                setBlocker0(t, null);
            }
        }
    }

    public static void parkUntil(long deadline) {
        park0(true, deadline);
    }

    public static void parkUntil(Object blocker, long deadline) {
        Thread t = Thread.currentThread();
        setBlocker0(t, blocker);
        try {
            park0(true, deadline);
        } finally {
            setBlocker0(t, null);
        }
    }

    public static Object getBlocker(Thread t) {
        if (t == null) throw new NullPointerException();
        return getBlocker0(t);
    }

    public static void setCurrentBlocker(Object blocker) {
        setBlocker0(Thread.currentThread(), blocker);
    }
}
