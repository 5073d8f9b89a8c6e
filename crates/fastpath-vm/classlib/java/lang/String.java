package java.lang;

import java.util.ArrayList;
import java.util.Formatter;
import java.util.Iterator;
import java.util.List;

/** Immutable UTF-16 text; literals are interned by the VM. */
public final class String implements java.io.Serializable, Comparable<String>, CharSequence {
    /**
     * The characters. Package-private so that `java.lang`'s parsers and builders (`Integer`,
     * `Long`, `AbstractStringBuilder`) read a string's array once into a local instead of calling
     * `charAt` and `length` (and reloading the field) per character; they never write it.
     */
    final char[] value;
    private int hash;
    private boolean hashIsZero;

    public static final java.util.Comparator<String> CASE_INSENSITIVE_ORDER = new java.util.Comparator<String>() {
        public int compare(String a, String b) { return a.compareToIgnoreCase(b); }
    };

    public String() { value = new char[0]; }

    public String(String original) { value = original.value; hash = original.hash; }

    public String(char[] value) { this.value = java.util.Arrays.copyOf(value, value.length); }

    public String(char[] value, int offset, int count) {
        checkBoundsOffCount(offset, count, value.length);
        this.value = java.util.Arrays.copyOfRange(value, offset, offset + count);
    }

    public String(int[] codePoints, int offset, int count) {
        checkBoundsOffCount(offset, count, codePoints.length);
        StringBuilder sb = new StringBuilder(count);
        for (int i = offset; i < offset + count; i++) sb.appendCodePoint(codePoints[i]);
        this.value = sb.toString().value;
    }

    public String(byte[] bytes) { this(bytes, 0, bytes.length); }

    public String(byte[] bytes, int offset, int length) {
        checkBoundsOffCount(offset, length, bytes.length);
        this.value = decodeUtf8(bytes, offset, length);
    }

    public String(byte[] bytes, java.nio.charset.Charset cs) { this(bytes, 0, bytes.length); }

    public String(byte[] bytes, String charsetName) { this(bytes, 0, bytes.length); }

    public String(StringBuilder sb) { this.value = sb.toString().value; }

    public String(StringBuffer sb) { this.value = sb.toString().value; }

    /** Shares `v` (callers give up the array). */
    String(char[] v, boolean share) { this.value = v; }

    private static char[] decodeUtf8(byte[] b, int off, int len) {
        StringBuilder sb = new StringBuilder(len);
        int i = off, end = off + len;
        while (i < end) {
            int c = b[i] & 0xff;
            if (c < 0x80) { sb.append((char) c); i++; continue; }
            int n; int cp;
            if ((c & 0xe0) == 0xc0) { n = 1; cp = c & 0x1f; }
            else if ((c & 0xf0) == 0xe0) { n = 2; cp = c & 0x0f; }
            else if ((c & 0xf8) == 0xf0) { n = 3; cp = c & 0x07; }
            else { sb.append('\ufffd'); i++; continue; }
            boolean ok = true;
            for (int k = 1; k <= n; k++) {
                if (i + k >= end || (b[i + k] & 0xc0) != 0x80) { ok = false; break; }
                cp = (cp << 6) | (b[i + k] & 0x3f);
            }
            if (!ok) { sb.append('\ufffd'); i++; continue; }
            sb.appendCodePoint(cp);
            i += n + 1;
        }
        return sb.toString().value;
    }

    // The checks are small enough for a JIT to inline into their callers; the messages, built
    // only on failure, are calls of their own (the exception is still created in the check, so
    // its stack trace starts there).
    static void checkBoundsOffCount(int offset, int count, int length) {
        if (offset < 0 || count < 0 || offset > length - count) {
            throw new StringIndexOutOfBoundsException(offCountMessage(offset, count, length));
        }
    }

    static void checkBoundsBeginEnd(int begin, int end, int length) {
        if (begin < 0 || begin > end || end > length) {
            throw new StringIndexOutOfBoundsException(beginEndMessage(begin, end, length));
        }
    }

