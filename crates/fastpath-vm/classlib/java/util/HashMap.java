package java.util;

import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * OpenJDK's hash table layout, so iteration orders match: capacities are
 * powers of two, the hash spreads its high bits (h ^ h >>> 16), a resize
 * splits each bin into a low and a high list keeping their order, and a
 * crowded bin becomes a red-black tree as OpenJDK's does (see TreeNode),
 * whose node list keeps the order iteration sees.
 *
 * When a bin turns into a tree: an insertion that leaves more than
 * TREEIFY_THRESHOLD nodes in a list bin (put), or TREEIFY_THRESHOLD nodes
 * (computeIfAbsent, compute, merge, which count the nodes they passed),
 * treeifies it when the table has MIN_TREEIFY_CAPACITY bins, and doubles
 * the table instead while it is smaller. A tree bin goes back to a list when
 * a resize leaves UNTREEIFY_THRESHOLD nodes or fewer on one side of its
 * split, or when a removal leaves a tree too small for its shape
 * (TreeNode.removeTreeNode).
 */
public class HashMap<K, V> extends AbstractMap<K, V> implements Map<K, V>, Cloneable, java.io.Serializable {
    static final int DEFAULT_INITIAL_CAPACITY = 1 << 4;
    static final int MAXIMUM_CAPACITY = 1 << 30;
    static final float DEFAULT_LOAD_FACTOR = 0.75f;
    static final int TREEIFY_THRESHOLD = 8;
    static final int UNTREEIFY_THRESHOLD = 6;
    static final int MIN_TREEIFY_CAPACITY = 64;

    static class Node<K, V> implements Map.Entry<K, V> {
        final int hash;
        final K key;
        V value;
        Node<K, V> next;

        Node(int hash, K key, V value, Node<K, V> next) {
            this.hash = hash;
            this.key = key;
            this.value = value;
            this.next = next;
        }
        public final K getKey() { return key; }
        public final V getValue() { return value; }
        public final String toString() { return key + "=" + value; }
        public final int hashCode() { return Objects.hashCode(key) ^ Objects.hashCode(value); }
        public final V setValue(V newValue) {
            V oldValue = value;
            value = newValue;
            return oldValue;
        }
        public final boolean equals(Object o) {
            if (o == this) return true;
            if (!(o instanceof Map.Entry)) return false;
            Map.Entry<?, ?> e = (Map.Entry<?, ?>) o;
            return Objects.equals(key, e.getKey()) && Objects.equals(value, e.getValue());
        }
    }

    static final int hash(Object key) {
        int h;
        return (key == null) ? 0 : (h = key.hashCode()) ^ (h >>> 16);
    }

    static final int tableSizeFor(int cap) {
        int n = -1 >>> Integer.numberOfLeadingZeros(cap - 1);
        return (n < 0) ? 1 : (n >= MAXIMUM_CAPACITY) ? MAXIMUM_CAPACITY : n + 1;
    }

    transient Node<K, V>[] table;
    transient Set<Map.Entry<K, V>> entrySet;
    transient Set<K> keySetView;
    transient Collection<V> valuesView;
    transient int size;
    transient int modCount;
    int threshold;
    final float loadFactor;

    public HashMap(int initialCapacity, float loadFactor) {
        if (initialCapacity < 0) throw new IllegalArgumentException("Illegal initial capacity: " + initialCapacity);
        if (initialCapacity > MAXIMUM_CAPACITY) initialCapacity = MAXIMUM_CAPACITY;
        if (loadFactor <= 0 || Float.isNaN(loadFactor)) throw new IllegalArgumentException("Illegal load factor: " + loadFactor);
        this.loadFactor = loadFactor;
        this.threshold = tableSizeFor(initialCapacity);
    }

    public HashMap(int initialCapacity) { this(initialCapacity, DEFAULT_LOAD_FACTOR); }

    public HashMap() { this.loadFactor = DEFAULT_LOAD_FACTOR; }

    public HashMap(Map<? extends K, ? extends V> m) {
        this.loadFactor = DEFAULT_LOAD_FACTOR;
        putMapEntries(m, false);
    }

    static int calculateHashMapCapacity(int numMappings) {
        return (int) Math.ceil(numMappings / (double) DEFAULT_LOAD_FACTOR);
    }

    public static <K, V> HashMap<K, V> newHashMap(int numMappings) {
        if (numMappings < 0) throw new IllegalArgumentException("Negative number of mappings: " + numMappings);
        return new HashMap<K, V>(calculateHashMapCapacity(numMappings));
    }

    final void putMapEntries(Map<? extends K, ? extends V> m, boolean evict) {
        int s = m.size();
        if (s > 0) {
            if (table == null) {
                double dt = Math.ceil(s / (double) loadFactor);
                int t = ((dt < (double) MAXIMUM_CAPACITY) ? (int) dt : MAXIMUM_CAPACITY);
                if (t > threshold) threshold = tableSizeFor(t);
            } else {
                while (s > threshold && table.length < MAXIMUM_CAPACITY) resize();
            }
            for (Map.Entry<? extends K, ? extends V> e : m.entrySet()) {
                K key = e.getKey();
                V value = e.getValue();
                putVal(hash(key), key, value, false, evict);
            }
        }
    }

    public int size() { return size; }
    public boolean isEmpty() { return size == 0; }

    public V get(Object key) {
        Node<K, V> e;
        return (e = getNode(key)) == null ? null : e.value;
    }

