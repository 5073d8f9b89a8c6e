package java.util.stream;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.BinaryOperator;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * A sequential Stream over an Iterator: each intermediate operation wraps the iterator in a
 * lazy one (so infinite sources with limit or a short-circuiting terminal work); sorted and
 * distinct buffer. A stream is used once: a second operation on it, or on a stream an
 * operation was already chained from, throws IllegalStateException as the JDK's do.
 */
final class Pipeline<T> implements Stream<T> {
    private final Iterator<T> source;
    private boolean linked;
    private List<Runnable> closeHandlers;

    Pipeline(Iterator<T> source) { this.source = source; }

    static IllegalStateException used() {
        return new IllegalStateException("stream has already been operated upon or closed");
    }

    /** The iterator, once: the stream is consumed or linked after this. */
    Iterator<T> take() {
        if (linked) throw used();
        linked = true;
        return source;
    }

    private <R> Stream<R> chain(Iterator<R> it) {
        Pipeline<R> next = new Pipeline<R>(it);
        next.closeHandlers = closeHandlers;
        return next;
    }

    /** An iterator that computes its next element ahead. */
    abstract static class Lookahead<E> implements Iterator<E> {
        private E pending;
        private boolean ready, done;

        /** Sets the next element with `emit` and returns true, or returns false at the end. */
        abstract boolean advance();

        final void emit(E e) { pending = e; }

        public final boolean hasNext() {
            if (ready) return true;
            if (done) return false;
            if (advance()) ready = true;
            else done = true;
            return ready;
        }

        public final E next() {
            if (!hasNext()) throw new NoSuchElementException();
            ready = false;
            E e = pending;
            pending = null;
            return e;
        }
    }

    public Iterator<T> iterator() { return take(); }
    public boolean isParallel() { return false; }
    public Stream<T> sequential() { return this; }
    public Stream<T> parallel() { return this; }
    public Stream<T> unordered() { return this; }
    public Stream<T> onClose(Runnable closeHandler) {
        Objects.requireNonNull(closeHandler);
        if (linked) throw used();
        if (closeHandlers == null) closeHandlers = new ArrayList<Runnable>();
        closeHandlers.add(closeHandler);
        return this;
    }
    public void close() {
        linked = true;
        List<Runnable> hs = closeHandlers;
        closeHandlers = null;
        if (hs != null) for (Runnable r : hs) r.run();
    }

    public Stream<T> filter(final Predicate<? super T> predicate) {
        Objects.requireNonNull(predicate);
        final Iterator<T> it = take();
        return chain(new Lookahead<T>() {
            boolean advance() {
                while (it.hasNext()) {
                    T t = it.next();
                    if (predicate.test(t)) {
                        emit(t);
                        return true;
                    }
                }
                return false;
            }
        });
    }

    public <R> Stream<R> map(final Function<? super T, ? extends R> mapper) {
        Objects.requireNonNull(mapper);
        final Iterator<T> it = take();
        return chain(new Iterator<R>() {
            public boolean hasNext() { return it.hasNext(); }
            public R next() { return mapper.apply(it.next()); }
        });
    }

    public IntStream mapToInt(final ToIntFunction<? super T> mapper) {
        Objects.requireNonNull(mapper);
        final Iterator<T> it = take();
        return new IntPipeline(new java.util.PrimitiveIterator.OfInt() {
            public boolean hasNext() { return it.hasNext(); }
            public int nextInt() { return mapper.applyAsInt(it.next()); }
        });
    }

    public <R> Stream<R> flatMap(final Function<? super T, ? extends Stream<? extends R>> mapper) {
        Objects.requireNonNull(mapper);
        final Iterator<T> it = take();
        return chain(new Lookahead<R>() {
            Iterator<? extends R> inner;
            Stream<? extends R> innerStream;
            boolean advance() {
                for (;;) {
                    if (inner != null && inner.hasNext()) {
                        emit(inner.next());
                        return true;
                    }
                    if (innerStream != null) {
                        innerStream.close();
                        innerStream = null;
                        inner = null;
                    }
                    if (!it.hasNext()) return false;
                    innerStream = mapper.apply(it.next());
                    if (innerStream != null) inner = innerStream.iterator();
                }
            }
        });
    }