    static void checkIndex(int index, int length) {
        if (index < 0 || index >= length) {
            throw new StringIndexOutOfBoundsException(indexMessage(index, length));
        }
    }

    private static String offCountMessage(int offset, int count, int length) {
        return "Range [" + offset + ", " + offset + " + " + count + ") out of bounds for length " + length;
    }

    private static String beginEndMessage(int begin, int end, int length) {
        return "Range [" + begin + ", " + end + ") out of bounds for length " + length;
    }

    private static String indexMessage(int index, int length) {
        return "Index " + index + " out of bounds for length " + length;
    }

    public int length() { return value.length; }

    public boolean isEmpty() { return value.length == 0; }

    public char charAt(int index) {
        char[] v = value;
        if (index < 0 || index >= v.length) {
            throw new StringIndexOutOfBoundsException(indexMessage(index, v.length));
        }
        return v[index];
    }

    public int codePointAt(int index) {
        checkIndex(index, value.length);
        char c = value[index];
        if (Character.isHighSurrogate(c) && index + 1 < value.length && Character.isLowSurrogate(value[index + 1])) {
            return Character.toCodePoint(c, value[index + 1]);
        }
        return c;
    }

    public int codePointCount(int begin, int end) {
        checkBoundsBeginEnd(begin, end, value.length);
        int n = 0;
        for (int i = begin; i < end; i++) {
            n++;
            if (Character.isHighSurrogate(value[i]) && i + 1 < end && Character.isLowSurrogate(value[i + 1])) i++;
        }
        return n;
    }

    public void getChars(int srcBegin, int srcEnd, char[] dst, int dstBegin) {
        checkBoundsBeginEnd(srcBegin, srcEnd, value.length);
        System.arraycopy(value, srcBegin, dst, dstBegin, srcEnd - srcBegin);
    }

    public byte[] getBytes() {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(value.length);
        for (int i = 0; i < value.length; i++) {
            int cp = value[i];
            if (Character.isHighSurrogate(value[i]) && i + 1 < value.length && Character.isLowSurrogate(value[i + 1])) {
                cp = Character.toCodePoint(value[i], value[i + 1]);
                i++;
            } else if (Character.isSurrogate(value[i])) {
                cp = '?';
            }
            if (cp < 0x80) out.write(cp);
            else if (cp < 0x800) { out.write(0xc0 | (cp >> 6)); out.write(0x80 | (cp & 0x3f)); }
            else if (cp < 0x10000) { out.write(0xe0 | (cp >> 12)); out.write(0x80 | ((cp >> 6) & 0x3f)); out.write(0x80 | (cp & 0x3f)); }
            else { out.write(0xf0 | (cp >> 18)); out.write(0x80 | ((cp >> 12) & 0x3f)); out.write(0x80 | ((cp >> 6) & 0x3f)); out.write(0x80 | (cp & 0x3f)); }
        }
        return out.toByteArray();
    }

    public byte[] getBytes(java.nio.charset.Charset cs) { return getBytes(); }

    public byte[] getBytes(String charsetName) { return getBytes(); }

    public boolean equals(Object anObject) {
        if (this == anObject) return true;
        if (!(anObject instanceof String)) return false;
        char[] a = value, b = ((String) anObject).value;
        int n = a.length;
        if (n != b.length) return false;
        for (int i = 0; i < n; i++) if (a[i] != b[i]) return false;
        return true;
    }

    public boolean contentEquals(CharSequence cs) {
        int n = value.length;
        if (n != cs.length()) return false;
        for (int i = 0; i < n; i++) if (value[i] != cs.charAt(i)) return false;
        return true;
    }

    public boolean equalsIgnoreCase(String other) {
        return this == other || (other != null && other.value.length == value.length && regionMatches(true, 0, other, 0, value.length));
    }