    /**
     * The node of `key`, or null. The bin's first node is the common
     * answer and is looked at here; the rest of a bin is `getLaterNode`'s.
     * Kept small for fastpath-vm's JIT, which inlines a callee of up to
     * `HOT_INLINE_BYTES` of bytecode at a hot call site, within a method's
     * `INLINE_BUDGET_BYTES` (`jit/inlining.rs`): `hash(key)` is written out
     * (a call of it would spend a level of inlining depth in `get`'s callers),
     * and a table, never empty (`resize` makes at least one bin), needs
     * only its null test.
     */
    final Node<K, V> getNode(Object key) {
        Node<K, V>[] tab;
        Node<K, V> first;
        int h;
        K k;
        if ((tab = table) != null) {
            int hash = (key == null) ? 0 : (h = key.hashCode()) ^ (h >>> 16);
            if ((first = tab[(tab.length - 1) & hash]) != null) {
                if (first.hash == hash && ((k = first.key) == key || (key != null && key.equals(k)))) return first;
                if (first.next != null) return getLaterNode(first, hash, key);
            }
        }
        return null;
    }

    /** The node of `key` (of hash `hash`) in the bin whose first node, `first`, is not it and has a successor. */
    private Node<K, V> getLaterNode(Node<K, V> first, int hash, Object key) {
        if (first instanceof TreeNode) return ((TreeNode<K, V>) first).getTreeNode(hash, key);
        Node<K, V> e = first.next;
        K k;
        do {
            if (e.hash == hash && ((k = e.key) == key || (key != null && key.equals(k)))) return e;
        } while ((e = e.next) != null);
        return null;
    }

    public boolean containsKey(Object key) { return getNode(key) != null; }

    public V put(K key, V value) { return putVal(hash(key), key, value, false, true); }

    final V putVal(int hash, K key, V value, boolean onlyIfAbsent, boolean evict) {
        Node<K, V>[] tab;
        Node<K, V> p;
        int n, i;
        if ((tab = table) == null || (n = tab.length) == 0) n = (tab = resize()).length;
        if ((p = tab[i = (n - 1) & hash]) == null) {
            tab[i] = newNode(hash, key, value, null);
        } else {
            Node<K, V> e;
            K k;
            if (p.hash == hash && ((k = p.key) == key || (key != null && key.equals(k)))) {
                e = p;
            } else if (p instanceof TreeNode) {
                e = ((TreeNode<K, V>) p).putTreeVal(this, tab, hash, key, value);
            } else {
                for (int passed = 0;; ++passed) {
                    if ((e = p.next) == null) {
                        p.next = newNode(hash, key, value, null);
                        // `passed` nodes after the first: the bin now has passed + 2.
                        if (passed >= TREEIFY_THRESHOLD - 1) treeifyBin(tab, hash);
                        break;
                    }
                    if (e.hash == hash && ((k = e.key) == key || (key != null && key.equals(k)))) break;
                    p = e;
                }
            }
            if (e != null) {
                V oldValue = e.value;
                if (!onlyIfAbsent || oldValue == null) e.value = value;
                afterNodeAccess(e);
                return oldValue;
            }
        }
        ++modCount;
        if (++size > threshold) resize();
        afterNodeInsertion(evict);
        return null;
    }

    final Node<K, V>[] resize() {
        Node<K, V>[] oldTab = table;
        int oldCap = (oldTab == null) ? 0 : oldTab.length;
        int oldThr = threshold;
        int newCap, newThr = 0;
        if (oldCap > 0) {
            if (oldCap >= MAXIMUM_CAPACITY) {
                threshold = Integer.MAX_VALUE;
                return oldTab;
            } else if ((newCap = oldCap << 1) < MAXIMUM_CAPACITY && oldCap >= DEFAULT_INITIAL_CAPACITY) {
                newThr = oldThr << 1;
            }
        } else if (oldThr > 0) {
            newCap = oldThr;
        } else {
            newCap = DEFAULT_INITIAL_CAPACITY;
            newThr = (int) (DEFAULT_LOAD_FACTOR * DEFAULT_INITIAL_CAPACITY);
        }
        if (newThr == 0) {
            float ft = (float) newCap * loadFactor;
            newThr = (newCap < MAXIMUM_CAPACITY && ft < (float) MAXIMUM_CAPACITY ? (int) ft : Integer.MAX_VALUE);
        }
        threshold = newThr;
        Node<K, V>[] newTab = (Node<K, V>[]) new Node[newCap];
        table = newTab;
        if (oldTab != null) {
            for (int j = 0; j < oldCap; ++j) {
                Node<K, V> e;
                if ((e = oldTab[j]) != null) {
                    oldTab[j] = null;
                    if (e.next == null) {
                        newTab[e.hash & (newCap - 1)] = e;
                    } else if (e instanceof TreeNode) {
                        ((TreeNode<K, V>) e).split(this, newTab, j, oldCap);
                    } else {
                        Node<K, V> loHead = null, loTail = null;
                        Node<K, V> hiHead = null, hiTail = null;
                        Node<K, V> next;
                        do {
                            next = e.next;
                            if ((e.hash & oldCap) == 0) {
                                if (loTail == null) loHead = e;
                                else loTail.next = e;
                                loTail = e;
                            } else {
                                if (hiTail == null) hiHead = e;
                                else hiTail.next = e;
                                hiTail = e;
                            }
                        } while ((e = next) != null);
                        if (loTail != null) {
                            loTail.next = null;
                            newTab[j] = loHead;
                        }
                        if (hiTail != null) {
                            hiTail.next = null;
                            newTab[j + oldCap] = hiHead;
                        }
                    }
                }
            }
        }
        return newTab;
    }

