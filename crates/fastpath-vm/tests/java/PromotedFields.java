// tags: monitor thread gc exception
// release: 17
// Synchronized blocks in loops whose fields a JIT may keep in registers while it keeps the
// lock across rounds (lock coarsening with the locked object's fields promoted): every value
// must be in the object wherever the program can look. A handler of an exception thrown
// inside the block sees the round's writes, and one of an exception thrown entering it again
// (its object null) finds the lock free and the writes in place; another thread taking the
// same lock sees two fields written together as one; collections (forced between rounds, and
// by another thread while the lock is kept) move nothing it can tell; a field also reached
// through another reference, or a volatile one, is read and written in memory each round;
// narrow fields wrap as memory would keep them.
public class PromotedFields {
    static final class Cell {
        long value;
        long shadow;
        int small;
        byte tiny;
        char ch;
        boolean flag;
        double weight;
        volatile long vol;
    }

    static final int ROUNDS = 40_000;

    static volatile boolean stop;
    static volatile int badSeen;

    // The plain shape.
    static long counted(Cell c, int n) {
        for (int i = 0; i < n; i++) {
            synchronized (c) {
                c.value++;
            }
        }
        return c.value;
    }

    // An exception inside the block, after the round's first write.
    static String indexInside(Cell c, int[] add, int n) {
        try {
            for (int i = 0; i < n; i++) {
                synchronized (c) {
                    c.value++;
                    c.value += add[i];
                }
            }
            return "no exception";
        } catch (ArrayIndexOutOfBoundsException e) {
            return "index: value " + c.value + ", held " + Thread.holdsLock(c);
        }
    }

    static String divideInside(Cell c, int n, int zeroAt) {
        try {
            for (int i = 0; i < n; i++) {
                synchronized (c) {
                    c.small += 3;
                    c.value += 1000 / (zeroAt - i);
                }
            }
            return "no exception";
        } catch (ArithmeticException e) {
            return "divide: value " + c.value + ", small " + c.small + ", held " + Thread.holdsLock(c);
        }
    }

    // The object null at the block's next round (set so in the loop's tail): the
    // exception leaves the lock free and the last round's write in the object.
    static String nullInTail(Cell c, int stopAt) {
        Cell cur = c;
        try {
            for (int i = 0; ; i++) {
                synchronized (cur) {
                    cur.value += 2;
                }
                if (i == stopAt) {
                    cur = null;
                }
            }
        } catch (NullPointerException e) {
            return "null: value " + c.value + ", held " + Thread.holdsLock(c);
        }
    }

    // Another thread takes the same lock between the writer's rounds: the two fields are
    // always equal there and never go back, and the last value reaches it.
    static String watched(Cell c, int n) throws InterruptedException {
        Thread reader = new Thread(() -> {
            long last = 0;
            int bad = 0;
            boolean done = false;
            while (!done) {
                synchronized (c) {
                    if (c.value != c.shadow || c.value < last) {
                        bad++;
                    }
                    last = c.value;
                    done = last == n;
                }
            }
            badSeen = bad;
        });
        reader.start();
        for (int i = 0; i < n; i++) {
            synchronized (c) {
                c.value++;
                c.shadow++;
            }
        }
        reader.join();
        return "watched: value " + c.value + ", shadow " + c.shadow + ", bad " + badSeen;
    }

    // Another thread that allocates and forces collections until `stop`.
    static Thread startChurn() {
        stop = false;
        Thread churn = new Thread(() -> {
            Object[] keep = new Object[64];
            int k = 0;
            while (!stop) {
                keep[k++ & 63] = new long[256];
                if ((k & 4095) == 0) {
                    System.gc();
                }
            }
        });
        churn.start();
        return churn;
    }

