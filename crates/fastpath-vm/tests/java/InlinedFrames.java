// tags: exception gc
// release: 17
// Small statically bound calls (static, private, a final class's methods) of the kind a JIT
// inlines, each warmed in a loop first: an exception thrown two inlined frames deep and caught
// by the caller's caller, its stack trace printed (every frame with its line); one caught by a
// handler inside the callee; helpful NullPointerException messages from inside a callee and
// from a callee's result; and allocation-heavy calls out of a callee (through an interface,
// so never inlined) while the callee and its callers hold references, checked after.
public class InlinedFrames {
    static final class Cell {
        final int id;
        Cell next;
        final int[] payload;

        Cell(int id, Cell next) {
            this.id = id;
            this.next = next;
            this.payload = new int[] {id, id * 3};
        }

        int id() {
            return id;
        }

        Cell next() {
            return next;
        }
    }

    interface Maker {
        Cell make(int id, Cell next);
    }

    static final class Churner implements Maker {
        public Cell make(int id, Cell next) {
            Cell garbage = null;
            for (int i = 0; i < 120; i++) {
                garbage = new Cell(i, garbage);
            }
            return new Cell(id + (garbage.id - 119), next);
        }
    }

    private int checked;

    private static int check(int v) {
        if (v < 0) {
            throw new IllegalArgumentException("negative " + v);
        }
        return v;
    }

    private int twice(int v) {
        checked++;
        return check(v) * 2;
    }

    static int level2(InlinedFrames f, int v) {
        return f.twice(v) + 1;
    }

    static int parseOr(int v) {
        try {
            return check(v);
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }

    static int idOf(Cell c) {
        return c.id();
    }

    static int nextId(Cell c) {
        return c.next().id;
    }

    // Holds `head` and its payload across the call (a collection moves both).
    private static Cell link(Maker m, int id, Cell head) {
        int[] before = head == null ? null : head.payload;
        Cell c = m.make(id, head);
        if (before != null && before != c.next().payload) {
            throw new AssertionError("a moved reference was not updated");
        }
        return c;
    }

    static Cell build(Maker m, int n) {
        Cell head = null;
        for (int i = 0; i < n; i++) {
            head = link(m, i, head);
        }
        return head;
    }

    static long sum(Cell c) {
        long s = 0;
        while (c != null) {
            s += idOf(c) * 7L + c.payload[1];
            c = c.next();
        }
        return s;
    }

    public static void main(String[] args) {
        InlinedFrames f = new InlinedFrames();
        long total = 0;
        for (int i = 0; i < 200; i++) {
            total += level2(f, i) + parseOr(i - 100);
        }
        System.out.println("warm " + total + " checked " + f.checked);
        try {
            level2(f, -7);
        } catch (IllegalArgumentException e) {
            System.out.println("caught " + e.getMessage() + " checked " + f.checked);
            for (StackTraceElement el : e.getStackTrace()) {
                System.out.println("  " + el.getMethodName() + ":" + el.getLineNumber());
            }
            e.printStackTrace();
        }
        Cell one = new Cell(5, new Cell(6, null));
        int ids = 0;
        for (int i = 0; i < 200; i++) {
            ids += idOf(one) + nextId(one);
        }
        System.out.println("ids " + ids);
        try {
            idOf(null);
        } catch (NullPointerException e) {
            System.out.println("npe " + e.getMessage());
        }
        try {
            nextId(one.next());
        } catch (NullPointerException e) {
            System.out.println("npe " + e.getMessage());
            System.out.println("  at " + e.getStackTrace()[0].getMethodName());
        }
        Maker m = new Churner();
        for (int round = 0; round < 4; round++) {
            Cell list = build(m, 2500);
            System.out.println("round " + round + " sum " + sum(list));
        }
    }
}
