// tags: bytecode
// release: 17
// arraylength on values whose declared type says which array form they are (fields and
// parameters of primitive-array and reference-array types, newarray and anewarray results),
// which compiled code reads without testing the form, beside values the bytecode only knows as
// Object (read through a checkcast): every primitive kind, reference arrays of classes, of
// interfaces and of arrays, empty arrays, a covariant field (Object[] holding String[] and
// Integer[][]), a field reassigned between reads, and the NullPointerException of a null array
// of each form. Each method runs hot enough to be compiled.
public class TypedArrayLengths {
    static final class Holder {
        char[] chars;
        long[] longs;
        Object[] objects;
        int[][] grid;
        Runnable[] tasks;
        Object any;

        Holder(int n) {
            chars = new char[n];
            longs = new long[n + 1];
            objects = (n & 1) == 0 ? new String[n + 2] : new Integer[n + 3][2];
            grid = new int[n][];
            tasks = new Runnable[n + 4];
            any = (n & 1) == 0 ? new byte[n + 5] : new Object[n + 6];
        }
    }

    static int fields(Holder h) {
        return h.chars.length + 10 * h.longs.length + 100 * h.objects.length + 1000 * h.grid.length
            + 10000 * h.tasks.length;
    }

    static int reassigned(Holder h, int n) {
        int before = h.chars.length;
        h.chars = new char[n * 3];
        int after = h.chars.length;
        h.objects = new Object[n];
        return before * 1000 + after * 10 + h.objects.length;
    }

    static int params(boolean[] z, byte[] b, short[] s, int[] i, float[] f, double[] d, String[] str,
            int[][] nested, Object[][] deep) {
        return z.length + b.length + s.length + i.length + f.length + d.length + str.length + nested.length
            + (nested.length > 0 && nested[0] != null ? nested[0].length : -1) + deep.length;
    }

    static int allocated(int n) {
        int[] ints = new int[n];
        String[] strings = new String[n + 1];
        double[][] doubles = new double[n + 2][n];
        return ints.length + strings.length * 3 + doubles.length * 7 + doubles[0].length * 11;
    }

    static int untyped(Object o) {
        if (o instanceof byte[]) {
            return ((byte[]) o).length;
        }
        return ((Object[]) o).length;
    }

    static String nullLength(int which) {
        Holder h = new Holder(2);
        try {
            switch (which) {
                case 0 -> h.chars = null;
                case 1 -> h.objects = null;
                case 2 -> h.grid = null;
                default -> h.tasks = null;
            }
            return "no exception " + fields(h);
        } catch (NullPointerException e) {
            return "NPE " + which;
        }
    }

    static int nullParam(int[] a, String[] b) {
        try {
            return a.length;
        } catch (NullPointerException e) {
            try {
                return -b.length;
            } catch (NullPointerException e2) {
                return -1000;
            }
        }
    }

    public static void main(String[] args) {
        long sum = 0;
        for (int round = 0; round < 3000; round++) {
            int n = round % 7;
            Holder h = new Holder(n);
            sum += fields(h);
            sum += reassigned(h, n);
            sum += params(new boolean[n], new byte[n + 1], new short[0], new int[n * 2], new float[1],
                new double[n], new String[n + 2], new int[n + 1][n], new Object[n][]);
            sum += allocated(n);
            sum += untyped(h.any);
            sum += untyped(h.objects);
            sum += nullParam((n & 1) == 0 ? new int[n] : null, n == 3 ? null : new String[n]);
        }
        System.out.println("sum " + sum);
        Holder h = new Holder(4);
        System.out.println("fields " + fields(h) + " " + fields(new Holder(3)));
        System.out.println("reassigned " + reassigned(h, 5) + " then " + fields(h));
        System.out.println("params " + params(new boolean[1], new byte[2], new short[3], new int[4], new float[5],
            new double[6], new String[7], new int[8][9], new Object[10][]));
        System.out.println("allocated " + allocated(0) + " " + allocated(9));
        System.out.println("untyped " + untyped(new byte[3]) + " " + untyped(new String[4]) + " "
            + untyped(new int[2][5]));
        for (int which = 0; which < 4; which++) {
            System.out.println(nullLength(which));
        }
        System.out.println("nullParam " + nullParam(null, null) + " " + nullParam(null, new String[2]) + " "
            + nullParam(new int[3], null));
        try {
            untyped(new int[2]);
        } catch (ClassCastException e) {
            System.out.println("ClassCastException " + e.getMessage());
        }
    }
}
