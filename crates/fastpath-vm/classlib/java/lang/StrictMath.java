package java.lang;

// StrictMath: the transcendental natives are the runtime's own (numbers.rs maps Math's and
// StrictMath's to the same correctly specified functions), and every method with a Java body
// has one specified result (rounding, exact arithmetic, bit manipulation), so it is Math's:
// each delegates, as the JDK's StrictMath does for the exact-arithmetic family. random() keeps
// a generator of its own, as the JDK's does.
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

    public static double toRadians(double angdeg) { return Math.toRadians(angdeg); }
    public static double toDegrees(double angrad) { return Math.toDegrees(angrad); }

    public static double floor(double a) { return Math.floor(a); }
    public static double ceil(double a) { return Math.ceil(a); }
    public static double rint(double a) { return Math.rint(a); }
    public static long round(double a) { return Math.round(a); }
    public static int round(float a) { return Math.round(a); }
    public static double random() { return RandomHolder.random.nextDouble(); }
    private static final class RandomHolder { static final java.util.Random random = new java.util.Random(); }

    public static int addExact(int x, int y) { return Math.addExact(x, y); }
    public static long addExact(long x, long y) { return Math.addExact(x, y); }
    public static int subtractExact(int x, int y) { return Math.subtractExact(x, y); }
    public static long subtractExact(long x, long y) { return Math.subtractExact(x, y); }
    public static int multiplyExact(int x, int y) { return Math.multiplyExact(x, y); }
    public static long multiplyExact(long x, long y) { return Math.multiplyExact(x, y); }
    public static int negateExact(int a) { return Math.negateExact(a); }
    public static int toIntExact(long value) { return Math.toIntExact(value); }
    public static int incrementExact(int a) { return Math.incrementExact(a); }
    public static int floorDiv(int x, int y) { return Math.floorDiv(x, y); }
    public static long floorDiv(long x, long y) { return Math.floorDiv(x, y); }
    public static int floorMod(int x, int y) { return Math.floorMod(x, y); }
    public static long floorMod(long x, long y) { return Math.floorMod(x, y); }
    public static int floorMod(long x, int y) { return Math.floorMod(x, y); }
    public static int abs(int a) { return Math.abs(a); }
    public static long abs(long a) { return Math.abs(a); }
    public static float abs(float a) { return Math.abs(a); }
    public static double abs(double a) { return Math.abs(a); }
    public static int absExact(int a) { return Math.absExact(a); }
    public static int max(int a, int b) { return Math.max(a, b); }
    public static long max(long a, long b) { return Math.max(a, b); }
    public static float max(float a, float b) { return Math.max(a, b); }
    public static double max(double a, double b) { return Math.max(a, b); }
    public static int min(int a, int b) { return Math.min(a, b); }
    public static long min(long a, long b) { return Math.min(a, b); }
    public static float min(float a, float b) { return Math.min(a, b); }
    public static double min(double a, double b) { return Math.min(a, b); }
    public static int clamp(long value, int min, int max) { return Math.clamp(value, min, max); }
    public static double signum(double d) { return Math.signum(d); }
    public static float signum(float f) { return Math.signum(f); }
    public static double ulp(double d) { return Math.ulp(d); }
    public static native double fma(double a, double b, double c);
    public static long decrementExact(long a) { return Math.decrementExact(a); }
    public static int decrementExact(int a) { return Math.decrementExact(a); }
    public static long incrementExact(long a) { return Math.incrementExact(a); }
    public static long negateExact(long a) { return Math.negateExact(a); }
    public static long absExact(long a) { return Math.absExact(a); }
    public static long multiplyFull(int x, int y) { return Math.multiplyFull(x, y); }
    public static long multiplyHigh(long x, long y) { return Math.multiplyHigh(x, y); }
    public static int ceilDiv(int x, int y) { return Math.ceilDiv(x, y); }
    public static long ceilDiv(long x, long y) { return Math.ceilDiv(x, y); }
    public static int ceilMod(int x, int y) { return Math.ceilMod(x, y); }
    public static double nextUp(double d) { return Math.nextUp(d); }
    public static float nextUp(float f) { return Math.nextUp(f); }
    public static double nextDown(double d) { return Math.nextDown(d); }
    public static float nextDown(float f) { return Math.nextDown(f); }
    public static double nextAfter(double start, double direction) { return Math.nextAfter(start, direction); }
    public static double copySign(double magnitude, double sign) { return Math.copySign(magnitude, sign); }
    public static float copySign(float magnitude, float sign) { return Math.copySign(magnitude, sign); }
    public static int getExponent(double d) { return Math.getExponent(d); }
    public static int getExponent(float f) { return Math.getExponent(f); }
    public static native double scalb(double d, int scaleFactor);
    public static float scalb(float f, int scaleFactor) { return Math.scalb(f, scaleFactor); }
    public static native double IEEEremainder(double f1, double f2);
    public static double clamp(double value, double min, double max) { return Math.clamp(value, min, max); }
    public static long clamp(long value, long min, long max) { return Math.clamp(value, min, max); }
}
