package fastpath.peers;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.CompilerControl;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The HotSpot side of `fastpath lock`: uncontended, recursive and churn locking against a bare
 * CAS pair, run once per -XX:LockingMode by run.sh (seed 001).
 *
 * The lock bodies are not inlined into the benchmark loop (DONT_INLINE on the callee) so that C2
 * cannot elide or coarsen the monitor enter/exit on a thread-local object; the CAS pair is
 * shaped the same way so the ratio compares lock protocols, not call overheads.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LockBench {
    private final Object lock = new Object();
    private final AtomicInteger word = new AtomicInteger();
    private int counter;

    /** Baseline: acquire and release with two CASes on a word, as a fast lock does. */
    @Benchmark
    public int casPair() {
        return casPairBody();
    }

    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    private int casPairBody() {
        while (!word.compareAndSet(0, 1)) {
            Thread.onSpinWait();
        }
        int c = ++counter;
        word.compareAndSet(1, 0);
        return c;
    }

    /** One uncontended lock+unlock of the same object. */
    @Benchmark
    public int uncontended() {
        return locked(lock);
    }

    static final int NESTED = 16;

    /**
     * Lock+unlock pairs nested inside an outer hold of the same object: the recursive fast path.
     * The outer pair is amortised over NESTED inner pairs (fastpath's row holds the outer lock
     * across the whole measurement, so it is about 1/NESTED of an outer pair cheaper).
     */
    @Benchmark
    @OperationsPerInvocation(NESTED)
    public int recursive() {
        int c = 0;
        synchronized (lock) {
            for (int i = 0; i < NESTED; i++) {
                c += locked(lock);
            }
        }
        return c;
    }

    /** Lock+unlock of a fresh object each time (TestRecursiveMonitorChurn's pattern). */
    @Benchmark
    public int churn() {
        return locked(new Object());
    }

    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    private int locked(Object o) {
        synchronized (o) {
            return ++counter;
        }
    }
}
