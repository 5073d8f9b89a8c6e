package java.util.concurrent;

/** A task that returns a result and may throw. */
public interface Callable<V> {
    V call() throws Exception;
}
