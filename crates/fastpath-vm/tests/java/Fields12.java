// tags: basic bytecode
// release: 12
// Fields of every type, static and instance: default values, getstatic/putstatic and
// getfield/putfield for each width (long and double take two slots), final constants inlined by
// javac (ConstantValue) beside ones computed at run time, field hiding (the static type picks
// the field), protected/package access, and compound updates of fields.
class Parent {
    int shared = 1;
    static String kind = "parent";
    protected long wide = 10L;

    int sharedViaParent() {
        return shared;
    }
}

class Child extends Parent {
    int shared = 2;
    static String kind = "child";

    int both() {
        return shared * 10 + super.shared;
    }
}

public class Fields12 {
    static boolean sz;
    static byte sb;
    static char sc;
    static short ss;
    static int si;
    static long sl;
    static float sf;
    static double sd;
    static Object so;

    boolean z;
    byte b;
    char c;
    short s;
    int i;
    long l;
    float f;
    double d;
    Object o;

    static final int CONSTANT = 6 * 7;
    static final String GREETING = "hi" + CONSTANT;
    static final long COMPUTED = System.nanoTime() > 0 ? 1L << 40 : 0;
    final double instanceFinal;

    Fields12(double v) {
        instanceFinal = v;
    }

    public static void main(String[] args) {
        Fields12 x = new Fields12(2.5);
        System.out.println("static defaults " + sz + " " + sb + " " + (int) sc + " " + ss + " " + si + " " + sl + " " + sf
            + " " + sd + " " + so);
        System.out.println("instance defaults " + x.z + " " + x.b + " " + (int) x.c + " " + x.s + " " + x.i + " " + x.l
            + " " + x.f + " " + x.d + " " + x.o);
        sz = true;
        sb = -7;
        sc = 'S';
        ss = -300;
        si = 1 << 30;
        sl = -1L << 40;
        sf = 0.75f;
        sd = -1.25;
        so = "static object";
        x.z = true;
        x.b = 7;
        x.c = 'I';
        x.s = 300;
        x.i = -(1 << 30);
        x.l = 1L << 40;
        x.f = -0.75f;
        x.d = 1.25;
        x.o = x;
        System.out.println("static " + sz + " " + sb + " " + sc + " " + ss + " " + si + " " + sl + " " + sf + " " + sd
            + " " + so);
        System.out.println("instance " + x.z + " " + x.b + " " + x.c + " " + x.s + " " + x.i + " " + x.l + " " + x.f
            + " " + x.d + " " + (x.o == x));
        for (int k = 0; k < 1000; k++) {
            x.i += k;
            x.l += x.i;
            x.d += 0.5;
            sl ^= x.l;
            x.b += 3;
            x.c++;
            ss *= 3;
        }
        System.out.println("updated " + x.i + " " + x.l + " " + x.d + " " + sl + " " + x.b + " " + (int) x.c + " " + ss);
        System.out.println("constants " + CONSTANT + " " + GREETING + " " + COMPUTED + " " + x.instanceFinal);
        Parent p = new Child();
        Child ch = (Child) p;
        System.out.println("hiding " + p.shared + " " + ch.shared + " " + ch.both() + " " + p.sharedViaParent()
            + " " + Parent.kind + " " + Child.kind + " " + ch.wide);
        ((Parent) ch).shared = 50;
        ch.wide = -1;
        System.out.println("after " + ch.both() + " " + p.wide);
    }
}
