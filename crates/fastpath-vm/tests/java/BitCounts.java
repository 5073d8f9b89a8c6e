// tags: numeric
// release: 17
// Integer's and Long's numberOfLeadingZeros, numberOfTrailingZeros and bitCount, which compiled
// code replaces with one machine operation, checked after a warm-up of rounds (so that a JIT has
// compiled the loops that call them): every single-bit and low-mask value, 0, -1, MIN_VALUE,
// MAX_VALUE and their neighbours printed, and a pseudo-random sweep against a bit-by-bit count,
// the int results also through a long (the counts are ints, a long's narrowed). Then the six
// branches on a long compare (lcmp and an if, which compiled code fuses into one compare) over
// values around 0, the int range's ends and the long range's ends, every pair.
public class BitCounts {
    static int seed = 12345;

    static int next() {
        seed = seed * 1103515245 + 12345;
        return seed;
    }

    static int lzSlow(long v, int bits) {
        int n = 0;
        for (int b = bits - 1; b >= 0 && ((v >>> b) & 1) == 0; b--) {
            n++;
        }
        return n;
    }

    static int tzSlow(long v, int bits) {
        int n = 0;
        for (int b = 0; b < bits && ((v >>> b) & 1) == 0; b++) {
            n++;
        }
        return n;
    }

    static int popSlow(long v, int bits) {
        int n = 0;
        for (int b = 0; b < bits; b++) {
            n += (int) ((v >>> b) & 1);
        }
        return n;
    }

    static String ints(int v) {
        long wide = Integer.numberOfLeadingZeros(v);
        return v + ": " + Integer.numberOfLeadingZeros(v) + " " + Integer.numberOfTrailingZeros(v) + " "
            + Integer.bitCount(v) + " " + (wide + Integer.bitCount(v));
    }

    static String longs(long v) {
        long wide = Long.numberOfLeadingZeros(v);
        return v + ": " + Long.numberOfLeadingZeros(v) + " " + Long.numberOfTrailingZeros(v) + " "
            + Long.bitCount(v) + " " + (wide + Long.bitCount(v));
    }

    static int sweep(int rounds) {
        int wrong = 0;
        for (int r = 0; r < rounds; r++) {
            int v = next() >> (r & 31);
            long l = ((long) next() << 32 | (next() & 0xffffffffL)) >>> (r & 63);
            if (Integer.numberOfLeadingZeros(v) != lzSlow(v & 0xffffffffL, 32)) {
                wrong++;
            }
            if (Integer.numberOfTrailingZeros(v) != tzSlow(v, 32)) {
                wrong++;
            }
            if (Integer.bitCount(v) != popSlow(v & 0xffffffffL, 32)) {
                wrong++;
            }
            if (Long.numberOfLeadingZeros(l) != lzSlow(l, 64)) {
                wrong++;
            }
            if (Long.numberOfTrailingZeros(l) != tzSlow(l, 64)) {
                wrong++;
            }
            if (Long.bitCount(l) != popSlow(l, 64)) {
                wrong++;
            }
        }
        return wrong;
    }

    static int compares(long a, long b) {
        int bits = 0;
        if (a == b) bits |= 1;
        if (a != b) bits |= 2;
        if (a < b) bits |= 4;
        if (a >= b) bits |= 8;
        if (a > b) bits |= 16;
        if (a <= b) bits |= 32;
        return bits;
    }

    static long compareSweep(long[] vs) {
        long h = 0;
        for (long a : vs) {
            for (long b : vs) {
                h = h * 67 + compares(a, b);
            }
        }
        return h;
    }

    public static void main(String[] args) {
        long sum = 0;
        for (int round = 0; round < 20; round++) {
            for (int b = 0; b < 64; b++) {
                sum += ints(1 << b).hashCode() + ints((1 << b) - 1).hashCode();
                sum += longs(1L << b).hashCode() + longs((1L << b) - 1).hashCode() + longs(-(1L << b)).hashCode();
            }
            sum += sweep(500);
        }
        System.out.println("warm-up " + sum);
        int[] is = {0, 1, -1, 2, 3, Integer.MIN_VALUE, Integer.MAX_VALUE, Integer.MIN_VALUE + 1, Integer.MAX_VALUE - 1,
            0x10000, 0xffff, 0x80000001, 0x7ffffffe, 0x55555555, 0xaaaaaaaa};
        for (int v : is) {
            System.out.println(ints(v));
        }
        long[] ls = {0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE + 1, 0xffffffffL, 0x100000000L,
            0x80000000L, 0x7fffffffL, 0x8000000000000001L, 0x5555555555555555L, 0xaaaaaaaaaaaaaaaaL, -0x100000000L};
        for (long v : ls) {
            System.out.println(longs(v));
        }
        for (int b = 0; b < 64; b++) {
            System.out.println(b + " " + ints(1 << b) + " | " + longs(1L << b) + " | " + longs((1L << b) - 1));
        }
        System.out.println("sweep: " + sweep(20000) + " wrong");
        long[] cs = {0L, 1L, -1L, 2L, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE + 1L,
            Integer.MIN_VALUE - 1L, 0xffffffffL, 0x100000000L, Long.MAX_VALUE, Long.MIN_VALUE,
            Long.MAX_VALUE - 1, Long.MIN_VALUE + 1};
        long ch = 0;
        for (int round = 0; round < 200; round++) {
            ch += compareSweep(cs);
        }
        System.out.println("compares warm-up " + ch);
        for (long a : cs) {
            StringBuilder line = new StringBuilder();
            for (long b : cs) {
                line.append(' ').append(compares(a, b));
            }
            System.out.println(a + ":" + line);
        }
    }
}
