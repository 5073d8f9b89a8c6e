package java.util;

/** A map comparing keys by identity (chained buckets on identity hash codes). */
public class IdentityHashMap<K, V> extends AbstractMap<K, V> implements Map<K, V>, java.io.Serializable, Cloneable {
    private static final class E<K, V> extends AbstractMap.SimpleEntry<K, V> {
        final int hash;
        E<K, V> next;
        E(int hash, K k, V v, E<K, V> next) { super(k, v); this.hash = hash; this.next = next; }
    }

    private E<K, V>[] table = (E<K, V>[]) new E[32];
    private int size;

    public IdentityHashMap() {}
    public IdentityHashMap(int expectedMaxSize) {}
    public IdentityHashMap(Map<? extends K, ? extends V> m) { putAll(m); }

    private static int hash(Object k) { return System.identityHashCode(k); }

    public int size() { return size; }

    public V get(Object key) {
        int h = hash(key);
        for (E<K, V> e = table[h & (table.length - 1)]; e != null; e = e.next) if (e.getKey() == key) return e.getValue();
        return null;
    }

    public boolean containsKey(Object key) {
        int h = hash(key);
        for (E<K, V> e = table[h & (table.length - 1)]; e != null; e = e.next) if (e.getKey() == key) return true;
        return false;
    }

    public V put(K key, V value) {
        int h = hash(key);
        int i = h & (table.length - 1);
        for (E<K, V> e = table[i]; e != null; e = e.next) if (e.getKey() == key) return e.setValue(value);
        table[i] = new E<K, V>(h, key, value, table[i]);
        if (++size > table.length * 3 / 4) resize();
        return null;
    }

    private void resize() {
        E<K, V>[] old = table;
        table = (E<K, V>[]) new E[old.length * 2];
        for (E<K, V> e : old) {
            while (e != null) {
                E<K, V> next = e.next;
                int i = e.hash & (table.length - 1);
                e.next = table[i];
                table[i] = e;
                e = next;
            }
        }
    }

    public V remove(Object key) {
        int h = hash(key);
        int i = h & (table.length - 1);
        E<K, V> prev = null;
        for (E<K, V> e = table[i]; e != null; prev = e, e = e.next) {
            if (e.getKey() == key) {
                if (prev == null) table[i] = e.next;
                else prev.next = e.next;
                size--;
                return e.getValue();
            }
        }
        return null;
    }

    public void clear() {
        table = (E<K, V>[]) new E[32];
        size = 0;
    }

    public Set<Map.Entry<K, V>> entrySet() {
        return new AbstractSet<Map.Entry<K, V>>() {
            public int size() { return size; }
            public Iterator<Map.Entry<K, V>> iterator() {
                final ArrayList<Map.Entry<K, V>> all = new ArrayList<Map.Entry<K, V>>();
                for (E<K, V> e : table) for (; e != null; e = e.next) all.add(e);
                final Iterator<Map.Entry<K, V>> it = all.iterator();
                return new Iterator<Map.Entry<K, V>>() {
                    Map.Entry<K, V> last;
                    public boolean hasNext() { return it.hasNext(); }
                    public Map.Entry<K, V> next() { return last = it.next(); }
                    public void remove() { IdentityHashMap.this.remove(last.getKey()); }
                };
            }
        };
    }
}
