package java.util.concurrent.atomic;

import java.util.function.IntBinaryOperator;
import java.util.function.IntUnaryOperator;

public class AtomicInteger extends Number implements java.io.Serializable {
    private static final int VALUE = VMAtomic.fieldOffset(AtomicInteger.class, "value");
    private volatile int value;

    public AtomicInteger(int initialValue) { value = initialValue; }
    public AtomicInteger() {}

    public final int get() { return value; }
    public final void set(int newValue) { value = newValue; }
    public final void lazySet(int newValue) { value = newValue; }
    public final int getPlain() { return value; }
    public final void setPlain(int newValue) { value = newValue; }
    public final int getAcquire() { return value; }
    public final void setRelease(int newValue) { value = newValue; }
    public final int getOpaque() { return value; }
    public final void setOpaque(int newValue) { value = newValue; }
    public final int getAndSet(int newValue) { return VMAtomic.getAndSetInt(this, VALUE, newValue); }
    public final boolean compareAndSet(int expectedValue, int newValue) { return VMAtomic.casInt(this, VALUE, expectedValue, newValue); }
    public final boolean weakCompareAndSet(int expectedValue, int newValue) { return compareAndSet(expectedValue, newValue); }
    public final boolean weakCompareAndSetPlain(int expectedValue, int newValue) { return compareAndSet(expectedValue, newValue); }
    public final boolean weakCompareAndSetVolatile(int expectedValue, int newValue) { return compareAndSet(expectedValue, newValue); }
    public final int compareAndExchange(int expectedValue, int newValue) {
        for (;;) {
            int cur = value;
            if (cur != expectedValue) return cur;
            if (compareAndSet(cur, newValue)) return cur;
        }
    }
    public final int getAndIncrement() { return VMAtomic.getAndAddInt(this, VALUE, 1); }
    public final int getAndDecrement() { return VMAtomic.getAndAddInt(this, VALUE, -1); }
    public final int getAndAdd(int delta) { return VMAtomic.getAndAddInt(this, VALUE, delta); }
    public final int incrementAndGet() { return VMAtomic.getAndAddInt(this, VALUE, 1) + 1; }
    public final int decrementAndGet() { return VMAtomic.getAndAddInt(this, VALUE, -1) - 1; }
    public final int addAndGet(int delta) { return VMAtomic.getAndAddInt(this, VALUE, delta) + delta; }
    public final int getAndUpdate(IntUnaryOperator updateFunction) {
        int prev = get(), next = 0;
        for (boolean haveNext = false;;) {
            if (!haveNext) next = updateFunction.applyAsInt(prev);
            if (compareAndSet(prev, next)) return prev;
            haveNext = (prev == (prev = get()));
        }
    }
    public final int updateAndGet(IntUnaryOperator updateFunction) {
        int prev = get(), next = 0;
        for (boolean haveNext = false;;) {
            if (!haveNext) next = updateFunction.applyAsInt(prev);
            if (compareAndSet(prev, next)) return next;
            haveNext = (prev == (prev = get()));
        }
    }
    public final int getAndAccumulate(int x, IntBinaryOperator accumulatorFunction) {
        int prev = get(), next = 0;
        for (boolean haveNext = false;;) {
            if (!haveNext) next = accumulatorFunction.applyAsInt(prev, x);
            if (compareAndSet(prev, next)) return prev;
            haveNext = (prev == (prev = get()));
        }
    }
    public final int accumulateAndGet(int x, IntBinaryOperator accumulatorFunction) {
        int prev = get(), next = 0;
        for (boolean haveNext = false;;) {
            if (!haveNext) next = accumulatorFunction.applyAsInt(prev, x);
            if (compareAndSet(prev, next)) return next;
            haveNext = (prev == (prev = get()));
        }
    }
    public String toString() { return Integer.toString(get()); }
    public int intValue() { return (int) get(); }
    public long longValue() { return (long) get(); }
    public float floatValue() { return (float) get(); }
    public double doubleValue() { return (double) get(); }
}
