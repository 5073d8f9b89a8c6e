package java.util.function;

public interface DoubleConsumer {
    void accept(double value);
}
