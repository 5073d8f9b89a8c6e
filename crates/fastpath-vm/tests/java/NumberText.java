// tags: string numeric
// release: 17
// Integers to text and back: Integer.parseInt and Long.parseLong over signs, radixes, the range's
// edges, overflow by one, non-ASCII digits and malformed text (each value or exception with its
// message); Integer.toString, StringBuilder.append(int) and append(long) at every power of ten's
// edges and over a pseudo-random sweep (the text's hash sums, so that one wrong digit changes the
// output); toHexString, toOctalString and toBinaryString at the edges; substring and indexOf
// bounds (the exception's class: JDK 17's message differs).
public class NumberText {
    static final String[] INPUTS = {
        "", "-", "+", "0", "-0", "+0", "+5", "-5", "007", "2147483647", "2147483648", "-2147483648",
        "-2147483649", "+2147483647", "99999999999", "12a", " 1", "1 ", "1_000", "7fffffff",
        "80000000", "-80000000", "ffffffff", "zz", "ZZ", "Zz", "-zik0zk", "zik0zj", "1y2p0ij32e8e7",
        "101", "-101", "777", "8", "\u0663\u0664", "-\u0663", "\uff11\uff12", "\uff41\uff5a", "9223372036854775807",
        "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "7fffffffffffffff",
        "-8000000000000000", "8000000000000000", "--1", "+-1", "-+1", "1-", "\u0000", "/", ":", "@", "[", "`", "{",
    };
    static final int[] RADIXES = {10, 2, 8, 16, 36, 1, 37, -10};

    static String parseInt(String s, int radix) {
        try {
            return Integer.toString(Integer.parseInt(s, radix));
        } catch (NumberFormatException e) {
            return e.getClass().getName() + ": " + e.getMessage();
        }
    }

    static String parseLong(String s, int radix) {
        try {
            return Long.toString(Long.parseLong(s, radix));
        } catch (NumberFormatException e) {
            return e.getClass().getName() + ": " + e.getMessage();
        }
    }

    public static void main(String[] args) {
        for (int radix : RADIXES) {
            for (String s : INPUTS) {
                System.out.println("parseInt(\"" + escape(s) + "\", " + radix + ") = " + parseInt(s, radix));
                System.out.println("parseLong(\"" + escape(s) + "\", " + radix + ") = " + parseLong(s, radix));
            }
        }
        System.out.println("parseInt(null) = " + parseInt(null, 10));
        System.out.println("parseLong(null) = " + parseLong(null, 10));
        for (String s : new String[] {"0", "-2147483648", "2147483647", "12x"}) {
            try {
                System.out.println("parseInt(\"" + s + "\") = " + Integer.parseInt(s) + ", valueOf " + Integer.valueOf(s));
            } catch (NumberFormatException e) {
                System.out.println("parseInt(\"" + s + "\"): " + e.getMessage());
            }
        }

        // Every power of ten's neighbours, both signs, and the range's ends.
        StringBuilder b = new StringBuilder();
        long p = 1;
        for (int k = 0; k <= 18; k++, p *= 10) {
            for (long d = -1; d <= 1; d++) {
                long v = p + d;
                if (v == (int) v) {
                    b.append((int) v).append(' ').append((int) -v).append(' ');
                    b.append(Integer.toString((int) v)).append(' ');
                }
                b.append(v).append(' ').append(-v).append('|');
            }
            System.out.println(b);
            b.setLength(0);
        }
        b.append(Integer.MIN_VALUE).append(' ').append(Integer.MAX_VALUE).append(' ').append(Long.MIN_VALUE).append(' ')
            .append(Long.MAX_VALUE).append(' ').append(Integer.toString(Integer.MIN_VALUE)).append(' ')
            .append(Long.toString(Long.MIN_VALUE)).append(' ').append(String.valueOf(-7)).append(' ').append((Object) null);
        System.out.println(b);

        // A sweep: the text of ints and longs, round-tripped through the parsers.
        int seed = 12345;
        long intHash = 0, longHash = 0, lengths = 0, wrong = 0;
        StringBuilder sweep = new StringBuilder();
        for (int n = 0; n < 3000; n++) {
            seed = seed * 1103515245 + 12345;
            int v = seed >> (n % 31);
            long w = ((long) seed << (n % 33)) ^ n;
            sweep.setLength(0);
            sweep.append(v);
            String t = sweep.toString();
            String u = Integer.toString(v);
            intHash = intHash * 31 + t.hashCode();
            lengths += t.length();
            if (!t.equals(u) || Integer.parseInt(t) != v || Integer.parseInt(Integer.toHexString(v & 0x7fffffff), 16) != (v & 0x7fffffff)) {
                wrong++;
            }
            sweep.setLength(0);
            sweep.append(w).append(',').append(v);
            String lt = sweep.toString();
            longHash = longHash * 31 + lt.hashCode();
            int comma = lt.indexOf(',');
            if (Long.parseLong(lt.substring(0, comma)) != w || Integer.parseInt(lt.substring(comma + 1)) != v
                || Long.parseLong(Long.toString(w, 36), 36) != w) {
                wrong++;
            }
        }
        System.out.println("sweep: int hash " + intHash + ", long hash " + longHash + ", " + lengths + " chars, " + wrong + " wrong");

        int[] edges = {0, 1, -1, 15, 16, 255, 256, Integer.MAX_VALUE, Integer.MIN_VALUE, 0x12345678, 0xdeadbeef};
        for (int e : edges) {
            System.out.println(Integer.toHexString(e) + " " + Integer.toOctalString(e) + " " + Integer.toBinaryString(e) + " "
                + Integer.toString(e, 36) + " " + Integer.toString(e, 7) + " " + Integer.toUnsignedString(e));
        }

        String s = "12,name-12,c,12";
        System.out.println(s.indexOf(',') + " " + s.indexOf(',', 3) + " " + s.indexOf(',', -5) + " " + s.indexOf(',', 99)
            + " " + s.indexOf('x') + " " + s.indexOf(0x1F600) + " [" + s.substring(0, 2) + "] [" + s.substring(15) + "] ["
            + s.substring(3, 3) + "] " + (s.substring(0) == s) + " " + (s.substring(0, s.length()) == s));
        int[][] ranges = {{-1, 2}, {3, 2}, {0, 16}, {16, 16}, {17, 15}};
        for (int[] r : ranges) {
            try {
                System.out.println(s.substring(r[0], r[1]));
            } catch (StringIndexOutOfBoundsException e) {
                // (JDK 17's message differs from 25's; the class is the same.)
                System.out.println("substring(" + r[0] + ", " + r[1] + "): " + e.getClass().getName());
            }
        }
    }

    static String escape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                b.append("\\u").append(String.format("%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
