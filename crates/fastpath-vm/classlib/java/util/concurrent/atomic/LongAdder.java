package java.util.concurrent.atomic;

/** A sum updated by many threads: one atomic cell (fastpath's CAS is what it costs). */
public class LongAdder extends Number implements java.io.Serializable {
    private final AtomicLong cell = new AtomicLong();
    public LongAdder() {}
    public void add(long x) { cell.addAndGet(x); }
    public void increment() { add(1L); }
    public void decrement() { add(-1L); }
    public long sum() { return cell.get(); }
    public void reset() { cell.set(0L); }
    public long sumThenReset() { return cell.getAndSet(0L); }
    public String toString() { return Long.toString(sum()); }
    public long longValue() { return sum(); }
    public int intValue() { return (int) sum(); }
    public float floatValue() { return (float) sum(); }
    public double doubleValue() { return (double) sum(); }
}
