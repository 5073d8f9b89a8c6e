package java.util.stream;

import java.util.Arrays;
import java.util.IntSummaryStatistics;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.PrimitiveIterator;
import java.util.function.IntBinaryOperator;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import java.util.function.IntUnaryOperator;

/** A sequential IntStream over a PrimitiveIterator.OfInt; used once, as Pipeline. */
final class IntPipeline implements IntStream {
    private final PrimitiveIterator.OfInt source;
    private boolean linked;
    private java.util.List<Runnable> closeHandlers;

    IntPipeline(PrimitiveIterator.OfInt source) { this.source = source; }

    private PrimitiveIterator.OfInt take() {
        if (linked) throw Pipeline.used();
        linked = true;
        return source;
    }

    /** An int iterator that computes its next element ahead. */
    abstract static class Lookahead implements PrimitiveIterator.OfInt {
        private int pending;
        private boolean ready, done;

        abstract boolean advance();

        final void emit(int v) { pending = v; }

        public final boolean hasNext() {
            if (ready) return true;
            if (done) return false;
            if (advance()) ready = true;
            else done = true;
            return ready;
        }

        public final int nextInt() {
            if (!hasNext()) throw new NoSuchElementException();
            ready = false;
            return pending;
        }
    }

    public PrimitiveIterator.OfInt iterator() { return take(); }
    public boolean isParallel() { return false; }
    public IntStream sequential() { return this; }
    public IntStream parallel() { return this; }
    public IntStream unordered() { return this; }
    public IntStream onClose(Runnable closeHandler) {
        Objects.requireNonNull(closeHandler);
        if (linked) throw Pipeline.used();
        if (closeHandlers == null) closeHandlers = new java.util.ArrayList<Runnable>();
        closeHandlers.add(closeHandler);
        return this;
    }
    public void close() {
        linked = true;
        java.util.List<Runnable> hs = closeHandlers;
        closeHandlers = null;
        if (hs != null) for (Runnable r : hs) r.run();
    }

    public IntStream filter(final IntPredicate predicate) {
        Objects.requireNonNull(predicate);
        final PrimitiveIterator.OfInt it = take();
        return new IntPipeline(new Lookahead() {
            boolean advance() {
                while (it.hasNext()) {
                    int v = it.nextInt();
                    if (predicate.test(v)) {
                        emit(v);
                        return true;
                    }
                }
                return false;
            }
        });
    }

    public IntStream map(final IntUnaryOperator mapper) {
        Objects.requireNonNull(mapper);
        final PrimitiveIterator.OfInt it = take();
        return new IntPipeline(new PrimitiveIterator.OfInt() {
            public boolean hasNext() { return it.hasNext(); }
            public int nextInt() { return mapper.applyAsInt(it.nextInt()); }
        });
    }

    public <U> Stream<U> mapToObj(final IntFunction<? extends U> mapper) {
        Objects.requireNonNull(mapper);
        final PrimitiveIterator.OfInt it = take();
        return new Pipeline<U>(new Iterator<U>() {
            public boolean hasNext() { return it.hasNext(); }
            public U next() { return mapper.apply(it.nextInt()); }
        });
    }

    public Stream<Integer> boxed() {
        return mapToObj(new IntFunction<Integer>() {
            public Integer apply(int v) { return Integer.valueOf(v); }
        });
    }

    public IntStream distinct() {
        final PrimitiveIterator.OfInt it = take();
        return new IntPipeline(new Lookahead() {
            final java.util.HashSet<Integer> seen = new java.util.HashSet<Integer>();
            boolean advance() {
                while (it.hasNext()) {
                    int v = it.nextInt();
                    if (seen.add(v)) {
                        emit(v);
                        return true;
                    }
                }
                return false;
            }
        });
    }

    public IntStream sorted() {
        final PrimitiveIterator.OfInt it = take();
        return new IntPipeline(new PrimitiveIterator.OfInt() {
            int[] sorted;
            int i;
            private int[] sorted() {
                if (sorted == null) {
                    sorted = drain(it);
                    Arrays.sort(sorted);
                }
                return sorted;
            }
            public boolean hasNext() { return i < sorted().length; }
            public int nextInt() {
                if (i >= sorted().length) throw new NoSuchElementException();
                return sorted[i++];
            }
        });
    }

