package java.lang;

public class Runtime {
    private static final Runtime currentRuntime = new Runtime();
    private Runtime() {}
    public static Runtime getRuntime() { return currentRuntime; }
    public void exit(int status) {
        System.out.flush();
        halt0(status);
    }
    public void halt(int status) { halt0(status); }
    private static native void halt0(int status);
    public native int availableProcessors();
    public native long freeMemory();
    public native long totalMemory();
    public native long maxMemory();
    public native void gc();
}
