// Storage: builds a tree of arrays, depth 7 with fan-out 4, whose leaves are int arrays of
// random length (Benchmark.Lcg), and counts the arrays allocated. Exercises allocation of
// arrays of varying sizes and the collector. Nodes: 4^0 + 4^1 + ... + 4^7 = 21845.
final class Storage extends Benchmark {
    private int count;

    private Object build(Lcg random, int depth) {
        count++;
        if (depth == 7) {
            return new int[random.next(10) + 1];
        }
        Object[] children = new Object[4];
        for (int i = 0; i < 4; i++) {
            children[i] = build(random, depth + 1);
        }
        return children;
    }

    @Override
    Object run(int inner, int threads) {
        long total = 0;
        for (int i = 0; i < inner; i++) {
            count = 0;
            Object tree = build(new Lcg(74755), 0);
            if (!(tree instanceof Object[])) {
                return -1L;
            }
            total += count;
        }
        return total;
    }

    @Override
    String verify(Object result, int inner, int threads) {
        return expect("arrays", (Long) result, 21845L * inner);
    }

    @Override
    int defaultInner() {
        return 40;
    }
}
