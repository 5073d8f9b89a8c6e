package java.util;

import java.util.function.Consumer;

/** Spliterators over iterators and collections, and iterators over spliterators. */
public final class Spliterators {
    private Spliterators() {}

    public static <T> Spliterator<T> spliteratorUnknownSize(Iterator<? extends T> iterator, int characteristics) {
        return new IteratorSpliterator<T>(iterator, Long.MAX_VALUE, characteristics);
    }

    public static <T> Spliterator<T> spliterator(Collection<? extends T> c, int characteristics) {
        return new IteratorSpliterator<T>(c.iterator(), c.size(), characteristics | Spliterator.SIZED);
    }

    public static <T> Iterator<T> iterator(final Spliterator<? extends T> spliterator) {
        Objects.requireNonNull(spliterator);
        if (spliterator instanceof IteratorSpliterator) return ((IteratorSpliterator<T>) spliterator).it;
        return new Iterator<T>() {
            boolean ready;
            T next;
            public boolean hasNext() {
                if (!ready) {
                    spliterator.tryAdvance(new Consumer<T>() {
                        public void accept(T t) {
                            next = t;
                            ready = true;
                        }
                    });
                }
                return ready;
            }
            public T next() {
                if (!hasNext()) throw new NoSuchElementException();
                ready = false;
                T t = next;
                next = null;
                return t;
            }
        };
    }

    static final class IteratorSpliterator<T> implements Spliterator<T> {
        final Iterator<T> it;
        private final long size;
        private final int characteristics;

        IteratorSpliterator(Iterator<? extends T> it, long size, int characteristics) {
            this.it = (Iterator<T>) it;
            this.size = size;
            this.characteristics = characteristics;
        }

        public boolean tryAdvance(Consumer<? super T> action) {
            if (action == null) throw new NullPointerException();
            if (!it.hasNext()) return false;
            action.accept(it.next());
            return true;
        }

        public Spliterator<T> trySplit() { return null; }
        public long estimateSize() { return size; }
        public int characteristics() { return characteristics; }
    }
}
