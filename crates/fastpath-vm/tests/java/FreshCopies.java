// tags: bytecode exception gc string
// release: 17
// New primitive arrays filled by System.arraycopy right after their allocation (the shape a JIT
// may allocate without zeroing: StringBuilder.toString, substring, a buffer's growth), while
// the heap is full of dropped arrays of all-ones bits, so that memory reused without zeroing
// would show: every element the copy writes, every element it leaves (zero), for every primitive
// type at lengths 0..40; copies that throw (null source, out of bounds, another array type)
// caught by the caller and inside the allocating method; and String.equals on equal, different,
// same, null and non-string arguments.
public class FreshCopies {
    static final Object[] junk = new Object[256];
    static int junkAt;

    /** Drops about `bytes` bytes of arrays of all-ones bits, of varying small sizes, into the
     *  ring of junk (the ring keeps the last 256; the rest die and their memory is reused). */
    static void litter(int bytes) {
        for (int done = 0; done < bytes; ) {
            long[] a = new long[5 + (junkAt * 7 + done) % 61];
            java.util.Arrays.fill(a, -1L);
            junk[junkAt] = a;
            junkAt = (junkAt + 1) % junk.length;
            done += 8 * a.length + 32;
        }
    }

    static char[] exactChars(char[] v, int n) {
        char[] r = new char[n];
        System.arraycopy(v, 0, r, 0, n);
        return r;
    }

    static int[] grownInts(int[] v, int count, int n) {
        int[] r = new int[n];
        System.arraycopy(v, 0, r, 0, count);
        return r;
    }

    static byte[] sliceBytes(byte[] v, int from, int to) {
        byte[] r = new byte[to - from];
        System.arraycopy(v, from, r, 0, to - from);
        return r;
    }

    static short[] grownShorts(short[] v, int count, int n) {
        short[] r = new short[n];
        int unused = r.length;
        System.arraycopy(v, 0, r, 0, count);
        return r;
    }

    static long[] grownLongs(long[] v, int count, int n) {
        long[] r = new long[n];
        System.arraycopy(v, 0, r, 0, count);
        return r;
    }

    static double[] grownDoubles(double[] v, int count, int n) {
        double[] r = new double[n];
        System.arraycopy(v, 0, r, 0, count);
        return r;
    }

    static float[] grownFloats(float[] v, int count, int n) {
        float[] r = new float[n];
        System.arraycopy(v, 0, r, 0, count);
        return r;
    }

    static boolean[] grownBooleans(boolean[] v, int count, int n) {
        boolean[] r = new boolean[n];
        System.arraycopy(v, 0, r, 0, count);
        return r;
    }

    /** The copy's source is any object: another array type throws ArrayStoreException. */
    static int[] fromAny(Object v, int count, int n) {
        int[] r = new int[n];
        System.arraycopy(v, 0, r, 0, count);
        return r;
    }

    /** A handler covers the copy: the array must read as zeros after a copy that threw. */
    static int[] caught(int[] v, int count, int n) {
        int[] r = new int[n];
        try {
            System.arraycopy(v, 0, r, 0, count);
        } catch (RuntimeException e) {
            return r;
        }
        return r;
    }

    static final class Buffer {
        char[] value = new char[8];
        int count;

        void add(char c) {
            if (count == value.length) {
                char[] v = new char[value.length * 2 + 2];
                System.arraycopy(value, 0, v, 0, count);
                value = v;
            }
            value[count++] = c;
        }

        char[] snapshot() {
            char[] r = new char[count];
            System.arraycopy(value, 0, r, 0, count);
            return r;
        }
    }

    static int bad;

    static void check(boolean ok, String what) {
        if (!ok && bad++ < 10) {
            System.out.println("wrong: " + what);
        }
    }

