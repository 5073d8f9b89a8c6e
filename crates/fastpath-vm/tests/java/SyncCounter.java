// tags: monitor thread
// release: 8
// Contended counters: 2, 4 and 8 threads incrementing shared counters under a synchronized
// block, a synchronized instance method and a static synchronized method, plus a counter
// split over 16 striped locks; every count is exact. A racy unsynchronized counter runs beside
// them but only its upper bound is printed.
public class SyncCounter {
    private long count;
    private static long staticCount;
    private static final Object BLOCK_LOCK = new Object();
    private static long blockCount;

    synchronized void increment() {
        count++;
    }

    static synchronized void staticIncrement() {
        staticCount++;
    }

    static final class Stripe {
        long value;
    }

    public static void main(String[] args) throws InterruptedException {
        int perThread = 20000;
        for (int threads : new int[] {2, 4, 8}) {
            SyncCounter counter = new SyncCounter();
            staticCount = 0;
            blockCount = 0;
            Stripe[] stripes = new Stripe[16];
            for (int i = 0; i < stripes.length; i++) {
                stripes[i] = new Stripe();
            }
            long[] racy = new long[1];
            Thread[] ts = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                final int id = t;
                ts[t] = new Thread(() -> {
                    for (int i = 0; i < perThread; i++) {
                        counter.increment();
                        staticIncrement();
                        synchronized (BLOCK_LOCK) {
                            blockCount += 2;
                        }
                        Stripe s = stripes[(i * 7 + id) & 15];
                        synchronized (s) {
                            s.value += id + 1;
                        }
                        racy[0]++;
                    }
                });
            }
            for (Thread t : ts) {
                t.start();
            }
            for (Thread t : ts) {
                t.join();
            }
            long striped = 0;
            for (Stripe s : stripes) {
                striped += s.value;
            }
            long expectedStriped = (long) perThread * threads * (threads + 1) / 2;
            System.out.println(threads + " threads: method " + counter.count + " static " + staticCount + " block "
                + blockCount + " striped " + striped + " (expected " + expectedStriped + ") racy <= total "
                + (racy[0] <= (long) perThread * threads));
        }
    }
}
