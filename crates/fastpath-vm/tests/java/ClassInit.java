// tags: clinit
// release: 8
// Class initialization order (JLS 12.4, JVMS 5.5): <clinit> runs once, on first new, static
// method call, or non-constant static field access; superclasses first; a superinterface
// only if it declares a default method (or one of its non-constant fields is read); constant
// variables are inlined and trigger nothing; array creation triggers nothing; an inherited
// static field accessed through the subclass initializes only the declaring class; a cycle
// of initializations within one thread sees default values; instance initializers run after
// super() in textual order, and a virtual call from the superclass constructor sees the
// subclass's fields still at their defaults.
import java.util.ArrayList;
import java.util.List;

class Trace {
    static final List<String> events = new ArrayList<>();

    static int log(String what) {
        events.add(what);
        return events.size();
    }
}

class Super {
    static int superField = Trace.log("Super.<clinit> field");

    static {
        Trace.log("Super.<clinit> block");
    }

    static final int CONSTANT = 41;
    static final String TEXT = "constant text";
    static int inherited = Trace.log("Super.inherited");

    int instanceField = Trace.log("Super instance field");

    Super() {
        Trace.log("Super() calls describe: " + describe());
    }

    String describe() {
        return "Super";
    }

    static void touch() {
        Trace.log("Super.touch()");
    }
}

class Sub extends Super {
    static int subField = Trace.log("Sub.<clinit>");
    int value = 7;
    String name;

    {
        Trace.log("Sub instance block, value=" + value);
        name = "sub";
    }

    Sub() {
        super();
        Trace.log("Sub() body, name=" + name);
    }

    @Override
    String describe() {
        return "Sub with value=" + value + " name=" + name;
    }
}

interface Plain {
    int PLAIN = Trace.log("Plain.<clinit>");
}

interface WithDefault {
    int WITH_DEFAULT = Trace.log("WithDefault.<clinit>");

    default String hello() {
        return "hello";
    }
}

class Implementor implements Plain, WithDefault {
    static {
        Trace.log("Implementor.<clinit>");
    }
}

class NeverInitialized {
    static {
        Trace.log("NeverInitialized.<clinit> (must not appear)");
    }

    static final long BIG = 1L << 40;
    static final String NAME = "never";
}

class CycleA {
    static int a = Trace.log("CycleA starts") * 0 + 10;
    static int seenB = CycleB.b;
    static int late = 99;
}

class CycleB {
    static int b = 20;
    static int seenLateOfA = CycleA.late;

    static {
        Trace.log("CycleB sees CycleA.a=" + CycleA.a + " CycleA.late=" + seenLateOfA);
    }
}

class Counter {
    static int count;

    static {
        Trace.log("Counter.<clinit>");
        count = 100;
    }

    static int next() {
        return ++count;
    }
}

public class ClassInit {
    static {
        Trace.log("ClassInit.<clinit> (main class)");
    }

    static void dump(String step) {
        System.out.println("== " + step);
        for (String e : Trace.events) {
            System.out.println("  " + e);
        }
        Trace.events.clear();
    }

    public static void main(String[] args) {
        dump("start");
        int c = Super.CONSTANT + NeverInitialized.NAME.length() + (int) (NeverInitialized.BIG >> 40);
        String t = Super.TEXT;
        Sub[] arr = new Sub[3];
        NeverInitialized[][] arr2 = new NeverInitialized[2][2];
        dump("constants and arrays: " + c + " " + t + " " + arr.length + arr2.length);
        int x = Sub.inherited;
        dump("Sub.inherited read (declared in Super): " + x);
        Sub s = new Sub();
        dump("new Sub(): " + s.describe());
        new Sub();
        dump("second new Sub()");
        Implementor impl = new Implementor();
        dump("new Implementor(): " + impl.hello());
        int p = Plain.PLAIN;
        dump("Plain.PLAIN read: " + p);
        dump("CycleA.seenB=" + CycleA.seenB + " CycleB.seenLateOfA=" + CycleB.seenLateOfA);
        Super.touch();
        dump("Super.touch()");
        Counter.next();
        Counter.next();
        dump("Counter.next() twice: " + Counter.count);
    }
}