    public void putAll(Map<? extends K, ? extends V> m) { putMapEntries(m, true); }

    public V remove(Object key) {
        Node<K, V> e;
        return (e = removeNode(hash(key), key, null, false, true)) == null ? null : e.value;
    }

    final Node<K, V> removeNode(int hash, Object key, Object value, boolean matchValue, boolean movable) {
        Node<K, V>[] tab;
        Node<K, V> p;
        int n, index;
        if ((tab = table) != null && (n = tab.length) > 0 && (p = tab[index = (n - 1) & hash]) != null) {
            Node<K, V> node = null, e;
            K k;
            V v;
            if (p.hash == hash && ((k = p.key) == key || (key != null && key.equals(k)))) {
                node = p;
            } else if ((e = p.next) != null) {
                if (p instanceof TreeNode) node = ((TreeNode<K, V>) p).getTreeNode(hash, key);
                else do {
                    if (e.hash == hash && ((k = e.key) == key || (key != null && key.equals(k)))) {
                        node = e;
                        break;
                    }
                    p = e;
                } while ((e = e.next) != null);
            }
            if (node != null && (!matchValue || (v = node.value) == value || (value != null && value.equals(v)))) {
                if (node instanceof TreeNode) ((TreeNode<K, V>) node).removeTreeNode(this, tab, movable);
                else if (node == p) tab[index] = node.next;
                else p.next = node.next;
                ++modCount;
                --size;
                afterNodeRemoval(node);
                return node;
            }
        }
        return null;
    }

    public void clear() {
        Node<K, V>[] tab;
        modCount++;
        if ((tab = table) != null && size > 0) {
            size = 0;
            for (int i = 0; i < tab.length; ++i) tab[i] = null;
        }
    }

    public boolean containsValue(Object value) {
        Node<K, V>[] tab;
        V v;
        if ((tab = table) != null && size > 0) {
            for (Node<K, V> e : tab) {
                for (; e != null; e = e.next) {
                    if ((v = e.value) == value || (value != null && value.equals(v))) return true;
                }
            }
        }
        return false;
    }

    public V getOrDefault(Object key, V defaultValue) {
        Node<K, V> e;
        return (e = getNode(key)) == null ? defaultValue : e.value;
    }

    public V putIfAbsent(K key, V value) { return putVal(hash(key), key, value, true, true); }

    public boolean remove(Object key, Object value) { return removeNode(hash(key), key, value, true, true) != null; }

    public boolean replace(K key, V oldValue, V newValue) {
        Node<K, V> e;
        V v;
        if ((e = getNode(key)) != null && ((v = e.value) == oldValue || (v != null && v.equals(oldValue)))) {
            e.value = newValue;
            afterNodeAccess(e);
            return true;
        }
        return false;
    }

    public V replace(K key, V value) {
        Node<K, V> e;
        if ((e = getNode(key)) != null) {
            V oldValue = e.value;
            e.value = value;
            afterNodeAccess(e);
            return oldValue;
        }
        return null;
    }

    /**
     * The bin of `key` for computeIfAbsent, compute and merge (after
     * OpenJDK's resize-first when the map is over its threshold): its index,
     * first node, the node of `key` if present, and for a list bin how many
     * nodes were passed looking for it.
     */
    private final class BinSearch {
        final Node<K, V>[] tab;
        final int index;
        final Node<K, V> first;
        Node<K, V> found;
        int passed;

        BinSearch(int hash, Object key) {
            Node<K, V>[] t;
            int n;
            if (size > threshold || (t = table) == null || (n = t.length) == 0) n = (t = resize()).length;
            tab = t;
            index = (n - 1) & hash;
            first = t[index];
            if (first instanceof TreeNode) {
                found = ((TreeNode<K, V>) first).getTreeNode(hash, key);
            } else {
                for (Node<K, V> e = first; e != null; e = e.next) {
                    K k;
                    if (e.hash == hash && ((k = e.key) == key || (key != null && key.equals(k)))) {
                        found = e;
                        break;
                    }
                    ++passed;
                }
            }
        }

        /** Adds the absent `key`: into the tree, or at the head of the list. */
        void insert(int hash, K key, V value) {
            if (first instanceof TreeNode) {
                ((TreeNode<K, V>) first).putTreeVal(HashMap.this, tab, hash, key, value);
            } else {
                tab[index] = newNode(hash, key, value, first);
                if (passed >= TREEIFY_THRESHOLD - 1) treeifyBin(tab, hash);
            }
        }
    }

    public V computeIfAbsent(K key, java.util.function.Function<? super K, ? extends V> mappingFunction) {
        if (mappingFunction == null) throw new NullPointerException();
        int hash = hash(key);
        BinSearch bin = new BinSearch(hash, key);
        Node<K, V> old = bin.found;
        V oldValue;
        if (old != null && (oldValue = old.value) != null) {
            afterNodeAccess(old);
            return oldValue;
        }
        int mc = modCount;
        V v = mappingFunction.apply(key);
        if (mc != modCount) throw new ConcurrentModificationException();
        if (v == null) return null;
        if (old != null) {
            old.value = v;
            afterNodeAccess(old);
            return v;
        }
        bin.insert(hash, key, v);
        modCount = mc + 1;
        ++size;
        afterNodeInsertion(true);
        return v;
    }

