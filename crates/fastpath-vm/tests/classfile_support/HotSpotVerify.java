// HotSpot's verdict on the cases the fuzzer dumped (FASTPATH_VM_FUZZ_DUMP=dir):
// each case-N.class is defined by a fresh loader (its program's other classes
// from their class directory) and initialized, which links and so verifies it.
// Prints one line per case: case, our outcome, HotSpot's outcome
// (Passed, Verify, Format, Linkage, Other, Timeout), HotSpot's message, ours.
//
// usage: java HotSpotVerify.java DIR [FIRST_CASE]    (JDK 25: every release)
// A <clinit> that ran (or threw) means the class verified.

import java.io.*;
import java.nio.file.*;
import java.util.concurrent.*;

public class HotSpotVerify {
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        long first = args.length > 1 ? Long.parseLong(args[1]) : 0;
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true);
        PrintStream devnull = new PrintStream(OutputStream.nullOutputStream());
        System.setOut(devnull);
        System.setErr(devnull);
        for (String line : Files.readString(dir.resolve("index.tsv")).split("\n")) {
            String[] f = line.split("\t", -1);
            long c = Long.parseLong(f[0]);
            if (c < first) continue;
            byte[] bytes = Files.readAllBytes(dir.resolve("case-" + c + ".class"));
            Path classDir = Path.of(f[2]);
            // One loader for the whole program (one run-time package), the
            // case's class defined first so that it replaces the original.
            CaseLoader loader = new CaseLoader(classDir);
            FutureTask<String> task = new FutureTask<>(() -> {
                try {
                    Class<?> k = loader.define(bytes);
                    Class.forName(k.getName(), true, loader);
                    return "Passed\t";
                } catch (VerifyError e) {
                    return "Verify\t" + e.getMessage();
                } catch (ClassFormatError e) {
                    return "Format\t" + e.getMessage();
                } catch (ExceptionInInitializerError e) {
                    return "Passed\t<clinit> threw " + e.getCause();
                } catch (LinkageError e) {
                    // Thrown by <clinit> (resolution while running): verified.
                    for (StackTraceElement frame : e.getStackTrace()) {
                        if (frame.getMethodName().equals("<clinit>")) return "Passed\t<clinit> threw " + e;
                    }
                    return "Linkage\t" + e;
                } catch (Throwable e) {
                    for (StackTraceElement frame : e.getStackTrace()) {
                        if (frame.getMethodName().equals("<clinit>")) return "Passed\t<clinit> threw " + e;
                    }
                    return "Other\t" + e;
                }
            });
            Thread t = new Thread(task);
            t.setDaemon(true);
            t.start();
            String verdict;
            try {
                verdict = task.get(3, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                verdict = "Timeout\t";
            }
            String msg = verdict.replace('\n', ' ');
            if (msg.length() > 200) msg = msg.substring(0, 200);
            out.println(c + "\t" + f[3] + "\t" + msg + "\t|ours: " + f[4]);
        }
        Runtime.getRuntime().halt(0);
    }

    /** The classes of one program, and one case's class in place of its original. */
    static final class CaseLoader extends ClassLoader {
        private final Path classDir;

        CaseLoader(Path classDir) {
            super(ClassLoader.getPlatformClassLoader());
            this.classDir = classDir;
        }

        Class<?> define(byte[] bytes) {
            return defineClass(null, bytes, 0, bytes.length);
        }

        @Override
        protected Class<?> loadClass(String n, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(n)) {
                Class<?> k = findLoadedClass(n);
                if (k != null) return k;
                Path p = classDir.resolve(n.replace('.', '/') + ".class");
                if (!Files.isRegularFile(p)) return super.loadClass(n, resolve);
                try {
                    byte[] b = Files.readAllBytes(p);
                    return defineClass(n, b, 0, b.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(n, e);
                }
            }
        }
    }
}
