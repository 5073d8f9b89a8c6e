package java.util;

import java.util.function.Consumer;

/** A resizable circular array of elements (no nulls), as OpenJDK's. */
public class ArrayDeque<E> extends AbstractCollection<E> implements Deque<E>, Cloneable, java.io.Serializable {
    transient Object[] elements;
    transient int head;
    transient int tail;

    public ArrayDeque() { elements = new Object[16 + 1]; }
    public ArrayDeque(int numElements) { elements = new Object[(numElements < 1) ? 1 : (numElements == Integer.MAX_VALUE) ? Integer.MAX_VALUE : numElements + 1]; }
    public ArrayDeque(Collection<? extends E> c) {
        this(c.size());
        for (E e : c) addLast(e);
    }

    private void grow(int needed) {
        final int oldCapacity = elements.length;
        int jump = (oldCapacity < 64) ? oldCapacity + 2 : oldCapacity >> 1;
        int newCapacity = oldCapacity + Math.max(jump, needed);
        final Object[] es = elements = Arrays.copyOf(elements, newCapacity);
        if (tail < head || (tail == head && es[head] != null)) {
            int newSpace = newCapacity - oldCapacity;
            System.arraycopy(es, head, es, head + newSpace, oldCapacity - head);
            for (int i = head, to = (head += newSpace); i < to; i++) es[i] = null;
        }
    }

    static final int inc(int i, int modulus) {
        if (++i >= modulus) i = 0;
        return i;
    }

    static final int dec(int i, int modulus) {
        if (--i < 0) i = modulus - 1;
        return i;
    }

    static final int sub(int i, int j, int modulus) {
        if ((i -= j) < 0) i += modulus;
        return i;
    }

    public void addFirst(E e) {
        if (e == null) throw new NullPointerException();
        final Object[] es = elements;
        es[head = dec(head, es.length)] = e;
        if (head == tail) grow(1);
    }

    public void addLast(E e) {
        if (e == null) throw new NullPointerException();
        final Object[] es = elements;
        es[tail] = e;
        if (head == (tail = inc(tail, es.length))) grow(1);
    }

    public boolean offerFirst(E e) { addFirst(e); return true; }
    public boolean offerLast(E e) { addLast(e); return true; }

    public E removeFirst() {
        E e = pollFirst();
        if (e == null) throw new NoSuchElementException();
        return e;
    }

    public E removeLast() {
        E e = pollLast();
        if (e == null) throw new NoSuchElementException();
        return e;
    }

    public E pollFirst() {
        final Object[] es = elements;
        final int h = head;
        E e = (E) es[h];
        if (e != null) {
            es[h] = null;
            head = inc(h, es.length);
        }
        return e;
    }

    public E pollLast() {
        final Object[] es = elements;
        final int t = dec(tail, es.length);
        E e = (E) es[t];
        if (e != null) es[tail = t] = null;
        return e;
    }

    public E getFirst() {
        E e = (E) elements[head];
        if (e == null) throw new NoSuchElementException();
        return e;
    }

    public E getLast() {
        final Object[] es = elements;
        E e = (E) es[dec(tail, es.length)];
        if (e == null) throw new NoSuchElementException();
        return e;
    }

    public E peekFirst() { return (E) elements[head]; }
    public E peekLast() {
        final Object[] es = elements;
        return (E) es[dec(tail, es.length)];
    }

    public boolean removeFirstOccurrence(Object o) {
        if (o != null) {
            final Object[] es = elements;
            for (int i = head, end = tail, to = (i <= end) ? end : es.length; ; i = 0, to = end) {
                for (; i < to; i++) {
                    if (o.equals(es[i])) {
                        delete(i);
                        return true;
                    }
                }
                if (to == end) break;
            }
        }
        return false;
    }

    public boolean removeLastOccurrence(Object o) {
        if (o != null) {
            final Object[] es = elements;
            for (int i = tail, end = head, to = (i >= end) ? end : 0; ; i = es.length, to = end) {
                for (i--; i > to - 1; i--) {
                    if (o.equals(es[i])) {
                        delete(i);
                        return true;
                    }
                }
                if (to == end) break;
            }
        }
        return false;
    }

