package java.util;

/** A binary heap in an array, sifting as OpenJDK's does, so iteration order (the array's) matches. */
public class PriorityQueue<E> extends AbstractQueue<E> implements java.io.Serializable {
    private static final int DEFAULT_INITIAL_CAPACITY = 11;
    transient Object[] queue;
    int size;
    private final Comparator<? super E> comparator;
    transient int modCount;

    public PriorityQueue() { this(DEFAULT_INITIAL_CAPACITY, null); }
    public PriorityQueue(int initialCapacity) { this(initialCapacity, null); }
    public PriorityQueue(Comparator<? super E> comparator) { this(DEFAULT_INITIAL_CAPACITY, comparator); }
    public PriorityQueue(int initialCapacity, Comparator<? super E> comparator) {
        if (initialCapacity < 1) throw new IllegalArgumentException();
        this.queue = new Object[Math.max(1, initialCapacity)];
        this.comparator = comparator;
    }
    public PriorityQueue(Collection<? extends E> c) {
        this(DEFAULT_INITIAL_CAPACITY, null);
        for (E e : c) offer(e);
    }

    private void grow(int minCapacity) {
        int oldCapacity = queue.length;
        int newCapacity = oldCapacity + ((oldCapacity < 64) ? (oldCapacity + 2) : (oldCapacity >> 1));
        queue = Arrays.copyOf(queue, Math.max(newCapacity, minCapacity));
    }

    public boolean add(E e) { return offer(e); }

    public boolean offer(E e) {
        if (e == null) throw new NullPointerException();
        modCount++;
        int i = size;
        if (i >= queue.length) grow(i + 1);
        siftUp(i, e);
        size = i + 1;
        return true;
    }

    public E peek() { return (E) queue[0]; }

    private int indexOf(Object o) {
        if (o != null) {
            for (int i = 0; i < size; i++) if (o.equals(queue[i])) return i;
        }
        return -1;
    }

    public boolean remove(Object o) {
        int i = indexOf(o);
        if (i == -1) return false;
        removeAt(i);
        return true;
    }

    public boolean contains(Object o) { return indexOf(o) >= 0; }

    public Object[] toArray() { return Arrays.copyOf(queue, size); }

    public Iterator<E> iterator() {
        return new Iterator<E>() {
            int cursor;
            int lastRet = -1;
            int expectedModCount = modCount;
            public boolean hasNext() { return cursor < size; }
            public E next() {
                if (expectedModCount != modCount) throw new ConcurrentModificationException();
                if (cursor < size) return (E) queue[lastRet = cursor++];
                throw new NoSuchElementException();
            }
            public void remove() {
                if (lastRet < 0) throw new IllegalStateException();
                removeAt(lastRet);
                cursor = lastRet;
                lastRet = -1;
                expectedModCount = modCount;
            }
        };
    }

    public int size() { return size; }

    public void clear() {
        modCount++;
        for (int i = 0; i < size; i++) queue[i] = null;
        size = 0;
    }

    public E poll() {
        final Object[] es = queue;
        final E result = (E) es[0];
        if (result != null) {
            modCount++;
            final int n = --size;
            final E x = (E) es[n];
            es[n] = null;
            if (n > 0) siftDown(0, x, n);
        }
        return result;
    }

    E removeAt(int i) {
        final Object[] es = queue;
        modCount++;
        int s = --size;
        if (s == i) es[i] = null;
        else {
            E moved = (E) es[s];
            es[s] = null;
            siftDown(i, moved, s);
            if (es[i] == moved) {
                siftUp(i, moved);
                if (es[i] != moved) return moved;
            }
        }
        return null;
    }

    private int cmp(Object a, Object b) {
        return comparator == null ? ((Comparable<? super E>) a).compareTo((E) b) : comparator.compare((E) a, (E) b);
    }

    private void siftUp(int k, E x) {
        Object[] es = queue;
        while (k > 0) {
            int parent = (k - 1) >>> 1;
            Object e = es[parent];
            if (cmp(x, e) >= 0) break;
            es[k] = e;
            k = parent;
        }
        es[k] = x;
    }

    private void siftDown(int k, E x, int n) {
        Object[] es = queue;
        int half = n >>> 1;
        while (k < half) {
            int child = (k << 1) + 1;
            Object c = es[child];
            int right = child + 1;
            if (right < n && cmp(c, es[right]) > 0) c = es[child = right];
            if (cmp(x, c) <= 0) break;
            es[k] = c;
            k = child;
        }
        es[k] = x;
    }

    public Comparator<? super E> comparator() { return comparator; }
}
