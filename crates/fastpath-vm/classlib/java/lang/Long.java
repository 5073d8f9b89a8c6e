package java.lang;

public final class Long extends Number implements Comparable<Long> {
    public static final long MIN_VALUE = 0x8000000000000000L;
    public static final long MAX_VALUE = 0x7fffffffffffffffL;
    public static final int SIZE = 64;
    public static final int BYTES = 8;
    public static final Class<Long> TYPE = (Class<Long>) Class.getPrimitiveClass("long");

    private final long value;

    private static final class LongCache {
        static final Long[] cache = new Long[256];
        static {
            for (int i = 0; i < 256; i++) cache[i] = new Long(i - 128);
        }
    }

    public Long(long value) { this.value = value; }

    public static Long valueOf(long l) {
        if (l >= -128 && l <= 127) return LongCache.cache[(int) l + 128];
        return new Long(l);
    }
    public static Long valueOf(String s) throws NumberFormatException { return valueOf(parseLong(s, 10)); }
    public static Long valueOf(String s, int radix) throws NumberFormatException { return valueOf(parseLong(s, radix)); }

    public static long parseLong(String s) throws NumberFormatException { return parseLong(s, 10); }

    public static long parseLong(String s, int radix) throws NumberFormatException {
        if (s == null) throw new NumberFormatException("Cannot parse null string");
        if (radix < Character.MIN_RADIX) throw new NumberFormatException("radix " + radix + " less than Character.MIN_RADIX");
        if (radix > Character.MAX_RADIX) throw new NumberFormatException("radix " + radix + " greater than Character.MAX_RADIX");
        int len = s.length();
        if (len == 0) throw Integer.forInputString("", radix);
        int i = 0;
        boolean negative = false;
        long limit = -Long.MAX_VALUE;
        char first = s.charAt(0);
        if (first < '0') {
            if (first == '-') { negative = true; limit = Long.MIN_VALUE; }
            else if (first != '+') throw Integer.forInputString(s, radix);
            if (len == 1) throw Integer.forInputString(s, radix);
            i++;
        }
        long multmin = limit / radix;
        long result = 0;
        while (i < len) {
            int digit = Character.digit(s.charAt(i++), radix);
            if (digit < 0 || result < multmin) throw Integer.forInputString(s, radix);
            result *= radix;
            if (result < limit + digit) throw Integer.forInputString(s, radix);
            result -= digit;
        }
        return negative ? result : -result;
    }

    static int stringSize(long x) {
        int d = 1;
        if (x >= 0) { d = 0; x = -x; }
        long p = -10;
        for (int i = 1; i < 19; i++) {
            if (x > p) return i + d;
            p = 10 * p;
        }
        return 19 + d;
    }

    static int getChars(long i, int index, char[] buf) {
        long q;
        int charPos = index;
        boolean negative = (i < 0);
        if (!negative) i = -i;
        while (i <= -10) {
            q = i / 10;
            buf[--charPos] = (char) ('0' + (int) ((q * 10) - i));
            i = q;
        }
        buf[--charPos] = (char) ('0' - (int) i);
        if (negative) buf[--charPos] = '-';
        return charPos;
    }

    public static String toString(long i) {
        if (i == MIN_VALUE) return "-9223372036854775808";
        int size = stringSize(i);
        char[] buf = new char[size];
        getChars(i, size, buf);
        return new String(buf, true);
    }

    public static String toString(long i, int radix) {
        if (radix < Character.MIN_RADIX || radix > Character.MAX_RADIX) radix = 10;
        if (radix == 10) return toString(i);
        char[] buf = new char[65];
        int charPos = 64;
        boolean negative = (i < 0);
        if (!negative) i = -i;
        while (i <= -radix) {
            buf[charPos--] = Integer.digits[(int) (-(i % radix))];
            i = i / radix;
        }
        buf[charPos] = Integer.digits[(int) (-i)];
        if (negative) buf[--charPos] = '-';
        return new String(buf, charPos, 65 - charPos);
    }

