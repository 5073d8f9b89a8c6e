package java.util;

import java.util.function.BiFunction;

public class Collections {
    private Collections() {}

    public static <T extends Comparable<? super T>> void sort(List<T> list) { list.sort(null); }
    public static <T> void sort(List<T> list, Comparator<? super T> c) { list.sort(c); }

    public static <T> int binarySearch(List<? extends Comparable<? super T>> list, T key) {
        int low = 0, high = list.size() - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            int cmp = list.get(mid).compareTo(key);
            if (cmp < 0) low = mid + 1;
            else if (cmp > 0) high = mid - 1;
            else return mid;
        }
        return -(low + 1);
    }

    public static void reverse(List<?> list) {
        List<Object> l = (List<Object>) list;
        for (int i = 0, mid = l.size() >> 1, j = l.size() - 1; i < mid; i++, j--) l.set(i, l.set(j, l.get(i)));
    }

    public static void shuffle(List<?> list) { shuffle(list, new Random()); }

    public static void shuffle(List<?> list, Random rnd) {
        List<Object> l = (List<Object>) list;
        for (int i = l.size(); i > 1; i--) swap(l, i - 1, rnd.nextInt(i));
    }

    public static void swap(List<?> list, int i, int j) {
        final List<Object> l = (List<Object>) list;
        l.set(i, l.set(j, l.get(i)));
    }

    public static <T> void fill(List<? super T> list, T obj) {
        for (int i = 0; i < list.size(); i++) list.set(i, obj);
    }

    public static <T extends Object & Comparable<? super T>> T min(Collection<? extends T> coll) {
        Iterator<? extends T> i = coll.iterator();
        T candidate = i.next();
        while (i.hasNext()) {
            T next = i.next();
            if (next.compareTo(candidate) < 0) candidate = next;
        }
        return candidate;
    }

    public static <T> T min(Collection<? extends T> coll, Comparator<? super T> comp) {
        if (comp == null) return (T) min((Collection) coll);
        Iterator<? extends T> i = coll.iterator();
        T candidate = i.next();
        while (i.hasNext()) {
            T next = i.next();
            if (comp.compare(next, candidate) < 0) candidate = next;
        }
        return candidate;
    }

    public static <T extends Object & Comparable<? super T>> T max(Collection<? extends T> coll) {
        Iterator<? extends T> i = coll.iterator();
        T candidate = i.next();
        while (i.hasNext()) {
            T next = i.next();
            if (next.compareTo(candidate) > 0) candidate = next;
        }
        return candidate;
    }

    public static <T> T max(Collection<? extends T> coll, Comparator<? super T> comp) {
        if (comp == null) return (T) max((Collection) coll);
        Iterator<? extends T> i = coll.iterator();
        T candidate = i.next();
        while (i.hasNext()) {
            T next = i.next();
            if (comp.compare(next, candidate) > 0) candidate = next;
        }
        return candidate;
    }

    public static int frequency(Collection<?> c, Object o) {
        int result = 0;
        for (Object e : c) if (Objects.equals(o, e)) result++;
        return result;
    }

    public static boolean disjoint(Collection<?> c1, Collection<?> c2) {
        for (Object e : c1) if (c2.contains(e)) return false;
        return true;
    }

    public static <T> boolean addAll(Collection<? super T> c, T... elements) {
        boolean result = false;
        for (T element : elements) result |= c.add(element);
        return result;
    }

    public static <T> List<T> nCopies(int n, T o) {
        if (n < 0) throw new IllegalArgumentException("List length = " + n);
        ArrayList<T> l = new ArrayList<T>(n);
        for (int i = 0; i < n; i++) l.add(o);
        return unmodifiableList(l);
    }

    public static void rotate(List<?> list, int distance) {
        int size = list.size();
        if (size == 0) return;
        distance = distance % size;
        if (distance < 0) distance += size;
        if (distance == 0) return;
        List<Object> l = (List<Object>) list;
        Object[] a = l.toArray();
        for (int i = 0; i < size; i++) l.set((i + distance) % size, a[i]);
    }

    static final class ReverseComparator implements Comparator<Comparable<Object>>, java.io.Serializable {
        static final ReverseComparator REVERSE_ORDER = new ReverseComparator();
        public int compare(Comparable<Object> c1, Comparable<Object> c2) { return c2.compareTo(c1); }
        public Comparator<Comparable<Object>> reversed() { return Comparator.naturalOrder(); }
    }

    public static <T> Comparator<T> reverseOrder() { return (Comparator<T>) ReverseComparator.REVERSE_ORDER; }

    public static <T> Comparator<T> reverseOrder(final Comparator<T> cmp) {
        if (cmp == null) return reverseOrder();
        return new Comparator<T>() {
            public int compare(T t1, T t2) { return cmp.compare(t2, t1); }
            public Comparator<T> reversed() { return cmp; }
        };
    }

    public static final List EMPTY_LIST = ImmutableCollections.listOf();
    public static final Set EMPTY_SET = ImmutableCollections.setOf();
    public static final Map EMPTY_MAP = ImmutableCollections.mapOf();

    public static final <T> List<T> emptyList() { return (List<T>) EMPTY_LIST; }
    public static final <T> Set<T> emptySet() { return (Set<T>) EMPTY_SET; }
    public static final <K, V> Map<K, V> emptyMap() { return (Map<K, V>) EMPTY_MAP; }
    public static <T> Iterator<T> emptyIterator() { return ((List<T>) EMPTY_LIST).iterator(); }

    public static <T> List<T> singletonList(T o) { return new UnmodifiableList<T>(new ArrayList<T>(Arrays.asList(o))); }
    public static <T> Set<T> singleton(T o) {
        LinkedHashSet<T> s = new LinkedHashSet<T>();
        s.add(o);
        return new UnmodifiableSet<T>(s);
    }
    public static <K, V> Map<K, V> singletonMap(K key, V value) {
        LinkedHashMap<K, V> m = new LinkedHashMap<K, V>();
        m.put(key, value);
        return new UnmodifiableMap<K, V>(m);
    }

    public static <E> Set<E> newSetFromMap(final Map<E, Boolean> map) {
        return new AbstractSet<E>() {
            public int size() { return map.size(); }
            public boolean contains(Object o) { return map.containsKey(o); }
            public boolean add(E e) { return map.put(e, Boolean.TRUE) == null; }
            public boolean remove(Object o) { return map.remove(o) != null; }
            public Iterator<E> iterator() { return map.keySet().iterator(); }
            public void clear() { map.clear(); }
        };
    }

    static class UnmodifiableCollection<E> implements Collection<E>, java.io.Serializable {
        final Collection<? extends E> c;
        UnmodifiableCollection(Collection<? extends E> c) {
            if (c == null) throw new NullPointerException();
            this.c = c;
        }
        public int size() { return c.size(); }
        public boolean isEmpty() { return c.isEmpty(); }
        public boolean contains(Object o) { return c.contains(o); }
        public Object[] toArray() { return c.toArray(); }
        public <T> T[] toArray(T[] a) { return c.toArray(a); }
        public String toString() { return c.toString(); }
        public Iterator<E> iterator() {
            final Iterator<? extends E> i = c.iterator();
            return new Iterator<E>() {
                public boolean hasNext() { return i.hasNext(); }
                public E next() { return i.next(); }
                public void remove() { throw new UnsupportedOperationException(); }
            };
        }
        public boolean add(E e) { throw new UnsupportedOperationException(); }
        public boolean remove(Object o) { throw new UnsupportedOperationException(); }
        public boolean containsAll(Collection<?> coll) { return c.containsAll(coll); }
        public boolean addAll(Collection<? extends E> coll) { throw new UnsupportedOperationException(); }
        public boolean removeAll(Collection<?> coll) { throw new UnsupportedOperationException(); }
        public boolean retainAll(Collection<?> coll) { throw new UnsupportedOperationException(); }
        public void clear() { throw new UnsupportedOperationException(); }
        public boolean removeIf(java.util.function.Predicate<? super E> filter) { throw new UnsupportedOperationException(); }
    }

    public static <T> Collection<T> unmodifiableCollection(Collection<? extends T> c) { return new UnmodifiableCollection<T>(c); }

    static class UnmodifiableSet<E> extends UnmodifiableCollection<E> implements Set<E>, java.io.Serializable {
        UnmodifiableSet(Set<? extends E> s) { super(s); }
        public boolean equals(Object o) { return o == this || c.equals(o); }
        public int hashCode() { return c.hashCode(); }
    }

    public static <T> Set<T> unmodifiableSet(Set<? extends T> s) { return new UnmodifiableSet<T>(s); }

    static class UnmodifiableList<E> extends UnmodifiableCollection<E> implements List<E> {
        final List<? extends E> list;
        UnmodifiableList(List<? extends E> list) {
            super(list);
            this.list = list;
        }
        public boolean equals(Object o) { return o == this || list.equals(o); }
        public int hashCode() { return list.hashCode(); }
        public E get(int index) { return list.get(index); }
        public E set(int index, E element) { throw new UnsupportedOperationException(); }
        public void add(int index, E element) { throw new UnsupportedOperationException(); }
        public E remove(int index) { throw new UnsupportedOperationException(); }
        public int indexOf(Object o) { return list.indexOf(o); }
        public int lastIndexOf(Object o) { return list.lastIndexOf(o); }
        public boolean addAll(int index, Collection<? extends E> c) { throw new UnsupportedOperationException(); }
        public void replaceAll(java.util.function.UnaryOperator<E> operator) { throw new UnsupportedOperationException(); }
        public void sort(Comparator<? super E> c) { throw new UnsupportedOperationException(); }
        public ListIterator<E> listIterator() { return listIterator(0); }
        public ListIterator<E> listIterator(final int index) {
            final ListIterator<? extends E> i = list.listIterator(index);
            return new ListIterator<E>() {
                public boolean hasNext() { return i.hasNext(); }
                public E next() { return i.next(); }
                public boolean hasPrevious() { return i.hasPrevious(); }
                public E previous() { return i.previous(); }
                public int nextIndex() { return i.nextIndex(); }
                public int previousIndex() { return i.previousIndex(); }
                public void remove() { throw new UnsupportedOperationException(); }
                public void set(E e) { throw new UnsupportedOperationException(); }
                public void add(E e) { throw new UnsupportedOperationException(); }
            };
        }
        public List<E> subList(int fromIndex, int toIndex) { return new UnmodifiableList<E>(list.subList(fromIndex, toIndex)); }
    }

    public static <T> List<T> unmodifiableList(List<? extends T> list) { return new UnmodifiableList<T>(list); }

    static class UnmodifiableMap<K, V> implements Map<K, V>, java.io.Serializable {
        private final Map<? extends K, ? extends V> m;
        UnmodifiableMap(Map<? extends K, ? extends V> m) {
            if (m == null) throw new NullPointerException();
            this.m = m;
        }
        public int size() { return m.size(); }
        public boolean isEmpty() { return m.isEmpty(); }
        public boolean containsKey(Object key) { return m.containsKey(key); }
        public boolean containsValue(Object val) { return m.containsValue(val); }
        public V get(Object key) { return m.get(key); }
        public V put(K key, V value) { throw new UnsupportedOperationException(); }
        public V remove(Object key) { throw new UnsupportedOperationException(); }
        public void putAll(Map<? extends K, ? extends V> m) { throw new UnsupportedOperationException(); }
        public void clear() { throw new UnsupportedOperationException(); }
        public Set<K> keySet() { return unmodifiableSet(m.keySet()); }
        public Set<Map.Entry<K, V>> entrySet() { return unmodifiableSet((Set<Map.Entry<K, V>>) (Set) m.entrySet()); }
        public Collection<V> values() { return unmodifiableCollection(m.values()); }
        public boolean equals(Object o) { return o == this || m.equals(o); }
        public int hashCode() { return m.hashCode(); }
        public String toString() { return m.toString(); }
        public V putIfAbsent(K key, V value) { throw new UnsupportedOperationException(); }
        public V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> f) { throw new UnsupportedOperationException(); }
    }

    public static <K, V> Map<K, V> unmodifiableMap(Map<? extends K, ? extends V> m) { return new UnmodifiableMap<K, V>(m); }

    public static <T> List<T> synchronizedList(List<T> list) { return new SynchronizedList<T>(list); }

    static class SynchronizedList<E> extends AbstractList<E> implements RandomAccess {
        final List<E> list;
        SynchronizedList(List<E> list) { this.list = list; }
        public synchronized E get(int index) { return list.get(index); }
        public synchronized E set(int index, E element) { return list.set(index, element); }
        public synchronized void add(int index, E element) { list.add(index, element); }
        public synchronized E remove(int index) { return list.remove(index); }
        public synchronized int size() { return list.size(); }
        public synchronized boolean add(E e) { return list.add(e); }
        public synchronized String toString() { return list.toString(); }
    }

    public static <K, V> Map<K, V> synchronizedMap(Map<K, V> m) { return new SynchronizedMap<K, V>(m); }

    static class SynchronizedMap<K, V> extends AbstractMap<K, V> {
        final Map<K, V> m;
        SynchronizedMap(Map<K, V> m) { this.m = m; }
        public synchronized int size() { return m.size(); }
        public synchronized V get(Object key) { return m.get(key); }
        public synchronized V put(K key, V value) { return m.put(key, value); }
        public synchronized V remove(Object key) { return m.remove(key); }
        public synchronized boolean containsKey(Object key) { return m.containsKey(key); }
        public synchronized Set<Map.Entry<K, V>> entrySet() { return m.entrySet(); }
        public synchronized String toString() { return m.toString(); }
    }
}
