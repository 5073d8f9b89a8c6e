// tags: bytecode
// release: 17
// Sealed interfaces and classes (PermittedSubclasses), final and non-sealed subclasses, an
// expression tree evaluated by instanceof patterns and by virtual dispatch, and a generic
// sealed result type.
public class Sealed17 {
    sealed interface Expr permits Num, Add, Mul, Neg {
        long eval();
    }

    record Num(long v) implements Expr {
        public long eval() {
            return v;
        }
    }

    record Add(Expr l, Expr r) implements Expr {
        public long eval() {
            return l.eval() + r.eval();
        }
    }

    record Mul(Expr l, Expr r) implements Expr {
        public long eval() {
            return l.eval() * r.eval();
        }
    }

    static non-sealed class Neg implements Expr {
        final Expr e;

        Neg(Expr e) {
            this.e = e;
        }

        public long eval() {
            return -e.eval();
        }
    }

    static final class DoubleNeg extends Neg {
        DoubleNeg(Expr e) {
            super(new Neg(e));
        }
    }

    static abstract sealed class Result<T> permits Ok, Err {
    }

    static final class Ok<T> extends Result<T> {
        final T value;

        Ok(T value) {
            this.value = value;
        }
    }

    static final class Err<T> extends Result<T> {
        final String why;

        Err(String why) {
            this.why = why;
        }
    }

    static String show(Expr e) {
        if (e instanceof Num n) {
            return Long.toString(n.v());
        } else if (e instanceof Add a) {
            return "(" + show(a.l()) + " + " + show(a.r()) + ")";
        } else if (e instanceof Mul m) {
            return show(m.l()) + " * " + show(m.r());
        } else if (e instanceof Neg n) {
            return "-" + show(n.e);
        }
        throw new AssertionError("unreachable");
    }

    static Result<Long> safeDiv(long a, long b) {
        if (b == 0) {
            return new Err<>("division by zero");
        }
        return new Ok<>(a / b);
    }

    public static void main(String[] args) {
        Expr e = new Add(new Mul(new Num(6), new Num(7)), new Neg(new Add(new Num(1), new DoubleNeg(new Num(2)))));
        System.out.println(show(e) + " = " + e.eval());
        Expr big = new Num(1);
        for (int i = 2; i <= 20; i++) {
            big = i % 2 == 0 ? new Mul(big, new Num(i)) : new Add(big, new Num(i));
        }
        System.out.println("big " + big.eval());
        for (long b : new long[] {3, 0}) {
            Result<Long> r = safeDiv(100, b);
            if (r instanceof Ok<Long> ok) {
                System.out.println("ok " + ok.value);
            } else if (r instanceof Err<Long> err) {
                System.out.println("err " + err.why);
            }
        }
    }
}
