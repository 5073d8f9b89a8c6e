package java.util;

/**
 * A red-black tree (Cormen et al.'s algorithms) ordered by the keys' natural order or a
 * comparator. The range views (headMap, tailMap, subMap, descendingMap) are snapshots here, not
 * live views.
 */
public class TreeMap<K, V> extends AbstractMap<K, V> implements NavigableMap<K, V>, Cloneable, java.io.Serializable {
    private final Comparator<? super K> comparator;
    private transient Entry<K, V> root;
    private transient int size = 0;
    private transient int modCount = 0;

    private static final boolean RED = false;
    private static final boolean BLACK = true;

    static final class Entry<K, V> implements Map.Entry<K, V> {
        K key;
        V value;
        Entry<K, V> left, right, parent;
        boolean color = BLACK;

        Entry(K key, V value, Entry<K, V> parent) {
            this.key = key;
            this.value = value;
            this.parent = parent;
        }
        public K getKey() { return key; }
        public V getValue() { return value; }
        public V setValue(V value) {
            V oldValue = this.value;
            this.value = value;
            return oldValue;
        }
        public boolean equals(Object o) {
            if (!(o instanceof Map.Entry)) return false;
            Map.Entry<?, ?> e = (Map.Entry<?, ?>) o;
            return Objects.equals(key, e.getKey()) && Objects.equals(value, e.getValue());
        }
        public int hashCode() {
            int keyHash = (key == null ? 0 : key.hashCode());
            int valueHash = (value == null ? 0 : value.hashCode());
            return keyHash ^ valueHash;
        }
        public String toString() { return key + "=" + value; }
    }

    public TreeMap() { comparator = null; }
    public TreeMap(Comparator<? super K> comparator) { this.comparator = comparator; }
    public TreeMap(Map<? extends K, ? extends V> m) {
        comparator = null;
        putAll(m);
    }
    public TreeMap(SortedMap<K, ? extends V> m) {
        comparator = m.comparator();
        putAll(m);
    }

    final int compare(Object k1, Object k2) {
        return comparator == null ? ((Comparable<? super K>) k1).compareTo((K) k2) : comparator.compare((K) k1, (K) k2);
    }

    public int size() { return size; }
    public Comparator<? super K> comparator() { return comparator; }

    final Entry<K, V> getEntry(Object key) {
        if (comparator == null && key == null) throw new NullPointerException();
        Entry<K, V> p = root;
        while (p != null) {
            int cmp = compare(key, p.key);
            if (cmp < 0) p = p.left;
            else if (cmp > 0) p = p.right;
            else return p;
        }
        return null;
    }

    public boolean containsKey(Object key) { return getEntry(key) != null; }

    public V get(Object key) {
        Entry<K, V> p = getEntry(key);
        return (p == null ? null : p.value);
    }

    public V put(K key, V value) {
        Entry<K, V> t = root;
        if (t == null) {
            compare(key, key);
            root = new Entry<K, V>(key, value, null);
            size = 1;
            modCount++;
            return null;
        }
        int cmp;
        Entry<K, V> parent;
        do {
            parent = t;
            cmp = compare(key, t.key);
            if (cmp < 0) t = t.left;
            else if (cmp > 0) t = t.right;
            else return t.setValue(value);
        } while (t != null);
        Entry<K, V> e = new Entry<K, V>(key, value, parent);
        if (cmp < 0) parent.left = e;
        else parent.right = e;
        fixAfterInsertion(e);
        size++;
        modCount++;
        return null;
    }

    public V remove(Object key) {
        Entry<K, V> p = getEntry(key);
        if (p == null) return null;
        V oldValue = p.value;
        deleteEntry(p);
        return oldValue;
    }

    public void clear() {
        modCount++;
        size = 0;
        root = null;
    }

    public Object clone() {
        TreeMap<K, V> clone = new TreeMap<K, V>(comparator);
        clone.putAll(this);
        return clone;
    }

    final Entry<K, V> getFirstEntry() {
        Entry<K, V> p = root;
        if (p != null) while (p.left != null) p = p.left;
        return p;
    }

    final Entry<K, V> getLastEntry() {
        Entry<K, V> p = root;
        if (p != null) while (p.right != null) p = p.right;
        return p;
    }

