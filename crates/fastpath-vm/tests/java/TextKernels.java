// tags: string numeric
// release: 17
// The text kernels compiled code replaces or speeds up, checked after they are hot: each part
// runs its inputs for a warm-up of rounds first (so that a JIT has compiled the methods), then
// prints what the last round computed. Integer.parseInt(String, int) and parseInt(String) on
// every radix 2..36's edges (the range's ends and one past them, 11 to 13 digits, leading zeros,
// signs, upper and lower case, the ASCII neighbours of the digit and letter ranges, non-ASCII
// digits and letters); String.hashCode against the one-char recurrence at every length 0..300
// over ASCII, Latin-1, CJK and surrogate chars (each string fresh, so no cached hash);
// System.arraycopy of char[], byte[], int[] and long[] at every length 0..80, overlapping
// forward and backward, against an element loop, with each array's untouched ends checked;
// Integer.toHexString, toOctalString and toBinaryString at the edges and over a sweep.
public class TextKernels {
    static String parse(String s, int radix) {
        try {
            return Integer.toString(Integer.parseInt(s, radix));
        } catch (NumberFormatException e) {
            return "NFE " + e.getMessage();
        }
    }

    static String parse10(String s) {
        try {
            return Integer.toString(Integer.parseInt(s));
        } catch (NumberFormatException e) {
            return "NFE " + e.getMessage();
        }
    }

    static String[] inputs(int radix) {
        java.util.ArrayList<String> in = new java.util.ArrayList<>();
        int[] values = {0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE - 1, Integer.MIN_VALUE + 1,
            radix - 1, radix, -radix, radix * radix - 1, 123456789, -987654321};
        for (int v : values) {
            String t = Integer.toString(v, radix);
            in.add(t);
            in.add(t.toUpperCase());
            if (v >= 0) {
                in.add("+" + t);
            }
        }
        // One past each end, as text of the long.
        in.add(Long.toString(Integer.MAX_VALUE + 1L, radix));
        in.add(Long.toString(Integer.MIN_VALUE - 1L, radix));
        in.add(Long.toString(0xffffffffL, radix));
        // 11, 12 and 13 digits: leading zeros, the largest of each length, the length's edge.
        for (int n = 11; n <= 13; n++) {
            char top = Character.forDigit(radix - 1, radix);
            StringBuilder zeros = new StringBuilder(), tops = new StringBuilder();
            for (int k = 0; k < n - 1; k++) {
                zeros.append('0');
                tops.append(top);
            }
            in.add(zeros + "1");
            in.add("-" + zeros + "7");
            in.add(tops.toString() + top);
            in.add("-" + tops + top);
        }
        // Each ASCII neighbour of '0'-'9', 'a'-'z', 'A'-'Z' after a valid digit, and alone.
        for (String bad : new String[] {"/", ":", "@", "[", "`", "{", "\u007f", " ", "-", "+"}) {
            in.add("1" + bad);
            in.add(bad + "1");
        }
        // The letter just past the radix's last digit, both cases.
        if (radix < 36) {
            char next = (char) ('a' + radix - 10 < 'a' ? 'a' : 'a' + radix - 10);
            in.add("1" + next);
            in.add("1" + Character.toUpperCase(next));
        }
        // Non-ASCII digits and letters (Character.digit accepts some), chars whose low byte is
        // an ASCII digit or letter.
        in.add("1\u0663");
        in.add("\u0661\u0662\u0663");
        in.add("\uff11\uff10");
        in.add("\uff41\uff3a");
        in.add("1\u0131");
        in.add("1\u0141");
        in.add("1\u0161");
        in.add("\u0130");
        in.add("");
        in.add("-");
        in.add("+");
        in.add("--1");
        return in.toArray(new String[0]);
    }

    static int recurrence(String s) {
        int h = 0;
        for (int i = 0; i < s.length(); i++) {
            h = 31 * h + s.charAt(i);
        }
        return h;
    }

    static int seed = 12345;

    static char nextChar() {
        seed = seed * 1103515245 + 12345;
        int r = (seed >>> 8) & 0xffff;
        switch (r & 3) {
            case 0: return (char) (32 + r % 95);
            case 1: return (char) (0x80 + r % 0x80);
            case 2: return (char) (0x4e00 + r % 0x5000);
            default: return (char) (0xd800 + r % 0x800);
        }
    }

    static void copyChars(char[] a, int from, char[] b, int to, int n) {
        System.arraycopy(a, from, b, to, n);
    }

    static void copyBytes(byte[] a, int from, byte[] b, int to, int n) {
        System.arraycopy(a, from, b, to, n);
    }

    static void copyInts(int[] a, int from, int[] b, int to, int n) {
        System.arraycopy(a, from, b, to, n);
    }

    static void copyLongs(long[] a, int from, long[] b, int to, int n) {
        System.arraycopy(a, from, b, to, n);
    }

