// tags: numeric
// release: 16
// The box classes: valueOf caches (Integer/Short/Byte/Long -128..127, Character 0..127,
// Boolean's two constants) observed with ==, parse and toString (with radix), compare,
// hashCode (Long folds the halves, Double hashes its bits, Boolean is 1231/1237), equals
// across types, MIN/MAX constants, bit-twiddling helpers, and unsigned helpers.
public class Boxes {
    public static void main(String[] args) {
        Integer a = 127, b = 127, c = 128, d = 128;
        System.out.println("Integer cache " + (a == b) + " " + (c == d) + " " + c.equals(d) + " "
            + (Integer.valueOf(-128) == Integer.valueOf(-128)) + " " + (Integer.valueOf(-129) == Integer.valueOf(-129)));
        Long la = 127L, lb = 127L, lc = 128L, ld = 128L;
        Short sa = 100, sb = 100;
        Byte ba = (byte) 200, bb = (byte) 200;
        Character ca = 'z', cb = 'z', cc = '\u0100', cd = '\u0100';
        Boolean t1 = true, t2 = Boolean.valueOf("TRUE");
        System.out.println("other caches " + (la == lb) + " " + (lc == ld) + " " + (sa == sb) + " " + (ba == bb) + " "
            + (ca == cb) + " " + (cc == cd) + " " + (t1 == t2) + " " + (Boolean.valueOf(false) == Boolean.FALSE));
        System.out.println("equals across types " + Integer.valueOf(1).equals(1L) + " " + Long.valueOf(1).equals(1L) + " "
            + Double.valueOf(0.0).equals(-0.0) + " " + Double.valueOf(Double.NaN).equals(Double.NaN) + " "
            + (0.0 == -0.0) + " " + (Double.NaN == Double.NaN));
        System.out.println("hashCodes " + Integer.valueOf(-7).hashCode() + " " + Long.valueOf(1L << 32).hashCode() + " "
            + Long.valueOf(-1).hashCode() + " " + Double.valueOf(1.5).hashCode() + " " + Double.valueOf(-0.0).hashCode() + " "
            + Float.valueOf(1.5f).hashCode() + " " + Boolean.TRUE.hashCode() + " " + Boolean.FALSE.hashCode() + " "
            + Character.valueOf('A').hashCode() + " " + Short.valueOf((short) -2).hashCode() + " "
            + Byte.valueOf((byte) -2).hashCode() + " " + Integer.hashCode(5) + " " + Long.hashCode(5L) + " "
            + Double.hashCode(Double.NaN));
        System.out.println("compare " + Integer.compare(3, 7) + " " + Integer.compare(Integer.MIN_VALUE, 1) + " "
            + Long.compare(5, 5) + " " + Double.compare(Double.NaN, 1.0) + " " + Double.compare(-0.0, 0.0) + " "
            + Boolean.compare(true, false) + " " + Character.compare('a', 'b') + " " + Integer.valueOf(5).compareTo(3) + " "
            + Short.compare((short) 1, (short) -1) + " " + Byte.compare((byte) -128, (byte) 127));
        System.out.println("parse " + Integer.parseInt("-2147483648") + " " + Integer.parseInt("7fffffff", 16) + " "
            + Integer.parseInt("-101", 2) + " " + Integer.parseInt("zz", 36) + " " + Long.parseLong("-9223372036854775808")
            + " " + Long.parseLong("777", 8) + " " + Short.parseShort("-32768") + " " + Byte.parseByte("7f", 16) + " "
            + Double.parseDouble("-1.5e-3") + " " + Float.parseFloat("2.5") + " " + Boolean.parseBoolean("yes") + " "
            + Boolean.parseBoolean("True") + " " + Integer.valueOf("0012") + " " + Double.parseDouble("Infinity"));
        System.out.println("toString " + Integer.toString(255, 16) + " " + Integer.toString(-255, 2) + " "
            + Integer.toString(Integer.MIN_VALUE, 36) + " " + Long.toString(Long.MAX_VALUE, 7) + " "
            + Integer.toHexString(-256) + " " + Integer.toBinaryString(10) + " " + Integer.toOctalString(-1) + " "
            + Long.toHexString(Long.MIN_VALUE) + " " + Long.toBinaryString(5) + " " + Integer.toString(0) + " "
            + Character.toString((char) 97) + " " + Boolean.toString(false) + " " + Double.toString(100.0) + " "
            + Short.toString((short) -5) + " " + Byte.toString((byte) 255));
        System.out.println("limits " + Integer.MIN_VALUE + " " + Integer.MAX_VALUE + " " + Long.MIN_VALUE + " "
            + Long.MAX_VALUE + " " + Short.MIN_VALUE + " " + Short.MAX_VALUE + " " + Byte.MIN_VALUE + " " + Byte.MAX_VALUE
            + " " + (int) Character.MIN_VALUE + " " + (int) Character.MAX_VALUE + " " + Integer.SIZE + " " + Long.BYTES);
        System.out.println("bits " + Integer.bitCount(0xf0f0) + " " + Integer.highestOneBit(100) + " "
            + Integer.lowestOneBit(100) + " " + Integer.numberOfLeadingZeros(1) + " " + Integer.numberOfTrailingZeros(64)
            + " " + Integer.reverse(1) + " " + Integer.reverseBytes(0x01020304) + " " + Integer.rotateLeft(0x80000001, 1)
            + " " + Integer.rotateRight(1, 1) + " " + Integer.signum(-9) + " " + Long.bitCount(-1L) + " "
            + Long.numberOfTrailingZeros(0) + " " + Long.numberOfLeadingZeros(1L << 40) + " " + Long.reverse(1L) + " "
            + Long.highestOneBit(-1L) + " " + Long.signum(0));
        System.out.println("unsigned " + Integer.toUnsignedString(-1) + " " + Integer.divideUnsigned(-1, 3) + " "
            + Integer.remainderUnsigned(-1, 3) + " " + Integer.compareUnsigned(-1, 1) + " " + Integer.toUnsignedLong(-2)
            + " " + Long.toUnsignedString(-1L) + " " + Long.divideUnsigned(-1L, 10) + " " + Long.remainderUnsigned(-1L, 10)
            + " " + Integer.parseUnsignedInt("4294967295") + " " + Long.compareUnsigned(1, -1));
        System.out.println("math helpers " + Integer.max(3, 9) + " " + Integer.min(3, 9) + " " + Integer.sum(3, 9) + " "
            + Long.max(-1, 1) + " " + Double.max(-0.0, 0.0) + " " + Double.min(-0.0, 0.0) + " " + Double.sum(0.1, 0.2));
        System.out.println("doubles " + Double.isNaN(0.0 / 0) + " " + Double.isInfinite(-1 / 0.0) + " "
            + Double.isFinite(1e308) + " " + Double.MAX_VALUE + " " + Double.MIN_VALUE + " " + Float.MAX_VALUE + " "
            + Float.MIN_VALUE + " " + Double.valueOf("3.25").doubleValue() + " " + Integer.valueOf(7).doubleValue() + " "
            + Double.valueOf(7.9).intValue() + " " + Long.valueOf(1L << 33).intValue() + " "
            + Integer.valueOf(300).byteValue() + " " + Double.valueOf(-7.9).longValue());
        Object[] mixed = {1, 2L, 3.0f, 4.0, (short) 5, (byte) 6, '7', true};
        StringBuilder kinds = new StringBuilder();
        for (Object o : mixed) {
            String kind = o instanceof Integer ? "I" : o instanceof Long ? "J" : o instanceof Float ? "F"
                : o instanceof Double ? "D" : o instanceof Short ? "S" : o instanceof Byte ? "B"
                : o instanceof Character ? "C" : "Z";
            kinds.append(kind).append(o).append(' ');
        }
        System.out.println(kinds.toString().trim());
        long boxedSum = 0;
        Long acc = 0L;
        for (int i = 0; i < 100000; i++) {
            acc += i;
            Integer boxed = i;
            boxedSum += boxed.hashCode();
        }
        System.out.println("boxed loop " + acc + " " + boxedSum);
        Character ch = 'a';
        ch++;
        char prim = ch;
        System.out.println(ch + " " + (int) prim + " " + Character.valueOf('0').charValue());
    }
}
