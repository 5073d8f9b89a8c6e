package java.lang;

public final class Byte extends Number implements Comparable<Byte> {
    public static final byte MIN_VALUE = -128;
    public static final byte MAX_VALUE = 127;
    public static final int SIZE = 8;
    public static final int BYTES = 1;
    public static final Class<Byte> TYPE = (Class<Byte>) Class.getPrimitiveClass("byte");
    private final byte value;

    private static final class ByteCache {
        static final Byte[] cache = new Byte[256];
        static {
            for (int i = 0; i < 256; i++) cache[i] = new Byte((byte) (i - 128));
        }
    }

    public Byte(byte value) { this.value = value; }
    public static Byte valueOf(byte b) { return ByteCache.cache[b + 128]; }
    public static Byte valueOf(String s) { return valueOf(parseByte(s)); }
    public static byte parseByte(String s) { return parseByte(s, 10); }
    public static byte parseByte(String s, int radix) {
        int i = Integer.parseInt(s, radix);
        if (i < MIN_VALUE || i > MAX_VALUE) throw new NumberFormatException("Value out of range. Value:\"" + s + "\" Radix:" + radix);
        return (byte) i;
    }
    public static String toString(byte b) { return Integer.toString(b); }
    public String toString() { return Integer.toString(value); }
    public byte byteValue() { return value; }
    public short shortValue() { return value; }
    public int intValue() { return value; }
    public long longValue() { return value; }
    public float floatValue() { return value; }
    public double doubleValue() { return value; }
    public int hashCode() { return value; }
    public static int hashCode(byte value) { return value; }
    public boolean equals(Object obj) { return obj instanceof Byte && value == ((Byte) obj).byteValue(); }
    public int compareTo(Byte other) { return compare(value, other.value); }
    public static int compare(byte x, byte y) { return x - y; }
    public static int toUnsignedInt(byte x) { return ((int) x) & 0xff; }
    public static long toUnsignedLong(byte x) { return ((long) x) & 0xffL; }
}
