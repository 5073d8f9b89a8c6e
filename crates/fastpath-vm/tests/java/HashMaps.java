// tags: collections
// release: 11
// HashMap and HashSet with String and Integer keys (whose hashCodes are specified, so the
// iteration order is the table order and is the same on every JVM running the same HashMap
// algorithm): put/get/remove/containsKey/containsValue/getOrDefault/putIfAbsent/merge/compute/
// computeIfAbsent/computeIfPresent/replace, null key and values, keySet/values/entrySet
// iteration and Entry.setValue, resizing through many entries, colliding hashes ("Aa"/"BB"),
// a bin turned into a tree, equals/hashCode/toString of maps and sets, and set algebra.
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

public class HashMaps {
    // Strings of length n built from "Aa" and "BB" blocks all share one hashCode.
    static List<String> colliding(int blocks) {
        List<String> out = new ArrayList<>();
        out.add("");
        for (int i = 0; i < blocks; i++) {
            List<String> next = new ArrayList<>();
            for (String s : out) {
                next.add(s + "Aa");
                next.add(s + "BB");
            }
            out = next;
        }
        return out;
    }

    public static void main(String[] args) {
        Map<String, Integer> m = new HashMap<>();
        String[] words = "the quick brown fox jumps over the lazy dog and the cat".split(" ");
        for (String w : words) {
            m.merge(w, 1, Integer::sum);
        }
        System.out.println(m);
        System.out.println(m.get("the") + " " + m.get("missing") + " " + m.getOrDefault("missing", -1) + " "
            + m.containsKey("fox") + " " + m.containsValue(3) + " " + m.size());
        System.out.println(m.putIfAbsent("fox", 100) + " " + m.putIfAbsent("wolf", 5) + " " + m.remove("dog") + " "
            + m.remove("dog") + " " + m.replace("cat", 9) + " " + m.replace("zebra", 1));
        m.compute("the", (k, v) -> v == null ? 0 : v * 10);
        m.compute("new", (k, v) -> v == null ? k.length() : v);
        m.computeIfAbsent("lazy", k -> 999);
        m.computeIfAbsent("absent", String::length);
        m.computeIfPresent("quick", (k, v) -> null);
        m.merge("and", 5, (a, b) -> null);
        System.out.println(m);
        for (Map.Entry<String, Integer> e : m.entrySet()) {
            if (e.getKey().length() == 3) {
                e.setValue(e.getValue() + 1000);
            }
        }
        System.out.println(m.keySet() + " " + m.values());
        Iterator<String> keys = m.keySet().iterator();
        while (keys.hasNext()) {
            if (keys.next().startsWith("a")) {
                keys.remove();
            }
        }
        m.values().removeIf(v -> v > 1000 && v < 1005);
        System.out.println(m);

        Map<Integer, String> ints = new HashMap<>();
        for (int i = 0; i < 40; i++) {
            ints.put(i * 37 % 101 - 50, "v" + i);
        }
        System.out.println(ints.keySet());
        ints.put(null, "null key");
        ints.put(1000, null);
        System.out.println(ints.get(null) + " " + ints.containsKey(1000) + " " + ints.get(1000) + " "
            + ints.getOrDefault(1000, "default") + " " + ints.size());

        Map<Integer, Integer> big = new HashMap<>();
        for (int i = 0; i < 20000; i++) {
            big.put(i * 7919 % 100003, i);
        }
        long sum = 0;
        int pos = 0;
        for (Map.Entry<Integer, Integer> e : big.entrySet()) {
            sum += (long) e.getKey() * (pos++ % 13) + e.getValue();
        }
        for (int i = 0; i < 20000; i += 2) {
            big.remove(i * 7919 % 100003);
        }
        System.out.println("big " + big.size() + " order checksum " + sum + " " + big.hashCode());

        List<String> same = colliding(5);
        Map<String, Integer> collide = new HashMap<>();
        for (int i = 0; i < same.size(); i++) {
            collide.put(same.get(i), i);
        }
        // 32 keys in one bin make HashMap turn the bin into a tree; the iteration order inside
        // a tree bin is an implementation detail, so only lookups and the contents are checked.
        int found = 0;
        for (int i = 0; i < same.size(); i++) {
            if (collide.get(same.get(i)) == i) {
                found++;
            }
        }
        collide.remove(same.get(3));
        System.out.println("collisions " + same.size() + " hash " + same.get(0).hashCode() + " " + same.get(31).hashCode()
            + " found " + found + " after remove " + collide.size() + " " + collide.containsKey(same.get(3)) + " "
            + collide.get(same.get(4)) + " " + collide.hashCode());

        Set<String> s1 = new HashSet<>();
        Set<String> s2 = new HashSet<>();
        for (String w : words) {
            s1.add(w);
        }
        for (String w : "a lazy cat and a quick dog".split(" ")) {
            s2.add(w);
        }
        Set<String> union = new HashSet<>(s1);
        union.addAll(s2);
        Set<String> inter = new HashSet<>(s1);
        inter.retainAll(s2);
        Set<String> diff = new HashSet<>(s1);
        diff.removeAll(s2);
        System.out.println(s1 + "\n" + union + "\n" + inter + "\n" + diff);
        System.out.println(s1.contains("fox") + " " + s1.add("fox") + " " + s1.add("wolf") + " " + s1.remove("the") + " "
            + s1.size() + " " + s1.hashCode());
        Map<String, Integer> copy = new HashMap<>(m);
        System.out.println(copy.equals(m) + " " + (copy.hashCode() == m.hashCode()) + " " + new HashSet<>(s2).equals(s2));
        Set<Integer> numbers = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            numbers.add(i * i % 97);
        }
        System.out.println(numbers.size() + " " + numbers);
    }
}
