// tags: exception
// release: 8
// Control flow through exceptions: custom checked and unchecked exceptions, catch order by
// subclass, multi-catch, finally on normal exit, on exception, on return, break and continue,
// return in finally overriding a return and swallowing an exception, nested try in catch and
// finally, rethrow and precise rethrow, cause chains, try-with-resources closing in reverse
// order with suppressed exceptions, and exceptions crossing many frames.
import java.util.ArrayList;
import java.util.List;

public class ExceptionFlow {
    static class AppException extends Exception {
        final int code;

        AppException(String message, int code) {
            super(message);
            this.code = code;
        }

        AppException(String message, Throwable cause) {
            super(message, cause);
            this.code = -1;
        }
    }

    static class NotFound extends AppException {
        NotFound(String what) {
            super("not found: " + what, 404);
        }
    }

    static class Fatal extends RuntimeException {
        Fatal(String message) {
            super(message);
        }
    }

    static final List<String> log = new ArrayList<>();

    static class Resource implements AutoCloseable {
        final String name;
        final boolean failOnClose;

        Resource(String name, boolean failOnClose) {
            this.name = name;
            this.failOnClose = failOnClose;
            log.add("open " + name);
        }

        @Override
        public void close() throws AppException {
            log.add("close " + name);
            if (failOnClose) {
                throw new AppException("close failed: " + name, 500);
            }
        }
    }

    static void find(String key) throws AppException {
        if (key.startsWith("x")) {
            throw new NotFound(key);
        }
        if (key.length() == 0) {
            throw new AppException("empty key", 400);
        }
        if (key.equals("boom")) {
            throw new Fatal("fatal " + key);
        }
    }

    static String lookup(String key) {
        try {
            find(key);
            return "found " + key;
        } catch (NotFound e) {
            return "NotFound(" + e.code + "): " + e.getMessage();
        } catch (AppException e) {
            return "AppException(" + e.code + "): " + e.getMessage();
        } catch (Fatal | IllegalStateException e) {
            return "runtime: " + e.getMessage();
        } finally {
            log.add("lookup " + key);
        }
    }

    @SuppressWarnings("finally")
    static int finallyOverridesReturn() {
        try {
            return 1;
        } finally {
            return 2;
        }
    }

    @SuppressWarnings("finally")
    static String finallySwallows() {
        try {
            throw new Fatal("lost");
        } finally {
            return "swallowed";
        }
    }

    static int finallySeesReturnValue() {
        int x = 10;
        try {
            return x;
        } finally {
            x = 20;
            log.add("finally set x=" + x);
        }
    }

    static int loopWithFinally() {
        int count = 0;
        for (int i = 0; i < 10; i++) {
            try {
                if (i % 3 == 0) continue;
                if (i == 8) break;
                count += i;
            } finally {
                count += 100;
            }
        }
        return count;
    }

    static void rethrow(String key) throws AppException {
        try {
            find(key);
        } catch (Exception e) {
            log.add("rethrowing " + e.getMessage());
            throw e;
        }
    }

    static void wrap(String key) {
        try {
            find(key);
        } catch (AppException e) {
            throw new IllegalStateException("wrapped", e);
        }
    }

    static int depth(int n) throws AppException {
        if (n == 0) {
            throw new AppException("bottom", 0);
        }
        try {
            return depth(n - 1) + 1;
        } finally {
            if (n % 25 == 0) log.add("unwound " + n);
        }
    }

    public static void main(String[] args) throws Exception {
        for (String key : new String[] {"abc", "xyz", "", "boom"}) {
            System.out.println(lookup(key));
        }
        System.out.println(finallyOverridesReturn() + " " + finallySwallows() + " " + finallySeesReturnValue()
            + " " + loopWithFinally());
        try {
            rethrow("x1");
        } catch (NotFound e) {
            System.out.println("precise rethrow kept the type: " + e.getMessage());
        }
        try {
            wrap("");
        } catch (IllegalStateException e) {
            Throwable cause = e.getCause();
            System.out.println(e.getMessage() + " <- " + cause.getMessage() + " <- " + cause.getCause()
                + " " + (cause instanceof AppException));
        }
        try {
            depth(100);
        } catch (AppException e) {
            System.out.println("from depth: " + e.getMessage());
        }
        try (Resource a = new Resource("a", false); Resource b = new Resource("b", true); Resource c = new Resource("c", true)) {
            log.add("body");
            throw new Fatal("body failed");
        } catch (Fatal e) {
            System.out.println("primary " + e.getMessage() + " suppressed " + e.getSuppressed().length);
            for (Throwable s : e.getSuppressed()) {
                System.out.println("  suppressed " + s.getMessage());
            }
        }
        try (Resource d = new Resource("d", true)) {
            log.add("body ok");
        } catch (AppException e) {
            System.out.println("close exception surfaces: " + e.getMessage() + " suppressed " + e.getSuppressed().length);
        }
        try (Resource nul = null) {
            log.add("null resource is skipped");
        }
        try {
            try {
                throw new Fatal("inner");
            } finally {
                log.add("inner finally");
                try {
                    throw new AppException("in finally", 1);
                } catch (AppException e) {
                    log.add("caught " + e.getMessage());
                }
            }
        } catch (Fatal e) {
            try {
                throw new IllegalStateException("in catch");
            } catch (IllegalStateException e2) {
                System.out.println("nested: " + e.getMessage() + " then " + e2.getMessage());
            }
        }
        Throwable t = new Exception("top", new RuntimeException("middle", new Error("root")));
        StringBuilder chain = new StringBuilder();
        for (Throwable x = t; x != null; x = x.getCause()) {
            chain.append(x).append(" | ");
        }
        System.out.println(chain);
        Exception added = new Exception("with suppressed");
        added.addSuppressed(new RuntimeException("s1"));
        added.addSuppressed(new Error("s2"));
        System.out.println(added.getSuppressed().length + " " + added.getSuppressed()[1]);
        Throwable initCause = new RuntimeException("late cause");
        initCause.initCause(new ArithmeticException("math"));
        System.out.println(initCause.getCause().getMessage() + " " + new RuntimeException(new Error("e")).getMessage()
            + " " + new Exception().getMessage() + " " + new Exception((String) null));
        for (String line : log) {
            System.out.println("log: " + line);
        }
    }
}
