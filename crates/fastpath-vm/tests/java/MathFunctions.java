// tags: numeric
// release: 12
// java.lang.Math: the exact operations (abs, min, max, signum, floor, ceil, rint, round,
// floorDiv/floorMod, the *Exact family, sqrt, hypot-free integer helpers) printed exactly;
// the transcendental functions (sin, cos, tan, atan2, exp, log, log10, pow, cbrt, asin, acos,
// atan, sinh, cosh, tanh) printed rounded to 6 decimals, since HotSpot's intrinsics and
// another VM's libm may differ in the last place (every printed value is small enough
// that one ulp is far below the sixth decimal). StrictMath's exact operations, its exact-arithmetic
// overflow (the exception's message and trace) and its transcendentals, beside Math's.
public class MathFunctions {
    static String r(double v) {
        return String.format("%.6f", v);
    }

    public static void main(String[] args) {
        System.out.println("abs " + Math.abs(-5) + " " + Math.abs(Integer.MIN_VALUE) + " " + Math.abs(-5L) + " "
            + Math.abs(-2.5) + " " + Math.abs(-0.0) + " " + Math.abs(-3.5f) + " " + Math.abs(Double.NEGATIVE_INFINITY));
        System.out.println("min/max " + Math.min(-0.0, 0.0) + " " + Math.max(-0.0, 0.0) + " " + Math.min(1.0, Double.NaN)
            + " " + Math.max(3, 7) + " " + Math.min(-3L, 7L) + " " + Math.max(1.5f, -1.5f));
        double[] values = {-2.5, -1.5, -0.5, -0.4, 0.0, 0.4, 0.5, 1.5, 2.5, 2.6, -2.6, 1e16 + 1, Double.NaN, 1e300};
        for (double v : values) {
            System.out.println(v + ": floor " + Math.floor(v) + " ceil " + Math.ceil(v) + " rint " + Math.rint(v)
                + " round " + Math.round(v) + " roundf " + Math.round((float) v) + " signum " + Math.signum(v));
        }
        System.out.println("floorDiv/Mod " + Math.floorDiv(7, 2) + " " + Math.floorDiv(-7, 2) + " " + Math.floorDiv(7, -2)
            + " " + Math.floorMod(7, 3) + " " + Math.floorMod(-7, 3) + " " + Math.floorMod(7, -3) + " "
            + Math.floorDiv(Integer.MIN_VALUE, -1) + " " + Math.floorMod(-7L, 3L) + " " + Math.floorDiv(-7L, 2L));
        System.out.println("exact " + Math.addExact(1, 2) + " " + Math.subtractExact(10L, 3L) + " "
            + Math.multiplyExact(46340, 46340) + " " + Math.incrementExact(5) + " " + Math.decrementExact(-5L) + " "
            + Math.negateExact(7) + " " + Math.toIntExact(123L));
        System.out.println("sqrt " + Math.sqrt(2) + " " + Math.sqrt(144) + " " + Math.sqrt(1e-300) + " " + Math.sqrt(0.5)
            + " " + Math.sqrt(Double.MAX_VALUE) + " " + Math.sqrt(-4) + " " + Math.sqrt(Double.POSITIVE_INFINITY));
        double[] xs = {0.0, 0.5, 1.0, 2.0, Math.PI / 6, Math.PI / 4, Math.PI, 10.0, 100.0, -3.7};
        for (double x : xs) {
            System.out.println("x=" + r(x) + " sin " + r(Math.sin(x)) + " cos " + r(Math.cos(x)) + " tan "
                + r(Math.tan(x)) + " exp " + r(Math.exp(x / 40)) + " atan " + r(Math.atan(x)) + " cbrt " + r(Math.cbrt(x))
                + " tanh " + r(Math.tanh(x)));
        }
        for (double x : new double[] {0.001, 0.5, 1.0, 2.0, Math.E, 10.0, 1000.0, 1e100}) {
            System.out.println("x=" + x + " log " + r(Math.log(x)) + " log10 " + r(Math.log10(x)) + " sinh "
                + r(Math.sinh(Math.min(x, 5))) + " cosh " + r(Math.cosh(Math.min(x, 5))));
        }
        System.out.println("inverse " + r(Math.asin(0.5)) + " " + r(Math.acos(0.5)) + " " + r(Math.atan2(1, -1)) + " "
            + r(Math.atan2(-0.0, -1)) + " " + r(Math.toDegrees(Math.PI)) + " " + r(Math.toRadians(180)));
        System.out.println("pow " + Math.pow(2, 10) + " " + Math.pow(2, -2) + " " + Math.pow(-8, 3) + " " + Math.pow(0, 0)
            + " " + Math.pow(10, 15) + " " + r(Math.pow(2, 0.5)) + " " + r(Math.pow(1.0001, 10000)) + " "
            + Math.pow(-1, 0.5) + " " + Math.pow(Double.NaN, 0));
        System.out.println("special " + Math.log(0) + " " + Math.log(-1) + " " + Math.exp(1000) + " " + Math.exp(-1000)
            + " " + Math.sin(Double.POSITIVE_INFINITY) + " " + Math.PI + " " + Math.E);
        double sum = 0;
        for (int i = 1; i <= 10000; i++) {
            sum += Math.sin(i) * Math.cos(i / 2.0) + Math.sqrt(i);
        }
        System.out.println("sum " + r(sum));
        long isum = 0;
        for (int i = -5000; i < 5000; i++) {
            isum += Math.floorMod(i * 31, 17) + Math.abs(i) % 7 + Math.round(i / 3.0);
        }
        System.out.println("isum " + isum);
        for (double v : values) {
            System.out.println("strict " + v + ": floor " + StrictMath.floor(v) + " ceil " + StrictMath.ceil(v) + " rint "
                + StrictMath.rint(v) + " round " + StrictMath.round(v) + " signum " + StrictMath.signum(v) + " ulp "
                + StrictMath.ulp(v) + " nextUp " + StrictMath.nextUp(v) + " exponent " + StrictMath.getExponent(v));
        }
        System.out.println("strict exact " + StrictMath.floorMod(-7, 3) + " " + StrictMath.floorDiv(-7L, 2L) + " "
            + StrictMath.multiplyHigh(Long.MAX_VALUE, 3L) + " " + StrictMath.multiplyFull(46341, 46341) + " "
            + StrictMath.floorMod(-7L, 3) + " " + StrictMath.copySign(2.0, -0.0) + " " + StrictMath.abs(Integer.MIN_VALUE)
            + " " + StrictMath.max(-0.0f, 0.0f) + " " + StrictMath.scalb(1.5f, 4) + " " + r(StrictMath.toDegrees(1.0)));
        System.out.println("strict transcendental " + r(StrictMath.sin(1.0)) + " " + r(StrictMath.log(10.0)) + " "
            + r(StrictMath.pow(2, 0.5)) + " " + r(StrictMath.hypot(3, 4)) + " " + r(StrictMath.IEEEremainder(10, 3)));
        try {
            System.out.println(StrictMath.addExact(Integer.MAX_VALUE, 1));
        } catch (ArithmeticException e) {
            StackTraceElement top = e.getStackTrace()[0];
            System.out.println("strict overflow " + e.getMessage() + " at " + top.getClassName() + "." + top.getMethodName());
        }
    }
}