    static <K, V> Entry<K, V> successor(Entry<K, V> t) {
        if (t == null) return null;
        else if (t.right != null) {
            Entry<K, V> p = t.right;
            while (p.left != null) p = p.left;
            return p;
        } else {
            Entry<K, V> p = t.parent;
            Entry<K, V> ch = t;
            while (p != null && ch == p.right) {
                ch = p;
                p = p.parent;
            }
            return p;
        }
    }

    static <K, V> Entry<K, V> predecessor(Entry<K, V> t) {
        if (t == null) return null;
        else if (t.left != null) {
            Entry<K, V> p = t.left;
            while (p.right != null) p = p.right;
            return p;
        } else {
            Entry<K, V> p = t.parent;
            Entry<K, V> ch = t;
            while (p != null && ch == p.left) {
                ch = p;
                p = p.parent;
            }
            return p;
        }
    }

    private static <K, V> boolean colorOf(Entry<K, V> p) { return (p == null ? BLACK : p.color); }
    private static <K, V> Entry<K, V> parentOf(Entry<K, V> p) { return (p == null ? null : p.parent); }
    private static <K, V> void setColor(Entry<K, V> p, boolean c) { if (p != null) p.color = c; }
    private static <K, V> Entry<K, V> leftOf(Entry<K, V> p) { return (p == null) ? null : p.left; }
    private static <K, V> Entry<K, V> rightOf(Entry<K, V> p) { return (p == null) ? null : p.right; }

    private void rotateLeft(Entry<K, V> p) {
        if (p != null) {
            Entry<K, V> r = p.right;
            p.right = r.left;
            if (r.left != null) r.left.parent = p;
            r.parent = p.parent;
            if (p.parent == null) root = r;
            else if (p.parent.left == p) p.parent.left = r;
            else p.parent.right = r;
            r.left = p;
            p.parent = r;
        }
    }

    private void rotateRight(Entry<K, V> p) {
        if (p != null) {
            Entry<K, V> l = p.left;
            p.left = l.right;
            if (l.right != null) l.right.parent = p;
            l.parent = p.parent;
            if (p.parent == null) root = l;
            else if (p.parent.right == p) p.parent.right = l;
            else p.parent.left = l;
            l.right = p;
            p.parent = l;
        }
    }

    private void fixAfterInsertion(Entry<K, V> x) {
        x.color = RED;
        while (x != null && x != root && x.parent.color == RED) {
            if (parentOf(x) == leftOf(parentOf(parentOf(x)))) {
                Entry<K, V> y = rightOf(parentOf(parentOf(x)));
                if (colorOf(y) == RED) {
                    setColor(parentOf(x), BLACK);
                    setColor(y, BLACK);
                    setColor(parentOf(parentOf(x)), RED);
                    x = parentOf(parentOf(x));
                } else {
                    if (x == rightOf(parentOf(x))) {
                        x = parentOf(x);
                        rotateLeft(x);
                    }
                    setColor(parentOf(x), BLACK);
                    setColor(parentOf(parentOf(x)), RED);
                    rotateRight(parentOf(parentOf(x)));
                }
            } else {
                Entry<K, V> y = leftOf(parentOf(parentOf(x)));
                if (colorOf(y) == RED) {
                    setColor(parentOf(x), BLACK);
                    setColor(y, BLACK);
                    setColor(parentOf(parentOf(x)), RED);
                    x = parentOf(parentOf(x));
                } else {
                    if (x == leftOf(parentOf(x))) {
                        x = parentOf(x);
                        rotateRight(x);
                    }
                    setColor(parentOf(x), BLACK);
                    setColor(parentOf(parentOf(x)), RED);
                    rotateLeft(parentOf(parentOf(x)));
                }
            }
        }
        root.color = BLACK;
    }

    private void deleteEntry(Entry<K, V> p) {
        modCount++;
        size--;
        if (p.left != null && p.right != null) {
            Entry<K, V> s = successor(p);
            p.key = s.key;
            p.value = s.value;
            p = s;
        }
        Entry<K, V> replacement = (p.left != null ? p.left : p.right);
        if (replacement != null) {
            replacement.parent = p.parent;
            if (p.parent == null) root = replacement;
            else if (p == p.parent.left) p.parent.left = replacement;
            else p.parent.right = replacement;
            p.left = p.right = p.parent = null;
            if (p.color == BLACK) fixAfterDeletion(replacement);
        } else if (p.parent == null) {
            root = null;
        } else {
            if (p.color == BLACK) fixAfterDeletion(p);
            if (p.parent != null) {
                if (p == p.parent.left) p.parent.left = null;
                else if (p == p.parent.right) p.parent.right = null;
                p.parent = null;
            }
        }
    }

