package fastpath.peers;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The HotSpot side of `fastpath lock`'s contended table (issue 14): every thread takes one shared
 * lock, bumps a counter and works ~5 ns (short) or ~1 us (long) inside, then ~25 ns outside.
 * run.sh runs it with -t 1, 2, 4, ... up to twice the CPUs. `synchronized` is named like the lab's
 * fastpath rows (shortCs / short-cs) and ReentrantLock like its reentrant peer (shortCsReentrant /
 * short-cs-reentrant), so `fastpath compare --by-workload` pairs them.
 *
 * <p>The work is the lab's: a dependent chain of multiply-adds, calibrated once per trial to
 * nanoseconds, so both sides spend the same time inside and outside the lock whatever the JIT or
 * LLVM make of one step.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class LockContendedBench {
    private final Object monitor = new Object();
    private final ReentrantLock reentrant = new ReentrantLock();
    private long counter;
    private int shortIn;
    private int out;
    private int longIn;
    /** Keeps the work's result alive (racy by design: only its existence matters). */
    private long sink;

    @Setup(Level.Trial)
    public void calibrate() {
        int units = 1 << 20;
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long t = System.nanoTime();
            sink += work(units);
            best = Math.min(best, System.nanoTime() - t);
        }
        double nsPerUnit = Math.max(0.01, (double) best / units);
        shortIn = (int) Math.max(1, Math.round(5.0 / nsPerUnit));
        out = (int) Math.max(1, Math.round(25.0 / nsPerUnit));
        longIn = (int) Math.max(1, Math.round(1000.0 / nsPerUnit));
    }

    static long work(int units) {
        long x = 1;
        for (int i = 0; i < units; i++) {
            x = x * 6364136223846793005L + 1;
        }
        return x;
    }

    private long viaSynchronized(int inside) {
        long c;
        synchronized (monitor) {
            c = ++counter;
            sink += work(inside);
        }
        return c + work(out);
    }

    private long viaReentrantLock(int inside) {
        long c;
        reentrant.lock();
        try {
            c = ++counter;
            sink += work(inside);
        } finally {
            reentrant.unlock();
        }
        return c + work(out);
    }

    @Benchmark
    public long shortCs() {
        return viaSynchronized(shortIn);
    }

    @Benchmark
    public long shortCsReentrant() {
        return viaReentrantLock(shortIn);
    }

    @Benchmark
    public long longCs() {
        return viaSynchronized(longIn);
    }

    @Benchmark
    public long longCsReentrant() {
        return viaReentrantLock(longIn);
    }
}
