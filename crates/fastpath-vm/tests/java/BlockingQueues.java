// tags: concurrent thread
// release: 18
// ArrayBlockingQueue and SynchronousQueue: put/take between producer and consumer threads with
// exact sums; offer/poll with and without timeouts on a full or empty queue; capacity
// bookkeeping (remainingCapacity, size); FIFO order; SynchronousQueue hand-offs, where offer
// without a waiting taker fails and poll without a putter returns null.
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;

public class BlockingQueues {
    static long transfer(BlockingQueue<Long> q, int producers, int perProducer) throws InterruptedException {
        long[] sums = new long[producers];
        Thread[] ps = new Thread[producers];
        for (int p = 0; p < producers; p++) {
            final long base = p * 100_000L;
            ps[p] = new Thread(() -> {
                try {
                    for (int i = 0; i < perProducer; i++) {
                        q.put(base + i);
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        Thread consumer = new Thread(() -> {
            try {
                for (int i = 0; i < producers * perProducer; i++) {
                    long v = q.take();
                    sums[(int) (v / 100_000L)] += v % 100_000L;
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        consumer.start();
        for (Thread t : ps) {
            t.start();
        }
        for (Thread t : ps) {
            t.join();
        }
        consumer.join();
        long total = 0;
        for (long s : sums) {
            total += s;
        }
        return total;
    }

    public static void main(String[] args) throws InterruptedException {
        ArrayBlockingQueue<Integer> abq = new ArrayBlockingQueue<>(3);
        System.out.println("offer " + abq.offer(1) + abq.offer(2) + abq.offer(3) + abq.offer(4) + " size " + abq.size()
            + " remaining " + abq.remainingCapacity() + " peek " + abq.peek() + " " + abq);
        System.out.println("timed offer on full " + abq.offer(5, 10, TimeUnit.MILLISECONDS));
        System.out.println("poll order " + abq.poll() + abq.poll() + abq.take() + " then " + abq.poll() + " timed "
            + abq.poll(10, TimeUnit.MILLISECONDS));
        System.out.println("ArrayBlockingQueue transfer " + transfer(new ArrayBlockingQueue<>(16), 3, 10000));

        SynchronousQueue<Long> sq = new SynchronousQueue<>();
        System.out.println("sync offer without taker " + sq.offer(1L) + ", poll without putter " + sq.poll() + ", size "
            + sq.size() + ", timed poll " + sq.poll(5, TimeUnit.MILLISECONDS));
        System.out.println("SynchronousQueue transfer " + transfer(new SynchronousQueue<>(), 2, 3000));

        SynchronousQueue<String> ping = new SynchronousQueue<>();
        SynchronousQueue<String> pong = new SynchronousQueue<>();
        Thread echo = new Thread(() -> {
            try {
                while (true) {
                    String s = ping.take();
                    if (s.equals("stop")) {
                        return;
                    }
                    pong.put(s + "!");
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        echo.start();
        StringBuilder replies = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            ping.put("m" + i);
            replies.append(pong.take()).append(' ');
        }
        int roundTrips = 0;
        for (int i = 0; i < 2000; i++) {
            ping.put("x");
            if (pong.take().equals("x!")) {
                roundTrips++;
            }
        }
        ping.put("stop");
        echo.join();
        System.out.println("hand-offs " + replies + "round trips " + roundTrips);
    }
}
