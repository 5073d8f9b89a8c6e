package java.lang;

public abstract class Record {
    protected Record() {}
    public abstract boolean equals(Object obj);
    public abstract int hashCode();
    public abstract String toString();
    /** Used by the VM's record methods: same class and equal components. */
    public static native boolean equalsByComponents(Object a, Object b);
}
