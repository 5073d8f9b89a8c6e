// tags: concurrent thread
// release: 11
// java.util.concurrent.atomic with 4 threads: AtomicInteger/AtomicLong increments, getAndAdd,
// compareAndSet retry loops, updateAndGet/accumulateAndGet, AtomicBoolean as a one-shot winner
// flag, AtomicReference building a lock-free stack (Treiber), AtomicIntegerArray and
// AtomicLongArray histograms, LongAdder; all results exact.
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

public class Atomics {
    static final class Node {
        final int value;
        final Node next;

        Node(int value, Node next) {
            this.value = value;
            this.next = next;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        AtomicInteger ai = new AtomicInteger();
        AtomicLong al = new AtomicLong(1L << 40);
        AtomicInteger casMax = new AtomicInteger(Integer.MIN_VALUE);
        AtomicLong product = new AtomicLong(0);
        AtomicBoolean winner = new AtomicBoolean(false);
        AtomicInteger wins = new AtomicInteger();
        AtomicReference<Node> stack = new AtomicReference<>();
        AtomicIntegerArray hist = new AtomicIntegerArray(10);
        AtomicLongArray lhist = new AtomicLongArray(4);
        LongAdder adder = new LongAdder();
        int threads = 4;
        int per = 10000;
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int id = t;
            ts[t] = new Thread(() -> {
                for (int i = 0; i < per; i++) {
                    ai.incrementAndGet();
                    al.getAndAdd(3);
                    int candidate = (i * 7919 + id * 104729) % 100003;
                    int cur;
                    do {
                        cur = casMax.get();
                        if (candidate <= cur) {
                            break;
                        }
                    } while (!casMax.compareAndSet(cur, candidate));
                    product.accumulateAndGet(i, (a, b) -> a + b * 2);
                    hist.incrementAndGet(i % 10);
                    lhist.addAndGet(id, i);
                    adder.add(id + 1);
                    if (i % 100 == 0) {
                        Node head;
                        Node pushed;
                        do {
                            head = stack.get();
                            pushed = new Node(id * per + i, head);
                        } while (!stack.compareAndSet(head, pushed));
                    }
                }
                if (winner.compareAndSet(false, true)) {
                    wins.incrementAndGet();
                }
            });
        }
        for (Thread t : ts) {
            t.start();
        }
        for (Thread t : ts) {
            t.join();
        }
        int stackSize = 0;
        long stackSum = 0;
        for (Node n = stack.get(); n != null; n = n.next) {
            stackSize++;
            stackSum += n.value;
        }
        StringBuilder h = new StringBuilder();
        for (int i = 0; i < hist.length(); i++) {
            h.append(hist.get(i)).append(' ');
        }
        System.out.println("AtomicInteger " + ai.get() + " AtomicLong " + al.get() + " max " + casMax.get());
        System.out.println("accumulate " + product.get() + " winners " + wins.get() + " flag " + winner.get());
        System.out.println("stack " + stackSize + " sum " + stackSum);
        System.out.println("histogram " + h + "| long " + lhist.get(0) + " " + lhist.get(3) + " " + lhist);
        System.out.println("adder " + adder.sum() + " " + adder);
        AtomicInteger x = new AtomicInteger(5);
        System.out.println("single-thread " + x.getAndIncrement() + " " + x.incrementAndGet() + " " + x.getAndSet(100) + " "
            + x.compareAndSet(99, 1) + " " + x.compareAndSet(100, 1) + " " + x.updateAndGet(v -> v * 10) + " "
            + x.getAndUpdate(v -> v - 3) + " " + x.addAndGet(-7) + " " + x.decrementAndGet() + " " + x);
        AtomicReference<String> ref = new AtomicReference<>("a");
        System.out.println(ref.getAndSet("b") + ref.get() + " " + ref.compareAndSet("b", "c") + ref.updateAndGet(s -> s + s)
            + " " + ref);
    }
}
