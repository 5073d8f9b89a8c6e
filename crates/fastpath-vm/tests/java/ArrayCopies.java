// tags: bytecode exception gc
// release: 11
// args: -Xmx8m
// System.arraycopy from methods called often enough to be compiled: every primitive type at
// every length 0..40 and several positions (short copies and long ones), overlapping copies
// forward and backward within one array, references (String[] into Object[] and back, a
// subclass array into a superclass array), copies while the collector runs, and every
// exception with its message: null source and destination, negative length and positions,
// out of bounds at either end and past Integer.MAX_VALUE, an ArrayStoreException mid-copy
// with the elements before it copied, type mismatches and non-arrays.
// The 8 MiB heap is less than the program allocates in all, so that every run collects: an
// allocation that finds the heap full runs a collection when the concurrent collector's cycle
// has not begun (at 16 MiB one began near the end of the run, or in a loaded run not at all).
public class ArrayCopies {
    static final int N = 40;

    // One call site for every kind of array.
    static void copy(Object src, int sp, Object dst, int dp, int n) {
        System.arraycopy(src, sp, dst, dp, n);
    }

    // A call site that only ever sees char[] (as String and StringBuilder's).
    static char[] grow(char[] a, int n) {
        char[] b = new char[n];
        System.arraycopy(a, 0, b, 0, Math.min(a.length, n));
        return b;
    }

    static long mix(long h, long v) {
        return h * 31 + v;
    }

    static long hash(Object a) {
        long h = 1;
        if (a instanceof int[]) {
            for (int v : (int[]) a) h = mix(h, v);
        } else if (a instanceof long[]) {
            for (long v : (long[]) a) h = mix(h, v);
        } else if (a instanceof short[]) {
            for (short v : (short[]) a) h = mix(h, v);
        } else if (a instanceof char[]) {
            for (char v : (char[]) a) h = mix(h, v);
        } else if (a instanceof byte[]) {
            for (byte v : (byte[]) a) h = mix(h, v);
        } else if (a instanceof boolean[]) {
            for (boolean v : (boolean[]) a) h = mix(h, v ? 1 : 2);
        } else if (a instanceof float[]) {
            for (float v : (float[]) a) h = mix(h, Float.floatToIntBits(v));
        } else if (a instanceof double[]) {
            for (double v : (double[]) a) h = mix(h, Double.doubleToLongBits(v));
        } else {
            for (Object v : (Object[]) a) h = mix(h, v == null ? 7 : v.hashCode());
        }
        return h;
    }

    // A fresh array of `kind` whose element i is distinct from its neighbours.
    static Object fill(char kind, int seed) {
        switch (kind) {
            case 'I': { int[] a = new int[N]; for (int i = 0; i < N; i++) a[i] = seed * 1000003 + i * 65537; return a; }
            case 'J': { long[] a = new long[N]; for (int i = 0; i < N; i++) a[i] = seed * 0x100000001L + i * 0x0102030405060708L; return a; }
            case 'S': { short[] a = new short[N]; for (int i = 0; i < N; i++) a[i] = (short) (seed * 257 + i * 4099); return a; }
            case 'C': { char[] a = new char[N]; for (int i = 0; i < N; i++) a[i] = (char) (seed * 263 + i * 40961); return a; }
            case 'B': { byte[] a = new byte[N]; for (int i = 0; i < N; i++) a[i] = (byte) (seed * 7 + i * 37); return a; }
            case 'Z': { boolean[] a = new boolean[N]; for (int i = 0; i < N; i++) a[i] = ((seed + i * 3) & 4) != 0; return a; }
            case 'F': { float[] a = new float[N]; for (int i = 0; i < N; i++) a[i] = seed * 0.5f - i * 1.25f; a[3] = -0.0f; a[5] = Float.NaN; return a; }
            case 'D': { double[] a = new double[N]; for (int i = 0; i < N; i++) a[i] = seed * 0.25 + i * 3.5e100; a[4] = -0.0; a[6] = Double.NaN; return a; }
            default: {
                String[] a = new String[N];
                for (int i = 0; i < N; i++) a[i] = (i % 7 == 3) ? null : "s" + seed + "." + i;
                return a;
            }
        }
    }

    static void primitives() {
        for (char kind : "IJSCBZFDL".toCharArray()) {
            long all = 1;
            for (int n = 0; n <= N; n++) {
                int[][] positions = {{0, 0}, {0, N - n}, {N - n, 0}, {(N - n) / 2, (N - n) / 3}};
                for (int[] p : positions) {
                    Object src = fill(kind, 1);
                    Object dst = fill(kind, 2);
                    copy(src, p[0], dst, p[1], n);
                    all = mix(all, hash(dst));
                    // Forward (the destination after the source) and backward within one array.
                    Object same = fill(kind, 3);
                    copy(same, p[0], same, p[0] + (N - n - p[0]) / 2, n);
                    all = mix(all, hash(same));
                    same = fill(kind, 4);
                    copy(same, N - n - p[0] / 2, same, p[0] / 3, n);
                    all = mix(all, hash(same));
                }
            }
            System.out.println(kind + " copies " + all);
        }
    }

    static class Animal {
        final String name;

