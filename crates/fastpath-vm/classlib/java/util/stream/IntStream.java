package java.util.stream;

import java.util.IntSummaryStatistics;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.PrimitiveIterator;
import java.util.function.IntBinaryOperator;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import java.util.function.IntUnaryOperator;

/** A sequential stream of ints. */
public interface IntStream extends BaseStream<Integer, IntStream> {
    IntStream filter(IntPredicate predicate);
    IntStream map(IntUnaryOperator mapper);
    <U> Stream<U> mapToObj(IntFunction<? extends U> mapper);
    Stream<Integer> boxed();
    IntStream distinct();
    IntStream sorted();
    IntStream peek(IntConsumer action);
    IntStream limit(long maxSize);
    IntStream skip(long n);
    void forEach(IntConsumer action);
    void forEachOrdered(IntConsumer action);
    int[] toArray();
    int reduce(int identity, IntBinaryOperator op);
    OptionalInt reduce(IntBinaryOperator op);
    int sum();
    OptionalInt min();
    OptionalInt max();
    long count();
    OptionalDouble average();
    IntSummaryStatistics summaryStatistics();
    boolean anyMatch(IntPredicate predicate);
    boolean allMatch(IntPredicate predicate);
    boolean noneMatch(IntPredicate predicate);
    OptionalInt findFirst();
    OptionalInt findAny();
    PrimitiveIterator.OfInt iterator();

    static IntStream empty() { return of(new int[0]); }

    static IntStream of(int t) { return of(new int[] {t}); }

    static IntStream of(final int... values) {
        return new IntPipeline(new PrimitiveIterator.OfInt() {
            int i = 0;
            public boolean hasNext() { return i < values.length; }
            public int nextInt() {
                if (i >= values.length) throw new java.util.NoSuchElementException();
                return values[i++];
            }
        });
    }

    static IntStream range(int startInclusive, int endExclusive) {
        if (startInclusive >= endExclusive) return empty();
        return rangeClosed(startInclusive, endExclusive - 1);
    }

    static IntStream rangeClosed(final int startInclusive, final int endInclusive) {
        return new IntPipeline(new PrimitiveIterator.OfInt() {
            long next = startInclusive;
            public boolean hasNext() { return next <= endInclusive; }
            public int nextInt() {
                if (next > endInclusive) throw new java.util.NoSuchElementException();
                return (int) next++;
            }
        });
    }

    static IntStream iterate(final int seed, final IntUnaryOperator f) {
        return new IntPipeline(new PrimitiveIterator.OfInt() {
            int t;
            boolean started;
            public boolean hasNext() { return true; }
            public int nextInt() {
                t = started ? f.applyAsInt(t) : seed;
                started = true;
                return t;
            }
        });
    }
}
