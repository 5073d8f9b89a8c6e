package java.util.concurrent;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * A pool of worker threads taking tasks from a BlockingQueue, as OpenJDK's ThreadPoolExecutor
 * schedules them: execute() starts a worker while there are fewer than corePoolSize, then
 * queues, then starts workers up to maximumPoolSize, then rejects; a worker beyond the core
 * (or any, with allowCoreThreadTimeOut) exits after keepAlive idle; a task that throws ends
 * its worker, which is replaced.
 *
 * The pool's state (run state, the worker set, counters) is guarded by `lock`, a monitor
 * (fastpath's) that awaitTermination also waits on. A worker's `busy` flag is guarded by the
 * worker's own monitor: shutdown() interrupts only workers that are not running a task, and a
 * worker clears an interrupt it finds before a task unless the pool is stopping. Run states
 * only increase: RUNNING, SHUTDOWN (no new tasks; queued ones run), STOP (queued tasks are
 * dropped, running ones interrupted), TIDYING (terminated() runs), TERMINATED.
 */
public class ThreadPoolExecutor extends AbstractExecutorService {
    private static final int RUNNING = 0;
    private static final int SHUTDOWN = 1;
    private static final int STOP = 2;
    private static final int TIDYING = 3;
    private static final int TERMINATED = 4;

    private final Object lock = new Object();
    private final BlockingQueue<Runnable> workQueue;
    private final HashSet<Worker> workers = new HashSet<Worker>();
    private int runState = RUNNING;
    private int largestPoolSize;
    private long completedTaskCount;
    private volatile ThreadFactory threadFactory;
    private volatile RejectedExecutionHandler handler;
    private volatile long keepAliveTime;
    private volatile boolean allowCoreThreadTimeOut;
    private volatile int corePoolSize;
    private volatile int maximumPoolSize;

    private static final RejectedExecutionHandler defaultHandler = new AbortPolicy();

    public ThreadPoolExecutor(int corePoolSize, int maximumPoolSize, long keepAliveTime, TimeUnit unit,
            BlockingQueue<Runnable> workQueue) {
        this(corePoolSize, maximumPoolSize, keepAliveTime, unit, workQueue, Executors.defaultThreadFactory(), defaultHandler);
    }

    public ThreadPoolExecutor(int corePoolSize, int maximumPoolSize, long keepAliveTime, TimeUnit unit,
            BlockingQueue<Runnable> workQueue, ThreadFactory threadFactory) {
        this(corePoolSize, maximumPoolSize, keepAliveTime, unit, workQueue, threadFactory, defaultHandler);
    }

    public ThreadPoolExecutor(int corePoolSize, int maximumPoolSize, long keepAliveTime, TimeUnit unit,
            BlockingQueue<Runnable> workQueue, RejectedExecutionHandler handler) {
        this(corePoolSize, maximumPoolSize, keepAliveTime, unit, workQueue, Executors.defaultThreadFactory(), handler);
    }

    public ThreadPoolExecutor(int corePoolSize, int maximumPoolSize, long keepAliveTime, TimeUnit unit,
            BlockingQueue<Runnable> workQueue, ThreadFactory threadFactory, RejectedExecutionHandler handler) {
        if (corePoolSize < 0 || maximumPoolSize <= 0 || maximumPoolSize < corePoolSize || keepAliveTime < 0) {
            throw new IllegalArgumentException();
        }
        if (workQueue == null || threadFactory == null || handler == null) throw new NullPointerException();
        this.corePoolSize = corePoolSize;
        this.maximumPoolSize = maximumPoolSize;
        this.workQueue = workQueue;
        this.keepAliveTime = unit.toNanos(keepAliveTime);
        this.threadFactory = threadFactory;
        this.handler = handler;
    }

    private final class Worker implements Runnable {
        final Thread thread;
        Runnable firstTask;
        /** Running a task (guarded by this worker's monitor). */
        boolean busy;
        /** Tasks this worker completed (guarded by this worker's monitor). */
        long completedTasks;

        Worker(Runnable firstTask) {
            this.firstTask = firstTask;
            this.thread = threadFactory.newThread(this);
        }

        public void run() { runWorker(this); }
    }

    public void execute(Runnable command) {
        if (command == null) throw new NullPointerException();
        if (workerCount() < corePoolSize && addWorker(command, true)) return;
        if (isRunning() && workQueue.offer(command)) {
            if (!isRunning() && remove(command)) reject(command);
            else if (workerCount() == 0) addWorker(null, false);
        } else if (!addWorker(command, false)) {
            reject(command);
        }
    }

    private int workerCount() {
        synchronized (lock) {
            return workers.size();
        }
    }

    private boolean isRunning() {
        synchronized (lock) {
            return runState == RUNNING;
        }
    }

    final void reject(Runnable command) { handler.rejectedExecution(command, this); }

    /** Starts a worker if the state and the bound (core or maximum) allow it. */
    private boolean addWorker(Runnable firstTask, boolean core) {
        synchronized (lock) {
            if (!mayAddWorker(firstTask, core)) return false;
        }
        // The factory is user code: call it outside the pool's lock.
        Worker w = new Worker(firstTask);
        Thread t = w.thread;
        if (t == null) return false;
        synchronized (lock) {
            if (!mayAddWorker(firstTask, core)) return false;
            workers.add(w);
            if (workers.size() > largestPoolSize) largestPoolSize = workers.size();
        }
        boolean started = false;
        try {
            t.start();
            started = true;
        } finally {
            if (!started) {
                synchronized (lock) {
                    workers.remove(w);
                }
                tryTerminate();
            }
        }
        return true;
    }

    private boolean mayAddWorker(Runnable firstTask, boolean core) {
        if (runState >= STOP || (runState == SHUTDOWN && (firstTask != null || workQueue.isEmpty()))) return false;
        return workers.size() < (core ? corePoolSize : maximumPoolSize);
    }

    final void runWorker(Worker w) {
        Thread wt = Thread.currentThread();
        Runnable task = w.firstTask;
        w.firstTask = null;
        boolean completedAbruptly = true;
        try {
            while (task != null || (task = getTask(w)) != null) {
                synchronized (w) {
                    w.busy = true;
                }
                // An interrupt meant for an idle worker is cleared; a stopping pool's stays.
                if ((stopping() || (Thread.interrupted() && stopping())) && !wt.isInterrupted()) wt.interrupt();
                try {
                    beforeExecute(wt, task);
                    try {
                        task.run();
                        afterExecute(task, null);
                    } catch (Throwable ex) {
                        afterExecute(task, ex);
                        throw ex;
                    }
                } finally {
                    task = null;
                    synchronized (w) {
                        w.completedTasks++;
                        w.busy = false;
                    }
                }
            }
            completedAbruptly = false;
        } finally {
            processWorkerExit(w, completedAbruptly);
        }
    }

    private boolean stopping() {
        synchronized (lock) {
            return runState >= STOP;
        }
    }

    /**
     * The next task for `w`, waiting for one; or null when `w` must exit (the pool is stopping,
     * or shut down with an empty queue, or `w` timed out beyond the core), in which case `w` has
     * left the worker set.
     */
    private Runnable getTask(Worker w) {
        boolean timedOut = false;
        for (;;) {
            boolean timed;
            synchronized (lock) {
                if (runState >= SHUTDOWN && (runState >= STOP || workQueue.isEmpty())) {
                    retire(w);
                    return null;
                }
                int wc = workers.size();
                timed = allowCoreThreadTimeOut || wc > corePoolSize;
                if ((wc > maximumPoolSize || (timed && timedOut)) && (wc > 1 || workQueue.isEmpty())) {
                    retire(w);
                    return null;
                }
            }
            try {
                Runnable r = timed ? workQueue.poll(keepAliveTime, TimeUnit.NANOSECONDS) : workQueue.take();
                if (r != null) return r;
                timedOut = true;
            } catch (InterruptedException retry) {
                timedOut = false;
            }
        }
    }

    /** Takes `w` out of the worker set, its task count into the pool's (the caller holds `lock`). */
    private void retire(Worker w) {
        if (workers.remove(w)) {
            synchronized (w) {
                completedTaskCount += w.completedTasks;
            }
        }
    }

    private void processWorkerExit(Worker w, boolean completedAbruptly) {
        synchronized (lock) {
            retire(w);
        }
        tryTerminate();
        int min;
        synchronized (lock) {
            if (runState >= STOP) return;
            min = allowCoreThreadTimeOut ? 0 : corePoolSize;
            if (min == 0 && !workQueue.isEmpty()) min = 1;
            if (!completedAbruptly && workers.size() >= min) return;
        }
        addWorker(null, false);
    }

    /** Moves to TERMINATED once shut down with no queued tasks (or stopped) and no workers. */
    final void tryTerminate() {
        synchronized (lock) {
            if (runState == RUNNING || runState >= TIDYING || (runState == SHUTDOWN && !workQueue.isEmpty())) return;
            if (!workers.isEmpty()) {
                // Idle workers blocked on the queue must wake to see the state.
                interruptIdleWorkers();
                return;
            }
            runState = TIDYING;
            try {
                terminated();
            } finally {
                runState = TERMINATED;
                lock.notifyAll();
            }
        }
    }

    /** Interrupts the workers not running a task (the caller holds `lock`). */
    private void interruptIdleWorkers() {
        for (Worker w : workers) {
            synchronized (w) {
                if (!w.busy && w.thread.isAlive()) w.thread.interrupt();
            }
        }
    }

    public void shutdown() {
        synchronized (lock) {
            if (runState < SHUTDOWN) runState = SHUTDOWN;
            interruptIdleWorkers();
        }
        tryTerminate();
    }

    public List<Runnable> shutdownNow() {
        List<Runnable> tasks = new ArrayList<Runnable>();
        synchronized (lock) {
            if (runState < STOP) runState = STOP;
            for (Worker w : workers) {
                if (w.thread.isAlive()) w.thread.interrupt();
            }
            workQueue.drainTo(tasks);
            // A queue whose drainTo misses items (a DelayQueue's) still gives them up here.
            if (!workQueue.isEmpty()) {
                for (Object r : workQueue.toArray(new Runnable[0])) {
                    if (workQueue.remove(r)) tasks.add((Runnable) r);
                }
            }
        }
        tryTerminate();
        return tasks;
    }

    public boolean isShutdown() {
        synchronized (lock) {
            return runState >= SHUTDOWN;
        }
    }

    public boolean isTerminating() {
        synchronized (lock) {
            return runState >= SHUTDOWN && runState < TERMINATED;
        }
    }

    public boolean isTerminated() {
        synchronized (lock) {
            return runState == TERMINATED;
        }
    }

    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lock) {
            while (runState != TERMINATED) {
                long left = deadline - System.nanoTime();
                if (left <= 0) return false;
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            return true;
        }
    }

    public boolean remove(Runnable task) {
        boolean removed = workQueue.remove(task);
        tryTerminate();
        return removed;
    }

    public BlockingQueue<Runnable> getQueue() { return workQueue; }
    public void setThreadFactory(ThreadFactory threadFactory) {
        if (threadFactory == null) throw new NullPointerException();
        this.threadFactory = threadFactory;
    }
    public ThreadFactory getThreadFactory() { return threadFactory; }
    public void setRejectedExecutionHandler(RejectedExecutionHandler handler) {
        if (handler == null) throw new NullPointerException();
        this.handler = handler;
    }
    public RejectedExecutionHandler getRejectedExecutionHandler() { return handler; }
    public int getCorePoolSize() { return corePoolSize; }
    public int getMaximumPoolSize() { return maximumPoolSize; }
    public long getKeepAliveTime(TimeUnit unit) { return unit.convert(keepAliveTime, TimeUnit.NANOSECONDS); }
    public boolean allowsCoreThreadTimeOut() { return allowCoreThreadTimeOut; }
    public void allowCoreThreadTimeOut(boolean value) {
        if (value && keepAliveTime <= 0) throw new IllegalArgumentException("Core threads must have nonzero keep alive times");
        allowCoreThreadTimeOut = value;
        if (value) {
            synchronized (lock) {
                interruptIdleWorkers();
            }
        }
    }

    public int getPoolSize() {
        synchronized (lock) {
            return runState >= TIDYING ? 0 : workers.size();
        }
    }

    public int getLargestPoolSize() {
        synchronized (lock) {
            return largestPoolSize;
        }
    }

    public int getActiveCount() {
        synchronized (lock) {
            int n = 0;
            for (Worker w : workers) {
                synchronized (w) {
                    if (w.busy) n++;
                }
            }
            return n;
        }
    }

    public long getCompletedTaskCount() {
        synchronized (lock) {
            long n = completedTaskCount;
            for (Worker w : workers) {
                synchronized (w) {
                    n += w.completedTasks;
                }
            }
            return n;
        }
    }

    public long getTaskCount() {
        synchronized (lock) {
            long n = completedTaskCount;
            for (Worker w : workers) {
                synchronized (w) {
                    n += w.completedTasks;
                    if (w.busy) n++;
                }
            }
            return n + workQueue.size();
        }
    }

    public String toString() {
        String state;
        long completed;
        int workerCount, active;
        synchronized (lock) {
            state = runState == RUNNING ? "Running" : runState == TERMINATED ? "Terminated" : "Shutting down";
            workerCount = workers.size();
            completed = getCompletedTaskCount();
            active = getActiveCount();
        }
        return super.toString() + "[" + state + ", pool size = " + workerCount + ", active threads = " + active
            + ", queued tasks = " + workQueue.size() + ", completed tasks = " + completed + "]";
    }

    protected void beforeExecute(Thread t, Runnable r) {}
    protected void afterExecute(Runnable r, Throwable t) {}
    protected void terminated() {}

    /** Throws RejectedExecutionException. */
    public static class AbortPolicy implements RejectedExecutionHandler {
        public AbortPolicy() {}
        public void rejectedExecution(Runnable r, ThreadPoolExecutor e) {
            throw new RejectedExecutionException("Task " + r.toString() + " rejected from " + e.toString());
        }
    }

    /** Runs the task in the caller's thread, unless the pool is shut down. */
    public static class CallerRunsPolicy implements RejectedExecutionHandler {
        public CallerRunsPolicy() {}
        public void rejectedExecution(Runnable r, ThreadPoolExecutor e) {
            if (!e.isShutdown()) r.run();
        }
    }

    /** Drops the task. */
    public static class DiscardPolicy implements RejectedExecutionHandler {
        public DiscardPolicy() {}
        public void rejectedExecution(Runnable r, ThreadPoolExecutor e) {}
    }

    /** Drops the oldest queued task and retries, unless the pool is shut down. */
    public static class DiscardOldestPolicy implements RejectedExecutionHandler {
        public DiscardOldestPolicy() {}
        public void rejectedExecution(Runnable r, ThreadPoolExecutor e) {
            if (!e.isShutdown()) {
                e.getQueue().poll();
                e.execute(r);
            }
        }
    }
}
