package java.util.function;

public interface ToIntFunction<T> {
    int applyAsInt(T value);
}
