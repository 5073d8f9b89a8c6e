package java.util.concurrent.atomic;

import java.util.function.LongBinaryOperator;
import java.util.function.LongUnaryOperator;

public class AtomicLongArray implements java.io.Serializable {
    private final long[] array;

    public AtomicLongArray(int length) { array = new long[length]; }
    public AtomicLongArray(long[] array) { this.array = array.clone(); }
    public final int length() { return array.length; }
    public final long get(int i) { return VMAtomic.getLongElem(array, i); }
    public final void set(int i, long newValue) { VMAtomic.setLongElem(array, i, newValue); }
    public final void lazySet(int i, long newValue) { set(i, newValue); }
    public final long getAndSet(int i, long newValue) {
        for (;;) {
            long cur = get(i);
            if (compareAndSet(i, cur, newValue)) return cur;
        }
    }
    public final boolean compareAndSet(int i, long expectedValue, long newValue) { return VMAtomic.casLongElem(array, i, expectedValue, newValue); }
    public final boolean weakCompareAndSet(int i, long expectedValue, long newValue) { return compareAndSet(i, expectedValue, newValue); }
    public final long getAndIncrement(int i) { return VMAtomic.getAndAddLongElem(array, i, 1); }
    public final long getAndDecrement(int i) { return VMAtomic.getAndAddLongElem(array, i, -1); }
    public final long getAndAdd(int i, long delta) { return VMAtomic.getAndAddLongElem(array, i, delta); }
    public final long incrementAndGet(int i) { return VMAtomic.getAndAddLongElem(array, i, 1) + 1; }
    public final long decrementAndGet(int i) { return VMAtomic.getAndAddLongElem(array, i, -1) - 1; }
    public final long addAndGet(int i, long delta) { return VMAtomic.getAndAddLongElem(array, i, delta) + delta; }
    public final long updateAndGet(int i, LongUnaryOperator f) {
        for (;;) {
            long prev = get(i), next = f.applyAsLong(prev);
            if (compareAndSet(i, prev, next)) return next;
        }
    }
    public final long accumulateAndGet(int i, long x, LongBinaryOperator f) {
        for (;;) {
            long prev = get(i), next = f.applyAsLong(prev, x);
            if (compareAndSet(i, prev, next)) return next;
        }
    }
    public String toString() {
        int iMax = array.length - 1;
        if (iMax == -1) return "[]";
        StringBuilder b = new StringBuilder();
        b.append('[');
        for (int i = 0; ; i++) {
            b.append(get(i));
            if (i == iMax) return b.append(']').toString();
            b.append(',').append(' ');
        }
    }
}