    private void fixAfterDeletion(Entry<K, V> x) {
        while (x != root && colorOf(x) == BLACK) {
            if (x == leftOf(parentOf(x))) {
                Entry<K, V> sib = rightOf(parentOf(x));
                if (colorOf(sib) == RED) {
                    setColor(sib, BLACK);
                    setColor(parentOf(x), RED);
                    rotateLeft(parentOf(x));
                    sib = rightOf(parentOf(x));
                }
                if (colorOf(leftOf(sib)) == BLACK && colorOf(rightOf(sib)) == BLACK) {
                    setColor(sib, RED);
                    x = parentOf(x);
                } else {
                    if (colorOf(rightOf(sib)) == BLACK) {
                        setColor(leftOf(sib), BLACK);
                        setColor(sib, RED);
                        rotateRight(sib);
                        sib = rightOf(parentOf(x));
                    }
                    setColor(sib, colorOf(parentOf(x)));
                    setColor(parentOf(x), BLACK);
                    setColor(rightOf(sib), BLACK);
                    rotateLeft(parentOf(x));
                    x = root;
                }
            } else {
                Entry<K, V> sib = leftOf(parentOf(x));
                if (colorOf(sib) == RED) {
                    setColor(sib, BLACK);
                    setColor(parentOf(x), RED);
                    rotateRight(parentOf(x));
                    sib = leftOf(parentOf(x));
                }
                if (colorOf(rightOf(sib)) == BLACK && colorOf(leftOf(sib)) == BLACK) {
                    setColor(sib, RED);
                    x = parentOf(x);
                } else {
                    if (colorOf(leftOf(sib)) == BLACK) {
                        setColor(rightOf(sib), BLACK);
                        setColor(sib, RED);
                        rotateLeft(sib);
                        sib = leftOf(parentOf(x));
                    }
                    setColor(sib, colorOf(parentOf(x)));
                    setColor(parentOf(x), BLACK);
                    setColor(leftOf(sib), BLACK);
                    rotateRight(parentOf(x));
                    x = root;
                }
            }
        }
        setColor(x, BLACK);
    }

    /** The entry nearest `key`: `lo` and `inclusive` choose which side. */
    private Entry<K, V> near(K key, boolean below, boolean inclusive) {
        Entry<K, V> best = null;
        Entry<K, V> p = root;
        while (p != null) {
            int cmp = compare(key, p.key);
            if (cmp == 0 && inclusive) return p;
            if (below) {
                if (cmp > 0) { best = p; p = p.right; } else p = p.left;
            } else {
                if (cmp < 0) { best = p; p = p.left; } else p = p.right;
            }
        }
        return best;
    }

    private static <K, V> Map.Entry<K, V> export(Entry<K, V> e) {
        return e == null ? null : new AbstractMap.SimpleImmutableEntry<K, V>(e);
    }

    private static <K> K keyOrNull(Entry<K, ?> e) { return e == null ? null : e.key; }

    private static <K> K key(Entry<K, ?> e) {
        if (e == null) throw new NoSuchElementException();
        return e.key;
    }

    public K firstKey() { return key(getFirstEntry()); }
    public K lastKey() { return key(getLastEntry()); }
    public Map.Entry<K, V> firstEntry() { return export(getFirstEntry()); }
    public Map.Entry<K, V> lastEntry() { return export(getLastEntry()); }
    public Map.Entry<K, V> pollFirstEntry() {
        Entry<K, V> p = getFirstEntry();
        Map.Entry<K, V> result = export(p);
        if (p != null) deleteEntry(p);
        return result;
    }
    public Map.Entry<K, V> pollLastEntry() {
        Entry<K, V> p = getLastEntry();
        Map.Entry<K, V> result = export(p);
        if (p != null) deleteEntry(p);
        return result;
    }
    public Map.Entry<K, V> lowerEntry(K key) { return export(near(key, true, false)); }
    public K lowerKey(K key) { return keyOrNull(near(key, true, false)); }
    public Map.Entry<K, V> floorEntry(K key) { return export(near(key, true, true)); }
    public K floorKey(K key) { return keyOrNull(near(key, true, true)); }
    public Map.Entry<K, V> ceilingEntry(K key) { return export(near(key, false, true)); }
    public K ceilingKey(K key) { return keyOrNull(near(key, false, true)); }
    public Map.Entry<K, V> higherEntry(K key) { return export(near(key, false, false)); }
    public K higherKey(K key) { return keyOrNull(near(key, false, false)); }

