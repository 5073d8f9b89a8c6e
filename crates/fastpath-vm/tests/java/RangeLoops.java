// tags: bytecode exception
// release: 11
// args: -XX:-OmitStackTraceInFastThrow
// Counted loops over arrays, the shapes a JIT drops bounds checks from (index up to a.length,
// for-each, counting down to 0, a[i + 1] below a.length - 1, below the n of new boolean[n],
// every element kind) and the ones that almost qualify: a test of i <= a.length, n changed
// after new boolean[n], the array local swapped or nulled after its length was read, the index
// stepped in the body, an index that wraps past Integer.MAX_VALUE, a count down past 0. Each
// method runs many times on inputs that stay in bounds (so that it is compiled), then once on
// an input that does not, which must throw with HotSpot's message after the same side effects.
public class RangeLoops {
    static int last;

    static int upTo(int[] a) {
        int s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i];
            last = i;
        }
        return s;
    }

    static long forEach(long[] a) {
        long s = 0;
        for (long x : a) {
            s += x;
        }
        return s;
    }

    static int downTo(int[] a) {
        int s = 0;
        for (int i = a.length - 1; i >= 0; i--) {
            s = s * 3 + a[i];
        }
        return s;
    }

    static void pairs(int[] a) {
        for (int i = 0; i < a.length - 1; i++) {
            a[i] = a[i] - a[i + 1];
        }
    }

    static double halves(double[] d, char[] c, byte[] b) {
        for (int i = 0; i < d.length; i++) {
            d[i] = i * 0.5;
        }
        for (int i = 0; i < c.length; i++) {
            c[i] = (char) ('a' + i);
        }
        for (int i = b.length - 1; i >= 0; i--) {
            b[i] = (byte) (i * 40);
        }
        double s = 0;
        for (int i = 0; i < d.length; i++) {
            s += d[i] + c[i % c.length] + b[i % b.length];
        }
        return s;
    }

    static void store(Object[] objs, Object[] from) {
        for (int i = 0; i < objs.length; i++) {
            objs[i] = from[i % from.length];
            last = i;
        }
    }

    static int inclusive(int[] a, int skip) {
        int s = 0;
        for (int i = 0; i <= a.length; i++) {
            if (i != skip) {
                s += a[i];
                last = i;
            }
        }
        return s;
    }

    static int fromLength(int[] a, int skip) {
        int s = 0;
        for (int i = a.length; i >= 0; i--) {
            if (i != skip) {
                s += a[i];
                last = i;
            }
        }
        return s;
    }

    static int swapped(int[] a, int[] b, int swapAt) {
        int s = 0;
        int n = a.length;
        for (int i = 0; i < n; i++) {
            s += a[i];
            last = i;
            if (i == swapAt) {
                a = b;
            }
        }
        return s;
    }

    static int swappedRetested(int[] a, int[] b, int swapAt) {
        int s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i];
            last = i;
            if (i == swapAt) {
                a = b;
            }
        }
        return s;
    }

    static int nulled(int[] a, int nullAt) {
        int s = 0;
        for (int x : a) {
            s += x;
        }
        int n = a.length;
        for (int i = 0; i < n; i++) {
            s += a[i];
            last = i;
            if (i == nullAt) {
                a = null;
            }
        }
        return s;
    }

    static int stepped(int[] a, int bump) {
        int s = 0;
        for (int i = 0; i < a.length; i++) {
            if (i == bump) {
                i++;
            }
            s += a[i];
            last = i;
        }
        return s;
    }

    static int next(int[] a, int limit) {
        int s = 0;
        for (int i = 0; i < a.length; i++) {
            if (i < limit) {
                s += a[i + 1];
                last = i;
            }
        }
        return s;
    }

    static int wrapStep(int[] a, int start, int step) {
        int s = 0;
        for (int i = start; i < a.length; i += step) {
            s += a[i];
            last = i;
        }
        return s;
    }

    static int wrapOffset(int[] a, int from) {
        int s = 0;
        for (int i = 0; i < a.length; i++) {
            if (i >= from) {
                s += a[i + 2147483647];
            }
            last = i;
        }
        return s;
    }

    static int pastZero(int[] a, int stop) {
        int s = 0;
        for (int i = a.length - 1; i > stop; i--) {
            s += a[i];
            last = i;
        }
        return s;
    }

    static int sieve(int n, int extra) {
        boolean[] composite = new boolean[n];
        n += extra;
        int count = 0;
        for (int i = 2; i < n; i++) {
            if (!composite[i]) {
                count++;
                last = i;
                for (int k = i + i; k < n; k += i) {
                    composite[k] = true;
                }
            }
        }
        return count;
    }

    static int[] fresh() {
        int[] a = new int[10];
        for (int i = 0; i < a.length; i++) {
            a[i] = i * i + 1;
        }
        return a;
    }

    static void report(String what, Runnable r) {
        last = -1;
        try {
            r.run();
            System.out.println(what + ": completed, last " + last);
        } catch (RuntimeException e) {
            System.out.println(what + ": " + e.getClass().getName() + ": " + e.getMessage() + ", last " + last);
        }
    }

    public static void main(String[] args) {
        int[] a = fresh();
        int[] shortArray = {7, 8, 9};
        long[] l = {1L << 40, 2, 3};
        long check = 0;
        for (int round = 0; round < 1500; round++) {
            check += upTo(a) + forEach(l) + downTo(a);
            int[] p = fresh();
            pairs(p);
            check += upTo(p);
            check += (long) halves(new double[5], new char[3], new byte[4]);
            store(new Integer[4], new Integer[] {round, 2});
            check += inclusive(a, a.length) + fromLength(a, a.length);
            check += swapped(a, shortArray, -1) + swappedRetested(a, shortArray, round % 12);
            check += nulled(a, -1) + stepped(a, -1) + next(a, a.length - 1);
            check += sieve(50, 0) + sieve(0, 0) + sieve(1, 0);
            check += wrapStep(a, 0, 1 + round % 3) + wrapOffset(a, a.length) + pastZero(a, -1);
        }
        System.out.println("warm-up checksum " + check);
        int[] p = fresh();
        pairs(p);
        System.out.println("pairs " + java.util.Arrays.toString(p));
        double[] d = new double[6];
        char[] c = new char[4];
        byte[] b = new byte[7];
        System.out.println("halves " + halves(d, c, b) + " " + java.util.Arrays.toString(d) + " "
                + new String(c) + " " + java.util.Arrays.toString(b));
        report("store", () -> store(new Integer[3], new Object[] {1, "two"}));
        report("sieve", () -> System.out.print(sieve(100, 0) + " "));
        report("sieve grown", () -> sieve(30, 1));
        report("inclusive", () -> inclusive(a, -1));
        report("fromLength", () -> fromLength(a, -1));
        report("swapped", () -> swapped(a, shortArray, 2));
        report("swappedRetested", () -> System.out.print(swappedRetested(a, shortArray, 1) + " "));
        report("nulled", () -> nulled(a, 4));
        report("stepped", () -> stepped(a, 9));
        report("next", () -> next(a, 100));
        report("wrapStep", () -> wrapStep(a, 1, Integer.MAX_VALUE));
        report("wrapOffset", () -> wrapOffset(a, 1));
        report("pastZero", () -> pastZero(a, -3));
        report("empty", () -> System.out.print(upTo(new int[0]) + downTo(new int[0]) + forEach(new long[0]) + " "));
    }
}
