// tags: concurrent thread
// release: 17
// java.util.concurrent.locks and CountDownLatch: a start gate and a done latch around worker
// threads; ReentrantLock reentrancy (hold count), tryLock from another thread while held,
// isHeldByCurrentThread, unlock by a non-owner (IllegalMonitorStateException); a bounded
// buffer with two Conditions (notFull/notEmpty) moving exact sums; Condition.await with a
// timeout expiring; signalAll waking every waiter; lockInterruptibly interrupted.
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

public class LocksAndLatches {
    static final class Buffer {
        final ReentrantLock lock = new ReentrantLock();
        final Condition notFull = lock.newCondition();
        final Condition notEmpty = lock.newCondition();
        final int[] items = new int[4];
        int head;
        int count;

        void put(int v) throws InterruptedException {
            lock.lock();
            try {
                while (count == items.length) {
                    notFull.await();
                }
                items[(head + count) % items.length] = v;
                count++;
                notEmpty.signal();
            } finally {
                lock.unlock();
            }
        }

        int take() throws InterruptedException {
            lock.lock();
            try {
                while (count == 0) {
                    notEmpty.await();
                }
                int v = items[head];
                head = (head + 1) % items.length;
                count--;
                notFull.signal();
                return v;
            } finally {
                lock.unlock();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        int workers = 4;
        CountDownLatch startGate = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(workers);
        long[] results = new long[workers];
        for (int w = 0; w < workers; w++) {
            final int id = w;
            new Thread(() -> {
                try {
                    startGate.await();
                    long s = 0;
                    for (int i = 0; i < 10000; i++) {
                        s += (long) i * (id + 1);
                    }
                    results[id] = s;
                } catch (InterruptedException e) {
                    return;
                } finally {
                    done.countDown();
                }
            }).start();
        }
        System.out.println("before start: done count " + done.getCount());
        startGate.countDown();
        done.await();
        System.out.println("latched results " + results[0] + " " + results[1] + " " + results[2] + " " + results[3]
            + ", count " + done.getCount() + ", await on zero returns " + done.await(0, TimeUnit.SECONDS));

        ReentrantLock lock = new ReentrantLock();
        lock.lock();
        lock.lock();
        System.out.println("hold count " + lock.getHoldCount() + " held by me " + lock.isHeldByCurrentThread()
            + " locked " + lock.isLocked());
        boolean[] otherGot = new boolean[2];
        Thread other = new Thread(() -> {
            otherGot[0] = lock.tryLock();
            try {
                otherGot[1] = lock.tryLock(10, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            try {
                lock.unlock();
            } catch (IllegalMonitorStateException e) {
                System.out.println("unlock by a non-owner: IllegalMonitorStateException");
            }
        });
        other.start();
        other.join();
        System.out.println("other thread tryLock " + otherGot[0] + ", timed tryLock " + otherGot[1]);
        lock.unlock();
        lock.unlock();
        System.out.println("after two unlocks: locked " + lock.isLocked() + " hold count " + lock.getHoldCount());
        try {
            lock.unlock();
        } catch (IllegalMonitorStateException e) {
            System.out.println("unlock of an unlocked lock: IllegalMonitorStateException");
        }

        Buffer buffer = new Buffer();
        int perProducer = 5000;
        long[] consumed = new long[2];
        Thread[] threads = new Thread[4];
        for (int p = 0; p < 2; p++) {
            final int base = p * 1_000_000;
            threads[p] = new Thread(() -> {
                try {
                    for (int i = 1; i <= perProducer; i++) {
                        buffer.put(base + i);
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        for (int c = 0; c < 2; c++) {
            final int id = c;
            threads[2 + c] = new Thread(() -> {
                try {
                    for (int i = 0; i < perProducer; i++) {
                        consumed[id] += buffer.take();
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.println("condition buffer moved " + (consumed[0] + consumed[1]) + ", left " + buffer.count);

        ReentrantLock timed = new ReentrantLock();
        Condition never = timed.newCondition();
        timed.lock();
        try {
            long start = System.nanoTime();
            long remaining = TimeUnit.MILLISECONDS.toNanos(20);
            while (remaining > 0) {
                remaining = never.awaitNanos(remaining);
            }
            boolean signalled = never.await(5, TimeUnit.MILLISECONDS);
            System.out.println("await timed out: " + (System.nanoTime() - start >= 20_000_000L) + " " + !signalled);
        } finally {
            timed.unlock();
        }

        ReentrantLock gateLock = new ReentrantLock();
        Condition opened = gateLock.newCondition();
        boolean[] isOpen = new boolean[1];
        int[] woke = new int[1];
        int[] waiting = new int[1];
        Thread[] waiters = new Thread[3];
        for (int i = 0; i < 3; i++) {
            waiters[i] = new Thread(() -> {
                gateLock.lock();
                try {
                    waiting[0]++;
                    while (!isOpen[0]) {
                        opened.awaitUninterruptibly();
                    }
                    woke[0]++;
                } finally {
                    gateLock.unlock();
                }
            });
            waiters[i].start();
        }
        while (true) {
            gateLock.lock();
            try {
                if (waiting[0] == 3) {
                    isOpen[0] = true;
                    opened.signalAll();
                    break;
                }
            } finally {
                gateLock.unlock();
            }
            Thread.sleep(1);
        }
        for (Thread t : waiters) {
            t.join();
        }
        System.out.println("signalAll woke " + woke[0]);

        ReentrantLock held = new ReentrantLock();
        held.lock();
        String[] outcome = new String[1];
        Thread interruptible = new Thread(() -> {
            try {
                held.lockInterruptibly();
                outcome[0] = "acquired?";
                held.unlock();
            } catch (InterruptedException e) {
                outcome[0] = "lockInterruptibly interrupted";
            }
        });
        interruptible.start();
        interruptible.interrupt();
        interruptible.join();
        held.unlock();
        System.out.println(outcome[0]);
    }
}
