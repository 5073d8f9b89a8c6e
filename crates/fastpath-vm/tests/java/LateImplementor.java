// tags: basic bytecode exception
// release: 17
// A virtual call with three implementations and an interface call with two implementing classes
// among the classes loaded while their caller is compiled hot (class-hierarchy analysis: a JIT
// inlines each behind a guard), then a subclass overriding one implementation and a third
// implementing class loaded late and called through the same call sites: each receiver runs its
// own method, before and after. An inlined implementation throws (division by zero) and so does
// the late class's method, each through the call site with its trace.
public class LateImplementor {
    abstract static class Step {
        final int k;

        Step(int k) {
            this.k = k;
        }

        abstract int apply(int x);
    }

    static class Add extends Step {
        Add(int k) {
            super(k);
        }

        @Override
        int apply(int x) {
            return x + k;
        }
    }

    static final class Mul extends Step {
        Mul(int k) {
            super(k);
        }

        @Override
        int apply(int x) {
            return x * k;
        }
    }

    static final class Div extends Step {
        Div(int k) {
            super(k);
        }

        @Override
        int apply(int x) {
            return x / k;
        }
    }

    static final class LateAdd extends Add {
        LateAdd(int k) {
            super(k);
        }

        @Override
        int apply(int x) {
            if (k < 0) {
                throw new IllegalStateException("negative " + k);
            }
            return x - k;
        }
    }

    interface Source {
        int next();
    }

    static final class Counter implements Source {
        int n;

        @Override
        public int next() {
            return n++;
        }
    }

    static final class Constant implements Source {
        final int v;

        Constant(int v) {
            this.v = v;
        }

        @Override
        public int next() {
            return v;
        }
    }

    static final class LateSource implements Source {
        int n = 100;

        @Override
        public int next() {
            n -= 3;
            return n;
        }
    }

    // Large enough not to be inlined into main (its own compiled code holds the call sites).
    static int run(Step[] steps, Source src, int rounds) {
        if (rounds < 0 || steps.length == 0) {
            throw new IllegalArgumentException("rounds " + rounds + ", steps " + steps.length);
        }
        int x = 1;
        for (int r = 0; r < rounds; r++) {
            for (Step s : steps) {
                x = s.apply(x) + src.next();
                x &= 0xffff;
            }
        }
        return x;
    }

    // Its own method, large enough not to be inlined: decoding main (or main's small callees)
    // does not load the late classes, which are loaded only when this first runs.
    static Step[] withLate(int n, boolean negative) {
        Step[] out = new Step[n];
        for (int k = 0; k < n; k++) {
            if (k % 2 == 1) {
                out[k] = new LateAdd(negative ? -k : k);
            } else {
                out[k] = new Mul(k + 3);
            }
        }
        int checks = 0;
        for (Step s : out) {
            checks += s.k;
        }
        if (checks < -1000) {
            throw new AssertionError(checks);
        }
        return out;
    }

    // As withLate: large enough not to be decoded with main under -Xcomp (which would load the
    // late class early).
    static Source lateSource(int skip) {
        if (skip < 0 || skip > 10) {
            throw new IllegalArgumentException("skip " + skip);
        }
        LateSource s = new LateSource();
        for (int k = 0; k < skip; k++) {
            if (s.next() != 97 - 3 * k) {
                throw new AssertionError("late source at " + k + " of " + skip + ": " + s.n);
            }
        }
        return s;
    }

    public static void main(String[] args) {
        Step[] early = {new Add(3), new Mul(5), new Div(2), new Add(-7)};
        Source counter = new Counter();
        Source seven = new Constant(7);
        // Both sources have run before run is compiled (its JIT inlines only what has run).
        int before = counter.next() + seven.next();
        for (int k = 0; k < 10; k++) {
            before += run(early, k % 2 == 0 ? counter : seven, 100);
        }
        System.out.println("before " + before);
        try {
            run(new Step[] {new Add(1), new Div(0)}, seven, 5);
        } catch (ArithmeticException e) {
            e.printStackTrace();
        }
        if (args.length > 0) {
            return;
        }
        Step[] mixed = withLate(3, false);
        System.out.println("after " + run(mixed, counter, 1000));
        System.out.println("late source " + run(early, lateSource(1), 1000));
        System.out.println("early again " + run(early, seven, 100));
        Step[] bad = withLate(2, true);
        try {
            run(bad, seven, 10);
        } catch (IllegalStateException e) {
            e.printStackTrace();
        }
    }
}