    static void copies(int round) {
        for (int n = 0; n <= 40; n++) {
            litter(16384);
            char[] cs = new char[n];
            int[] is = new int[n];
            byte[] bs = new byte[n];
            short[] ss = new short[n];
            long[] ls = new long[n];
            double[] ds = new double[n];
            float[] fs = new float[n];
            boolean[] zs = new boolean[n];
            for (int i = 0; i < n; i++) {
                cs[i] = (char) (i * 40961 + round + 1);
                is[i] = i * 1103515245 + round + 1;
                bs[i] = (byte) (i * 37 + 1);
                ss[i] = (short) (i * 40961 + 1);
                ls[i] = i * 6364136223846793005L + 1;
                ds[i] = i + 0.5;
                fs[i] = i + 0.25f;
                zs[i] = true;
            }
            char[] c = exactChars(cs, n);
            check(java.util.Arrays.equals(c, cs), "exactChars " + n);
            for (int count = 0; count <= n; count += 1 + n / 4) {
                litter(8192 + 8 * count);
                int size = n + 1 + count % 5;
                int[] r = grownInts(is, count, size);
                short[] s = grownShorts(ss, count, size);
                long[] l = grownLongs(ls, count, size);
                double[] d = grownDoubles(ds, count, size);
                float[] f = grownFloats(fs, count, size);
                boolean[] z = grownBooleans(zs, count, size);
                for (int i = 0; i < size; i++) {
                    boolean in = i < count;
                    check(r[i] == (in ? is[i] : 0), "grownInts " + count + "/" + size + " at " + i);
                    check(s[i] == (in ? ss[i] : 0), "grownShorts " + count + "/" + size + " at " + i);
                    check(l[i] == (in ? ls[i] : 0), "grownLongs " + count + "/" + size + " at " + i);
                    check(d[i] == (in ? ds[i] : 0), "grownDoubles " + count + "/" + size + " at " + i);
                    check(f[i] == (in ? fs[i] : 0), "grownFloats " + count + "/" + size + " at " + i);
                    check(z[i] == in, "grownBooleans " + count + "/" + size + " at " + i);
                }
                byte[] b = sliceBytes(bs, count, n);
                for (int i = 0; i < b.length; i++) {
                    check(b[i] == bs[count + i], "sliceBytes " + count + ".." + n + " at " + i);
                }
            }
        }
    }

    static String failures(int[] is) {
        StringBuilder out = new StringBuilder();
        try {
            grownInts(null, 0, 4);
        } catch (NullPointerException e) {
            out.append("null source: NullPointerException\n");
        }
        try {
            grownInts(is, is.length + 1, is.length + 2);
        } catch (ArrayIndexOutOfBoundsException e) {
            out.append(e.getMessage()).append('\n');
        }
        try {
            grownInts(is, 3, 2);
        } catch (ArrayIndexOutOfBoundsException e) {
            out.append(e.getMessage()).append('\n');
        }
        try {
            grownInts(is, 0, -1);
        } catch (NegativeArraySizeException e) {
            out.append("NegativeArraySizeException: ").append(e.getMessage()).append('\n');
        }
        try {
            fromAny(new char[8], 4, 8);
        } catch (ArrayStoreException e) {
            out.append(e.getMessage()).append('\n');
        }
        int zeros = 0;
        for (int k = 0; k < 20; k++) {
            litter(16384);
            int[] r = caught(is, is.length + 1, 40);
            for (int x : r) {
                zeros += x == 0 ? 1 : 0;
            }
            r = caught(null, 1, 40);
            for (int x : r) {
                zeros += x == 0 ? 1 : 0;
            }
        }
        out.append("zeros after caught copies: ").append(zeros).append('\n');
        return out.toString();
    }

    static void strings() {
        Buffer buf = new Buffer();
        String[] words = new String[200];
        for (int i = 0; i < words.length; i++) {
            litter(16384);
            buf.add((char) ('a' + i % 26));
            char[] snap = buf.snapshot();
            check(snap.length == i + 1 && snap[i] == (char) ('a' + i % 26), "snapshot " + i);
            StringBuilder sb = new StringBuilder();
            sb.append("w").append(i).append('-').append(i * 7);
            words[i] = sb.toString();
            String again = "w" + i + "-" + (i * 7);
            check(words[i].equals(again) && again.equals(words[i]), "equals " + i);
            check(!words[i].equals(again + "x") && !words[i].equals(again.substring(1)), "not equals " + i);
            check(words[i].equals(words[i]) && !words[i].equals(null), "same and null " + i);
            check(!words[i].equals(sb) && !words[i].equals((Object) snap), "not a string " + i);
            String part = words[i].substring(1, words[i].indexOf('-'));
            check(part.equals(Integer.toString(i)), "substring " + i);
        }
        int equalPairs = 0;
        for (int i = 0; i < words.length; i++) {
            for (int j = 0; j < words.length; j += 7) {
                if (words[i].equals(words[j])) {
                    equalPairs++;
                }
            }
        }
        System.out.println("equal pairs: " + equalPairs);
        // Strings that differ only in one char's high byte, at every position.
        char[] base = "the quick brown fox".toCharArray();
        String b = new String(base);
        int differ = 0;
        for (int i = 0; i < base.length; i++) {
            char[] other = base.clone();
            other[i] ^= 0x100;
            if (!b.equals(new String(other))) {
                differ++;
            }
        }
        System.out.println("differing in a high byte: " + differ + " of " + base.length);
    }

    public static void main(String[] args) {
        for (int round = 0; round < 5; round++) {
            copies(round);
        }
        int[] is = new int[10];
        for (int i = 0; i < is.length; i++) {
            is[i] = i + 1;
        }
        String f = "";
        for (int round = 0; round < 10; round++) {
            f = failures(is);
        }
        System.out.print(f);
        strings();
        System.out.println(bad == 0 ? "all copies right" : bad + " wrong");
    }
}