    public Stream<T> distinct() {
        final Iterator<T> it = take();
        return chain(new Lookahead<T>() {
            final HashSet<T> seen = new HashSet<T>();
            boolean advance() {
                while (it.hasNext()) {
                    T t = it.next();
                    if (seen.add(t)) {
                        emit(t);
                        return true;
                    }
                }
                return false;
            }
        });
    }

    public Stream<T> sorted() { return sorted(null); }

    public Stream<T> sorted(final Comparator<? super T> comparator) {
        final Iterator<T> it = take();
        return chain(new Iterator<T>() {
            Iterator<T> sorted;
            private Iterator<T> sorted() {
                if (sorted == null) {
                    ArrayList<T> all = new ArrayList<T>();
                    while (it.hasNext()) all.add(it.next());
                    if (comparator == null) {
                        // Natural order: a non-Comparable element throws ClassCastException.
                        for (T t : all) if (!(t instanceof Comparable)) ((Comparable<Object>) t).compareTo(t);
                    }
                    all.sort(comparator);
                    sorted = all.iterator();
                }
                return sorted;
            }
            public boolean hasNext() { return sorted().hasNext(); }
            public T next() { return sorted().next(); }
        });
    }

    public Stream<T> peek(final Consumer<? super T> action) {
        Objects.requireNonNull(action);
        final Iterator<T> it = take();
        return chain(new Iterator<T>() {
            public boolean hasNext() { return it.hasNext(); }
            public T next() {
                T t = it.next();
                action.accept(t);
                return t;
            }
        });
    }

    public Stream<T> limit(final long maxSize) {
        if (maxSize < 0) throw new IllegalArgumentException(Long.toString(maxSize));
        final Iterator<T> it = take();
        return chain(new Iterator<T>() {
            long left = maxSize;
            public boolean hasNext() { return left > 0 && it.hasNext(); }
            public T next() {
                if (left <= 0) throw new NoSuchElementException();
                left--;
                return it.next();
            }
        });
    }

    public Stream<T> skip(final long n) {
        if (n < 0) throw new IllegalArgumentException(Long.toString(n));
        final Iterator<T> it = take();
        return chain(new Iterator<T>() {
            long toSkip = n;
            private void skipAhead() {
                while (toSkip > 0 && it.hasNext()) {
                    it.next();
                    toSkip--;
                }
            }
            public boolean hasNext() {
                skipAhead();
                return it.hasNext();
            }
            public T next() {
                skipAhead();
                return it.next();
            }
        });
    }

    public Stream<T> takeWhile(final Predicate<? super T> predicate) {
        Objects.requireNonNull(predicate);
        final Iterator<T> it = take();
        return chain(new Lookahead<T>() {
            boolean advance() {
                if (!it.hasNext()) return false;
                T t = it.next();
                if (!predicate.test(t)) return false;
                emit(t);
                return true;
            }
        });
    }

    public Stream<T> dropWhile(final Predicate<? super T> predicate) {
        Objects.requireNonNull(predicate);
        final Iterator<T> it = take();
        return chain(new Lookahead<T>() {
            boolean dropping = true;
            boolean advance() {
                while (it.hasNext()) {
                    T t = it.next();
                    if (dropping && predicate.test(t)) continue;
                    dropping = false;
                    emit(t);
                    return true;
                }
                return false;
            }
        });
    }

    public void forEach(Consumer<? super T> action) {
        Objects.requireNonNull(action);
        Iterator<T> it = take();
        while (it.hasNext()) action.accept(it.next());
    }

