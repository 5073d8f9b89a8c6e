package java.util.concurrent;

/**
 * A barrier that `parties` threads wait at until all have arrived; the last to arrive runs
 * the barrier action, and the barrier resets for the next generation. A thread interrupted or
 * timed out while waiting, or a failing action, breaks the generation: every waiter of it gets
 * BrokenBarrierException, and so does every later await until reset(). One monitor (fastpath's)
 * guards the state; a Generation object tells the waiters of one round from the next's.
 */
public class CyclicBarrier {
    private static final class Generation {
        boolean broken;
    }

    private final int parties;
    private final Runnable barrierCommand;
    private Generation generation = new Generation();
    /** Parties still to arrive in this generation. */
    private int count;

    public CyclicBarrier(int parties, Runnable barrierAction) {
        if (parties <= 0) throw new IllegalArgumentException();
        this.parties = parties;
        this.count = parties;
        this.barrierCommand = barrierAction;
    }

    public CyclicBarrier(int parties) { this(parties, null); }

    public int getParties() { return parties; }

    public int await() throws InterruptedException, BrokenBarrierException {
        try {
            return dowait(false, 0L);
        } catch (TimeoutException toe) {
            throw new Error(toe);
        }
    }

    public int await(long timeout, TimeUnit unit) throws InterruptedException, BrokenBarrierException, TimeoutException {
        return dowait(true, unit.toNanos(timeout));
    }

    private synchronized int dowait(boolean timed, long nanos)
            throws InterruptedException, BrokenBarrierException, TimeoutException {
        Generation g = generation;
        if (g.broken) throw new BrokenBarrierException();
        if (Thread.interrupted()) {
            breakBarrier();
            throw new InterruptedException();
        }
        int index = --count;
        if (index == 0) {
            boolean ranAction = false;
            try {
                if (barrierCommand != null) barrierCommand.run();
                ranAction = true;
                nextGeneration();
                return 0;
            } finally {
                if (!ranAction) breakBarrier();
            }
        }
        long deadline = System.nanoTime() + nanos;
        for (;;) {
            try {
                if (!timed) {
                    wait();
                } else {
                    long left = deadline - System.nanoTime();
                    if (left > 0) TimeUnit.NANOSECONDS.timedWait(this, left);
                }
            } catch (InterruptedException ie) {
                if (g == generation && !g.broken) {
                    breakBarrier();
                    throw ie;
                }
                // The round already ended: keep the interrupt for later.
                Thread.currentThread().interrupt();
            }
            if (g.broken) throw new BrokenBarrierException();
            if (g != generation) return index;
            if (timed && deadline - System.nanoTime() <= 0) {
                breakBarrier();
                throw new TimeoutException();
            }
        }
    }

    private void nextGeneration() {
        notifyAll();
        count = parties;
        generation = new Generation();
    }

    private void breakBarrier() {
        generation.broken = true;
        count = parties;
        notifyAll();
    }

    public synchronized boolean isBroken() { return generation.broken; }

    public synchronized void reset() {
        breakBarrier();
        nextGeneration();
    }

    public synchronized int getNumberWaiting() { return parties - count; }
}
