// tags: concurrent thread
// release: 17
// Thread pools and futures: fixed, single-thread and cached pools from Executors, submit of
// Callables and Runnables, invokeAll, invokeAny, ExecutionException causes, cancel of a queued
// task, get with a timeout, rejection after shutdown, shutdownNow interrupting a running task
// and returning the queued ones, awaitTermination, a ThreadPoolExecutor growing past its core
// to its maximum with a bounded queue and AbortPolicy/CallerRunsPolicy, pool thread names, and
// counts. Threads compute; main prints.
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

public class Executors17 {
    static long sumTo(int n) {
        long s = 0;
        for (int i = 1; i <= n; i++) {
            s += i;
        }
        return s;
    }

    public static void main(String[] args) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<Long>> results = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            final int n = 1000 * (i + 1);
            results.add(pool.submit(() -> sumTo(n)));
        }
        long total = 0;
        for (Future<Long> f : results) {
            total += f.get();
        }
        System.out.println("sum of sums " + total + " done " + results.get(19).isDone());

        // Pool threads' names: four workers of the first pool.
        CountDownLatch allIn = new CountDownLatch(4);
        List<Callable<String>> namers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            namers.add(() -> {
                allIn.countDown();
                allIn.await();
                return Thread.currentThread().getName();
            });
        }
        TreeSet<String> names = new TreeSet<>();
        for (Future<String> f : pool.invokeAll(namers)) {
            names.add(f.get());
        }
        System.out.println("names " + names);

        // Failures come back as ExecutionException with the task's exception as cause.
        Future<Integer> bad = pool.submit(() -> Integer.parseInt("x1"));
        try {
            bad.get();
        } catch (ExecutionException e) {
            System.out.println("failed: " + e.getCause().getClass().getName() + ": " + e.getCause().getMessage()
                + " | " + e.getMessage());
        }
        Future<?> ran = pool.submit(() -> { });
        Future<String> withResult = pool.submit(() -> { }, "fixed");
        System.out.println("runnable " + ran.get() + " " + withResult.get());

        // invokeAny returns the one task that succeeds; all failing is an ExecutionException.
        List<Callable<String>> any = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            final int k = i;
            any.add(() -> {
                if (k != 3) throw new IllegalStateException("task " + k);
                return "winner " + k;
            });
        }
        System.out.println("invokeAny " + pool.invokeAny(any));
        try {
            pool.invokeAny(List.<Callable<String>>of(() -> {
                throw new IllegalStateException("only");
            }));
        } catch (ExecutionException e) {
            System.out.println("invokeAny failed: " + e.getCause());
        }
        pool.shutdown();
        System.out.println("terminated " + pool.awaitTermination(10, TimeUnit.SECONDS) + " " + pool.isShutdown() + " "
            + pool.isTerminated());
        try {
            pool.submit(() -> 1);
        } catch (RejectedExecutionException e) {
            System.out.println("rejected after shutdown");
        }

        // A single-thread executor runs tasks in order; a queued task can be cancelled, a get
        // can time out, and shutdownNow interrupts the running task and returns queued ones.
        ExecutorService single = Executors.newSingleThreadExecutor();
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            final int k = i;
            single.execute(() -> order.add(k));
        }
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger interrupted = new AtomicInteger();
        Future<String> blocker = single.submit(() -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
                throw e;
            }
            return "released";
        });
        Future<String> queued = single.submit(() -> "never");
        started.await();
        System.out.println("order " + order + " name " + single.submit(() -> 0).isDone());
        try {
            blocker.get(20, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            System.out.println("timed out " + blocker.isDone());
        }
        System.out.println("cancel " + queued.cancel(false) + " " + queued.isCancelled() + " " + queued.isDone() + " "
            + queued.cancel(true));
        try {
            queued.get();
        } catch (CancellationException e) {
            System.out.println("cancelled get: " + e.getClass().getName());
        }
        List<Runnable> left = single.shutdownNow();
        System.out.println("shutdownNow left " + left.size() + " terminated " + single.awaitTermination(10, TimeUnit.SECONDS)
            + " interrupted " + interrupted.get());
        try {
            blocker.get();
        } catch (ExecutionException e) {
            System.out.println("blocker: " + e.getCause().getClass().getName());
        }

        // Core 1, maximum 2, a queue of 1: the second task queues, the third starts a second
        // worker, the fourth is rejected (AbortPolicy) or run by the caller (CallerRunsPolicy).
        CountDownLatch gate = new CountDownLatch(1);
        ThreadPoolExecutor tpe = new ThreadPoolExecutor(1, 2, 1, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1));
        Runnable wait = () -> {
            try {
                gate.await();
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
        };
        tpe.execute(wait);
        System.out.println("pool " + tpe.getPoolSize() + " queued " + tpe.getQueue().size());
        tpe.execute(wait);
        System.out.println("pool " + tpe.getPoolSize() + " queued " + tpe.getQueue().size());
        tpe.execute(wait);
        System.out.println("pool " + tpe.getPoolSize() + " queued " + tpe.getQueue().size());
        try {
            tpe.execute(wait);
        } catch (RejectedExecutionException e) {
            System.out.println("rejected when full");
        }
        String[] ranIn = new String[1];
        tpe.setRejectedExecutionHandler(new ThreadPoolExecutor.CallerRunsPolicy());
        tpe.execute(() -> ranIn[0] = Thread.currentThread().getName());
        System.out.println("caller ran it: " + ranIn[0]);
        gate.countDown();
        tpe.shutdown();
        System.out.println("tpe terminated " + tpe.awaitTermination(10, TimeUnit.SECONDS) + " completed "
            + tpe.getCompletedTaskCount() + " largest " + tpe.getLargestPoolSize() + " pool " + tpe.getPoolSize()
            + " core " + tpe.getCorePoolSize() + " max " + tpe.getMaximumPoolSize());

        // A cached pool reuses idle threads; many short tasks give exact totals.
        ExecutorService cached = Executors.newCachedThreadPool();
        AtomicInteger counter = new AtomicInteger();
        List<Future<?>> fs = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            fs.add(cached.submit(counter::incrementAndGet));
        }
        for (Future<?> f : fs) {
            f.get();
        }
        cached.shutdown();
        System.out.println("cached " + counter.get() + " " + cached.awaitTermination(10, TimeUnit.SECONDS));
    }
}