    private static String toUnsignedString0(long val, int shift) {
        int mag = Long.SIZE - Long.numberOfLeadingZeros(val);
        int chars = Math.max(((mag + (shift - 1)) / shift), 1);
        char[] buf = new char[chars];
        int radix = 1 << shift;
        int mask = radix - 1;
        int charPos = chars;
        do {
            buf[--charPos] = Integer.digits[((int) val) & mask];
            val >>>= shift;
        } while (charPos > 0);
        return new String(buf, true);
    }

    public static String toHexString(long i) { return toUnsignedString0(i, 4); }
    public static String toOctalString(long i) { return toUnsignedString0(i, 3); }
    public static String toBinaryString(long i) { return toUnsignedString0(i, 1); }

    public static String toUnsignedString(long i) {
        if (i >= 0) return toString(i);
        long quot = (i >>> 1) / 5;
        long rem = i - quot * 10;
        return toString(quot) + rem;
    }

    public byte byteValue() { return (byte) value; }
    public short shortValue() { return (short) value; }
    public int intValue() { return (int) value; }
    public long longValue() { return value; }
    public float floatValue() { return (float) value; }
    public double doubleValue() { return (double) value; }

    public String toString() { return toString(value); }
    public int hashCode() { return hashCode(value); }
    public static int hashCode(long value) { return (int) (value ^ (value >>> 32)); }
    public boolean equals(Object obj) { return obj instanceof Long && value == ((Long) obj).longValue(); }
    public int compareTo(Long anotherLong) { return compare(value, anotherLong.value); }
    public static int compare(long x, long y) { return (x < y) ? -1 : ((x == y) ? 0 : 1); }
    public static int compareUnsigned(long x, long y) { return compare(x + MIN_VALUE, y + MIN_VALUE); }
    public static long divideUnsigned(long dividend, long divisor) {
        if (divisor >= 0) {
            final long q = (dividend >>> 1) / divisor << 1;
            final long r = dividend - q * divisor;
            return q + ((r | ~(r - divisor)) >>> (Long.SIZE - 1));
        }
        return (dividend & ~(dividend - divisor)) >>> (Long.SIZE - 1);
    }
    public static long remainderUnsigned(long dividend, long divisor) {
        if (divisor >= 0) {
            final long q = (dividend >>> 1) / divisor << 1;
            final long r = dividend - q * divisor;
            return r - ((~(r - divisor) >> (Long.SIZE - 1)) & divisor);
        }
        return dividend - (((dividend & ~(dividend - divisor)) >> (Long.SIZE - 1)) & divisor);
    }
    public static int signum(long i) { return (int) ((i >> 63) | (-i >>> 63)); }
    public static long sum(long a, long b) { return a + b; }
    public static long max(long a, long b) { return Math.max(a, b); }
    public static long min(long a, long b) { return Math.min(a, b); }
    public static long abs(long a) { return Math.abs(a); }

    public static long highestOneBit(long i) { return i & (MIN_VALUE >>> numberOfLeadingZeros(i)); }
    public static long lowestOneBit(long i) { return i & -i; }
    public static int numberOfLeadingZeros(long i) {
        int x = (int) (i >>> 32);
        return x == 0 ? 32 + Integer.numberOfLeadingZeros((int) i) : Integer.numberOfLeadingZeros(x);
    }
    public static int numberOfTrailingZeros(long i) {
        int x = (int) i;
        return x == 0 ? 32 + Integer.numberOfTrailingZeros((int) (i >>> 32)) : Integer.numberOfTrailingZeros(x);
    }
    public static int bitCount(long i) { return Integer.bitCount((int) i) + Integer.bitCount((int) (i >>> 32)); }
    public static long rotateLeft(long i, int distance) { return (i << distance) | (i >>> -distance); }
    public static long rotateRight(long i, int distance) { return (i >>> distance) | (i << -distance); }
    public static long reverse(long i) {
        return ((long) Integer.reverse((int) i) << 32) | (Integer.reverse((int) (i >>> 32)) & 0xffffffffL);
    }
    public static long reverseBytes(long i) {
        return ((long) Integer.reverseBytes((int) i) << 32) | (Integer.reverseBytes((int) (i >>> 32)) & 0xffffffffL);
    }
}
