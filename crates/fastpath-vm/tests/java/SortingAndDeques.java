// tags: collections lambda
// release: 10
// Sorting and ordering: Collections.sort (stable), List.sort, Comparator.comparing /
// comparingInt / thenComparing / reversed / naturalOrder / reverseOrder / nullsFirst /
// nullsLast, Arrays.sort of every primitive array (double order puts -0.0 before 0.0 and NaN
// last) and of objects with a comparator, Arrays.fill/copyOf/copyOfRange/setAll/asList/
// toString, Collections.unmodifiable* views, and ArrayDeque as stack, queue and ring buffer.
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

public class SortingAndDeques {
    static final class Person {
        final String name;
        final int age;
        final String city;

        Person(String name, int age, String city) {
            this.name = name;
            this.age = age;
            this.city = city;
        }

        String name() {
            return name;
        }

        int age() {
            return age;
        }

        String city() {
            return city;
        }

        @Override
        public String toString() {
            return name + "(" + age + "," + city + ")";
        }
    }

    public static void main(String[] args) {
        var people = new ArrayList<Person>();
        String[][] raw = {
            {"ann", "31", "oslo"}, {"bob", "25", "rome"}, {"cy", "31", "lima"}, {"dee", "25", "oslo"},
            {"eve", "40", "rome"}, {"fay", "31", "oslo"}, {"gus", "25", "lima"}, {"hal", "40", "oslo"}
        };
        for (String[] r : raw) {
            people.add(new Person(r[0], Integer.parseInt(r[1]), r[2]));
        }
        Collections.sort(people, Comparator.comparingInt(Person::age));
        System.out.println("by age (stable) " + people);
        people.sort(Comparator.comparing(Person::city).thenComparing(Person::age, Comparator.reverseOrder())
            .thenComparing(Person::name));
        System.out.println("by city, age desc, name " + people);
        people.sort(Comparator.comparing(Person::name).reversed());
        System.out.println("by name reversed " + people);
        people.sort(Comparator.comparing(Person::age).thenComparing(Comparator.comparing(Person::city).reversed()));
        System.out.println("by age, city reversed " + people);

        var words = new ArrayList<>(Arrays.asList("pear", null, "fig", "apple", null, "kiwi"));
        words.sort(Comparator.nullsFirst(Comparator.naturalOrder()));
        System.out.println(words);
        words.sort(Comparator.nullsLast(Comparator.comparing(String::length).thenComparing(Comparator.reverseOrder())));
        System.out.println(words);

        int[] ints = {5, -3, 9, 0, Integer.MIN_VALUE, 7, Integer.MAX_VALUE, -3, 2};
        long[] longs = {5L, -1L << 40, 0, 1L << 40, -7};
        double[] doubles = {3.5, -0.0, Double.NaN, 0.0, Double.NEGATIVE_INFINITY, -2.5, Double.POSITIVE_INFINITY, 0.0};
        char[] chars = "sorting".toCharArray();
        byte[] bytes = {5, -128, 127, 0, -1};
        short[] shorts = {300, -300, 0};
        float[] floats = {1.5f, Float.NaN, -0.0f, 0.0f, -1.5f};
        Arrays.sort(ints);
        Arrays.sort(longs);
        Arrays.sort(doubles);
        Arrays.sort(chars);
        Arrays.sort(bytes);
        Arrays.sort(shorts);
        Arrays.sort(floats);
        System.out.println(Arrays.toString(ints) + " " + Arrays.toString(longs));
        System.out.println(Arrays.toString(doubles) + " " + Arrays.toString(floats));
        System.out.println(Arrays.toString(chars) + " " + Arrays.toString(bytes) + " " + Arrays.toString(shorts));
        String[] names = {"delta", "Alpha", "charlie", "bravo", "Echo"};
        Arrays.sort(names);
        System.out.println(Arrays.toString(names));
        Arrays.sort(names, Comparator.comparing(String::length).thenComparing(Comparator.naturalOrder()));
        System.out.println(Arrays.toString(names));
        Integer[] boxed = {3, 1, 2};
        Arrays.sort(boxed, Collections.reverseOrder());
        System.out.println(Arrays.toString(boxed));

        long seed = 42;
        int[] large = new int[20000];
        for (int i = 0; i < large.length; i++) {
            seed = seed * 25214903917L + 11 & ((1L << 48) - 1);
            large[i] = (int) (seed >>> 16);
        }
        int[] copy = Arrays.copyOf(large, large.length);
        Arrays.sort(large);
        boolean sorted = true;
        for (int i = 1; i < large.length; i++) {
            sorted &= large[i - 1] <= large[i];
        }
        long weighted = 0;
        for (int i = 0; i < large.length; i += 97) {
            weighted += (long) large[i] * i;
        }
        System.out.println("large sorted " + sorted + " " + weighted + " original untouched " + (copy[0] != large[0]));
        var stableCheck = new ArrayList<int[]>();
        for (int i = 0; i < 1000; i++) {
            stableCheck.add(new int[] {(i * 7) % 10, i});
        }
        stableCheck.sort(Comparator.comparingInt(p -> p[0]));
        boolean stable = true;
        for (int i = 1; i < stableCheck.size(); i++) {
            int[] a = stableCheck.get(i - 1);
            int[] b = stableCheck.get(i);
            stable &= a[0] < b[0] || (a[0] == b[0] && a[1] < b[1]);
        }
        System.out.println("stable " + stable);

        int[] filled = new int[6];
        Arrays.fill(filled, 7);
        Arrays.fill(filled, 1, 3, -1);
        double[] squares = new double[5];
        Arrays.setAll(squares, i -> i * i * 0.5);
        String[] labels = new String[4];
        Arrays.setAll(labels, i -> "L" + i);
        System.out.println(Arrays.toString(filled) + " " + Arrays.toString(squares) + " " + Arrays.toString(labels) + " "
            + Arrays.toString(Arrays.copyOfRange(ints, 2, 5)) + " " + Arrays.toString(Arrays.copyOf(bytes, 7)) + " "
            + Arrays.toString(Arrays.copyOf(labels, 2)) + " " + Arrays.toString((int[]) null) + " "
            + Arrays.toString(new boolean[] {true, false}));
        List<String> fixed = Arrays.asList(labels);
        labels[0] = "changed";
        System.out.println(fixed + " " + fixed.size());

        List<Integer> base = new ArrayList<>(Arrays.asList(1, 2, 3));
        List<Integer> ro = Collections.unmodifiableList(base);
        base.add(4);
        Map<String, Integer> roMap = Collections.unmodifiableMap(new HashMap<>());
        Set<String> roSet = Collections.unmodifiableSet(new HashSet<>(Arrays.asList("s")));
        System.out.println("view " + ro + " " + roMap + " " + roSet);
        try {
            ro.set(0, 9);
        } catch (UnsupportedOperationException e) {
            System.out.println("unmodifiable set rejected");
        }
        try {
            Iterator<Integer> it = ro.iterator();
            it.next();
            it.remove();
        } catch (UnsupportedOperationException e) {
            System.out.println("unmodifiable iterator remove rejected");
        }

        Deque<Integer> stack = new ArrayDeque<>();
        Deque<Integer> queue = new ArrayDeque<>(2);
        for (int i = 0; i < 10; i++) {
            stack.push(i);
            queue.offer(i);
        }
        System.out.println("stack " + stack + " pop " + stack.pop() + " peek " + stack.peek());
        System.out.println("queue " + queue + " poll " + queue.poll() + " peekLast " + queue.peekLast());
        ArrayDeque<Integer> ring = new ArrayDeque<>();
        long ringSum = 0;
        for (int i = 0; i < 100000; i++) {
            ring.addLast(i);
            if (ring.size() > 37) {
                ringSum += ring.removeFirst();
            }
            if (i % 11 == 0) {
                ringSum -= ring.pollLast();
            }
        }
        System.out.println("ring " + ring.size() + " " + ringSum + " " + ring.peekFirst() + " " + ring.contains(99999));
        Iterator<Integer> desc = ring.descendingIterator();
        System.out.println("descending " + desc.next() + " " + desc.next());
    }
}
