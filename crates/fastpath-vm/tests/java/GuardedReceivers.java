// tags: basic
// release: 17
// One receiver value through the guarded inlines of a call with several implementations: what
// one implementation's code says of its receiver (its own class, a final class whose fields
// sit at fixed offsets) holds only behind that implementation's guard. Each way then reads a
// superclass's int field on the same value, through an inherited method, where the classes
// put their data words at different offsets (the final class has more references); an
// interface call and a virtual call, each site seeing every class, in hot loops.
public class GuardedReceivers {
    interface Shape {
        int area();
    }

    abstract static class Sized {
        Object tag;
        int size;

        Sized(int size) {
            this.size = size;
        }

        final int doubled() {
            return size * 2;
        }

        abstract int scaled(int k);
    }

    // Final, with three references of its own before its data words;
    // loaded first (`main` makes one first), so that its implementation
    // is the first a guarded call tests.
    static final class Square extends Sized implements Shape {
        Object a;
        Object b;
        Object c;
        int extra = 1000;

        Square(int size) {
            super(size);
        }

        public int area() {
            return doubled() * size + extra;
        }

        int scaled(int k) {
            return doubled() * k + extra;
        }
    }

    static class Strip extends Sized implements Shape {
        int length = 7;

        Strip(int size) {
            super(size);
        }

        public int area() {
            return doubled() + length;
        }

        int scaled(int k) {
            return size * k + length;
        }
    }

    static final class Dot implements Shape {
        int weight = 3;

        public int area() {
            return weight;
        }
    }

    static int sumAreas(Shape[] shapes, int rounds) {
        int sum = 0;
        for (int r = 0; r < rounds; r++) {
            for (Shape s : shapes) {
                sum += s.area();
                if (s instanceof Sized) {
                    sum += ((Sized) s).doubled();
                }
            }
        }
        return sum;
    }

    static int sumScaled(Sized[] all, int rounds) {
        int sum = 0;
        for (int r = 0; r < rounds; r++) {
            for (Sized s : all) {
                sum += s.scaled(r & 3) + s.doubled();
            }
        }
        return sum;
    }

    public static void main(String[] args) {
        Shape[] shapes = {new Square(2), new Strip(3), new Dot(), new Strip(5), new Square(4)};
        Sized[] all = {new Strip(1), new Square(6), new Strip(9), new Square(1)};
        for (int round = 0; round < 5; round++) {
            System.out.println("areas " + sumAreas(shapes, 2000) + " scaled " + sumScaled(all, 2000));
        }
    }
}