    public int compareTo(String other) {
        char[] a = value, b = other.value;
        int lim = Math.min(a.length, b.length);
        for (int k = 0; k < lim; k++) {
            if (a[k] != b[k]) return a[k] - b[k];
        }
        return a.length - b.length;
    }

    public int compareToIgnoreCase(String other) {
        char[] a = value, b = other.value;
        int lim = Math.min(a.length, b.length);
        for (int k = 0; k < lim; k++) {
            char c1 = a[k], c2 = b[k];
            if (c1 != c2) {
                c1 = Character.toUpperCase(c1);
                c2 = Character.toUpperCase(c2);
                if (c1 != c2) {
                    c1 = Character.toLowerCase(c1);
                    c2 = Character.toLowerCase(c2);
                    if (c1 != c2) return c1 - c2;
                }
            }
        }
        return a.length - b.length;
    }

    public boolean regionMatches(int toffset, String other, int ooffset, int len) {
        return regionMatches(false, toffset, other, ooffset, len);
    }

    public boolean regionMatches(boolean ignoreCase, int toffset, String other, int ooffset, int len) {
        if (ooffset < 0 || toffset < 0 || toffset > (long) value.length - len || ooffset > (long) other.value.length - len) return false;
        for (int i = 0; i < len; i++) {
            char c1 = value[toffset + i], c2 = other.value[ooffset + i];
            if (c1 == c2) continue;
            if (ignoreCase) {
                char u1 = Character.toUpperCase(c1), u2 = Character.toUpperCase(c2);
                if (u1 == u2 || Character.toLowerCase(u1) == Character.toLowerCase(u2)) continue;
            }
            return false;
        }
        return true;
    }

    public boolean startsWith(String prefix, int toffset) {
        if (toffset < 0 || toffset > value.length - prefix.value.length) return false;
        for (int i = 0; i < prefix.value.length; i++) if (value[toffset + i] != prefix.value[i]) return false;
        return true;
    }

    public boolean startsWith(String prefix) { return startsWith(prefix, 0); }

    public boolean endsWith(String suffix) { return startsWith(suffix, value.length - suffix.value.length); }

    public int hashCode() {
        int h = hash;
        if (h == 0 && !hashIsZero) {
            for (char c : value) h = 31 * h + c;
            if (h == 0) hashIsZero = true;
            else hash = h;
        }
        return h;
    }

    public int indexOf(int ch) { return indexOf(ch, 0); }

    // JDK 25's rules (`StringUTF16.indexOf`, `indexOfSupplementary`, `lastIndexOf`): a code point
    // below U+10000 is one code unit (a negative one is never found), a supplementary one its
    // surrogate pair, one past U+10FFFF is not found. Compiled code replaces `indexOf(int, int)`
    // with a word-at-a-time scan (`jit/index_of.rs`) that follows these rules.
    public int indexOf(int ch, int fromIndex) {
        char[] v = value;
        int i = fromIndex < 0 ? 0 : fromIndex;
        if (ch < Character.MIN_SUPPLEMENTARY_CODE_POINT) {
            for (; i < v.length; i++) if (v[i] == ch) return i;
            return -1;
        }
        if (ch <= Character.MAX_CODE_POINT) {
            char hi = Character.highSurrogate(ch), lo = Character.lowSurrogate(ch);
            for (; i < v.length - 1; i++) if (v[i] == hi && v[i + 1] == lo) return i;
        }
        return -1;
    }

    public int lastIndexOf(int ch) { return lastIndexOf(ch, value.length - 1); }

    public int lastIndexOf(int ch, int fromIndex) {
        char[] v = value;
        if (ch < Character.MIN_SUPPLEMENTARY_CODE_POINT) {
            for (int i = Math.min(fromIndex, v.length - 1); i >= 0; i--) if (v[i] == ch) return i;
            return -1;
        }
        if (ch <= Character.MAX_CODE_POINT) {
            char hi = Character.highSurrogate(ch), lo = Character.lowSurrogate(ch);
            for (int i = Math.min(fromIndex, v.length - 2); i >= 0; i--) if (v[i] == hi && v[i + 1] == lo) return i;
        }
        return -1;
    }

