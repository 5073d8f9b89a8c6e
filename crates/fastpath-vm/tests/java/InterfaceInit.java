// tags: clinit
// release: 11
// Superinterface initialization (JVMS 5.5 step 7): initializing a class initializes every
// superinterface, direct or indirect, that declares a non-abstract, non-static method
// (a default or a private instance method), depth first from the top of each direct
// interface's hierarchy, in declaration order, after the superclass; interfaces that declare
// only abstract or static methods are left alone, as is each interface's own superinterface
// chain when the interface itself is initialized; a failing superinterface makes the class
// erroneous.
import java.util.ArrayList;
import java.util.List;

class Log {
    static final List<String> events = new ArrayList<>();

    static int log(String what) {
        events.add(what);
        return events.size();
    }
}

interface Top {
    int TOP = Log.log("Top initialized");

    default String top() {
        return "top";
    }
}

interface Middle extends Top {
    int MIDDLE = Log.log("Middle initialized");

    String middle();
}

interface Bottom extends Middle {
    int BOTTOM = Log.log("Bottom initialized");

    default String bottom() {
        return "bottom";
    }
}

class Chain implements Bottom {
    static int CHAIN = Log.log("Chain initialized");

    public String middle() {
        return "middle";
    }
}

interface Left {
    int LEFT = Log.log("Left initialized");

    default String left() {
        return "left";
    }
}

interface Right {
    int RIGHT = Log.log("Right initialized");

    default String right() {
        return "right";
    }
}

interface AbstractOnly extends Right {
    int ABSTRACT_ONLY = Log.log("AbstractOnly initialized");

    void run();

    static String helper() {
        return "helper";
    }
}

interface Diamond extends Left, AbstractOnly {
    int DIAMOND = Log.log("Diamond initialized");

    default String diamond() {
        return "diamond";
    }
}

class Ancestor implements Left {
    static int BASE = Log.log("Ancestor initialized");
}

class Descendant extends Ancestor implements Diamond, Right {
    static int DERIVED = Log.log("Descendant initialized");

    public void run() {}
}

interface PrivateOnly {
    int PRIVATE_ONLY = Log.log("PrivateOnly initialized");

    private String secret() {
        return "secret";
    }

    String shown();
}

interface ViaPrivate extends PrivateOnly {
    int VIA_PRIVATE = Log.log("ViaPrivate initialized");
}

class UsesPrivate implements ViaPrivate {
    static int USES_PRIVATE = Log.log("UsesPrivate initialized");

    public String shown() {
        return "shown";
    }
}

interface StaticOnly {
    int STATIC_ONLY = Log.log("StaticOnly initialized");

    static int twice(int x) {
        return 2 * x;
    }
}

interface StaticChild extends StaticOnly {
    int STATIC_CHILD = Log.log("StaticChild initialized");

    default int child() {
        return 1;
    }
}

interface Failing {
    int FAILING = Fail.fail("Failing");

    default String failing() {
        return "failing";
    }
}

interface AboveFailing extends Failing {
    String above();
}

class Fail {
    static int fail(String who) {
        Log.log(who + " throws");
        throw new IllegalStateException(who + " refuses");
    }
}

class Victim implements AboveFailing {
    static int VICTIM = Log.log("Victim initialized");

    public String above() {
        return "above";
    }
}

public class InterfaceInit {
    static void flush(String title) {
        System.out.println(title + ":");
        for (String e : Log.events) {
            System.out.println("  " + e);
        }
        Log.events.clear();
    }

    public static void main(String[] args) {
        Chain chain = new Chain();
        flush("new Chain (Chain implements Bottom extends Middle extends Top)");
        System.out.println("  " + chain.top() + " " + chain.middle() + " " + chain.bottom());

        Descendant d = new Descendant();
        flush("new Descendant (Descendant extends Ancestor implements Left; Descendant implements Diamond, Right)");
        System.out.println("  " + d.left() + " " + d.right() + " " + d.diamond());

        System.out.println("AbstractOnly.helper() = " + AbstractOnly.helper());
        flush("after AbstractOnly.helper()");

        UsesPrivate u = new UsesPrivate();
        flush("new UsesPrivate (private instance method two levels up)");
        System.out.println("  " + u.shown());

        int two = StaticChild.STATIC_CHILD > 0 ? 2 : 0;
        flush("reading StaticChild.STATIC_CHILD (an interface does not initialize its superinterfaces)");
        System.out.println("  StaticOnly.twice(" + two + ") = " + StaticOnly.twice(two));
        flush("after StaticOnly.twice");

        for (int i = 0; i < 2; i++) {
            try {
                new Victim();
                System.out.println("Victim created");
            } catch (Throwable t) {
                System.out.println("attempt " + i + ": " + t.getClass().getName() + ": " + t.getMessage());
                Throwable c = t.getCause();
                if (c != null && i == 0) {
                    System.out.println("  cause " + c.getClass().getName() + ": " + c.getMessage());
                }
            }
            flush("after attempt " + i);
        }
    }
}
