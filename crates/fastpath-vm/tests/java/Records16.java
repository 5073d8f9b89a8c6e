// tags: bytecode
// release: 16
// Records (release 16): canonical and compact constructors with validation, accessors,
// the toString/equals/hashCode that javac generates through the ObjectMethods bootstrap
// (invokedynamic), static members, nested records, and instanceof with a binding pattern.
import java.util.ArrayList;
import java.util.List;

public class Records16 {
    record Point(int x, int y) {
        static final Point ORIGIN = new Point(0, 0);

        Point {
            if (x < -1000 || y < -1000) {
                throw new IllegalArgumentException("out of range: " + x + "," + y);
            }
        }

        Point plus(Point o) {
            return new Point(x + o.x, y + o.y());
        }

        static Point of(int v) {
            return new Point(v, v);
        }
    }

    record Line(Point from, Point to, String label) {
        int manhattan() {
            return Math.abs(to.x() - from.x()) + Math.abs(to.y() - from.y());
        }
    }

    record Range(long lo, long hi) {
        Range(long lo, long hi) {
            this.lo = Math.min(lo, hi);
            this.hi = Math.max(lo, hi);
        }

        Range(long single) {
            this(single, single);
        }
    }

    record Mixed(boolean z, byte b, char c, short s, float f, double d, long l, String str, int[] arr) {
    }

    public static void main(String[] args) {
        Point p = new Point(3, 4);
        Point q = new Point(3, 4);
        System.out.println(p + " " + p.equals(q) + " " + (p == q) + " " + (p.hashCode() == q.hashCode()));
        System.out.println(p.plus(Point.of(10)) + " " + Point.ORIGIN + " " + p.equals(Point.ORIGIN) + " " + p.equals(null)
            + " " + p.equals("Point[x=3, y=4]"));
        System.out.println("hash " + p.hashCode() + " " + Point.ORIGIN.hashCode() + " " + new Point(1, 0).hashCode());
        Line line = new Line(Point.ORIGIN, p, "diag");
        System.out.println(line + " " + line.manhattan() + " " + line.hashCode());
        Line nulls = new Line(null, null, null);
        System.out.println(nulls + " " + nulls.hashCode() + " " + nulls.equals(new Line(null, null, null)));
        System.out.println(new Range(9, 2) + " " + new Range(5) + " " + new Range(2, 9).equals(new Range(9, 2)));
        try {
            new Point(-5000, 1);
        } catch (IllegalArgumentException e) {
            System.out.println("compact constructor rejected: " + e.getMessage());
        }
        int[] arr = {1, 2};
        Mixed m = new Mixed(true, (byte) -1, 'c', (short) 7, 1.5f, -0.0, Long.MIN_VALUE, "s", arr);
        Mixed m2 = new Mixed(true, (byte) -1, 'c', (short) 7, 1.5f, -0.0, Long.MIN_VALUE, "s", arr);
        Mixed m3 = new Mixed(true, (byte) -1, 'c', (short) 7, 1.5f, 0.0, Long.MIN_VALUE, "s", arr);
        System.out.println(m.equals(m2) + " " + m.equals(m3) + " " + (m.hashCode() == m2.hashCode()) + " " + m.str()
            + m.c() + m.l());
        List<Object> things = new ArrayList<>();
        things.add(p);
        things.add(line);
        things.add("text");
        things.add(42);
        for (Object o : things) {
            if (o instanceof Point pt && pt.x() > 0) {
                System.out.println("point with x " + pt.x());
            } else if (o instanceof Line l) {
                System.out.println("line " + l.label());
            } else if (!(o instanceof String s)) {
                System.out.println("neither: " + o);
            } else {
                System.out.println("string of length " + s.length());
            }
        }
    }
}
