package java.lang;

/** The growable character buffer behind StringBuilder and StringBuffer. */
abstract class AbstractStringBuilder implements Appendable, CharSequence {
    char[] value;
    int count;

    AbstractStringBuilder(int capacity) { value = new char[capacity]; }

    public int length() { return count; }

    public int capacity() { return value.length; }

    public void ensureCapacity(int minimumCapacity) {
        if (minimumCapacity > value.length) grow(minimumCapacity);
    }

    private void grow(int min) {
        int n = value.length * 2 + 2;
        if (n < min) n = min;
        char[] v = new char[n];
        System.arraycopy(value, 0, v, 0, count);
        value = v;
    }

    public void trimToSize() {
        if (count < value.length) value = java.util.Arrays.copyOf(value, count);
    }

    public void setLength(int newLength) {
        if (newLength < 0) throw new StringIndexOutOfBoundsException(newLength);
        ensureCapacity(newLength);
        for (int i = count; i < newLength; i++) value[i] = '\0';
        count = newLength;
    }

    public char charAt(int index) {
        String.checkIndex(index, count);
        return value[index];
    }

    public int codePointAt(int index) {
        String.checkIndex(index, count);
        char c = value[index];
        if (Character.isHighSurrogate(c) && index + 1 < count && Character.isLowSurrogate(value[index + 1])) {
            return Character.toCodePoint(c, value[index + 1]);
        }
        return c;
    }

    public void getChars(int srcBegin, int srcEnd, char[] dst, int dstBegin) {
        String.checkBoundsBeginEnd(srcBegin, srcEnd, count);
        System.arraycopy(value, srcBegin, dst, dstBegin, srcEnd - srcBegin);
    }

    public void setCharAt(int index, char ch) {
        String.checkIndex(index, count);
        value[index] = ch;
    }

    AbstractStringBuilder appendNull() {
        ensureCapacity(count + 4);
        value[count++] = 'n';
        value[count++] = 'u';
        value[count++] = 'l';
        value[count++] = 'l';
        return this;
    }

    public AbstractStringBuilder append(Object obj) { return append(String.valueOf(obj)); }

    // The string's array read once and copied by `System.arraycopy` (an intrinsic in compiled
    // code), growing through the private `grow`: no call of `ensureCapacity` (virtual) nor
    // `String.getChars` (whose bounds check a whole-string copy does not need).
    public AbstractStringBuilder append(String str) {
        if (str == null) return appendNull();
        char[] s = str.value;
        int len = s.length;
        int c = count;
        if (c + len > value.length) grow(c + len);
        System.arraycopy(s, 0, value, c, len);
        count = c + len;
        return this;
    }

    public AbstractStringBuilder append(StringBuffer sb) {
        return append((CharSequence) sb);
    }

    public AbstractStringBuilder append(CharSequence s) {
        if (s == null) return appendNull();
        if (s instanceof String) return append((String) s);
        if (s instanceof AbstractStringBuilder) {
            AbstractStringBuilder a = (AbstractStringBuilder) s;
            ensureCapacity(count + a.count);
            System.arraycopy(a.value, 0, value, count, a.count);
            count += a.count;
            return this;
        }
        return append(s, 0, s.length());
    }

    public AbstractStringBuilder append(CharSequence s, int start, int end) {
        if (s == null) s = "null";
        String.checkBoundsBeginEnd(start, end, s.length());
        ensureCapacity(count + end - start);
        for (int i = start; i < end; i++) value[count++] = s.charAt(i);
        return this;
    }

    public AbstractStringBuilder append(char[] str) {
        ensureCapacity(count + str.length);
        System.arraycopy(str, 0, value, count, str.length);
        count += str.length;
        return this;
    }

    public AbstractStringBuilder append(char[] str, int offset, int len) {
        String.checkBoundsOffCount(offset, len, str.length);
        ensureCapacity(count + len);
        System.arraycopy(str, offset, value, count, len);
        count += len;
        return this;
    }

    public AbstractStringBuilder append(boolean b) { return append(b ? "true" : "false"); }

    public AbstractStringBuilder append(char c) {
        if (count == value.length) grow(count + 1);
        value[count++] = c;
        return this;
    }

    // `stringSize` counts a negative number's sign and `getChars` writes any value, `MIN_VALUE`
    // included (both work on the negated value, as the JDK's). The count is read once and the
    // array grown through the private `grow`, as `append(String)` does: no call of the public
    // `ensureCapacity`, which compiled code does not always inline.
    public AbstractStringBuilder append(int i) {
        int size = Integer.stringSize(i);
        int end = count + size;
        if (end > value.length) grow(end);
        Integer.getChars(i, end, value);
        count = end;
        return this;
    }

