// tags: basic
// release: 23
// Control flow: nested loops with labeled break and continue, do/while, conditional
// expressions, short-circuit && and || with side effects, recursion (mutual, Ackermann,
// memoised Fibonacci), and a small Collatz search.
public class ControlFlow23 {
    static int sideEffects = 0;

    static boolean t(String tag) {
        sideEffects = sideEffects * 10 + 1;
        return true;
    }

    static boolean f(String tag) {
        sideEffects = sideEffects * 10 + 2;
        return false;
    }

    static boolean isEven(int n) {
        return n == 0 || isOdd(n - 1);
    }

    static boolean isOdd(int n) {
        return n != 0 && isEven(n - 1);
    }

    static int ackermann(int m, int n) {
        if (m == 0) return n + 1;
        if (n == 0) return ackermann(m - 1, 1);
        return ackermann(m - 1, ackermann(m, n - 1));
    }

    static long[] memo = new long[91];

    static long fib(int n) {
        if (n < 2) return n;
        if (memo[n] != 0) return memo[n];
        return memo[n] = fib(n - 1) + fib(n - 2);
    }

    static int slowFib(int n) {
        return n < 2 ? n : slowFib(n - 1) + slowFib(n - 2);
    }

    public static void main(String[] args) {
        StringBuilder sb = new StringBuilder();
        outer:
        for (int i = 0; i < 10; i++) {
            for (int j = 0; j < 10; j++) {
                if (j > i) continue outer;
                if (i * j > 20) break outer;
                if ((i + j) % 3 == 0) continue;
                sb.append(i).append(j).append(' ');
            }
        }
        System.out.println(sb);
        int n = 0;
        do {
            n += 3;
        } while (n < 100);
        System.out.println("do-while " + n);
        int w = 1000;
        while (true) {
            w /= 3;
            if (w < 5) break;
        }
        System.out.println("while " + w);
        boolean r1 = f("a") && t("b");
        boolean r2 = t("c") || f("d");
        boolean r3 = f("e") || t("f") && f("g");
        boolean r4 = t("h") & f("i") | t("j") ^ t("k");
        System.out.println(r1 + " " + r2 + " " + r3 + " " + r4 + " effects " + sideEffects);
        System.out.println(isEven(100) + " " + isOdd(77) + " " + isEven(7));
        System.out.println("ackermann(2,3)=" + ackermann(2, 3) + " ackermann(3,3)=" + ackermann(3, 3));
        System.out.println("fib(90)=" + fib(90) + " slowFib(20)=" + slowFib(20));
        int bestStart = 0;
        int bestLen = 0;
        for (int start = 1; start < 10000; start++) {
            long x = start;
            int len = 1;
            while (x != 1) {
                x = (x & 1) == 0 ? x >> 1 : 3 * x + 1;
                len++;
            }
            if (len > bestLen) {
                bestLen = len;
                bestStart = start;
            }
        }
        System.out.println("collatz " + bestStart + " " + bestLen);
        int x = 5;
        String size = x > 10 ? "big" : x > 3 ? "medium" : "small";
        System.out.println(size);
        int primes = 0;
        for (int i = 2; i < 5000; i++) {
            boolean prime = true;
            for (int d = 2; d * d <= i; d++) {
                if (i % d == 0) {
                    prime = false;
                    break;
                }
            }
            if (prime) primes++;
        }
        System.out.println("primes below 5000: " + primes);
    }
}
