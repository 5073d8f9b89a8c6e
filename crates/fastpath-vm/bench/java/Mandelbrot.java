// Mandelbrot: the Mandelbrot set over a size x size grid of the square [-1.5, 0.5] x [-1, 1],
// at most 50 iterations per point, packed eight points to a byte as in the Benchmarks Game's
// bitmap. Exercises tight double arithmetic loops. The result is the number of points in the
// set and a hash of the packed bitmap (h = 31 * h + byte); the check compares both with values
// computed for sizes 100, 500 and 750 by an independent implementation when the benchmark was
// written (for other sizes, only that the count lies within the grid).
final class Mandelbrot extends Benchmark {
    static long[] render(int size) {
        long inside = 0;
        long hash = 0;
        int bits = 0;
        int bitCount = 0;
        for (int y = 0; y < size; y++) {
            double ci = 2.0 * y / size - 1.0;
            for (int x = 0; x < size; x++) {
                double cr = 2.0 * x / size - 1.5;
                double zr = 0;
                double zi = 0;
                double zr2 = 0;
                double zi2 = 0;
                boolean escaped = false;
                for (int i = 0; i < 50; i++) {
                    zi = 2.0 * zr * zi + ci;
                    zr = zr2 - zi2 + cr;
                    zr2 = zr * zr;
                    zi2 = zi * zi;
                    if (zr2 + zi2 > 4.0) {
                        escaped = true;
                        break;
                    }
                }
                bits = (bits << 1) | (escaped ? 0 : 1);
                if (!escaped) {
                    inside++;
                }
                bitCount++;
                if (bitCount == 8 || x == size - 1) {
                    bits <<= 8 - bitCount;
                    hash = hash * 31 + bits;
                    bits = 0;
                    bitCount = 0;
                }
            }
        }
        return new long[] {inside, hash};
    }

    @Override
    Object run(int inner, int threads) {
        return render(inner);
    }

    @Override
    String verify(Object result, int inner, int threads) {
        long[] r = (long[]) result;
        long[][] known = {
            {100, 3959, 1350590755487492473L}, {500, 99274, 5713578840594320059L}, {750, 223262, -7440387374675484614L}
        };
        for (long[] k : known) {
            if (k[0] == inner) {
                String e = expect("points in the set", r[0], k[1]);
                return e != null ? e : expect("bitmap hash", r[1], k[2]);
            }
        }
        return r[0] >= 0 && r[0] <= (long) inner * inner ? null : "impossible count " + r[0];
    }

    @Override
    int defaultInner() {
        return 500;
    }
}