        Animal(String name) {
            this.name = name;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static class Dog extends Animal {
        Dog(String name) {
            super(name);
        }
    }

    static void references() {
        String[] s = {"a", "b", null, "d"};
        Object[] o = new Object[6];
        copy(s, 0, o, 1, 4);
        System.out.println("String[] into Object[]: " + java.util.Arrays.toString(o));
        Object[] back = {"w", "x", "y"};
        String[] t = new String[3];
        copy(back, 0, t, 0, 3);
        System.out.println("Object[] of strings into String[]: " + java.util.Arrays.toString(t));
        Dog[] dogs = {new Dog("rex"), new Dog("fido")};
        Animal[] animals = {new Animal("cat"), new Animal("cow"), new Animal("hen")};
        copy(dogs, 0, animals, 1, 2);
        System.out.println("Dog[] into Animal[]: " + java.util.Arrays.toString(animals));
        Integer[] boxes = {1, 2, 3, 4, 5};
        copy(boxes, 0, boxes, 1, 4);
        System.out.println("Integer[] forward: " + java.util.Arrays.toString(boxes));
        copy(boxes, 1, boxes, 0, 4);
        System.out.println("Integer[] backward: " + java.util.Arrays.toString(boxes));
        int[][] rows = {{1}, {2, 2}, null};
        Object[] objs = new Object[3];
        copy(rows, 0, objs, 0, 3);
        System.out.println("int[][] into Object[]: " + ((int[]) objs[1]).length + " " + objs[2]);
    }

    // Copies while the collector runs: a char[] grown as a StringBuilder grows it, and
    // reference arrays rotated through a live window.
    static void churn() {
        long h = 1;
        Object[] window = new Object[64];
        for (int round = 0; round < 9000; round++) {
            char[] a = new char[1];
            a[0] = (char) round;
            for (int n = 2; n <= 64; n *= 2) {
                a = grow(a, n);
                a[n - 1] = (char) (round + n);
            }
            h = mix(h, hash(a));
            Object[] refs = new Object[16];
            for (int i = 0; i < refs.length; i++) refs[i] = "r" + (round + i);
            Object[] moved = new Object[16];
            copy(refs, 3, moved, 0, 13);
            copy(moved, 0, moved, 2, 14);
            window[round % window.length] = moved;
            h = mix(h, hash(moved));
        }
        System.out.println("churn " + h);
    }

    static void attempt(String what, Object src, int sp, Object dst, int dp, int n) {
        String first = null;
        int thrown = 0;
        // Often enough for the call to run compiled; every attempt throws the same.
        for (int i = 0; i < 300; i++) {
            try {
                copy(src, sp, dst, dp, n);
            } catch (RuntimeException e) {
                thrown++;
                String m = e.getClass().getName() + ": " + e.getMessage();
                if (first == null) {
                    first = m;
                } else if (!first.equals(m)) {
                    System.out.println(what + ": messages differ: " + first + " / " + m);
                }
            }
        }
        System.out.println(what + ": " + (first == null ? "no exception" : first) + " (" + thrown + " times)");
    }

    static void exceptions() {
        int[] i4 = new int[4];
        int[] i8 = new int[8];
        attempt("null source", null, 0, i4, 0, 1);
        attempt("null destination", i4, 0, null, 0, 1);
        attempt("both null, length 0", null, 0, null, 0, 0);
        attempt("negative length", i8, 0, i4, 0, -1);
        attempt("negative source position", i8, -1, i4, 0, 1);
        attempt("negative destination position", i8, 0, i4, -2, 1);
        attempt("past the source", i4, 2, i8, 0, 3);
        attempt("past the destination", i8, 0, i4, 3, 2);
        attempt("source position past int", i8, Integer.MAX_VALUE, i4, 0, 1);
        attempt("destination position past int", i8, 0, i4, Integer.MAX_VALUE, 1);
        attempt("length past int", i8, 1, i4, 1, Integer.MAX_VALUE);
        attempt("past the source, length 0", i4, 5, i8, 0, 0);
        attempt("at the end, length 0", i4, 4, i8, 8, 0);
        attempt("int[] into long[]", i4, 0, new long[4], 0, 1);
        attempt("int[] into long[], length 0", i4, 0, new long[4], 0, 0);
        attempt("char[] into byte[]", new char[4], 0, new byte[4], 0, 1);
        attempt("int[] into Object[]", i4, 0, new Object[4], 0, 1);
        attempt("Object[] into int[]", new Object[4], 0, i4, 0, 1);
        attempt("String[] into Integer[]", new String[] {"a"}, 0, new Integer[1], 0, 1);
        attempt("String[] of nulls into Integer[]", new String[2], 0, new Integer[2], 0, 2);
        attempt("source not an array", "abc", 0, i4, 0, 1);
        attempt("destination not an array", i4, 0, "abc", 0, 1);
        attempt("neither an array", "abc", 0, "def", 0, 1);
        attempt("Object[] of a string into Integer[]", new Object[] {"x"}, 0, new Integer[1], 0, 1);

        // The elements before the one that does not fit are copied.
        Object[] mixed = {"a", "b", 3, "d"};
        String[] dst = {"x", "x", "x", "x", "x"};
        try {
            copy(mixed, 0, dst, 1, 4);
            System.out.println("mid-copy: no exception");
        } catch (ArrayStoreException e) {
            System.out.println("mid-copy: " + e.getMessage() + " -> " + java.util.Arrays.toString(dst));
        }
        Object[] numbers = {1, 2, "three", 4};
        Integer[] boxes = new Integer[5];
        try {
            copy(numbers, 0, boxes, 1, 4);
            System.out.println("mid-copy into Integer[]: no exception");
        } catch (ArrayStoreException e) {
            System.out.println("mid-copy into Integer[]: " + e.getMessage() + " -> " + java.util.Arrays.toString(boxes));
        }
    }

    public static void main(String[] args) {
        primitives();
        references();
        churn();
        exceptions();
    }
}
