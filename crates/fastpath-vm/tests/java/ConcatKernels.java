// tags: string numeric
// release: 17
// String concatenation (invokedynamic makeConcatWithConstants) at the edges of each argument
// type, after a warm-up of rounds so that a JIT has compiled the call sites and the code they
// call: int, long, short, byte and char at their ranges' ends and around each power of ten,
// booleans, floats and doubles (NaN, infinities, -0.0, subnormals), surrogate chars, empty
// strings and constants, null strings and objects, a toString returning null, a StringBuilder
// argument, the order in which each argument's toString runs (one side effect seen by the
// next), a toString that throws (its stack trace), and a concatenation of constants only.
public class ConcatKernels {
    static int calls;

    static final class Counter {
        @Override
        public String toString() {
            return "c" + (++calls);
        }
    }

    static final class Nothing {
        @Override
        public String toString() {
            return null;
        }
    }

    static final class Bad {
        @Override
        public String toString() {
            throw new IllegalStateException("bad toString");
        }
    }

    static String ints(int i, long l, short s, byte b, char c) {
        return "i=" + i + ",l=" + l + ",s=" + s + ",b=" + b + ",c=" + c + ";";
    }

    static String bare(int i) {
        return "" + i;
    }

    static String bareLong(long l) {
        return l + "";
    }

    static String floats(float f, double d, boolean z) {
        return "[" + f + "|" + d + "|" + z + "]";
    }

    static String objects(String s, Object o, CharSequence cs) {
        return s + o + cs;
    }

    static String chars(char a, char b, String s) {
        return a + s + b;
    }

    static String constants() {
        return "only" + ConcatKernels.K + 'k' + 1 + 2L + true;
    }

    static final String K = "-constant-";

    public static void main(String[] args) {
        int[] is = {0, 1, -1, 9, 10, -9, -10, 99, 100, 999, 1000, 9999, 10000, 99999, 100000,
            999999, 1000000, 9999999, 10000000, 99999999, 100000000, 999999999, 1000000000,
            -999999999, -1000000000, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE + 1};
        long[] ls = {0L, -1L, 9999999999L, 10000000000L, -10000000000L, 999999999999999999L,
            1000000000000000000L, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1,
            Integer.MIN_VALUE - 1L, Integer.MAX_VALUE + 1L};
        short[] ss = {0, Short.MIN_VALUE, Short.MAX_VALUE, -1};
        byte[] bs = {0, Byte.MIN_VALUE, Byte.MAX_VALUE, -1};
        char[] cs = {'a', '\0', '\u00e9', '\u4e2d', '\ud83d', '\ude00', '\uffff', ','};
        float[] fs = {0f, -0f, 1.5f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
            Float.MIN_VALUE, Float.MAX_VALUE, 1e-10f, 123456789f};
        double[] ds = {0d, -0d, 0.1, Double.NaN, Double.NEGATIVE_INFINITY, Double.MIN_VALUE,
            Double.MAX_VALUE, 1e21, 1e-7, 12345.678};
        String[] strs = {"", "x", null, "\ud83d\ude00", "a,b", "\u4e2d\u6587"};
        Object[] objs = {null, new Nothing(), Integer.valueOf(-7), new StringBuilder("sb"), 'q', 3.5};

        long hash = 0;
        String last = "";
        for (int round = 0; round < 40; round++) {
            for (int n = 0; n < is.length; n++) {
                String s = ints(is[n], ls[n % ls.length], ss[n % ss.length], bs[n % bs.length], cs[n % cs.length]);
                hash = hash * 31 + s.hashCode() + s.length();
                hash = hash * 31 + bare(is[n]).hashCode() + bareLong(ls[n % ls.length]).hashCode();
                last = s;
            }
            for (int n = 0; n < fs.length; n++) {
                String s = floats(fs[n], ds[n], (n & 1) == 0);
                hash = hash * 31 + s.hashCode();
            }
            for (int n = 0; n < strs.length; n++) {
                String s = objects(strs[n], objs[n], strs[(n + 1) % strs.length]);
                hash = hash * 31 + s.hashCode();
                s = chars(cs[n], cs[(n + 3) % cs.length], strs[n]);
                hash = hash * 31 + s.hashCode() + s.length();
            }
            hash = hash * 31 + constants().hashCode();
        }
        System.out.println("warm-up hash " + hash + ", last " + last);

        for (int n = 0; n < is.length; n++) {
            System.out.println(ints(is[n], ls[n % ls.length], ss[n % ss.length], bs[n % bs.length], cs[n % cs.length]
                == '\0' ? '0' : cs[n % cs.length]) + " " + bare(is[n]) + " " + bareLong(ls[n % ls.length]));
        }
        for (int n = 0; n < fs.length; n++) {
            System.out.println(floats(fs[n], ds[n], (n & 1) == 0));
        }
        for (int n = 0; n < strs.length; n++) {
            String s = objects(strs[n], objs[n], strs[(n + 1) % strs.length]);
            String t = chars(cs[n], cs[(n + 3) % cs.length], strs[n]);
            System.out.println(s.length() + " " + s.hashCode() + " " + t.length() + " " + t.hashCode());
        }
        System.out.println(constants());

        // Each argument's toString runs once, left to right.
        Counter c = new Counter();
        for (int round = 0; round < 3000; round++) {
            last = c + "/" + c + "/" + c;
        }
        System.out.println(last + " after " + calls + " toString calls");

        // A new string every time, equal but not the same object.
        String x = "ab";
        String y = bare(5) + x;
        String z = bare(5) + x;
        System.out.println(y + " " + y.equals(z) + " " + (y == z) + " " + ("" + x == x));

        // A throwing toString: its exception and trace come out of the concatenation.
        Object bad = new Bad();
        for (int round = 0; round < 3; round++) {
            try {
                System.out.println(objects("before ", bad, " after"));
            } catch (IllegalStateException e) {
                if (round == 2) {
                    // The frames by class and method (the class library's line numbers are its own).
                    System.out.println(e);
                    for (StackTraceElement f : e.getStackTrace()) {
                        System.out.println("  at " + f.getClassName() + "." + f.getMethodName());
                    }
                }
            }
        }
    }
}
