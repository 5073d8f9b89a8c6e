// tags: bytecode
// release: 8
// The operand-stack shuffles javac emits for assignments used as values and for postfix
// updates: dup_x1 (field store as a value), dup_x2 (int array store as a value), dup2 (long
// static), dup2_x1 (long field), dup2_x2 (long array element), pop2 (a discarded long result),
// plus float locals in slots 0..3 (fload_n/fstore_n) and a double parameter in slot 0
// (dstore_0). The one remaining stack opcode, swap, is not emitted by javac.
public class StackShuffles {
    int f;
    long l;
    double d;
    static long sl;
    static double sd;
    String s = "s";

    static long sideEffects;

    static long counted() {
        return ++sideEffects;
    }

    static float rotate(float a, float b, float c, float e) {
        float x = a;
        a = b;
        b = c;
        c = e;
        e = x;
        return a * 1000 + b * 100 + c * 10 + e;
    }

    static double twice(double a) {
        a = a * 2;
        return a;
    }

    String run(String[] arr, int i, long[] la, int[] ia, double[] da) {
        StringBuilder out = new StringBuilder();
        int y = (this.f = 5);
        int z = (ia[i] = 7);
        long w = (this.l = 5_000_000_000L);
        long v = (la[i] = -6L);
        long u = (sl = 9L);
        double dv = (da[i] = 2.5);
        double ds = (sd = 0.25);
        double df = (this.d = -1.5);
        out.append(y).append(' ').append(z).append(' ').append(w).append(' ').append(v).append(' ').append(u)
            .append(' ').append(dv).append(' ').append(ds).append(' ').append(df).append('\n');
        counted();
        counted();
        int q = this.f++;
        long r = this.l++;
        long t = la[i]++;
        int k = ia[i]--;
        long p = sl--;
        double dd = da[i]++;
        double dp = this.d--;
        int pre = ++this.f;
        long lpre = --la[i];
        out.append(q).append(' ').append(r).append(' ').append(t).append(' ').append(k).append(' ').append(p)
            .append(' ').append(dd).append(' ').append(dp).append(' ').append(pre).append(' ').append(lpre).append('\n');
        out.append(f).append(' ').append(l).append(' ').append(la[i]).append(' ').append(ia[i]).append(' ').append(sl)
            .append(' ').append(da[i]).append(' ').append(d).append(' ').append(sideEffects).append('\n');
        arr[i] += "x";
        arr[i] += 1;
        s += 'c';
        this.l += this.f;
        la[i] *= 3;
        ia[i] <<= 2;
        da[i] /= 2;
        out.append(arr[i]).append(' ').append(s).append(' ').append(l).append(' ').append(la[i]).append(' ')
            .append(ia[i]).append(' ').append(da[i]).append('\n');
        out.append(rotate(1, 2, 3, 4)).append(' ').append(twice(3.25));
        return out.toString();
    }

    public static void main(String[] args) {
        String[] arr = {"a", "b"};
        long[] la = {10, 20};
        int[] ia = {30, 40};
        double[] da = {0.5, 1.5};
        System.out.println(new StackShuffles().run(arr, 1, la, ia, da));
    }
}