    public V computeIfPresent(K key, java.util.function.BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
        if (remappingFunction == null) throw new NullPointerException();
        Node<K, V> e;
        V oldValue;
        if ((e = getNode(key)) != null && (oldValue = e.value) != null) {
            int mc = modCount;
            V v = remappingFunction.apply(key, oldValue);
            if (mc != modCount) throw new ConcurrentModificationException();
            if (v != null) {
                e.value = v;
                afterNodeAccess(e);
                return v;
            } else {
                int hash = hash(key);
                removeNode(hash, key, null, false, true);
            }
        }
        return null;
    }

    public V compute(K key, java.util.function.BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
        if (remappingFunction == null) throw new NullPointerException();
        int hash = hash(key);
        BinSearch bin = new BinSearch(hash, key);
        Node<K, V> old = bin.found;
        V oldValue = (old == null) ? null : old.value;
        int mc = modCount;
        V v = remappingFunction.apply(key, oldValue);
        if (mc != modCount) throw new ConcurrentModificationException();
        if (old != null) {
            if (v != null) {
                old.value = v;
                afterNodeAccess(old);
            } else {
                removeNode(hash, key, null, false, true);
            }
        } else if (v != null) {
            bin.insert(hash, key, v);
            modCount = mc + 1;
            ++size;
            afterNodeInsertion(true);
        }
        return v;
    }

    public V merge(K key, V value, java.util.function.BiFunction<? super V, ? super V, ? extends V> remappingFunction) {
        if (value == null || remappingFunction == null) throw new NullPointerException();
        int hash = hash(key);
        BinSearch bin = new BinSearch(hash, key);
        Node<K, V> old = bin.found;
        if (old != null) {
            V v;
            if (old.value != null) {
                int mc = modCount;
                v = remappingFunction.apply(old.value, value);
                if (mc != modCount) throw new ConcurrentModificationException();
            } else {
                v = value;
            }
            if (v != null) {
                old.value = v;
                afterNodeAccess(old);
            } else {
                removeNode(hash, key, null, false, true);
            }
            return v;
        }
        bin.insert(hash, key, value);
        ++modCount;
        ++size;
        afterNodeInsertion(true);
        return value;
    }

    public void forEach(BiConsumer<? super K, ? super V> action) {
        Node<K, V>[] tab;
        if (action == null) throw new NullPointerException();
        if (size > 0 && (tab = table) != null) {
            int mc = modCount;
            for (Node<K, V> e : tab) {
                for (; e != null; e = e.next) action.accept(e.key, e.value);
            }
            if (modCount != mc) throw new ConcurrentModificationException();
        }
    }

    public Object clone() {
        HashMap<K, V> result;
        try {
            result = (HashMap<K, V>) super.clone();
        } catch (CloneNotSupportedException e) {
            throw new InternalError(e);
        }
        result.reinitialize();
        result.putMapEntries(this, false);
        return result;
    }

    void reinitialize() {
        table = null;
        entrySet = null;
        keySetView = null;
        valuesView = null;
        modCount = 0;
        threshold = 0;
        size = 0;
    }

    Node<K, V> newNode(int hash, K key, V value, Node<K, V> next) { return new Node<K, V>(hash, key, value, next); }
    /** A list node taking `p`'s place (a tree bin going back to a list). */
    Node<K, V> replacementNode(Node<K, V> p, Node<K, V> next) { return new Node<K, V>(p.hash, p.key, p.value, next); }
    TreeNode<K, V> newTreeNode(int hash, K key, V value, Node<K, V> next) { return new TreeNode<K, V>(hash, key, value, next); }
    /** A tree node taking `p`'s place (a list bin becoming a tree). */
    TreeNode<K, V> replacementTreeNode(Node<K, V> p, Node<K, V> next) { return new TreeNode<K, V>(p.hash, p.key, p.value, next); }

    /**
     * Turns the list bin of `hash` into a tree, or doubles a table smaller
     * than MIN_TREEIFY_CAPACITY instead. Every node is replaced by a tree
     * node, in list order.
     */
    final void treeifyBin(Node<K, V>[] tab, int hash) {
        int n, index;
        Node<K, V> e;
        if (tab == null || (n = tab.length) < MIN_TREEIFY_CAPACITY) {
            resize();
        } else if ((e = tab[index = (n - 1) & hash]) != null) {
            TreeNode<K, V> head = null, tail = null;
            for (; e != null; e = e.next) {
                TreeNode<K, V> t = replacementTreeNode(e, null);
                if (tail == null) head = t;
                else {
                    t.prev = tail;
                    tail.next = t;
                }
                tail = t;
            }
            tab[index] = head;
            head.treeify(tab);
        }
    }
    void afterNodeAccess(Node<K, V> p) {}
    void afterNodeInsertion(boolean evict) {}
    void afterNodeRemoval(Node<K, V> p) {}

    public Set<K> keySet() {
        Set<K> ks = keySetView;
        if (ks == null) {
            ks = new KeySet();
            keySetView = ks;
        }
        return ks;
    }

