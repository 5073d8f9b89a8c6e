package java.util.concurrent;

/** A count that threads wait to reach zero, on one monitor (fastpath's). */
public class CountDownLatch {
    private long count;

    public CountDownLatch(int count) {
        if (count < 0) throw new IllegalArgumentException("count < 0");
        this.count = count;
    }

    public synchronized void await() throws InterruptedException {
        if (Thread.interrupted()) throw new InterruptedException();
        while (count > 0) wait();
    }

    public synchronized boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        if (Thread.interrupted()) throw new InterruptedException();
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (count > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) return false;
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    public synchronized void countDown() {
        if (count > 0 && --count == 0) notifyAll();
    }

    public synchronized long getCount() { return count; }

    public String toString() { return super.toString() + "[Count = " + getCount() + "]"; }
}
