// tags: monitor thread gc
// release: 8
// Loops whose synchronized block is entered again after nothing but local work or plain
// field and array accesses, the shape a JIT coarsens (one lock kept over several rounds): the
// lock must still be free wherever the program can look (Thread.holdsLock after the block,
// after the loop, after a break, a return, an exception inside the block and one thrown
// between the blocks, caught in the method or by its caller), a block on another object in
// between must release the first, a
// pair of fields updated together must never be seen apart by a thread that takes the same
// lock, and every count is exact, with one, two and three threads and collections forced
// while the locks are held.
import java.util.ArrayList;
import java.util.List;

public class CoarsenedLocks {
    static final class Cell {
        long value;
        long shadow;
    }

    static final int ROUNDS = 100_000;

    // The plain shape: a counted loop around a synchronized block.
    static long counted(Cell c, int n) {
        for (int i = 0; i < n; i++) {
            synchronized (c) {
                c.value++;
            }
        }
        return c.value;
    }

    // The lock is looked at between rounds: it must be free there.
    static int heldBetween(Cell c, int n) {
        int held = 0;
        for (int i = 0; i < n; i++) {
            synchronized (c) {
                c.value += 2;
            }
            if (Thread.holdsLock(c)) {
                held++;
            }
        }
        return held;
    }

    // Two locks in turn: entering the second must release the first.
    static int alternating(Cell[] cells, int n) {
        int wrong = 0;
        for (int i = 0; i < n; i++) {
            Cell c = cells[i & 1];
            synchronized (c) {
                c.value++;
                if ((i & 1023) == 0 && Thread.holdsLock(cells[(i + 1) & 1])) {
                    wrong++;
                }
            }
        }
        return wrong;
    }

    // Leaves the loop from its tail: a break, then a return.
    static long breakOut(Cell c, int stop) {
        int i = 0;
        for (;;) {
            synchronized (c) {
                c.value++;
            }
            i++;
            if (i == stop) {
                break;
            }
        }
        return Thread.holdsLock(c) ? -1 : c.value;
    }

    static long returnFromTail(Cell c, int stop) {
        for (int i = 0; ; i++) {
            synchronized (c) {
                c.value += 3;
            }
            if (i == stop) {
                return c.value;
            }
        }
    }

    // An exception from inside the block after many rounds.
    static String throwInside(Cell c, int at) {
        try {
            for (int i = 0; ; i++) {
                synchronized (c) {
                    c.value++;
                    if (i == at) {
                        throw new IllegalStateException("round " + i);
                    }
                }
            }
        } catch (IllegalStateException e) {
            return e.getMessage() + ", value " + c.value + ", held " + Thread.holdsLock(c);
        }
    }

    // Exceptions from the work between the blocks: a null cell, an index past the end, a
    // zero divisor, a null Integer unboxed (its intValue() called on null).
    static String tailNull(Cell c, Cell[] cells, int at) {
        try {
            for (int i = 0; ; i++) {
                synchronized (c) {
                    c.value++;
                }
                cells[i == at ? 1 : 0].shadow++;
            }
        } catch (NullPointerException e) {
            return "value " + c.value + ", shadow " + cells[0].shadow + ", held " + Thread.holdsLock(c);
        }
    }

    static String tailIndex(Cell c, int[] data) {
        long sum = 0;
        try {
            for (int i = 0; ; i++) {
                synchronized (c) {
                    c.value++;
                }
                sum += data[i];
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            return e.getMessage() + ", value " + c.value + ", sum " + sum + ", held " + Thread.holdsLock(c);
        }
    }

    static String tailDivide(Cell c, int at) {
        int q = 0;
        try {
            for (int i = 0; ; i++) {
                synchronized (c) {
                    c.value++;
                }
                q += 1_000_000 / (at - i);
            }
        } catch (ArithmeticException e) {
            return e.getMessage() + ", value " + c.value + ", q " + q + ", held " + Thread.holdsLock(c);
        }
    }

    static String tailUnbox(Cell c, Integer[] boxes) {
        long sum = 0;
        try {
            for (int i = 0; ; i++) {
                synchronized (c) {
                    c.value++;
                }
                sum += boxes[i];
            }
        } catch (NullPointerException e) {
            return "value " + c.value + ", sum " + sum + ", held " + Thread.holdsLock(c);
        }
    }

    // The exception leaves the method from the tail: the caller sees the lock free.
    static long tailThrowsOut(Cell c, int[] data) {
        long sum = 0;
        for (int i = 0; ; i++) {
            synchronized (c) {
                c.value++;
            }
            sum += data[i];
            c.shadow = sum;
        }
    }

    // Nested on the same object, and a fresh lock every round.
    static long nested(Cell c, int n) {
        for (int i = 0; i < n; i++) {
            synchronized (c) {
                synchronized (c) {
                    c.value++;
                }
            }
        }
        return c.value;
    }

    static long fresh(int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            Object lock = new Object();
            synchronized (lock) {
                sum += i;
            }
        }
        return sum;
    }

