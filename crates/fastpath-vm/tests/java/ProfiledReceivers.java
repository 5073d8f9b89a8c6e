// tags: basic bytecode exception
// release: 17
// A virtual call and an interface call with more implementations loaded than class-hierarchy
// analysis inlines, whose receivers are of one or two classes while their caller runs interpreted
// (a receiver-type profile: a JIT inlines those classes' methods behind guards), then receivers of
// the other classes through the same call sites: each receiver runs its own method. A profiled
// (inlined) method throws (division by zero) and so do two of the others, each through the call
// site with its trace.
public class ProfiledReceivers {
    abstract static class Shape {
        abstract int area(int s);
    }

    static final class Square extends Shape {
        @Override
        int area(int s) {
            return s * s;
        }
    }

    static final class Rect extends Shape {
        final int w;

        Rect(int w) {
            this.w = w;
        }

        @Override
        int area(int s) {
            return s * 60 / w;
        }
    }

    static final class Tri extends Shape {
        @Override
        int area(int s) {
            return s * s / 2;
        }
    }

    static final class Line extends Shape {
        @Override
        int area(int s) {
            return s;
        }
    }

    static final class Inverse extends Shape {
        @Override
        int area(int s) {
            return 100 / s;
        }
    }

    interface Op {
        int apply(int x);
    }

    static final class Inc implements Op {
        @Override
        public int apply(int x) {
            return x + 1;
        }
    }

    static final class Twice implements Op {
        @Override
        public int apply(int x) {
            return x * 2;
        }
    }

    static final class Flip implements Op {
        @Override
        public int apply(int x) {
            return ~x;
        }
    }

    static final class Mix implements Op {
        @Override
        public int apply(int x) {
            return x ^ (x >>> 3);
        }
    }

    static final class Refuse implements Op {
        @Override
        public int apply(int x) {
            if (x > 0) {
                throw new IllegalStateException("refused " + x);
            }
            return x;
        }
    }

    // Large enough not to be inlined into main (its own compiled code holds the call sites).
    static int run(Shape[] shapes, Op op, int rounds) {
        if (rounds < 0 || shapes.length == 0) {
            throw new IllegalArgumentException("rounds " + rounds + ", shapes " + shapes.length);
        }
        int x = 1;
        for (int r = 0; r < rounds; r++) {
            for (Shape s : shapes) {
                x = (x + s.area(r & 15)) & 0xffff;
                x = op.apply(x) & 0xffff;
            }
        }
        return x;
    }

    public static void main(String[] args) {
        // Every class is loaded and has an instance before run first runs: five implementations
        // of each call, but run sees only a Square and a Rect, and an Inc, until "before" is out.
        Shape[] all = {new Square(), new Rect(3), new Tri(), new Line(), new Inverse()};
        Op[] ops = {new Inc(), new Twice(), new Flip(), new Mix(), new Refuse()};
        int before = 0;
        for (int k = 0; k < 10; k++) {
            before += run(new Shape[] {all[0], all[1]}, ops[0], 100);
        }
        System.out.println("before " + before);
        try {
            run(new Shape[] {all[0], new Rect(0)}, ops[0], 3);
        } catch (ArithmeticException e) {
            e.printStackTrace();
        }
        if (args.length > 0) {
            return;
        }
        System.out.println("others " + run(new Shape[] {all[0], all[2], all[3]}, ops[1], 100));
        System.out.println("flip " + run(new Shape[] {all[3]}, ops[2], 100));
        System.out.println("mix " + run(new Shape[] {all[1], all[0]}, ops[3], 100));
        try {
            run(new Shape[] {all[4]}, ops[0], 5);
        } catch (ArithmeticException e) {
            e.printStackTrace();
        }
        try {
            run(new Shape[] {all[0]}, ops[4], 10);
        } catch (IllegalStateException e) {
            e.printStackTrace();
        }
        System.out.println("profiled again " + run(new Shape[] {all[1], all[0]}, ops[0], 100));
    }
}
