// tags: bytecode
// release: 8
// Nested and inner classes before nestmates: javac emits synthetic accessors (access$NNN) for
// private members used across classes of the nest, and this$0 fields for inner instances.
// Static nested, inner, local and anonymous classes, captured locals, and outer.this access.
public class InnerClasses8 {
    private int counter = 10;
    private static String secret = "outer-secret";

    private int bump(int by) {
        counter += by;
        return counter;
    }

    static class StaticNested {
        private final int v;

        StaticNested(int v) {
            this.v = v;
        }

        String show() {
            return "nested " + v + " sees " + secret;
        }
    }

    class Inner {
        private int own = 1;

        int touch() {
            own++;
            return bump(own) + counter;
        }

        class Deeper {
            String path() {
                return "deeper sees own=" + own + " counter=" + counter + " via " + InnerClasses8.this.counter;
            }
        }
    }

    interface Greeter {
        String greet(String who);
    }

    Greeter anonymous(final String prefix) {
        final int base = counter;
        return new Greeter() {
            private int calls = 0;

            public String greet(String who) {
                calls++;
                return prefix + " " + who + " #" + calls + " base=" + base + " now=" + counter;
            }
        };
    }

    int local(int n) {
        class Acc {
            int total;

            void add(int x) {
                total += x * counter;
            }
        }
        Acc acc = new Acc();
        for (int i = 1; i <= n; i++) {
            acc.add(i);
        }
        return acc.total;
    }

    public static void main(String[] args) {
        InnerClasses8 outer = new InnerClasses8();
        System.out.println(new StaticNested(5).show());
        System.out.println("private field of nested from outer: " + new StaticNested(6).v);
        InnerClasses8.Inner in = outer.new Inner();
        System.out.println(in.touch() + " " + in.touch() + " own=" + in.own);
        InnerClasses8.Inner.Deeper deeper = in.new Deeper();
        System.out.println(deeper.path());
        Greeter g = outer.anonymous("hello");
        System.out.println(g.greet("a"));
        outer.bump(5);
        System.out.println(g.greet("b"));
        System.out.println("local " + outer.local(4));
        secret = "changed";
        System.out.println(new StaticNested(7).show());
        InnerClasses8 other = new InnerClasses8();
        Inner second = other.new Inner();
        System.out.println("separate outers " + second.touch() + " " + outer.counter + " " + other.counter);
    }
}
