package java.util.concurrent.locks;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * A reentrant mutual-exclusion lock built on one monitor (fastpath's): the owner and hold
 * count are fields guarded by it, blocked lockers and condition waiters wait on it. A
 * condition's waiters are queued in order; signal() releases the oldest.
 */
public class ReentrantLock implements Lock, java.io.Serializable {
    private final Object sync = new Object();
    private Thread owner;
    private int holds;
    private final boolean fair;

    public ReentrantLock() { this(false); }
    public ReentrantLock(boolean fair) { this.fair = fair; }

    public void lock() {
        Thread me = Thread.currentThread();
        synchronized (sync) {
            if (owner == me) {
                holds++;
                return;
            }
            boolean interrupted = false;
            while (owner != null) {
                try {
                    sync.wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            owner = me;
            holds = 1;
            if (interrupted) me.interrupt();
        }
    }

    public void lockInterruptibly() throws InterruptedException {
        Thread me = Thread.currentThread();
        if (Thread.interrupted()) throw new InterruptedException();
        synchronized (sync) {
            if (owner == me) {
                holds++;
                return;
            }
            while (owner != null) sync.wait();
            owner = me;
            holds = 1;
        }
    }

    public boolean tryLock() {
        Thread me = Thread.currentThread();
        synchronized (sync) {
            if (owner == me) {
                holds++;
                return true;
            }
            if (owner != null) return false;
            owner = me;
            holds = 1;
            return true;
        }
    }

    public boolean tryLock(long timeout, TimeUnit unit) throws InterruptedException {
        Thread me = Thread.currentThread();
        if (Thread.interrupted()) throw new InterruptedException();
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (sync) {
            if (owner == me) {
                holds++;
                return true;
            }
            while (owner != null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) return false;
                TimeUnit.NANOSECONDS.timedWait(sync, left);
            }
            owner = me;
            holds = 1;
            return true;
        }
    }

    public void unlock() {
        synchronized (sync) {
            if (owner != Thread.currentThread()) throw new IllegalMonitorStateException();
            if (--holds == 0) {
                owner = null;
                sync.notifyAll();
            }
        }
    }

    public Condition newCondition() { return new ConditionObject(); }

    public int getHoldCount() {
        synchronized (sync) {
            return owner == Thread.currentThread() ? holds : 0;
        }
    }

    public boolean isHeldByCurrentThread() {
        synchronized (sync) {
            return owner == Thread.currentThread();
        }
    }

    public boolean isLocked() {
        synchronized (sync) {
            return owner != null;
        }
    }

    public final boolean isFair() { return fair; }

    public String toString() {
        Thread o;
        synchronized (sync) {
            o = owner;
        }
        return super.toString() + ((o == null) ? "[Unlocked]" : "[Locked by thread " + o.getName() + "]");
    }

    /** A waiter on a condition: signalled by signal(). */
    private static final class Waiter {
        boolean signalled;
    }

    private final class ConditionObject implements Condition {
        private final ArrayDeque<Waiter> waiters = new ArrayDeque<Waiter>();

        /** Releases the lock, waits until signalled, interrupted or timed out, re-acquires. */
        private long doAwait(boolean interruptible, boolean timed, long nanos) throws InterruptedException {
            Thread me = Thread.currentThread();
            synchronized (sync) {
                if (owner != me) throw new IllegalMonitorStateException();
                if (interruptible && Thread.interrupted()) throw new InterruptedException();
                Waiter w = new Waiter();
                waiters.addLast(w);
                int saved = holds;
                owner = null;
                holds = 0;
                sync.notifyAll();
                long deadline = System.nanoTime() + nanos;
                InterruptedException interrupt = null;
                boolean lateInterrupt = false;
                while (!w.signalled) {
                    try {
                        if (timed) {
                            long left = deadline - System.nanoTime();
                            if (left <= 0) break;
                            TimeUnit.NANOSECONDS.timedWait(sync, left);
                        } else {
                            sync.wait();
                        }
                    } catch (InterruptedException e) {
                        if (interruptible) {
                            interrupt = e;
                            break;
                        }
                        lateInterrupt = true;
                    }
                }
                if (!w.signalled) waiters.remove(w);
                while (owner != null) {
                    try {
                        sync.wait();
                    } catch (InterruptedException e) {
                        lateInterrupt = true;
                    }
                }
                owner = me;
                holds = saved;
                if (interrupt != null) throw interrupt;
                if (lateInterrupt) me.interrupt();
                return w.signalled ? Math.max(1, deadline - System.nanoTime()) : deadline - System.nanoTime();
            }
        }

        public void await() throws InterruptedException { doAwait(true, false, 0); }

        public void awaitUninterruptibly() {
            try {
                doAwait(false, false, 0);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }

        public long awaitNanos(long nanosTimeout) throws InterruptedException { return doAwait(true, true, nanosTimeout); }

        public boolean await(long time, TimeUnit unit) throws InterruptedException {
            return doAwait(true, true, unit.toNanos(time)) > 0;
        }

        public void signal() {
            synchronized (sync) {
                if (owner != Thread.currentThread()) throw new IllegalMonitorStateException();
                Waiter w = waiters.pollFirst();
                if (w != null) {
                    w.signalled = true;
                    sync.notifyAll();
                }
            }
        }

        public void signalAll() {
            synchronized (sync) {
                if (owner != Thread.currentThread()) throw new IllegalMonitorStateException();
                Waiter w;
                while ((w = waiters.pollFirst()) != null) w.signalled = true;
                sync.notifyAll();
            }
        }
    }
}
