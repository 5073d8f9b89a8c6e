import java.util.LinkedHashMap;
import java.util.Map;

// GcLruCache: a bounded LRU cache of freshly built values, the shape of a web tier's object
// cache: an access-ordered LinkedHashMap of CAPACITY entries (removeEldestEntry evicts the
// least recently used), kept across iterations, over keys drawn from a skewed distribution
// (seeded). A miss builds the value (an object with an int[] payload of 16 to 143 ints, its
// size a function of the key) and inserts it, evicting the eldest: young objects die at once
// (boxed keys, values that are evicted before they are read again) while the retained working
// set (about 5 MB) ages and dies in LRU order. Check: every value read has the payload its key
// implies, hits + misses add up, the cache stays within its capacity.
final class GcLruCache extends Benchmark {
    static final int CAPACITY = 1 << 14;
    static final int KEY_SPACE = 1 << 17;

    static final class Value {
        final int key;
        final int[] payload;

        Value(int key) {
            this.key = key;
            payload = new int[16 + (key & 127)];
            for (int i = 0; i < payload.length; i++) {
                payload[i] = key * 31 + i;
            }
        }

        boolean intact(int k) {
            return key == k
                && payload.length == 16 + (k & 127)
                && payload[0] == k * 31
                && payload[payload.length - 1] == k * 31 + payload.length - 1;
        }
    }

    @SuppressWarnings("serial")
    static final class Lru extends LinkedHashMap<Integer, Value> {
        Lru() {
            super(2 * CAPACITY, 0.75f, true);
        }

        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, Value> eldest) {
            return size() > CAPACITY;
        }
    }

    private final Lru cache = new Lru();
    private final Lcg random = new Lcg(20231);

    @Override
    Object run(int inner, int threads) {
        long hits = 0;
        long misses = 0;
        long bad = 0;
        long payloadSum = 0;
        for (int i = 0; i < inner; i++) {
            // u^2 for u uniform in [0, 1): a hot head, a long tail that misses.
            double u = random.next(1 << 20) / (double) (1 << 20);
            int k = (int) (KEY_SPACE * u * u);
            Value v = cache.get(k);
            if (v == null) {
                misses++;
                v = new Value(k);
                cache.put(k, v);
            } else {
                hits++;
            }
            if (!v.intact(k)) {
                bad++;
            }
            payloadSum += v.payload[v.payload.length - 1];
        }
        return new long[] {hits, misses, bad, payloadSum, cache.size()};
    }

    @Override
    String verify(Object result, int inner, int threads) {
        long[] r = (long[]) result;
        String e = expect("values with a wrong payload", r[2], 0);
        if (e == null) {
            e = expect("hits + misses", r[0] + r[1], inner);
        }
        if (e == null && (r[4] > CAPACITY || r[4] == 0)) {
            e = "cache size " + r[4] + " (capacity " + CAPACITY + ")";
        }
        return e;
    }

    @Override
    int defaultInner() {
        return 50_000;
    }
}
