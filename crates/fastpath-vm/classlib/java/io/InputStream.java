package java.io;

public abstract class InputStream implements Closeable {
    public InputStream() {}
    public abstract int read() throws IOException;
    public int read(byte[] b, int off, int len) throws IOException {
        int i = 0;
        for (; i < len; i++) {
            int c = read();
            if (c < 0) return i == 0 ? -1 : i;
            b[off + i] = (byte) c;
        }
        return i;
    }
    public void close() throws IOException {}
}