    public int indexOf(String str) { return indexOf(str, 0); }

    public int indexOf(String str, int fromIndex) {
        char[] s = str.value;
        if (fromIndex < 0) fromIndex = 0;
        int max = value.length - s.length;
        outer:
        for (int i = fromIndex; i <= max; i++) {
            for (int j = 0; j < s.length; j++) if (value[i + j] != s[j]) continue outer;
            return i;
        }
        return -1;
    }

    public int lastIndexOf(String str) { return lastIndexOf(str, value.length); }

    public int lastIndexOf(String str, int fromIndex) {
        char[] s = str.value;
        int i = Math.min(fromIndex, value.length - s.length);
        outer:
        for (; i >= 0; i--) {
            for (int j = 0; j < s.length; j++) if (value[i + j] != s[j]) continue outer;
            return i;
        }
        return -1;
    }

    public String substring(int beginIndex) { return substring(beginIndex, value.length); }

    // The array read once; the range checked once (HotSpot's message), then copied into an array
    // of its length that the new string owns.
    public String substring(int beginIndex, int endIndex) {
        char[] v = value;
        int length = v.length;
        checkBoundsBeginEnd(beginIndex, endIndex, length);
        if (beginIndex == 0 && endIndex == length) return this;
        int n = endIndex - beginIndex;
        char[] r = new char[n];
        System.arraycopy(v, beginIndex, r, 0, n);
        return new String(r, true);
    }

    public CharSequence subSequence(int beginIndex, int endIndex) { return substring(beginIndex, endIndex); }

    public String concat(String str) {
        if (str.isEmpty()) return this;
        char[] r = new char[value.length + str.value.length];
        System.arraycopy(value, 0, r, 0, value.length);
        System.arraycopy(str.value, 0, r, value.length, str.value.length);
        return new String(r, true);
    }

    public String replace(char oldChar, char newChar) {
        if (oldChar == newChar) return this;
        int i = indexOf(oldChar);
        if (i < 0) return this;
        char[] r = value.clone();
        for (; i < r.length; i++) if (r[i] == oldChar) r[i] = newChar;
        return new String(r, true);
    }

    public String replace(CharSequence target, CharSequence replacement) {
        String t = target.toString(), r = replacement.toString();
        int j = indexOf(t);
        if (j < 0) return this;
        StringBuilder sb = new StringBuilder();
        int i = 0;
        if (t.isEmpty()) {
            for (int k = 0; k < value.length; k++) { sb.append(r); sb.append(value[k]); }
            sb.append(r);
            return sb.toString();
        }
        while (j >= 0) {
            sb.append(value, i, j - i).append(r);
            i = j + t.length();
            j = indexOf(t, i);
        }
        sb.append(value, i, value.length - i);
        return sb.toString();
    }

    public String replaceAll(String regex, String replacement) {
        return java.util.regex.Pattern.compile(regex).matcher(this).replaceAll(replacement);
    }

    public String replaceFirst(String regex, String replacement) {
        return java.util.regex.Pattern.compile(regex).matcher(this).replaceFirst(replacement);
    }

    public boolean matches(String regex) { return java.util.regex.Pattern.matches(regex, this); }

    public boolean contains(CharSequence s) { return indexOf(s.toString()) >= 0; }

    public String[] split(String regex) { return split(regex, 0); }

    public String[] split(String regex, int limit) {
        return java.util.regex.Pattern.compile(regex).split(this, limit);
    }

