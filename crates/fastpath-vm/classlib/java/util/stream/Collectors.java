package java.util.stream;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.BinaryOperator;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/** The common collectors, with the JDK's result types (HashMap, ArrayList, HashSet, ...). */
public final class Collectors {
    private Collectors() {}

    static final class Impl<T, A, R> implements Collector<T, A, R> {
        private final Supplier<A> supplier;
        private final BiConsumer<A, T> accumulator;
        private final BinaryOperator<A> combiner;
        private final Function<A, R> finisher;
        private final Set<Characteristics> characteristics;

        Impl(Supplier<A> supplier, BiConsumer<A, T> accumulator, BinaryOperator<A> combiner, Function<A, R> finisher,
                Characteristics... characteristics) {
            this.supplier = Objects.requireNonNull(supplier);
            this.accumulator = Objects.requireNonNull(accumulator);
            this.combiner = Objects.requireNonNull(combiner);
            this.finisher = Objects.requireNonNull(finisher);
            this.characteristics = Collections.unmodifiableSet(new HashSet<Characteristics>(Arrays.asList(characteristics)));
        }

        public Supplier<A> supplier() { return supplier; }
        public BiConsumer<A, T> accumulator() { return accumulator; }
        public BinaryOperator<A> combiner() { return combiner; }
        public Function<A, R> finisher() { return finisher; }
        public Set<Characteristics> characteristics() { return characteristics; }
    }

    static <A> Function<A, A> identity() {
        return new Function<A, A>() {
            public A apply(A a) { return a; }
        };
    }

    private static <A> BinaryOperator<A> noCombiner() {
        return new BinaryOperator<A>() {
            public A apply(A a, A b) { throw new UnsupportedOperationException("sequential streams do not combine"); }
        };
    }

    /** Runs `c` over `items` (a downstream collector inside another). */
    private static <T, A, R> R finish(Collector<? super T, A, R> c, A container) {
        return c.characteristics().contains(Collector.Characteristics.IDENTITY_FINISH) ? (R) container : c.finisher().apply(container);
    }

    public static <T, C extends Collection<T>> Collector<T, ?, C> toCollection(Supplier<C> collectionFactory) {
        return new Impl<T, C, C>(collectionFactory, new BiConsumer<C, T>() {
            public void accept(C c, T t) { c.add(t); }
        }, Collectors.<C>noCombiner(), Collectors.<C>identity(), Collector.Characteristics.IDENTITY_FINISH);
    }

    public static <T> Collector<T, ?, List<T>> toList() {
        return toCollection(new Supplier<List<T>>() {
            public List<T> get() { return new ArrayList<T>(); }
        });
    }

    public static <T> Collector<T, ?, List<T>> toUnmodifiableList() {
        return collectingAndThen(Collectors.<T>toList(), new Function<List<T>, List<T>>() {
            public List<T> apply(List<T> l) {
                for (T t : l) Objects.requireNonNull(t);
                return Collections.unmodifiableList(l);
            }
        });
    }

    public static <T> Collector<T, ?, Set<T>> toSet() {
        return toCollection(new Supplier<Set<T>>() {
            public Set<T> get() { return new HashSet<T>(); }
        });
    }

    public static <T, A, R, RR> Collector<T, A, RR> collectingAndThen(Collector<T, A, R> downstream, final Function<R, RR> finisher) {
        final Collector<T, A, R> d = downstream;
        return new Impl<T, A, RR>(d.supplier(), d.accumulator(), d.combiner(), new Function<A, RR>() {
            public RR apply(A a) { return finisher.apply(finish(d, a)); }
        });
    }

    public static Collector<CharSequence, ?, String> joining() { return joining("", "", ""); }

    public static Collector<CharSequence, ?, String> joining(CharSequence delimiter) { return joining(delimiter, "", ""); }

    public static Collector<CharSequence, ?, String> joining(final CharSequence delimiter, final CharSequence prefix,
            final CharSequence suffix) {
        return new Impl<CharSequence, StringJoiner, String>(new Supplier<StringJoiner>() {
            public StringJoiner get() { return new StringJoiner(delimiter, prefix, suffix); }
        }, new BiConsumer<StringJoiner, CharSequence>() {
            public void accept(StringJoiner j, CharSequence s) { j.add(s); }
        }, Collectors.<StringJoiner>noCombiner(), new Function<StringJoiner, String>() {
            public String apply(StringJoiner j) { return j.toString(); }
        });
    }

