package java.util.function;

public interface LongConsumer {
    void accept(long value);
}
