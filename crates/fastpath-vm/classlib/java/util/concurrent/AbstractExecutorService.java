package java.util.concurrent;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** submit, invokeAll and invokeAny on top of execute, with FutureTask as the task type. */
public abstract class AbstractExecutorService implements ExecutorService {
    public AbstractExecutorService() {}

    protected <T> RunnableFuture<T> newTaskFor(Runnable runnable, T value) { return new FutureTask<T>(runnable, value); }

    protected <T> RunnableFuture<T> newTaskFor(Callable<T> callable) { return new FutureTask<T>(callable); }

    public Future<?> submit(Runnable task) {
        if (task == null) throw new NullPointerException();
        RunnableFuture<Void> f = newTaskFor(task, null);
        execute(f);
        return f;
    }

    public <T> Future<T> submit(Runnable task, T result) {
        if (task == null) throw new NullPointerException();
        RunnableFuture<T> f = newTaskFor(task, result);
        execute(f);
        return f;
    }

    public <T> Future<T> submit(Callable<T> task) {
        if (task == null) throw new NullPointerException();
        RunnableFuture<T> f = newTaskFor(task);
        execute(f);
        return f;
    }

    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks) throws InterruptedException {
        if (tasks == null) throw new NullPointerException();
        List<Future<T>> futures = new ArrayList<Future<T>>(tasks.size());
        try {
            for (Callable<T> t : tasks) {
                RunnableFuture<T> f = newTaskFor(t);
                futures.add(f);
                execute(f);
            }
            for (Future<T> f : futures) {
                if (!f.isDone()) {
                    try {
                        f.get();
                    } catch (CancellationException ignore) {
                    } catch (ExecutionException ignore) {
                    }
                }
            }
            return futures;
        } catch (Throwable t) {
            for (Future<T> f : futures) f.cancel(true);
            throw t;
        }
    }

    /**
     * Runs every task and returns the first result of one that completes normally (the others
     * are cancelled), or throws the ExecutionException of the last failure.
     */
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        if (tasks == null) throw new NullPointerException();
        int n = tasks.size();
        if (n == 0) throw new IllegalArgumentException();
        final Object doneLock = new Object();
        final int[] finished = {0};
        List<RunnableFuture<T>> futures = new ArrayList<RunnableFuture<T>>(n);
        try {
            for (Callable<T> t : tasks) {
                if (t == null) throw new NullPointerException();
                RunnableFuture<T> f = new FutureTask<T>(t) {
                    protected void done() {
                        synchronized (doneLock) {
                            finished[0]++;
                            doneLock.notifyAll();
                        }
                    }
                };
                futures.add(f);
                execute(f);
            }
            ExecutionException failure = null;
            int seen = 0;
            boolean[] checked = new boolean[n];
            while (seen < n) {
                synchronized (doneLock) {
                    while (finished[0] == seen) doneLock.wait();
                }
                for (int i = 0; i < n; i++) {
                    RunnableFuture<T> f = futures.get(i);
                    if (checked[i] || !f.isDone()) continue;
                    checked[i] = true;
                    seen++;
                    try {
                        return f.get();
                    } catch (ExecutionException e) {
                        failure = e;
                    } catch (CancellationException e) {
                        failure = new ExecutionException(e);
                    }
                }
            }
            throw failure;
        } finally {
            for (Future<T> f : futures) f.cancel(true);
        }
    }
}
