package java.lang;

import java.io.PrintStream;

public final class System {
    private System() {}

    public static final PrintStream out = new PrintStream(1);
    public static final PrintStream err = new PrintStream(2);
    public static final java.io.InputStream in = null;

    public static native void arraycopy(Object src, int srcPos, Object dest, int destPos, int length);
    public static native long currentTimeMillis();
    public static native long nanoTime();
    public static native int identityHashCode(Object x);

    public static void exit(int status) { Runtime.getRuntime().exit(status); }
    public static void gc() { Runtime.getRuntime().gc(); }
    public static String lineSeparator() { return "\n"; }
    public static String getenv(String name) { return null; }

    public static String getProperty(String key) {
        if (key == null) throw new NullPointerException("key can't be null");
        if (key.isEmpty()) throw new IllegalArgumentException("key can't be empty");
        switch (key) {
            case "line.separator": return "\n";
            case "file.separator": return "/";
            case "path.separator": return ":";
            case "java.version": return "25";
            case "java.vendor": return "fastpath";
            case "java.vm.name": return "fastpath-vm";
            case "os.name": return "Linux";
            case "file.encoding": return "UTF-8";
            default: return null;
        }
    }

    public static String getProperty(String key, String def) {
        String v = getProperty(key);
        return v == null ? def : v;
    }
}
