// tags: concurrent thread monitor
// release: 18
// SynchronousQueue between several producers and consumers, fair and unfair: exact sums with
// put/take, with timed offer/poll and with offer/poll that only succeed against a waiting
// partner; an interrupted or timed-out waiter leaves no node behind that a later offer or poll
// could match; an interrupt before put or take throws without transferring.
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;

public class SyncQueueHandOffs {
    interface Side {
        void run(int index) throws InterruptedException;
    }

    static void runAll(int n, Side side) throws InterruptedException {
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            final int index = i;
            ts[i] = new Thread(() -> {
                try {
                    side.run(index);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            ts[i].start();
        }
        for (Thread t : ts) {
            t.join();
        }
    }

    /** `pairs` producers and consumers, each moving `each` items; the consumers' total. */
    static long pairs(SynchronousQueue<Long> q, int pairs, int each, boolean timed) throws InterruptedException {
        long[] sums = new long[pairs];
        runAll(2 * pairs, index -> {
            int pair = index / 2;
            if (index % 2 == 0) {
                for (long i = 1; i <= each; i++) {
                    if (timed) {
                        if (!q.offer(i, 30, TimeUnit.SECONDS)) {
                            throw new IllegalStateException("offer timed out");
                        }
                    } else {
                        q.put(i);
                    }
                }
            } else {
                long s = 0;
                for (int i = 0; i < each; i++) {
                    Long v = timed ? q.poll(30, TimeUnit.SECONDS) : q.take();
                    if (v == null) {
                        throw new IllegalStateException("poll timed out");
                    }
                    s += v;
                }
                sums[pair] = s;
            }
        });
        long total = 0;
        for (long s : sums) {
            total += s;
        }
        return total;
    }

    /** `each` items from one putter, taken with poll() that succeeds only while it waits. */
    static long pollAgainstPutter(SynchronousQueue<Long> q, int each) throws InterruptedException {
        Thread putter = new Thread(() -> {
            try {
                for (long i = 1; i <= each; i++) {
                    q.put(i);
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        putter.start();
        long s = 0;
        for (int i = 0; i < each; ) {
            Long v = q.poll();
            if (v == null) {
                Thread.yield();
            } else {
                s += v;
                i++;
            }
        }
        putter.join();
        return s;
    }

    /** `each` items offered with offer() to one taker, which succeeds only while it waits. */
    static long offerAgainstTaker(SynchronousQueue<Long> q, int each) throws InterruptedException {
        long[] sum = new long[1];
        Thread taker = new Thread(() -> {
            try {
                for (int i = 0; i < each; i++) {
                    sum[0] += q.take();
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        taker.start();
        for (long i = 1; i <= each; ) {
            if (q.offer(i)) {
                i++;
            } else {
                Thread.yield();
            }
        }
        taker.join();
        return sum[0];
    }

    /** A waiter that is interrupted (before or while it waits; no partner ever comes). */
    static String interruptedWaiter(SynchronousQueue<Long> q, boolean put) throws InterruptedException {
        String[] seen = new String[1];
        Thread w = new Thread(() -> {
            try {
                if (put) {
                    q.put(7L);
                } else {
                    q.take();
                }
                seen[0] = "returned";
            } catch (InterruptedException e) {
                seen[0] = "interrupted, status " + Thread.currentThread().isInterrupted();
            }
        });
        w.start();
        w.interrupt();
        w.join();
        return (put ? "put " : "take ") + seen[0] + ", then poll " + q.poll() + ", offer " + q.offer(8L);
    }

    public static void main(String[] args) throws InterruptedException {
        int each = 1000;
        long perPair = (long) each * (each + 1) / 2;
        for (boolean fair : new boolean[] {false, true}) {
            String name = fair ? "fair" : "unfair";
            for (int p : new int[] {1, 2, 4}) {
                long got = pairs(new SynchronousQueue<>(fair), p, each, false);
                System.out.println(name + " put/take " + p + " pairs: " + (got == p * perPair ? "ok" : "sum " + got));
            }
            long timed = pairs(new SynchronousQueue<>(fair), 2, each, true);
            System.out.println(name + " timed offer/poll 2 pairs: " + (timed == 2 * perPair ? "ok" : "sum " + timed));
            System.out.println(name + " poll against a putter: " + pollAgainstPutter(new SynchronousQueue<>(fair), 300));
            System.out.println(name + " offer against a taker: " + offerAgainstTaker(new SynchronousQueue<>(fair), 300));
            SynchronousQueue<Long> q = new SynchronousQueue<>(fair);
            System.out.println(name + " " + interruptedWaiter(q, true));
            System.out.println(name + " " + interruptedWaiter(q, false));
            System.out.println(name + " timed poll alone " + q.poll(2, TimeUnit.MILLISECONDS)
                + ", timed offer alone " + q.offer(9L, 2, TimeUnit.MILLISECONDS)
                + ", then poll " + q.poll() + ", offer " + q.offer(10L));
            Thread.currentThread().interrupt();
            String before;
            try {
                q.put(11L);
                before = "put returned";
            } catch (InterruptedException e) {
                before = "put interrupted at once, status " + Thread.currentThread().isInterrupted();
            }
            System.out.println(name + " " + before);
        }
    }
}
