package java.lang;

public final class StrictMath {
    private StrictMath() {}
    public static final double E = 2.718281828459045;
    public static final double PI = 3.141592653589793;
    public static final double TAU = 2.0 * PI;

    public static native double sin(double a);
    public static native double cos(double a);
    public static native double tan(double a);
    public static native double asin(double a);
    public static native double acos(double a);
    public static native double atan(double a);
    public static native double exp(double a);
    public static native double log(double a);
    public static native double log10(double a);
    public static native double sqrt(double a);
    public static native double cbrt(double a);
    public static native double sinh(double a);
    public static native double cosh(double a);
    public static native double tanh(double a);
    public static native double expm1(double a);
    public static native double log1p(double a);
    public static native double pow(double a, double b);
    public static native double atan2(double y, double x);
    public static native double hypot(double x, double y);

    public static double toRadians(double angdeg) { return angdeg * (PI / 180.0); }
    public static double toDegrees(double angrad) { return angrad * (180.0 / PI); }

    public static double floor(double a) {
        if (a != a || a == Double.POSITIVE_INFINITY || a == Double.NEGATIVE_INFINITY || a == 0.0) return a;
        if (a >= 4503599627370496.0 || a <= -4503599627370496.0) return a;
        double t = (double) (long) a;
        if (t > a) t -= 1.0;
        if (t == 0.0 && a < 0) return -0.0;
        return t;
    }
    public static double ceil(double a) {
        if (a != a || a == Double.POSITIVE_INFINITY || a == Double.NEGATIVE_INFINITY || a == 0.0) return a;
        if (a >= 4503599627370496.0 || a <= -4503599627370496.0) return a;
        double t = (double) (long) a;
        if (t < a) t += 1.0;
        if (t == 0.0 && a < 0) return -0.0;
        return t;
    }
    public static double rint(double a) {
        double twoToThe52 = 4503599627370496.0;
        double sign = a < 0 ? -1.0 : 1.0;
        a = abs(a);
        if (a < twoToThe52) a = ((twoToThe52 + a) - twoToThe52);
        return sign * a;
    }
    public static long round(double a) {
        long bits = Double.doubleToRawLongBits(a);
        long biasedExp = (bits & 0x7ff0000000000000L) >> 52;
        long shift = (53 - 2 + 1023) - biasedExp;
        if ((shift & -64) == 0) {
            long r = ((bits & 0x000fffffffffffffL) | (0x000fffffffffffffL + 1));
            if (bits < 0) r = -r;
            return ((r >> shift) + 1) >> 1;
        }
        return (long) a;
    }
    public static int round(float a) {
        int intBits = Float.floatToRawIntBits(a);
        int biasedExp = (intBits & 0x7F800000) >> 23;
        int shift = (24 - 2 + 127) - biasedExp;
        if ((shift & -32) == 0) {
            int r = ((intBits & 0x007FFFFF) | (0x007FFFFF + 1));
            if (intBits < 0) r = -r;
            return ((r >> shift) + 1) >> 1;
        }
        return (int) a;
    }
    public static double random() { return RandomHolder.random.nextDouble(); }
    private static final class RandomHolder { static final java.util.Random random = new java.util.Random(); }

