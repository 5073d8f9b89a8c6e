// tags: bytecode
// release: 10
// Method dispatch: invokestatic, invokevirtual through several levels of overriding,
// invokespecial for constructors, private methods and super calls, invokeinterface, default
// methods (including the diamond resolved with X.super.m()), interface static methods, private
// interface methods (release 9+), abstract classes, overloading chosen at compile time, and
// final methods. `var` (release 10) for locals.
interface Shape {
    double area();

    default String describe() {
        return name() + " with area " + area();
    }

    default String name() {
        return "shape";
    }

    static Shape unit() {
        return () -> 1.0;
    }

    private String secret() {
        return "private interface method of " + name();
    }

    default String reveal() {
        return secret();
    }
}

interface Named {
    default String name() {
        return "named";
    }
}

abstract class Polygon implements Shape {
    protected final int sides;

    Polygon(int sides) {
        this.sides = sides;
    }

    @Override
    public String name() {
        return sides + "-gon";
    }

    abstract double perimeter();

    final String kind() {
        return "polygon";
    }
}

class Rect extends Polygon {
    final double w;
    final double h;

    Rect(double w, double h) {
        super(4);
        this.w = w;
        this.h = h;
    }

    public double area() {
        return w * h;
    }

    double perimeter() {
        return 2 * (w + h);
    }

    @Override
    public String name() {
        return "rect(" + super.name() + ")";
    }
}

class Square extends Rect {
    Square(double side) {
        super(side, side);
    }

    @Override
    public String name() {
        return "square/" + super.name();
    }
}

class Circle implements Shape, Named {
    final double r;

    Circle(double r) {
        this.r = r;
    }

    public double area() {
        return 3 * r * r;
    }

    // Both Shape and Named supply name(): the class must choose, here by combining them.
    @Override
    public String name() {
        return Named.super.name() + "+" + Shape.super.name();
    }
}

class Base {
    static String who() {
        return "Base.who";
    }

    String call() {
        return "Base.call->" + helper() + "->" + virt();
    }

    private String helper() {
        return "Base.helper";
    }

    String virt() {
        return "Base.virt";
    }
}

class Derived extends Base {
    static String who() {
        return "Derived.who";
    }

    // Not an override: Base.helper is private, so Base.call still calls its own.
    String helper() {
        return "Derived.helper";
    }

    @Override
    String virt() {
        return "Derived.virt";
    }
}

public class Dispatch {
    static String over(Object o) {
        return "Object";
    }

    static String over(String s) {
        return "String";
    }

    static String over(Integer i) {
        return "Integer";
    }

    static String over(int i) {
        return "int";
    }

    static String over(long l) {
        return "long";
    }

    static String over(double d) {
        return "double";
    }

    public static void main(String[] args) {
        var shapes = new Shape[] {new Rect(2, 3), new Square(4), new Circle(1), Shape.unit()};
        for (var s : shapes) {
            System.out.println(s.describe());
            System.out.println("  " + s.reveal());
            if (s instanceof Polygon) {
                var p = (Polygon) s;
                System.out.println("  " + p.kind() + " perimeter " + p.perimeter() + " sides " + p.sides);
            }
        }
        Base b = new Derived();
        System.out.println(b.call());
        System.out.println(Base.who() + " " + Derived.who());
        System.out.println(((Derived) b).helper());
        Object o = "str";
        short sh = 3;
        char ch = 'c';
        System.out.println(over(o) + " " + over("s") + " " + over(1) + " " + over(Integer.valueOf(1)) + " " + over(1L)
            + " " + over(sh) + " " + over(ch) + " " + over(1.0f) + " " + over((Object) 2));
        // Megamorphic call site: one invokeinterface and one invokevirtual site over many classes.
        double total = 0;
        for (int i = 0; i < 1000; i++) {
            total += shapes[i % shapes.length].area();
        }
        System.out.println("total area " + total);
    }
}
