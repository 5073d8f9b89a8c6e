package java.util;

/** List.of, Set.of, Map.of: unmodifiable, null-hostile; sets and maps iterate in insertion order here (OpenJDK's order is salted per run, so no program can rely on it). */
final class ImmutableCollections {
    private ImmutableCollections() {}

    static <E> List<E> listOf(E... elements) {
        ArrayList<E> l = new ArrayList<E>(elements.length);
        for (E e : elements) l.add(Objects.requireNonNull(e));
        return new ImmutableList<E>(l);
    }

    static final class ImmutableList<E> extends Collections.UnmodifiableList<E> implements RandomAccess {
        ImmutableList(List<E> l) { super(l); }
        public boolean contains(Object o) { return super.contains(Objects.requireNonNull(o)); }
        public int indexOf(Object o) { return super.indexOf(Objects.requireNonNull(o)); }
    }

    static <E> Set<E> setOf(E... elements) {
        LinkedHashSet<E> s = new LinkedHashSet<E>();
        for (E e : elements) {
            if (!s.add(Objects.requireNonNull(e))) throw new IllegalArgumentException("duplicate element: " + e);
        }
        return new Collections.UnmodifiableSet<E>(s);
    }

    static <K, V> Map<K, V> mapOf(Object... kvs) {
        LinkedHashMap<K, V> m = new LinkedHashMap<K, V>();
        for (int i = 0; i < kvs.length; i += 2) {
            K k = (K) Objects.requireNonNull(kvs[i]);
            V v = (V) Objects.requireNonNull(kvs[i + 1]);
            if (m.put(k, v) != null) throw new IllegalArgumentException("duplicate key: " + k);
        }
        return new Collections.UnmodifiableMap<K, V>(m);
    }
}
