package java.util.concurrent;

import java.util.AbstractQueue;
import java.util.Collection;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * An optionally bounded FIFO queue on a singly linked list from `head` (a dummy node whose
 * successor is the first item) to `last`, guarded by one monitor (fastpath's): takers wait for
 * items and putters for space on it. Iterators walk a snapshot of the nodes; their remove()
 * unlinks that node if it is still queued.
 */
public class LinkedBlockingQueue<E> extends AbstractQueue<E> implements BlockingQueue<E>, java.io.Serializable {
    static final class Node<E> {
        E item;
        Node<E> next;

        Node(E item) { this.item = item; }
    }

    private final int capacity;
    private int count;
    private Node<E> head;
    private Node<E> last;
    private final Object lock = new Object();

    public LinkedBlockingQueue() { this(Integer.MAX_VALUE); }

    public LinkedBlockingQueue(int capacity) {
        if (capacity <= 0) throw new IllegalArgumentException();
        this.capacity = capacity;
        last = head = new Node<E>(null);
    }

    public LinkedBlockingQueue(Collection<? extends E> c) {
        this(Integer.MAX_VALUE);
        synchronized (lock) {
            for (E e : c) {
                if (e == null) throw new NullPointerException();
                if (count == capacity) throw new IllegalStateException("Queue full");
                enqueue(e);
            }
        }
    }

    private void enqueue(E e) {
        last = last.next = new Node<E>(e);
        count++;
        lock.notifyAll();
    }

    private E dequeue() {
        Node<E> first = head.next;
        head.next = null;
        head = first;
        E x = first.item;
        first.item = null;
        count--;
        lock.notifyAll();
        return x;
    }

    public int size() {
        synchronized (lock) {
            return count;
        }
    }

    public int remainingCapacity() {
        synchronized (lock) {
            return capacity - count;
        }
    }

    public void put(E e) throws InterruptedException {
        if (e == null) throw new NullPointerException();
        synchronized (lock) {
            while (count == capacity) lock.wait();
            enqueue(e);
        }
    }

    public boolean offer(E e, long timeout, TimeUnit unit) throws InterruptedException {
        if (e == null) throw new NullPointerException();
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lock) {
            while (count == capacity) {
                long left = deadline - System.nanoTime();
                if (left <= 0) return false;
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            enqueue(e);
            return true;
        }
    }

    public boolean offer(E e) {
        if (e == null) throw new NullPointerException();
        synchronized (lock) {
            if (count == capacity) return false;
            enqueue(e);
            return true;
        }
    }

    public E take() throws InterruptedException {
        synchronized (lock) {
            while (count == 0) lock.wait();
            return dequeue();
        }
    }

    public E poll(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lock) {
            while (count == 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) return null;
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            return dequeue();
        }
    }

    public E poll() {
        synchronized (lock) {
            return count == 0 ? null : dequeue();
        }
    }

    public E peek() {
        synchronized (lock) {
            return count == 0 ? null : head.next.item;
        }
    }

    /** Unlinks `p`, whose predecessor is `trail`. */
    private void unlink(Node<E> p, Node<E> trail) {
        p.item = null;
        trail.next = p.next;
        if (last == p) last = trail;
        count--;
        lock.notifyAll();
    }

    public boolean remove(Object o) {
        if (o == null) return false;
        synchronized (lock) {
            for (Node<E> trail = head, p = trail.next; p != null; trail = p, p = p.next) {
                if (o.equals(p.item)) {
                    unlink(p, trail);
                    return true;
                }
            }
            return false;
        }
    }

    public boolean contains(Object o) {
        if (o == null) return false;
        synchronized (lock) {
            for (Node<E> p = head.next; p != null; p = p.next) {
                if (o.equals(p.item)) return true;
            }
            return false;
        }
    }

    public Object[] toArray() {
        synchronized (lock) {
            Object[] a = new Object[count];
            int k = 0;
            for (Node<E> p = head.next; p != null; p = p.next) a[k++] = p.item;
            return a;
        }
    }

    public <T> T[] toArray(T[] a) {
        synchronized (lock) {
            if (a.length < count) a = java.util.Arrays.copyOf(a, count);
            int k = 0;
            for (Node<E> p = head.next; p != null; p = p.next) a[k++] = (T) p.item;
            if (a.length > k) a[k] = null;
            return a;
        }
    }

    public String toString() { return java.util.Arrays.toString(toArray()); }

    public void clear() {
        synchronized (lock) {
            for (Node<E> p = head.next; p != null; p = p.next) p.item = null;
            head.next = null;
            last = head;
            count = 0;
            lock.notifyAll();
        }
    }

    public int drainTo(Collection<? super E> c) { return drainTo(c, Integer.MAX_VALUE); }

    public int drainTo(Collection<? super E> c, int maxElements) {
        if (c == null) throw new NullPointerException();
        if (c == this) throw new IllegalArgumentException();
        synchronized (lock) {
            int n = 0;
            while (count > 0 && n < maxElements) {
                c.add(dequeue());
                n++;
            }
            return n;
        }
    }

    public Iterator<E> iterator() {
        final Object[] nodes;
        synchronized (lock) {
            nodes = new Object[count];
            int k = 0;
            for (Node<E> p = head.next; p != null; p = p.next) nodes[k++] = p;
        }
        return new Iterator<E>() {
            int i = 0;
            Node<E> lastReturned;
            E nextItem = advance();

            /** The item of the next snapshot node still queued, or null. */
            private E advance() {
                synchronized (lock) {
                    while (i < nodes.length) {
                        E x = ((Node<E>) nodes[i]).item;
                        if (x != null) return x;
                        i++;
                    }
                    return null;
                }
            }

            public boolean hasNext() { return nextItem != null; }

            public E next() {
                E x = nextItem;
                if (x == null) throw new NoSuchElementException();
                lastReturned = (Node<E>) nodes[i++];
                nextItem = advance();
                return x;
            }

            public void remove() {
                Node<E> p = lastReturned;
                if (p == null) throw new IllegalStateException();
                lastReturned = null;
                synchronized (lock) {
                    for (Node<E> trail = head, q = trail.next; q != null; trail = q, q = q.next) {
                        if (q == p) {
                            unlink(q, trail);
                            return;
                        }
                    }
                }
            }
        };
    }
}
