package java.util.concurrent;

/**
 * A cancellable computation whose result get() waits for. Its state moves once from NEW to
 * NORMAL, EXCEPTIONAL or CANCELLED/INTERRUPTED under the task's monitor (fastpath's), which
 * waiters wait on.
 */
public class FutureTask<V> implements RunnableFuture<V> {
    private static final int NEW = 0;
    private static final int NORMAL = 1;
    private static final int EXCEPTIONAL = 2;
    private static final int CANCELLED = 3;
    private static final int INTERRUPTED = 4;

    private Callable<V> callable;
    private int state = NEW;
    /** The result, or the exception of an EXCEPTIONAL task. */
    private Object outcome;
    /** The thread running the task, while it runs. */
    private Thread runner;

    public FutureTask(Callable<V> callable) {
        if (callable == null) throw new NullPointerException();
        this.callable = callable;
    }

    public FutureTask(Runnable runnable, V result) { this(Executors.callable(runnable, result)); }

    public synchronized boolean isCancelled() { return state >= CANCELLED; }

    public synchronized boolean isDone() { return state != NEW; }

    public boolean cancel(boolean mayInterruptIfRunning) {
        synchronized (this) {
            if (state != NEW) return false;
            state = mayInterruptIfRunning ? INTERRUPTED : CANCELLED;
            // Under the monitor, so the interrupt reaches the runner before run() returns (a
            // pool clears it before its next task) and never a later task of that thread.
            if (mayInterruptIfRunning && runner != null) runner.interrupt();
            notifyAll();
        }
        done();
        return true;
    }

    public V get() throws InterruptedException, ExecutionException {
        synchronized (this) {
            while (state == NEW) wait();
            return report();
        }
    }

    public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        if (unit == null) throw new NullPointerException();
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (this) {
            while (state == NEW) {
                long left = deadline - System.nanoTime();
                if (left <= 0) throw new TimeoutException();
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return report();
        }
    }

    private V report() throws ExecutionException {
        if (state == NORMAL) return (V) outcome;
        if (state >= CANCELLED) throw new CancellationException();
        throw new ExecutionException((Throwable) outcome);
    }

    /** Called once the task is done (completed, failed or cancelled). */
    protected void done() {}

    protected void set(V v) { finish(NORMAL, v); }

    protected void setException(Throwable t) { finish(EXCEPTIONAL, t); }

    private void finish(int to, Object value) {
        synchronized (this) {
            if (state != NEW) return;
            outcome = value;
            state = to;
            notifyAll();
        }
        done();
    }

    public void run() {
        Callable<V> c;
        synchronized (this) {
            if (state != NEW || runner != null) return;
            runner = Thread.currentThread();
            c = callable;
        }
        try {
            V result;
            try {
                result = c.call();
            } catch (Throwable ex) {
                setException(ex);
                return;
            }
            set(result);
        } finally {
            synchronized (this) {
                runner = null;
            }
        }
    }

    public String toString() {
        String status;
        synchronized (this) {
            switch (state) {
                case NORMAL:
                    status = "[Completed normally]";
                    break;
                case EXCEPTIONAL:
                    status = "[Completed exceptionally: " + outcome + "]";
                    break;
                case CANCELLED:
                case INTERRUPTED:
                    status = "[Cancelled]";
                    break;
                default:
                    status = "[Not completed]";
            }
        }
        return super.toString() + status;
    }
}