    // Allocation under the lock: collections while it is held (and while a coarsened lock
    // waits in the loop's tail, when another thread forces them).
    static long allocating(Cell c, List<long[]> keep, int n) {
        for (int i = 0; i < n; i++) {
            synchronized (c) {
                long[] a = new long[8];
                a[0] = i;
                c.value += a[0] & 1;
                if ((i & 255) == 0) {
                    keep.add(a);
                }
            }
        }
        return c.value;
    }

    static void check(String what, long got, long want) {
        System.out.println(what + ": " + got + (got == want ? "" : " (expected " + want + ")"));
    }

    public static void main(String[] args) throws Exception {
        Cell c = new Cell();
        check("counted", counted(c, ROUNDS), ROUNDS);
        System.out.println("held after loop: " + Thread.holdsLock(c));
        check("held between rounds", heldBetween(new Cell(), ROUNDS), 0);
        Cell[] two = {new Cell(), new Cell()};
        check("other lock held", alternating(two, ROUNDS), 0);
        check("alternating counts", two[0].value + two[1].value, ROUNDS);
        check("break", breakOut(new Cell(), ROUNDS / 2), ROUNDS / 2);
        check("return", returnFromTail(new Cell(), 999), 3000);
        System.out.println("throw: " + throwInside(new Cell(), 77_777));
        Cell[] cells = {new Cell(), null};
        System.out.println("tail null: " + tailNull(new Cell(), cells, 54_321));
        int[] data = new int[66_666];
        for (int i = 0; i < data.length; i++) {
            data[i] = i % 7;
        }
        System.out.println("tail index: " + tailIndex(new Cell(), data));
        System.out.println("tail divide: " + tailDivide(new Cell(), 44_444));
        Integer[] boxes = new Integer[33_333];
        for (int i = 0; i < boxes.length - 1; i++) {
            boxes[i] = i % 1000;
        }
        System.out.println("tail unbox: " + tailUnbox(new Cell(), boxes));
        Cell out = new Cell();
        try {
            tailThrowsOut(out, data);
        } catch (ArrayIndexOutOfBoundsException e) {
            System.out.println("tail out: " + e.getMessage() + ", value " + out.value + ", shadow " + out.shadow
                    + ", held " + Thread.holdsLock(out));
        }
        check("nested", nested(new Cell(), ROUNDS), ROUNDS);
        check("fresh", fresh(ROUNDS), (long) ROUNDS * (ROUNDS - 1) / 2);

        // Two threads add to the same cell, a third reads it under the same lock: the two
        // fields are always equal there, and the sums are exact.
        Cell shared = new Cell();
        int[] torn = new int[1];
        Thread[] adders = new Thread[2];
        adders[0] = new Thread(() -> {
            for (int i = 0; i < ROUNDS; i++) {
                synchronized (shared) {
                    shared.value++;
                    shared.shadow++;
                }
            }
        });
        // The same with plain work between the blocks, kept under the lock between rounds.
        Cell own = new Cell();
        adders[1] = new Thread(() -> {
            for (int i = 0; i < ROUNDS; i++) {
                synchronized (shared) {
                    shared.value++;
                    shared.shadow++;
                }
                own.value += i & 1;
            }
        });
        Thread reader = new Thread(() -> {
            for (int i = 0; i < 20_000; i++) {
                synchronized (shared) {
                    if (shared.value != shared.shadow) {
                        torn[0]++;
                    }
                }
                Thread.yield();
            }
        });
        for (Thread t : adders) {
            t.start();
        }
        reader.start();
        for (Thread t : adders) {
            t.join();
        }
        reader.join();
        check("shared", shared.value, 2L * ROUNDS);
        check("shadow", shared.shadow, 2L * ROUNDS);
        check("torn reads", torn[0], 0);
        check("own", own.value, ROUNDS / 2);

        // Collections while locks are held: one thread allocates under its lock, another
        // allocates freely to force more.
        Cell busy = new Cell();
        List<long[]> keep = new ArrayList<>();
        long[] churned = new long[1];
        Thread churn = new Thread(() -> {
            long s = 0;
            for (int i = 0; i < 300_000; i++) {
                int[] garbage = new int[16];
                garbage[3] = i;
                s += garbage[3];
            }
            churned[0] = s;
        });
        churn.start();
        long odd = allocating(busy, keep, ROUNDS);
        churn.join();
        check("allocating", odd, ROUNDS / 2);
        check("kept", keep.size(), ROUNDS / 256 + 1);
        long sum = 0;
        for (long[] a : keep) {
            sum += a[0];
        }
        check("kept sum", sum, 256L * (ROUNDS / 256) * (ROUNDS / 256 + 1) / 2);
        check("churn", churned[0], 300_000L * 299_999 / 2);
        System.out.println("held at end: " + Thread.holdsLock(busy) + " " + Thread.holdsLock(shared));
    }
}
