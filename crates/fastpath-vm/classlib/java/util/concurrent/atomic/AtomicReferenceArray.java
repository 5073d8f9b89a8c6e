package java.util.concurrent.atomic;

public class AtomicReferenceArray<E> implements java.io.Serializable {
    private final Object[] array;

    public AtomicReferenceArray(int length) { array = new Object[length]; }
    public AtomicReferenceArray(E[] array) { this.array = java.util.Arrays.copyOf(array, array.length, Object[].class); }
    public final int length() { return array.length; }
    public final E get(int i) {
        synchronized (this) {
            return (E) array[i];
        }
    }
    public final void set(int i, E newValue) {
        synchronized (this) {
            array[i] = newValue;
        }
    }
    public final boolean compareAndSet(int i, E expectedValue, E newValue) { return VMAtomic.casRefElem(array, i, expectedValue, newValue); }
    public final E getAndSet(int i, E newValue) {
        for (;;) {
            E cur = get(i);
            if (compareAndSet(i, cur, newValue)) return cur;
        }
    }
    public String toString() { return java.util.Arrays.toString(array); }
}
