// tags: gc thread
// release: 24
// Several threads allocating at once, each with its own live set (a ring of arrays replaced
// round-robin) and a shared, synchronized registry of long-lived objects that all threads
// append to and read from; every thread verifies its live set as it goes and returns a
// checksum that main prints after join. Exercises per-thread allocation buffers and
// collection with several mutators running.
import java.util.ArrayList;
import java.util.List;

public class GcThreads {
    static final List<long[]> registry = new ArrayList<>();

    static long work(int id, int steps) {
        long[][] ring = new long[128][];
        long checksum = 0;
        for (int s = 0; s < steps; s++) {
            int slot = s % ring.length;
            long[] prev = ring[slot];
            if (prev != null) {
                if (prev[0] != (long) id * 1_000_000 + (s - ring.length) || prev[prev.length - 1] != prev.length) {
                    throw new AssertionError("thread " + id + " live set corrupted at step " + s);
                }
                checksum += prev[0] % 1000 + prev.length;
            }
            long[] a = new long[4 + (s * 7 + id) % 60];
            a[0] = (long) id * 1_000_000 + s;
            a[a.length - 1] = a.length;
            ring[slot] = a;
            Object tmp = new StringBuilder().append(id).append(':').append(s).toString();
            checksum += tmp.hashCode() & 0xff;
            if (s % 500 == 0) {
                synchronized (registry) {
                    registry.add(new long[] {id, s});
                    // Which entry this thread sees depends on the interleaving: it is read
                    // (checked for shape) but kept out of the checksum.
                    long[] sample = registry.get((s / 500 * 31 + id) % registry.size());
                    if (sample.length != 2 || sample[0] < 0 || sample[0] >= 4) {
                        throw new AssertionError("registry entry corrupted");
                    }
                }
            }
        }
        return checksum;
    }

    public static void main(String[] args) throws InterruptedException {
        int threads = 4;
        long[] sums = new long[threads];
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int id = t;
            ts[t] = new Thread(() -> sums[id] = work(id, 40000));
            ts[t].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        long registryCheck = 0;
        for (long[] e : registry) {
            registryCheck += e[0] * 100000 + e[1];
        }
        System.out.println("registry " + registry.size() + " entries, check " + registryCheck);
        for (int t = 0; t < threads; t++) {
            System.out.println("thread " + t + " checksum " + sums[t]);
        }
    }
}
