// tags: monitor gc
// release: 18
// args: -Xmx8m
// Single-use locks, the pattern fast-locking exists for: hundreds of thousands of fresh
// objects each locked once or twice (recursively) and dropped, interleaved with identity
// hashing of some of them before or while locked (a hash in the header forces the monitor
// or legacy paths), arrays of lockable objects kept alive across collections, and two threads
// contending on a small pool of shared locks. Every result is an exact checksum.
// The 8 MiB heap is less than the program allocates in all, so that every run collects: an
// allocation that finds the heap full runs a collection when the concurrent collector's cycle
// has not begun (at 16 MiB one began near the end of the run, or in a loaded run not at all).
import java.util.ArrayList;
import java.util.List;

public class LockChurn {
    static final class Cell {
        long value;
        Cell next;

        Cell(long value, Cell next) {
            this.value = value;
            this.next = next;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        long sum = 0;
        for (int i = 0; i < 300000; i++) {
            Cell c = new Cell(i, null);
            synchronized (c) {
                c.value += 1;
                if ((i & 7) == 0) {
                    synchronized (c) {
                        c.value *= 2;
                    }
                }
            }
            sum += c.value;
        }
        System.out.println("single-use locks " + sum);

        List<Cell> kept = new ArrayList<>();
        int[] hashes = new int[2000];
        Cell chain = null;
        for (int i = 0; i < 2000; i++) {
            chain = new Cell(i, chain);
            kept.add(chain);
            if (i % 3 == 0) {
                hashes[i] = System.identityHashCode(chain);
            }
            synchronized (chain) {
                if (i % 3 == 1) {
                    hashes[i] = System.identityHashCode(chain);
                }
                chain.value += 5;
            }
            for (int j = 0; j < 20; j++) {
                Object garbage = new long[16];
                synchronized (garbage) {
                    sum ^= j;
                }
            }
        }
        boolean stable = true;
        long chainSum = 0;
        for (int i = 0; i < kept.size(); i++) {
            Cell c = kept.get(i);
            synchronized (c) {
                chainSum += c.value;
            }
            if (i % 3 != 2) {
                stable &= hashes[i] == System.identityHashCode(c);
            }
        }
        int length = 0;
        for (Cell c = chain; c != null; c = c.next) {
            length++;
        }
        System.out.println("kept cells " + chainSum + " chain length " + length + " hashes stable " + stable);

        Object[] pool = new Object[8];
        long[] totals = new long[8];
        for (int i = 0; i < pool.length; i++) {
            pool[i] = new Object();
        }
        Thread[] ts = new Thread[2];
        for (int t = 0; t < 2; t++) {
            final int id = t;
            ts[t] = new Thread(() -> {
                for (int i = 0; i < 50000; i++) {
                    int k = (i * 5 + id) & 7;
                    synchronized (pool[k]) {
                        totals[k] += i;
                        Cell scratch = new Cell(i, null);
                        synchronized (scratch) {
                            totals[k] += scratch.value & 1;
                        }
                    }
                }
            });
            ts[t].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        long poolSum = 0;
        for (long v : totals) {
            poolSum += v;
        }
        System.out.println("contended pool " + poolSum);
    }
}
