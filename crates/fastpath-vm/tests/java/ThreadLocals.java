// tags: thread concurrent
// release: 11
// ThreadLocal: each thread's own value (withInitial, an initialValue override, set, remove,
// null values), initialValue called once per thread until remove, values kept across tasks
// on one pool thread, many threads with their own values. Threads compute; main prints.
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

public class ThreadLocals {
    static final AtomicInteger inits = new AtomicInteger();
    static final ThreadLocal<StringBuilder> LOG = ThreadLocal.withInitial(() -> {
        inits.incrementAndGet();
        return new StringBuilder();
    });
    static final ThreadLocal<Integer> COUNTER = new ThreadLocal<>() {
        @Override
        protected Integer initialValue() {
            return 100;
        }
    };
    static final ThreadLocal<String> PLAIN = new ThreadLocal<>();

    public static void main(String[] args) throws Exception {
        System.out.println("main " + PLAIN.get() + " " + COUNTER.get() + " [" + LOG.get() + "]");
        PLAIN.set("main-value");
        COUNTER.set(COUNTER.get() + 1);
        LOG.get().append("m");

        String[] seen = new String[8];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            final int id = i;
            Thread t = new Thread(() -> {
                StringBuilder sb = new StringBuilder();
                sb.append(PLAIN.get()).append(' ').append(COUNTER.get());
                PLAIN.set("t" + id);
                for (int k = 0; k < id; k++) {
                    COUNTER.set(COUNTER.get() + 1);
                    LOG.get().append(k);
                }
                sb.append(' ').append(PLAIN.get()).append(' ').append(COUNTER.get()).append(' ').append(LOG.get());
                PLAIN.set(null);
                sb.append(' ').append(PLAIN.get());
                COUNTER.remove();
                sb.append(' ').append(COUNTER.get());
                seen[id] = sb.toString();
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        for (String s : seen) {
            System.out.println(s);
        }
        System.out.println("main again " + PLAIN.get() + " " + COUNTER.get() + " [" + LOG.get() + "] inits " + inits.get());

        // One pool thread runs every task: its values carry from task to task.
        ExecutorService single = Executors.newFixedThreadPool(1);
        List<Future<String>> results = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            results.add(single.submit(() -> {
                COUNTER.set(COUNTER.get() + 10);
                return LOG.get().append('x').toString() + COUNTER.get();
            }));
        }
        StringBuilder out = new StringBuilder();
        for (Future<String> f : results) {
            out.append(f.get()).append(' ');
        }
        single.shutdown();
        single.awaitTermination(10, TimeUnit.SECONDS);
        System.out.println("pool " + out + "inits " + inits.get());
        LOG.remove();
        System.out.println("after remove [" + LOG.get() + "] inits " + inits.get());
    }
}
