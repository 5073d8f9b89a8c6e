package java.util;

/**
 * A red-black tree (Cormen et al.'s algorithms) ordered by the keys' natural order or a
 * comparator. The range and descending views (headMap, tailMap, subMap, descendingMap, and
 * their key sets) are live: a View is the tree seen between two optional bounds, in either
 * direction; reads and writes go to the tree, and a key outside the bounds cannot be put.
 */
public class TreeMap<K, V> extends AbstractMap<K, V> implements NavigableMap<K, V>, Cloneable, java.io.Serializable {
    private final Comparator<? super K> comparator;
    private transient Entry<K, V> root;
    private transient int size = 0;
    transient int modCount = 0;

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

    final void deleteEntry(Entry<K, V> p) {
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
    final Entry<K, V> near(Object key, boolean below, boolean inclusive) {
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

    static <K, V> Map.Entry<K, V> export(Entry<K, V> e) {
        return e == null ? null : new AbstractMap.SimpleImmutableEntry<K, V>(e);
    }

    static <K> K keyOrNull(Entry<K, ?> e) { return e == null ? null : e.key; }

    static <K> K key(Entry<K, ?> e) {
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

    public NavigableMap<K, V> headMap(K toKey, boolean inclusive) {
        return new View<K, V>(this, true, null, true, false, toKey, inclusive, false);
    }
    public SortedMap<K, V> headMap(K toKey) { return headMap(toKey, false); }
    public NavigableMap<K, V> tailMap(K fromKey, boolean inclusive) {
        return new View<K, V>(this, false, fromKey, inclusive, true, null, true, false);
    }
    public SortedMap<K, V> tailMap(K fromKey) { return tailMap(fromKey, true); }
    public NavigableMap<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive) {
        return new View<K, V>(this, false, fromKey, fromInclusive, false, toKey, toInclusive, false);
    }
    public SortedMap<K, V> subMap(K fromKey, K toKey) { return subMap(fromKey, true, toKey, false); }
    public NavigableMap<K, V> descendingMap() { return new View<K, V>(this, true, null, true, true, null, true, true); }
    public NavigableSet<K> navigableKeySet() { return new KeySet<K>(this); }
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

    public Set<K> keySet() { return navigableKeySet(); }

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

    /**
     * A live view of the tree: the keys between two optional bounds (lo, hi; each inclusive or
     * not), in ascending or descending order. Bounds are kept in the tree's own (ascending)
     * order; the abs* lookups answer in that order and the public methods swap them when the
     * view descends. Every read and write goes to the tree, so a view sees the tree's later
     * changes and its removals change the tree.
     */
    static final class View<K, V> extends AbstractMap<K, V> implements NavigableMap<K, V>, java.io.Serializable {
        final TreeMap<K, V> m;
        final boolean fromStart, loInclusive, toEnd, hiInclusive, descending;
        final K lo, hi;

        View(TreeMap<K, V> m, boolean fromStart, K lo, boolean loInclusive, boolean toEnd, K hi, boolean hiInclusive,
                boolean descending) {
            if (!fromStart && !toEnd) {
                if (m.compare(lo, hi) > 0) throw new IllegalArgumentException("fromKey > toKey");
            } else {
                // The bounds must be comparable keys (a null or foreign key throws here).
                if (!fromStart) m.compare(lo, lo);
                if (!toEnd) m.compare(hi, hi);
            }
            this.m = m;
            this.fromStart = fromStart;
            this.lo = lo;
            this.loInclusive = loInclusive;
            this.toEnd = toEnd;
            this.hi = hi;
            this.hiInclusive = hiInclusive;
            this.descending = descending;
        }

        final boolean tooLow(Object key) {
            if (fromStart) return false;
            int c = m.compare(key, lo);
            return c < 0 || (c == 0 && !loInclusive);
        }

        final boolean tooHigh(Object key) {
            if (toEnd) return false;
            int c = m.compare(key, hi);
            return c > 0 || (c == 0 && !hiInclusive);
        }

        final boolean inRange(Object key) { return !tooLow(key) && !tooHigh(key); }

        /** A new bound's check: an exclusive bound may equal this view's exclusive bound. */
        final boolean inRange(Object key, boolean inclusive) {
            if (inclusive) return inRange(key);
            return (fromStart || m.compare(key, lo) >= 0) && (toEnd || m.compare(hi, key) >= 0);
        }

        private TreeMap.Entry<K, V> belowHi(TreeMap.Entry<K, V> e) { return (e == null || tooHigh(e.key)) ? null : e; }
        private TreeMap.Entry<K, V> aboveLo(TreeMap.Entry<K, V> e) { return (e == null || tooLow(e.key)) ? null : e; }

        final TreeMap.Entry<K, V> absLowest() {
            return belowHi(fromStart ? m.getFirstEntry() : m.near(lo, false, loInclusive));
        }
        final TreeMap.Entry<K, V> absHighest() {
            return aboveLo(toEnd ? m.getLastEntry() : m.near(hi, true, hiInclusive));
        }
        final TreeMap.Entry<K, V> absCeiling(Object key) { return tooLow(key) ? absLowest() : belowHi(m.near(key, false, true)); }
        final TreeMap.Entry<K, V> absHigher(Object key) { return tooLow(key) ? absLowest() : belowHi(m.near(key, false, false)); }
        final TreeMap.Entry<K, V> absFloor(Object key) { return tooHigh(key) ? absHighest() : aboveLo(m.near(key, true, true)); }
        final TreeMap.Entry<K, V> absLower(Object key) { return tooHigh(key) ? absHighest() : aboveLo(m.near(key, true, false)); }

        final TreeMap.Entry<K, V> first() { return descending ? absHighest() : absLowest(); }
        final TreeMap.Entry<K, V> last() { return descending ? absLowest() : absHighest(); }
        /** The entry after `e` in this view's order, or null past its end. */
        final TreeMap.Entry<K, V> following(TreeMap.Entry<K, V> e) {
            return descending ? aboveLo(predecessor(e)) : belowHi(successor(e));
        }

        public boolean isEmpty() { return first() == null; }
        public int size() {
            if (fromStart && toEnd) return m.size();
            int n = 0;
            for (TreeMap.Entry<K, V> e = absLowest(); e != null; e = belowHi(successor(e))) n++;
            return n;
        }
        public boolean containsKey(Object key) { return inRange(key) && m.containsKey(key); }
        public V get(Object key) { return inRange(key) ? m.get(key) : null; }
        public V put(K key, V value) {
            if (!inRange(key)) throw new IllegalArgumentException("key out of range");
            return m.put(key, value);
        }
        public V remove(Object key) { return inRange(key) ? m.remove(key) : null; }
        public Comparator<? super K> comparator() {
            return descending ? Collections.reverseOrder(m.comparator()) : m.comparator();
        }

        public K firstKey() { return key(first()); }
        public K lastKey() { return key(last()); }
        public Map.Entry<K, V> firstEntry() { return export(first()); }
        public Map.Entry<K, V> lastEntry() { return export(last()); }
        public Map.Entry<K, V> pollFirstEntry() { return poll(first()); }
        public Map.Entry<K, V> pollLastEntry() { return poll(last()); }
        private Map.Entry<K, V> poll(TreeMap.Entry<K, V> e) {
            Map.Entry<K, V> result = export(e);
            if (e != null) m.deleteEntry(e);
            return result;
        }
        public Map.Entry<K, V> lowerEntry(K key) { return export(descending ? absHigher(key) : absLower(key)); }
        public K lowerKey(K key) { return keyOrNull(descending ? absHigher(key) : absLower(key)); }
        public Map.Entry<K, V> floorEntry(K key) { return export(descending ? absCeiling(key) : absFloor(key)); }
        public K floorKey(K key) { return keyOrNull(descending ? absCeiling(key) : absFloor(key)); }
        public Map.Entry<K, V> ceilingEntry(K key) { return export(descending ? absFloor(key) : absCeiling(key)); }
        public K ceilingKey(K key) { return keyOrNull(descending ? absFloor(key) : absCeiling(key)); }
        public Map.Entry<K, V> higherEntry(K key) { return export(descending ? absLower(key) : absHigher(key)); }
        public K higherKey(K key) { return keyOrNull(descending ? absLower(key) : absHigher(key)); }

        public NavigableMap<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive) {
            if (!inRange(fromKey, fromInclusive)) throw new IllegalArgumentException("fromKey out of range");
            if (!inRange(toKey, toInclusive)) throw new IllegalArgumentException("toKey out of range");
            if (descending) return new View<K, V>(m, false, toKey, toInclusive, false, fromKey, fromInclusive, true);
            return new View<K, V>(m, false, fromKey, fromInclusive, false, toKey, toInclusive, false);
        }
        public SortedMap<K, V> subMap(K fromKey, K toKey) { return subMap(fromKey, true, toKey, false); }
        public NavigableMap<K, V> headMap(K toKey, boolean inclusive) {
            if (!inRange(toKey, inclusive)) throw new IllegalArgumentException("toKey out of range");
            if (descending) return new View<K, V>(m, false, toKey, inclusive, toEnd, hi, hiInclusive, true);
            return new View<K, V>(m, fromStart, lo, loInclusive, false, toKey, inclusive, false);
        }
        public SortedMap<K, V> headMap(K toKey) { return headMap(toKey, false); }
        public NavigableMap<K, V> tailMap(K fromKey, boolean inclusive) {
            if (!inRange(fromKey, inclusive)) throw new IllegalArgumentException("fromKey out of range");
            if (descending) return new View<K, V>(m, fromStart, lo, loInclusive, false, fromKey, inclusive, true);
            return new View<K, V>(m, false, fromKey, inclusive, toEnd, hi, hiInclusive, false);
        }
        public SortedMap<K, V> tailMap(K fromKey) { return tailMap(fromKey, true); }
        public NavigableMap<K, V> descendingMap() {
            return new View<K, V>(m, fromStart, lo, loInclusive, toEnd, hi, hiInclusive, !descending);
        }
        public NavigableSet<K> navigableKeySet() { return new KeySet<K>(this); }
        public NavigableSet<K> descendingKeySet() { return descendingMap().navigableKeySet(); }
        public Set<K> keySet() { return navigableKeySet(); }

        public Set<Map.Entry<K, V>> entrySet() {
            return new AbstractSet<Map.Entry<K, V>>() {
                public Iterator<Map.Entry<K, V>> iterator() { return new ViewIterator(); }
                public int size() { return View.this.size(); }
                public boolean isEmpty() { return View.this.isEmpty(); }
            };
        }

        /** The view's entries in its order; remove() deletes from the tree. */
        final class ViewIterator implements Iterator<Map.Entry<K, V>> {
            TreeMap.Entry<K, V> next = first();
            TreeMap.Entry<K, V> lastReturned;
            int expectedModCount = m.modCount;

            public boolean hasNext() { return next != null; }
            public Map.Entry<K, V> next() {
                TreeMap.Entry<K, V> e = next;
                if (e == null) throw new NoSuchElementException();
                if (m.modCount != expectedModCount) throw new ConcurrentModificationException();
                next = following(e);
                lastReturned = e;
                return e;
            }
            public void remove() {
                if (lastReturned == null) throw new IllegalStateException();
                if (m.modCount != expectedModCount) throw new ConcurrentModificationException();
                // Deleting a node with two children moves its successor's key and value into
                // it: in ascending order that successor is `next`, which now lives there.
                if (!descending && next != null && lastReturned.left != null && lastReturned.right != null) {
                    next = lastReturned;
                }
                m.deleteEntry(lastReturned);
                expectedModCount = m.modCount;
                lastReturned = null;
            }
        }
    }

    /** The keys of a TreeMap or of one of its views, as a live NavigableSet. */
    static final class KeySet<E> extends AbstractSet<E> implements NavigableSet<E> {
        private final NavigableMap<E, ?> m;

        KeySet(NavigableMap<E, ?> m) { this.m = m; }

        public Iterator<E> iterator() {
            final Iterator<? extends Map.Entry<E, ?>> entries = m.entrySet().iterator();
            return new Iterator<E>() {
                public boolean hasNext() { return entries.hasNext(); }
                public E next() { return entries.next().getKey(); }
                public void remove() { entries.remove(); }
            };
        }
        public Iterator<E> descendingIterator() { return descendingSet().iterator(); }
        public int size() { return m.size(); }
        public boolean isEmpty() { return m.isEmpty(); }
        public boolean contains(Object o) { return m.containsKey(o); }
        public void clear() { m.clear(); }
        public boolean remove(Object o) {
            int before = size();
            m.remove(o);
            return size() != before;
        }
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
        public NavigableSet<E> descendingSet() { return new KeySet<E>(m.descendingMap()); }
        public NavigableSet<E> subSet(E fromElement, boolean fromInclusive, E toElement, boolean toInclusive) {
            return new KeySet<E>(m.subMap(fromElement, fromInclusive, toElement, toInclusive));
        }
        public NavigableSet<E> headSet(E toElement, boolean inclusive) { return new KeySet<E>(m.headMap(toElement, inclusive)); }
        public NavigableSet<E> tailSet(E fromElement, boolean inclusive) { return new KeySet<E>(m.tailMap(fromElement, inclusive)); }
        public SortedSet<E> subSet(E fromElement, E toElement) { return subSet(fromElement, true, toElement, false); }
        public SortedSet<E> headSet(E toElement) { return headSet(toElement, false); }
        public SortedSet<E> tailSet(E fromElement) { return tailSet(fromElement, true); }
    }
}
