package java.util.concurrent;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.AbstractCollection;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A hash map safe for concurrent use, guarded by one monitor (fastpath's). Its table follows
 * OpenJDK's ConcurrentHashMap exactly where iteration order shows it: the spread hash
 * ((h ^ h >>> 16) & 0x7fffffff), the sizing (a table resizes when the count reaches 3/4 of it),
 * and a resize's bin split (OpenJDK's transfer: the trailing run of nodes that go to the same
 * half is moved whole, the nodes before it are prepended in reverse).
 */
public class ConcurrentHashMap<K, V> extends AbstractMap<K, V> implements ConcurrentMap<K, V>, java.io.Serializable {
    private static final int MAXIMUM_CAPACITY = 1 << 30;
    private static final int DEFAULT_CAPACITY = 16;
    static final int HASH_BITS = 0x7fffffff;

    static class Node<K, V> implements Map.Entry<K, V> {
        final int hash;
        final K key;
        volatile V val;
        Node<K, V> next;

        Node(int hash, K key, V val, Node<K, V> next) {
            this.hash = hash;
            this.key = key;
            this.val = val;
            this.next = next;
        }
        public final K getKey() { return key; }
        public final V getValue() { return val; }
        public final int hashCode() { return key.hashCode() ^ val.hashCode(); }
        public final String toString() { return key + "=" + val; }
        public final V setValue(V value) { throw new UnsupportedOperationException(); }
        public final boolean equals(Object o) {
            Object k, v, u;
            Map.Entry<?, ?> e;
            return ((o instanceof Map.Entry) && (k = (e = (Map.Entry<?, ?>) o).getKey()) != null
                && (v = e.getValue()) != null && (k == key || k.equals(key)) && (v == (u = val) || v.equals(u)));
        }
    }

    static final int spread(int h) { return (h ^ (h >>> 16)) & HASH_BITS; }

    private static final int tableSizeFor(int c) {
        int n = -1 >>> Integer.numberOfLeadingZeros(c - 1);
        return (n < 0) ? 1 : (n >= MAXIMUM_CAPACITY) ? MAXIMUM_CAPACITY : n + 1;
    }

    private Node<K, V>[] table;
    private int sizeCtl;
    private int count;
    private int modCount;

    public ConcurrentHashMap() {}

    public ConcurrentHashMap(int initialCapacity) { this(initialCapacity, 0.75f, 1); }

    public ConcurrentHashMap(int initialCapacity, float loadFactor) { this(initialCapacity, loadFactor, 1); }

    public ConcurrentHashMap(int initialCapacity, float loadFactor, int concurrencyLevel) {
        if (!(loadFactor > 0.0f) || initialCapacity < 0 || concurrencyLevel <= 0) throw new IllegalArgumentException();
        if (initialCapacity < concurrencyLevel) initialCapacity = concurrencyLevel;
        long size = (long) (1.0 + (long) initialCapacity / loadFactor);
        int cap = (size >= (long) MAXIMUM_CAPACITY) ? MAXIMUM_CAPACITY : tableSizeFor((int) size);
        this.sizeCtl = cap;
    }

    public ConcurrentHashMap(Map<? extends K, ? extends V> m) {
        this.sizeCtl = DEFAULT_CAPACITY;
        putAll(m);
    }

    private Node<K, V>[] initTable() {
        int n = (sizeCtl > 0) ? sizeCtl : DEFAULT_CAPACITY;
        table = (Node<K, V>[]) new Node[n];
        sizeCtl = n - (n >>> 2);
        return table;
    }

    /** OpenJDK's transfer, one thread: bins from the top down, each split into two lists. */
    private void transfer() {
        Node<K, V>[] tab = table;
        int n = tab.length;
        Node<K, V>[] nextTab = (Node<K, V>[]) new Node[n << 1];
        for (int i = n - 1; i >= 0; i--) {
            Node<K, V> f = tab[i];
            if (f == null) continue;
            Node<K, V> ln, hn;
            int runBit = f.hash & n;
            Node<K, V> lastRun = f;
            for (Node<K, V> p = f.next; p != null; p = p.next) {
                int b = p.hash & n;
                if (b != runBit) {
                    runBit = b;
                    lastRun = p;
                }
            }
            if (runBit == 0) {
                ln = lastRun;
                hn = null;
            } else {
                hn = lastRun;
                ln = null;
            }
            for (Node<K, V> p = f; p != lastRun; p = p.next) {
                int ph = p.hash;
                K pk = p.key;
                V pv = p.val;
                if ((ph & n) == 0) ln = new Node<K, V>(ph, pk, pv, ln);
                else hn = new Node<K, V>(ph, pk, pv, hn);
            }
            nextTab[i] = ln;
            nextTab[i + n] = hn;
        }
        table = nextTab;
        sizeCtl = (n << 1) - (n >>> 1);
    }

    private void addCount(int x) {
        count += x;
        modCount++;
        if (x > 0) {
            while (count >= sizeCtl && table != null && table.length < MAXIMUM_CAPACITY) transfer();
        }
    }