    final class KeySet extends AbstractSet<K> {
        public final int size() { return size; }
        public final void clear() { HashMap.this.clear(); }
        public final Iterator<K> iterator() { return newKeyIterator(); }
        public final boolean contains(Object o) { return containsKey(o); }
        public final boolean remove(Object key) { return removeNode(hash(key), key, null, false, true) != null; }
    }

    public Collection<V> values() {
        Collection<V> vs = valuesView;
        if (vs == null) {
            vs = new Values();
            valuesView = vs;
        }
        return vs;
    }

    final class Values extends AbstractCollection<V> {
        public final int size() { return size; }
        public final void clear() { HashMap.this.clear(); }
        public final Iterator<V> iterator() { return newValueIterator(); }
        public final boolean contains(Object o) { return containsValue(o); }
    }

    public Set<Map.Entry<K, V>> entrySet() {
        Set<Map.Entry<K, V>> es;
        return (es = entrySet) == null ? (entrySet = new EntrySet()) : es;
    }

    final class EntrySet extends AbstractSet<Map.Entry<K, V>> {
        public final int size() { return size; }
        public final void clear() { HashMap.this.clear(); }
        public final Iterator<Map.Entry<K, V>> iterator() { return newEntryIterator(); }
        public final boolean contains(Object o) {
            if (!(o instanceof Map.Entry)) return false;
            Map.Entry<?, ?> e = (Map.Entry<?, ?>) o;
            Object key = e.getKey();
            Node<K, V> candidate = getNode(key);
            return candidate != null && candidate.equals(e);
        }
        public final boolean remove(Object o) {
            if (o instanceof Map.Entry) {
                Map.Entry<?, ?> e = (Map.Entry<?, ?>) o;
                Object key = e.getKey();
                Object value = e.getValue();
                return removeNode(hash(key), key, value, true, true) != null;
            }
            return false;
        }
    }

    Iterator<K> newKeyIterator() { return new KeyIterator(); }
    Iterator<V> newValueIterator() { return new ValueIterator(); }
    Iterator<Map.Entry<K, V>> newEntryIterator() { return new EntryIterator(); }

    abstract class HashIterator {
        Node<K, V> next;
        Node<K, V> current;
        int expectedModCount;
        int index;

        HashIterator() {
            expectedModCount = modCount;
            Node<K, V>[] t = table;
            current = next = null;
            index = 0;
            if (t != null && size > 0) {
                do {} while (index < t.length && (next = t[index++]) == null);
            }
        }

        public final boolean hasNext() { return next != null; }

        final Node<K, V> nextNode() {
            Node<K, V>[] t;
            Node<K, V> e = next;
            if (modCount != expectedModCount) throw new ConcurrentModificationException();
            if (e == null) throw new NoSuchElementException();
            if ((next = (current = e).next) == null && (t = table) != null) {
                do {} while (index < t.length && (next = t[index++]) == null);
            }
            return e;
        }

        public final void remove() {
            Node<K, V> p = current;
            if (p == null) throw new IllegalStateException();
            if (modCount != expectedModCount) throw new ConcurrentModificationException();
            current = null;
            removeNode(p.hash, p.key, null, false, false);
            expectedModCount = modCount;
        }
    }

    final class KeyIterator extends HashIterator implements Iterator<K> {
        public final K next() { return nextNode().key; }
    }

    final class ValueIterator extends HashIterator implements Iterator<V> {
        public final V next() { return nextNode().value; }
    }

    final class EntryIterator extends HashIterator implements Iterator<Map.Entry<K, V>> {
        public final Map.Entry<K, V> next() { return nextNode(); }
    }

    /** Whether `x`'s class is OpenJDK's comparableClassFor answer (a String, or `C implements Comparable<C>`). */
    static native boolean selfComparable(Object x);

    /** k.compareTo(x) when x is of k's class, else 0 (k is selfComparable). */
    static int compareComparables(Object k, Object x) {
        return (x == null || x.getClass() != k.getClass()) ? 0 : ((Comparable) k).compareTo(x);
    }

    /**
     * A tree bin's node. A tree bin is two structures over the same nodes:
     *
     * - a red-black tree (parent, left, right, red) ordered by hash, then by
     *   compareTo for keys of one self-comparable class, then by class name,
     *   then by identity hash (tieBreak): lookups and the place of a new
     *   node;
     * - a doubly linked list (next, prev) in the bin, which iteration walks.
     *   It keeps the list order the bin had when it became a tree; a new key
     *   goes right after its tree parent; the tree's root is moved to the
     *   front after every change that may have rebalanced it (except a
     *   removal by an iterator), and is the node the table slot holds.
     *
     * The balancing is CLR's (Cormen, Leiserson, Rivest, Stein,
     * "Introduction to Algorithms", 13.3 and 13.4), with a rotation that
     * makes a node the root also making it black, and deletion swapping the
     * node with its successor's position (nodes are list members, so their
     * keys cannot be swapped) -- the steps OpenJDK's HashMap takes, so its
     * trees, and thus its iteration orders, come out the same.
     */
    static final class TreeNode<K, V> extends LinkedHashMap.Entry<K, V> {
        TreeNode<K, V> parent;
        TreeNode<K, V> left;
        TreeNode<K, V> right;
        TreeNode<K, V> prev;
        boolean red;

        TreeNode(int hash, K key, V val, Node<K, V> next) { super(hash, key, val, next); }

