package java.util.function;

public interface IntConsumer {
    void accept(int value);
}
