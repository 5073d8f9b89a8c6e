import java.util.concurrent.CountDownLatch;

// Runs `count` copies of a task on fresh threads released together by a start latch, and
// waits for all of them: the thread set-up stays outside the contended part as far as a
// per-iteration start allows. A worker's exception fails the whole run.
final class Workers {
    interface Task {
        void run(int index) throws Exception;
    }

    static void runAll(int count, Task task) {
        CountDownLatch start = new CountDownLatch(1);
        Thread[] threads = new Thread[count];
        Throwable[] failure = new Throwable[1];
        for (int i = 0; i < count; i++) {
            final int index = i;
            threads[i] = new Thread(() -> {
                try {
                    start.await();
                    task.run(index);
                } catch (Throwable t) {
                    synchronized (failure) {
                        if (failure[0] == null) {
                            failure[0] = t;
                        }
                    }
                }
            });
            threads[i].start();
        }
        start.countDown();
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
        if (failure[0] != null) {
            throw new IllegalStateException("worker failed", failure[0]);
        }
    }

    // The share of `total` for worker `index` of `count` (shares differ by at most one).
    static int share(int total, int count, int index) {
        return total / count + (index < total % count ? 1 : 0);
    }
}
