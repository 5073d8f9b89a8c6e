// tags: string exception
// release: 17
// StringBuilder chains written by hand, the shapes a VM may fuse into one concatenation (C2's
// OptimizeStringConcat) and the ones it must not: constants of every kind appended, values of
// every primitive type and null strings, a constant capacity, chains split over statements
// through a local, a builder that escapes, is read after toString, is appended an Object whose
// toString has side effects, or is appended to after toString; a chain interrupted by an
// exception (its stack trace names the line), nested chains, chains in loops and a chain in a
// try block whose handler reuses the local.
public class BuilderChains {
    static int sideEffects;

    static final class Noisy {
        final String name;

        Noisy(String name) {
            this.name = name;
        }

        @Override
        public String toString() {
            sideEffects++;
            return name + "#" + sideEffects;
        }
    }

    static String record(int id, int value) {
        StringBuilder b = new StringBuilder();
        b.append(id).append(',').append("name-").append(id).append(',');
        b.append(Integer.toHexString(value)).append(',').append(value);
        return b.toString();
    }

    static String constants() {
        return new StringBuilder().append("s").append('c').append(42).append(-7).append(true).append(false)
            .append('\uffff').append(Integer.MIN_VALUE).append(123456789).append(9_000_000_000L).append(1.5f)
            .append(-0.0).append("").toString();
    }

    static String primitives(boolean z, char c, byte b, short s, int i, long l, float f, double d) {
        return new StringBuilder(64).append(z).append(c).append(b).append(s).append(i).append(l).append(f)
            .append(d).toString();
    }

    static String nulls(String a, String b) {
        StringBuilder sb = new StringBuilder();
        sb.append(a);
        sb.append('|');
        sb.append(b);
        return sb.toString();
    }

    static String empty() {
        return new StringBuilder().toString();
    }

    static String escapes(int n) {
        StringBuilder sb = new StringBuilder();
        sb.append("n=").append(n);
        fill(sb);
        return sb.toString();
    }

    static void fill(StringBuilder sb) {
        sb.append(";filled");
    }

    static String readAfter(int n) {
        StringBuilder sb = new StringBuilder().append(n).append('/');
        String first = sb.toString();
        sb.append(n * 2);
        return first + " then " + sb.toString() + " length " + sb.length();
    }

    static String objects(Object o, int n) {
        return new StringBuilder().append(n).append(o).append(n + 1).append(o).toString();
    }

    static String throwsMidChain(String s, int at) {
        StringBuilder sb = new StringBuilder();
        sb.append("before ");
        sb.append(s.charAt(at));
        sb.append(" after");
        return sb.toString();
    }

    static String nested(int a, int b) {
        return new StringBuilder().append('[').append(new StringBuilder().append(a).append('+').append(b)
            .toString()).append('=').append(a + b).append(']').toString();
    }

    static String loop(int n) {
        String last = "";
        long sum = 0;
        for (int i = 0; i < n; i++) {
            StringBuilder b = new StringBuilder();
            b.append(i).append(':').append(last.length());
            last = b.toString();
            sum += last.hashCode();
        }
        return last + " " + sum;
    }

    static String handlerReusesLocal(String s) {
        StringBuilder sb = new StringBuilder();
        try {
            sb.append("len=").append(s.length());
            return sb.toString();
        } catch (NullPointerException e) {
            return sb.append("null").toString();
        }
    }

    static String sameText(int n) {
        String a = new StringBuilder().append("v").append(n).toString();
        String b = new StringBuilder().append("v").append(n).toString();
        return a + " " + b + " equal " + a.equals(b) + " same " + (a == b);
    }

    static String mixed(long l, double d, String s, char c) {
        StringBuilder sb = new StringBuilder(0);
        sb.append(l).append(' ').append(d).append(' ').append(s).append(' ').append(c).append(' ')
            .append(Long.MIN_VALUE).append(' ').append(Double.NaN);
        return sb.toString();
    }

    public static void main(String[] args) {
        for (int round = 0; round < 3; round++) {
            System.out.println(record(round * 7919, round * 1103515245 + 12345));
        }
        System.out.println(constants());
        System.out.println(primitives(true, 'x', (byte) -3, (short) 300, -2147483647, Long.MAX_VALUE, 0.1f, 1e300));
        System.out.println(nulls(null, "b") + " " + nulls("a", null));
        System.out.println("[" + empty() + "] " + empty().length());
        System.out.println(escapes(5));
        System.out.println(readAfter(21));
        sideEffects = 0;
        Noisy noisy = new Noisy("obj");
        System.out.println(objects(noisy, 3) + " side effects " + sideEffects);
        System.out.println(throwsMidChain("xyz", 1));
        try {
            System.out.println(throwsMidChain("xyz", 5));
        } catch (StringIndexOutOfBoundsException e) {
            System.out.println("caught " + e.getClass().getName());
            StackTraceElement top = null;
            for (StackTraceElement el : e.getStackTrace()) {
                if (el.getMethodName().equals("throwsMidChain")) {
                    top = el;
                }
            }
            System.out.println("thrown in " + top.getMethodName() + " at line " + top.getLineNumber());
        }
        System.out.println(nested(19, 23));
        System.out.println(loop(2000));
        System.out.println(handlerReusesLocal("four") + " " + handlerReusesLocal(null));
        System.out.println(sameText(8));
        System.out.println(mixed(-5L, 2.5, null, 'z'));
        // Enough calls that the chains are compiled under the default tiers too.
        long h = 0;
        for (int i = 0; i < 3000; i++) {
            h = h * 31 + record(i, i * 31).hashCode() + constants().hashCode()
                + primitives(i % 2 == 0, (char) ('a' + i % 26), (byte) i, (short) i, i, i * 1000003L, i / 4f, i / 8.0)
                    .hashCode()
                + nulls(i % 3 == 0 ? null : "p", "q").hashCode() + nested(i, -i).hashCode()
                + mixed(i, i, "s" + i, 'c').hashCode() + handlerReusesLocal(i % 5 == 0 ? null : "abc").hashCode();
        }
        System.out.println("hash " + h);
    }
}
