// tags: collections
// release: 17
// HashMap and LinkedHashMap lookups by every path a get takes: an empty map, a null key, the
// first node of a bin, later nodes of a list bin (keys whose hashes collide; tree bins are
// HashTreeBins'), and absent keys in each; how often a lookup calls hashCode and equals (once per get, equals only
// on an equal hash and a different key object); in access order, that a get of the last entry
// leaves the order and modCount alone (an iterator made before it goes on) while a get of any
// other entry moves it to the end (the iterator then fails fast), with getOrDefault alike.
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

public class MapLookups {
    static int hashCalls;
    static int equalsCalls;

    // A key whose hash is chosen: keys with the same `hash` share a bin.
    static final class Key implements Comparable<Key> {
        final int id;
        final int hash;

        Key(int id, int hash) {
            this.id = id;
            this.hash = hash;
        }

        @Override
        public int hashCode() {
            hashCalls++;
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            equalsCalls++;
            return o instanceof Key && ((Key) o).id == id;
        }

        @Override
        public int compareTo(Key o) {
            return Integer.compare(id, o.id);
        }

        @Override
        public String toString() {
            return "k" + id;
        }
    }

    static String counts() {
        String s = "hashCode " + hashCalls + ", equals " + equalsCalls;
        hashCalls = 0;
        equalsCalls = 0;
        return s;
    }

    static void lookups(String name, Map<Key, String> m) {
        System.out.println(name + " empty: " + m.get(new Key(1, 7)) + " " + m.containsKey(null) + " (" + counts() + ")");
        // Five keys in one bin (hash 7), two alone, then a null key.
        for (int i = 0; i < 5; i++) {
            m.put(new Key(i, 7), "c" + i);
        }
        m.put(new Key(10, 8), "a10");
        m.put(new Key(11, 1 << 20), "a11");
        m.put(null, "nv");
        counts();
        for (int i = 0; i < 5; i++) {
            // An equal key, not the same object: equals runs for each node passed with hash 7.
            System.out.println(name + " chain k" + i + ": " + m.get(new Key(i, 7)) + " (" + counts() + ")");
        }
        System.out.println(name + " chain absent: " + m.get(new Key(99, 7)) + " (" + counts() + ")");
        System.out.println(name + " same bin, other hash: " + m.get(new Key(5, 39)) + " (" + counts() + ")");
        System.out.println(name + " alone: " + m.get(new Key(10, 8)) + " " + m.get(new Key(11, 1 << 20)) + " (" + counts() + ")");
        System.out.println(name + " null key: " + m.get(null) + " " + m.getOrDefault(null, "none") + " (" + counts() + ")");
        System.out.println(name + " absent: " + m.get(new Key(12, 9)) + " " + m.getOrDefault(new Key(12, 9), "none") + " (" + counts() + ")");
        m.remove(null);
        System.out.println(name + " null key removed: " + m.get(null) + " " + m.containsKey(null) + " (" + counts() + ")");
        System.out.println(name + " size " + m.size());
    }

    static String order(Map<Key, String> m) {
        StringBuilder sb = new StringBuilder();
        for (Key k : m.keySet()) {
            sb.append(k).append(' ');
        }
        return sb.toString().trim();
    }

    static void accessOrder() {
        LinkedHashMap<Key, String> m = new LinkedHashMap<>(16, 0.75f, true);
        Key[] keys = new Key[6];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = new Key(i, i % 2 == 0 ? 3 : i);
            m.put(keys[i], "v" + i);
        }
        System.out.println("access order: " + order(m));
        // The last entry: nothing moves and an iterator made before goes on.
        Iterator<Key> it = m.keySet().iterator();
        it.next();
        System.out.println("get last: " + m.get(keys[5]) + " -> " + order(m));
        System.out.println("iterator after get of the last: " + it.next());
        System.out.println("getOrDefault last: " + m.getOrDefault(keys[5], "none") + " -> " + order(m));
        System.out.println("iterator after getOrDefault of the last: " + it.next());
        // Another entry moves to the end; the iterator fails fast.
        System.out.println("get first: " + m.get(keys[0]) + " -> " + order(m));
        try {
            it.next();
            System.out.println("iterator after get of the first: went on");
        } catch (ConcurrentModificationException e) {
            System.out.println("iterator after get of the first: " + e.getClass().getSimpleName());
        }
        System.out.println("get middle (a later node of its bin): " + m.get(new Key(2, 3)) + " -> " + order(m));
        System.out.println("getOrDefault middle: " + m.getOrDefault(keys[3], "none") + " -> " + order(m));
        System.out.println("getOrDefault absent: " + m.getOrDefault(new Key(9, 3), "none") + " -> " + order(m));
        System.out.println("get absent: " + m.get(new Key(9, 9)) + " -> " + order(m));
        // put of a present key and replace move it as a get does.
        m.put(keys[1], "w1");
        m.replace(keys[4], "w4");
        System.out.println("put, replace: " + order(m) + " " + m.get(keys[1]) + " " + m);
        // A null key, in access order.
        m.put(null, "n");
        m.get(keys[0]);
        System.out.println("null key: " + m.get(null) + " -> " + order(m));

        // Insertion order: get moves nothing.
        LinkedHashMap<Key, String> ins = new LinkedHashMap<>();
        for (Key k : keys) {
            ins.put(k, k.toString());
        }
        Iterator<Key> it2 = ins.keySet().iterator();
        it2.next();
        ins.get(keys[0]);
        ins.getOrDefault(keys[2], "none");
        System.out.println("insertion order: " + order(ins) + ", iterator goes on: " + it2.next());
    }

    public static void main(String[] args) {
        lookups("HashMap(0)", new HashMap<>(0));
        lookups("LinkedHashMap(access)", new LinkedHashMap<>(16, 0.75f, true));
        accessOrder();
    }
}
