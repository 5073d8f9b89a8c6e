// tags: thread
// release: 11
// VM exit waits for non-daemon threads and not for daemon ones: main returns while a daemon
// thread spins forever and a daemon thread sleeps forever; a non-daemon worker, released by
// main just before main returns, prints its line after main's and then the VM exits with 0.
import java.util.concurrent.CountDownLatch;

public class DaemonExit {
    public static void main(String[] args) {
        CountDownLatch mainDone = new CountDownLatch(1);
        Thread spinner = new Thread(() -> {
            long x = 0;
            while (true) {
                x++;
                if (x == Long.MIN_VALUE) {
                    System.out.println("never");
                }
            }
        });
        spinner.setDaemon(true);
        spinner.start();
        Thread sleeper = new Thread(() -> {
            while (true) {
                try {
                    Thread.sleep(100_000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        sleeper.setDaemon(true);
        sleeper.start();
        Thread worker = new Thread(() -> {
            try {
                mainDone.await();
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
            long sum = 0;
            for (int i = 0; i < 1000; i++) {
                sum += i;
            }
            System.out.println("worker finished after main: " + sum);
        });
        worker.start();
        System.out.println("main returns; daemons " + spinner.isDaemon() + " " + sleeper.isDaemon() + ", worker daemon "
            + worker.isDaemon());
        mainDone.countDown();
    }
}
