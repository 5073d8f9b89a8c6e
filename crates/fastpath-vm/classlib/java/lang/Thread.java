package java.lang;

/** A Java thread: a native thread with its own fastpath thread block, monitors' lock-stack and heap mutator. */
public class Thread implements Runnable {
    public static final int MIN_PRIORITY = 1;
    public static final int NORM_PRIORITY = 5;
    public static final int MAX_PRIORITY = 10;

    /** The VM's record of the thread. */
    private long eetop;
    /** 0 new, 1 alive, 2 terminated (the VM writes it). */
    private volatile int threadStatus;
    private volatile String name;
    private int priority = NORM_PRIORITY;
    private boolean daemon;
    private Runnable target;
    private final long tid;
    private volatile UncaughtExceptionHandler uncaughtExceptionHandler;
    /** What LockSupport.park was given while parked (the VM's natives read and write it). */
    private volatile Object parkBlocker;
    /** This thread's ThreadLocal values (read and written by this thread only). */
    java.util.IdentityHashMap<ThreadLocal<?>, Object> threadLocals;
    private static volatile UncaughtExceptionHandler defaultUncaughtExceptionHandler;

    private static int threadInitNumber;
    private static long threadSeqNumber = 1;

    private static synchronized int nextThreadNum() { return threadInitNumber++; }
    private static synchronized long nextThreadId() { return ++threadSeqNumber; }

    public interface UncaughtExceptionHandler {
        void uncaughtException(Thread t, Throwable e);
    }

    public enum State { NEW, RUNNABLE, BLOCKED, WAITING, TIMED_WAITING, TERMINATED }

    /** The main thread's (made by the VM). */
    private Thread(String name, boolean vm) {
        this.name = name;
        this.tid = 1;
    }

    public Thread() { this(null, null, "Thread-" + nextThreadNum()); }
    public Thread(Runnable target) { this(null, target, "Thread-" + nextThreadNum()); }
    public Thread(String name) { this(null, null, name); }
    public Thread(Runnable target, String name) { this(null, target, name); }
    public Thread(ThreadGroup group, Runnable target) { this(group, target, "Thread-" + nextThreadNum()); }
    public Thread(ThreadGroup group, String name) { this(group, null, name); }
    public Thread(ThreadGroup group, Runnable target, String name, long stackSize) { this(group, target, name); }

    public Thread(ThreadGroup group, Runnable target, String name) {
        if (name == null) throw new NullPointerException("'name' is null");
        this.name = name;
        this.target = target;
        Thread parent = currentThread();
        if (parent != null) {
            this.daemon = parent.daemon;
            this.priority = parent.priority;
        }
        this.tid = nextThreadId();
    }

    public static native Thread currentThread();
    public static native void yield();
    public static native void onSpinWait();
    public static native boolean interrupted();
    public static native boolean holdsLock(Object obj);
    private static native void sleep0(long millis) throws InterruptedException;
    private native void start0();
    private native void interrupt0();
    public native boolean isInterrupted();

    public static void sleep(long millis) throws InterruptedException { sleep0(millis); }

    public static void sleep(long millis, int nanos) throws InterruptedException {
        if (millis < 0) throw new IllegalArgumentException("timeout value is negative");
        if (nanos < 0 || nanos > 999999) throw new IllegalArgumentException("nanosecond timeout value out of range");
        if (nanos > 0 && millis < Long.MAX_VALUE) millis++;
        sleep0(millis);
    }

    public synchronized void start() {
        if (threadStatus != 0) throw new IllegalThreadStateException();
        start0();
    }

    public void run() {
        Runnable task = target;
        if (task != null) task.run();
    }

    public void interrupt() { interrupt0(); }

    public final boolean isAlive() { return threadStatus == 1; }

    public State getState() {
        switch (threadStatus) {
            case 0: return State.NEW;
            case 1: return State.RUNNABLE;
            default: return State.TERMINATED;
        }
    }

    public final void join() throws InterruptedException { join(0); }

    public final synchronized void join(long millis) throws InterruptedException {
        if (millis < 0) throw new IllegalArgumentException("timeout value is negative");
        if (millis == 0) {
            while (isAlive()) wait(0);
        } else {
            long deadline = System.nanoTime() + millis * 1000000L;
            while (isAlive()) {
                long left = (deadline - System.nanoTime()) / 1000000L;
                if (left <= 0) break;
                wait(left);
            }
        }
    }

    public final void join(long millis, int nanos) throws InterruptedException {
        if (nanos > 0 && millis < Long.MAX_VALUE) millis++;
        join(millis);
    }

    public final void setDaemon(boolean on) {
        if (isAlive()) throw new IllegalThreadStateException();
        daemon = on;
    }

    public final boolean isDaemon() { return daemon; }
    public final void setName(String name) {
        if (name == null) throw new NullPointerException("'name' is null");
        this.name = name;
    }
    public final String getName() { return name; }
    public final void setPriority(int newPriority) {
        if (newPriority > MAX_PRIORITY || newPriority < MIN_PRIORITY) throw new IllegalArgumentException();
        priority = newPriority;
    }
    public final int getPriority() { return priority; }
    public long getId() { return tid; }
    public final long threadId() { return tid; }
    public final boolean isVirtual() { return false; }
    public final ThreadGroup getThreadGroup() { return isAlive() || threadStatus == 0 ? ThreadGroup.MAIN : null; }

    public String toString() {
        return "Thread[#" + threadId() + "," + getName() + "," + getPriority() + ",main]";
    }

    public StackTraceElement[] getStackTrace() { return new StackTraceElement[0]; }

    public static void dumpStack() { new Exception("Stack trace").printStackTrace(); }

    public void setUncaughtExceptionHandler(UncaughtExceptionHandler ueh) { uncaughtExceptionHandler = ueh; }
    public UncaughtExceptionHandler getUncaughtExceptionHandler() { return uncaughtExceptionHandler; }
    public static void setDefaultUncaughtExceptionHandler(UncaughtExceptionHandler ueh) { defaultUncaughtExceptionHandler = ueh; }
    public static UncaughtExceptionHandler getDefaultUncaughtExceptionHandler() { return defaultUncaughtExceptionHandler; }

    /** The VM calls this for an exception that ends the thread (or main). */
    void dispatchUncaughtException(Throwable e) {
        UncaughtExceptionHandler h = uncaughtExceptionHandler;
        if (h == null) h = defaultUncaughtExceptionHandler;
        if (h != null) {
            h.uncaughtException(this, e);
            return;
        }
        if (!(e instanceof ThreadDeath)) {
            System.err.print("Exception in thread \"" + getName() + "\" ");
            e.printStackTrace(System.err);
        }
    }
}
