// tags: bytecode
// release: 8
// Every array kind: newarray of each primitive type, anewarray, multianewarray (full and
// partial dimensions), the typed loads and stores (baload/bastore on both byte[] and boolean[]),
// arraylength, clone, default values, covariance, and the exceptions arrays throw.
public class ArrayKinds {
    public static void main(String[] args) {
        boolean[] z = new boolean[3];
        byte[] b = new byte[3];
        char[] c = new char[3];
        short[] s = new short[3];
        int[] i = new int[3];
        long[] l = new long[3];
        float[] f = new float[3];
        double[] d = new double[3];
        String[] str = new String[3];
        System.out.println("defaults " + z[0] + " " + b[1] + " " + (int) c[2] + " " + s[0] + " " + i[1] + " " + l[2]
            + " " + f[0] + " " + d[1] + " " + str[2]);
        for (int k = 0; k < 3; k++) {
            z[k] = k % 2 == 0;
            b[k] = (byte) (k * 100);
            c[k] = (char) ('x' + k);
            s[k] = (short) (k * 20000);
            i[k] = k * 1_000_000_000;
            l[k] = k * 5_000_000_000L;
            f[k] = k / 4.0f;
            d[k] = k / 8.0;
            str[k] = "s" + k;
        }
        for (int k = 0; k < 3; k++) {
            System.out.println(z[k] + " " + b[k] + " " + c[k] + " " + s[k] + " " + i[k] + " " + l[k] + " " + f[k] + " "
                + d[k] + " " + str[k]);
        }
        System.out.println("lengths " + z.length + b.length + c.length + s.length + i.length + l.length + f.length
            + d.length + str.length + new int[0].length);

        int[][] grid = new int[4][5];
        for (int r = 0; r < grid.length; r++) {
            for (int col = 0; col < grid[r].length; col++) {
                grid[r][col] = r * 10 + col;
            }
        }
        System.out.println("grid " + grid[3][4] + " " + grid.length + "x" + grid[0].length);
        long[][][] cube = new long[3][4][5];
        cube[2][3][4] = 42;
        System.out.println("cube " + cube[2][3][4] + " " + cube[1][2][3] + " " + cube[2].length + " " + cube[2][3].length);
        double[][] jag = new double[3][];
        System.out.println("partial " + (jag[1] == null));
        for (int r = 0; r < 3; r++) {
            jag[r] = new double[r + 1];
            jag[r][r] = r * 1.5;
        }
        System.out.println("jagged " + jag[0].length + jag[1].length + jag[2].length + " " + jag[2][2]);
        char[][] letters = {{'a', 'b'}, {'c'}, {}};
        System.out.println("literal " + letters[0][1] + letters[1][0] + letters[2].length);
        String[][] names = new String[2][2];
        names[1][0] = "x";
        System.out.println("names " + names[0][0] + " " + names[1][0]);
        boolean[][] flags = new boolean[2][3];
        flags[1][2] = true;
        byte[][][][] four = new byte[2][2][2][2];
        four[1][1][1][1] = -1;
        System.out.println("flags " + flags[1][2] + " " + flags[0][2] + " " + four[1][1][1][1]);

        int[] orig = {5, 4, 3};
        int[] copy = orig.clone();
        copy[0] = 99;
        System.out.println("clone " + orig[0] + " " + copy[0] + " " + (orig != copy) + " " + copy.length);
        int[][] deep = {{1}, {2}};
        int[][] shallow = deep.clone();
        shallow[0][0] = 7;
        System.out.println("shallow clone shares rows " + deep[0][0] + " " + (shallow[1] == deep[1]));

        Object[] objs = new Integer[2];
        objs[0] = 1;
        System.out.println("covariant " + objs[0] + " " + (objs instanceof Integer[]) + " " + (objs instanceof Object[])
            + " " + ((Object) new int[1] instanceof Object[]) + " " + ((Object) new int[1][1] instanceof Object[]));
        try {
            objs[1] = "not an integer";
        } catch (ArrayStoreException e) {
            System.out.println("ArrayStoreException " + e.getMessage());
        }
        try {
            i[3] = 1;
        } catch (ArrayIndexOutOfBoundsException e) {
            System.out.println(e.getMessage());
        }
        try {
            System.out.println(l[-1]);
        } catch (ArrayIndexOutOfBoundsException e) {
            System.out.println(e.getMessage());
        }
        try {
            String[] empty = new String[0];
            System.out.println(empty[0]);
        } catch (ArrayIndexOutOfBoundsException e) {
            System.out.println(e.getMessage());
        }
        int neg = -2;
        try {
            int[] bad = new int[neg];
            System.out.println(bad.length);
        } catch (NegativeArraySizeException e) {
            System.out.println("NegativeArraySizeException " + e.getMessage());
        }
        try {
            int[][] bad = new int[2][neg];
            System.out.println(bad.length);
        } catch (NegativeArraySizeException e) {
            System.out.println("NegativeArraySizeException " + e.getMessage());
        }
        try {
            int[][][] bad = new int[3][neg][];
            System.out.println(bad.length);
        } catch (NegativeArraySizeException e) {
            System.out.println("NegativeArraySizeException " + e.getMessage());
        }
        int[] none = null;
        try {
            System.out.println(none.length);
        } catch (NullPointerException e) {
            System.out.println("NullPointerException on arraylength");
        }

        // A sum over every element type, each loaded through its own bytecode.
        long total = 0;
        for (int k = 0; k < 3; k++) {
            total += (z[k] ? 1 : 0) + b[k] + c[k] + s[k] + i[k] + l[k] + (long) (f[k] * 4) + (long) (d[k] * 8);
        }
        System.out.println("total " + total);
        int[] big = new int[100_000];
        for (int k = 0; k < big.length; k++) {
            big[k] = k ^ (k >>> 3);
        }
        long bigSum = 0;
        for (int v : big) {
            bigSum += v;
        }
        System.out.println("big " + bigSum);
        Object o = new int[][] {{1, 2}, {3}};
        int[][] back = (int[][]) o;
        System.out.println("checkcast array " + back[1][0]);
        try {
            long[] wrong = (long[]) o;
            System.out.println(wrong.length);
        } catch (ClassCastException e) {
            System.out.println("ClassCastException on array cast");
        }
    }
}
