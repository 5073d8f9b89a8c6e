// tags: exception
// release: 8
// exit: 1
// An exception escaping main: the launcher prints "Exception in thread "main"" and the stack
// trace (user frames only, with a cause) to stderr and the exit status is 1. Finally blocks on
// the way out still run, and output printed before is kept.
public class UncaughtMain {
    static class ConfigError extends RuntimeException {
        ConfigError(String message, Throwable cause) {
            super(message, cause);
        }
    }

    static int parse(String text) {
        return Integer.parseInt(text.substring(0, 0) + "12" + text.length());
    }

    static void load(String key) {
        if (key.length() > 3) {
            throw new IllegalArgumentException("key too long: " + key);
        }
    }

    static void configure(String key) {
        try {
            load(key);
        } catch (IllegalArgumentException e) {
            throw new ConfigError("cannot configure", e);
        } finally {
            System.out.println("finally in configure(" + key + ")");
        }
    }

    public static void main(String[] args) {
        System.out.println("parsed " + parse("abc"));
        configure("ok");
        try {
            configure("toolong");
        } finally {
            System.out.println("finally in main");
        }
        System.out.println("unreachable");
    }
}
