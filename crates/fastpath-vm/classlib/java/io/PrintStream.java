package java.io;

/** A stream on file descriptor 1 or 2 (System.out, System.err): each print is one write to the VM's stream. */
public class PrintStream extends OutputStream implements Appendable, Closeable {
    private final int fd;
    private final OutputStream target;

    public PrintStream(int fd) { this.fd = fd; this.target = null; }

    public PrintStream(OutputStream out) { this.fd = -1; this.target = out; }

    public PrintStream(OutputStream out, boolean autoFlush) { this(out); }

    private static native void writeString(int fd, String s);
    private static native void writeChars(int fd, char[] c, int off, int len);
    private static native void writeBytes(int fd, byte[] b, int off, int len);
    private static native void flush0(int fd);

    private void out(String s) {
        if (target == null) {
            writeString(fd, s);
        } else {
            try {
                target.write(s.getBytes());
            } catch (IOException e) {
                // PrintStream never throws IOException.
            }
        }
    }

    public void write(int b) {
        if (target == null) writeBytes(fd, new byte[] {(byte) b}, 0, 1);
        else {
            try { target.write(b); } catch (IOException e) { }
        }
    }

    public void write(byte[] buf, int off, int len) {
        if (target == null) writeBytes(fd, buf, off, len);
        else {
            try { target.write(buf, off, len); } catch (IOException e) { }
        }
    }

    public void flush() {
        if (target == null) flush0(fd);
        else {
            try { target.flush(); } catch (IOException e) { }
        }
    }

    public void close() { flush(); }
    public boolean checkError() { return false; }

    public void print(boolean b) { out(b ? "true" : "false"); }
    public void print(char c) { out(String.valueOf(c)); }
    public void print(int i) { out(String.valueOf(i)); }
    public void print(long l) { out(String.valueOf(l)); }
    public void print(float f) { out(String.valueOf(f)); }
    public void print(double d) { out(String.valueOf(d)); }
    public void print(char[] s) {
        if (target == null) writeChars(fd, s, 0, s.length);
        else out(new String(s));
    }
    public void print(String s) { out(String.valueOf(s)); }
    public void print(Object obj) { out(String.valueOf(obj)); }

    public void println() { out("\n"); }
    public void println(boolean x) { out((x ? "true" : "false") + "\n"); }
    public void println(char x) { out(String.valueOf(x) + "\n"); }
    public void println(int x) { out(String.valueOf(x) + "\n"); }
    public void println(long x) { out(String.valueOf(x) + "\n"); }
    public void println(float x) { out(String.valueOf(x) + "\n"); }
    public void println(double x) { out(String.valueOf(x) + "\n"); }
    public void println(char[] x) { out(new String(x) + "\n"); }
    public void println(String x) { out(String.valueOf(x) + "\n"); }
    public void println(Object x) { out(String.valueOf(x) + "\n"); }

    public PrintStream printf(String format, Object... args) { return format(format, args); }
    public PrintStream printf(java.util.Locale l, String format, Object... args) { return format(format, args); }
    public PrintStream format(String format, Object... args) {
        out(new java.util.Formatter().format(format, args).toString());
        return this;
    }
    public PrintStream format(java.util.Locale l, String format, Object... args) { return format(format, args); }

    public PrintStream append(CharSequence csq) { print(String.valueOf(csq)); return this; }
    public PrintStream append(CharSequence csq, int start, int end) {
        if (csq == null) csq = "null";
        return append(csq.subSequence(start, end));
    }
    public PrintStream append(char c) { print(c); return this; }
}
