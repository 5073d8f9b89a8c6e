// tags: concurrent thread
// release: 17
// Two threads touch the same unstarted Thread objects at once, one interrupting each, the other
// asking whether it is interrupted (both make the VM's record of a Thread that has none): every
// interrupt is kept, before and after the thread starts; a started thread sees its interrupt.
public class UnstartedInterrupts {
    static final int N = 3000;
    static final Thread[] targets = new Thread[N];
    static volatile int interrupterAt = -1;
    static volatile int askerAt = -1;

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < N; i++) {
            targets[i] = new Thread(() -> {});
        }
        Thread interrupter = new Thread(() -> {
            for (int i = 0; i < N; i++) {
                while (askerAt < i - 1) {
                    Thread.onSpinWait();
                }
                targets[i].interrupt();
                interrupterAt = i;
            }
        });
        Thread asker = new Thread(() -> {
            for (int i = 0; i < N; i++) {
                while (interrupterAt < i - 1) {
                    Thread.onSpinWait();
                }
                targets[i].isInterrupted();
                askerAt = i;
            }
        });
        interrupter.start();
        asker.start();
        interrupter.join();
        asker.join();
        int lost = 0;
        for (Thread t : targets) {
            if (!t.isInterrupted()) {
                lost++;
            }
        }
        System.out.println("interrupts lost on unstarted threads: " + lost + " of " + N);

        int seen = 0;
        for (int i = 0; i < 8; i++) {
            boolean[] sawIt = new boolean[1];
            Thread t = new Thread(() -> sawIt[0] = Thread.currentThread().isInterrupted());
            t.interrupt();
            t.start();
            t.join();
            if (sawIt[0]) {
                seen++;
            }
        }
        System.out.println("started threads that saw their interrupt: " + seen + " of 8");
    }
}
