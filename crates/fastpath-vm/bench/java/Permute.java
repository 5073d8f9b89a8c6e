// Permute: generates every permutation of an array of 7 ints by recursive swapping and,
// for each, adds a position-weighted sum. Exercises recursion, array reads/writes and
// calls. Check: 7! = 5040 permutations per run, and every value sits in every position
// (7-1)! times, so the weighted sum is 6! * (1+..+7) * (1+..+7) = 720 * 28 * 28.
final class Permute extends Benchmark {
    static final int N = 7;
    private int[] values;
    private int count;
    private long weighted;

    private void swap(int i, int j) {
        int t = values[i];
        values[i] = values[j];
        values[j] = t;
    }

    private void permute(int k) {
        if (k == N) {
            count++;
            long w = 0;
            for (int i = 0; i < N; i++) {
                w += (long) values[i] * (i + 1);
            }
            weighted += w;
            return;
        }
        for (int i = k; i < N; i++) {
            swap(k, i);
            permute(k + 1);
            swap(k, i);
        }
    }

    @Override
    Object run(int inner, int threads) {
        long[] result = new long[2];
        for (int r = 0; r < inner; r++) {
            values = new int[N];
            for (int i = 0; i < N; i++) {
                values[i] = i + 1;
            }
            count = 0;
            weighted = 0;
            permute(0);
            result[0] += count;
            result[1] += weighted;
        }
        return result;
    }

    @Override
    String verify(Object result, int inner, int threads) {
        long[] r = (long[]) result;
        String e = expect("permutations", r[0], 5040L * inner);
        return e != null ? e : expect("weighted sum", r[1], 720L * 28 * 28 * inner);
    }

    @Override
    int defaultInner() {
        return 200;
    }
}
