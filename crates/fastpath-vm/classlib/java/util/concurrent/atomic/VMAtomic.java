package java.util.concurrent.atomic;

/** The VM's atomic operations on fields and array elements (sequentially consistent). */
final class VMAtomic {
    private VMAtomic() {}
    /** A token for field `name` of `c` (for the field operations below). */
    static native int fieldOffset(Class<?> c, String name);
    static native boolean casInt(Object o, int field, int expected, int value);
    static native int getAndAddInt(Object o, int field, int delta);
    static native int getAndSetInt(Object o, int field, int value);
    static native boolean casLong(Object o, int field, long expected, long value);
    static native long getAndAddLong(Object o, int field, long delta);
    static native long getAndSetLong(Object o, int field, long value);
    static native boolean casRef(Object o, int field, Object expected, Object value);
    static native Object getAndSetRef(Object o, int field, Object value);
    static native boolean casIntElem(int[] a, int i, int expected, int value);
    static native int getAndAddIntElem(int[] a, int i, int delta);
    static native int getIntElem(int[] a, int i);
    static native void setIntElem(int[] a, int i, int value);
    static native boolean casLongElem(long[] a, int i, long expected, long value);
    static native long getAndAddLongElem(long[] a, int i, long delta);
    static native long getLongElem(long[] a, int i);
    static native void setLongElem(long[] a, int i, long value);
    static native boolean casRefElem(Object[] a, int i, Object expected, Object value);
}