    public static int addExact(int x, int y) {
        int r = x + y;
        if (((x ^ r) & (y ^ r)) < 0) throw new ArithmeticException("integer overflow");
        return r;
    }
    public static long addExact(long x, long y) {
        long r = x + y;
        if (((x ^ r) & (y ^ r)) < 0) throw new ArithmeticException("long overflow");
        return r;
    }
    public static int subtractExact(int x, int y) {
        int r = x - y;
        if (((x ^ y) & (x ^ r)) < 0) throw new ArithmeticException("integer overflow");
        return r;
    }
    public static long subtractExact(long x, long y) {
        long r = x - y;
        if (((x ^ y) & (x ^ r)) < 0) throw new ArithmeticException("long overflow");
        return r;
    }
    public static int multiplyExact(int x, int y) {
        long r = (long) x * (long) y;
        if ((int) r != r) throw new ArithmeticException("integer overflow");
        return (int) r;
    }
    public static long multiplyExact(long x, long y) {
        long r = x * y;
        long ax = abs(x), ay = abs(y);
        if (((ax | ay) >>> 31 != 0)) {
            if (((y != 0) && (r / y != x)) || (x == Long.MIN_VALUE && y == -1)) throw new ArithmeticException("long overflow");
        }
        return r;
    }
    public static int negateExact(int a) {
        if (a == Integer.MIN_VALUE) throw new ArithmeticException("integer overflow");
        return -a;
    }
    public static int toIntExact(long value) {
        if ((int) value != value) throw new ArithmeticException("integer overflow");
        return (int) value;
    }
    public static int incrementExact(int a) {
        if (a == Integer.MAX_VALUE) throw new ArithmeticException("integer overflow");
        return a + 1;
    }
    public static int floorDiv(int x, int y) {
        int q = x / y;
        if ((x ^ y) < 0 && (q * y != x)) q--;
        return q;
    }
    public static long floorDiv(long x, long y) {
        long q = x / y;
        if ((x ^ y) < 0 && (q * y != x)) q--;
        return q;
    }
    public static int floorMod(int x, int y) {
        int m = x % y;
        if ((m ^ y) < 0 && m != 0) m += y;
        return m;
    }
    public static long floorMod(long x, long y) {
        long m = x % y;
        if ((m ^ y) < 0 && m != 0) m += y;
        return m;
    }
    public static int floorMod(long x, int y) { return (int) floorMod(x, (long) y); }
    public static int abs(int a) { return (a < 0) ? -a : a; }
    public static long abs(long a) { return (a < 0) ? -a : a; }
    public static float abs(float a) { return Float.intBitsToFloat(Float.floatToRawIntBits(a) & 0x7fffffff); }
    public static double abs(double a) { return Double.longBitsToDouble(Double.doubleToRawLongBits(a) & 0x7fffffffffffffffL); }
    public static int absExact(int a) {
        if (a == Integer.MIN_VALUE) throw new ArithmeticException("Overflow to represent absolute value of Integer.MIN_VALUE");
        return abs(a);
    }
    public static int max(int a, int b) { return (a >= b) ? a : b; }
    public static long max(long a, long b) { return (a >= b) ? a : b; }
    public static float max(float a, float b) {
        if (a != a) return a;
        if ((a == 0.0f) && (b == 0.0f) && (Float.floatToRawIntBits(a) == Float.floatToRawIntBits(-0.0f))) return b;
        return (a >= b) ? a : b;
    }
    public static double max(double a, double b) {
        if (a != a) return a;
        if ((a == 0.0d) && (b == 0.0d) && (Double.doubleToRawLongBits(a) == Double.doubleToRawLongBits(-0.0d))) return b;
        return (a >= b) ? a : b;
    }
    public static int min(int a, int b) { return (a <= b) ? a : b; }
    public static long min(long a, long b) { return (a <= b) ? a : b; }
    public static float min(float a, float b) {
        if (a != a) return a;
        if ((a == 0.0f) && (b == 0.0f) && (Float.floatToRawIntBits(b) == Float.floatToRawIntBits(-0.0f))) return b;
        return (a <= b) ? a : b;
    }
    public static double min(double a, double b) {
        if (a != a) return a;
        if ((a == 0.0d) && (b == 0.0d) && (Double.doubleToRawLongBits(b) == Double.doubleToRawLongBits(-0.0d))) return b;
        return (a <= b) ? a : b;
    }
    public static int clamp(long value, int min, int max) { return (int) Math.min(max, Math.max(value, min)); }
    public static double signum(double d) { return (d == 0.0 || d != d) ? d : (d > 0 ? 1.0 : -1.0); }
    public static float signum(float f) { return (f == 0.0f || f != f) ? f : (f > 0 ? 1.0f : -1.0f); }
    public static double ulp(double d) {
        if (d != d) return d;
        if (Double.isInfinite(d)) return Double.POSITIVE_INFINITY;
        d = abs(d);
        if (d == Double.MAX_VALUE) return Math.pow(2, 971);
        return Double.longBitsToDouble(Double.doubleToRawLongBits(d) + 1) - d;
    }
    public static native double fma(double a, double b, double c);
    public static long decrementExact(long a) {
        if (a == Long.MIN_VALUE) throw new ArithmeticException("long overflow");
        return a - 1L;
    }
    public static int decrementExact(int a) {
        if (a == Integer.MIN_VALUE) throw new ArithmeticException("integer overflow");
        return a - 1;
    }
    public static long incrementExact(long a) {
        if (a == Long.MAX_VALUE) throw new ArithmeticException("long overflow");
        return a + 1L;
    }
    public static long negateExact(long a) {
        if (a == Long.MIN_VALUE) throw new ArithmeticException("long overflow");
        return -a;
    }
    public static long absExact(long a) {
        if (a == Long.MIN_VALUE) throw new ArithmeticException("Overflow to represent absolute value of Long.MIN_VALUE");
        return abs(a);
    }
    public static long multiplyFull(int x, int y) { return (long) x * (long) y; }
    public static long multiplyHigh(long x, long y) {
        long x1 = x >> 32, x2 = x & 0xFFFFFFFFL, y1 = y >> 32, y2 = y & 0xFFFFFFFFL;
        long z2 = x2 * y2;
        long t = x1 * y2 + (z2 >>> 32);
        long z1 = t & 0xFFFFFFFFL;
        long z0 = t >> 32;
        z1 += x2 * y1;
        return x1 * y1 + z0 + (z1 >> 32);
    }
    public static int ceilDiv(int x, int y) {
        int q = x / y;
        if ((x ^ y) >= 0 && (q * y != x)) q++;
        return q;
    }
    public static long ceilDiv(long x, long y) {
        long q = x / y;
        if ((x ^ y) >= 0 && (q * y != x)) q++;
        return q;
    }
    public static int ceilMod(int x, int y) {
        int r = x % y;
        if ((x ^ y) >= 0 && r != 0) r -= y;
        return r;
    }
    public static double nextUp(double d) {
        if (d != d || d == Double.POSITIVE_INFINITY) return d;
        d += 0.0d;
        return Double.longBitsToDouble(Double.doubleToRawLongBits(d) + ((d >= 0.0d) ? +1L : -1L));
    }
    public static float nextUp(float f) {
        if (f != f || f == Float.POSITIVE_INFINITY) return f;
        f += 0.0f;
        return Float.intBitsToFloat(Float.floatToRawIntBits(f) + ((f >= 0.0f) ? +1 : -1));
    }
    public static double nextDown(double d) {
        if (d != d || d == Double.NEGATIVE_INFINITY) return d;
        if (d == 0.0) return -Double.MIN_VALUE;
        return Double.longBitsToDouble(Double.doubleToRawLongBits(d) + ((d > 0.0d) ? -1L : +1L));
    }
    public static float nextDown(float f) {
        if (f != f || f == Float.NEGATIVE_INFINITY) return f;
        if (f == 0.0f) return -Float.MIN_VALUE;
        return Float.intBitsToFloat(Float.floatToRawIntBits(f) + ((f > 0.0f) ? -1 : +1));
    }
    public static double nextAfter(double start, double direction) {
        if (start > direction) return nextDown(start);
        if (start < direction) return nextUp(start);
        if (start == direction) return direction;
        return start + direction;
    }
    public static double copySign(double magnitude, double sign) {
        return Double.longBitsToDouble((Double.doubleToRawLongBits(sign) & 0x8000000000000000L)
            | (Double.doubleToRawLongBits(magnitude) & 0x7fffffffffffffffL));
    }
    public static float copySign(float magnitude, float sign) {
        return Float.intBitsToFloat((Float.floatToRawIntBits(sign) & 0x80000000) | (Float.floatToRawIntBits(magnitude) & 0x7fffffff));
    }
    public static int getExponent(double d) {
        return (int) (((Double.doubleToRawLongBits(d) & 0x7ff0000000000000L) >> 52) - 1023);
    }
    public static int getExponent(float f) {
        return ((Float.floatToRawIntBits(f) & 0x7f800000) >> 23) - 127;
    }
    public static native double scalb(double d, int scaleFactor);
    public static float scalb(float f, int scaleFactor) {
        int sf = Math.max(Math.min(scaleFactor, 278), -278);
        return (float) ((double) f * scalb(1.0, sf));
    }
    public static native double IEEEremainder(double f1, double f2);
    public static double clamp(double value, double min, double max) {
        if (!(min < max)) {
            if (Double.isNaN(min)) throw new IllegalArgumentException("min is NaN");
            if (Double.isNaN(max)) throw new IllegalArgumentException("max is NaN");
            if (Double.compare(min, max) > 0) throw new IllegalArgumentException(min + " > " + max);
        }
        return Math.min(max, Math.max(value, min));
    }
    public static long clamp(long value, long min, long max) {
        if (min > max) throw new IllegalArgumentException(min + " > " + max);
        return Math.min(max, Math.max(value, min));
    }
}
