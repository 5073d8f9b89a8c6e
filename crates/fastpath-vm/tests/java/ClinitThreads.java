// tags: clinit thread
// release: 17
// Class initialization under contention: eight threads touch a class whose <clinit> is slow;
// exactly one runs it and the others block until it completes, so all see the fully
// initialized state. A second class's <clinit> starts a thread that needs the class being
// initialized and waits for it only after <clinit> finishes (waiting inside would deadlock).
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

class Slow {
    static final AtomicInteger RUNS = new AtomicInteger();
    static final int[] TABLE;

    static {
        RUNS.incrementAndGet();
        int[] t = new int[1000];
        for (int i = 0; i < t.length; i++) {
            t[i] = i * i;
            if (i % 100 == 0) {
                Thread.onSpinWait();
            }
        }
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
        TABLE = t;
    }

    static long sum() {
        long s = 0;
        for (int v : TABLE) {
            s += v;
        }
        return s;
    }
}

class Spawner {
    static int ready;
    static Thread helper;

    static {
        helper = new Thread(() -> {
            // Blocks until Spawner's <clinit> completes, then reads the final value.
            ClinitThreads.helperSaw = Spawner.ready;
        });
        helper.start();
        ready = 7;
    }
}

public class ClinitThreads {
    static volatile int helperSaw = -1;

    public static void main(String[] args) throws InterruptedException {
        int n = 8;
        CountDownLatch start = new CountDownLatch(1);
        long[] sums = new long[n];
        Thread[] threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            final int id = i;
            threads[i] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                sums[id] = Slow.sum();
            });
            threads[i].start();
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        boolean same = true;
        for (long s : sums) {
            same &= s == sums[0];
        }
        System.out.println("sum " + sums[0] + " same in all threads " + same + " <clinit> runs " + Slow.RUNS.get());
        int r = Spawner.ready;
        Spawner.helper.join();
        System.out.println("Spawner.ready " + r + ", helper saw " + helperSaw);
    }
}
