package java.util.function;

public interface LongUnaryOperator {
    long applyAsLong(long operand);
}
