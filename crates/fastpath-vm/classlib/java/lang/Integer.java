package java.lang;

public final class Integer extends Number implements Comparable<Integer> {
    public static final int MIN_VALUE = 0x80000000;
    public static final int MAX_VALUE = 0x7fffffff;
    public static final int SIZE = 32;
    public static final int BYTES = 4;
    public static final Class<Integer> TYPE = (Class<Integer>) Class.getPrimitiveClass("int");

    static final char[] digits = {
        '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h',
        'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z'
    };

    private final int value;

    /**
     * Each ASCII char's value as a digit: '0'-'9' 0-9, 'a'-'z' and 'A'-'Z' 10-35, any other 127
     * (no radix's digit), as `Character.digit` gives it in radix 36 below U+0080.
     */
    private static final byte[] ASCII_DIGITS = new byte[128];

    static {
        for (int c = 0; c < 128; c++) {
            int d = 127;
            if (c >= '0' && c <= '9') d = c - '0';
            else if (c >= 'a' && c <= 'z') d = c - 'a' + 10;
            else if (c >= 'A' && c <= 'Z') d = c - 'A' + 10;
            ASCII_DIGITS[c] = (byte) d;
        }
    }

    /** The boxes of -128..127 (JLS 5.1.7). */
    private static final class IntegerCache {
        static final Integer[] cache = new Integer[256];
        static {
            for (int i = 0; i < 256; i++) cache[i] = new Integer(i - 128);
        }
    }

    public Integer(int value) { this.value = value; }
    public Integer(String s) throws NumberFormatException { this.value = parseInt(s, 10); }

    public static Integer valueOf(int i) {
        if (i >= -128 && i <= 127) return IntegerCache.cache[i + 128];
        return new Integer(i);
    }
    public static Integer valueOf(String s) throws NumberFormatException { return valueOf(parseInt(s, 10)); }
    public static Integer valueOf(String s, int radix) throws NumberFormatException { return valueOf(parseInt(s, radix)); }

    static NumberFormatException forInputString(String s, int radix) {
        return new NumberFormatException("For input string: \"" + s + "\"" + (radix == 10 ? "" : " under radix " + radix));
    }

    /**
     * A decimal of at most 10 ASCII digits after an optional '-' is accumulated in a long (which
     * cannot overflow) without `parseInt(s, 10)`'s per-digit `Character.digit` call and overflow
     * checks, and returned when it is in range; anything else (a '+', more digits, a non-ASCII
     * digit, a bad character, an empty or null string, a value out of range) goes to
     * `parseIntChecked(s, 10)`, which gives the same value or throws its exception.
     */
    public static int parseInt(String s) throws NumberFormatException {
        if (s != null) {
            char[] v = s.value;
            int n = v.length;
            int i = n > 0 && v[0] == '-' ? 1 : 0;
            if (n > i && n - i <= 10) {
                long r = 0;
                for (; i < n; i++) {
                    int d = v[i] - '0';
                    if (d < 0 || d > 9) break;
                    r = r * 10 + d;
                }
                if (i == n) {
                    if (v[0] != '-') {
                        if (r <= MAX_VALUE) return (int) r;
                    } else if (r <= -(long) MIN_VALUE) {
                        return (int) -r;
                    }
                }
            }
        }
        return parseIntChecked(s, 10);
    }

