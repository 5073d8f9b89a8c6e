// tags: gc
// release: 17
// args: -Xmx8m
// Arrays of arrays under churn: a 2-level Object[][] table whose cells hold int[], long[],
// double[] and Object[] arrays of random sizes (seeded), replaced at random so old arrays
// reference new ones and vice versa; System.arraycopy and clone of reference arrays (which a
// collector's arraycopy barrier must handle), overlapping copies within one array, and
// multi-dimensional arrays allocated in bulk. A checksum recomputed from scratch at the end
// must equal the running one.
// The 8 MiB heap is less than the program allocates in all, so that every run collects: an
// allocation that finds the heap full runs a collection when the concurrent collector's cycle
// has not begun (at 16 MiB one began near the end of the run, or in a loaded run not at all).
public class ArraysOfArrays {
    static long seed = 42;

    static int next(int bound) {
        seed = (seed * 0x5DEECE66DL + 0xBL) & ((1L << 48) - 1);
        return (int) ((seed >>> 17) % bound);
    }

    static long weigh(Object o) {
        if (o == null) {
            return 1;
        }
        if (o instanceof int[] a) {
            long s = a.length;
            for (int v : a) s += v;
            return s;
        }
        if (o instanceof long[] a) {
            long s = a.length * 3L;
            for (long v : a) s += v;
            return s;
        }
        if (o instanceof double[] a) {
            long s = a.length * 5L;
            for (double v : a) s += (long) v;
            return s;
        }
        Object[] a = (Object[]) o;
        long s = a.length * 7L;
        for (Object x : a) {
            if (x instanceof int[] ia) {
                s += ia.length;
            } else if (x != null) {
                s += 2;
            }
        }
        return s;
    }

    static Object make(Object[][] table) {
        int size = 1 + next(64);
        switch (next(4)) {
            case 0: {
                int[] a = new int[size];
                for (int i = 0; i < size; i++) a[i] = next(1000);
                return a;
            }
            case 1: {
                long[] a = new long[size];
                for (int i = 0; i < size; i++) a[i] = next(1000) * 1000L;
                return a;
            }
            case 2: {
                double[] a = new double[size];
                for (int i = 0; i < size; i++) a[i] = next(1000) / 4.0;
                return a;
            }
            default: {
                Object[] a = new Object[size];
                for (int i = 0; i < size; i++) {
                    Object[] row = table[next(table.length)];
                    Object cell = row[next(row.length)];
                    a[i] = cell instanceof int[] ? cell : null;
                }
                return a;
            }
        }
    }

    public static void main(String[] args) {
        Object[][] table = new Object[64][];
        for (int r = 0; r < table.length; r++) {
            table[r] = new Object[16 + r % 16];
        }
        for (Object[] row : table) {
            for (int c = 0; c < row.length; c++) {
                row[c] = make(table);
            }
        }
        for (int step = 0; step < 60000; step++) {
            Object[] row = table[next(table.length)];
            row[next(row.length)] = make(table);
            if (step % 1000 == 0) {
                Object[] victim = table[next(table.length)];
                Object[] copy = victim.clone();
                System.arraycopy(copy, 0, victim, 1, copy.length - 1);
                System.arraycopy(victim, 1, victim, 0, victim.length - 1);
                victim[victim.length - 1] = copy[copy.length - 1];
            }
        }
        long checksum = 0;
        for (Object[] row : table) {
            for (Object o : row) {
                checksum = checksum * 31 + weigh(o);
            }
        }
        System.out.println("table checksum " + checksum);
        long grids = 0;
        for (int i = 0; i < 300; i++) {
            int[][] grid = new int[20 + i % 7][30];
            long[][][] cube = new long[4][5][6];
            grid[i % grid.length][i % 30] = i;
            cube[i % 4][i % 5][i % 6] = i * 2L;
            Object[][] refs = new Object[8][8];
            refs[i % 8][(i + 1) % 8] = grid;
            grids += grid[i % grid.length][i % 30] + cube[i % 4][i % 5][i % 6] + ((int[][]) refs[i % 8][(i + 1) % 8]).length;
        }
        System.out.println("grids " + grids);
        long recomputed = 0;
        for (Object[] row : table) {
            for (Object o : row) {
                recomputed = recomputed * 31 + weigh(o);
            }
        }
        System.out.println("stable after more allocation " + (recomputed == checksum));
    }
}
