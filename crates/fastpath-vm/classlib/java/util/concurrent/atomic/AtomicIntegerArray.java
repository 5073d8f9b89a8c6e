package java.util.concurrent.atomic;

import java.util.function.IntBinaryOperator;
import java.util.function.IntUnaryOperator;

public class AtomicIntegerArray implements java.io.Serializable {
    private final int[] array;

    public AtomicIntegerArray(int length) { array = new int[length]; }
    public AtomicIntegerArray(int[] array) { this.array = array.clone(); }
    public final int length() { return array.length; }
    public final int get(int i) { return VMAtomic.getIntElem(array, i); }
    public final void set(int i, int newValue) { VMAtomic.setIntElem(array, i, newValue); }
    public final void lazySet(int i, int newValue) { set(i, newValue); }
    public final int getAndSet(int i, int newValue) {
        for (;;) {
            int cur = get(i);
            if (compareAndSet(i, cur, newValue)) return cur;
        }
    }
    public final boolean compareAndSet(int i, int expectedValue, int newValue) { return VMAtomic.casIntElem(array, i, expectedValue, newValue); }
    public final boolean weakCompareAndSet(int i, int expectedValue, int newValue) { return compareAndSet(i, expectedValue, newValue); }
    public final int getAndIncrement(int i) { return VMAtomic.getAndAddIntElem(array, i, 1); }
    public final int getAndDecrement(int i) { return VMAtomic.getAndAddIntElem(array, i, -1); }
    public final int getAndAdd(int i, int delta) { return VMAtomic.getAndAddIntElem(array, i, delta); }
    public final int incrementAndGet(int i) { return VMAtomic.getAndAddIntElem(array, i, 1) + 1; }
    public final int decrementAndGet(int i) { return VMAtomic.getAndAddIntElem(array, i, -1) - 1; }
    public final int addAndGet(int i, int delta) { return VMAtomic.getAndAddIntElem(array, i, delta) + delta; }
    public final int getAndUpdate(int i, IntUnaryOperator f) {
        for (;;) {
            int prev = get(i);
            if (compareAndSet(i, prev, f.applyAsInt(prev))) return prev;
        }
    }
    public final int updateAndGet(int i, IntUnaryOperator f) {
        for (;;) {
            int prev = get(i), next = f.applyAsInt(prev);
            if (compareAndSet(i, prev, next)) return next;
        }
    }
    public final int accumulateAndGet(int i, int x, IntBinaryOperator f) {
        for (;;) {
            int prev = get(i), next = f.applyAsInt(prev, x);
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
