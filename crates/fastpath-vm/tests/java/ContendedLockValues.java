// tags: monitor thread
// release: 17
// Synchronized loops under contention that keep more values live than the callee-saved
// registers hold: ints, longs and doubles updated inside the block and in the loop's tail (the
// shape a JIT coarsens, one lock kept over several rounds), while two and then three threads
// take turns on one lock, so the lock's slow paths (a missed enter or exit, an enter that
// blocks, a release of a lock another thread inflated) run again and again with those values
// live across them. Each thread's values must come out as they do when it runs alone, and
// every count must be exact.
public class ContendedLockValues {
    static final class Cell {
        long value;
    }

    static final int ROUNDS = 100_000;

    static long mix(Cell cell, int seed, int n) {
        int a = seed, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8;
        long x = 9, y = 10;
        double p = 0.5, q = 1.5, r = 2.5, s = 3.5;
        for (int i = 0; i < n; i++) {
            synchronized (cell) {
                cell.value++;
                a += i;
                b ^= a;
                x += b;
                p += (a & 1023) * 0.25;
            }
            c += b >>> 3;
            d -= c;
            e += d * 3;
            f ^= e << 1;
            g += f;
            h -= g ^ i;
            y ^= x * 31 + h;
            q = q * 0.5 + (b & 255);
            r -= (c & 127) * 0.125;
            s += (d & 63);
        }
        return a + b + c + d + e + f + g + h + x + y + (long) (p + q + r + s);
    }

    // The same loop with a collection forced in the block every 16384 rounds: the lock is held
    // across the safepoint, and the values stay live across it and the slow paths.
    static long mixCollecting(Cell cell, int seed, int n) {
        int a = seed, b = 2, c = 3, d = 4;
        long x = 9, y = 10;
        double p = 0.5, q = 1.5;
        for (int i = 0; i < n; i++) {
            synchronized (cell) {
                cell.value++;
                a += i;
                b ^= a;
                if ((i & 16383) == 0) {
                    System.gc();
                }
            }
            c += b >>> 3;
            d -= c;
            x += d;
            y ^= x * 31;
            p += (a & 1023) * 0.25;
            q = q * 0.5 + (b & 255);
        }
        return a + b + c + d + x + y + (long) (p + q);
    }

    interface Loop {
        long run(Cell cell, int seed, int n);
    }

    static void contend(String name, Loop loop, int threads) throws InterruptedException {
        long[] alone = new long[threads];
        for (int t = 0; t < threads; t++) {
            alone[t] = loop.run(new Cell(), 11 + t, ROUNDS);
        }
        Cell shared = new Cell();
        long[] got = new long[threads];
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int k = t;
            workers[t] = new Thread(() -> got[k] = loop.run(shared, 11 + k, ROUNDS));
        }
        for (Thread w : workers) {
            w.start();
        }
        for (Thread w : workers) {
            w.join();
        }
        int same = 0;
        for (int t = 0; t < threads; t++) {
            if (got[t] == alone[t]) {
                same++;
            }
        }
        System.out.println(name + ", " + threads + " threads: count " + shared.value + ", "
                + same + " of " + threads + " threads' values as when alone");
    }

    public static void main(String[] args) throws InterruptedException {
        for (int threads = 2; threads <= 3; threads++) {
            contend("mix", ContendedLockValues::mix, threads);
        }
        contend("mixCollecting", ContendedLockValues::mixCollecting, 2);
    }
}
