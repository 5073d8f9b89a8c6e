// tags: collections
// release: 11
// HashMap bins turned into red-black trees, and their iteration order, which is the order of
// the bin's node list: treeification after eight nodes in one bin (only once the table has 64
// bins; smaller tables double instead), new keys placed after their tree parent, the root
// moved to the front after each change, removal with rebalancing and the untreeify of small
// trees, resize splits of tree bins (a side of six nodes or fewer becomes a list), removal by
// an iterator (no reordering), computeIfAbsent/compute/merge into tree bins, keys ordered by
// hash, then compareTo (String, and a class implementing Comparable of itself), then class
// name; LinkedHashMap and HashSet over tree bins. Keys never tie on identity hash codes.
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

public class HashTreeBins {
    // Strings built from "Aa" and "BB" blocks all share one hashCode.
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

    /** Comparable of itself: tree bins order equal hashes by compareTo. */
    static final class Ranked implements Comparable<Ranked> {
        final int rank;
        final int hash;

        Ranked(int rank, int hash) {
            this.rank = rank;
            this.hash = hash;
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Ranked && ((Ranked) o).rank == rank && ((Ranked) o).hash == hash;
        }

        @Override
        public int compareTo(Ranked o) {
            return Integer.compare(rank, o.rank);
        }

        @Override
        public String toString() {
            return "R" + rank + "/" + hash;
        }
    }

    /** Comparable, but not of itself: tree bins fall back to class name for these. */
    static class Loose implements Comparable<Object> {
        final String name;

        Loose(String name) {
            this.name = name;
        }

        @Override
        public int hashCode() {
            return 77;
        }

