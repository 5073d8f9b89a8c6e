// tags: exception thread
// release: 11
// An exception escaping a non-main thread: the default handler prints
// "Exception in thread "Thread-N" ..." to stderr, the thread dies, and the program continues
// and exits 0. Threads are started and joined one at a time so stderr's order is fixed.
// The exceptions thrown have no stack trace (writableStackTrace false): a trace would end in
// JDK frames (Thread.run and, on JDK 21+, Thread.runWith) whose line numbers differ per JDK.
public class UncaughtThread {
    static class Failure extends RuntimeException {
        Failure(String message) {
            super(message, null, false, false);
        }
    }

    static class Nested extends RuntimeException {
        Nested(String message, Throwable cause) {
            super(message, cause, false, false);
        }
    }

    static int counter = 0;

    public static void main(String[] args) throws InterruptedException {
        Thread first = new Thread(() -> {
            counter += 1;
            throw new Failure("first worker failed");
        });
        first.start();
        first.join();
        System.out.println("first joined, alive " + first.isAlive() + ", counter " + counter);

        Thread named = new Thread(() -> {
            counter += 10;
            throw new Nested("named worker failed", new Failure("root cause"));
        }, "worker-named");
        named.start();
        named.join();
        System.out.println("named joined, counter " + counter);

        Thread ok = new Thread(() -> counter += 100);
        ok.start();
        ok.join();
        Thread third = new Thread(() -> {
            throw new Failure(Thread.currentThread().getName() + " failed");
        });
        third.start();
        third.join();
        System.out.println("main continues, counter " + counter);
    }
}
