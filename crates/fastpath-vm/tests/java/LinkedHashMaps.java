// tags: collections
// release: 17
// LinkedHashMap: insertion order (re-put keeps position), access order (get and put move to
// the end), removeEldestEntry as an LRU cache with a bound, iteration and removal through the
// views; and an LRU cache simulation checking hit counts.
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

public class LinkedHashMaps {
    static class Lru<K, V> extends LinkedHashMap<K, V> {
        private final int capacity;
        int evictions;

        Lru(int capacity) {
            super(16, 0.75f, true);
            this.capacity = capacity;
        }

        @Override
        protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
            boolean evict = size() > capacity;
            if (evict) {
                evictions++;
            }
            return evict;
        }
    }

    public static void main(String[] args) {
        Map<String, Integer> ins = new LinkedHashMap<>();
        for (String k : new String[] {"zeta", "alpha", "mid", "beta", "alpha"}) {
            ins.put(k, ins.getOrDefault(k, 0) + 1);
        }
        ins.get("zeta");
        System.out.println("insertion order " + ins);
        ins.remove("mid");
        ins.put("mid", 7);
        System.out.println("after remove and re-add " + ins + " " + ins.keySet() + " " + ins.values());

        LinkedHashMap<Integer, String> acc = new LinkedHashMap<>(8, 0.75f, true);
        for (int i = 0; i < 6; i++) {
            acc.put(i, "v" + i);
        }
        acc.get(2);
        acc.get(0);
        acc.put(4, "v4'");
        acc.getOrDefault(1, "x");
        acc.get(99);
        System.out.println("access order " + acc);
        Iterator<Map.Entry<Integer, String>> it = acc.entrySet().iterator();
        it.next();
        it.remove();
        System.out.println("eldest removed " + acc);

        Lru<String, Integer> lru = new Lru<>(3);
        lru.put("a", 1);
        lru.put("b", 2);
        lru.put("c", 3);
        lru.get("a");
        lru.put("d", 4);
        System.out.println("lru " + lru + " evictions " + lru.evictions + " contains b " + lru.containsKey("b"));
        lru.put("c", 33);
        lru.put("e", 5);
        System.out.println("lru " + lru + " evictions " + lru.evictions);

        Lru<Integer, Integer> cache = new Lru<>(64);
        int hits = 0;
        int misses = 0;
        long seed = 12345;
        for (int i = 0; i < 20000; i++) {
            seed = (seed * 6364136223846793005L + 1442695040888963407L);
            int r = (int) (seed >>> 33);
            int key = (r % 100 < 80) ? (r >>> 8) % 50 : (r >>> 8) % 1000;
            Integer v = cache.get(key);
            if (v == null) {
                misses++;
                cache.put(key, key * key);
            } else {
                hits++;
                if (v != key * key) {
                    throw new AssertionError("corrupt value for " + key);
                }
            }
        }
        StringBuilder keys = new StringBuilder();
        int shown = 0;
        for (Integer k : cache.keySet()) {
            if (shown++ < 10) {
                keys.append(k).append(' ');
            }
        }
        System.out.println("cache hits " + hits + " misses " + misses + " evictions " + cache.evictions + " size "
            + cache.size() + " eldest keys " + keys);
    }
}
