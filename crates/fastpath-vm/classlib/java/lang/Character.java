package java.lang;

public final class Character implements java.io.Serializable, Comparable<Character> {
    public static final int MIN_RADIX = 2;
    public static final int MAX_RADIX = 36;
    public static final char MIN_VALUE = '\u0000';
    public static final char MAX_VALUE = '\uFFFF';
    public static final char MIN_HIGH_SURROGATE = '\uD800';
    public static final char MAX_HIGH_SURROGATE = '\uDBFF';
    public static final char MIN_LOW_SURROGATE = '\uDC00';
    public static final char MAX_LOW_SURROGATE = '\uDFFF';
    public static final char MIN_SURROGATE = MIN_HIGH_SURROGATE;
    public static final char MAX_SURROGATE = MAX_LOW_SURROGATE;
    public static final int MIN_SUPPLEMENTARY_CODE_POINT = 0x010000;
    public static final int MIN_CODE_POINT = 0x000000;
    public static final int MAX_CODE_POINT = 0X10FFFF;
    public static final int SIZE = 16;
    public static final int BYTES = 2;
    public static final Class<Character> TYPE = (Class<Character>) Class.getPrimitiveClass("char");

    private final char value;

    private static final class CharacterCache {
        static final Character[] cache = new Character[128];
        static {
            for (int i = 0; i < 128; i++) cache[i] = new Character((char) i);
        }
    }

    public Character(char value) { this.value = value; }
    public static Character valueOf(char c) {
        if (c <= 127) return CharacterCache.cache[c];
        return new Character(c);
    }
    public char charValue() { return value; }
    public int hashCode() { return value; }
    public static int hashCode(char value) { return value; }
    public boolean equals(Object obj) { return obj instanceof Character && value == ((Character) obj).charValue(); }
    public String toString() { return String.valueOf(value); }
    public static String toString(char c) { return String.valueOf(c); }
    public static String toString(int codePoint) { return new String(toChars(codePoint)); }
    public int compareTo(Character another) { return compare(value, another.value); }
    public static int compare(char x, char y) { return x - y; }

    public static boolean isHighSurrogate(char ch) { return ch >= MIN_HIGH_SURROGATE && ch < (MAX_HIGH_SURROGATE + 1); }
    public static boolean isLowSurrogate(char ch) { return ch >= MIN_LOW_SURROGATE && ch < (MAX_LOW_SURROGATE + 1); }
    public static boolean isSurrogate(char ch) { return ch >= MIN_SURROGATE && ch < (MAX_SURROGATE + 1); }
    public static boolean isBmpCodePoint(int codePoint) { return codePoint >>> 16 == 0; }
    public static boolean isValidCodePoint(int codePoint) { return codePoint >= 0 && codePoint <= MAX_CODE_POINT; }
    public static boolean isSupplementaryCodePoint(int cp) { return cp >= MIN_SUPPLEMENTARY_CODE_POINT && cp < MAX_CODE_POINT + 1; }
    public static int charCount(int codePoint) { return codePoint >= MIN_SUPPLEMENTARY_CODE_POINT ? 2 : 1; }
    public static int toCodePoint(char high, char low) {
        return ((high << 10) + low) + (MIN_SUPPLEMENTARY_CODE_POINT - (MIN_HIGH_SURROGATE << 10) - MIN_LOW_SURROGATE);
    }
    public static char highSurrogate(int codePoint) {
        return (char) ((codePoint >>> 10) + (MIN_HIGH_SURROGATE - (MIN_SUPPLEMENTARY_CODE_POINT >>> 10)));
    }
    public static char lowSurrogate(int codePoint) { return (char) ((codePoint & 0x3ff) + MIN_LOW_SURROGATE); }
    public static char[] toChars(int codePoint) {
        if (isBmpCodePoint(codePoint)) return new char[] {(char) codePoint};
        if (!isValidCodePoint(codePoint)) throw new IllegalArgumentException(String.format("Not a valid Unicode code point: 0x%X", codePoint));
        return new char[] {highSurrogate(codePoint), lowSurrogate(codePoint)};
    }