    public boolean add(E e) { addLast(e); return true; }
    public boolean offer(E e) { return offerLast(e); }
    public E remove() { return removeFirst(); }
    public E poll() { return pollFirst(); }
    public E element() { return getFirst(); }
    public E peek() { return peekFirst(); }
    public void push(E e) { addFirst(e); }
    public E pop() { return removeFirst(); }

    boolean delete(int i) {
        final Object[] es = elements;
        final int capacity = es.length;
        final int h = head, t = tail;
        final int front = sub(i, h, capacity);
        final int back = sub(t, i, capacity) - 1;
        if (front < back) {
            if (h <= i) {
                System.arraycopy(es, h, es, h + 1, front);
            } else {
                System.arraycopy(es, 0, es, 1, i);
                es[0] = es[capacity - 1];
                System.arraycopy(es, h, es, h + 1, front - (i + 1));
            }
            es[h] = null;
            head = inc(h, capacity);
            return false;
        } else {
            tail = dec(t, capacity);
            if (i <= tail) {
                System.arraycopy(es, i + 1, es, i, back);
            } else {
                System.arraycopy(es, i + 1, es, i, capacity - (i + 1));
                es[capacity - 1] = es[0];
                System.arraycopy(es, 1, es, 0, t - 1);
            }
            es[tail] = null;
            return true;
        }
    }

    public int size() { return sub(tail, head, elements.length); }
    public boolean isEmpty() { return head == tail; }

    public Iterator<E> iterator() { return new DeqIterator(); }

    public Iterator<E> descendingIterator() { return new DescendingIterator(); }

    private class DeqIterator implements Iterator<E> {
        int cursor;
        int remaining = size();
        int lastRet = -1;

        DeqIterator() { cursor = head; }

        public final boolean hasNext() { return remaining > 0; }

        public E next() {
            if (remaining <= 0) throw new NoSuchElementException();
            final Object[] es = elements;
            E e = (E) es[cursor];
            if (e == null) throw new ConcurrentModificationException();
            cursor = inc(lastRet = cursor, es.length);
            remaining--;
            return e;
        }

        void postDelete(boolean leftShifted) {
            if (leftShifted) cursor = dec(cursor, elements.length);
        }

        public final void remove() {
            if (lastRet < 0) throw new IllegalStateException();
            postDelete(delete(lastRet));
            lastRet = -1;
        }
    }

    private class DescendingIterator extends DeqIterator {
        DescendingIterator() { cursor = dec(tail, elements.length); }

        public final E next() {
            if (remaining <= 0) throw new NoSuchElementException();
            final Object[] es = elements;
            E e = (E) es[cursor];
            if (e == null) throw new ConcurrentModificationException();
            cursor = dec(lastRet = cursor, es.length);
            remaining--;
            return e;
        }

        void postDelete(boolean leftShifted) {
            if (!leftShifted) cursor = inc(cursor, elements.length);
        }
    }

    public boolean contains(Object o) {
        if (o != null) {
            for (E e : this) if (o.equals(e)) return true;
        }
        return false;
    }

    public boolean remove(Object o) { return removeFirstOccurrence(o); }

    public void clear() {
        final Object[] es = elements;
        for (int i = 0; i < es.length; i++) es[i] = null;
        head = tail = 0;
    }

    public Object[] toArray() {
        Object[] a = new Object[size()];
        int k = 0;
        for (E e : this) a[k++] = e;
        return a;
    }

    public ArrayDeque<E> clone() {
        try {
            ArrayDeque<E> result = (ArrayDeque<E>) super.clone();
            result.elements = Arrays.copyOf(elements, elements.length);
            return result;
        } catch (CloneNotSupportedException e) {
            throw new AssertionError();
        }
    }

    public void forEach(Consumer<? super E> action) {
        Objects.requireNonNull(action);
        for (E e : this) action.accept(e);
    }
}
