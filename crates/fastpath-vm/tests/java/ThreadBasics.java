// tags: thread
// release: 9
// Thread life cycle: default names Thread-N (numbered in creation order of unnamed threads),
// explicit names, currentThread inside and outside, isAlive before start / while running /
// after join, join on a thread that never started, results handed back through fields after
// join (join is a happens-before edge), daemon status (inherited from the creating thread,
// set before start, rejected after start), interrupt flags (isInterrupted, interrupted()
// clearing), sleep, Thread.onSpinWait in a spin loop on a volatile flag, and many short-lived
// threads.
public class ThreadBasics {
    static volatile boolean flag;
    static int result;

    public static void main(String[] args) throws InterruptedException {
        System.out.println("main thread: " + Thread.currentThread().getName() + " daemon "
            + Thread.currentThread().isDaemon());
        Thread a = new Thread(() -> result = 6 * 7);
        Thread b = new Thread(() -> { }, "custom-name");
        Thread c = new Thread(() -> { });
        System.out.println("names " + a.getName() + " " + b.getName() + " " + c.getName());
        System.out.println("alive before start " + a.isAlive());
        a.start();
        a.join();
        System.out.println("after join: alive " + a.isAlive() + " result " + result);
        c.join();
        System.out.println("join on an unstarted thread returns at once");
        b.setName("renamed");
        String[] seenName = new String[1];
        Thread named = new Thread(() -> seenName[0] = Thread.currentThread().getName(), "inside-name");
        named.start();
        named.join();
        System.out.println("currentThread inside: " + seenName[0] + ", renamed: " + b.getName());

        CountHolder holder = new CountHolder();
        Thread spinner = new Thread(() -> {
            while (!flag) {
                Thread.onSpinWait();
            }
            holder.count = 1;
        });
        spinner.start();
        Thread.sleep(10);
        System.out.println("spinner alive while spinning " + spinner.isAlive());
        flag = true;
        spinner.join();
        System.out.println("spinner saw the flag " + holder.count);

        Object gate = new Object();
        boolean[] open = new boolean[1];
        Thread d = new Thread(() -> {
            synchronized (gate) {
                while (!open[0]) {
                    try {
                        gate.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        });
        d.setDaemon(true);
        boolean[] childDaemon = new boolean[2];
        Thread parent = new Thread(() -> {
            Thread child = new Thread(() -> { });
            childDaemon[0] = child.isDaemon();
            child.setDaemon(false);
            childDaemon[1] = child.isDaemon();
        });
        parent.setDaemon(true);
        parent.start();
        parent.join();
        System.out.println("daemon " + d.isDaemon() + ", child of daemon is daemon " + childDaemon[0] + ", can unset "
            + !childDaemon[1]);
        d.start();
        try {
            d.setDaemon(false);
        } catch (IllegalThreadStateException e) {
            System.out.println("setDaemon after start: IllegalThreadStateException");
        }
        synchronized (gate) {
            open[0] = true;
            gate.notifyAll();
        }
        d.join();

        Thread self = Thread.currentThread();
        System.out.println("interrupt flag " + self.isInterrupted());
        self.interrupt();
        System.out.println("after interrupt " + self.isInterrupted() + " " + self.isInterrupted());
        System.out.println("interrupted() " + Thread.interrupted() + " " + Thread.interrupted() + " " + self.isInterrupted());
        self.interrupt();
        try {
            Thread.sleep(1000);
            System.out.println("slept despite the interrupt?");
        } catch (InterruptedException e) {
            System.out.println("sleep with a pending interrupt throws; flag " + self.isInterrupted());
        }
        Thread finished = new Thread(() -> { });
        finished.start();
        finished.join();
        finished.interrupt();
        System.out.println("interrupting a finished thread is harmless " + finished.isAlive());

        long start = System.nanoTime();
        Thread.sleep(20);
        System.out.println("slept at least 20 ms " + (System.nanoTime() - start >= 20_000_000L));

        int n = 100;
        long[] partial = new long[n];
        Thread[] many = new Thread[n];
        for (int i = 0; i < n; i++) {
            final int id = i;
            many[i] = new Thread(() -> {
                long s = 0;
                for (int k = 0; k <= id * 100; k++) {
                    s += k;
                }
                partial[id] = s;
            });
            many[i].start();
        }
        long total = 0;
        for (int i = 0; i < n; i++) {
            many[i].join();
            total += partial[i];
        }
        System.out.println("100 threads total " + total + ", last default name " + many[n - 1].getName());
    }

    static final class CountHolder {
        int count;
    }
}
