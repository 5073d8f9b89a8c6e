// tags: basic thread
// release: 19
// exit: 3
// System.exit(3) from a nested call inside try/finally: the status is 3, finally blocks do not
// run, and a non-daemon thread still blocked does not keep the VM alive.
public class SystemExit {
    static void leave(int status) {
        try {
            System.out.println("exiting with " + status);
            System.exit(status);
        } finally {
            System.out.println("finally must not run");
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Object never = new Object();
        Thread blocked = new Thread(() -> {
            synchronized (never) {
                try {
                    never.wait();
                } catch (InterruptedException e) {
                    System.out.println("interrupted");
                }
            }
        });
        blocked.start();
        int sum = 0;
        for (int i = 1; i <= 100; i++) {
            sum += i;
        }
        System.out.println("sum " + sum);
        try {
            leave(3);
        } finally {
            System.out.println("outer finally must not run");
        }
        System.out.println("unreachable");
    }
}
