// tags: bytecode exception
// release: 17
// args: -XX:-OmitStackTraceInFastThrow
// aastore's store check where the code's declared types decide it and where they do not: arrays of
// a final class filled from fields, parameters, calls, loaded elements and new objects (the check
// provably passes); arrays of a class with subclasses, passed where an array of a subclass is
// expected; `new String[]` and `new Object[]` held in `Object[]` variables; a stored value reloaded
// after a call; arrays in locals across loops (one a loop only reads, one two ways into a loop
// give different types, one a loop reassigns); each in a loop hot enough to be compiled, and each
// failing store's ArrayStoreException message.
public class ArrayStoreChecks {
    static final class Disc {
        final int size;
        Disc next;

        Disc(int size) {
            this.size = size;
        }
    }

    static class Shape {
        int sides() {
            return 0;
        }
    }

    static class Square extends Shape {
        @Override
        int sides() {
            return 4;
        }
    }

    static final class Triangle extends Shape {
        @Override
        int sides() {
            return 3;
        }
    }

    private final Disc[] piles = new Disc[3];
    private Disc spare = new Disc(99);
    static String[] names = new String[4];

    Disc take(int pile) {
        Disc top = piles[pile];
        if (top != null) {
            piles[pile] = top.next;
            top.next = null;
        }
        return top;
    }

    void put(Disc d, int pile) {
        d.next = piles[pile];
        piles[pile] = d;
    }

    // Discs moved between piles: every store is of a declared `Disc` into a
    // `Disc[]` (a final class).
    int shuffle(int rounds) {
        piles[0] = piles[1] = piles[2] = null;
        for (int s = 5; s >= 1; s--) {
            put(new Disc(s), 0);
        }
        int sum = 0;
        for (int r = 0; r < rounds; r++) {
            Disc d = take(r % 3);
            if (d == null) {
                continue;
            }
            put(d, (r + 1) % 3);
            piles[(r + 2) % 3 == 0 ? 0 : 1] = piles[(r + 2) % 3];
            sum += d.size;
        }
        Disc[] copy = new Disc[3];
        for (int i = 0; i < 3; i++) {
            copy[i] = piles[i];
            piles[i] = spare;
            Integer.toString(i);
            copy[(i + 1) % 3] = copy[i];
        }
        for (Disc d : copy) {
            sum += d == null ? -1 : d.size;
        }
        return sum + piles[2].size;
    }

    static String label(int i) {
        return "n" + i;
    }

    // Strings into a `String[]` (a final class): literals, results, elements.
    static int fill(int rounds) {
        int length = 0;
        for (int r = 0; r < rounds; r++) {
            names[r & 3] = label(r);
            names[(r + 1) & 3] = "lit";
            names[(r + 2) & 3] = names[r & 3];
            length += names[(r + 3) & 3] == null ? 0 : names[(r + 3) & 3].length();
        }
        return length;
    }

    // A `Shape[]` parameter may be a `Square[]`: the check stays.
    static String storeShape(Shape[] shapes, Shape s) {
        try {
            shapes[0] = s;
            return "stored " + shapes[0].sides();
        } catch (ArrayStoreException e) {
            return "ArrayStoreException " + e.getMessage();
        }
    }

    // A final class's array declared through a supertype: the check stays.
    static String storeObject(Object[] objects, Object o) {
        try {
            objects[1] = o;
            return "stored " + objects[1];
        } catch (ArrayStoreException e) {
            return "ArrayStoreException " + e.getMessage();
        }
    }

    static String exactArrays(int i) {
        Object[] any = new Object[2];
        any[0] = Integer.valueOf(i);
        any[1] = "s" + i;
        Object[] strings = new String[2];
        strings[0] = "t" + i;
        try {
            strings[1] = Integer.valueOf(i);
            return "no exception";
        } catch (ArrayStoreException e) {
            return any[0] + " " + any[1] + " " + strings[0] + " ArrayStoreException " + e.getMessage();
        }
    }

    // Arrays in locals across loops: a traversal's stack, which the loop
    // only reads, keeps its exact `Disc[]` at the loop's head; an array two
    // ways into the loop give different types, and one the loop reassigns,
    // keep their checks (a String[] then, and an Integer stored).
    static String loopArrays(int n, Object o) {
        Disc[] stack = new Disc[4];
        int top = 0;
        stack[top++] = new Disc(n % 50);
        int sum = 0;
        while (top > 0) {
            Disc d = stack[--top];
            sum += d.size;
            if (d.size > 0) {
                stack[top++] = new Disc(d.size - 1);
            }
        }
        Object[] joined = (n & 1) == 0 ? new String[2] : new Object[2];
        Object[] moving = new Object[2];
        int at = -1;
        try {
            for (int i = 0; i < 4; i++) {
                at = i;
                joined[i & 1] = i == 0 ? "s" : o;
                moving[i & 1] = o;
                if (i == 1) {
                    moving = new String[2];
                }
            }
            return sum + " no exception";
        } catch (ArrayStoreException e) {
            return sum + " ArrayStoreException at " + at + " " + e.getMessage();
        }
    }

    public static void main(String[] args) {
        ArrayStoreChecks c = new ArrayStoreChecks();
        long total = 0;
        for (int i = 0; i < 3000; i++) {
            total += c.shuffle(40 + i % 7);
            total += fill(20 + i % 5);
        }
        System.out.println("total " + total);
        String last = null;
        for (int i = 0; i < 3000; i++) {
            last = storeShape(i % 2 == 0 ? new Shape[1] : new Square[1], i % 3 == 0 ? new Triangle() : new Square());
            storeObject(i % 2 == 0 ? new Object[2] : new Disc[2], i % 5 == 0 ? "text" : new Disc(i));
        }
        System.out.println(last);
        System.out.println(storeShape(new Square[1], new Triangle()));
        System.out.println(storeShape(new Shape[1], new Triangle()));
        System.out.println(storeObject(new Disc[2], "text"));
        System.out.println(storeObject(new String[2], "text"));
        System.out.println(storeObject(new Disc[2], new Disc(1)).startsWith("stored ArrayStoreChecks$Disc@"));
        for (int i = 0; i < 2000; i++) {
            last = exactArrays(i);
        }
        System.out.println(last);
        for (int i = 0; i < 3000; i++) {
            last = loopArrays(i, Integer.valueOf(i)) + " / " + loopArrays(i + 1, Integer.valueOf(i));
        }
        System.out.println(last);
    }
}
