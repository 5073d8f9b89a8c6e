package java.lang;

import java.util.function.Supplier;

/** Per-thread values, kept in a map owned by each thread's ThreadLocal table. */
public class ThreadLocal<T> {
    private final java.util.IdentityHashMap<Thread, Object> values = new java.util.IdentityHashMap<Thread, Object>();
    private static final Object NONE = new Object();

    public ThreadLocal() {}

    protected T initialValue() { return null; }

    public static <S> ThreadLocal<S> withInitial(final Supplier<? extends S> supplier) {
        return new ThreadLocal<S>() {
            protected S initialValue() { return supplier.get(); }
        };
    }

    public T get() {
        Thread t = Thread.currentThread();
        synchronized (values) {
            Object v = values.get(t);
            if (v != null || values.containsKey(t)) return (T) (v == NONE ? null : v);
        }
        T init = initialValue();
        synchronized (values) {
            values.put(t, init);
        }
        return init;
    }

    public void set(T value) {
        synchronized (values) {
            values.put(Thread.currentThread(), value);
        }
    }

    public void remove() {
        synchronized (values) {
            values.remove(Thread.currentThread());
        }
    }
}
