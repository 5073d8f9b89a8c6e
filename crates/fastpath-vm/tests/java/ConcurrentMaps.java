// tags: concurrent thread collections
// release: 19
// ConcurrentHashMap from 4 threads: merge-based word counts, putIfAbsent races with exactly
// one winner per key, computeIfAbsent running its function once per key, compute as an atomic
// read-modify-write, removal with remove(key, value); results printed sorted. Iteration order
// is printed only for a map filled by one thread.
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

public class ConcurrentMaps {
    public static void main(String[] args) throws InterruptedException {
        ConcurrentHashMap<String, Integer> counts = new ConcurrentHashMap<>();
        ConcurrentHashMap<Integer, Integer> owners = new ConcurrentHashMap<>();
        ConcurrentHashMap<Integer, String> lazy = new ConcurrentHashMap<>();
        ConcurrentHashMap<String, Long> totals = new ConcurrentHashMap<>();
        AtomicInteger computeCalls = new AtomicInteger();
        AtomicInteger[] putWins = new AtomicInteger[4];
        String[] words = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split(" ");
        Thread[] ts = new Thread[4];
        for (int t = 0; t < 4; t++) {
            final int id = t;
            putWins[t] = new AtomicInteger();
            ts[t] = new Thread(() -> {
                for (int i = 0; i < 5000; i++) {
                    counts.merge(words[(i * 3 + id) % words.length], 1, Integer::sum);
                    if (owners.putIfAbsent(i % 1000, id) == null) {
                        putWins[id].incrementAndGet();
                    }
                    lazy.computeIfAbsent(i % 500, k -> {
                        computeCalls.incrementAndGet();
                        return "v" + k;
                    });
                    final long add = i;
                    totals.compute(i % 2 == 0 ? "even" : "odd", (k, v) -> v == null ? add : v + add);
                }
            });
        }
        for (Thread t : ts) {
            t.start();
        }
        for (Thread t : ts) {
            t.join();
        }
        List<String> keys = new ArrayList<>(counts.keySet());
        Collections.sort(keys);
        StringBuilder sb = new StringBuilder();
        int sum = 0;
        for (String k : keys) {
            sb.append(k).append('=').append(counts.get(k)).append(' ');
            sum += counts.get(k);
        }
        System.out.println("counts " + sb + "total " + sum);
        int wins = 0;
        for (AtomicInteger w : putWins) {
            wins += w.get();
        }
        System.out.println("putIfAbsent winners " + wins + " keys " + owners.size());
        System.out.println("computeIfAbsent calls " + computeCalls.get() + " size " + lazy.size() + " sample "
            + lazy.get(0) + " " + lazy.get(499));
        System.out.println("compute totals even " + totals.get("even") + " odd " + totals.get("odd"));
        int removed = 0;
        for (int k = 0; k < 1000; k++) {
            if (owners.remove(k, owners.get(k))) {
                removed++;
            }
        }
        System.out.println("removed " + removed + " left " + owners.size() + " " + owners.isEmpty());

        ConcurrentHashMap<Integer, String> single = new ConcurrentHashMap<>();
        for (int i = 0; i < 20; i++) {
            single.put(i * 13 % 37, "s" + i);
        }
        System.out.println(single);
        System.out.println(single.getOrDefault(99, "none") + " " + single.containsKey(13) + " " + single.replace(13, "x")
            + " " + single.get(13));
        try {
            single.put(1, null);
        } catch (NullPointerException e) {
            System.out.println("null values rejected");
        }
    }
}
