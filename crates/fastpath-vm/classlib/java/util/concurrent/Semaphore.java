package java.util.concurrent;

/**
 * A count of permits that acquire() takes, waiting while too few are left, and release()
 * returns, on one monitor (fastpath's). Waiters are woken together and race for permits, so a
 * fair semaphore's first-come order is not kept.
 */
public class Semaphore implements java.io.Serializable {
    private int permits;
    private final boolean fair;

    public Semaphore(int permits) { this(permits, false); }

    public Semaphore(int permits, boolean fair) {
        this.permits = permits;
        this.fair = fair;
    }

    public void acquire() throws InterruptedException { acquire(1); }

    public synchronized void acquire(int n) throws InterruptedException {
        if (n < 0) throw new IllegalArgumentException();
        if (Thread.interrupted()) throw new InterruptedException();
        while (permits < n) wait();
        permits -= n;
    }

    public void acquireUninterruptibly() { acquireUninterruptibly(1); }

    public synchronized void acquireUninterruptibly(int n) {
        if (n < 0) throw new IllegalArgumentException();
        boolean interrupted = false;
        while (permits < n) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        permits -= n;
        if (interrupted) Thread.currentThread().interrupt();
    }

    public boolean tryAcquire() { return tryAcquire(1); }

    public synchronized boolean tryAcquire(int n) {
        if (n < 0) throw new IllegalArgumentException();
        if (permits < n) return false;
        permits -= n;
        return true;
    }

    public boolean tryAcquire(long timeout, TimeUnit unit) throws InterruptedException { return tryAcquire(1, timeout, unit); }

    public synchronized boolean tryAcquire(int n, long timeout, TimeUnit unit) throws InterruptedException {
        if (n < 0) throw new IllegalArgumentException();
        if (Thread.interrupted()) throw new InterruptedException();
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (permits < n) {
            long left = deadline - System.nanoTime();
            if (left <= 0) return false;
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        permits -= n;
        return true;
    }

    public void release() { release(1); }

    public synchronized void release(int n) {
        if (n < 0) throw new IllegalArgumentException();
        if (permits + n < permits) throw new Error("Maximum permit count exceeded");
        permits += n;
        notifyAll();
    }

    public synchronized int availablePermits() { return permits; }

    public synchronized int drainPermits() {
        int n = permits;
        permits = 0;
        return n;
    }

    protected synchronized void reducePermits(int reduction) {
        if (reduction < 0) throw new IllegalArgumentException();
        if (permits - reduction > permits) throw new Error("Permit count underflow");
        permits -= reduction;
    }

    public boolean isFair() { return fair; }

    public String toString() { return super.toString() + "[Permits = " + availablePermits() + "]"; }
}