    public AbstractStringBuilder append(long l) {
        int size = Long.stringSize(l);
        int end = count + size;
        if (end > value.length) grow(end);
        Long.getChars(l, end, value);
        count = end;
        return this;
    }

    public AbstractStringBuilder append(float f) { return append(Float.toString(f)); }

    public AbstractStringBuilder append(double d) { return append(Double.toString(d)); }

    public AbstractStringBuilder appendCodePoint(int codePoint) {
        if (Character.isBmpCodePoint(codePoint)) return append((char) codePoint);
        append(Character.highSurrogate(codePoint));
        return append(Character.lowSurrogate(codePoint));
    }

    public AbstractStringBuilder delete(int start, int end) {
        if (end > count) end = count;
        String.checkBoundsBeginEnd(start, end, count);
        int len = end - start;
        if (len > 0) {
            System.arraycopy(value, start + len, value, start, count - end);
            count -= len;
        }
        return this;
    }

    public AbstractStringBuilder deleteCharAt(int index) {
        String.checkIndex(index, count);
        System.arraycopy(value, index + 1, value, index, count - index - 1);
        count--;
        return this;
    }

    public AbstractStringBuilder replace(int start, int end, String str) {
        if (end > count) end = count;
        String.checkBoundsBeginEnd(start, end, count);
        int len = str.length();
        int newCount = count + len - (end - start);
        ensureCapacity(newCount);
        System.arraycopy(value, end, value, start + len, count - end);
        str.getChars(0, len, value, start);
        count = newCount;
        return this;
    }

    public String substring(int start) { return substring(start, count); }

    public String substring(int start, int end) {
        String.checkBoundsBeginEnd(start, end, count);
        return new String(value, start, end - start);
    }

    public CharSequence subSequence(int start, int end) { return substring(start, end); }

    public AbstractStringBuilder insert(int offset, String str) {
        if (offset < 0 || offset > count) throw new StringIndexOutOfBoundsException("Range [" + offset + ", " + count + ") out of bounds for length " + count);
        if (str == null) str = "null";
        int len = str.length();
        ensureCapacity(count + len);
        System.arraycopy(value, offset, value, offset + len, count - offset);
        str.getChars(0, len, value, offset);
        count += len;
        return this;
    }

    public AbstractStringBuilder insert(int offset, char c) { return insert(offset, String.valueOf(c)); }
    public AbstractStringBuilder insert(int offset, Object obj) { return insert(offset, String.valueOf(obj)); }
    public AbstractStringBuilder insert(int offset, int i) { return insert(offset, String.valueOf(i)); }
    public AbstractStringBuilder insert(int offset, long l) { return insert(offset, String.valueOf(l)); }
    public AbstractStringBuilder insert(int offset, boolean b) { return insert(offset, String.valueOf(b)); }
    public AbstractStringBuilder insert(int offset, double d) { return insert(offset, String.valueOf(d)); }
    public AbstractStringBuilder insert(int offset, float f) { return insert(offset, String.valueOf(f)); }
    public AbstractStringBuilder insert(int offset, char[] s) { return insert(offset, new String(s)); }
    public AbstractStringBuilder insert(int offset, CharSequence s) { return insert(offset, String.valueOf(s)); }

    public int indexOf(String str) { return indexOf(str, 0); }
    public int indexOf(String str, int fromIndex) { return toString().indexOf(str, fromIndex); }
    public int lastIndexOf(String str) { return toString().lastIndexOf(str); }
    public int lastIndexOf(String str, int fromIndex) { return toString().lastIndexOf(str, fromIndex); }

    public AbstractStringBuilder reverse() {
        int n = count - 1;
        boolean surrogates = false;
        for (int j = (n - 1) >> 1; j >= 0; j--) {
            int k = n - j;
            char cj = value[j], ck = value[k];
            value[j] = ck;
            value[k] = cj;
            if (Character.isSurrogate(cj) || Character.isSurrogate(ck)) surrogates = true;
        }
        if (surrogates) {
            for (int i = 0; i < count - 1; i++) {
                char c2 = value[i];
                if (Character.isLowSurrogate(c2)) {
                    char c1 = value[i + 1];
                    if (Character.isHighSurrogate(c1)) {
                        value[i++] = c1;
                        value[i] = c2;
                    }
                }
            }
        }
        return this;
    }

    public abstract String toString();
}
