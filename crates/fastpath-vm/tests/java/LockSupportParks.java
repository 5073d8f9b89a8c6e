// tags: concurrent thread
// release: 17
// LockSupport's permit: one bit that unpark sets and park consumes; park returns at an unpark,
// an interrupt (the status stays set) or its time; the blocker is visible while parked; an
// unpark before start has no effect; ten thousand ping-pong hand-offs lose no wake-up.
import java.util.concurrent.locks.LockSupport;

public class LockSupportParks {
    static volatile int turn;
    static volatile boolean parkedFlag;

    static long millisSince(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }

    public static void main(String[] args) throws Exception {
        Thread me = Thread.currentThread();
        LockSupport.unpark(me);
        long t0 = System.nanoTime();
        LockSupport.park();
        System.out.println("permit consumed at once: " + (millisSince(t0) < 1000));

        LockSupport.unpark(me);
        LockSupport.unpark(me);
        t0 = System.nanoTime();
        LockSupport.parkNanos(50_000_000L);
        boolean first = millisSince(t0) < 40;
        t0 = System.nanoTime();
        LockSupport.parkNanos(50_000_000L);
        System.out.println("two unparks, one permit: " + first + " " + (millisSince(t0) >= 40));

        t0 = System.nanoTime();
        LockSupport.parkNanos(0);
        LockSupport.parkNanos(-5);
        LockSupport.parkUntil(System.currentTimeMillis() - 1000);
        LockSupport.parkUntil(0);
        System.out.println("elapsed times return at once: " + (millisSince(t0) < 1000));
        t0 = System.nanoTime();
        LockSupport.parkUntil(System.currentTimeMillis() + 60);
        System.out.println("parkUntil waits: " + (millisSince(t0) >= 40));

        Object blocker = "the blocker";
        Thread parked = new Thread(() -> {
            parkedFlag = true;
            while (parkedFlag) LockSupport.park(blocker);
        });
        parked.start();
        while (LockSupport.getBlocker(parked) != blocker) Thread.sleep(1);
        System.out.println("blocker while parked: " + LockSupport.getBlocker(parked));
        parkedFlag = false;
        LockSupport.unpark(parked);
        parked.join();
        System.out.println("blocker after: " + LockSupport.getBlocker(parked));

        Thread interrupted = new Thread(() -> {
            long s = System.nanoTime();
            while (!Thread.currentThread().isInterrupted() && millisSince(s) < 10_000) LockSupport.park();
            System.out.println("interrupt unparks, status kept: " + Thread.currentThread().isInterrupted()
                + " " + (millisSince(s) < 10_000));
        });
        interrupted.start();
        Thread.sleep(20);
        interrupted.interrupt();
        interrupted.join();

        me.interrupt();
        t0 = System.nanoTime();
        LockSupport.park();
        LockSupport.parkNanos(5_000_000_000L);
        System.out.println("interrupted thread does not park: " + (millisSince(t0) < 1000) + " "
            + Thread.interrupted());

        Thread notStarted = new Thread(() -> {
            long s = System.nanoTime();
            LockSupport.parkNanos(100_000_000L);
            System.out.println("unpark before start is lost: " + (millisSince(s) >= 80));
        });
        LockSupport.unpark(notStarted);
        LockSupport.unpark(null);
        notStarted.start();
        notStarted.join();

        try {
            LockSupport.getBlocker(null);
        } catch (NullPointerException e) {
            System.out.println("getBlocker(null): NullPointerException");
        }

        final int rounds = 10_000;
        Thread[] players = new Thread[2];
        for (int p = 0; p < 2; p++) {
            final int mine = p;
            players[p] = new Thread(() -> {
                for (int i = 0; i < rounds; i++) {
                    while (turn != mine) LockSupport.park();
                    turn = 1 - mine;
                    LockSupport.unpark(players[1 - mine]);
                }
            });
        }
        players[0].start();
        players[1].start();
        players[0].join();
        players[1].join();
        System.out.println("ping-pong: " + rounds + " rounds each, turn " + turn);
    }
}
