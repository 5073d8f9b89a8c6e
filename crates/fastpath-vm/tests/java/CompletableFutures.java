// tags: concurrent thread lambda
// release: 17
// CompletableFuture: supplyAsync/runAsync on the default and on a given executor, chains of
// thenApply/thenAccept/thenRun/thenCompose/thenCombine, allOf/anyOf, completion by hand,
// exceptions through a chain (CompletionException wrapping, exceptionally, handle,
// whenComplete), get's ExecutionException and join's CompletionException, cancel, getNow,
// failedFuture, get with a timeout. Results only, never thread names or timing.
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

public class CompletableFutures {
    static long fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    public static void main(String[] args) throws Exception {
        CompletableFuture<Long> f = CompletableFuture.supplyAsync(() -> fib(20));
        CompletableFuture<String> chain = f.thenApply(v -> v * 2).thenApply(v -> "fib*2=" + v);
        System.out.println(chain.get() + " " + f.join() + " " + f.isDone() + " " + f.isCompletedExceptionally());

        ExecutorService pool = Executors.newFixedThreadPool(3);
        List<CompletableFuture<Integer>> parts = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            final int k = i;
            parts.add(CompletableFuture.supplyAsync(() -> k * k, pool));
        }
        CompletableFuture<Void> all = CompletableFuture.allOf(parts.toArray(new CompletableFuture[0]));
        all.join();
        int sum = 0;
        for (CompletableFuture<Integer> p : parts) {
            sum += p.join();
        }
        System.out.println("allOf " + sum + " " + all.isDone() + " " + all.join());

        CompletableFuture<Integer> combined = CompletableFuture.supplyAsync(() -> 6, pool)
            .thenCombine(CompletableFuture.supplyAsync(() -> 7, pool), (a, b) -> a * b);
        CompletableFuture<String> composed = combined.thenCompose(v -> CompletableFuture.supplyAsync(() -> "composed " + v, pool));
        StringBuilder seen = new StringBuilder();
        CompletableFuture<Void> accepted = composed.thenAccept(seen::append).thenRun(() -> seen.append(" +run"));
        accepted.get(10, TimeUnit.SECONDS);
        System.out.println(combined.join() + " " + composed.join() + " | " + seen);

        // Completion by hand; dependents registered before run in the completing thread.
        CompletableFuture<String> manual = new CompletableFuture<>();
        CompletableFuture<Integer> len = manual.thenApply(String::length);
        System.out.println("before " + manual.isDone() + " " + manual.getNow("absent") + " " + len.getNow(-1));
        System.out.println("complete " + manual.complete("hello") + " " + manual.complete("again") + " " + len.join() + " "
            + manual.getNow("absent"));
        CountDownLatch gate = new CountDownLatch(1);
        CompletableFuture<String> slow = CompletableFuture.supplyAsync(() -> {
            try {
                gate.await();
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
            return "late";
        }, pool);
        try {
            slow.get(20, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            System.out.println("timed out " + slow.isDone());
        }
        gate.countDown();
        System.out.println("slow " + slow.get());

        // Exceptions: a failing supplier, through a chain, recovered or reported.
        CompletableFuture<Integer> bad = CompletableFuture.supplyAsync(() -> Integer.parseInt("nope"), pool);
        CompletableFuture<Integer> after = bad.thenApply(v -> v + 1);
        try {
            after.get();
        } catch (ExecutionException e) {
            System.out.println("get: " + e.getCause());
        }
        try {
            after.join();
        } catch (CompletionException e) {
            System.out.println("join: " + e.getCause() + " | " + e.getMessage());
        }
        System.out.println("exceptionally " + after.exceptionally(t -> t instanceof CompletionException ? -1 : -2).join()
            + " handle " + bad.handle((v, t) -> t == null ? "ok " + v : "failed " + t.getCause().getClass().getSimpleName()).join()
            + " " + after.isCompletedExceptionally());
        List<String> events = new ArrayList<>();
        CompletableFuture<Integer> watched = CompletableFuture.completedFuture(5)
            .whenComplete((v, t) -> events.add("value " + v + " error " + t));
        CompletableFuture<Integer> failedWatch = CompletableFuture.<Integer>failedFuture(new IllegalStateException("boom"))
            .whenComplete((v, t) -> events.add("value " + v + " error " + t));
        System.out.println(events + " " + watched.join() + " " + failedWatch.isCompletedExceptionally());
        try {
            failedWatch.join();
        } catch (CompletionException e) {
            System.out.println("failed join: " + e.getCause().getMessage());
        }
        CompletableFuture<String> direct = new CompletableFuture<>();
        direct.completeExceptionally(new IllegalArgumentException("direct"));
        System.out.println("direct exceptionally sees " + direct.exceptionally(t -> t.getClass().getSimpleName()).join()
            + ", its dependent sees " + direct.thenApply(s -> s).exceptionally(t -> t.getClass().getSimpleName()).join());

        // Cancellation.
        CompletableFuture<String> never = new CompletableFuture<>();
        CompletableFuture<String> dependent = never.thenApply(s -> s + "!");
        System.out.println("cancel " + never.cancel(true) + " " + never.isCancelled() + " " + never.isCompletedExceptionally()
            + " " + dependent.isCompletedExceptionally() + " " + dependent.isCancelled());
        try {
            never.join();
        } catch (CancellationException e) {
            System.out.println("join cancelled: " + e.getClass().getName());
        }
        try {
            dependent.join();
        } catch (CompletionException e) {
            System.out.println("dependent: " + e.getCause().getClass().getName());
        }

        CompletableFuture<Object> any = CompletableFuture.anyOf(new CompletableFuture<String>(),
            CompletableFuture.completedFuture("first"));
        System.out.println("anyOf " + any.join());
        CompletableFuture<Void> ran = CompletableFuture.runAsync(() -> events.add("ran"), pool);
        ran.join();
        System.out.println(events.get(events.size() - 1) + " " + ran.join());
        pool.shutdown();
        System.out.println("pool " + pool.awaitTermination(10, TimeUnit.SECONDS));
    }
}
