package java.util.concurrent.atomic;

public class AtomicBoolean implements java.io.Serializable {
    private static final int VALUE = VMAtomic.fieldOffset(AtomicBoolean.class, "value");
    private volatile int value;

    public AtomicBoolean(boolean initialValue) { value = initialValue ? 1 : 0; }
    public AtomicBoolean() {}
    public final boolean get() { return value != 0; }
    public final boolean compareAndSet(boolean expectedValue, boolean newValue) {
        return VMAtomic.casInt(this, VALUE, (expectedValue ? 1 : 0), (newValue ? 1 : 0));
    }
    public boolean weakCompareAndSet(boolean expectedValue, boolean newValue) { return compareAndSet(expectedValue, newValue); }
    public final void set(boolean newValue) { value = newValue ? 1 : 0; }
    public final void lazySet(boolean newValue) { set(newValue); }
    public final boolean getAndSet(boolean newValue) { return VMAtomic.getAndSetInt(this, VALUE, newValue ? 1 : 0) != 0; }
    public final boolean getPlain() { return get(); }
    public final void setPlain(boolean newValue) { set(newValue); }
    public final boolean getAcquire() { return get(); }
    public final void setRelease(boolean newValue) { set(newValue); }
    public String toString() { return Boolean.toString(get()); }
}
