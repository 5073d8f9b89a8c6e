package java.util.concurrent;

import java.util.AbstractQueue;
import java.util.Collection;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * An unbounded thread-safe FIFO queue: a singly linked list from a dummy `head` to `tail`
 * whose updates are made under one monitor (fastpath's), so each operation is atomic (it is
 * not lock-free here). Iterators are weakly consistent: they walk the nodes queued when they
 * were made, skipping those removed since, and remove() unlinks the node they returned.
 */
public class ConcurrentLinkedQueue<E> extends AbstractQueue<E> implements java.io.Serializable {
    static final class Node<E> {
        E item;
        Node<E> next;

        Node(E item) { this.item = item; }
    }

    private final Object lock = new Object();
    private Node<E> head = new Node<E>(null);
    private Node<E> tail = head;
    private int count;

    public ConcurrentLinkedQueue() {}

    public ConcurrentLinkedQueue(Collection<? extends E> c) {
        for (E e : c) offer(e);
    }

    public boolean add(E e) { return offer(e); }

    public boolean offer(E e) {
        if (e == null) throw new NullPointerException();
        Node<E> n = new Node<E>(e);
        synchronized (lock) {
            tail = tail.next = n;
            count++;
        }
        return true;
    }

    public E poll() {
        synchronized (lock) {
            Node<E> first = head.next;
            if (first == null) return null;
            head.next = null;
            head = first;
            E x = first.item;
            first.item = null;
            count--;
            return x;
        }
    }

    public E peek() {
        synchronized (lock) {
            Node<E> first = head.next;
            return first == null ? null : first.item;
        }
    }

    public boolean isEmpty() { return peek() == null; }

    public int size() {
        synchronized (lock) {
            return count;
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

    /** Unlinks `node`, or else the first node whose item equals `o`; the caller holds `lock`. */
    private boolean unlinkFirst(Object o, Node<E> node) {
        for (Node<E> trail = head, p = trail.next; p != null; trail = p, p = p.next) {
            if (node != null ? p == node : o.equals(p.item)) {
                p.item = null;
                trail.next = p.next;
                if (tail == p) tail = trail;
                count--;
                return true;
            }
        }
        return false;
    }

    public boolean remove(Object o) {
        if (o == null) return false;
        synchronized (lock) {
            return unlinkFirst(o, null);
        }
    }

    public boolean addAll(Collection<? extends E> c) {
        if (c == this) throw new IllegalArgumentException();
        boolean modified = false;
        for (E e : c) modified |= offer(e);
        return modified;
    }

    public void clear() {
        synchronized (lock) {
            for (Node<E> p = head.next; p != null; p = p.next) p.item = null;
            head.next = null;
            tail = head;
            count = 0;
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
                    unlinkFirst(null, p);
                }
            }
        };
    }
}