    /**
     * At most 12 ASCII digits (of any radix: '0'-'9', then 'a'-'z' or 'A'-'Z' for 10-35) after an
     * optional sign are accumulated in a long, which 36^12 < 2^63 keeps from overflowing, with no
     * per-digit overflow checks, and returned when the value is in range; anything else (a bad
     * radix, more digits, a non-ASCII digit, a bad character, an empty or null string, a lone
     * sign, a value out of range) goes to `parseIntChecked`, which gives the same value or throws
     * its exception. The digits are decoded by a table of the ASCII chars rather than by
     * `Character.digit`, whose compiled form calls out for a non-ASCII char (a call in the loop
     * would leave compiled code no caller-saved register for the loop's values) and whose
     * digit-or-letter test is a branch that random hex digits mispredict; the exceptions'
     * construction stays in `parseIntChecked`.
     */
    public static int parseInt(String s, int radix) throws NumberFormatException {
        if (s != null && radix >= Character.MIN_RADIX && radix <= Character.MAX_RADIX) {
            char[] v = s.value;
            int n = v.length;
            int i = n > 0 && (v[0] == '-' || v[0] == '+') ? 1 : 0;
            if (n > i && n - i <= 12) {
                long r = 0;
                byte[] digits = ASCII_DIGITS;
                for (; i < n; i++) {
                    int c = v[i];
                    if (c >= 128) break;
                    int d = digits[c];
                    if (d >= radix) break;
                    r = r * radix + d;
                }
                if (i == n) {
                    if (v[0] != '-') {
                        if (r <= MAX_VALUE) return (int) r;
                    } else if (r <= -(long) MIN_VALUE) {
                        return (int) -r;
                    }
                }
            }
        }
        return parseIntChecked(s, radix);
    }

    /**
     * JDK 25's algorithm (`Integer.parseInt`): the value accumulated negatively so that
     * `MIN_VALUE` parses, `multmin` and `limit` refusing overflow before it happens. The loop
     * reads the string's array once (a local, so compiled code loads the field and its length
     * once, not per character); the exceptions' messages are HotSpot's.
     */
    private static int parseIntChecked(String s, int radix) throws NumberFormatException {
        if (s == null) throw new NumberFormatException("Cannot parse null string");
        if (radix < Character.MIN_RADIX) throw new NumberFormatException("radix " + radix + " less than Character.MIN_RADIX");
        if (radix > Character.MAX_RADIX) throw new NumberFormatException("radix " + radix + " greater than Character.MAX_RADIX");
        char[] v = s.value;
        int len = v.length;
        if (len == 0) throw forInputString(s, radix);
        int i = 0;
        boolean negative = false;
        int limit = -Integer.MAX_VALUE;
        char first = v[0];
        if (first < '0') {
            if (first == '-') { negative = true; limit = Integer.MIN_VALUE; }
            else if (first != '+') throw forInputString(s, radix);
            if (len == 1) throw forInputString(s, radix);
            i = 1;
        }
        int multmin = limit / radix;
        int result = 0;
        for (; i < len; i++) {
            int digit = Character.digit(v[i], radix);
            if (digit < 0 || result < multmin) throw forInputString(s, radix);
            result *= radix;
            if (result < limit + digit) throw forInputString(s, radix);
            result -= digit;
        }
        return negative ? result : -result;
    }

    public static int parseUnsignedInt(String s) { return parseUnsignedInt(s, 10); }
    public static int parseUnsignedInt(String s, int radix) {
        long v = Long.parseLong(s, radix);
        if (v < 0 || v > 0xffffffffL) throw new NumberFormatException("String value " + s + " exceeds range of unsigned int.");
        return (int) v;
    }

    public static Integer decode(String nm) throws NumberFormatException {
        int radix = 10, index = 0;
        boolean negative = false;
        if (nm.isEmpty()) throw new NumberFormatException("Zero length string");
        char first = nm.charAt(0);
        if (first == '-') { negative = true; index++; } else if (first == '+') index++;
        if (nm.startsWith("0x", index) || nm.startsWith("0X", index)) { index += 2; radix = 16; }
        else if (nm.startsWith("#", index)) { index++; radix = 16; }
        else if (nm.startsWith("0", index) && nm.length() > 1 + index) { index++; radix = 8; }
        int v = parseInt((negative ? "-" : "") + nm.substring(index), radix);
        return valueOf(v);
    }

