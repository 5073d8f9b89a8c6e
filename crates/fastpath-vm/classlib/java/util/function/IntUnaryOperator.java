package java.util.function;

public interface IntUnaryOperator {
    int applyAsInt(int operand);
}
