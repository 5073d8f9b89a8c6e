package java.util.concurrent.atomic;

import java.util.function.LongBinaryOperator;
import java.util.function.LongUnaryOperator;

public class AtomicLong extends Number implements java.io.Serializable {
    private static final int VALUE = VMAtomic.fieldOffset(AtomicLong.class, "value");
    private volatile long value;

    public AtomicLong(long initialValue) { value = initialValue; }
    public AtomicLong() {}

    public final long get() { return value; }
    public final void set(long newValue) { value = newValue; }
    public final void lazySet(long newValue) { value = newValue; }
    public final long getPlain() { return value; }
    public final void setPlain(long newValue) { value = newValue; }
    public final long getAcquire() { return value; }
    public final void setRelease(long newValue) { value = newValue; }
    public final long getOpaque() { return value; }
    public final void setOpaque(long newValue) { value = newValue; }
    public final long getAndSet(long newValue) { return VMAtomic.getAndSetLong(this, VALUE, newValue); }
    public final boolean compareAndSet(long expectedValue, long newValue) { return VMAtomic.casLong(this, VALUE, expectedValue, newValue); }
    public final boolean weakCompareAndSet(long expectedValue, long newValue) { return compareAndSet(expectedValue, newValue); }
    public final boolean weakCompareAndSetPlain(long expectedValue, long newValue) { return compareAndSet(expectedValue, newValue); }
    public final boolean weakCompareAndSetVolatile(long expectedValue, long newValue) { return compareAndSet(expectedValue, newValue); }
    public final long compareAndExchange(long expectedValue, long newValue) {
        for (;;) {
            long cur = value;
            if (cur != expectedValue) return cur;
            if (compareAndSet(cur, newValue)) return cur;
        }
    }
    public final long getAndIncrement() { return VMAtomic.getAndAddLong(this, VALUE, 1); }
    public final long getAndDecrement() { return VMAtomic.getAndAddLong(this, VALUE, -1); }
    public final long getAndAdd(long delta) { return VMAtomic.getAndAddLong(this, VALUE, delta); }
    public final long incrementAndGet() { return VMAtomic.getAndAddLong(this, VALUE, 1) + 1; }
    public final long decrementAndGet() { return VMAtomic.getAndAddLong(this, VALUE, -1) - 1; }
    public final long addAndGet(long delta) { return VMAtomic.getAndAddLong(this, VALUE, delta) + delta; }
    public final long getAndUpdate(LongUnaryOperator updateFunction) {
        long prev = get(), next = 0;
        for (boolean haveNext = false;;) {
            if (!haveNext) next = updateFunction.applyAsLong(prev);
            if (compareAndSet(prev, next)) return prev;
            haveNext = (prev == (prev = get()));
        }
    }
    public final long updateAndGet(LongUnaryOperator updateFunction) {
        long prev = get(), next = 0;
        for (boolean haveNext = false;;) {
            if (!haveNext) next = updateFunction.applyAsLong(prev);
            if (compareAndSet(prev, next)) return next;
            haveNext = (prev == (prev = get()));
        }
    }
    public final long getAndAccumulate(long x, LongBinaryOperator accumulatorFunction) {
        long prev = get(), next = 0;
        for (boolean haveNext = false;;) {
            if (!haveNext) next = accumulatorFunction.applyAsLong(prev, x);
            if (compareAndSet(prev, next)) return prev;
            haveNext = (prev == (prev = get()));
        }
    }
    public final long accumulateAndGet(long x, LongBinaryOperator accumulatorFunction) {
        long prev = get(), next = 0;
        for (boolean haveNext = false;;) {
            if (!haveNext) next = accumulatorFunction.applyAsLong(prev, x);
            if (compareAndSet(prev, next)) return next;
            haveNext = (prev == (prev = get()));
        }
    }
    public String toString() { return Long.toString(get()); }
    public int intValue() { return (int) get(); }
    public long longValue() { return (long) get(); }
    public float floatValue() { return (float) get(); }
    public double doubleValue() { return (double) get(); }
}