    public void forEachOrdered(Consumer<? super T> action) { forEach(action); }

    private ArrayList<T> drain() {
        ArrayList<T> all = new ArrayList<T>();
        Iterator<T> it = take();
        while (it.hasNext()) all.add(it.next());
        return all;
    }

    public Object[] toArray() { return drain().toArray(); }

    public <A> A[] toArray(IntFunction<A[]> generator) {
        ArrayList<T> all = drain();
        A[] out = generator.apply(all.size());
        if (out.length != all.size()) {
            throw new IllegalStateException("Begin size " + all.size() + " is not equal to fixed size " + out.length);
        }
        System.arraycopy(all.toArray(), 0, out, 0, out.length);
        return out;
    }

    public T reduce(T identity, BinaryOperator<T> accumulator) {
        T result = identity;
        Iterator<T> it = take();
        while (it.hasNext()) result = accumulator.apply(result, it.next());
        return result;
    }

    public Optional<T> reduce(BinaryOperator<T> accumulator) {
        Objects.requireNonNull(accumulator);
        Iterator<T> it = take();
        if (!it.hasNext()) return Optional.empty();
        T result = it.next();
        while (it.hasNext()) result = accumulator.apply(result, it.next());
        return Optional.of(result);
    }

    public <U> U reduce(U identity, BiFunction<U, ? super T, U> accumulator, BinaryOperator<U> combiner) {
        Objects.requireNonNull(accumulator);
        Objects.requireNonNull(combiner);
        U result = identity;
        Iterator<T> it = take();
        while (it.hasNext()) result = accumulator.apply(result, it.next());
        return result;
    }

    public <R> R collect(Supplier<R> supplier, BiConsumer<R, ? super T> accumulator, BiConsumer<R, R> combiner) {
        Objects.requireNonNull(combiner);
        R container = supplier.get();
        Iterator<T> it = take();
        while (it.hasNext()) accumulator.accept(container, it.next());
        return container;
    }

    public <R, A> R collect(Collector<? super T, A, R> collector) {
        A container = collector.supplier().get();
        BiConsumer<A, ? super T> acc = collector.accumulator();
        Iterator<T> it = take();
        while (it.hasNext()) ((BiConsumer<A, T>) acc).accept(container, it.next());
        return collector.characteristics().contains(Collector.Characteristics.IDENTITY_FINISH)
            ? (R) container
            : collector.finisher().apply(container);
    }

    public List<T> toList() { return Collections.unmodifiableList(drain()); }

    public Optional<T> min(final Comparator<? super T> comparator) {
        Objects.requireNonNull(comparator);
        return reduce(new BinaryOperator<T>() {
            public T apply(T a, T b) { return comparator.compare(a, b) <= 0 ? a : b; }
        });
    }

    public Optional<T> max(final Comparator<? super T> comparator) {
        Objects.requireNonNull(comparator);
        return reduce(new BinaryOperator<T>() {
            public T apply(T a, T b) { return comparator.compare(a, b) >= 0 ? a : b; }
        });
    }

    public long count() {
        long n = 0;
        Iterator<T> it = take();
        while (it.hasNext()) {
            it.next();
            n++;
        }
        return n;
    }

    public boolean anyMatch(Predicate<? super T> predicate) {
        Iterator<T> it = take();
        while (it.hasNext()) if (predicate.test(it.next())) return true;
        return false;
    }

    public boolean allMatch(Predicate<? super T> predicate) {
        Iterator<T> it = take();
        while (it.hasNext()) if (!predicate.test(it.next())) return false;
        return true;
    }

    public boolean noneMatch(Predicate<? super T> predicate) { return !anyMatch(predicate); }

    public Optional<T> findFirst() {
        Iterator<T> it = take();
        return it.hasNext() ? Optional.of(it.next()) : Optional.<T>empty();
    }

    public Optional<T> findAny() { return findFirst(); }
}