    public static <T, U, A, R> Collector<T, ?, R> mapping(final Function<? super T, ? extends U> mapper,
            Collector<? super U, A, R> downstream) {
        final Collector<? super U, A, R> d = downstream;
        final BiConsumer<A, ? super U> acc = d.accumulator();
        return new Impl<T, A, R>(d.supplier(), new BiConsumer<A, T>() {
            public void accept(A a, T t) { ((BiConsumer<A, U>) acc).accept(a, mapper.apply(t)); }
        }, d.combiner(), d.finisher(), d.characteristics().toArray(new Collector.Characteristics[0]));
    }

    public static <T, A, R> Collector<T, ?, R> filtering(final Predicate<? super T> predicate, Collector<? super T, A, R> downstream) {
        final Collector<? super T, A, R> d = downstream;
        final BiConsumer<A, ? super T> acc = d.accumulator();
        return new Impl<T, A, R>(d.supplier(), new BiConsumer<A, T>() {
            public void accept(A a, T t) { if (predicate.test(t)) ((BiConsumer<A, T>) acc).accept(a, t); }
        }, d.combiner(), d.finisher(), d.characteristics().toArray(new Collector.Characteristics[0]));
    }

    public static <T> Collector<T, ?, Long> counting() {
        return new Impl<T, long[], Long>(new Supplier<long[]>() {
            public long[] get() { return new long[1]; }
        }, new BiConsumer<long[], T>() {
            public void accept(long[] a, T t) { a[0]++; }
        }, Collectors.<long[]>noCombiner(), new Function<long[], Long>() {
            public Long apply(long[] a) { return a[0]; }
        });
    }

    public static <T> Collector<T, ?, Integer> summingInt(final ToIntFunction<? super T> mapper) {
        return new Impl<T, int[], Integer>(new Supplier<int[]>() {
            public int[] get() { return new int[1]; }
        }, new BiConsumer<int[], T>() {
            public void accept(int[] a, T t) { a[0] += mapper.applyAsInt(t); }
        }, Collectors.<int[]>noCombiner(), new Function<int[], Integer>() {
            public Integer apply(int[] a) { return a[0]; }
        });
    }

    public static <T> Collector<T, ?, Double> averagingInt(final ToIntFunction<? super T> mapper) {
        return new Impl<T, long[], Double>(new Supplier<long[]>() {
            public long[] get() { return new long[2]; }
        }, new BiConsumer<long[], T>() {
            public void accept(long[] a, T t) {
                a[0] += mapper.applyAsInt(t);
                a[1]++;
            }
        }, Collectors.<long[]>noCombiner(), new Function<long[], Double>() {
            public Double apply(long[] a) { return (a[1] == 0) ? 0.0d : (double) a[0] / a[1]; }
        });
    }

    public static <T> Collector<T, ?, Optional<T>> minBy(final Comparator<? super T> comparator) {
        return reducing(new BinaryOperator<T>() {
            public T apply(T a, T b) { return comparator.compare(a, b) <= 0 ? a : b; }
        });
    }

    public static <T> Collector<T, ?, Optional<T>> maxBy(final Comparator<? super T> comparator) {
        return reducing(new BinaryOperator<T>() {
            public T apply(T a, T b) { return comparator.compare(a, b) >= 0 ? a : b; }
        });
    }

    public static <T> Collector<T, ?, T> reducing(final T identity, final BinaryOperator<T> op) {
        return new Impl<T, Object[], T>(new Supplier<Object[]>() {
            public Object[] get() { return new Object[] {identity}; }
        }, new BiConsumer<Object[], T>() {
            public void accept(Object[] a, T t) { a[0] = op.apply((T) a[0], t); }
        }, Collectors.<Object[]>noCombiner(), new Function<Object[], T>() {
            public T apply(Object[] a) { return (T) a[0]; }
        });
    }

    public static <T> Collector<T, ?, Optional<T>> reducing(final BinaryOperator<T> op) {
        return new Impl<T, Object[], Optional<T>>(new Supplier<Object[]>() {
            public Object[] get() { return new Object[2]; }
        }, new BiConsumer<Object[], T>() {
            public void accept(Object[] a, T t) {
                if (a[1] == null) {
                    a[0] = t;
                    a[1] = Boolean.TRUE;
                } else {
                    a[0] = op.apply((T) a[0], t);
                }
            }
        }, Collectors.<Object[]>noCombiner(), new Function<Object[], Optional<T>>() {
            public Optional<T> apply(Object[] a) { return a[1] == null ? Optional.<T>empty() : Optional.of((T) a[0]); }
        });
    }

    public static <T, K> Collector<T, ?, Map<K, List<T>>> groupingBy(Function<? super T, ? extends K> classifier) {
        return groupingBy(classifier, Collectors.<T>toList());
    }

    public static <T, K, A, D> Collector<T, ?, Map<K, D>> groupingBy(Function<? super T, ? extends K> classifier,
            Collector<? super T, A, D> downstream) {
        return groupingBy(classifier, new Supplier<Map<K, D>>() {
            public Map<K, D> get() { return new HashMap<K, D>(); }
        }, downstream);
    }

