package java.util.concurrent;

public interface Future<V> {
    boolean cancel(boolean mayInterruptIfRunning);
    boolean isCancelled();
    boolean isDone();
    V get() throws InterruptedException, ExecutionException;
    V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException;

    /** The result of a task that completed normally. */
    default V resultNow() {
        if (!isDone()) throw new IllegalStateException("Task has not completed");
        if (isCancelled()) throw new IllegalStateException("Task was cancelled");
        boolean interrupted = false;
        try {
            for (;;) {
                try {
                    return get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw new IllegalStateException("Task completed with exception");
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }
}
