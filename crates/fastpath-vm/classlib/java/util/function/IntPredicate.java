package java.util.function;

public interface IntPredicate {
    boolean test(int value);
    default IntPredicate negate() {
        final IntPredicate self = this;
        return new IntPredicate() { public boolean test(int v) { return !self.test(v); } };
    }
}
