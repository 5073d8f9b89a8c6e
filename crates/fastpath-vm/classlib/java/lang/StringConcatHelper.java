package java.lang;

/**
 * What the classes the VM spins for string concatenation call sites (`link/indy/concat.rs`) call
 * to build the result in one array of its exact length, as JDK 25's `StringConcatHelper` does:
 * the spun method first converts every reference, float and double argument to its text with
 * `String.valueOf`, in order (the factory's stringifiers, so a `toString` runs once, where the
 * JDK runs it), then sums the pieces' lengths (`mix`, which refuses a total past
 * `Integer.MAX_VALUE` with the JDK's `OutOfMemoryError`), allocates one `char[]` (`newArray`),
 * writes the pieces into it from its end backwards (`prepend`, each returning where its text
 * starts) and makes the array the string's without a copy (`newString`). No `StringBuilder`, no
 * growth, no final copy.
 *
 * Package-private, as the JDK's: only the VM's spun classes may call it (`newString` shares the
 * array it is given), which `link/resolve.rs` and `interp/decode.rs` allow by name.
 */
final class StringConcatHelper {
    private StringConcatHelper() {}

    /** `len` plus `n >= 0` chars, or the JDK's error when the sum passes `Integer.MAX_VALUE`. */
    private static int checkOverflow(int len, int n) {
        int r = len + n;
        if (r < 0) throw new OutOfMemoryError("Overflow: String length out of range");
        return r;
    }

    static int mix(int len, String s) { return checkOverflow(len, s.value.length); }

    static int mix(int len, int v) { return checkOverflow(len, Integer.stringSize(v)); }

    static int mix(int len, long v) { return checkOverflow(len, Long.stringSize(v)); }

    static int mix(int len, char c) { return checkOverflow(len, 1); }

    static int mix(int len, boolean b) { return checkOverflow(len, b ? 4 : 5); }

    static char[] newArray(int len) { return new char[len]; }

    static int prepend(int pos, char[] buf, String s) {
        char[] v = s.value;
        int n = v.length;
        pos -= n;
        System.arraycopy(v, 0, buf, pos, n);
        return pos;
    }

    static int prepend(int pos, char[] buf, int v) { return Integer.getChars(v, pos, buf); }

    static int prepend(int pos, char[] buf, long v) { return Long.getChars(v, pos, buf); }

    static int prepend(int pos, char[] buf, char c) {
        buf[--pos] = c;
        return pos;
    }

    static int prepend(int pos, char[] buf, boolean b) { return prepend(pos, buf, b ? "true" : "false"); }

    static String newString(char[] buf) { return new String(buf, true); }
}