    // Allocation in the loop's tail (the kept lock released before it) and collections
    // forced there, while another thread allocates and forces more: the cell moves between
    // rounds and stops for the collector happen while the lock is kept.
    static String moving(int n) throws InterruptedException {
        Thread churn = startChurn();
        Cell c = new Cell();
        Object[] junk = new Object[64];
        for (int i = 0; i < n; i++) {
            synchronized (c) {
                c.value += i;
                c.shadow = c.shadow * 31 + i;
            }
            if ((i & 1023) == 0) {
                junk[(i >> 10) & 63] = new long[512];
                if ((i & 8191) == 0) {
                    System.gc();
                }
            }
        }
        stop = true;
        churn.join();
        return "moving: value " + c.value + ", shadow " + c.shadow;
    }

    // A lock inflated before the loop (waiting on it makes a monitor): an enter may then take
    // the monitor rather than fast-lock the object, and a JIT that keeps the lock across rounds
    // may do so only for a lock it fast-locked. Collections are forced meanwhile, and another
    // thread takes the lock after the loop and sees every write.
    static String inflatedFirst(int n) throws InterruptedException {
        Cell c = new Cell();
        synchronized (c) {
            c.wait(1);
        }
        Thread churn = startChurn();
        for (int i = 0; i < n; i++) {
            synchronized (c) {
                c.value += i;
                c.shadow++;
            }
        }
        stop = true;
        churn.join();
        long[] seen = new long[1];
        Thread other = new Thread(() -> {
            synchronized (c) {
                seen[0] = c.value + c.shadow;
            }
        });
        other.start();
        other.join();
        return "inflated: value " + c.value + ", shadow " + c.shadow + ", seen " + seen[0] + ", held "
                + Thread.holdsLock(c);
    }

    // The field written through another reference too: when it is the same object, every
    // write and read goes to the one field.
    static long aliased(Cell c, Cell d, int n) {
        long seen = 0;
        for (int i = 0; i < n; i++) {
            synchronized (c) {
                c.value++;
                d.value += 2;
                seen += d.value;
            }
        }
        return c.value * 31 + seen;
    }

    static long volatileField(Cell c, int n) throws InterruptedException {
        Thread watcher = new Thread(() -> {
            // Reads without the lock: a volatile write is seen at once.
            while (c.vol < n / 2) {
                Thread.onSpinWait();
            }
        });
        watcher.start();
        for (int i = 0; i < n; i++) {
            synchronized (c) {
                c.vol++;
            }
        }
        watcher.join();
        return c.vol;
    }

    // Narrow fields wrap as they would in memory, read back within the block.
    static String narrow(Cell c, int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            synchronized (c) {
                c.tiny++;
                c.ch += 7;
                c.flag = !c.flag;
                c.weight += 0.5;
                sum += c.tiny + c.ch + (c.flag ? 1 : 0);
            }
        }
        return "narrow: sum " + sum + ", tiny " + c.tiny + ", ch " + (int) c.ch + ", flag " + c.flag
                + ", weight " + c.weight;
    }

    public static void main(String[] args) throws Exception {
        int[] add = new int[ROUNDS / 2];
        for (int i = 0; i < add.length; i++) {
            add[i] = i & 7;
        }
        // Three times each: compiled by the last (on-stack replacement, then the method).
        for (int round = 0; round < 3; round++) {
            Cell c = new Cell();
            System.out.println("counted: " + counted(c, ROUNDS) + ", held " + Thread.holdsLock(c));
            System.out.println(indexInside(new Cell(), add, ROUNDS));
            System.out.println(divideInside(new Cell(), ROUNDS, ROUNDS - 7 * round - 5));
            System.out.println(nullInTail(new Cell(), ROUNDS / 2 + round));
            System.out.println(watched(new Cell(), ROUNDS));
            System.out.println(moving(ROUNDS));
            System.out.println(inflatedFirst(ROUNDS));
            Cell same = new Cell();
            System.out.println("aliased same: " + aliased(same, same, ROUNDS) + ", value " + same.value);
            Cell other = new Cell();
            System.out.println("aliased other: " + aliased(new Cell(), other, ROUNDS) + ", other "
                    + other.value);
            System.out.println("volatile: " + volatileField(new Cell(), ROUNDS));
            System.out.println(narrow(new Cell(), ROUNDS + round));
        }
    }
}