    /**
     * The length of `x`'s decimal text, its sign included: the digits of the negated value
     * (every int has one, `MIN_VALUE` included) by a binary search over the powers of ten, at
     * most four compares and no loop.
     */
    static int stringSize(int x) {
        int d = 1;
        if (x >= 0) { d = 0; x = -x; }
        if (x > -100000) {
            if (x > -100) return (x > -10 ? 1 : 2) + d;
            if (x > -10000) return (x > -1000 ? 3 : 4) + d;
            return 5 + d;
        }
        if (x > -10000000) return (x > -1000000 ? 6 : 7) + d;
        if (x > -1000000000) return (x > -100000000 ? 8 : 9) + d;
        return 10 + d;
    }

    /**
     * Writes `i`'s digits ending just before `index` in `buf`; returns where they start. Four
     * digits a step while at least five are left (one division by 10000, then the two pairs by
     * arithmetic: `r * 5243 >>> 19` is `r / 100` for `0 <= r < 10000`), then two a step, as JDK
     * 25's `DecimalDigits.getCharsLatin1` (its table of digit pairs replaced by arithmetic:
     * `r * 103 >>> 10` is `r / 10` for `0 <= r < 100`), negatively so that `MIN_VALUE` needs no
     * case of its own.
     */
    static int getChars(int i, int index, char[] buf) {
        int charPos = index;
        boolean negative = i < 0;
        if (!negative) i = -i;
        while (i <= -10000) {
            int q = i / 10000;
            int r = (q * 10000) - i;
            i = q;
            int hi = (r * 5243) >>> 19;
            int lo = r - hi * 100;
            int tens = (lo * 103) >>> 10;
            buf[--charPos] = (char) ('0' + lo - tens * 10);
            buf[--charPos] = (char) ('0' + tens);
            tens = (hi * 103) >>> 10;
            buf[--charPos] = (char) ('0' + hi - tens * 10);
            buf[--charPos] = (char) ('0' + tens);
        }
        while (i <= -100) {
            int q = i / 100;
            int r = (q * 100) - i;
            i = q;
            int tens = (r * 103) >>> 10;
            buf[--charPos] = (char) ('0' + r - tens * 10);
            buf[--charPos] = (char) ('0' + tens);
        }
        if (i <= -10) {
            int r = -i;
            int tens = (r * 103) >>> 10;
            buf[--charPos] = (char) ('0' + r - tens * 10);
            buf[--charPos] = (char) ('0' + tens);
        } else {
            buf[--charPos] = (char) ('0' - i);
        }
        if (negative) buf[--charPos] = '-';
        return charPos;
    }

    public static String toString(int i) {
        if (i == MIN_VALUE) return "-2147483648";
        int size = stringSize(i);
        char[] buf = new char[size];
        getChars(i, size, buf);
        return new String(buf, true);
    }

    public static String toString(int i, int radix) {
        if (radix < Character.MIN_RADIX || radix > Character.MAX_RADIX) radix = 10;
        if (radix == 10) return toString(i);
        char[] buf = new char[33];
        boolean negative = (i < 0);
        int charPos = 32;
        if (!negative) i = -i;
        while (i <= -radix) {
            buf[charPos--] = digits[-(i % radix)];
            i = i / radix;
        }
        buf[charPos] = digits[-i];
        if (negative) buf[--charPos] = '-';
        return new String(buf, charPos, 33 - charPos);
    }

    /**
     * `val`'s digits in radix `1 << shift` (`shift` 1 to 5), last digit first: a loop that counts
     * down from the array's last index, so that compiled code proves its stores in bounds, and
     * each digit's char by arithmetic (`'a' - '0' - 10` more when it is past 9) rather than a
     * load from `digits` that keeps its bounds check.
     */
    private static String toUnsignedString0(int val, int shift) {
        int mag = Integer.SIZE - Integer.numberOfLeadingZeros(val);
        int chars = Math.max(((mag + (shift - 1)) / shift), 1);
        char[] buf = new char[chars];
        int mask = (1 << shift) - 1;
        for (int charPos = chars - 1; charPos >= 0; charPos--) {
            int n = val & mask;
            buf[charPos] = (char) ('0' + n + (((9 - n) >> 31) & ('a' - '0' - 10)));
            val >>>= shift;
        }
        return new String(buf, true);
    }

