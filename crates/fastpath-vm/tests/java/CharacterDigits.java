// tags: string numeric
// release: 25
// Character.digit, isDigit and getNumericValue over the decimal digits (Unicode category Nd) of
// every script below U+20000, the full-width Latin letters and the numbers that are not Nd
// (superscripts, fractions, circled and Roman numerals, historic scripts' numerals): counts and weighted sums per radix, so that one
// wrong code point changes the output, then a few named code points. Release 25: the digits are
// Unicode 16's (Java 25's); JDK 17 (Unicode 13) lacks the scripts added since.
public class CharacterDigits {
    static long weight(int cp) {
        return cp % 9973 + 1;
    }

    public static void main(String[] args) {
        int[] radixes = {2, 10, 16, 36, 37, 1};
        for (int r : radixes) {
            int count = 0;
            long sum = 0;
            for (int cp = 0; cp < 0x20000; cp++) {
                int d = Character.digit(cp, r);
                if (d >= 0) {
                    count++;
                    sum += d * weight(cp);
                }
            }
            System.out.println("digit(int, " + r + "): " + count + " code points, sum " + sum);
        }
        int count = 0;
        long sum = 0;
        for (char ch = 0; ch < 0xffff; ch++) {
            int d = Character.digit(ch, 16);
            if (d >= 0) {
                count++;
                sum += d * weight(ch);
            }
        }
        System.out.println("digit(char, 16): " + count + " chars, sum " + sum);
        count = 0;
        sum = 0;
        long values = 0;
        for (int cp = 0; cp < 0x20000; cp++) {
            if (Character.isDigit(cp)) {
                count++;
                sum += weight(cp);
                values += Character.getNumericValue(cp);
            }
        }
        System.out.println("isDigit: " + count + " code points, sum " + sum + ", their values " + values);
        count = 0;
        sum = 0;
        int notIntegers = 0;
        for (int cp = 0; cp < 0x20000; cp++) {
            int v = Character.getNumericValue(cp);
            if (v >= 0) {
                count++;
                sum += v * weight(cp);
            } else if (v == -2) {
                notIntegers++;
            }
        }
        System.out.println("getNumericValue: " + count + " code points, sum " + sum + ", " + notIntegers
            + " not integers");
        int[] named = {0x663, 0x6f9, 0x96f, 0xff10, 0xff19, 0xff21, 0xff3a, 0xff41, 0xff5a, 0xff5b, 0x1d7ce,
            0x1d7d7, 0x1d7d8, 0x1d7ff, 0x1fbf9, 0xb2, 0xb9, 0xbd, 0x2070, 0x2160, 0x216f, 0x2460, 0x2473, 0x2474, 0x3007, 0x4e00, 0x10107, 0x1d2e0, 0x2f890, 0x110000, -1};
        for (int cp : named) {
            System.out.println(Integer.toHexString(cp) + ": digit10 " + Character.digit(cp, 10) + ", digit36 "
                + Character.digit(cp, 36) + ", isDigit " + Character.isDigit(cp) + ", value "
                + Character.getNumericValue(cp));
        }
    }
}
