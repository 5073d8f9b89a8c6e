// tags: clinit exception
// release: 11
// An exception in <clinit>: the first use throws ExceptionInInitializerError carrying the
// cause; the class is then erroneous and every later use throws NoClassDefFoundError
// ("Could not initialize class X"), without running <clinit> again. An Error thrown by
// <clinit> is rethrown as is. A subclass of a failed class also cannot initialize. Other
// classes are unaffected.
class Fragile {
    static int attempts = 0;
    static final int VALUE;

    static {
        ClinitErrors.clinitRuns++;
        if (ClinitErrors.fail) {
            throw new IllegalStateException("Fragile cannot start");
        }
        VALUE = 1;
    }

    static int value() {
        return VALUE;
    }
}

class FragileChild extends Fragile {
    static int own = 5;
}

class ThrowsError {
    static int x;

    static {
        if (ClinitErrors.fail) {
            throw new StackOverflowError("pretend");
        }
    }
}

class DivByZero {
    static int zero = 0;
    static int bad = 10 / zero;
}

class Healthy {
    static int value = 42;
}

public class ClinitErrors {
    static boolean fail = true;
    static int clinitRuns = 0;

    interface Use {
        Object run();
    }

    static void use(String what, Use u) {
        try {
            System.out.println(what + " = " + u.run());
        } catch (ExceptionInInitializerError e) {
            System.out.println(what + " -> ExceptionInInitializerError, message " + e.getMessage() + ", cause "
                + e.getCause());
        } catch (NoClassDefFoundError e) {
            System.out.println(what + " -> NoClassDefFoundError: " + e.getMessage());
        } catch (Throwable t) {
            System.out.println(what + " -> " + t);
        }
    }

    public static void main(String[] args) {
        use("Fragile.value()", () -> Fragile.value());
        use("Fragile.value() again", () -> Fragile.value());
        fail = false;
        use("Fragile.attempts after the cause is gone", () -> Fragile.attempts);
        use("new Fragile()", () -> new Fragile());
        use("FragileChild.own", () -> FragileChild.own);
        System.out.println("Fragile <clinit> ran " + clinitRuns + " time(s)");
        fail = true;
        use("ThrowsError.x", () -> ThrowsError.x);
        use("ThrowsError.x again", () -> ThrowsError.x);
        use("DivByZero.bad", () -> DivByZero.bad);
        use("DivByZero.zero", () -> DivByZero.zero);
        use("Healthy.value", () -> Healthy.value);
        Fragile[] stillAllowed = new Fragile[2];
        System.out.println("arrays of a failed class are fine: " + stillAllowed.length);
    }
}
