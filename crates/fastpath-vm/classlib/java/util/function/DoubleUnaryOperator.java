package java.util.function;

public interface DoubleUnaryOperator {
    double applyAsDouble(double operand);
}
