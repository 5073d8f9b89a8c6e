package java.util.function;

public interface IntBinaryOperator {
    int applyAsInt(int left, int right);
}
