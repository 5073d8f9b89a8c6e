package java.util.concurrent.atomic;

import java.util.function.BinaryOperator;
import java.util.function.UnaryOperator;

public class AtomicReference<V> implements java.io.Serializable {
    private static final int VALUE = VMAtomic.fieldOffset(AtomicReference.class, "value");
    private volatile V value;

    public AtomicReference(V initialValue) { value = initialValue; }
    public AtomicReference() {}
    public final V get() { return value; }
    public final void set(V newValue) { value = newValue; }
    public final void lazySet(V newValue) { value = newValue; }
    public final V getPlain() { return value; }
    public final void setPlain(V newValue) { value = newValue; }
    public final V getAcquire() { return value; }
    public final void setRelease(V newValue) { value = newValue; }
    public final boolean compareAndSet(V expectedValue, V newValue) { return VMAtomic.casRef(this, VALUE, expectedValue, newValue); }
    public final boolean weakCompareAndSet(V expectedValue, V newValue) { return compareAndSet(expectedValue, newValue); }
    public final boolean weakCompareAndSetPlain(V expectedValue, V newValue) { return compareAndSet(expectedValue, newValue); }
    public final V getAndSet(V newValue) { return (V) VMAtomic.getAndSetRef(this, VALUE, newValue); }
    public final V compareAndExchange(V expectedValue, V newValue) {
        for (;;) {
            V cur = value;
            if (cur != expectedValue) return cur;
            if (compareAndSet(cur, newValue)) return cur;
        }
    }
    public final V getAndUpdate(UnaryOperator<V> updateFunction) {
        V prev = get(), next = null;
        for (boolean haveNext = false;;) {
            if (!haveNext) next = updateFunction.apply(prev);
            if (compareAndSet(prev, next)) return prev;
            haveNext = (prev == (prev = get()));
        }
    }
    public final V updateAndGet(UnaryOperator<V> updateFunction) {
        V prev = get(), next = null;
        for (boolean haveNext = false;;) {
            if (!haveNext) next = updateFunction.apply(prev);
            if (compareAndSet(prev, next)) return next;
            haveNext = (prev == (prev = get()));
        }
    }
    public final V getAndAccumulate(V x, BinaryOperator<V> accumulatorFunction) {
        V prev = get(), next = null;
        for (boolean haveNext = false;;) {
            if (!haveNext) next = accumulatorFunction.apply(prev, x);
            if (compareAndSet(prev, next)) return prev;
            haveNext = (prev == (prev = get()));
        }
    }
    public final V accumulateAndGet(V x, BinaryOperator<V> accumulatorFunction) {
        V prev = get(), next = null;
        for (boolean haveNext = false;;) {
            if (!haveNext) next = accumulatorFunction.apply(prev, x);
            if (compareAndSet(prev, next)) return next;
            haveNext = (prev == (prev = get()));
        }
    }
    public String toString() { return String.valueOf(get()); }
}