        final TreeNode<K, V> root() {
            TreeNode<K, V> r = this;
            while (r.parent != null) r = r.parent;
            return r;
        }

        /** Moves `root` to the front of its bin's list and into the table slot. */
        static <K, V> void moveRootToFront(Node<K, V>[] tab, TreeNode<K, V> root) {
            if (root == null || tab == null || tab.length == 0) return;
            int index = (tab.length - 1) & root.hash;
            TreeNode<K, V> first = (TreeNode<K, V>) tab[index];
            if (root == first) return;
            // Unlink root from where it is...
            TreeNode<K, V> before = root.prev;
            Node<K, V> after = root.next;
            if (after != null) ((TreeNode<K, V>) after).prev = before;
            if (before != null) before.next = after;
            // ...and put it before the first.
            if (first != null) first.prev = root;
            root.next = first;
            root.prev = null;
            tab[index] = root;
        }

        /** The order of two keys of equal hash that compareTo cannot tell apart. */
        static int tieBreak(Object a, Object b) {
            int d;
            if (a == null || b == null || (d = a.getClass().getName().compareTo(b.getClass().getName())) == 0) {
                d = (System.identityHashCode(a) <= System.identityHashCode(b) ? -1 : 1);
            }
            return d;
        }

        /** The node of key `k` (hash `h`) in the subtree of this node, or null. */
        final TreeNode<K, V> find(int h, Object k, boolean comparable) {
            TreeNode<K, V> p = this;
            while (p != null) {
                TreeNode<K, V> pl = p.left, pr = p.right;
                K pk;
                int dir;
                if (p.hash > h) {
                    p = pl;
                } else if (p.hash < h) {
                    p = pr;
                } else if ((pk = p.key) == k || (k != null && k.equals(pk))) {
                    return p;
                } else if (pl == null) {
                    p = pr;
                } else if (pr == null) {
                    p = pl;
                } else if (comparable && (dir = compareComparables(k, pk)) != 0) {
                    p = (dir < 0) ? pl : pr;
                } else {
                    // Either side may hold it: search the right, then go left.
                    TreeNode<K, V> q = pr.find(h, k, comparable);
                    if (q != null) return q;
                    p = pl;
                }
            }
            return null;
        }

        final TreeNode<K, V> getTreeNode(int h, Object k) {
            return root().find(h, k, k != null && selfComparable(k));
        }

        /** Builds the tree over this list (this node first), list order unchanged but for the root. */
        final void treeify(Node<K, V>[] tab) {
            TreeNode<K, V> root = null;
            TreeNode<K, V> x = this;
            while (x != null) {
                TreeNode<K, V> following = (TreeNode<K, V>) x.next;
                x.left = x.right = null;
                if (root == null) {
                    x.parent = null;
                    x.red = false;
                    root = x;
                } else {
                    K k = x.key;
                    int h = x.hash;
                    boolean comparable = k != null && selfComparable(k);
                    TreeNode<K, V> p = root;
                    for (;;) {
                        int dir;
                        if (p.hash > h) dir = -1;
                        else if (p.hash < h) dir = 1;
                        else if (!comparable || (dir = compareComparables(k, p.key)) == 0) dir = tieBreak(k, p.key);
                        TreeNode<K, V> child = (dir <= 0) ? p.left : p.right;
                        if (child == null) {
                            x.parent = p;
                            if (dir <= 0) p.left = x;
                            else p.right = x;
                            root = balanceInsertion(root, x);
                            break;
                        }
                        p = child;
                    }
                }
                x = following;
            }
            moveRootToFront(tab, root);
        }

        /** Plain list nodes for this list, in order. */
        final Node<K, V> untreeify(HashMap<K, V> map) {
            Node<K, V> head = null, tail = null;
            for (Node<K, V> q = this; q != null; q = q.next) {
                Node<K, V> p = map.replacementNode(q, null);
                if (tail == null) head = p;
                else tail.next = p;
                tail = p;
            }
            return head;
        }

        /**
         * put into the tree: the existing node of `k`, or null after adding
         * one (in the list right after its tree parent).
         */
        final TreeNode<K, V> putTreeVal(HashMap<K, V> map, Node<K, V>[] tab, int h, K k, V v) {
            boolean comparable = k != null && selfComparable(k);
            boolean searched = false;
            TreeNode<K, V> root = (parent != null) ? root() : this;
            TreeNode<K, V> p = root;
            for (;;) {
                int dir;
                K pk;
                if (p.hash > h) {
                    dir = -1;
                } else if (p.hash < h) {
                    dir = 1;
                } else if ((pk = p.key) == k || (k != null && k.equals(pk))) {
                    return p;
                } else if (!comparable || (dir = compareComparables(k, pk)) == 0) {
                    // Not ordered by compareTo: the key may be on either
                    // side, so look in both once before placing it.
                    if (!searched) {
                        searched = true;
                        TreeNode<K, V> q;
                        if ((p.left != null && (q = p.left.find(h, k, comparable)) != null)
                                || (p.right != null && (q = p.right.find(h, k, comparable)) != null)) {
                            return q;
                        }
                    }
                    dir = tieBreak(k, pk);
                }
                TreeNode<K, V> child = (dir <= 0) ? p.left : p.right;
                if (child == null) {
                    Node<K, V> after = p.next;
                    TreeNode<K, V> x = map.newTreeNode(h, k, v, after);
                    if (dir <= 0) p.left = x;
                    else p.right = x;
                    p.next = x;
                    x.parent = x.prev = p;
                    if (after != null) ((TreeNode<K, V>) after).prev = x;
                    moveRootToFront(tab, balanceInsertion(root, x));
                    return null;
                }
                p = child;
            }
        }

