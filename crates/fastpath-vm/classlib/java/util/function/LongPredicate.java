package java.util.function;

public interface LongPredicate {
    boolean test(long value);
}
