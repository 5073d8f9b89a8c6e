// tags: gc collections
// release: 11
// Churn with a live set: 256 slots each hold a linked list of boxed values; each step
// replaces a random slot's list (seeded LCG) with a fresh one of random length, so old lists
// die while the rest stay reachable across collections. Every list carries its expected sum,
// checked on each visit, and the whole live set is verified at the end. ArrayLists grow and
// shrink beside it.
import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;

public class ListChurn {
    static final class Segment {
        final LinkedList<Long> values = new LinkedList<>();
        long expected;
    }

    static long seed = 0x5DEECE66DL;

    static int next(int bound) {
        seed = seed * 6364136223846793005L + 1442695040888963407L;
        return (int) ((seed >>> 33) % bound);
    }

    public static void main(String[] args) {
        Segment[] slots = new Segment[256];
        long replaced = 0;
        long verified = 0;
        for (int step = 0; step < 40000; step++) {
            int k = next(slots.length);
            Segment old = slots[k];
            if (old != null) {
                long sum = 0;
                for (long v : old.values) {
                    sum += v;
                }
                if (sum != old.expected) {
                    throw new AssertionError("slot " + k + " corrupted at step " + step);
                }
                verified++;
            }
            Segment s = new Segment();
            int len = 1 + next(40);
            for (int i = 0; i < len; i++) {
                long v = (long) step * 1000 + i;
                s.values.add(v);
                s.expected += v;
            }
            slots[k] = s;
            replaced++;
        }
        long liveSum = 0;
        long liveCount = 0;
        for (Segment s : slots) {
            long sum = 0;
            for (long v : s.values) {
                sum += v;
                liveCount++;
            }
            if (sum != s.expected) {
                throw new AssertionError("live set corrupted");
            }
            liveSum += sum;
        }
        System.out.println("replaced " + replaced + " verified " + verified + " live values " + liveCount + " sum " + liveSum);

        List<List<String>> buckets = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            buckets.add(new ArrayList<>());
        }
        long chars = 0;
        for (int round = 0; round < 30000; round++) {
            List<String> b = buckets.get(next(64));
            if (b.size() > 50) {
                for (int i = b.size() - 1; i >= 25; i--) {
                    chars -= b.remove(i).length();
                }
            }
            String s = "item-" + round;
            b.add(s);
            chars += s.length();
        }
        long recount = 0;
        int items = 0;
        for (List<String> b : buckets) {
            for (String s : b) {
                recount += s.length();
                items++;
            }
        }
        System.out.println("buckets hold " + items + " strings, chars " + recount + " matches running count "
            + (recount == chars));
    }
}
