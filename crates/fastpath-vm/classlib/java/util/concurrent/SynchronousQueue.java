package java.util.concurrent;

import java.util.AbstractQueue;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;

/**
 * A queue with no capacity: each put waits for a take and the reverse. One monitor guards a
 * single hand-off slot; a putter fills it and waits until a taker has emptied it. As the JDK's
 * transferers do, both sides spin first (Thread.onSpinWait, fastpath's pause), outside the
 * monitor, on a volatile word the other side writes under it, and wait on the monitor only
 * when the partner has not come within the spins: a hand-off between two running threads
 * then costs no wait and no wake-up. A taker counts as waiting (offer succeeds) from the
 * moment it starts spinning. Nothing spins on a single processor.
 */
public class SynchronousQueue<E> extends AbstractQueue<E> implements BlockingQueue<E>, java.io.Serializable {
    /** Spins before waiting: the front-of-queue count of the JDK's LinkedTransferQueue (2^7). */
    private static final int SPINS = Runtime.getRuntime().availableProcessors() > 1 ? 128 : 0;

    private final Object lock = new Object();
    private Object item;
    private volatile boolean full;
    private long putTicket;
    private volatile long takenTicket;
    private int waitingTakers;

    public SynchronousQueue() {}
    public SynchronousQueue(boolean fair) {}

    public void put(E e) throws InterruptedException {
        if (e == null) throw new NullPointerException();
        long my;
        synchronized (lock) {
            while (full) lock.wait();
            item = e;
            full = true;
            my = ++putTicket;
            lock.notifyAll();
        }
        for (int spins = 0; spins < SPINS && takenTicket < my; spins++) {
            Thread.onSpinWait();
        }
        if (takenTicket >= my) {
            return;
        }
        synchronized (lock) {
            try {
                while (takenTicket < my) lock.wait();
            } catch (InterruptedException ie) {
                if (takenTicket < my && full && item == e) {
                    item = null;
                    full = false;
                    putTicket--;
                    lock.notifyAll();
                    throw ie;
                }
                Thread.currentThread().interrupt();
            }
        }
    }

    public boolean offer(E e, long timeout, TimeUnit unit) throws InterruptedException {
        if (e == null) throw new NullPointerException();
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lock) {
            while (full) {
                long left = deadline - System.nanoTime();
                if (left <= 0) return false;
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            item = e;
            full = true;
            long my = ++putTicket;
            lock.notifyAll();
            while (takenTicket < my) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    if (full && item == e) {
                        item = null;
                        full = false;
                        putTicket--;
                        lock.notifyAll();
                        return false;
                    }
                    break;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            return true;
        }
    }

    public boolean offer(E e) {
        if (e == null) throw new NullPointerException();
        synchronized (lock) {
            if (full || waitingTakers == 0) return false;
            item = e;
            full = true;
            ++putTicket;
            lock.notifyAll();
            return true;
        }
    }

    private E takeItem() {
        E e = (E) item;
        item = null;
        full = false;
        takenTicket++;
        lock.notifyAll();
        return e;
    }

    public E take() throws InterruptedException {
        synchronized (lock) {
            if (full) return takeItem();
            waitingTakers++;
        }
        for (int spins = 0; spins < SPINS && !full; spins++) {
            Thread.onSpinWait();
        }
        synchronized (lock) {
            try {
                while (!full) lock.wait();
            } finally {
                waitingTakers--;
            }
            return takeItem();
        }
    }

    public E poll(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lock) {
            waitingTakers++;
            try {
                while (!full) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) return null;
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                }
            } finally {
                waitingTakers--;
            }
            return takeItem();
        }
    }

    public E poll() {
        synchronized (lock) {
            return full ? takeItem() : null;
        }
    }

    public boolean isEmpty() { return true; }
    public int size() { return 0; }
    public int remainingCapacity() { return 0; }
    public void clear() {}
    public boolean contains(Object o) { return false; }
    public boolean remove(Object o) { return false; }
    public E peek() { return null; }
    public Iterator<E> iterator() { return Collections.emptyIterator(); }
    public Object[] toArray() { return new Object[0]; }
    public String toString() { return "[]"; }
    public int drainTo(Collection<? super E> c) { return drainTo(c, Integer.MAX_VALUE); }
    public int drainTo(Collection<? super E> c, int maxElements) {
        int n = 0;
        for (E e; n < maxElements && (e = poll()) != null; n++) c.add(e);
        return n;
    }
}
