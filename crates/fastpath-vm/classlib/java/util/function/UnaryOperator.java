package java.util.function;

public interface UnaryOperator<T> extends Function<T, T> {
    static <T> UnaryOperator<T> identity() {
        return new UnaryOperator<T>() { public T apply(T t) { return t; } };
    }
}