        @Override
        public int compareTo(Object o) {
            return 0;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    // One key per class with the same hash: the tie-break is the class name.
    static final class KeyA extends Loose { KeyA() { super("A"); } }
    static final class KeyB extends Loose { KeyB() { super("B"); } }
    static final class KeyC extends Loose { KeyC() { super("C"); } }
    static final class KeyD extends Loose { KeyD() { super("D"); } }
    static final class KeyE extends Loose { KeyE() { super("E"); } }
    static final class KeyF extends Loose { KeyF() { super("F"); } }
    static final class KeyG extends Loose { KeyG() { super("G"); } }
    static final class KeyH extends Loose { KeyH() { super("H"); } }
    static final class KeyI extends Loose { KeyI() { super("I"); } }
    static final class KeyJ extends Loose { KeyJ() { super("J"); } }

    static <K> String keys(Map<K, ?> m) {
        StringBuilder sb = new StringBuilder();
        for (K k : m.keySet()) {
            if (sb.length() > 0) sb.append(' ');
            sb.append(k);
        }
        return sb.toString();
    }

    public static void main(String[] args) {
        List<String> same = colliding(5);
        Collections.shuffle(same, new Random(11));

        // A table of 16 doubles instead of treeifying, until it has 64 bins.
        Map<String, Integer> m = new HashMap<>();
        for (int i = 0; i < 12; i++) {
            m.put(same.get(i), i);
        }
        System.out.println("12 strings: " + keys(m));
        for (int i = 12; i < same.size(); i++) {
            m.put(same.get(i), i);
        }
        System.out.println("32 strings: " + keys(m));
        System.out.println("get " + m.get(same.get(7)) + " " + m.get(same.get(31)) + " " + m.get("AaAaAaAaAB")
            + " contains " + m.containsKey(same.get(20)) + " " + m.containsValue(19));
        System.out.println(m);

        // Removals rebalance the tree and move its root to the front; a small tree is a list again.
        for (int i = 0; i < 26; i++) {
            m.remove(same.get((i * 7) % 32));
            if (i % 4 == 3) System.out.println("removed " + (i + 1) + ": " + keys(m));
        }
        for (int i = 0; i < 10; i++) {
            m.put(same.get((i * 7) % 32), -i);
        }
        System.out.println("put back: " + keys(m));

        // Iterator removal leaves the list order as it is.
        Iterator<String> it = m.keySet().iterator();
        int n = 0;
        while (it.hasNext()) {
            String k = it.next();
            if (n++ % 3 == 0) it.remove();
        }
        System.out.println("iterator removed: " + keys(m) + " size " + m.size());

        // Distinct hashes in one bin of a 64-bin table: ordered by hash in the tree; a resize
        // splits the tree into a low and a high bin.
        Map<Integer, String> ints = new HashMap<>(64);
        int[] order = {640, 64, 1216, 0, 320, 832, 1152, 448, 256, 1024, 192, 768, 512, 896, 128, 384, 576, 704, 960, 1088};
        for (int k : order) {
            ints.put(k, "v" + k);
        }
        System.out.println("ints: " + keys(ints));
        for (int k = 1; k <= 30; k++) {
            ints.put(k * 65, "w");
        }
        System.out.println("resized ints: " + keys(ints));
        for (int k = 0; k < 40; k++) {
            ints.put(k * 4096 + 8, "x");
        }
        System.out.println("more ints: " + ints.size() + " " + keys(ints));

        // compareTo orders equal hashes; different hashes go by hash.
        Map<Ranked, Integer> ranked = new HashMap<>(64);
        int[] ranks = {5, 17, 3, 11, 8, 14, 1, 19, 9, 2, 12, 6, 15, 0, 18, 7, 4, 13, 16, 10};
        for (int r : ranks) {
            ranked.put(new Ranked(r, r % 3 == 0 ? 192 : 128), r);
        }
        System.out.println("ranked: " + keys(ranked));
        ranked.remove(new Ranked(11, 128));
        ranked.remove(new Ranked(9, 192));
        ranked.put(new Ranked(21, 192), 21);
        System.out.println("ranked after: " + keys(ranked) + " get " + ranked.get(new Ranked(14, 128)));

        // Same hash, classes that are not Comparable of themselves: class-name order.
        Map<Loose, Integer> loose = new HashMap<>(64);
        Loose[] ls = {new KeyE(), new KeyB(), new KeyI(), new KeyA(), new KeyG(), new KeyC(), new KeyJ(), new KeyD(),
            new KeyH(), new KeyF()};
        for (int i = 0; i < ls.length; i++) {
            loose.put(ls[i], i);
        }
        System.out.println("loose: " + keys(loose) + " get " + loose.get(ls[3]) + " " + loose.get(new KeyA()));
        loose.remove(ls[0]);
        loose.remove(ls[5]);
        System.out.println("loose after: " + keys(loose));

        // computeIfAbsent, compute and merge count the nodes they pass and treeify too.
        Map<String, Integer> c = new HashMap<>(64);
        for (int i = 0; i < 20; i++) {
            String k = same.get(i);
            switch (i % 3) {
                case 0:
                    c.computeIfAbsent(k, s -> s.length());
                    break;
                case 1:
                    c.compute(k, (s, v) -> v == null ? 100 : v + 1);
                    break;
                default:
                    c.merge(k, 7, Integer::sum);
            }
        }
        System.out.println("computed: " + keys(c));
        c.merge(same.get(2), 1, Integer::sum);
        c.compute(same.get(4), (s, v) -> null);
        c.computeIfAbsent(same.get(25), s -> 25);
        c.computeIfPresent(same.get(0), (s, v) -> v * 2);
        System.out.println("computed after: " + c);

        // LinkedHashMap iterates in insertion (or access) order whatever the bins are.
        LinkedHashMap<String, Integer> lhm = new LinkedHashMap<>(64, 0.75f, true);
        for (int i = 0; i < 24; i++) {
            lhm.put(same.get(i), i);
        }
        lhm.get(same.get(3));
        lhm.get(same.get(0));
        lhm.remove(same.get(10));
        for (int i = 0; i < 14; i++) {
            lhm.remove(same.get(i + 11));
        }
        System.out.println("linked: " + keys(lhm));
        lhm.put("x", 1);
        lhm.get(same.get(1));
        System.out.println("linked after: " + keys(lhm));

        // HashSet, and a copy of a map with tree bins.
        Set<String> set = new HashSet<>(same.subList(0, 20));
        set.removeAll(same.subList(5, 9));
        System.out.println("set: " + set);
        Map<String, Integer> copy = new HashMap<>(m);
        System.out.println("copy: " + keys(copy) + " equal " + copy.equals(m) + " hash " + (copy.hashCode() == m.hashCode()));
    }
}
