// tags: bytecode
// release: 11
// The same shapes as InnerClasses8 compiled for release 11: NestHost/NestMembers attributes
// replace synthetic accessors, so private members are reached directly (invokevirtual or
// invokespecial on a private method of another class of the nest, getfield of a private field).
public class Nestmates {
    private int state = 1;
    private static int created = 0;

    private Nestmates() {
        created++;
    }

    private int twice() {
        return state * 2;
    }

    private static String tag(String s) {
        return "<" + s + ">";
    }

    static class Peer {
        private long hidden = 40;

        private long hiddenPlus(int x) {
            return hidden + x;
        }

        int poke(Nestmates n) {
            n.state += 3;
            return n.twice();
        }
    }

    class Member {
        private String label = "member";

        String both() {
            return tag(label) + state + twice();
        }
    }

    interface Op {
        int apply(int x);
    }

    private static final class Impl implements Op {
        private int k;

        private Impl(int k) {
            this.k = k;
        }

        public int apply(int x) {
            return x * k + created;
        }
    }

    public static void main(String[] args) {
        Nestmates n = new Nestmates();
        Peer p = new Peer();
        System.out.println(p.poke(n) + " " + n.state + " " + p.hidden + " " + p.hiddenPlus(2));
        p.hidden = -1;
        System.out.println(p.hiddenPlus(1));
        Member m = n.new Member();
        System.out.println(m.both() + " " + m.label);
        Op op = new Impl(5);
        System.out.println(op.apply(3) + " " + new Impl(2).k);
        Nestmates again = new Nestmates();
        System.out.println("created " + created + " " + op.apply(3) + " " + again.twice());
        Runnable r = new Runnable() {
            public void run() {
                again.state = 100;
                System.out.println("anonymous sees private " + again.twice() + " " + tag("anon"));
            }
        };
        r.run();
    }
}
