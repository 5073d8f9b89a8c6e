// tags: concurrent thread collections
// release: 17
// Semaphore (permits bounding concurrency, tryAcquire with and without timeout, drain),
// CyclicBarrier (arrival indices, the barrier action once per round, a timeout breaking the
// barrier for everyone, reset), LinkedBlockingQueue (bounded producer/consumer with exact
// sums, offer/poll timeouts, drainTo, iterator removal), ConcurrentLinkedQueue (concurrent
// adds and polls), CopyOnWriteArrayList and CopyOnWriteArraySet (snapshot iteration while
// adding, concurrent adds, addIfAbsent, unsupported iterator removal). Threads compute; main
// prints after join.
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.ListIterator;
import java.util.TreeSet;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

public class BarriersAndQueues {
    interface Body {
        void run(int id) throws Exception;
    }

    static void runThreads(int n, Body body) throws InterruptedException {
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final int id = i;
            Thread t = new Thread(() -> {
                try {
                    body.run(id);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            ts.add(t);
            t.start();
        }
        for (Thread t : ts) {
            t.join();
        }
    }

    public static void main(String[] args) throws Exception {
        // Semaphore: at most 3 of 8 threads inside at once.
        Semaphore sem = new Semaphore(3);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        AtomicLong work = new AtomicLong();
        runThreads(8, id -> {
            for (int r = 0; r < 50; r++) {
                sem.acquire();
                try {
                    int now = inside.incrementAndGet();
                    maxInside.accumulateAndGet(now, Math::max);
                    work.addAndGet(id * r);
                    Thread.yield();
                    inside.decrementAndGet();
                } finally {
                    sem.release();
                }
            }
        });
        System.out.println("semaphore max<=3 " + (maxInside.get() <= 3) + " work " + work.get() + " permits "
            + sem.availablePermits());
        System.out.println("try " + sem.tryAcquire(2) + " " + sem.tryAcquire(2) + " " + sem.availablePermits() + " timed "
            + sem.tryAcquire(1, 20, TimeUnit.MILLISECONDS) + " " + sem.tryAcquire(5, 20, TimeUnit.MILLISECONDS));
        sem.release(4);
        System.out.println("drain " + sem.drainPermits() + " " + sem.availablePermits() + " fair " + sem.isFair());
        Semaphore zero = new Semaphore(0);
        Thread releaser = new Thread(() -> zero.release(2));
        releaser.start();
        zero.acquire(2);
        releaser.join();
        System.out.println("acquired after release " + zero.availablePermits());
        try {
            new Semaphore(1).acquire(-1);
        } catch (IllegalArgumentException e) {
            System.out.println("negative acquire: " + e.getClass().getName());
        }

        // CyclicBarrier: 4 parties, 5 rounds; the action runs once per round.
        AtomicInteger rounds = new AtomicInteger();
        CyclicBarrier barrier = new CyclicBarrier(4, rounds::incrementAndGet);
        int[][] index = new int[4][5];
        int[][] seenRound = new int[4][5];
        runThreads(4, id -> {
            for (int r = 0; r < 5; r++) {
                index[id][r] = barrier.await();
                seenRound[id][r] = rounds.get();
            }
        });
        StringBuilder sb = new StringBuilder();
        for (int r = 0; r < 5; r++) {
            TreeSet<Integer> idx = new TreeSet<>();
            TreeSet<Integer> seen = new TreeSet<>();
            for (int id = 0; id < 4; id++) {
                idx.add(index[id][r]);
                seen.add(seenRound[id][r]);
            }
            sb.append(" ").append(idx).append(seen.first() >= r + 1);
        }
        System.out.println("barrier rounds " + rounds.get() + sb + " parties " + barrier.getParties() + " waiting "
            + barrier.getNumberWaiting() + " broken " + barrier.isBroken());

        // A timeout breaks the barrier for the waiting party and for later arrivals.
        CyclicBarrier pair = new CyclicBarrier(3);
        String[] outcome = new String[2];
        Thread waiter = new Thread(() -> {
            try {
                pair.await();
                outcome[0] = "passed";
            } catch (BrokenBarrierException e) {
                outcome[0] = "broken";
            } catch (InterruptedException e) {
                outcome[0] = "interrupted";
            }
        });
        waiter.start();
        while (pair.getNumberWaiting() == 0) {
            Thread.sleep(1);
        }
        try {
            pair.await(30, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            outcome[1] = "timed out";
        }
        waiter.join();
        System.out.println("pair " + outcome[0] + " " + outcome[1] + " broken " + pair.isBroken());
        try {
            pair.await();
        } catch (BrokenBarrierException e) {
            System.out.println("later await: " + e.getClass().getName());
        }
        pair.reset();
        System.out.println("reset broken " + pair.isBroken() + " waiting " + pair.getNumberWaiting());

        // LinkedBlockingQueue: 3 producers, 2 consumers through a queue of 5.
        LinkedBlockingQueue<Integer> q = new LinkedBlockingQueue<>(5);
        AtomicLong consumed = new AtomicLong();
        AtomicInteger count = new AtomicInteger();
        Thread[] consumers = new Thread[2];
        for (int c = 0; c < 2; c++) {
            consumers[c] = new Thread(() -> {
                try {
                    for (;;) {
                        int v = q.take();
                        if (v < 0) return;
                        consumed.addAndGet(v);
                        count.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            });
            consumers[c].start();
        }
        runThreads(3, id -> {
            for (int i = 1; i <= 300; i++) {
                q.put(id * 1000 + i);
            }
        });
        q.put(-1);
        q.put(-1);
        for (Thread t : consumers) {
            t.join();
        }
        System.out.println("queue consumed " + count.get() + " sum " + consumed.get() + " left " + q.size() + " capacity "
            + q.remainingCapacity());
        for (int i = 0; i < 5; i++) {
            q.offer(i * 10);
        }
        System.out.println("full " + q.offer(99) + " " + q.offer(99, 10, TimeUnit.MILLISECONDS) + " " + q + " peek " + q.peek()
            + " contains " + q.contains(30) + " " + q.contains(31));
        Iterator<Integer> it = q.iterator();
        while (it.hasNext()) {
            if (it.next() % 20 == 0) it.remove();
        }
        List<Integer> drained = new ArrayList<>();
        System.out.println("after iterator " + q + " remove " + q.remove(10) + " " + q.remove(11) + " drained "
            + q.drainTo(drained, 1) + " " + drained + " " + q + " poll " + q.poll() + " "
            + q.poll(10, TimeUnit.MILLISECONDS));
        LinkedBlockingQueue<String> unbounded = new LinkedBlockingQueue<>(List.of("a", "b", "c"));
        unbounded.add("d");
        List<String> letters = new ArrayList<>();
        System.out.println("unbounded " + unbounded + " " + unbounded.remainingCapacity() + " " + unbounded.remove() + " "
            + unbounded.element() + " " + unbounded.drainTo(letters) + " " + letters);

        // ConcurrentLinkedQueue: 4 threads add, then 4 threads poll everything.
        ConcurrentLinkedQueue<Integer> clq = new ConcurrentLinkedQueue<>();
        runThreads(4, id -> {
            for (int i = 0; i < 500; i++) {
                clq.add(id * 500 + i);
            }
        });
        System.out.println("clq size " + clq.size() + " contains " + clq.contains(1999) + " " + clq.contains(2000));
        AtomicLong polledSum = new AtomicLong();
        AtomicInteger polled = new AtomicInteger();
        runThreads(4, id -> {
            Integer v;
            while ((v = clq.poll()) != null) {
                polledSum.addAndGet(v);
                polled.incrementAndGet();
            }
        });
        System.out.println("clq polled " + polled.get() + " sum " + polledSum.get() + " empty " + clq.isEmpty() + " "
            + clq.peek() + " " + clq.poll());
        for (int i = 0; i < 8; i++) {
            clq.offer(i);
        }
        clq.remove(3);
        clq.removeIf(v -> v % 2 == 0);
        System.out.println("clq " + clq + " " + clq.size());

        // CopyOnWriteArrayList: iteration over a snapshot while the list grows.
        CopyOnWriteArrayList<String> cow = new CopyOnWriteArrayList<>(List.of("a", "b", "c"));
        for (String s : cow) {
            cow.add(s + s);
        }
        System.out.println("cow " + cow + " " + cow.size());
        Iterator<String> snap = cow.iterator();
        cow.clear();
        int n = 0;
        while (snap.hasNext()) {
            snap.next();
            n++;
        }
        System.out.println("snapshot kept " + n + " list " + cow);
        try {
            CopyOnWriteArrayList<String> one = new CopyOnWriteArrayList<>(List.of("x"));
            Iterator<String> oi = one.iterator();
            oi.next();
            oi.remove();
        } catch (UnsupportedOperationException e) {
            System.out.println("iterator remove: " + e.getClass().getName());
        }
        CopyOnWriteArrayList<Integer> shared = new CopyOnWriteArrayList<>();
        runThreads(4, id -> {
            for (int i = 0; i < 100; i++) {
                shared.add(id * 100 + i);
                shared.addIfAbsent(-1);
            }
        });
        long s = 0;
        for (int v : shared) {
            s += v;
        }
        System.out.println("shared " + shared.size() + " sum " + s + " one -1 " + (shared.indexOf(-1) == shared.lastIndexOf(-1)));
        CopyOnWriteArrayList<Integer> nums = new CopyOnWriteArrayList<>(new Integer[] {5, 3, 8, 1, 9, 2});
        nums.add(2, 7);
        nums.remove(Integer.valueOf(9));
        nums.set(0, 6);
        nums.removeIf(v -> v == 3);
        nums.sort(null);
        ListIterator<Integer> li = nums.listIterator(nums.size());
        StringBuilder back = new StringBuilder();
        while (li.hasPrevious()) {
            back.append(li.previous());
        }
        System.out.println("nums " + nums + " back " + back + " sub " + nums.subList(1, 3) + " equals "
            + nums.equals(List.of(1, 2, 6, 7, 8)) + " hash " + (nums.hashCode() == List.of(1, 2, 6, 7, 8).hashCode()));
        try {
            nums.get(10);
        } catch (IndexOutOfBoundsException e) {
            System.out.println("get(10): " + e.getMessage());
        }
        try {
            nums.add(9, 1);
        } catch (IndexOutOfBoundsException e) {
            System.out.println("add(9): " + e.getMessage());
        }
        CopyOnWriteArraySet<String> cset = new CopyOnWriteArraySet<>(List.of("b", "a", "b", "c"));
        cset.add("a");
        cset.add("d");
        System.out.println("cow set " + cset + " " + cset.size() + " " + cset.contains("c"));
    }
}
