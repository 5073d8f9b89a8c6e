import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Seed 000's second table (JDK-8353558, whole-JVM start per -XX:X86ICacheSync): a Hello that touches
 * streams and lambdas, so start-up links the invokedynamic and stream machinery (and the JIT installs
 * code, each install syncing the instruction cache in the mode under test). Run by startup.py, which
 * starts it N times per mode, with and without a JDK 25 AOT cache (-XX:AOTCache).
 */
public class HelloStream {
    public static void main(String[] args) {
        List<String> words = IntStream.rangeClosed(1, 200)
            .mapToObj(i -> i % 15 == 0 ? "FizzBuzz" : i % 5 == 0 ? "Buzz" : i % 3 == 0 ? "Fizz" : Integer.toString(i))
            .collect(Collectors.toList());
        long fizz = words.stream().filter(w -> w.contains("Fizz")).count();
        String joined = words.stream().limit(15).collect(Collectors.joining(","));
        System.out.println("Hello, streams: " + fizz + " fizzes; " + joined);
    }
}
