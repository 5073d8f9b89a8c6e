// tags: bytecode numeric
// release: 8
// Every int bytecode (iadd..iushr, ineg, iinc and wide iinc, the int compares and branches)
// over edge values, with Java's rules: wrap-around, MIN_VALUE / -1, % by -1, shift counts
// masked to 5 bits, division by zero throwing ArithmeticException.
public class IntArith {
    static final int[] VALUES = {
        0, 1, -1, 2, -2, 3, 7, -7, 31, 32, 33, 100, -100, 127, -128, 255, 65535,
        0x7fff_ffff, 0x8000_0000, 0x7fff_fffe, 0x8000_0001, 0x1234_5678, 0xdead_beef
    };

    static int checksum = 0;

    static void mix(int v) {
        checksum = checksum * 31 + v;
    }

    public static void main(String[] args) {
        for (int a : VALUES) {
            for (int b : VALUES) {
                mix(a + b);
                mix(a - b);
                mix(a * b);
                mix(a & b);
                mix(a | b);
                mix(a ^ b);
                mix(a << b);
                mix(a >> b);
                mix(a >>> b);
                if (b != 0) {
                    mix(a / b);
                    mix(a % b);
                }
                mix(a < b ? 1 : 0);
                mix(a <= b ? 1 : 0);
                mix(a > b ? 1 : 0);
                mix(a >= b ? 1 : 0);
                mix(a == b ? 1 : 0);
                mix(a != b ? 1 : 0);
            }
            mix(-a);
            mix(~a);
        }
        System.out.println("checksum " + checksum);

        int min = Integer.MIN_VALUE;
        int minusOne = -1;
        System.out.println("MIN / -1 = " + (min / minusOne));
        System.out.println("MIN % -1 = " + (min % minusOne));
        System.out.println("MIN * -1 = " + (min * minusOne));
        System.out.println("-MIN = " + (-min));
        System.out.println("MAX + 1 = " + (Integer.MAX_VALUE + 1));
        System.out.println("7 / -2 = " + (7 / -2) + ", 7 % -2 = " + (7 % -2));
        System.out.println("-7 / 2 = " + (-7 / 2) + ", -7 % 2 = " + (-7 % 2));
        System.out.println("-7 / -2 = " + (-7 / -2) + ", -7 % -2 = " + (-7 % -2));

        int one = 1;
        for (int s : new int[] {0, 1, 31, 32, 33, 63, 64, -1, -31, -32, 100}) {
            System.out.println("shift " + s + ": " + (one << s) + " " + (min >> s) + " " + (min >>> s)
                + " " + (-12345 >> s) + " " + (-12345 >>> s));
        }

        int zero = 0;
        try {
            System.out.println(5 / zero);
        } catch (ArithmeticException e) {
            System.out.println("idiv: " + e.getMessage());
        }
        try {
            System.out.println(5 % zero);
        } catch (ArithmeticException e) {
            System.out.println("irem: " + e.getMessage());
        }
        try {
            System.out.println(min / zero);
        } catch (ArithmeticException e) {
            System.out.println("idiv MIN: " + e);
        }

        // iinc with small and wide increments, and on a wide local index.
        int i = 0;
        i += 1;
        i += 127;
        i -= 128;
        i += 1000;
        i -= 32768;
        i += 32767;
        i += 100000;
        System.out.println("iinc " + i);
        int acc = 0;
        for (int k = 0; k < 1000; k += 7) {
            acc += k;
        }
        for (int k = 1000; k > 0; k -= 300) {
            acc ^= k;
        }
        System.out.println("loops " + acc);

        // Compare-with-zero branches (ifeq, ifne, iflt, ifge, ifgt, ifle).
        StringBuilder sb = new StringBuilder();
        for (int v : new int[] {-5, 0, 5}) {
            if (v == 0) sb.append('e');
            if (v != 0) sb.append('n');
            if (v < 0) sb.append('l');
            if (v >= 0) sb.append('G');
            if (v > 0) sb.append('g');
            if (v <= 0) sb.append('L');
            sb.append(' ');
        }
        System.out.println("branches " + sb);

        // Constants: iconst_m1..iconst_5, bipush, sipush, ldc.
        int[] consts = {-1, 0, 1, 2, 3, 4, 5, 6, -128, 127, 128, -129, 32767, -32768, 32768, -32769, 1 << 20};
        int sum = 0;
        for (int c : consts) sum += c;
        System.out.println("consts " + sum);
        System.out.println("hex " + Integer.toHexString(0xdeadbeef) + " " + Integer.toHexString(-1 >>> 4));
    }
}
