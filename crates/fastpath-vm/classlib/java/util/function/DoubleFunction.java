package java.util.function;

public interface DoubleFunction<R> {
    R apply(double value);
}