        /**
         * Removes this node (present in the bin). `movable`: the root may
         * move to the list's front and a small tree turns back into a list
         * (false for an iterator's removal, which must not reorder the list).
         */
        final void removeTreeNode(HashMap<K, V> map, Node<K, V>[] tab, boolean movable) {
            int n;
            if (tab == null || (n = tab.length) == 0) return;
            int index = (n - 1) & hash;
            TreeNode<K, V> first = (TreeNode<K, V>) tab[index];
            TreeNode<K, V> root = first;
            // Out of the list.
            TreeNode<K, V> succ = (TreeNode<K, V>) next, pred = prev;
            if (pred == null) tab[index] = first = succ;
            else pred.next = succ;
            if (succ != null) succ.prev = pred;
            if (first == null) return;
            if (root.parent != null) root = root.root();
            // A tree this small (no right child, or no left grandchild on
            // the left) becomes a list again.
            TreeNode<K, V> rl;
            if (root == null || (movable && (root.right == null || (rl = root.left) == null || rl.left == null))) {
                tab[index] = first.untreeify(map);
                return;
            }
            // Out of the tree.
            TreeNode<K, V> p = this, pl = left, pr = right, replacement;
            if (pl != null && pr != null) {
                // Two children: p trades places (and colors) with its
                // successor s, the leftmost node of its right subtree, so
                // p has at most one child (s's right) where it now stands.
                TreeNode<K, V> s = pr, sl;
                while ((sl = s.left) != null) s = sl;
                boolean c = s.red;
                s.red = p.red;
                p.red = c;
                TreeNode<K, V> sr = s.right;
                TreeNode<K, V> pp = p.parent;
                if (s == pr) {
                    p.parent = s;
                    s.right = p;
                } else {
                    TreeNode<K, V> sp = s.parent;
                    if ((p.parent = sp) != null) {
                        if (s == sp.left) sp.left = p;
                        else sp.right = p;
                    }
                    if ((s.right = pr) != null) pr.parent = s;
                }
                p.left = null;
                if ((p.right = sr) != null) sr.parent = p;
                if ((s.left = pl) != null) pl.parent = s;
                if ((s.parent = pp) == null) root = s;
                else if (p == pp.left) pp.left = s;
                else pp.right = s;
                replacement = (sr != null) ? sr : p;
            } else if (pl != null) {
                replacement = pl;
            } else if (pr != null) {
                replacement = pr;
            } else {
                replacement = p;
            }
            if (replacement != p) {
                // The child takes p's place now; a leaf p stays in place as
                // the deletion fix-up's starting point and is cut off after.
                TreeNode<K, V> pp = replacement.parent = p.parent;
                if (pp == null) (root = replacement).red = false;
                else if (p == pp.left) pp.left = replacement;
                else pp.right = replacement;
                p.left = p.right = p.parent = null;
            }
            TreeNode<K, V> r = p.red ? root : balanceDeletion(root, replacement);
            if (replacement == p) {
                TreeNode<K, V> pp = p.parent;
                p.parent = null;
                if (pp != null) {
                    if (p == pp.left) pp.left = null;
                    else if (p == pp.right) pp.right = null;
                }
            }
            if (movable) moveRootToFront(tab, r);
        }

        /**
         * A resize's split of this bin (index `index` of the old table of
         * `bit` bins) into its low and high bins of `tab`, each keeping the
         * list order; a side of UNTREEIFY_THRESHOLD nodes or fewer becomes a
         * list; a side that got every node keeps the tree as it is; else it
         * is treeified anew.
         */
        final void split(HashMap<K, V> map, Node<K, V>[] tab, int index, int bit) {
            TreeNode<K, V> loHead = null, loTail = null, hiHead = null, hiTail = null;
            int lc = 0, hc = 0;
            TreeNode<K, V> e = this;
            while (e != null) {
                TreeNode<K, V> following = (TreeNode<K, V>) e.next;
                e.next = null;
                if ((e.hash & bit) == 0) {
                    if ((e.prev = loTail) == null) loHead = e;
                    else loTail.next = e;
                    loTail = e;
                    ++lc;
                } else {
                    if ((e.prev = hiTail) == null) hiHead = e;
                    else hiTail.next = e;
                    hiTail = e;
                    ++hc;
                }
                e = following;
            }
            if (loHead != null) {
                if (lc <= UNTREEIFY_THRESHOLD) {
                    tab[index] = loHead.untreeify(map);
                } else {
                    tab[index] = loHead;
                    if (hiHead != null) loHead.treeify(tab);
                }
            }
            if (hiHead != null) {
                if (hc <= UNTREEIFY_THRESHOLD) {
                    tab[index + bit] = hiHead.untreeify(map);
                } else {
                    tab[index + bit] = hiHead;
                    if (loHead != null) hiHead.treeify(tab);
                }
            }
        }

        // The red-black tree's rotations and fix-ups (CLR 13.2-13.4). Each
        // takes the current root and returns the root after it.

