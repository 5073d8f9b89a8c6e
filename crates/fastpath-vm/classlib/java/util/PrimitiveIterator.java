package java.util;

import java.util.function.Consumer;
import java.util.function.IntConsumer;

public interface PrimitiveIterator<T, T_CONS> extends Iterator<T> {
    void forEachRemaining(T_CONS action);

    /** An iterator of ints; next() boxes. */
    public static interface OfInt extends PrimitiveIterator<Integer, IntConsumer> {
        int nextInt();

        default Integer next() { return nextInt(); }

        default void forEachRemaining(IntConsumer action) {
            Objects.requireNonNull(action);
            while (hasNext()) action.accept(nextInt());
        }
    }
}
