package java.util.concurrent;

import java.util.AbstractQueue;
import java.util.Collection;
import java.util.Iterator;
import java.util.NoSuchElementException;

/** A bounded FIFO queue on a circular array, guarded by one monitor (fastpath's): waiters for space or items wait on it. */
public class ArrayBlockingQueue<E> extends AbstractQueue<E> implements BlockingQueue<E>, java.io.Serializable {
    private final Object[] items;
    private int takeIndex;
    private int putIndex;
    private int count;
    private final Object lock = new Object();

    public ArrayBlockingQueue(int capacity) { this(capacity, false); }

    public ArrayBlockingQueue(int capacity, boolean fair) {
        if (capacity <= 0) throw new IllegalArgumentException();
        this.items = new Object[capacity];
    }

    public ArrayBlockingQueue(int capacity, boolean fair, Collection<? extends E> c) {
        this(capacity, fair);
        for (E e : c) add(e);
    }

    private void enqueue(E e) {
        items[putIndex] = e;
        if (++putIndex == items.length) putIndex = 0;
        count++;
        lock.notifyAll();
    }

    private E dequeue() {
        E e = (E) items[takeIndex];
        items[takeIndex] = null;
        if (++takeIndex == items.length) takeIndex = 0;
        count--;
        lock.notifyAll();
        return e;
    }

    public boolean add(E e) { return super.add(e); }

    public boolean offer(E e) {
        if (e == null) throw new NullPointerException();
        synchronized (lock) {
            if (count == items.length) return false;
            enqueue(e);
            return true;
        }
    }

    public void put(E e) throws InterruptedException {
        if (e == null) throw new NullPointerException();
        synchronized (lock) {
            while (count == items.length) lock.wait();
            enqueue(e);
        }
    }

    public boolean offer(E e, long timeout, TimeUnit unit) throws InterruptedException {
        if (e == null) throw new NullPointerException();
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (lock) {
            while (count == items.length) {
                long left = deadline - System.nanoTime();
                if (left <= 0) return false;
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            enqueue(e);
            return true;
        }
    }

    public E poll() {
        synchronized (lock) {
            return (count == 0) ? null : dequeue();
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

    public E peek() {
        synchronized (lock) {
            return (E) items[takeIndex];
        }
    }

    public int size() {
        synchronized (lock) {
            return count;
        }
    }

    public int remainingCapacity() {
        synchronized (lock) {
            return items.length - count;
        }
    }

    public boolean remove(Object o) {
        if (o == null) return false;
        synchronized (lock) {
            for (int k = 0, i = takeIndex; k < count; k++) {
                if (o.equals(items[i])) {
                    removeAt(i);
                    return true;
                }
                if (++i == items.length) i = 0;
            }
            return false;
        }
    }

    private void removeAt(int removeIndex) {
        if (removeIndex == takeIndex) {
            dequeue();
            return;
        }
        int i = removeIndex;
        for (;;) {
            int next = i + 1 == items.length ? 0 : i + 1;
            if (next == putIndex) {
                items[i] = null;
                putIndex = i;
                break;
            }
            items[i] = items[next];
            i = next;
        }
        count--;
        lock.notifyAll();
    }

    public boolean contains(Object o) {
        if (o == null) return false;
        synchronized (lock) {
            for (int k = 0, i = takeIndex; k < count; k++) {
                if (o.equals(items[i])) return true;
                if (++i == items.length) i = 0;
            }
            return false;
        }
    }

    public Object[] toArray() {
        synchronized (lock) {
            Object[] a = new Object[count];
            for (int k = 0, i = takeIndex; k < count; k++) {
                a[k] = items[i];
                if (++i == items.length) i = 0;
            }
            return a;
        }
    }

    public String toString() { return java.util.Arrays.toString(toArray()); }

    public void clear() {
        synchronized (lock) {
            while (count > 0) dequeue();
        }
    }

    public int drainTo(Collection<? super E> c) { return drainTo(c, Integer.MAX_VALUE); }

    public int drainTo(Collection<? super E> c, int maxElements) {
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
        final Object[] snapshot = toArray();
        return new Iterator<E>() {
            int i = 0;
            public boolean hasNext() { return i < snapshot.length; }
            public E next() {
                if (i >= snapshot.length) throw new NoSuchElementException();
                return (E) snapshot[i++];
            }
        };
    }
}
