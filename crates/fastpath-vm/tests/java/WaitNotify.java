// tags: monitor thread
// release: 11
// wait/notify between threads: a timed wait with no notifier returns after its timeout; a
// ping-pong of 1000 exact turns; notifyAll waking every waiter; notify waking one at a time;
// a wait releasing a recursively held lock entirely and restoring the recursion count;
// interrupting a waiting thread and a sleeping thread (InterruptedException, flag cleared);
// an interrupt pending before wait; an interrupt while blocked entering a monitor (not
// interruptible; the flag stays set). All guarded by conditions, so spurious wakeups are
// harmless.
public class WaitNotify {
    static final Object LOCK = new Object();
    static int turn = 0;
    static int released = 0;
    static int awake = 0;
    static boolean go = false;

    public static void main(String[] args) throws InterruptedException {
        long start = System.nanoTime();
        synchronized (LOCK) {
            long deadline = start + 30_000_000L;
            long now;
            while ((now = System.nanoTime()) < deadline) {
                LOCK.wait(Math.max(1, (deadline - now) / 1_000_000));
            }
        }
        System.out.println("timed wait returned after its timeout: " + (System.nanoTime() - start >= 30_000_000L));

        int rounds = 1000;
        int[] seen = new int[2];
        Thread[] players = new Thread[2];
        for (int p = 0; p < 2; p++) {
            final int me = p;
            players[p] = new Thread(() -> {
                for (int i = 0; i < rounds; i++) {
                    synchronized (LOCK) {
                        while (turn % 2 != me) {
                            try {
                                LOCK.wait();
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                        seen[me]++;
                        turn++;
                        LOCK.notifyAll();
                    }
                }
            });
            players[p].start();
        }
        for (Thread t : players) {
            t.join();
        }
        System.out.println("ping-pong turns " + turn + " " + seen[0] + " " + seen[1]);

        int waiters = 5;
        Thread[] ws = new Thread[waiters];
        for (int i = 0; i < waiters; i++) {
            ws[i] = new Thread(() -> {
                synchronized (LOCK) {
                    released++;
                    while (!go) {
                        try {
                            LOCK.wait();
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                    awake++;
                }
            });
            ws[i].start();
        }
        waitUntil(() -> released == waiters);
        synchronized (LOCK) {
            go = true;
            LOCK.notifyAll();
        }
        for (Thread t : ws) {
            t.join();
        }
        System.out.println("notifyAll woke " + awake + " of " + waiters);

        int[] permits = {0};
        int[] consumed = {0};
        Thread[] singles = new Thread[3];
        for (int i = 0; i < 3; i++) {
            singles[i] = new Thread(() -> {
                synchronized (permits) {
                    while (permits[0] == 0) {
                        try {
                            permits.wait();
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                    permits[0]--;
                    consumed[0]++;
                }
            });
            singles[i].start();
        }
        for (int i = 0; i < 3; i++) {
            synchronized (permits) {
                permits[0]++;
                permits.notify();
            }
        }
        for (Thread t : singles) {
            t.join();
        }
        System.out.println("notify one at a time: consumed " + consumed[0] + ", permits left " + permits[0]);

        Object rec = new Object();
        boolean[] otherEntered = {false};
        int[] stage = {0};
        Thread holder = new Thread(() -> {
            synchronized (rec) {
                synchronized (rec) {
                    synchronized (rec) {
                        stage[0] = 1;
                        while (!otherEntered[0]) {
                            try {
                                rec.wait();
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                        stage[0] = 2;
                    }
                    stage[0] = 3;
                }
                stage[0] = 4;
            }
        });
        holder.start();
        waitUntilLocked(rec, () -> stage[0] == 1);
        synchronized (rec) {
            otherEntered[0] = true;
            rec.notifyAll();
        }
        holder.join();
        System.out.println("wait released a lock held three times; after waking, exits reached stage " + stage[0]);

        Thread waiter = new Thread(() -> {
            synchronized (LOCK) {
                try {
                    while (true) {
                        LOCK.wait();
                    }
                } catch (InterruptedException e) {
                    System.out.println("waiter interrupted, flag now " + Thread.currentThread().isInterrupted());
                }
            }
        });
        waiter.start();
        waiter.interrupt();
        waiter.join();
        Thread sleeper = new Thread(() -> {
            try {
                Thread.sleep(60_000);
                System.out.println("slept a minute?");
            } catch (InterruptedException e) {
                System.out.println("sleeper interrupted, flag now " + Thread.currentThread().isInterrupted());
            }
        });
        sleeper.start();
        sleeper.interrupt();
        sleeper.join();
        Thread.currentThread().interrupt();
        synchronized (LOCK) {
            try {
                LOCK.wait();
                System.out.println("waited despite a pending interrupt?");
            } catch (InterruptedException e) {
                System.out.println("pending interrupt made wait throw at once, flag now "
                    + Thread.currentThread().isInterrupted());
            }
        }
        Thread.currentThread().interrupt();
        System.out.println("interrupted() " + Thread.interrupted() + " then " + Thread.interrupted());

        Object gate = new Object();
        boolean[] flagAfterEnter = new boolean[1];
        int[] entered = {0};
        Thread blocked;
        synchronized (gate) {
            blocked = new Thread(() -> {
                synchronized (gate) {
                    entered[0] = 1;
                    flagAfterEnter[0] = Thread.currentThread().isInterrupted();
                }
            });
            blocked.start();
            Thread.sleep(20);
            blocked.interrupt();
            Thread.sleep(20);
            System.out.println("blocked on monitor enter, entered " + entered[0]);
        }
        blocked.join();
        System.out.println("entered after release " + entered[0] + ", interrupt flag kept " + flagAfterEnter[0]);
    }

    interface Condition {
        boolean holds();
    }

    static void waitUntil(Condition c) throws InterruptedException {
        while (true) {
            synchronized (LOCK) {
                if (c.holds()) {
                    return;
                }
            }
            Thread.sleep(1);
        }
    }

    static void waitUntilLocked(Object lock, Condition c) throws InterruptedException {
        while (true) {
            synchronized (lock) {
                if (c.holds()) {
                    return;
                }
            }
            Thread.sleep(1);
        }
    }
}
