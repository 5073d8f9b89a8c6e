// tags: oom gc
// release: 11
// args: -Xmx16m
// OutOfMemoryError with a 16 MiB heap: filling the heap with reachable arrays ends in
// OutOfMemoryError ("Java heap space"), which is caught; once the arrays are dropped the VM
// allocates freely again (many times the heap size in total). A single array larger than the
// heap fails the same way; one beyond the VM's array limit fails with "Requested array size
// exceeds VM limit". The counts reached are never printed (they depend on the collector).
import java.util.ArrayList;
import java.util.List;

public class OomRecovery {
    static List<int[]> hog = new ArrayList<>();

    static String fill() {
        try {
            while (true) {
                hog.add(new int[64 * 1024]);
            }
        } catch (OutOfMemoryError e) {
            // Nothing may allocate before the arrays are dropped.
            int held = hog.size();
            hog = null;
            hog = new ArrayList<>();
            return e.getMessage() + (held > 10 ? " after holding over 2.5 MiB" : " too early");
        }
    }

    static long churn(int rounds) {
        long checksum = 0;
        List<long[]> window = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            long[] block = new long[1024];
            block[i % 1024] = i;
            checksum += block.length + block[i % 1024];
            window.add(block);
            if (window.size() > 64) {
                window.remove(0);
            }
        }
        return checksum;
    }

    public static void main(String[] args) {
        System.out.println("1: " + fill());
        System.out.println("churn after recovery " + churn(20000));
        System.out.println("2: " + fill());
        try {
            long[] tooBig = new long[4 * 1024 * 1024];
            System.out.println("allocated " + tooBig.length);
        } catch (OutOfMemoryError e) {
            System.out.println("32 MiB array: " + e.getMessage());
        }
        try {
            int[] huge = new int[Integer.MAX_VALUE];
            System.out.println("allocated " + huge.length);
        } catch (OutOfMemoryError e) {
            System.out.println("Integer.MAX_VALUE ints: " + e.getMessage());
        }
        String[] fromThread = new String[1];
        Thread t = new Thread(() -> fromThread[0] = "thread: " + fill());
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
        System.out.println(fromThread[0]);
        System.out.println("churn at the end " + churn(20000));
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
            sb.append(i);
        }
        System.out.println("still allocating: " + sb.length());
    }
}