    public static boolean isDigit(char ch) { return isDigit((int) ch); }
    public static boolean isDigit(int cp) { return (cp >= '0' && cp <= '9') || (cp > 127 && isDigit0(cp)); }
    public static boolean isLetter(char ch) { return isLetter((int) ch); }
    public static boolean isLetter(int cp) { return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp > 127 && isLetter0(cp)); }
    public static boolean isLetterOrDigit(char ch) { return isLetterOrDigit((int) ch); }
    public static boolean isLetterOrDigit(int cp) { return isLetter(cp) || isDigit(cp); }
    public static boolean isAlphabetic(int cp) { return isLetter(cp) || (cp > 127 && isAlphabetic0(cp)); }
    public static boolean isUpperCase(char ch) { return isUpperCase((int) ch); }
    public static boolean isUpperCase(int cp) { return (cp >= 'A' && cp <= 'Z') || (cp > 127 && isUpperCase0(cp)); }
    public static boolean isLowerCase(char ch) { return isLowerCase((int) ch); }
    public static boolean isLowerCase(int cp) { return (cp >= 'a' && cp <= 'z') || (cp > 127 && isLowerCase0(cp)); }
    public static boolean isWhitespace(char ch) { return isWhitespace((int) ch); }
    public static boolean isWhitespace(int cp) {
        if (cp <= 127) return cp == ' ' || (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x1f);
        return cp != 0x00a0 && cp != 0x2007 && cp != 0x202f && isSpaceChar(cp);
    }
    public static boolean isSpaceChar(char ch) { return isSpaceChar((int) ch); }
    public static boolean isSpaceChar(int cp) {
        return cp == ' ' || cp == 0x00a0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028
            || cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
    }
    public static boolean isISOControl(char ch) { return isISOControl((int) ch); }
    public static boolean isISOControl(int cp) { return cp <= 0x9f && (cp >= 0x7f || (cp >>> 5 == 0)); }
    public static boolean isJavaIdentifierStart(char ch) { return isLetter(ch) || ch == '$' || ch == '_'; }
    public static boolean isJavaIdentifierPart(char ch) { return isLetterOrDigit(ch) || ch == '$' || ch == '_'; }

    public static char toUpperCase(char ch) { return (char) toUpperCase((int) ch); }
    public static int toUpperCase(int cp) {
        if (cp >= 'a' && cp <= 'z') return cp - 32;
        if (cp <= 127) return cp;
        return toUpperCase0(cp);
    }
    public static char toLowerCase(char ch) { return (char) toLowerCase((int) ch); }
    public static int toLowerCase(int cp) {
        if (cp >= 'A' && cp <= 'Z') return cp + 32;
        if (cp <= 127) return cp;
        return toLowerCase0(cp);
    }
    public static char toTitleCase(char ch) { return toUpperCase(ch); }

    public static int digit(char ch, int radix) {
        // A decimal digit in a radix that has it: the common case, small enough to inline.
        int d = ch - '0';
        if (d >= 0 && d <= 9 && d < radix && radix >= MIN_RADIX && radix <= MAX_RADIX) return d;
        return digit((int) ch, radix);
    }
    public static int digit(int cp, int radix) {
        if (radix < MIN_RADIX || radix > MAX_RADIX) return -1;
        int d;
        if (cp >= '0' && cp <= '9') d = cp - '0';
        else if (cp >= 'a' && cp <= 'z') d = cp - 'a' + 10;
        else if (cp >= 'A' && cp <= 'Z') d = cp - 'A' + 10;
        else if (cp > 127) d = digit0(cp);
        else d = -1;
        return (d >= 0 && d < radix) ? d : -1;
    }
    public static int getNumericValue(char ch) { return getNumericValue((int) ch); }
    public static int getNumericValue(int cp) {
        if (cp >= '0' && cp <= '9') return cp - '0';
        if (cp >= 'a' && cp <= 'z') return cp - 'a' + 10;
        if (cp >= 'A' && cp <= 'Z') return cp - 'A' + 10;
        return cp > 127 ? numericValue0(cp) : -1;
    }
    public static char forDigit(int digit, int radix) {
        if (digit >= radix || digit < 0) return '\0';
        if (radix < MIN_RADIX || radix > MAX_RADIX) return '\0';
        if (digit < 10) return (char) ('0' + digit);
        return (char) ('a' - 10 + digit);
    }
    public static char reverseBytes(char ch) { return (char) (((ch & 0xFF00) >> 8) | (ch << 8)); }

    private static native boolean isDigit0(int cp);
    private static native int numericValue0(int cp);
    private static native boolean isLetter0(int cp);
    private static native boolean isAlphabetic0(int cp);
    private static native boolean isUpperCase0(int cp);
    private static native boolean isLowerCase0(int cp);
    private static native int toUpperCase0(int cp);
    private static native int toLowerCase0(int cp);
    private static native int digit0(int cp);
}
