// tags: bytecode clinit
// release: 13
// Enums: values() (a clone of the constants array), valueOf (and its exception for an unknown
// name), ordinal, name, compareTo, equals/==, enum switch (the $SwitchMap$ synthetic class),
// constants with bodies (each an anonymous subclass), constructors with fields, static fields
// initialized after the constants, and an enum implementing an interface.
interface Op {
    int apply(int a, int b);
}

enum Arith implements Op {
    PLUS("+") {
        public int apply(int a, int b) {
            return a + b;
        }
    },
    MINUS("-") {
        public int apply(int a, int b) {
            return a - b;
        }
    },
    TIMES("*") {
        public int apply(int a, int b) {
            return a * b;
        }
    };

    final String symbol;

    Arith(String symbol) {
        this.symbol = symbol;
    }
}

enum Planet {
    MERCURY(3303, 2439), VENUS(48690, 6052), EARTH(59760, 6378), MARS(6421, 3397);

    private static int count;
    final int mass;
    final int radius;

    static {
        count = values().length;
    }

    Planet(int mass, int radius) {
        this.mass = mass;
        this.radius = radius;
    }

    long gravityScore() {
        return (long) mass * 1000 / radius;
    }

    static int count() {
        return count;
    }
}

enum Color { RED, GREEN, BLUE, YELLOW }

public class Enums {
    static String classify(Color c) {
        switch (c) {
            case RED:
                return "warm";
            case BLUE:
            case GREEN:
                return "cool";
            default:
                return "other";
        }
    }

    public static void main(String[] args) {
        for (Color c : Color.values()) {
            System.out.println(c + " " + c.name() + " " + c.ordinal() + " " + classify(c) + " " + c.compareTo(Color.GREEN));
        }
        Color[] a = Color.values();
        Color[] b = Color.values();
        a[0] = Color.BLUE;
        System.out.println("values() is a fresh copy: " + (a != b) + " " + b[0]);
        System.out.println(Color.valueOf("BLUE") == Color.BLUE);
        try {
            Color.valueOf("PURPLE");
        } catch (IllegalArgumentException e) {
            System.out.println(e.getMessage());
        }
        try {
            Color.valueOf(null);
        } catch (NullPointerException e) {
            System.out.println("NullPointerException: " + e.getMessage());
        }
        for (Arith op : Arith.values()) {
            System.out.println("7 " + op.symbol + " 3 = " + op.apply(7, 3) + " (" + op + ", " + op.ordinal() + ")");
        }
        Op op = Arith.valueOf("TIMES");
        System.out.println(op.apply(6, 7) + " " + (op == Arith.TIMES) + " " + Arith.TIMES.equals(op)
            + " " + (Arith.PLUS instanceof Op));
        System.out.println("planets " + Planet.count());
        for (Planet p : Planet.values()) {
            System.out.println(p + " " + p.gravityScore());
        }
        Color c = Color.YELLOW;
        int score = 0;
        for (int i = 0; i < 100; i++) {
            switch (Color.values()[i % 4]) {
                case RED: score += 1; break;
                case GREEN: score += 10; break;
                case BLUE: score += 100; break;
                case YELLOW: score += 1000; break;
            }
        }
        System.out.println("score " + score + " " + c + " " + Color.RED.equals(Color.GREEN));
    }
}
