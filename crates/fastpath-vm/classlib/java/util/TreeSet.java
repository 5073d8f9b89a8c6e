package java.util;

/** A sorted set on a TreeMap. The range views are snapshots here, not live views. */
public class TreeSet<E> extends AbstractSet<E> implements NavigableSet<E>, Cloneable, java.io.Serializable {
    private transient TreeMap<E, Object> m;
    private static final Object PRESENT = new Object();

    public TreeSet() { m = new TreeMap<E, Object>(); }
    public TreeSet(Comparator<? super E> comparator) { m = new TreeMap<E, Object>(comparator); }
    public TreeSet(Collection<? extends E> c) {
        this();
        addAll(c);
    }
    public TreeSet(SortedSet<E> s) {
        this(s.comparator());
        addAll(s);
    }

    public Iterator<E> iterator() { return m.keySet().iterator(); }
    public Iterator<E> descendingIterator() { return descendingSet().iterator(); }
    public NavigableSet<E> descendingSet() {
        TreeSet<E> s = new TreeSet<E>(Collections.reverseOrder(m.comparator()));
        s.addAll(this);
        return s;
    }
    public int size() { return m.size(); }
    public boolean isEmpty() { return m.isEmpty(); }
    public boolean contains(Object o) { return m.containsKey(o); }
    public boolean add(E e) { return m.put(e, PRESENT) == null; }
    public boolean remove(Object o) { return m.remove(o) == PRESENT; }
    public void clear() { m.clear(); }
    public Comparator<? super E> comparator() { return m.comparator(); }
    public E first() { return m.firstKey(); }
    public E last() { return m.lastKey(); }
    public E lower(E e) { return m.lowerKey(e); }
    public E floor(E e) { return m.floorKey(e); }
    public E ceiling(E e) { return m.ceilingKey(e); }
    public E higher(E e) { return m.higherKey(e); }
    public E pollFirst() {
        Map.Entry<E, ?> e = m.pollFirstEntry();
        return (e == null) ? null : e.getKey();
    }
    public E pollLast() {
        Map.Entry<E, ?> e = m.pollLastEntry();
        return (e == null) ? null : e.getKey();
    }
    private TreeSet<E> of(SortedMap<E, Object> sub) {
        TreeSet<E> s = new TreeSet<E>(m.comparator());
        s.addAll(sub.keySet());
        return s;
    }
    public SortedSet<E> subSet(E fromElement, E toElement) { return of(m.subMap(fromElement, toElement)); }
    public SortedSet<E> headSet(E toElement) { return of(m.headMap(toElement)); }
    public SortedSet<E> tailSet(E fromElement) { return of(m.tailMap(fromElement)); }
    public Object clone() {
        TreeSet<E> s = new TreeSet<E>(m.comparator());
        s.addAll(this);
        return s;
    }
}
