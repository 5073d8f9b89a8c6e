// tags: basic bytecode
// release: 17
// A virtual call with one implementation among the classes loaded while its caller is
// compiled hot (class-hierarchy analysis: a JIT inlines it behind a guard), then a subclass
// overriding it loaded and called through the same call site: each receiver runs its own method,
// before and after, also from inside the inlined body's callers' loops and with the overriding
// class's method throwing through the call site.
public class LateOverride {
    static class Shape {
        final int sides;

        Shape(int sides) {
            this.sides = sides;
        }

        int weight() {
            return sides * 2 + 1;
        }
    }

    static final class Late extends Shape {
        Late(int sides) {
            super(sides);
        }

        @Override
        int weight() {
            if (sides < 0) {
                throw new IllegalStateException("negative " + sides);
            }
            return -sides;
        }
    }

    // Large enough not to be inlined into main (its own compiled code holds the call site).
    static int total(Shape[] shapes, int rounds) {
        if (rounds < 0 || shapes.length == 0) {
            throw new IllegalArgumentException("rounds " + rounds + ", shapes " + shapes.length);
        }
        int s = 0;
        for (int r = 0; r < rounds; r++) {
            for (Shape sh : shapes) {
                s += sh.weight();
            }
        }
        return s;
    }

    // Its own method, large enough not to be inlined: decoding main (or main's small callees)
    // does not load Late, so Late is loaded only when this first runs.
    static Shape[] withLate(int n, boolean negative) {
        Shape[] out = new Shape[n];
        for (int k = 0; k < n; k++) {
            if (k % 3 == 1) {
                out[k] = new Late(negative ? -k : k);
            } else {
                out[k] = new Shape(k + 3);
            }
        }
        int checks = 0;
        for (Shape sh : out) {
            checks += sh.sides;
        }
        if (checks < 0) {
            throw new AssertionError(checks);
        }
        return out;
    }

    public static void main(String[] args) {
        Shape[] early = {new Shape(3), new Shape(4)};
        int before = 0;
        for (int k = 0; k < 10; k++) {
            before += total(early, 100);
        }
        System.out.println("before " + before);
        if (args.length > 0) {
            return;
        }
        Shape[] mixed = withLate(3, false);
        System.out.println("after " + total(mixed, 1000));
        System.out.println("early again " + total(early, 100));
        Shape[] bad = withLate(2, true);
        try {
            total(bad, 10);
        } catch (IllegalStateException e) {
            e.printStackTrace();
        }
    }
}
