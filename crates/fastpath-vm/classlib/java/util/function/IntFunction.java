package java.util.function;

public interface IntFunction<R> {
    R apply(int value);
}