    private TreeMap<K, V> range(K from, boolean fromIn, boolean hasFrom, K to, boolean toIn, boolean hasTo) {
        TreeMap<K, V> m = new TreeMap<K, V>(comparator);
        for (Entry<K, V> e = getFirstEntry(); e != null; e = successor(e)) {
            if (hasFrom) {
                int c = compare(e.key, from);
                if (c < 0 || (c == 0 && !fromIn)) continue;
            }
            if (hasTo) {
                int c = compare(e.key, to);
                if (c > 0 || (c == 0 && !toIn)) break;
            }
            m.put(e.key, e.value);
        }
        return m;
    }

    public NavigableMap<K, V> headMap(K toKey, boolean inclusive) { return range(null, false, false, toKey, inclusive, true); }
    public SortedMap<K, V> headMap(K toKey) { return headMap(toKey, false); }
    public NavigableMap<K, V> tailMap(K fromKey, boolean inclusive) { return range(fromKey, inclusive, true, null, false, false); }
    public SortedMap<K, V> tailMap(K fromKey) { return tailMap(fromKey, true); }
    public NavigableMap<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive) {
        return range(fromKey, fromInclusive, true, toKey, toInclusive, true);
    }
    public SortedMap<K, V> subMap(K fromKey, K toKey) { return subMap(fromKey, true, toKey, false); }

    public NavigableMap<K, V> descendingMap() {
        TreeMap<K, V> m = new TreeMap<K, V>(Collections.reverseOrder(comparator));
        m.putAll(this);
        return m;
    }

    public NavigableSet<K> navigableKeySet() {
        TreeSet<K> s = new TreeSet<K>(comparator);
        s.addAll(keySet());
        return s;
    }

    public NavigableSet<K> descendingKeySet() { return descendingMap().navigableKeySet(); }

    abstract class PrivateEntryIterator<T> implements Iterator<T> {
        Entry<K, V> next;
        Entry<K, V> lastReturned;
        int expectedModCount;

        PrivateEntryIterator(Entry<K, V> first) {
            expectedModCount = modCount;
            lastReturned = null;
            next = first;
        }
        public final boolean hasNext() { return next != null; }
        final Entry<K, V> nextEntry() {
            Entry<K, V> e = next;
            if (e == null) throw new NoSuchElementException();
            if (modCount != expectedModCount) throw new ConcurrentModificationException();
            next = successor(e);
            lastReturned = e;
            return e;
        }
        public void remove() {
            if (lastReturned == null) throw new IllegalStateException();
            if (modCount != expectedModCount) throw new ConcurrentModificationException();
            if (lastReturned.left != null && lastReturned.right != null) next = lastReturned;
            deleteEntry(lastReturned);
            expectedModCount = modCount;
            lastReturned = null;
        }
    }

    public Set<Map.Entry<K, V>> entrySet() {
        return new AbstractSet<Map.Entry<K, V>>() {
            public Iterator<Map.Entry<K, V>> iterator() {
                return new PrivateEntryIterator<Map.Entry<K, V>>(getFirstEntry()) {
                    public Map.Entry<K, V> next() { return nextEntry(); }
                };
            }
            public int size() { return TreeMap.this.size(); }
            public void clear() { TreeMap.this.clear(); }
        };
    }

    public Set<K> keySet() {
        return new AbstractSet<K>() {
            public Iterator<K> iterator() {
                return new PrivateEntryIterator<K>(getFirstEntry()) {
                    public K next() { return nextEntry().key; }
                };
            }
            public int size() { return TreeMap.this.size(); }
            public boolean contains(Object o) { return containsKey(o); }
            public boolean remove(Object o) {
                Entry<K, V> e = getEntry(o);
                if (e == null) return false;
                deleteEntry(e);
                return true;
            }
            public void clear() { TreeMap.this.clear(); }
        };
    }

    public Collection<V> values() {
        return new AbstractCollection<V>() {
            public Iterator<V> iterator() {
                return new PrivateEntryIterator<V>(getFirstEntry()) {
                    public V next() { return nextEntry().value; }
                };
            }
            public int size() { return TreeMap.this.size(); }
            public void clear() { TreeMap.this.clear(); }
        };
    }
}