    public IntStream peek(final IntConsumer action) {
        Objects.requireNonNull(action);
        final PrimitiveIterator.OfInt it = take();
        return new IntPipeline(new PrimitiveIterator.OfInt() {
            public boolean hasNext() { return it.hasNext(); }
            public int nextInt() {
                int v = it.nextInt();
                action.accept(v);
                return v;
            }
        });
    }

    public IntStream limit(final long maxSize) {
        if (maxSize < 0) throw new IllegalArgumentException(Long.toString(maxSize));
        final PrimitiveIterator.OfInt it = take();
        return new IntPipeline(new PrimitiveIterator.OfInt() {
            long left = maxSize;
            public boolean hasNext() { return left > 0 && it.hasNext(); }
            public int nextInt() {
                if (left <= 0) throw new NoSuchElementException();
                left--;
                return it.nextInt();
            }
        });
    }

    public IntStream skip(final long n) {
        if (n < 0) throw new IllegalArgumentException(Long.toString(n));
        final PrimitiveIterator.OfInt it = take();
        return new IntPipeline(new PrimitiveIterator.OfInt() {
            long toSkip = n;
            private void skipAhead() {
                while (toSkip > 0 && it.hasNext()) {
                    it.nextInt();
                    toSkip--;
                }
            }
            public boolean hasNext() {
                skipAhead();
                return it.hasNext();
            }
            public int nextInt() {
                skipAhead();
                return it.nextInt();
            }
        });
    }

    public void forEach(IntConsumer action) {
        Objects.requireNonNull(action);
        PrimitiveIterator.OfInt it = take();
        while (it.hasNext()) action.accept(it.nextInt());
    }

    public void forEachOrdered(IntConsumer action) { forEach(action); }

    static int[] drain(PrimitiveIterator.OfInt it) {
        int[] out = new int[16];
        int n = 0;
        while (it.hasNext()) {
            if (n == out.length) out = Arrays.copyOf(out, n * 2);
            out[n++] = it.nextInt();
        }
        return Arrays.copyOf(out, n);
    }

    public int[] toArray() { return drain(take()); }

    public int reduce(int identity, IntBinaryOperator op) {
        int result = identity;
        PrimitiveIterator.OfInt it = take();
        while (it.hasNext()) result = op.applyAsInt(result, it.nextInt());
        return result;
    }

    public OptionalInt reduce(IntBinaryOperator op) {
        PrimitiveIterator.OfInt it = take();
        if (!it.hasNext()) return OptionalInt.empty();
        int result = it.nextInt();
        while (it.hasNext()) result = op.applyAsInt(result, it.nextInt());
        return OptionalInt.of(result);
    }

    public int sum() {
        int s = 0;
        PrimitiveIterator.OfInt it = take();
        while (it.hasNext()) s += it.nextInt();
        return s;
    }

    public OptionalInt min() {
        return reduce(new IntBinaryOperator() {
            public int applyAsInt(int a, int b) { return Math.min(a, b); }
        });
    }

    public OptionalInt max() {
        return reduce(new IntBinaryOperator() {
            public int applyAsInt(int a, int b) { return Math.max(a, b); }
        });
    }

    public long count() {
        long n = 0;
        PrimitiveIterator.OfInt it = take();
        while (it.hasNext()) {
            it.nextInt();
            n++;
        }
        return n;
    }

    public OptionalDouble average() {
        long n = 0;
        long s = 0;
        PrimitiveIterator.OfInt it = take();
        while (it.hasNext()) {
            s += it.nextInt();
            n++;
        }
        return n > 0 ? OptionalDouble.of((double) s / n) : OptionalDouble.empty();
    }

    public IntSummaryStatistics summaryStatistics() {
        IntSummaryStatistics stats = new IntSummaryStatistics();
        PrimitiveIterator.OfInt it = take();
        while (it.hasNext()) stats.accept(it.nextInt());
        return stats;
    }

    public boolean anyMatch(IntPredicate predicate) {
        PrimitiveIterator.OfInt it = take();
        while (it.hasNext()) if (predicate.test(it.nextInt())) return true;
        return false;
    }

    public boolean allMatch(IntPredicate predicate) {
        PrimitiveIterator.OfInt it = take();
        while (it.hasNext()) if (!predicate.test(it.nextInt())) return false;
        return true;
    }

    public boolean noneMatch(IntPredicate predicate) { return !anyMatch(predicate); }

    public OptionalInt findFirst() {
        PrimitiveIterator.OfInt it = take();
        return it.hasNext() ? OptionalInt.of(it.nextInt()) : OptionalInt.empty();
    }

    public OptionalInt findAny() { return findFirst(); }
}