    // One round of copies at every length 0..80 and three placements (disjoint, overlapping
    // forward, overlapping backward): the number of wrong elements, the untouched ends included.
    static int copies() {
        int wrong = 0;
        for (int n = 0; n <= 80; n++) {
            int size = n + 10;
            for (int[] fromTo : new int[][] {{3, 5}, {2, 6}, {7, 1}}) {
                int from = fromTo[0], to = fromTo[1];
                char[] c = new char[size];
                byte[] b = new byte[size];
                int[] i = new int[size];
                long[] l = new long[size];
                for (int k = 0; k < size; k++) {
                    c[k] = (char) (k * 40961 + n);
                    b[k] = (byte) (k * 37 + n);
                    i[k] = k * 1000003 + n;
                    l[k] = k * 0x100000001L * 1000003 + n;
                }
                boolean same = from != 3;
                char[] cd = same ? c : new char[size];
                byte[] bd = same ? b : new byte[size];
                int[] id = same ? i : new int[size];
                long[] ld = same ? l : new long[size];
                char[] c0 = c.clone();
                byte[] b0 = b.clone();
                int[] i0 = i.clone();
                long[] l0 = l.clone();
                char[] cd0 = cd.clone();
                byte[] bd0 = bd.clone();
                int[] id0 = id.clone();
                long[] ld0 = ld.clone();
                copyChars(c, from, cd, to, n);
                copyBytes(b, from, bd, to, n);
                copyInts(i, from, id, to, n);
                copyLongs(l, from, ld, to, n);
                for (int k = 0; k < size; k++) {
                    boolean in = k >= to && k < to + n;
                    if (cd[k] != (in ? c0[k - to + from] : cd0[k])) wrong++;
                    if (bd[k] != (in ? b0[k - to + from] : bd0[k])) wrong++;
                    if (id[k] != (in ? i0[k - to + from] : id0[k])) wrong++;
                    if (ld[k] != (in ? l0[k - to + from] : ld0[k])) wrong++;
                }
            }
        }
        return wrong;
    }

    public static void main(String[] args) {
        // parseInt: a warm-up, then every result of the last round.
        int[] radixes = new int[35];
        for (int r = 2; r <= 36; r++) {
            radixes[r - 2] = r;
        }
        String[][] in = new String[37][];
        for (int r : radixes) {
            in[r] = inputs(r);
        }
        String[] dec = inputs(10);
        long sum = 0;
        for (int round = 0; round < 30; round++) {
            for (int r : radixes) {
                for (String s : in[r]) {
                    sum += parse(s, r).hashCode();
                }
            }
            for (String s : dec) {
                sum += parse10(s).hashCode();
            }
        }
        for (int r : new int[] {2, 8, 10, 16, 36}) {
            for (String s : in[r]) {
                System.out.println("parseInt(\"" + escape(s) + "\", " + r + ") = " + parse(s, r));
            }
        }
        StringBuilder all = new StringBuilder();
        int outputs = 0;
        for (int r : radixes) {
            for (String s : in[r]) {
                all.append(parse(s, r)).append('|');
                outputs++;
            }
        }
        System.out.println("parseInt over radixes 2..36: " + outputs + " inputs, text hash " + all.toString().hashCode());
        for (String s : dec) {
            System.out.println("parseInt(\"" + escape(s) + "\") = " + parse10(s));
        }
        System.out.println("parse sum " + sum);

        // String.hashCode: fresh strings, each length 0..300, warmed up over rounds.
        long hashes = 0;
        int hashWrong = 0;
        for (int round = 0; round < 10; round++) {
            for (int n = 0; n <= 300; n++) {
                char[] cs = new char[n];
                for (int k = 0; k < n; k++) {
                    cs[k] = nextChar();
                }
                String s = new String(cs);
                int h = s.hashCode();
                if (h != recurrence(s) || s.hashCode() != h) {
                    hashWrong++;
                }
                hashes = hashes * 31 + h;
            }
        }
        String big = "\uffff".repeat(1025);
        System.out.println("hashCode: " + hashWrong + " wrong, sum " + hashes + ", 1025 x U+FFFF " + big.hashCode()
            + ", \"\" " + "".hashCode());

        // arraycopy.
        int copyWrong = 0;
        for (int round = 0; round < 8; round++) {
            copyWrong += copies();
        }
        System.out.println("arraycopy: " + copyWrong + " wrong");

        // toHexString, toOctalString, toBinaryString: the edges, then a sweep against
        // Long.toString of the unsigned value, warmed up over rounds.
        int[] edges = {0, 1, 9, 10, 15, 16, 31, 32, 35, 36, 255, 256, Integer.MAX_VALUE, Integer.MIN_VALUE, -1, -2, 0x7f3a9c01};
        for (int v : edges) {
            System.out.println(v + ": " + Integer.toHexString(v) + " " + Integer.toOctalString(v) + " "
                + Integer.toBinaryString(v));
        }
        int radixWrong = 0;
        long radixHash = 0;
        for (int round = 0; round < 3; round++) {
            for (int n = 0; n < 2000; n++) {
                seed = seed * 1103515245 + 12345;
                int v = seed >> (n % 32);
                long u = v & 0xffffffffL;
                String h = Integer.toHexString(v), o = Integer.toOctalString(v), b = Integer.toBinaryString(v);
                if (!h.equals(Long.toString(u, 16)) || !o.equals(Long.toString(u, 8)) || !b.equals(Long.toString(u, 2))) {
                    radixWrong++;
                }
                radixHash = radixHash * 31 + h.hashCode() + o.hashCode() + b.hashCode();
            }
        }
        System.out.println("toHexString/toOctalString/toBinaryString: " + radixWrong + " wrong, hash " + radixHash);
    }

    static String escape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 32 && c < 127) {
                b.append(c);
            } else {
                b.append(String.format("\\u%04x", (int) c));
            }
        }
        return b.toString();
    }
}
