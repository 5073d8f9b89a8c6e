package java.util.concurrent;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A future completed once, by a task or by hand, that runs dependent actions when it completes:
 * in the completing thread, or at once in the caller's if already complete (the async
 * variants hand them to an executor). The outcome is a value or an exception; exceptions of a
 * source reach its dependents wrapped in a CompletionException as the JDK's do, get() unwraps
 * them into an ExecutionException, join() throws the CompletionException.
 *
 * State is guarded by this future's monitor (fastpath's), which get() and join() wait on.
 * The default async executor stands in for ForkJoinPool.commonPool(): daemon threads named
 * as the common pool's workers, created on demand and kept a minute idle.
 */
public class CompletableFuture<T> implements Future<T>, CompletionStage<T> {
    private boolean done;
    private Object result;
    /** The exception of an exceptional completion (as stored: raw or a CompletionException). */
    private Throwable failure;
    private List<Runnable> dependents;

    public CompletableFuture() {}

    private static final Executor ASYNC_POOL = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60L, TimeUnit.SECONDS,
        new SynchronousQueue<Runnable>(), new ThreadFactory() {
            private final java.util.concurrent.atomic.AtomicInteger count = new java.util.concurrent.atomic.AtomicInteger(1);
            public Thread newThread(Runnable r) {
                Thread t = new Thread(r, "ForkJoinPool.commonPool-worker-" + count.getAndIncrement());
                t.setDaemon(true);
                return t;
            }
        });

    public Executor defaultExecutor() { return ASYNC_POOL; }

    /** Completes once; runs the dependents registered so far. */
    private boolean finish(Object value, Throwable ex) {
        List<Runnable> ds;
        synchronized (this) {
            if (done) return false;
            done = true;
            result = value;
            failure = ex;
            ds = dependents;
            dependents = null;
            notifyAll();
        }
        if (ds != null) for (Runnable r : ds) r.run();
        return true;
    }

    /** Runs `r` when this completes (now, if it has). */
    private void onDone(Runnable r) {
        synchronized (this) {
            if (!done) {
                if (dependents == null) dependents = new ArrayList<Runnable>();
                dependents.add(r);
                return;
            }
        }
        r.run();
    }

    static CompletionException wrap(Throwable x) {
        return (x instanceof CompletionException) ? (CompletionException) x : new CompletionException(x);
    }

    public boolean complete(T value) { return finish(value, null); }

    public boolean completeExceptionally(Throwable ex) {
        if (ex == null) throw new NullPointerException();
        return finish(null, ex);
    }

    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean cancelled = finish(null, new CancellationException());
        return cancelled || isCancelled();
    }

    public synchronized boolean isDone() { return done; }
    public synchronized boolean isCancelled() { return failure instanceof CancellationException; }
    public synchronized boolean isCompletedExceptionally() { return done && failure != null; }

    private T reportGet() throws ExecutionException {
        Throwable x = failure;
        if (x == null) return (T) result;
        if (x instanceof CancellationException) throw (CancellationException) x;
        Throwable cause;
        if ((x instanceof CompletionException) && (cause = x.getCause()) != null) x = cause;
        throw new ExecutionException(x);
    }

    private T reportJoin() {
        Throwable x = failure;
        if (x == null) return (T) result;
        if (x instanceof CancellationException) throw (CancellationException) x;
        throw wrap(x);
    }

    public synchronized T get() throws InterruptedException, ExecutionException {
        while (!done) wait();
        return reportGet();
    }

    public synchronized T get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (!done) {
            long left = deadline - System.nanoTime();
            if (left <= 0) throw new TimeoutException();
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return reportGet();
    }

    public synchronized T join() {
        boolean interrupted = false;
        while (!done) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
        return reportJoin();
    }

    public synchronized T getNow(T valueIfAbsent) { return done ? reportJoin() : valueIfAbsent; }

    public static <U> CompletableFuture<U> completedFuture(U value) {
        CompletableFuture<U> f = new CompletableFuture<U>();
        f.finish(value, null);
        return f;
    }

    public static <U> CompletableFuture<U> failedFuture(Throwable ex) {
        if (ex == null) throw new NullPointerException();
        CompletableFuture<U> f = new CompletableFuture<U>();
        f.finish(null, ex);
        return f;
    }

    public static <U> CompletableFuture<U> supplyAsync(Supplier<U> supplier) { return supplyAsync(supplier, ASYNC_POOL); }

    public static <U> CompletableFuture<U> supplyAsync(final Supplier<U> supplier, Executor executor) {
        if (supplier == null || executor == null) throw new NullPointerException();
        final CompletableFuture<U> f = new CompletableFuture<U>();
        executor.execute(new Runnable() {
            public void run() {
                U v;
                try {
                    v = supplier.get();
                } catch (Throwable ex) {
                    f.finish(null, wrap(ex));
                    return;
                }
                f.finish(v, null);
            }
        });
        return f;
    }

    public static CompletableFuture<Void> runAsync(Runnable runnable) { return runAsync(runnable, ASYNC_POOL); }

    public static CompletableFuture<Void> runAsync(final Runnable runnable, Executor executor) {
        if (runnable == null) throw new NullPointerException();
        return supplyAsync(new Supplier<Void>() {
            public Void get() {
                runnable.run();
                return null;
            }
        }, executor);
    }

    /** A dependent of this future whose outcome `step` computes from this one's. */
    private <U> CompletableFuture<U> then(final Executor executor, final Step<T, U> step) {
        final CompletableFuture<U> d = new CompletableFuture<U>();
        final CompletableFuture<T> source = this;
        onDone(new Runnable() {
            public void run() {
                final Runnable work = new Runnable() {
                    public void run() {
                        try {
                            step.run(source, d);
                        } catch (Throwable ex) {
                            d.finish(null, wrap(ex));
                        }
                    }
                };
                if (executor == null) {
                    work.run();
                } else {
                    try {
                        executor.execute(work);
                    } catch (Throwable ex) {
                        d.finish(null, wrap(ex));
                    }
                }
            }
        });
        return d;
    }

    /** Computes a dependent's outcome from its completed source. */
    private interface Step<T, U> {
        void run(CompletableFuture<T> source, CompletableFuture<U> dependent) throws Throwable;
    }

    private synchronized Throwable failureNow() { return failure; }
    private synchronized T resultNow0() { return (T) result; }

    public <U> CompletableFuture<U> thenApply(Function<? super T, ? extends U> fn) { return thenApply(null, fn); }
    public <U> CompletableFuture<U> thenApplyAsync(Function<? super T, ? extends U> fn) { return thenApply(ASYNC_POOL, fn); }
    public <U> CompletableFuture<U> thenApplyAsync(Function<? super T, ? extends U> fn, Executor executor) {
        if (executor == null) throw new NullPointerException();
        return thenApply(executor, fn);
    }

    private <U> CompletableFuture<U> thenApply(Executor e, final Function<? super T, ? extends U> fn) {
        if (fn == null) throw new NullPointerException();
        return then(e, new Step<T, U>() {
            public void run(CompletableFuture<T> s, CompletableFuture<U> d) {
                Throwable x = s.failureNow();
                if (x != null) d.finish(null, wrap(x));
                else d.finish(fn.apply(s.resultNow0()), null);
            }
        });
    }

    public CompletableFuture<Void> thenAccept(Consumer<? super T> action) { return thenAccept(null, action); }
    public CompletableFuture<Void> thenAcceptAsync(Consumer<? super T> action) { return thenAccept(ASYNC_POOL, action); }

    private CompletableFuture<Void> thenAccept(Executor e, final Consumer<? super T> action) {
        if (action == null) throw new NullPointerException();
        return then(e, new Step<T, Void>() {
            public void run(CompletableFuture<T> s, CompletableFuture<Void> d) {
                Throwable x = s.failureNow();
                if (x != null) {
                    d.finish(null, wrap(x));
                } else {
                    action.accept(s.resultNow0());
                    d.finish(null, null);
                }
            }
        });
    }

    public CompletableFuture<Void> thenRun(final Runnable action) {
        if (action == null) throw new NullPointerException();
        return then(null, new Step<T, Void>() {
            public void run(CompletableFuture<T> s, CompletableFuture<Void> d) {
                Throwable x = s.failureNow();
                if (x != null) {
                    d.finish(null, wrap(x));
                } else {
                    action.run();
                    d.finish(null, null);
                }
            }
        });
    }

    public <U> CompletableFuture<U> thenCompose(final Function<? super T, ? extends CompletionStage<U>> fn) {
        if (fn == null) throw new NullPointerException();
        return then(null, new Step<T, U>() {
            public void run(CompletableFuture<T> s, final CompletableFuture<U> d) {
                Throwable x = s.failureNow();
                if (x != null) {
                    d.finish(null, wrap(x));
                    return;
                }
                CompletionStage<U> stage = fn.apply(s.resultNow0());
                if (stage == null) throw new NullPointerException();
                final CompletableFuture<U> g = stage.toCompletableFuture();
                g.onDone(new Runnable() {
                    public void run() {
                        Throwable y = g.failureNow();
                        if (y != null) d.finish(null, wrap(y));
                        else d.finish(g.resultNow0(), null);
                    }
                });
            }
        });
    }

    public <U, V> CompletableFuture<V> thenCombine(CompletionStage<? extends U> otherStage,
            final BiFunction<? super T, ? super U, ? extends V> fn) {
        if (otherStage == null || fn == null) throw new NullPointerException();
        final CompletableFuture<? extends U> other = otherStage.toCompletableFuture();
        return then(null, new Step<T, V>() {
            public void run(final CompletableFuture<T> s, final CompletableFuture<V> d) {
                other.onDone(new Runnable() {
                    public void run() {
                        Throwable x = s.failureNow();
                        if (x == null) x = other.failureNow();
                        if (x != null) {
                            d.finish(null, wrap(x));
                            return;
                        }
                        V v;
                        try {
                            v = fn.apply(s.resultNow0(), other.resultNow0());
                        } catch (Throwable ex) {
                            d.finish(null, wrap(ex));
                            return;
                        }
                        d.finish(v, null);
                    }
                });
            }
        });
    }

    public CompletableFuture<T> exceptionally(final Function<Throwable, ? extends T> fn) {
        if (fn == null) throw new NullPointerException();
        return then(null, new Step<T, T>() {
            public void run(CompletableFuture<T> s, CompletableFuture<T> d) {
                Throwable x = s.failureNow();
                if (x == null) d.finish(s.resultNow0(), null);
                else d.finish(fn.apply(x), null);
            }
        });
    }

    public <U> CompletableFuture<U> handle(final BiFunction<? super T, Throwable, ? extends U> fn) {
        if (fn == null) throw new NullPointerException();
        return then(null, new Step<T, U>() {
            public void run(CompletableFuture<T> s, CompletableFuture<U> d) {
                Throwable x = s.failureNow();
                d.finish(fn.apply(x == null ? s.resultNow0() : null, x), null);
            }
        });
    }

    public CompletableFuture<T> whenComplete(final BiConsumer<? super T, ? super Throwable> action) {
        if (action == null) throw new NullPointerException();
        return then(null, new Step<T, T>() {
            public void run(CompletableFuture<T> s, CompletableFuture<T> d) {
                Throwable x = s.failureNow();
                T v = x == null ? s.resultNow0() : null;
                try {
                    action.accept(v, x);
                } catch (Throwable ex) {
                    if (x == null) {
                        d.finish(null, wrap(ex));
                        return;
                    }
                    if (x != ex) x.addSuppressed(ex);
                }
                if (x != null) d.finish(null, wrap(x));
                else d.finish(v, null);
            }
        });
    }

    /** Completes when every future has; exceptionally with the first (in order) that failed. */
    public static CompletableFuture<Void> allOf(final CompletableFuture<?>... cfs) {
        final CompletableFuture<Void> all = new CompletableFuture<Void>();
        final int[] left = {cfs.length};
        if (cfs.length == 0) {
            all.finish(null, null);
            return all;
        }
        for (CompletableFuture<?> f : cfs) {
            f.onDone(new Runnable() {
                public void run() {
                    synchronized (left) {
                        if (--left[0] != 0) return;
                    }
                    for (CompletableFuture<?> g : cfs) {
                        Throwable x = g.failureNow();
                        if (x != null) {
                            all.finish(null, wrap(x));
                            return;
                        }
                    }
                    all.finish(null, null);
                }
            });
        }
        return all;
    }

    /** Completes as the first of the futures to complete does. */
    public static CompletableFuture<Object> anyOf(CompletableFuture<?>... cfs) {
        final CompletableFuture<Object> any = new CompletableFuture<Object>();
        for (final CompletableFuture<?> f : cfs) {
            f.onDone(new Runnable() {
                public void run() {
                    Throwable x = f.failureNow();
                    if (x != null) any.finish(null, wrap(x));
                    else any.finish(f.resultNow0(), null);
                }
            });
        }
        return any;
    }

    public CompletableFuture<T> toCompletableFuture() { return this; }

    public String toString() {
        String status;
        synchronized (this) {
            status = !done ? "[Incomplete]" : failure != null ? "[Completed exceptionally: " + failure + "]" : "[Completed normally]";
        }
        return super.toString() + status;
    }
}
