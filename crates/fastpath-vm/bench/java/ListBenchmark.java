// List (benchmark name "List"): Gabriel's TAKL, the Takeuchi function over linked lists:
// lists stand for numbers by their length and "less than" is a recursive walk of two lists.
// Exercises allocation of small nodes, recursion and pointer chasing.
// takl(list 15, list 10, list 6) returns a list of length 10 (as tak(15, 10, 6) = 10 with
// numbers); the check recomputes that length.
final class ListBenchmark extends Benchmark {
    static final class Element {
        final int value;
        Element next;

        Element(int value) {
            this.value = value;
        }

        int length() {
            int n = 0;
            for (Element e = this; e != null; e = e.next) {
                n++;
            }
            return n;
        }
    }

    static Element makeList(int length) {
        Element head = null;
        for (int v = 1; v <= length; v++) {
            Element e = new Element(v);
            e.next = head;
            head = e;
        }
        return head;
    }

    // "x is shorter than y", walking both lists in step.
    static boolean shorter(Element x, Element y) {
        Element xs = x;
        Element ys = y;
        while (ys != null) {
            if (xs == null) {
                return true;
            }
            xs = xs.next;
            ys = ys.next;
        }
        return false;
    }

    static Element tail(Element x, Element y, Element z) {
        if (shorter(y, x)) {
            return tail(tail(x.next, y, z), tail(y.next, z, x), tail(z.next, x, y));
        }
        return z;
    }

    @Override
    Object run(int inner, int threads) {
        long total = 0;
        for (int i = 0; i < inner; i++) {
            total += tail(makeList(15), makeList(10), makeList(6)).length();
        }
        return total;
    }

    @Override
    String verify(Object result, int inner, int threads) {
        return expect("sum of result lengths", (Long) result, 10L * inner);
    }

    @Override
    int defaultInner() {
        return 600;
    }
}