    private void tryPresize(int size) {
        int c = (size >= (MAXIMUM_CAPACITY >>> 1)) ? MAXIMUM_CAPACITY : tableSizeFor(size + (size >>> 1) + 1);
        int sc;
        while ((sc = sizeCtl) >= 0) {
            Node<K, V>[] tab = table;
            int n;
            if (tab == null || (n = tab.length) == 0) {
                n = (sc > c) ? sc : c;
                table = (Node<K, V>[]) new Node[n];
                sizeCtl = n - (n >>> 2);
            } else if (c <= sc || n >= MAXIMUM_CAPACITY) {
                break;
            } else {
                transfer();
            }
        }
    }

    private Node<K, V> find(Object key) {
        Node<K, V>[] tab = table;
        if (tab == null) return null;
        int h = spread(key.hashCode());
        for (Node<K, V> e = tab[(tab.length - 1) & h]; e != null; e = e.next) {
            K ek;
            if (e.hash == h && ((ek = e.key) == key || key.equals(ek))) return e;
        }
        return null;
    }

    public synchronized V get(Object key) {
        Node<K, V> e = find(key);
        return e == null ? null : e.val;
    }

    public synchronized boolean containsKey(Object key) { return find(key) != null; }

    public synchronized boolean containsValue(Object value) {
        if (value == null) throw new NullPointerException();
        if (table != null) {
            for (Node<K, V> b : table) for (Node<K, V> e = b; e != null; e = e.next) if (value.equals(e.val)) return true;
        }
        return false;
    }

    public synchronized int size() { return count; }
    public synchronized boolean isEmpty() { return count == 0; }
    public synchronized long mappingCount() { return count; }

    private V putVal(K key, V value, boolean onlyIfAbsent) {
        if (key == null || value == null) throw new NullPointerException();
        int hash = spread(key.hashCode());
        Node<K, V>[] tab = table;
        if (tab == null || tab.length == 0) tab = initTable();
        int i = (tab.length - 1) & hash;
        Node<K, V> f = tab[i];
        if (f == null) {
            tab[i] = new Node<K, V>(hash, key, value, null);
        } else {
            Node<K, V> e = f;
            for (;;) {
                K ek;
                if (e.hash == hash && ((ek = e.key) == key || key.equals(ek))) {
                    V old = e.val;
                    if (!onlyIfAbsent) e.val = value;
                    return old;
                }
                if (e.next == null) {
                    e.next = new Node<K, V>(hash, key, value, null);
                    break;
                }
                e = e.next;
            }
        }
        addCount(1);
        return null;
    }

    public synchronized V put(K key, V value) { return putVal(key, value, false); }
    public synchronized V putIfAbsent(K key, V value) { return putVal(key, value, true); }

    public synchronized void putAll(Map<? extends K, ? extends V> m) {
        tryPresize(m.size());
        for (Map.Entry<? extends K, ? extends V> e : m.entrySet()) putVal(e.getKey(), e.getValue(), false);
    }

    private V removeNode(Object key, Object value) {
        Node<K, V>[] tab = table;
        if (tab == null) return null;
        int hash = spread(key.hashCode());
        int i = (tab.length - 1) & hash;
        Node<K, V> pred = null;
        for (Node<K, V> e = tab[i]; e != null; pred = e, e = e.next) {
            K ek;
            if (e.hash == hash && ((ek = e.key) == key || key.equals(ek))) {
                V ev = e.val;
                if (value != null && value != ev && !value.equals(ev)) return null;
                if (pred != null) pred.next = e.next;
                else tab[i] = e.next;
                addCount(-1);
                return ev;
            }
        }
        return null;
    }

    public synchronized V remove(Object key) {
        if (key == null) throw new NullPointerException();
        return removeNode(key, null);
    }

    public synchronized boolean remove(Object key, Object value) {
        if (key == null) throw new NullPointerException();
        return value != null && removeNode(key, value) != null;
    }

    public synchronized boolean replace(K key, V oldValue, V newValue) {
        if (key == null || oldValue == null || newValue == null) throw new NullPointerException();
        Node<K, V> e = find(key);
        if (e != null && (e.val == oldValue || oldValue.equals(e.val))) {
            e.val = newValue;
            return true;
        }
        return false;
    }

    public synchronized V replace(K key, V value) {
        if (key == null || value == null) throw new NullPointerException();
        Node<K, V> e = find(key);
        if (e == null) return null;
        V old = e.val;
        e.val = value;
        return old;
    }

    public synchronized V getOrDefault(Object key, V defaultValue) {
        V v = get(key);
        return v == null ? defaultValue : v;
    }

    public synchronized void clear() {
        if (table != null) {
            for (int i = 0; i < table.length; i++) table[i] = null;
        }
        count = 0;
        modCount++;
    }

