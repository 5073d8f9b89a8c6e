package java.lang;

import java.util.IdentityHashMap;
import java.util.function.Supplier;

/**
 * Per-thread values: each thread keeps its own map from ThreadLocal to value
 * (Thread.threadLocals), which only that thread reads and writes, so no lock is needed and a
 * thread's values go with the thread.
 */
public class ThreadLocal<T> {
    public ThreadLocal() {}

    protected T initialValue() { return null; }

    public static <S> ThreadLocal<S> withInitial(final Supplier<? extends S> supplier) {
        if (supplier == null) throw new NullPointerException();
        return new ThreadLocal<S>() {
            protected S initialValue() { return supplier.get(); }
        };
    }

    private static IdentityHashMap<ThreadLocal<?>, Object> mapOf(Thread t, boolean create) {
        IdentityHashMap<ThreadLocal<?>, Object> map = t.threadLocals;
        if (map == null && create) map = t.threadLocals = new IdentityHashMap<ThreadLocal<?>, Object>();
        return map;
    }

    public T get() {
        Thread t = Thread.currentThread();
        IdentityHashMap<ThreadLocal<?>, Object> map = mapOf(t, false);
        if (map != null) {
            Object v = map.get(this);
            if (v != null || map.containsKey(this)) return (T) v;
        }
        T init = initialValue();
        mapOf(t, true).put(this, init);
        return init;
    }

    public void set(T value) { mapOf(Thread.currentThread(), true).put(this, value); }

    public void remove() {
        IdentityHashMap<ThreadLocal<?>, Object> map = mapOf(Thread.currentThread(), false);
        if (map != null) map.remove(this);
    }
}
