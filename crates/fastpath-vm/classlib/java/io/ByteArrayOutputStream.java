package java.io;

public class ByteArrayOutputStream extends OutputStream {
    protected byte[] buf;
    protected int count;

    public ByteArrayOutputStream() { this(32); }
    public ByteArrayOutputStream(int size) {
        if (size < 0) throw new IllegalArgumentException("Negative initial size: " + size);
        buf = new byte[size];
    }
    private void ensure(int min) {
        if (min > buf.length) buf = java.util.Arrays.copyOf(buf, Math.max(buf.length * 2, min));
    }
    public void write(int b) {
        ensure(count + 1);
        buf[count++] = (byte) b;
    }
    public void write(byte[] b, int off, int len) {
        if (off < 0 || len < 0 || off > b.length - len) throw new IndexOutOfBoundsException();
        ensure(count + len);
        System.arraycopy(b, off, buf, count, len);
        count += len;
    }
    public void reset() { count = 0; }
    public byte[] toByteArray() { return java.util.Arrays.copyOf(buf, count); }
    public int size() { return count; }
    public String toString() { return new String(buf, 0, count); }
}