    public synchronized V computeIfAbsent(K key, Function<? super K, ? extends V> mappingFunction) {
        if (key == null || mappingFunction == null) throw new NullPointerException();
        Node<K, V> e = find(key);
        if (e != null) return e.val;
        V v = mappingFunction.apply(key);
        if (v != null) putVal(key, v, false);
        return v;
    }

    public synchronized V computeIfPresent(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
        if (key == null || remappingFunction == null) throw new NullPointerException();
        Node<K, V> e = find(key);
        if (e == null) return null;
        V v = remappingFunction.apply(key, e.val);
        if (v != null) e.val = v;
        else removeNode(key, null);
        return v;
    }

    public synchronized V compute(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
        if (key == null || remappingFunction == null) throw new NullPointerException();
        Node<K, V> e = find(key);
        V v = remappingFunction.apply(key, e == null ? null : e.val);
        if (e != null) {
            if (v != null) e.val = v;
            else removeNode(key, null);
        } else if (v != null) {
            putVal(key, v, false);
        }
        return v;
    }

    public synchronized V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> remappingFunction) {
        if (key == null || value == null || remappingFunction == null) throw new NullPointerException();
        Node<K, V> e = find(key);
        if (e == null) {
            putVal(key, value, false);
            return value;
        }
        V v = remappingFunction.apply(e.val, value);
        if (v != null) e.val = v;
        else removeNode(key, null);
        return v;
    }

    public void forEach(BiConsumer<? super K, ? super V> action) {
        if (action == null) throw new NullPointerException();
        for (Map.Entry<K, V> e : snapshot()) action.accept(e.getKey(), e.getValue());
    }

    private synchronized java.util.ArrayList<Map.Entry<K, V>> snapshot() {
        java.util.ArrayList<Map.Entry<K, V>> all = new java.util.ArrayList<Map.Entry<K, V>>(count);
        if (table != null) for (Node<K, V> b : table) for (Node<K, V> e = b; e != null; e = e.next) all.add(e);
        return all;
    }

    private Iterator<Map.Entry<K, V>> entryIterator() {
        final Iterator<Map.Entry<K, V>> it = snapshot().iterator();
        return new Iterator<Map.Entry<K, V>>() {
            Map.Entry<K, V> last;
            public boolean hasNext() { return it.hasNext(); }
            public Map.Entry<K, V> next() { return last = it.next(); }
            public void remove() {
                if (last == null) throw new IllegalStateException();
                ConcurrentHashMap.this.remove(last.getKey());
                last = null;
            }
        };
    }

    public Set<Map.Entry<K, V>> entrySet() {
        return new AbstractSet<Map.Entry<K, V>>() {
            public Iterator<Map.Entry<K, V>> iterator() { return entryIterator(); }
            public int size() { return ConcurrentHashMap.this.size(); }
        };
    }

    public Collection<V> values() {
        return new AbstractCollection<V>() {
            public Iterator<V> iterator() {
                final Iterator<Map.Entry<K, V>> it = entryIterator();
                return new Iterator<V>() {
                    public boolean hasNext() { return it.hasNext(); }
                    public V next() { return it.next().getValue(); }
                    public void remove() { it.remove(); }
                };
            }
            public int size() { return ConcurrentHashMap.this.size(); }
        };
    }

    public KeySetView<K, V> keySet() { return new KeySetView<K, V>(this, null); }

    public KeySetView<K, V> keySet(V mappedValue) {
        if (mappedValue == null) throw new NullPointerException();
        return new KeySetView<K, V>(this, mappedValue);
    }

    public static <K> KeySetView<K, Boolean> newKeySet() {
        return new KeySetView<K, Boolean>(new ConcurrentHashMap<K, Boolean>(), Boolean.TRUE);
    }

    public static <K> KeySetView<K, Boolean> newKeySet(int initialCapacity) {
        return new KeySetView<K, Boolean>(new ConcurrentHashMap<K, Boolean>(initialCapacity), Boolean.TRUE);
    }

    public static class KeySetView<K, V> extends AbstractSet<K> implements Set<K>, java.io.Serializable {
        private final ConcurrentHashMap<K, V> map;
        private final V value;

        KeySetView(ConcurrentHashMap<K, V> map, V value) {
            this.map = map;
            this.value = value;
        }

        public ConcurrentHashMap<K, V> getMap() { return map; }
        public V getMappedValue() { return value; }
        public int size() { return map.size(); }
        public boolean contains(Object o) { return map.containsKey(o); }
        public boolean remove(Object o) { return map.remove(o) != null; }
        public void clear() { map.clear(); }

        public boolean add(K e) {
            if (value == null) throw new UnsupportedOperationException();
            return map.putIfAbsent(e, value) == null;
        }

        public Iterator<K> iterator() {
            final Iterator<Map.Entry<K, V>> it = map.entryIterator();
            return new Iterator<K>() {
                public boolean hasNext() { return it.hasNext(); }
                public K next() { return it.next().getKey(); }
                public void remove() { it.remove(); }
            };
        }
    }
}