    public static <T, K, D, A, M extends Map<K, D>> Collector<T, ?, M> groupingBy(final Function<? super T, ? extends K> classifier,
            final Supplier<M> mapFactory, final Collector<? super T, A, D> downstream) {
        final Supplier<A> newContainer = downstream.supplier();
        final BiConsumer<A, ? super T> acc = downstream.accumulator();
        return new Impl<T, Map<K, A>, M>((Supplier<Map<K, A>>) (Supplier<?>) mapFactory, new BiConsumer<Map<K, A>, T>() {
            public void accept(Map<K, A> m, T t) {
                K key = Objects.requireNonNull(classifier.apply(t), "element cannot be mapped to a null key");
                A container = m.get(key);
                if (container == null) {
                    container = newContainer.get();
                    m.put(key, container);
                }
                ((BiConsumer<A, T>) acc).accept(container, t);
            }
        }, Collectors.<Map<K, A>>noCombiner(), new Function<Map<K, A>, M>() {
            public M apply(Map<K, A> m) {
                for (Map.Entry<K, A> e : m.entrySet()) {
                    ((Map.Entry<K, Object>) (Map.Entry<K, ?>) e).setValue(finish(downstream, e.getValue()));
                }
                return (M) m;
            }
        });
    }

    public static <T> Collector<T, ?, Map<Boolean, List<T>>> partitioningBy(Predicate<? super T> predicate) {
        return partitioningBy(predicate, Collectors.<T>toList());
    }

    public static <T, D, A> Collector<T, ?, Map<Boolean, D>> partitioningBy(final Predicate<? super T> predicate,
            final Collector<? super T, A, D> downstream) {
        final Supplier<A> newContainer = downstream.supplier();
        final BiConsumer<A, ? super T> acc = downstream.accumulator();
        return new Impl<T, Object[], Map<Boolean, D>>(new Supplier<Object[]>() {
            public Object[] get() { return new Object[] {newContainer.get(), newContainer.get()}; }
        }, new BiConsumer<Object[], T>() {
            public void accept(Object[] parts, T t) { ((BiConsumer<A, T>) acc).accept((A) parts[predicate.test(t) ? 1 : 0], t); }
        }, Collectors.<Object[]>noCombiner(), new Function<Object[], Map<Boolean, D>>() {
            public Map<Boolean, D> apply(Object[] parts) {
                // {false=..., true=...}, the JDK's order.
                TreeMap<Boolean, D> m = new TreeMap<Boolean, D>();
                m.put(false, finish(downstream, (A) parts[0]));
                m.put(true, finish(downstream, (A) parts[1]));
                return m;
            }
        });
    }

    public static <T, K, U> Collector<T, ?, Map<K, U>> toMap(final Function<? super T, ? extends K> keyMapper,
            final Function<? super T, ? extends U> valueMapper) {
        return new Impl<T, Map<K, U>, Map<K, U>>(new Supplier<Map<K, U>>() {
            public Map<K, U> get() { return new HashMap<K, U>(); }
        }, new BiConsumer<Map<K, U>, T>() {
            public void accept(Map<K, U> m, T t) {
                K k = keyMapper.apply(t);
                U v = Objects.requireNonNull(valueMapper.apply(t));
                U u = m.putIfAbsent(k, v);
                if (u != null) {
                    throw new IllegalStateException(String.format("Duplicate key %s (attempted merging values %s and %s)", k, u, v));
                }
            }
        }, Collectors.<Map<K, U>>noCombiner(), Collectors.<Map<K, U>>identity(), Collector.Characteristics.IDENTITY_FINISH);
    }

    public static <T, K, U> Collector<T, ?, Map<K, U>> toMap(Function<? super T, ? extends K> keyMapper,
            Function<? super T, ? extends U> valueMapper, BinaryOperator<U> mergeFunction) {
        return toMap(keyMapper, valueMapper, mergeFunction, new Supplier<Map<K, U>>() {
            public Map<K, U> get() { return new HashMap<K, U>(); }
        });
    }

    public static <T, K, U, M extends Map<K, U>> Collector<T, ?, M> toMap(final Function<? super T, ? extends K> keyMapper,
            final Function<? super T, ? extends U> valueMapper, final BinaryOperator<U> mergeFunction, Supplier<M> mapFactory) {
        return new Impl<T, M, M>(mapFactory, new BiConsumer<M, T>() {
            public void accept(M m, T t) { m.merge(keyMapper.apply(t), valueMapper.apply(t), mergeFunction); }
        }, Collectors.<M>noCombiner(), Collectors.<M>identity(), Collector.Characteristics.IDENTITY_FINISH);
    }
}
