package java.util.stream;

import java.util.Spliterator;
import java.util.Spliterators;

/** Streams over spliterators (sequential here whatever `parallel` asks). */
public final class StreamSupport {
    private StreamSupport() {}

    public static <T> Stream<T> stream(Spliterator<T> spliterator, boolean parallel) {
        return new Pipeline<T>(Spliterators.iterator(spliterator));
    }
}
