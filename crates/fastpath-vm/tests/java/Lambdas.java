// tags: lambda
// release: 8
// Lambdas and method references through LambdaMetafactory: the four kinds of method
// reference (static, bound receiver, unbound receiver, constructor, plus array constructor),
// capture of locals, of this and of effectively final loop variables, non-capturing lambdas,
// the java.util.function interfaces with their default combinators (andThen, compose,
// and/or/negate, identity), primitive specializations, and recursion through a field.
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.BinaryOperator;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntBinaryOperator;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import java.util.function.IntUnaryOperator;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import java.util.function.UnaryOperator;

public class Lambdas {
    private final String name;
    private int calls;

    Lambdas(String name) {
        this.name = name;
    }

    String greet(String other) {
        calls++;
        return name + " greets " + other;
    }

    static int twice(int x) {
        return 2 * x;
    }

    Supplier<String> selfDescriber() {
        return () -> name + " after " + calls + " calls";
    }

    static IntUnaryOperator factorial;

    interface TriFunction<A, B, C, R> {
        R apply(A a, B b, C c);
    }

    public static void main(String[] args) {
        Function<Integer, Integer> staticRef = Lambdas::twice;
        Lambdas alice = new Lambdas("alice");
        Function<String, String> bound = alice::greet;
        BiFunction<Lambdas, String, String> unbound = Lambdas::greet;
        Function<String, Lambdas> ctor = Lambdas::new;
        IntFunction<int[]> arrayCtor = int[]::new;
        Function<Integer, String[]> stringArrays = String[]::new;
        System.out.println(staticRef.apply(21) + " " + bound.apply("bob") + " | " + unbound.apply(alice, "carol")
            + " | " + ctor.apply("dave").greet("erin") + " | " + arrayCtor.apply(4).length + " "
            + stringArrays.apply(2).length);
        System.out.println(alice.selfDescriber().get());

        int base = 100;
        String suffix = "!";
        Function<Integer, String> capturing = x -> (x + base) + suffix;
        System.out.println(capturing.apply(5));
        List<Supplier<Integer>> suppliers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            final int captured = i * i;
            suppliers.add(() -> captured);
        }
        for (String s : new String[] {"x", "yy", "zzz"}) {
            suppliers.add(s::length);
        }
        StringBuilder sb = new StringBuilder();
        for (Supplier<Integer> s : suppliers) {
            sb.append(s.get()).append(' ');
        }
        System.out.println(sb.toString().trim());

        Function<Integer, Integer> inc = x -> x + 1;
        Function<Integer, Integer> sq = x -> x * x;
        System.out.println(inc.andThen(sq).apply(3) + " " + inc.compose(sq).apply(3) + " "
            + Function.<Integer>identity().apply(9));
        Predicate<String> longWord = s -> s.length() > 4;
        Predicate<String> startsA = s -> s.startsWith("a");
        List<String> words = Arrays.asList("apple", "ant", "banana", "avocado", "kiwi");
        StringBuilder filtered = new StringBuilder();
        for (String w : words) {
            filtered.append(longWord.and(startsA).test(w) ? 'A' : '-').append(longWord.or(startsA).test(w) ? 'O' : '-')
                .append(longWord.negate().test(w) ? 'N' : '-').append(' ');
        }
        System.out.println(filtered);
        List<String> consumed = new ArrayList<>();
        Consumer<String> first = consumed::add;
        Consumer<String> both = first.andThen(s -> consumed.add("<" + s + ">"));
        both.accept("hello");
        System.out.println(consumed);
        BinaryOperator<Integer> max = BinaryOperator.maxBy((a, b) -> a - b);
        UnaryOperator<String> shout = s -> s + s;
        System.out.println(max.apply(3, 9) + " " + shout.apply("ab"));
        IntBinaryOperator gcd = new IntBinaryOperator() {
            public int applyAsInt(int a, int b) {
                return b == 0 ? a : applyAsInt(b, a % b);
            }
        };
        IntPredicate even = v -> v % 2 == 0;
        ToIntFunction<String> len = String::length;
        LongSupplier big = () -> 1L << 50;
        System.out.println(gcd.applyAsInt(1071, 462) + " " + even.test(10) + " " + even.negate().test(10) + " "
            + len.applyAsInt("seven") + " " + big.getAsLong());
        factorial = n -> n <= 1 ? 1 : n * factorial.applyAsInt(n - 1);
        System.out.println("10! = " + factorial.applyAsInt(10));
        TriFunction<Integer, Integer, Integer, Integer> fma = (a, b, c) -> a * b + c;
        Function<Integer, Function<Integer, Integer>> adder = a -> b -> a + b;
        System.out.println(fma.apply(3, 4, 5) + " " + adder.apply(10).apply(32));
        Runnable r = () -> System.out.println("runnable ran");
        r.run();
        int total = 0;
        Function<Integer, Integer> hot = x -> x * 3 + 1;
        for (int i = 0; i < 100000; i++) {
            total += hot.apply(i & 1023);
        }
        System.out.println("hot loop " + total);
    }
}
