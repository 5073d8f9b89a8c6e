// tags: collections lambda
// release: 17
// Sequential streams: Collection.stream, Stream.of, Arrays.stream, IntStream ranges; filter,
// map, flatMap, distinct, sorted, limit/skip on infinite iterate/generate, takeWhile/dropWhile,
// peek laziness; reduce, count, min/max, matches, findFirst; collect with toList, toSet,
// toMap (and its duplicate-key message), joining, groupingBy (with counting, mapping, a
// TreeMap), partitioningBy, summing/averaging, collectingAndThen; IntStream sum/average/
// summaryStatistics/boxed; Stream.toList; reuse of a consumed stream.
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

public class Streams17 {
    record City(String name, String country, int people) {}

    public static void main(String[] args) {
        List<String> words = List.of("delta", "alpha", "charlie", "bravo", "echo", "alpha", "foxtrot", "golf", "hotel");
        System.out.println(words.stream().filter(w -> w.length() > 4).map(String::toUpperCase).collect(Collectors.toList()));
        System.out.println(words.stream().distinct().sorted().toList());
        System.out.println(words.stream().sorted(Comparator.comparing(String::length).thenComparing(Comparator.reverseOrder()))
            .collect(Collectors.joining(", ", "<", ">")));
        System.out.println(words.stream().map(String::length).reduce(0, Integer::sum) + " " + words.stream().count() + " "
            + words.stream().min(Comparator.naturalOrder()).get() + " " + words.stream().max(Comparator.naturalOrder()).get()
            + " " + words.stream().anyMatch(w -> w.startsWith("g")) + " " + words.stream().allMatch(w -> w.length() > 3)
            + " " + words.stream().noneMatch(String::isEmpty) + " " + words.stream().filter(w -> w.contains("o")).findFirst()
            + " " + words.stream().filter(w -> w.contains("z")).findFirst());
        System.out.println(new TreeSet<>(words.stream().collect(Collectors.toSet())) + " "
            + words.stream().collect(Collectors.groupingBy(String::length)) + " "
            + words.stream().collect(Collectors.groupingBy(w -> w.charAt(0), TreeMap::new, Collectors.counting())));
        System.out.println(words.stream().collect(Collectors.partitioningBy(w -> w.length() % 2 == 0)) + " "
            + words.stream().collect(Collectors.partitioningBy(w -> w.length() > 4, Collectors.mapping(w -> w.charAt(0),
                Collectors.toList()))));
        System.out.println(Stream.of("x", "yy", "zzz").collect(Collectors.toMap(s -> s, String::length)) + " "
            + words.stream().collect(Collectors.toMap(String::length, w -> w, (a, b) -> a + "|" + b, TreeMap::new)));
        try {
            words.stream().collect(Collectors.toMap(w -> w, String::length));
        } catch (IllegalStateException e) {
            System.out.println("toMap: " + e.getMessage());
        }

        // Infinite sources need limit or a short-circuit; peek shows what was pulled.
        List<Integer> pulled = new ArrayList<>();
        System.out.println(Stream.iterate(1, x -> x * 3).peek(pulled::add).filter(x -> x > 100).findFirst().get() + " pulled "
            + pulled);
        System.out.println(Stream.iterate(1, x -> x < 50, x -> x * 2).toList() + " " + Stream.generate(() -> "ab").limit(3)
            .collect(Collectors.joining()) + " " + Stream.iterate(0, x -> x + 1).skip(5).limit(4).toList());
        System.out.println(Stream.of(1, 2, 3, 10, 4, 5).takeWhile(x -> x < 5).toList() + " "
            + Stream.of(1, 2, 3, 10, 4, 5).dropWhile(x -> x < 5).toList());
        System.out.println(Stream.of(List.of(1, 2), List.<Integer>of(), List.of(3, 4, 5)).flatMap(List::stream).map(x -> x * x).toList()
            + " " + Stream.concat(Stream.of("a"), Stream.of("b", "c")).toList() + " " + Arrays.stream(new String[] {"p", "q"})
            .map(s -> s + s).toList());

        // IntStream.
        System.out.println(IntStream.range(0, 10).sum() + " " + IntStream.rangeClosed(1, 5).map(x -> x * x).boxed().toList()
            + " " + IntStream.of(3, 1, 4, 1, 5, 9, 2, 6).sorted().distinct().mapToObj(Integer::toString)
            .collect(Collectors.joining("")) + " " + IntStream.range(0, 0).average() + " " + IntStream.of(1, 2).average()
            + " " + IntStream.of(7, 3, 9).max() + " " + IntStream.empty().min());
        System.out.println(IntStream.rangeClosed(1, 6).summaryStatistics() + " "
            + Arrays.toString(IntStream.iterate(1, x -> x * 2).limit(8).toArray()) + " "
            + words.stream().mapToInt(String::length).filter(n -> n > 4).count());

        List<City> cities = List.of(new City("Lyon", "FR", 522), new City("Paris", "FR", 2133), new City("Bonn", "DE", 331),
            new City("Berlin", "DE", 3645), new City("Turin", "IT", 848));
        Map<String, Integer> byCountry = cities.stream().collect(Collectors.groupingBy(City::country, TreeMap::new,
            Collectors.summingInt(City::people)));
        Map<String, Double> avg = cities.stream().collect(Collectors.groupingBy(City::country, TreeMap::new,
            Collectors.averagingInt(City::people)));
        Map<String, List<String>> names = cities.stream().collect(Collectors.groupingBy(City::country, TreeMap::new,
            Collectors.mapping(City::name, Collectors.toList())));
        System.out.println(byCountry + " " + avg + " " + names);
        Set<String> big = cities.stream().filter(c -> c.people() > 800).map(City::name)
            .collect(Collectors.collectingAndThen(Collectors.toCollection(TreeSet::new), s -> s));
        System.out.println(big + " " + cities.stream().max(Comparator.comparingInt(City::people)).map(City::name).orElse("?")
            + " " + cities.stream().collect(Collectors.maxBy(Comparator.comparingInt(City::people))).get().name());

        Stream<String> once = words.stream();
        once.count();
        try {
            once.count();
        } catch (IllegalStateException e) {
            System.out.println("reuse: " + e.getMessage());
        }
        try {
            words.stream().toList().add("x");
        } catch (UnsupportedOperationException e) {
            System.out.println("toList is unmodifiable");
        }
        String[] arr = words.stream().filter(w -> w.length() == 5).toArray(String[]::new);
        System.out.println(arr.length + " " + String.join("/", arr) + " " + Arrays.toString(Stream.of(1, 2).toArray()));
    }
}
