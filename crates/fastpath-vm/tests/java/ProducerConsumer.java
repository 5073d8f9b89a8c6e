// tags: monitor thread
// release: 17
// A bounded buffer built on synchronized/wait/notifyAll, with 3 producers and 2 consumers
// and a small capacity (so both sides block often). Producers send distinct numbered items,
// then one poison pill each; consumers stop after their share of pills. The main thread
// prints the exact count, sum and per-producer checks after joining.
public class ProducerConsumer {
    static final class BoundedBuffer {
        private final long[] items;
        private int head;
        private int tail;
        private int size;

        BoundedBuffer(int capacity) {
            items = new long[capacity];
        }

        synchronized void put(long item) throws InterruptedException {
            while (size == items.length) {
                wait();
            }
            items[tail] = item;
            tail = (tail + 1) % items.length;
            size++;
            notifyAll();
        }

        synchronized long take() throws InterruptedException {
            while (size == 0) {
                wait();
            }
            long item = items[head];
            head = (head + 1) % items.length;
            size--;
            notifyAll();
            return item;
        }
    }

    static final long POISON = -1;

    public static void main(String[] args) throws InterruptedException {
        int producers = 3;
        int consumers = 2;
        int perProducer = 20000;
        BoundedBuffer buffer = new BoundedBuffer(8);
        Thread[] ps = new Thread[producers];
        for (int p = 0; p < producers; p++) {
            final long base = (long) p << 32;
            ps[p] = new Thread(() -> {
                try {
                    for (int i = 0; i < perProducer; i++) {
                        buffer.put(base | i);
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        long[] counts = new long[consumers];
        long[] sums = new long[consumers];
        long[][] perProducerSums = new long[consumers][producers];
        Thread[] cs = new Thread[consumers];
        for (int c = 0; c < consumers; c++) {
            final int id = c;
            cs[c] = new Thread(() -> {
                try {
                    while (true) {
                        long item = buffer.take();
                        if (item == POISON) {
                            return;
                        }
                        counts[id]++;
                        sums[id] += item & 0xffffffffL;
                        perProducerSums[id][(int) (item >>> 32)] += item & 0xffffffffL;
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        for (Thread t : cs) {
            t.start();
        }
        for (Thread t : ps) {
            t.start();
        }
        for (Thread t : ps) {
            t.join();
        }
        for (int c = 0; c < consumers; c++) {
            buffer.put(POISON);
        }
        for (Thread t : cs) {
            t.join();
        }
        long count = 0;
        long sum = 0;
        for (int c = 0; c < consumers; c++) {
            count += counts[c];
            sum += sums[c];
        }
        System.out.println("items " + count + " sum " + sum + " expected " + (long) producers * perProducer * (perProducer - 1) / 2);
        for (int p = 0; p < producers; p++) {
            long s = 0;
            for (int c = 0; c < consumers; c++) {
                s += perProducerSums[c][p];
            }
            System.out.println("producer " + p + " delivered sum " + s);
        }
        System.out.println("buffer empty " + (buffer.size == 0));
    }
}