    public static String toHexString(int i) { return toUnsignedString0(i, 4); }
    public static String toOctalString(int i) { return toUnsignedString0(i, 3); }
    public static String toBinaryString(int i) { return toUnsignedString0(i, 1); }
    public static String toUnsignedString(int i) { return Long.toString(i & 0xffffffffL); }
    public static long toUnsignedLong(int x) { return ((long) x) & 0xffffffffL; }

    public byte byteValue() { return (byte) value; }
    public short shortValue() { return (short) value; }
    public int intValue() { return value; }
    public long longValue() { return (long) value; }
    public float floatValue() { return (float) value; }
    public double doubleValue() { return (double) value; }

    public String toString() { return toString(value); }
    public int hashCode() { return value; }
    public static int hashCode(int value) { return value; }
    public boolean equals(Object obj) { return obj instanceof Integer && value == ((Integer) obj).intValue(); }
    public int compareTo(Integer anotherInteger) { return compare(value, anotherInteger.value); }
    public static int compare(int x, int y) { return (x < y) ? -1 : ((x == y) ? 0 : 1); }
    public static int compareUnsigned(int x, int y) { return compare(x + MIN_VALUE, y + MIN_VALUE); }
    public static int divideUnsigned(int dividend, int divisor) { return (int) (toUnsignedLong(dividend) / toUnsignedLong(divisor)); }
    public static int remainderUnsigned(int dividend, int divisor) { return (int) (toUnsignedLong(dividend) % toUnsignedLong(divisor)); }
    public static int signum(int i) { return (i >> 31) | (-i >>> 31); }
    public static int sum(int a, int b) { return a + b; }
    public static int max(int a, int b) { return Math.max(a, b); }
    public static int min(int a, int b) { return Math.min(a, b); }
    public static int abs(int a) { return Math.abs(a); }

    public static int highestOneBit(int i) { return i & (MIN_VALUE >>> numberOfLeadingZeros(i)); }
    public static int lowestOneBit(int i) { return i & -i; }
    public static int numberOfLeadingZeros(int i) {
        if (i <= 0) return i == 0 ? 32 : 0;
        int n = 31;
        if (i >= 1 << 16) { n -= 16; i >>>= 16; }
        if (i >= 1 << 8) { n -= 8; i >>>= 8; }
        if (i >= 1 << 4) { n -= 4; i >>>= 4; }
        if (i >= 1 << 2) { n -= 2; i >>>= 2; }
        return n - (i >>> 1);
    }
    public static int numberOfTrailingZeros(int i) {
        if (i == 0) return 32;
        int n = 0;
        while ((i & 1) == 0) { i >>>= 1; n++; }
        return n;
    }
    public static int bitCount(int i) {
        i = i - ((i >>> 1) & 0x55555555);
        i = (i & 0x33333333) + ((i >>> 2) & 0x33333333);
        i = (i + (i >>> 4)) & 0x0f0f0f0f;
        i = i + (i >>> 8);
        i = i + (i >>> 16);
        return i & 0x3f;
    }
    public static int rotateLeft(int i, int distance) { return (i << distance) | (i >>> -distance); }
    public static int rotateRight(int i, int distance) { return (i >>> distance) | (i << -distance); }
    public static int reverse(int i) {
        i = (i & 0x55555555) << 1 | (i >>> 1) & 0x55555555;
        i = (i & 0x33333333) << 2 | (i >>> 2) & 0x33333333;
        i = (i & 0x0f0f0f0f) << 4 | (i >>> 4) & 0x0f0f0f0f;
        return reverseBytes(i);
    }
    public static int reverseBytes(int i) {
        return (i << 24) | ((i & 0xff00) << 8) | ((i >>> 8) & 0xff00) | (i >>> 24);
    }
}
