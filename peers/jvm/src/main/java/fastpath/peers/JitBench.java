package fastpath.peers;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.CompilerControl;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The HotSpot C2 side of `fastpath jit`: the fast paths C2 inlines, each in a loop of N operations
 * compiled into one method, as the lab's generated loops inline fastpath's templates.
 *
 * <p>Locking (seed 001's shapes): `uncontended` (synchronized on one object, a counter increment
 * inside), `recursive` (the same inside an outer hold of the object), `churn` (a fresh object per
 * pair), beside `casPair` (two CASes on a word around the increment: the lab's baseline). run.sh
 * runs these with -XX:-EliminateLocks so that C2 neither coarsens adjacent pairs of the unrolled
 * loop nor removes nested or non-escaping locks: every operation is one real monitorenter and
 * monitorexit, as in the lab's loop (and `churn` then allocates its object, which the lab's loop
 * does not: it writes a fresh header on the stack).
 *
 * <p>Barriers (seed 003's, one at a time): `refStore` stores a reference into N distinct array
 * elements, `refLoad` loads N references and reads a field through each. run.sh runs them under
 * Epsilon (no barrier: the baseline), Serial (the card mark), and Shenandoah passive with one
 * barrier re-enabled (SATB for stores, LoadRef for loads), all with -XX:-UseCompressedOops (64-bit
 * references, as fastpath's heap) and -XX:-UseSuperWord (no vectorised stores, as the lab's loops);
 * the `gc` parameter labels the configuration. A label only: nothing reads it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class JitBench {
    /** Operations per benchmark invocation (per loop). */
    static final int N = 1024;

    private final Object lock = new Object();
    private final AtomicLong word = new AtomicLong();
    private long counter;

    /** Baseline: two CASes on a word (take, give back) around the increment. */
    @Benchmark
    @OperationsPerInvocation(N)
    public long casPair() {
        for (int i = 0; i < N; i++) {
            if (word.compareAndSet(0, 1)) {
                counter++;
                word.compareAndSet(1, 0);
            }
        }
        return counter;
    }

    /** synchronized (lock) { counter++ }, N times. */
    @Benchmark
    @OperationsPerInvocation(N)
    public long uncontended() {
        Object o = lock;
        for (int i = 0; i < N; i++) {
            synchronized (o) {
                counter++;
            }
        }
        return counter;
    }

    /**
     * The same pairs inside an outer hold of the object: recursive fast paths. The inner pair is a
     * method C2 inlines: written inline, javac's exception ranges for a monitor nested in a loop
     * make C2 (and C1's OSR) refuse the method as "unbalanced monitors", and the row would time
     * the interpreter.
     */
    @Benchmark
    @OperationsPerInvocation(N)
    public long recursive() {
        Object o = lock;
        synchronized (o) {
            for (int i = 0; i < N; i++) {
                increment(o);
            }
        }
        return counter;
    }

    @CompilerControl(CompilerControl.Mode.INLINE)
    private void increment(Object o) {
        synchronized (o) {
            counter++;
        }
    }

    /** A fresh object per pair (single-use locks: seed 001's reason for fast-locking). */
    @Benchmark
    @OperationsPerInvocation(N)
    public long churn() {
        for (int i = 0; i < N; i++) {
            Object o = new Object();
            synchronized (o) {
                counter++;
            }
        }
        return counter;
    }

    /** An object with one data field, read through each loaded reference. */
    public static final class Node {
        long value = 1;
    }

    /** The GC configuration run.sh started this fork with (a label). */
    @Param({"epsilon"})
    public String gc;

    private Object[] refs;
    private Node[] nodes;
    private Node node;

    @Setup
    public void fill() {
        refs = new Object[N];
        nodes = new Node[N];
        for (int i = 0; i < N; i++) {
            nodes[i] = new Node();
        }
        node = new Node();
    }

    /** N reference stores into distinct elements (SATB pre-barrier, card post-barrier). */
    @Benchmark
    @OperationsPerInvocation(N)
    public Object[] refStore() {
        Object[] a = refs;
        Object v = node;
        for (int i = 0; i < N; i++) {
            a[i] = v;
        }
        return a;
    }

    /** N reference loads, each used for a field read (load-reference barrier). */
    @Benchmark
    @OperationsPerInvocation(N)
    public long refLoad() {
        Node[] a = nodes;
        long s = 0;
        for (int i = 0; i < N; i++) {
            s += a[i].value;
        }
        return s;
    }
}
