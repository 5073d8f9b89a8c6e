import java.util.LinkedHashMap;
import java.util.Map;

// LruCache: the pattern of Caffeine's GetPutBenchmark for LinkedHashMap_Lru, which seed 004
// measured: an access-ordered LinkedHashMap with removeEldestEntry as a bounded LRU, every
// operation in a synchronized block on the one cache, 75% gets and 25% puts over keys drawn
// from a skewed distribution (precomputed, seeded), shared by `threads` threads (default 1).
// Check: every operation ran, gets + misses add up, the cache never exceeds its capacity,
// and every cached value is the one its key implies.
final class LruCache extends Benchmark {
    static final int CAPACITY = 1 << 10;
    static final int KEY_SPACE = 1 << 13;
    static final int TRACE = 1 << 16;

    @SuppressWarnings("serial")
    static final class Lru extends LinkedHashMap<Integer, Integer> {
        Lru() {
            super(2 * CAPACITY, 0.75f, true);
        }

        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, Integer> eldest) {
            return size() > CAPACITY;
        }
    }

    private final Integer[] keys = new Integer[TRACE];

    LruCache() {
        Lcg random = new Lcg(8191);
        for (int i = 0; i < TRACE; i++) {
            // u^3 for u uniform in [0, 1) concentrates the keys near 0: a few hot keys, a long tail.
            double u = random.next(1 << 20) / (double) (1 << 20);
            keys[i] = (int) (KEY_SPACE * u * u * u);
        }
    }

    static final class Stats {
        long gets;
        long hits;
        long puts;
        long wrongValues;
    }

    @Override
    Object run(int inner, int threads) {
        Lru cache = new Lru();
        Stats[] stats = new Stats[threads];
        Workers.runAll(threads, index -> {
            Stats s = new Stats();
            int n = Workers.share(inner, threads, index);
            int pos = (index * 7919) % TRACE;
            for (int i = 0; i < n; i++) {
                Integer key = keys[pos];
                pos = (pos + 1) & (TRACE - 1);
                if ((i & 3) == 0) {
                    synchronized (cache) {
                        cache.put(key, key * 31);
                    }
                    s.puts++;
                } else {
                    Integer v;
                    synchronized (cache) {
                        v = cache.get(key);
                    }
                    s.gets++;
                    if (v != null) {
                        s.hits++;
                        if (v != key * 31) {
                            s.wrongValues++;
                        }
                    }
                }
            }
            stats[index] = s;
        });
        long[] r = new long[5];
        for (Stats s : stats) {
            r[0] += s.gets;
            r[1] += s.hits;
            r[2] += s.puts;
            r[3] += s.wrongValues;
        }
        int bad = 0;
        for (Map.Entry<Integer, Integer> e : cache.entrySet()) {
            if (e.getValue() != e.getKey() * 31) {
                bad++;
            }
        }
        r[3] += bad;
        r[4] = cache.size();
        return r;
    }

    @Override
    String verify(Object result, int inner, int threads) {
        long[] r = (long[]) result;
        String e = expect("operations", r[0] + r[2], inner);
        if (e == null) {
            e = expect("wrong values", r[3], 0);
        }
        if (e == null && (r[1] > r[0] || r[1] == 0)) {
            e = "hits " + r[1] + " of " + r[0] + " gets";
        }
        if (e == null && (r[4] > CAPACITY || r[4] == 0)) {
            e = "cache size " + r[4] + " (capacity " + CAPACITY + ")";
        }
        return e;
    }

    @Override
    int defaultInner() {
        return 400_000;
    }
}
