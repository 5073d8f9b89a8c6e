// tags: bytecode
// release: 21
// Pattern matching for switch (release 21: SwitchBootstraps.typeSwitch via invokedynamic),
// record deconstruction patterns (nested), guards with `when`, case null, exhaustive switches
// over a sealed hierarchy, enum constants mixed with type patterns, and strings in pattern
// switches.
import java.util.ArrayList;
import java.util.List;

public class PatternSwitch21 {
    sealed interface Shape permits Circle, Rect, Tri {
    }

    record Circle(double r) implements Shape {
    }

    record Rect(double w, double h) implements Shape {
    }

    record Tri(double b, double h) implements Shape {
    }

    record Pair<A, B>(A first, B second) {
    }

    enum Suit { HEARTS, SPADES, CLUBS, DIAMONDS }

    static double area(Shape s) {
        return switch (s) {
            case Circle c -> 3 * c.r() * c.r();
            case Rect(double w, double h) when w == h -> w * w;
            case Rect(double w, double h) -> w * h;
            case Tri t -> t.b() * t.h() / 2;
        };
    }

    static String describe(Object o) {
        return switch (o) {
            case null -> "null!";
            case Integer i when i > 100 -> "big int " + i;
            case Integer i -> "int " + i;
            case Long l -> "long " + l;
            case String s when s.length() == 0 -> "empty string";
            case String s -> "string " + s.length();
            case Pair(String a, Integer b) -> "pair of string " + a + " and int " + b;
            case Pair(Pair(var a, var b), var c) -> "nested pair " + a + "," + b + "," + c;
            case Pair<?, ?> p -> "some pair " + p;
            case Suit s -> "suit " + s.ordinal();
            case int[] arr -> "int array " + arr.length;
            default -> "other";
        };
    }

    static String suit(Suit s) {
        return switch (s) {
            case HEARTS, DIAMONDS -> "red";
            case SPADES -> "black spade";
            case Suit x when x == Suit.CLUBS -> "black club";
            case Suit x -> "unreachable " + x;
        };
    }

    public static void main(String[] args) {
        List<Shape> shapes = new ArrayList<>();
        shapes.add(new Circle(2));
        shapes.add(new Rect(3, 3));
        shapes.add(new Rect(2, 5));
        shapes.add(new Tri(4, 5));
        double total = 0;
        for (Shape s : shapes) {
            System.out.println(s + " area " + area(s));
            total += area(s);
        }
        System.out.println("total " + total);
        Object[] things = {
            null, 5, 500, 7L, "", "hello", new Pair<>("k", 9), new Pair<>(new Pair<>(1, 2), 3),
            new Pair<>(1.5, 'c'), Suit.CLUBS, new int[3], 2.5
        };
        for (Object o : things) {
            System.out.println(describe(o));
        }
        for (Suit s : Suit.values()) {
            System.out.println(s + " " + suit(s));
        }
        int count = 0;
        for (int i = 0; i < 3000; i++) {
            Object o = switch (i % 3) {
                case 0 -> i;
                case 1 -> "s" + i;
                default -> new Pair<>(i, i);
            };
            if (describe(o).startsWith("big")) {
                count++;
            }
        }
        System.out.println("big ints " + count);
    }
}