    public static String join(CharSequence delimiter, CharSequence... elements) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < elements.length; i++) {
            if (i > 0) sb.append(delimiter);
            sb.append(elements[i]);
        }
        return sb.toString();
    }

    public static String join(CharSequence delimiter, Iterable<? extends CharSequence> elements) {
        StringBuilder sb = new StringBuilder();
        boolean first = true;
        for (CharSequence e : elements) {
            if (!first) sb.append(delimiter);
            sb.append(e);
            first = false;
        }
        return sb.toString();
    }

    public String toLowerCase() {
        char[] r = null;
        for (int i = 0; i < value.length; i++) {
            char c = Character.toLowerCase(value[i]);
            if (c != value[i]) {
                if (r == null) r = value.clone();
                r[i] = c;
            }
        }
        return r == null ? this : new String(r, true);
    }

    public String toLowerCase(java.util.Locale locale) { return toLowerCase(); }

    public String toUpperCase() {
        char[] r = null;
        for (int i = 0; i < value.length; i++) {
            char c = Character.toUpperCase(value[i]);
            if (c != value[i]) {
                if (r == null) r = value.clone();
                r[i] = c;
            }
        }
        return r == null ? this : new String(r, true);
    }

    public String toUpperCase(java.util.Locale locale) { return toUpperCase(); }

    public String trim() {
        int st = 0, len = value.length;
        while (st < len && value[st] <= ' ') st++;
        while (st < len && value[len - 1] <= ' ') len--;
        return (st > 0 || len < value.length) ? substring(st, len) : this;
    }

    public String strip() {
        int st = 0, len = value.length;
        while (st < len && Character.isWhitespace(value[st])) st++;
        while (st < len && Character.isWhitespace(value[len - 1])) len--;
        return substring(st, len);
    }

    public String stripLeading() {
        int st = 0;
        while (st < value.length && Character.isWhitespace(value[st])) st++;
        return substring(st);
    }

    public String stripTrailing() {
        int len = value.length;
        while (len > 0 && Character.isWhitespace(value[len - 1])) len--;
        return substring(0, len);
    }

    public boolean isBlank() {
        for (int i = 0; i < value.length; i++) if (!Character.isWhitespace(value[i])) return false;
        return true;
    }

    public String repeat(int count) {
        if (count < 0) throw new IllegalArgumentException("count is negative: " + count);
        if (count == 1) return this;
        char[] r = new char[value.length * count];
        for (int i = 0; i < count; i++) System.arraycopy(value, 0, r, i * value.length, value.length);
        return new String(r, true);
    }

    public String indent(int n) {
        if (isEmpty()) return "";
        StringBuilder sb = new StringBuilder();
        for (String line : split("\n", -1)) {
            if (n > 0) { for (int i = 0; i < n; i++) sb.append(' '); sb.append(line); }
            else {
                int k = 0;
                while (k < -n && k < line.length() && Character.isWhitespace(line.charAt(k))) k++;
                sb.append(line.substring(k));
            }
            sb.append('\n');
        }
        String s = sb.toString();
        if (endsWith("\n")) s = s.substring(0, s.length() - 1);
        return s;
    }

    public char[] toCharArray() { return value.clone(); }

    public String toString() { return this; }

    public native String intern();

    public static String format(String format, Object... args) {
        return new Formatter().format(format, args).toString();
    }

    public String formatted(Object... args) { return format(this, args); }

    public static String valueOf(Object obj) { return (obj == null) ? "null" : obj.toString(); }
    public static String valueOf(char[] data) { return new String(data); }
    public static String valueOf(char[] data, int offset, int count) { return new String(data, offset, count); }
    public static String copyValueOf(char[] data) { return new String(data); }
    public static String valueOf(boolean b) { return b ? "true" : "false"; }
    public static String valueOf(char c) { return new String(new char[] {c}, true); }
    public static String valueOf(int i) { return Integer.toString(i); }
    public static String valueOf(long l) { return Long.toString(l); }
    public static String valueOf(float f) { return Float.toString(f); }
    public static String valueOf(double d) { return Double.toString(d); }
}
