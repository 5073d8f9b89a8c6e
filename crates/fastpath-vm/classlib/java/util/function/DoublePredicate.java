package java.util.function;

public interface DoublePredicate {
    boolean test(double value);
}
