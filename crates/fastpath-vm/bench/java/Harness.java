// Runs one benchmark: `java -cp DIR Harness [--checksum] <Benchmark> <iterations> [<inner>] [<threads>]`.
// For each iteration it times `run` with System.nanoTime, checks the result, and prints
//     <Benchmark> iteration <i> <nanoseconds>
// on stdout (i from 0); with `--checksum`, the line ends with a fifth field, the result's
// checksum (Benchmark.checksum), so that two VMs' runs can be compared iteration by
// iteration. A failed check prints "<Benchmark> FAILED iteration <i>: <reason>" on stderr and
// exits with status 1; bad arguments exit with status 2. Nothing else is printed.
public class Harness {
    static Benchmark create(String name) {
        switch (name) {
            case "Bounce": return new Bounce();
            case "List": return new ListBenchmark();
            case "Permute": return new Permute();
            case "Queens": return new Queens();
            case "Sieve": return new Sieve();
            case "Storage": return new Storage();
            case "Towers": return new Towers();
            case "Richards": return new Richards();
            case "DeltaBlue": return new DeltaBlue();
            case "Json": return new Json();
            case "NBody": return new NBody();
            case "Mandelbrot": return new Mandelbrot();
            case "CD": return new CD();
            case "Havlak": return new Havlak();
            case "SyncCounter": return new SyncCounter();
            case "WaitNotifyQueue": return new WaitNotifyQueue();
            case "LruCache": return new LruCache();
            case "HandOff": return new HandOff();
            case "GcTrees": return new GcTrees();
            case "GcListChurn": return new GcListChurn();
            case "GcLruCache": return new GcLruCache();
            case "GcStrings": return new GcStrings();
            default: return null;
        }
    }

    static final String NAMES = "Bounce List Permute Queens Sieve Storage Towers Richards DeltaBlue Json NBody "
        + "Mandelbrot CD Havlak SyncCounter WaitNotifyQueue LruCache HandOff GcTrees GcListChurn "
        + "GcLruCache GcStrings";

    static int parse(String what, String text) {
        try {
            int v = Integer.parseInt(text);
            if (v > 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        System.err.println("Harness: " + what + " must be a positive integer, got \"" + text + "\"");
        System.exit(2);
        return 0;
    }

    public static void main(String[] args) {
        boolean checksum = args.length > 0 && args[0].equals("--checksum");
        if (checksum) {
            String[] rest = new String[args.length - 1];
            for (int i = 0; i < rest.length; i++) {
                rest[i] = args[i + 1];
            }
            args = rest;
        }
        if (args.length < 2 || args.length > 4) {
            System.err.println("usage: java Harness [--checksum] <Benchmark> <iterations> [<inner>] [<threads>]");
            System.err.println("benchmarks: " + NAMES);
            System.exit(2);
        }
        Benchmark bench = create(args[0]);
        if (bench == null) {
            System.err.println("Harness: unknown benchmark \"" + args[0] + "\"; known: " + NAMES);
            System.exit(2);
        }
        int iterations = parse("iterations", args[1]);
        int inner = args.length > 2 ? parse("inner", args[2]) : bench.defaultInner();
        int threads = args.length > 3 ? parse("threads", args[3]) : bench.defaultThreads();
        for (int i = 0; i < iterations; i++) {
            long start = System.nanoTime();
            Object result = bench.run(inner, threads);
            long elapsed = System.nanoTime() - start;
            String failure = bench.verify(result, inner, threads);
            if (failure != null) {
                System.err.println(args[0] + " FAILED iteration " + i + ": " + failure);
                System.exit(1);
            }
            if (checksum) {
                System.out.println(args[0] + " iteration " + i + " " + elapsed + " " + Benchmark.checksum(result));
            } else {
                System.out.println(args[0] + " iteration " + i + " " + elapsed);
            }
        }
    }
}
