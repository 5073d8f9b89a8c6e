package java.util.concurrent;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.List;
import java.util.ListIterator;
import java.util.NoSuchElementException;
import java.util.RandomAccess;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * A thread-safe list whose every change copies the array: writers copy, change and publish a
 * new array under one monitor (fastpath's); readers and iterators read whichever array was
 * published last (a volatile read) without locking, so an iterator sees the list as it was when
 * made, never throws ConcurrentModificationException, and cannot change the list.
 */
public class CopyOnWriteArrayList<E> implements List<E>, RandomAccess, Cloneable, java.io.Serializable {
    private final transient Object lock = new Object();
    private transient volatile Object[] array;

    public CopyOnWriteArrayList() { array = new Object[0]; }

    public CopyOnWriteArrayList(Collection<? extends E> c) { array = Arrays.copyOf(c.toArray(), c.size(), Object[].class); }

    public CopyOnWriteArrayList(E[] toCopyIn) { array = Arrays.copyOf(toCopyIn, toCopyIn.length, Object[].class); }

    final Object[] getArray() { return array; }

    public int size() { return array.length; }
    public boolean isEmpty() { return array.length == 0; }

    private static int indexOf(Object o, Object[] es, int from, int to) {
        for (int i = from; i < to; i++) {
            if (o == null ? es[i] == null : o.equals(es[i])) return i;
        }
        return -1;
    }

    private static int lastIndexOf(Object o, Object[] es, int from) {
        for (int i = from; i >= 0; i--) {
            if (o == null ? es[i] == null : o.equals(es[i])) return i;
        }
        return -1;
    }

    public boolean contains(Object o) { return indexOf(o) >= 0; }
    public int indexOf(Object o) {
        Object[] es = array;
        return indexOf(o, es, 0, es.length);
    }
    public int indexOf(E e, int index) {
        Object[] es = array;
        return indexOf(e, es, index, es.length);
    }
    public int lastIndexOf(Object o) {
        Object[] es = array;
        return lastIndexOf(o, es, es.length - 1);
    }
    public int lastIndexOf(E e, int index) { return lastIndexOf(e, array, index); }

    public boolean containsAll(Collection<?> c) {
        Object[] es = array;
        for (Object e : c) {
            if (indexOf(e, es, 0, es.length) < 0) return false;
        }
        return true;
    }

    public Object[] toArray() { return array.clone(); }

    public <T> T[] toArray(T[] a) {
        Object[] es = array;
        if (a.length < es.length) return (T[]) Arrays.copyOf(es, es.length, a.getClass());
        System.arraycopy(es, 0, a, 0, es.length);
        if (a.length > es.length) a[es.length] = null;
        return a;
    }

    public E get(int index) { return (E) array[index]; }

    public E set(int index, E element) {
        synchronized (lock) {
            Object[] es = array;
            E old = (E) es[index];
            if (old != element) {
                es = es.clone();
                es[index] = element;
            }
            array = es;
            return old;
        }
    }

    public boolean add(E e) {
        synchronized (lock) {
            Object[] es = array;
            Object[] copy = Arrays.copyOf(es, es.length + 1);
            copy[es.length] = e;
            array = copy;
            return true;
        }
    }

    public void add(int index, E element) {
        synchronized (lock) {
            Object[] es = array;
            int len = es.length;
            if (index > len || index < 0) throw new IndexOutOfBoundsException("Index: " + index + ", Size: " + len);
            Object[] copy = new Object[len + 1];
            System.arraycopy(es, 0, copy, 0, index);
            System.arraycopy(es, index, copy, index + 1, len - index);
            copy[index] = element;
            array = copy;
        }
    }

    public E remove(int index) {
        synchronized (lock) {
            Object[] es = array;
            int len = es.length;
            E old = (E) es[index];
            Object[] copy = new Object[len - 1];
            System.arraycopy(es, 0, copy, 0, index);
            System.arraycopy(es, index + 1, copy, index, len - index - 1);
            array = copy;
            return old;
        }
    }

    public boolean remove(Object o) {
        synchronized (lock) {
            Object[] es = array;
            int i = indexOf(o, es, 0, es.length);
            if (i < 0) return false;
            remove(i);
            return true;
        }
    }

    /** Adds `e` unless present; true if added. */
    public boolean addIfAbsent(E e) {
        synchronized (lock) {
            Object[] es = array;
            if (indexOf(e, es, 0, es.length) >= 0) return false;
            add(e);
            return true;
        }
    }

    public int addAllAbsent(Collection<? extends E> c) {
        synchronized (lock) {
            int added = 0;
            for (E e : c) {
                if (addIfAbsent(e)) added++;
            }
            return added;
        }
    }

    public boolean addAll(Collection<? extends E> c) {
        Object[] cs = c.toArray();
        if (cs.length == 0) return false;
        synchronized (lock) {
            Object[] es = array;
            Object[] copy = Arrays.copyOf(es, es.length + cs.length);
            System.arraycopy(cs, 0, copy, es.length, cs.length);
            array = copy;
            return true;
        }
    }

    public boolean addAll(int index, Collection<? extends E> c) {
        Object[] cs = c.toArray();
        synchronized (lock) {
            Object[] es = array;
            int len = es.length;
            if (index > len || index < 0) throw new IndexOutOfBoundsException("Index: " + index + ", Size: " + len);
            if (cs.length == 0) return false;
            Object[] copy = new Object[len + cs.length];
            System.arraycopy(es, 0, copy, 0, index);
            System.arraycopy(cs, 0, copy, index, cs.length);
            System.arraycopy(es, index, copy, index + cs.length, len - index);
            array = copy;
            return true;
        }
    }

    public boolean removeIf(Predicate<? super E> filter) {
        if (filter == null) throw new NullPointerException();
        synchronized (lock) {
            Object[] es = array;
            Object[] kept = new Object[es.length];
            int n = 0;
            for (Object e : es) {
                if (!filter.test((E) e)) kept[n++] = e;
            }
            if (n == es.length) return false;
            array = Arrays.copyOf(kept, n);
            return true;
        }
    }

    public boolean removeAll(final Collection<?> c) {
        if (c == null) throw new NullPointerException();
        return removeIf(new Predicate<E>() {
            public boolean test(E e) { return c.contains(e); }
        });
    }

    public boolean retainAll(final Collection<?> c) {
        if (c == null) throw new NullPointerException();
        return removeIf(new Predicate<E>() {
            public boolean test(E e) { return !c.contains(e); }
        });
    }

    public void replaceAll(UnaryOperator<E> operator) {
        if (operator == null) throw new NullPointerException();
        synchronized (lock) {
            Object[] es = array.clone();
            for (int i = 0; i < es.length; i++) es[i] = operator.apply((E) es[i]);
            array = es;
        }
    }

    public void sort(Comparator<? super E> c) {
        synchronized (lock) {
            Object[] es = array.clone();
            Arrays.sort(es, (Comparator<Object>) c);
            array = es;
        }
    }

    public void clear() {
        synchronized (lock) {
            array = new Object[0];
        }
    }

    public void forEach(java.util.function.Consumer<? super E> action) {
        if (action == null) throw new NullPointerException();
        for (Object e : array) action.accept((E) e);
    }

    public Iterator<E> iterator() { return new Snapshot<E>(array, 0); }
    public ListIterator<E> listIterator() { return new Snapshot<E>(array, 0); }
    public ListIterator<E> listIterator(int index) {
        Object[] es = array;
        if (index < 0 || index > es.length) throw new IndexOutOfBoundsException("Index: " + index);
        return new Snapshot<E>(es, index);
    }

    /** An iterator over one published array; it cannot change the list. */
    static final class Snapshot<E> implements ListIterator<E> {
        private final Object[] snapshot;
        private int cursor;

        Snapshot(Object[] es, int start) {
            snapshot = es;
            cursor = start;
        }

        public boolean hasNext() { return cursor < snapshot.length; }
        public boolean hasPrevious() { return cursor > 0; }
        public E next() {
            if (cursor >= snapshot.length) throw new NoSuchElementException();
            return (E) snapshot[cursor++];
        }
        public E previous() {
            if (cursor <= 0) throw new NoSuchElementException();
            return (E) snapshot[--cursor];
        }
        public int nextIndex() { return cursor; }
        public int previousIndex() { return cursor - 1; }
        public void remove() { throw new UnsupportedOperationException(); }
        public void set(E e) { throw new UnsupportedOperationException(); }
        public void add(E e) { throw new UnsupportedOperationException(); }
    }

    /**
     * A view of [from, to) of the list as it is while the view is used: a change to the list
     * not made through this view makes the view throw ConcurrentModificationException.
     */
    public List<E> subList(int fromIndex, int toIndex) {
        synchronized (lock) {
            Object[] es = array;
            if (fromIndex < 0 || toIndex > es.length || fromIndex > toIndex) throw new IndexOutOfBoundsException();
            return new SubList(es, fromIndex, toIndex - fromIndex);
        }
    }

    private final class SubList extends AbstractList<E> implements RandomAccess {
        private final int offset;
        private int size;
        private Object[] expected;

        SubList(Object[] es, int offset, int size) {
            this.expected = es;
            this.offset = offset;
            this.size = size;
        }

        private void check() {
            if (array != expected) throw new ConcurrentModificationException();
        }

        private void checkIndex(int index) {
            if (index < 0 || index >= size) throw new IndexOutOfBoundsException("Index: " + index + ", Size: " + size);
        }

        public int size() {
            synchronized (lock) {
                check();
                return size;
            }
        }

        public E get(int index) {
            synchronized (lock) {
                checkIndex(index);
                check();
                return (E) expected[offset + index];
            }
        }

        public E set(int index, E element) {
            synchronized (lock) {
                checkIndex(index);
                check();
                E old = CopyOnWriteArrayList.this.set(offset + index, element);
                expected = array;
                return old;
            }
        }

        public void add(int index, E element) {
            synchronized (lock) {
                check();
                if (index < 0 || index > size) throw new IndexOutOfBoundsException("Index: " + index + ", Size: " + size);
                CopyOnWriteArrayList.this.add(offset + index, element);
                expected = array;
                size++;
            }
        }

        public E remove(int index) {
            synchronized (lock) {
                checkIndex(index);
                check();
                E old = CopyOnWriteArrayList.this.remove(offset + index);
                expected = array;
                size--;
                return old;
            }
        }

        public Iterator<E> iterator() { return listIterator(0); }

        public ListIterator<E> listIterator(int index) {
            synchronized (lock) {
                check();
                if (index < 0 || index > size) throw new IndexOutOfBoundsException("Index: " + index + ", Size: " + size);
                return new Snapshot<E>(Arrays.copyOfRange(expected, offset, offset + size), index);
            }
        }
    }

    public boolean equals(Object o) {
        if (o == this) return true;
        if (!(o instanceof List)) return false;
        Object[] es = array;
        Iterator<?> it = ((List<?>) o).iterator();
        for (Object e : es) {
            if (!it.hasNext()) return false;
            Object x = it.next();
            if (e == null ? x != null : !e.equals(x)) return false;
        }
        return !it.hasNext();
    }

    public int hashCode() {
        int h = 1;
        for (Object e : array) h = 31 * h + (e == null ? 0 : e.hashCode());
        return h;
    }

    public String toString() { return Arrays.toString(array); }

    public Object clone() { return new CopyOnWriteArrayList<E>((E[]) array); }
}
