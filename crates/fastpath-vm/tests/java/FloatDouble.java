// tags: bytecode numeric
// release: 21
// The float and double bytecodes (fadd..drem, fneg/dneg, fcmpl/fcmpg/dcmpl/dcmpg), NaN,
// signed zeros and infinities, multiplication by 2.0 (raw bits), and Float/Double.toString.
// Release 21 so that it runs on JDK 19+ only, whose toString prints the shortest decimal that
// rounds to the value (JDK 17 printed more digits for some, e.g. 2.14748365E9 for 2.1474836E9f).
// sqrt is exact (IEEE).
public class FloatDouble {
    static final double[] DOUBLES = {
        0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 0.2, 0.3, 1.5, 2.5, -2.5, 3.0, 10.0, 1e10, 1e-10,
        123.456, 1e300, 1e-300, Double.MAX_VALUE, Double.MIN_VALUE, Double.MIN_NORMAL,
        Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN, Math.PI, Math.E
    };
    static final float[] FLOATS = {
        0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 0.1f, 0.2f, 0.3f, 1.5f, 2.5f, 3.0f, 10.0f, 1e10f, 1e-10f,
        123.456f, 3.4e38f, Float.MAX_VALUE, Float.MIN_VALUE, Float.MIN_NORMAL,
        Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN
    };

