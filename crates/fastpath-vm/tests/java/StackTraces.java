// tags: exception
// release: 17
// Stack traces with line numbers: printStackTrace to stderr of an exception thrown through
// user frames (static, instance, constructor, nested class, lambda-free so no JDK frames
// appear), "Caused by:" with the "... N more" elision, suppressed exceptions, and a custom
// exception without a stack trace. Line numbers must match javac's LineNumberTable exactly.
public class StackTraces {
    static class Widget {
        final int size;

        Widget(int size) {
            if (size < 0) {
                throw new IllegalArgumentException("negative size " + size);
            }
            this.size = size;
        }

        int grow(int by) {
            return new Widget(size + by).size;
        }
    }

    static class Quiet extends RuntimeException {
        Quiet(String message) {
            super(message, null, false, false);
        }
    }

    static int level3(int x) {
        return new Widget(10).grow(x);
    }

    static int level2(int x) {
        return level3(x) * 2;
    }

    static int level1(int x) {
        try {
            return level2(x);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("level1 failed for " + x, e);
        }
    }

    static void withSuppressed() throws Exception {
        Exception primary = new Exception("primary");
        primary.addSuppressed(new RuntimeException("secondary"));
        throw primary;
    }

    public static void main(String[] args) {
        System.out.println("grow 5 -> " + level1(5));
        try {
            level1(-20);
        } catch (IllegalStateException e) {
            System.out.println("caught " + e.getMessage() + " caused by " + e.getCause().getMessage());
            e.printStackTrace();
        }
        try {
            withSuppressed();
        } catch (Exception e) {
            e.printStackTrace();
        }
        try {
            throw new Quiet("no trace");
        } catch (Quiet e) {
            e.printStackTrace();
            System.out.println("suppression disabled: " + e.getSuppressed().length);
        }
        try {
            int[] a = new int[1];
            a[level2(1)] = 0;
        } catch (ArrayIndexOutOfBoundsException e) {
            e.printStackTrace();
        }
        System.out.println("done");
    }
}
