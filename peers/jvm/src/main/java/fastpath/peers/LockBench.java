package fastpath.peers;

import java.util.ArrayDeque;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.CompilerControl;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The HotSpot side of `fastpath lock`: uncontended, recursive and churn locking against a bare
 * CAS pair, run once per -XX:LockingMode by run.sh (seed 001).
 *
 * The lock bodies are not inlined into the benchmark loop (DONT_INLINE on the callee) so that C2
 * cannot elide or coarsen the monitor enter/exit on a thread-local object; the CAS pair is
 * shaped the same way so the ratio compares lock protocols, not call overheads.
 *
 * <p>Below those, seed 001's workload suite, the same list as `fastpath lock`'s second table and
 * named so that `fastpath compare --by-workload` folds both to the same key (`basic-simple` and
 * `basicSimple`): HotSpot's own LockUnlock.java (test/micro/org/openjdk/bench/vm/lang) with its
 * innerCount loop counted as the operations, MonitorBench's 3-deep recursion with rare waits
 * (1 ms waits here, as in the lab), single-use churn, a wait/notify producer-consumer and dining
 * philosophers. Multi-threaded rows report JMH's per-thread average time, as the lab does.
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

    // ---- seed 001's workload suite (LockUnlock.java's shapes, one loop trip per operation) ----

    /**
     * The locking mode's name, as a JMH parameter of every suite row: run.sh sets it with
     * `-p mode=...` beside the matching -XX:LockingMode, so a result file says which mode it
     * measured and `fastpath compare --by-workload` pairs each row with the lab's row of the same
     * `mode` (the lab writes all three modes into one file). A label only: nothing reads it. The
     * first four benchmarks above do not take it, as their lab rows are mode-independent
     * (cas-pair) or lightweight only.
     */
    @State(Scope.Benchmark)
    public static class Label {
        @Param({"lightweight"})
        public String mode;
    }

    static final int INNER = 100;

    private final Object basic1 = new Object();
    private Object inflated1;
    private Object inflated2;
    private int dummy1;
    private int dummy2;
    private int factorial;

    @Setup
    public void inflate() throws InterruptedException {
        inflated1 = new Object();
        inflated2 = new Object();
        // As LockUnlock.setup: a timed wait inflates the lock to an ObjectMonitor.
        synchronized (inflated1) {
            inflated1.wait(1);
        }
        synchronized (inflated2) {
            inflated2.wait(1);
        }
    }

    private void simple(Object o) {
        for (int i = 0; i < INNER; i++) {
            synchronized (o) {
                dummy1++;
                dummy2++;
            }
        }
    }

    /**
     * Each level of the nested pair is a method of its own that C2 inlines: two `synchronized`
     * blocks nested in one method make JDK 25's C2 (and C1) refuse it as "unbalanced monitors"
     * (javac's exception ranges for the inner monitor), and the row would time the interpreter.
     */
    private void recursive(Object o) {
        for (int i = 0; i < INNER; i++) {
            outerHold(o);
        }
    }

    @CompilerControl(CompilerControl.Mode.INLINE)
    private void outerHold(Object o) {
        synchronized (o) {
            innerHold(o);
        }
    }

    @CompilerControl(CompilerControl.Mode.INLINE)
    private void innerHold(Object o) {
        synchronized (o) {
            dummy1++;
            dummy2++;
        }
    }

    private void serial(Object a, Object b) {
        for (int i = 0; i < INNER; i++) {
            synchronized (a) {
                dummy1++;
            }
            synchronized (b) {
                dummy2++;
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(INNER)
    public void basicSimple(Label label) {
        simple(basic1);
    }

    @Benchmark
    @OperationsPerInvocation(INNER)
    public void basicRecursive(Label label) {
        recursive(basic1);
    }

    @Benchmark
    @OperationsPerInvocation(INNER)
    public void basicSerial(Label label) {
        serial(basic1, basic1);
    }

    @Benchmark
    @OperationsPerInvocation(INNER)
    public void inflatedSimple(Label label) {
        simple(inflated1);
    }

    @Benchmark
    @OperationsPerInvocation(INNER)
    public void inflatedRecursive(Label label) {
        recursive(inflated1);
    }

    @Benchmark
    @OperationsPerInvocation(INNER)
    public void inflatedSerial(Label label) {
        serial(inflated1, inflated1);
    }

    @Benchmark
    @OperationsPerInvocation(INNER)
    public void inflatedMultipleSerial(Label label) {
        serial(inflated1, inflated2);
    }

    @Benchmark
    @OperationsPerInvocation(INNER)
    public void inflatedMultipleRecursive(Label label) {
        for (int i = 0; i < INNER; i++) {
            synchronized (inflated1) {
                dummy1++;
                synchronized (inflated2) {
                    dummy2++;
                }
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(INNER)
    public void inflatedRecursiveOnly(Label label) {
        synchronized (inflated1) {
            simple(inflated1);
        }
    }

    /** LockUnlock.testRecursiveSynchronization: fact(10), 11 nested holds of `this`. */
    @Benchmark
    public int recursiveSynchronization(Label label) {
        factorial = fact(10);
        return factorial;
    }

    private synchronized int fact(int n) {
        return n == 0 ? 1 : fact(n - 1) * n;
    }

    /** Single-use lock on a fresh object (StringBuffer-style); the suite's name for `churn`. */
    @Benchmark
    public int singleUse(Label label) {
        return locked(new Object());
    }

    /** Single-use lock on a fresh object, locked twice nested (a synchronized method calling another). */
    @Benchmark
    public int singleUseRecursive(Label label) {
        Object o = new Object();
        synchronized (o) {
            return locked(o);
        }
    }

    /** State shared by the multi-threaded workloads. */
    @State(Scope.Benchmark)
    public static class Shared {
        final Object lock = new Object();
        final Object[] forks = new Object[DINERS];
        final AtomicInteger seats = new AtomicInteger();
        int dummy;

        @Setup
        public void setup() {
            for (int i = 0; i < DINERS; i++) {
                forks[i] = new Object();
            }
        }
    }

    /** LockUnlock.testContendedLock: 3 threads on one object. */
    @Benchmark
    @Threads(3)
    public int contended3t(Shared s, Label label) {
        synchronized (s.lock) {
            return ++s.dummy;
        }
    }

    static final int CONSUME = 50;
    static final int WAIT_ONE_IN = 10_000;

    /** MonitorBench.action: 3-deep recursion on one shared lock, every CPU, rare waits. */
    @Benchmark
    @Threads(Threads.MAX)
    public int monitorBench(Shared s, Label label) throws InterruptedException {
        Blackhole.consumeCPU(CONSUME);
        synchronized (s.lock) {
            while (true) {
                if (update1(s.lock)) {
                    return 0;
                }
                s.lock.wait(1);
            }
        }
    }

    private static boolean update1(Object lock) {
        synchronized (lock) {
            Blackhole.consumeCPU(CONSUME);
            return update2(lock);
        }
    }

    private static boolean update2(Object lock) {
        synchronized (lock) {
            Blackhole.consumeCPU(CONSUME);
            if (ThreadLocalRandom.current().nextInt(WAIT_ONE_IN) < 1) {
                return false;
            }
            Blackhole.consumeCPU(CONSUME);
            return true;
        }
    }

    static final int DINERS = 5;

    /** A diner's seat, taken once per thread. */
    @State(Scope.Thread)
    public static class Seat {
        int left;
        int right;

        @Setup
        public void sit(Shared s) {
            int i = s.seats.getAndIncrement() % DINERS;
            int j = (i + 1) % DINERS;
            left = Math.min(i, j);
            right = Math.max(i, j);
        }
    }

    /** Dining philosophers: forks taken in index order, some work while eating. */
    @Benchmark
    @Threads(DINERS)
    public int philosophers(Shared s, Seat seat, Label label) {
        synchronized (s.forks[seat.left]) {
            synchronized (s.forks[seat.right]) {
                Blackhole.consumeCPU(CONSUME);
                return ++s.dummy;
            }
        }
    }

    static final int SLOTS = 16;

    /** The producer-consumer buffer, guarded by its own monitor. */
    @State(Scope.Group)
    public static class Buffer {
        final ArrayDeque<Integer> items = new ArrayDeque<>(SLOTS);
    }

    /** Producer half: wait for room, put, notify (1 ms timeouts, as the lab). */
    @Benchmark
    @Group("producerConsumer")
    @GroupThreads(1)
    public void put(Buffer b, Label label) throws InterruptedException {
        synchronized (b) {
            if (b.items.size() >= SLOTS) {
                b.wait(1);
            }
            if (b.items.size() < SLOTS) {
                b.items.addLast(1);
                b.notify();
            }
        }
    }

    /** Consumer half. */
    @Benchmark
    @Group("producerConsumer")
    @GroupThreads(1)
    public Integer take(Buffer b, Label label) throws InterruptedException {
        synchronized (b) {
            if (b.items.isEmpty()) {
                b.wait(1);
            }
            Integer v = b.items.pollFirst();
            if (v != null) {
                b.notify();
            }
            return v;
        }
    }
}