        static <K, V> TreeNode<K, V> rotateLeft(TreeNode<K, V> root, TreeNode<K, V> p) {
            TreeNode<K, V> r, pp, rl;
            if (p != null && (r = p.right) != null) {
                if ((rl = p.right = r.left) != null) rl.parent = p;
                if ((pp = r.parent = p.parent) == null) (root = r).red = false;
                else if (pp.left == p) pp.left = r;
                else pp.right = r;
                r.left = p;
                p.parent = r;
            }
            return root;
        }

        static <K, V> TreeNode<K, V> rotateRight(TreeNode<K, V> root, TreeNode<K, V> p) {
            TreeNode<K, V> l, pp, lr;
            if (p != null && (l = p.left) != null) {
                if ((lr = p.left = l.right) != null) lr.parent = p;
                if ((pp = l.parent = p.parent) == null) (root = l).red = false;
                else if (pp.right == p) pp.right = l;
                else pp.left = l;
                l.right = p;
                p.parent = l;
            }
            return root;
        }

        /** CLR's RB-INSERT-FIXUP for the new red node x. */
        static <K, V> TreeNode<K, V> balanceInsertion(TreeNode<K, V> root, TreeNode<K, V> x) {
            x.red = true;
            for (;;) {
                TreeNode<K, V> xp = x.parent;
                if (xp == null) {
                    x.red = false;
                    return x;
                }
                TreeNode<K, V> xpp;
                if (!xp.red || (xpp = xp.parent) == null) return root;
                if (xp == xpp.left) {
                    TreeNode<K, V> uncle = xpp.right;
                    if (uncle != null && uncle.red) {
                        // Case 1: recolor, go up two.
                        uncle.red = false;
                        xp.red = false;
                        xpp.red = true;
                        x = xpp;
                    } else {
                        if (x == xp.right) {
                            // Case 2: rotate into case 3.
                            root = rotateLeft(root, x = xp);
                            xpp = (xp = x.parent) == null ? null : xp.parent;
                        }
                        // Case 3.
                        if (xp != null) {
                            xp.red = false;
                            if (xpp != null) {
                                xpp.red = true;
                                root = rotateRight(root, xpp);
                            }
                        }
                    }
                } else {
                    TreeNode<K, V> uncle = xpp.left;
                    if (uncle != null && uncle.red) {
                        uncle.red = false;
                        xp.red = false;
                        xpp.red = true;
                        x = xpp;
                    } else {
                        if (x == xp.left) {
                            root = rotateRight(root, x = xp);
                            xpp = (xp = x.parent) == null ? null : xp.parent;
                        }
                        if (xp != null) {
                            xp.red = false;
                            if (xpp != null) {
                                xpp.red = true;
                                root = rotateLeft(root, xpp);
                            }
                        }
                    }
                }
            }
        }

        /** CLR's RB-DELETE-FIXUP from x, which carries an extra black. */
        static <K, V> TreeNode<K, V> balanceDeletion(TreeNode<K, V> root, TreeNode<K, V> x) {
            for (;;) {
                TreeNode<K, V> xp;
                if (x == null || x == root) return root;
                if ((xp = x.parent) == null) {
                    x.red = false;
                    return x;
                }
                if (x.red) {
                    x.red = false;
                    return root;
                }
                if (xp.left == x) {
                    TreeNode<K, V> w = xp.right;
                    if (w != null && w.red) {
                        // Case 1: a red sibling; rotate so it is black.
                        w.red = false;
                        xp.red = true;
                        root = rotateLeft(root, xp);
                        w = (xp = x.parent) == null ? null : xp.right;
                    }
                    if (w == null) {
                        x = xp;
                    } else {
                        TreeNode<K, V> wl = w.left, wr = w.right;
                        if ((wr == null || !wr.red) && (wl == null || !wl.red)) {
                            // Case 2: move the extra black up.
                            w.red = true;
                            x = xp;
                        } else {
                            if (wr == null || !wr.red) {
                                // Case 3: into case 4.
                                if (wl != null) wl.red = false;
                                w.red = true;
                                root = rotateRight(root, w);
                                w = (xp = x.parent) == null ? null : xp.right;
                            }
                            // Case 4.
                            if (w != null) {
                                w.red = (xp == null) ? false : xp.red;
                                if ((wr = w.right) != null) wr.red = false;
                            }
                            if (xp != null) {
                                xp.red = false;
                                root = rotateLeft(root, xp);
                            }
                            x = root;
                        }
                    }
                } else {
                    TreeNode<K, V> w = xp.left;
                    if (w != null && w.red) {
                        w.red = false;
                        xp.red = true;
                        root = rotateRight(root, xp);
                        w = (xp = x.parent) == null ? null : xp.left;
                    }
                    if (w == null) {
                        x = xp;
                    } else {
                        TreeNode<K, V> wl = w.left, wr = w.right;
                        if ((wl == null || !wl.red) && (wr == null || !wr.red)) {
                            w.red = true;
                            x = xp;
                        } else {
                            if (wl == null || !wl.red) {
                                if (wr != null) wr.red = false;
                                w.red = true;
                                root = rotateLeft(root, w);
                                w = (xp = x.parent) == null ? null : xp.left;
                            }
                            if (w != null) {
                                w.red = (xp == null) ? false : xp.red;
                                if ((wl = w.left) != null) wl.red = false;
                            }
                            if (xp != null) {
                                xp.red = false;
                                root = rotateRight(root, xp);
                            }
                            x = root;
                        }
                    }
                }
            }
        }
    }
}
