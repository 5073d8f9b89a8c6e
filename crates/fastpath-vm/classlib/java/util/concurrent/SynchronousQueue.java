package java.util.concurrent;

import java.util.AbstractQueue;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.concurrent.locks.LockSupport;

/**
 * A queue with no capacity: each put waits for a take and the reverse. The JDK's dual
 * structure (SynchronousQueue's TransferStack and TransferQueue, Scherer, Lea and Scott,
 * "Scalable Synchronous Queues", PPoPP 2006), with a monitor where the JDK uses CAS: `lock`
 * guards a list of waiting nodes, all puts or all takes. An operation that finds a node of the
 * other kind unlinks and fills it (the match), then wakes that node's thread alone; one that
 * finds none links its own node and parks (LockSupport) until its node is matched. The
 * matcher unparks the node's thread alone, so a hand-off wakes exactly its partner: with
 * several producers and consumers no thread wakes only to find its condition still false and
 * wait again, and no monitor is inflated for a waiter (a wait on the node's monitor would
 * inflate one per blocked hand-off).
 * Unfair queues (the default) match the newest waiter, as the JDK's stack does; fair ones
 * the oldest. As the JDK's transferers do, a waiter at the front (the node matched next)
 * first spins (Thread.onSpinWait, fastpath's pause) on its node's volatile `matched`, so a
 * hand-off between two running threads costs no wait and no wake-up. Nothing spins on a
 * single processor.
 */
public class SynchronousQueue<E> extends AbstractQueue<E> implements BlockingQueue<E>, java.io.Serializable {
    /** Spins before waiting: the front-of-queue count of the JDK's LinkedTransferQueue (2^7). */
    private static final int SPINS = Runtime.getRuntime().availableProcessors() > 1 ? 128 : 0;

    /** A waiting put (`isData`) or take; `waiter` parks until `matched`. */
    static final class Node {
        final boolean isData;
        final Thread waiter;
        /** A put's item; a take's item once matched. Written under `lock` before `matched`. */
        Object item;
        /** Set under `lock` by the matcher, after `item`; read by the waiter outside it. */
        volatile boolean matched;
        /** Links in the waiting list, oldest first; under `lock`. */
        Node prev;
        Node next;

        Node(Object item, boolean isData) {
            this.item = item;
            this.isData = isData;
            this.waiter = Thread.currentThread();
        }
    }

    /** How long an operation may wait for its partner. */
    private static final int NOW = 0;
    private static final int TIMED = 1;
    private static final int UNTIMED = 2;

    private final boolean fair;
    private final Object lock = new Object();
    /** The waiting nodes, oldest at `head`, newest at `tail`; all of one kind. */
    private Node head;
    private Node tail;

    public SynchronousQueue() {
        this(false);
    }

    public SynchronousQueue(boolean fair) {
        this.fair = fair;
    }

    private void link(Node n) {
        n.prev = tail;
        if (tail == null) {
            head = n;
        } else {
            tail.next = n;
        }
        tail = n;
    }

    private void unlink(Node n) {
        if (n.prev == null) {
            head = n.next;
        } else {
            n.prev.next = n.next;
        }
        if (n.next == null) {
            tail = n.prev;
        } else {
            n.next.prev = n.prev;
        }
        n.prev = null;
        n.next = null;
    }

    /**
     * Hands `e` to a waiting take (`e != null`) or takes a waiting put's item (`e == null`),
     * waiting per `how` (at most `nanos` when TIMED) for a partner if none waits. Returns the
     * item transferred, or null if no partner came. An interrupt while waiting unmatched
     * throws; one that comes as the partner matches leaves the transfer done and the
     * interrupt status set.
     */
    private Object transfer(Object e, int how, long nanos) throws InterruptedException {
        boolean isData = e != null;
        Node match;
        Node mine = null;
        boolean front = false;
        synchronized (lock) {
            Node h = head;
            if (h != null && h.isData != isData) {
                match = fair ? h : tail;
                unlink(match);
                if (isData) {
                    match.item = e;
                }
                match.matched = true;
            } else {
                if (how == NOW || (how == TIMED && nanos <= 0)) {
                    return null;
                }
                match = null;
                mine = new Node(e, isData);
                link(mine);
                front = !fair || mine == head;
            }
        }
        if (match != null) {
            // The partner may be spinning (then it sees `matched`) or parked: the permit
            // wakes it, or makes its next park return at once.
            LockSupport.unpark(match.waiter);
            return isData ? e : match.item;
        }
        if (front) {
            for (int spins = 0; spins < SPINS && !mine.matched; spins++) {
                Thread.onSpinWait();
            }
        }
        if (!mine.matched) {
            long deadline = how == TIMED ? System.nanoTime() + nanos : 0L;
            while (!mine.matched) {
                if (Thread.interrupted()) {
                    if (!cancel(mine)) {
                        Thread.currentThread().interrupt();
                        return mine.item;
                    }
                    throw new InterruptedException();
                }
                if (how == TIMED) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    LockSupport.parkNanos(this, left);
                } else {
                    LockSupport.park(this);
                }
            }
            if (!mine.matched && cancel(mine)) {
                return null;
            }
        }
        return mine.item;
    }

    /** Takes an unmatched waiter's node off the list; false if a partner matched it first. */
    private boolean cancel(Node n) {
        synchronized (lock) {
            if (n.matched) {
                return false;
            }
            unlink(n);
            return true;
        }
    }

    public void put(E e) throws InterruptedException {
        if (e == null) throw new NullPointerException();
        if (Thread.interrupted()) throw new InterruptedException();
        transfer(e, UNTIMED, 0L);
    }

    public boolean offer(E e, long timeout, TimeUnit unit) throws InterruptedException {
        if (e == null) throw new NullPointerException();
        if (Thread.interrupted()) throw new InterruptedException();
        return transfer(e, TIMED, unit.toNanos(timeout)) != null;
    }

    public boolean offer(E e) {
        if (e == null) throw new NullPointerException();
        try {
            return transfer(e, NOW, 0L) != null;
        } catch (InterruptedException ie) {
            throw new IllegalStateException(ie); // NOW never waits
        }
    }

    public E take() throws InterruptedException {
        if (Thread.interrupted()) throw new InterruptedException();
        return (E) transfer(null, UNTIMED, 0L);
    }

    public E poll(long timeout, TimeUnit unit) throws InterruptedException {
        if (Thread.interrupted()) throw new InterruptedException();
        return (E) transfer(null, TIMED, unit.toNanos(timeout));
    }

    public E poll() {
        try {
            return (E) transfer(null, NOW, 0L);
        } catch (InterruptedException ie) {
            throw new IllegalStateException(ie); // NOW never waits
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
