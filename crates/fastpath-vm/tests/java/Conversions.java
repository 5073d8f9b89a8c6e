// tags: bytecode numeric
// release: 9
// Every conversion bytecode: i2l i2f i2d l2i l2f l2d f2i f2l f2d d2i d2l d2f i2b i2c i2s, with
// the saturating float-to-integer rules (NaN -> 0, beyond range -> MIN/MAX), rounding toward
// zero, and narrowing by truncation of bits.
public class Conversions {
    // Float.toString's digits changed in JDK 19 (shortest-uniquely-identifying form); this
    // program prints floats (and doubles converted from long) as their bits so that it tests the conversions on every JDK.
    static String fbits(float f) {
        return "0x" + Integer.toHexString(Float.floatToIntBits(f));
    }

    static String dbits(double d) {
        return "0x" + Long.toHexString(Double.doubleToLongBits(d));
    }

    public static void main(String[] args) {
        double[] ds = {
            0.0, -0.0, 0.4, 0.5, 0.6, -0.5, -1.5, 1.9999, -1.9999, 2147483647.0, 2147483647.5,
            2147483648.0, -2147483648.0, -2147483649.0, 1e10, -1e10, 9.223372036854776E18,
            -9.223372036854776E18, 1e19, -1e19, 1e300, Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY, Double.NaN, 4294967296.5, 123456789.987654321, 3.4028235e38, 1e39
        };
        for (double d : ds) {
            System.out.println("d " + d + " -> int " + (int) d + " long " + (long) d + " float " + fbits((float) d)
                + " short " + (short) d + " byte " + (byte) d + " char " + (int) (char) d);
        }
        float[] fs = {
            0.0f, -0.5f, 0.99f, -0.99f, 2.1474836E9f, -2.1474836E9f, 3e9f, -3e9f, 9.223372E18f,
            -9.223372E18f, 1e20f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, 16777217f
        };
        for (float f : fs) {
            System.out.println("f " + fbits(f) + " -> int " + (int) f + " long " + (long) f + " double " + (double) f);
        }
        long[] ls = {
            0, 1, -1, 127, 128, 255, 256, 32767, 32768, 65535, 65536, 2147483647L, 2147483648L,
            -2147483649L, 4294967295L, 4294967296L, Long.MAX_VALUE, Long.MIN_VALUE,
            9007199254740993L, 0x123456789abcdefL, 16777217L
        };
        for (long l : ls) {
            System.out.println("l " + l + " -> int " + (int) l + " float " + fbits((float) l) + " double " + dbits((double) l)
                + " short " + (short) l + " byte " + (byte) l + " char " + (int) (char) l);
        }
        int[] is = {0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769, 65535, 65536,
            16777217, Integer.MAX_VALUE, Integer.MIN_VALUE, 0x12345678};
        for (int i : is) {
            byte b = (byte) i;
            short s = (short) i;
            char c = (char) i;
            System.out.println("i " + i + " -> byte " + b + " short " + s + " char " + (int) c + " long " + (long) i
                + " float " + fbits((float) i) + " double " + (double) i);
        }
        // Narrowing on store into byte/short/char arrays and fields is by truncation.
        byte[] bytes = new byte[4];
        short[] shorts = new short[4];
        char[] chars = new char[4];
        for (int k = 0; k < 4; k++) {
            int v = 0x7f + k * 0x4321;
            bytes[k] = (byte) v;
            shorts[k] = (short) (v * 3);
            chars[k] = (char) (v * -5);
        }
        System.out.println(bytes[0] + " " + bytes[1] + " " + bytes[2] + " " + bytes[3] + " | " + shorts[0] + " "
            + shorts[1] + " " + shorts[2] + " " + shorts[3] + " | " + (int) chars[0] + " " + (int) chars[1] + " "
            + (int) chars[2] + " " + (int) chars[3]);
        byte b = 127;
        b++;
        short sh = -32768;
        sh--;
        char ch = 0;
        ch--;
        b += 200;
        System.out.println("compound narrowing " + b + " " + sh + " " + (int) ch);
        byte x = (byte) 0xf0;
        System.out.println("sign extension " + (x >> 2) + " " + (x >>> 2) + " " + ((x & 0xff) >>> 2) + " " + (byte) (x >>> 2));
        // float <-> double round trips and the double rounding of int -> float -> double.
        System.out.println((double) 0.1f + " " + fbits((float) 0.1) + " " + (double) (float) 16777217 + " "
            + (long) (float) Long.MAX_VALUE + " " + (int) (float) Integer.MAX_VALUE);
    }
}
