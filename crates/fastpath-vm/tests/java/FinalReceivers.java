// tags: basic bytecode
// release: 17
// Virtual calls whose reference names a final class (javac names the receiver's static type):
// a method inherited from a superclass that a sibling overrides, an inherited method that
// itself calls an overridden one, a method the final class overrides, an inherited Object
// method, through a final class extending a JDK class (an access-ordered LinkedHashMap as a
// bounded cache), from hot loops; a null receiver typed as the final class (the NPE's message
// names the final class's method), and a call through the superclass type at the same time.
import java.util.LinkedHashMap;
import java.util.Map;

public class FinalReceivers {
    static class Base {
        int v;

        Base(int v) {
            this.v = v;
        }

        int inherited() {
            return v * 3 + step();
        }

        int step() {
            return 1;
        }

        int overridden() {
            return -v;
        }
    }

    static final class Leaf extends Base {
        Leaf(int v) {
            super(v);
        }

        @Override
        int step() {
            return 7;
        }

        @Override
        int overridden() {
            return v + 1000;
        }
    }

    static class Other extends Base {
        Other(int v) {
            super(v);
        }

        @Override
        int inherited() {
            return 42;
        }
    }

    static final class Bounded extends LinkedHashMap<Integer, Integer> {
        final int capacity;

        Bounded(int capacity) {
            super(16, 0.75f, true);
            this.capacity = capacity;
        }

        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, Integer> eldest) {
            return size() > capacity;
        }
    }

    static long leafLoop(Leaf leaf, int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            leaf.v = i;
            sum += leaf.inherited() + leaf.overridden() + (leaf.hashCode() == System.identityHashCode(leaf) ? 1 : 0);
        }
        return sum;
    }

    static long baseLoop(Base b, int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += b.inherited() + b.overridden();
        }
        return sum;
    }

    static long cacheLoop(Bounded cache, int n) {
        long hits = 0;
        for (int i = 0; i < n; i++) {
            Integer key = (i * 7919) % 97;
            if ((i & 3) == 0) {
                cache.put(key, key * 31);
            } else {
                Integer v = cache.get(key);
                if (v != null) {
                    hits += v == key * 31 ? 1 : 1000;
                }
            }
        }
        return hits;
    }

    static int callOnNull(Leaf leaf) {
        return leaf.inherited();
    }

    public static void main(String[] args) {
        Leaf leaf = new Leaf(5);
        System.out.println("leaf " + leaf.inherited() + " " + leaf.overridden() + " " + leaf.step());
        for (int round = 0; round < 3; round++) {
            System.out.println("leafLoop " + leafLoop(leaf, 20000));
            System.out.println("baseLoop leaf " + baseLoop(new Leaf(3), 20000));
            System.out.println("baseLoop other " + baseLoop(new Other(3), 20000));
            System.out.println("baseLoop base " + baseLoop(new Base(3), 20000));
        }
        Bounded cache = new Bounded(40);
        for (int round = 0; round < 3; round++) {
            System.out.println("cacheLoop " + cacheLoop(cache, 30000) + " size " + cache.size());
        }
        StringBuilder order = new StringBuilder();
        int shown = 0;
        for (Map.Entry<Integer, Integer> e : cache.entrySet()) {
            if (shown++ < 10) {
                order.append(e.getKey()).append('=').append(e.getValue()).append(' ');
            }
        }
        System.out.println("order " + order);
        Map<Integer, Integer> asMap = cache;
        System.out.println("through Map " + asMap.get(order.length() % 97) + " " + cache.containsKey(3));
        for (int i = 0; i < 3; i++) {
            try {
                System.out.println(callOnNull(i == 2 ? null : leaf));
            } catch (NullPointerException e) {
                System.out.println("NPE " + e.getMessage());
            }
        }
        Bounded none = null;
        try {
            none.get(1);
        } catch (NullPointerException e) {
            System.out.println("NPE " + e.getMessage());
        }
    }
}
