// tags: collections
// release: 11
// TreeMap and TreeSet range and descending views are live: headMap/tailMap/subMap,
// descendingMap, navigableKeySet/descendingKeySet, TreeSet's subSet/headSet/tailSet and
// descendingSet see later changes to the tree and write through to it (put, remove, clear,
// polls, iterator removal in both directions, including nodes with two children); bounds are
// checked with HotSpot's exceptions and messages; navigation inside views.
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

public class TreeViews {
    static void attempt(String what, Runnable r) {
        try {
            r.run();
            System.out.println(what + ": ok");
        } catch (IllegalArgumentException e) {
            System.out.println(what + ": " + e.getClass().getName() + ": " + e.getMessage());
        } catch (RuntimeException e) {
            // The library's NullPointerException messages name its own locals.
            System.out.println(what + ": " + e.getClass().getName());
        }
    }

    public static void main(String[] args) {
        TreeMap<Integer, String> t = new TreeMap<>();
        for (int i = 0; i < 40; i += 3) {
            t.put(i, "v" + i);
        }
        NavigableMap<Integer, String> head = t.headMap(15, false);
        SortedMap<Integer, String> tail = t.tailMap(20);
        NavigableMap<Integer, String> sub = t.subMap(6, true, 27, true);
        NavigableMap<Integer, String> desc = t.descendingMap();
        System.out.println("head " + head + " size " + head.size());
        System.out.println("tail " + tail.keySet() + " first " + tail.firstKey() + " last " + tail.lastKey());
        System.out.println("sub " + sub.keySet() + " desc " + desc.keySet());

        // Later changes to the tree show in every view.
        t.put(1, "one");
        t.put(16, "sixteen");
        t.put(26, "x");
        t.remove(9);
        System.out.println("after puts: head " + head.keySet() + " tail " + tail.keySet() + " sub " + sub.keySet());

        // Writes through views reach the tree; keys outside a view's bounds are refused.
        head.put(2, "two");
        sub.remove(12);
        sub.remove(33);
        attempt("head.put(15)", () -> head.put(15, "no"));
        attempt("sub.put(28)", () -> sub.put(28, "no"));
        attempt("desc.put(100)", () -> desc.put(100, "yes"));
        System.out.println("tree " + t.keySet() + " get " + sub.get(27) + " " + sub.get(30) + " " + head.containsKey(18));

        // Navigation, in both directions.
        System.out.println("sub nav " + sub.lowerKey(6) + " " + sub.floorKey(7) + " " + sub.ceilingKey(25) + " "
            + sub.higherKey(27) + " " + sub.higherKey(-5) + " " + sub.lowerKey(100) + " " + sub.firstEntry() + " "
            + sub.lastEntry());
        NavigableMap<Integer, String> subDesc = sub.descendingMap();
        System.out.println("sub desc " + subDesc.keySet() + " " + subDesc.lowerKey(18) + " " + subDesc.higherKey(18) + " "
            + subDesc.ceilingKey(17) + " " + subDesc.floorKey(17) + " " + subDesc.firstKey() + " " + subDesc.lastKey()
            + " " + subDesc.headMap(18, true).keySet() + " " + subDesc.tailMap(18, false).keySet()
            + " " + subDesc.subMap(24, 9).keySet());
        System.out.println("desc nav " + desc.ceilingKey(17) + " " + desc.higherKey(0) + " " + desc.headMap(30).keySet());

        // Views of views: bounds must lie inside the parent view's.
        attempt("sub.subMap(5, 10)", () -> sub.subMap(5, 10));
        attempt("sub.headMap(28)", () -> sub.headMap(28));
        attempt("sub.tailMap(27, false)", () -> System.out.println("  " + sub.tailMap(27, false)));
        attempt("head.headMap(15)", () -> System.out.println("  " + head.headMap(15).keySet()));
        attempt("head.headMap(15, true)", () -> head.headMap(15, true));
        attempt("t.subMap(10, 5)", () -> t.subMap(10, 5));
        attempt("subDesc.subMap(9, 24)", () -> subDesc.subMap(9, 24));
        attempt("t.headMap(null)", () -> t.headMap(null));

        // Polls and clear through views.
        System.out.println("poll " + sub.pollFirstEntry() + " " + subDesc.pollFirstEntry() + " " + head.pollLastEntry());
        head.clear();
        System.out.println("head cleared: tree " + t.keySet() + " head " + head + " empty " + head.isEmpty());
        attempt("head.firstKey()", () -> head.firstKey());
        System.out.println("empty head " + head.firstEntry() + " " + head.pollFirstEntry());

        // Iterator removal over views, ascending and descending, in a larger tree.
        TreeMap<Integer, Integer> big = new TreeMap<>();
        for (int i = 0; i < 64; i++) {
            big.put((i * 37) % 64, i);
        }
        Iterator<Integer> it = big.subMap(10, 50).keySet().iterator();
        while (it.hasNext()) {
            if (it.next() % 3 == 0) it.remove();
        }
        Iterator<Map.Entry<Integer, Integer>> dit = big.headMap(40, true).descendingMap().entrySet().iterator();
        while (dit.hasNext()) {
            Map.Entry<Integer, Integer> e = dit.next();
            if (e.getKey() % 4 == 1) dit.remove();
            else e.setValue(-e.getValue());
        }
        System.out.println("big " + big);
        big.tailMap(30, false).entrySet().removeIf(e -> e.getValue() > 20);
        big.keySet().removeIf(k -> k < 5);
        System.out.println("big after " + big.keySet() + " size " + big.size() + " " + big.subMap(20, 30).size());

        // TreeSet views.
        TreeSet<String> words = new TreeSet<>();
        for (String w : "pear fig apple kiwi lime date plum grape mango cherry".split(" ")) {
            words.add(w);
        }
        NavigableSet<String> mid = words.subSet("cherry", false, "mango", true);
        NavigableSet<String> rev = words.descendingSet();
        System.out.println("mid " + mid + " rev " + rev + " headSet " + words.headSet("fig") + " tailSet "
            + words.tailSet("lime", false));
        words.add("banana");
        words.add("lemon");
        mid.remove("fig");
        mid.add("grapefruit");
        attempt("mid.add(\"zucchini\")", () -> mid.add("zucchini"));
        System.out.println("words " + words + " mid " + mid + " " + mid.first() + " " + mid.last() + " "
            + mid.pollFirst() + " " + rev.first() + " " + rev.higher("kiwi") + " " + rev.ceiling("kiwz"));
        Iterator<String> di = mid.descendingIterator();
        System.out.println("mid desc " + di.next() + " " + di.next() + " rev headSet " + rev.headSet("grape") + " "
            + rev.descendingSet().tailSet("pear"));
        rev.pollFirst();
        rev.tailSet("date").clear();
        System.out.println("words " + words + " size " + words.size() + " " + mid.size());

        // A comparator's order, and keySet views that are NavigableSets.
        TreeMap<String, Integer> byLength = new TreeMap<>(Comparator.comparing(String::length).thenComparing(s -> s));
        for (String w : words) {
            byLength.put(w, w.length());
        }
        NavigableSet<String> keys = byLength.navigableKeySet();
        System.out.println("by length " + keys + " " + keys.headSet("lemon") + " " + byLength.descendingKeySet()
            + " " + keys.descendingSet().first());
        keys.remove("grapefruit");
        System.out.println("by length " + byLength + " " + byLength.firstEntry() + " equal "
            + byLength.tailMap("x").equals(byLength) + " " + byLength.tailMap("").equals(byLength));
    }
}