    public static void main(String[] args) {
        System.out.println("-- double printing");
        for (double d : DOUBLES) {
            System.out.println(d + " " + (-d) + " " + (d * 2) + " " + (d / 3) + " " + Math.sqrt(d));
        }
        System.out.println("-- float printing");
        for (float f : FLOATS) {
            System.out.println(f + " " + (-f) + " " + (f * 2) + " " + (f / 3) + " " + (float) Math.sqrt(f));
        }
        System.out.println("-- double ops");
        long bits = 0;
        for (double a : DOUBLES) {
            for (double b : DOUBLES) {
                bits = bits * 31 + Double.doubleToLongBits(a + b);
                bits = bits * 31 + Double.doubleToLongBits(a - b);
                bits = bits * 31 + Double.doubleToLongBits(a * b);
                bits = bits * 31 + Double.doubleToLongBits(a / b);
                bits = bits * 31 + Double.doubleToLongBits(a % b);
                bits = bits * 31 + (a < b ? 1 : 0) + (a <= b ? 2 : 0) + (a > b ? 4 : 0)
                    + (a >= b ? 8 : 0) + (a == b ? 16 : 0) + (a != b ? 32 : 0);
                bits = bits * 31 + Double.compare(a, b);
            }
        }
        System.out.println("double checksum " + bits);
        // Negated, so that javac's branches after dcmpg and dcmpl test the other conditions
        // (dcmpg then iflt or ifle, dcmpl then ifgt or ifge), NaN included.
        long negated = 0;
        for (double a : DOUBLES) {
            for (double b : DOUBLES) {
                negated = negated * 31 + (!(a < b) ? 1 : 0) + (!(a <= b) ? 2 : 0) + (!(a > b) ? 4 : 0)
                    + (!(a >= b) ? 8 : 0) + (!(a == b) ? 16 : 0) + (!(a != b) ? 32 : 0);
            }
        }
        System.out.println("double negated " + negated);
        System.out.println("-- float ops");
        int fbits = 0;
        for (float a : FLOATS) {
            for (float b : FLOATS) {
                fbits = fbits * 31 + Float.floatToIntBits(a + b);
                fbits = fbits * 31 + Float.floatToIntBits(a - b);
                fbits = fbits * 31 + Float.floatToIntBits(a * b);
                fbits = fbits * 31 + Float.floatToIntBits(a / b);
                fbits = fbits * 31 + Float.floatToIntBits(a % b);
                fbits = fbits * 31 + (a < b ? 1 : 0) + (a <= b ? 2 : 0) + (a > b ? 4 : 0)
                    + (a >= b ? 8 : 0) + (a == b ? 16 : 0) + (a != b ? 32 : 0);
                fbits = fbits * 31 + Float.compare(a, b);
            }
        }
        System.out.println("float checksum " + fbits);
        int fnegated = 0;
        for (float a : FLOATS) {
            for (float b : FLOATS) {
                fnegated = fnegated * 31 + (!(a < b) ? 1 : 0) + (!(a <= b) ? 2 : 0) + (!(a > b) ? 4 : 0)
                    + (!(a >= b) ? 8 : 0) + (!(a == b) ? 16 : 0) + (!(a != b) ? 32 : 0);
            }
        }
        System.out.println("float negated " + fnegated);
        // Doubling by a constant either side (a JIT may add the value to itself): raw bits,
        // overflow to infinity, NaN, signed zeros, subnormals.
        long doubled = 0;
        for (double a : DOUBLES) {
            doubled = doubled * 31 + Double.doubleToRawLongBits(2.0 * a) + 7 * Double.doubleToRawLongBits(a * 2.0)
                + 11 * Double.doubleToRawLongBits(2.0 * a * a);
        }
        for (float a : FLOATS) {
            doubled = doubled * 31 + Float.floatToRawIntBits(2.0f * a) + 7 * Float.floatToRawIntBits(a * 2.0f);
        }
        System.out.println("doubled " + doubled);

        System.out.println("-- NaN and zeros");
        double nan = Double.NaN;
        float fnan = Float.NaN;
        System.out.println((nan == nan) + " " + (nan != nan) + " " + (nan < 1) + " " + (nan > 1)
            + " " + (nan <= nan) + " " + (nan >= 1) + " " + !(nan < 1) + " " + !(nan > 1));
        System.out.println((fnan == fnan) + " " + (fnan < 1) + " " + (fnan > 1) + " " + !(fnan >= 1));
        System.out.println(Double.isNaN(0.0 / 0.0) + " " + (1 / 0.0) + " " + (-1 / 0.0) + " " + (1 / -0.0));
        System.out.println((0.0 == -0.0) + " " + Double.compare(0.0, -0.0) + " " + Double.valueOf(0.0).equals(-0.0)
            + " " + Math.min(0.0, -0.0) + " " + Math.max(-0.0, 0.0) + " " + (0.0 - 0.0) + " " + (-0.0 - 0.0));
        System.out.println((5.5 % 2) + " " + (-5.5 % 2) + " " + (5.5 % -2) + " " + (1e300 % 3) + " " + (5.0 % 0.0)
            + " " + (5.0 % Double.POSITIVE_INFINITY));
        System.out.println((5.5f % 2) + " " + (-5.5f % 2) + " " + (7f % 0.5f));
        System.out.println(Double.doubleToLongBits(1.0) + " " + Long.toHexString(Double.doubleToLongBits(-2.5))
            + " " + Double.longBitsToDouble(0x3ff8000000000000L) + " " + Integer.toHexString(Float.floatToIntBits(0.1f))
            + " " + Float.intBitsToFloat(0x40490fdb) + " " + Long.toHexString(Double.doubleToLongBits(Double.NaN)));
        System.out.println("-- arithmetic results");
        System.out.println((0.1 + 0.2) + " " + (0.1f + 0.2f) + " " + (1.0 / 3) + " " + (2.0 / 3) + " " + (1.0f / 3)
            + " " + (100.0 / 7) + " " + (1e16 + 1) + " " + (1e15 + 0.3) + " " + (123456789.0f * 10));
        System.out.println(Math.sqrt(2) + " " + Math.sqrt(1e-320) + " " + Math.sqrt(-1) + " " + Math.sqrt(-0.0)
            + " " + (float) Math.sqrt(3f));
        double x = 1;
        for (int i = 0; i < 40; i++) {
            x = x * 1.7 + 0.3;
        }
        System.out.println(x + " " + (float) x);
        float fx = 1;
        for (int i = 0; i < 40; i++) {
            fx = fx * 1.7f - 0.3f;
        }
        System.out.println(fx + " " + (double) fx);
        double harmonic = 0;
        for (int i = 1; i <= 1000; i++) {
            harmonic += 1.0 / i;
        }
        System.out.println("harmonic " + harmonic);
        System.out.println(1e7 + " " + 1e-3 + " " + 9999999.0 + " " + 1.0E-4 + " " + 0.001f + " " + 1e7f + " " + 1.0E-5f);
        System.out.println(Double.MAX_VALUE * 2 + " " + (-Double.MAX_VALUE * 2) + " " + Double.MIN_VALUE / 2
            + " " + Float.MIN_VALUE / 2 + " " + (Float.MAX_VALUE * 2));
    }
}
