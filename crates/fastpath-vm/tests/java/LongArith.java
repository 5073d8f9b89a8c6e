// tags: bytecode numeric
// release: 11
// Every long bytecode (ladd..lushr, lneg, lcmp, the long shifts taking an int count masked to
// 6 bits), long division edge cases, and a method with more than 256 local slots so that
// lload/lstore/dload/dstore/iinc need the wide prefix.
public class LongArith {
    static final long[] VALUES = {
        0L, 1L, -1L, 2L, -3L, 63L, 64L, 65L, 0x7fff_ffffL, 0x8000_0000L, -0x8000_0000L,
        Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1, Long.MIN_VALUE + 1,
        0x0123_4567_89ab_cdefL, 0xfedc_ba98_7654_3210L, 1_000_000_007L
    };

    public static void main(String[] args) {
        long checksum = 17;
        for (long a : VALUES) {
            for (long b : VALUES) {
                checksum = checksum * 31 + (a + b);
                checksum = checksum * 31 + (a - b);
                checksum = checksum * 31 + (a * b);
                checksum = checksum * 31 + (a & b);
                checksum = checksum * 31 + (a | b);
                checksum = checksum * 31 + (a ^ b);
                checksum = checksum * 31 + (a << b);
                checksum = checksum * 31 + (a >> b);
                checksum = checksum * 31 + (a >>> b);
                checksum = checksum * 31 + (a << (int) b);
                if (b != 0) {
                    checksum = checksum * 31 + a / b;
                    checksum = checksum * 31 + a % b;
                }
                checksum = checksum * 31 + Long.compare(a, b);
                checksum = checksum * 31 + (a < b ? 1 : a == b ? 2 : 3);
            }
            checksum = checksum * 31 + (-a);
            checksum = checksum * 31 + (~a);
        }
        System.out.println("checksum " + checksum);

        long min = Long.MIN_VALUE;
        long minusOne = -1;
        System.out.println("MIN / -1 = " + (min / minusOne));
        System.out.println("MIN % -1 = " + (min % minusOne));
        System.out.println("MAX + 1 = " + (Long.MAX_VALUE + 1));
        System.out.println("-7 / 2 = " + (-7L / 2) + ", -7 % 2 = " + (-7L % 2));
        for (int s : new int[] {0, 1, 31, 32, 63, 64, 65, -1}) {
            System.out.println("shift " + s + ": " + (1L << s) + " " + (min >> s) + " " + (min >>> s));
        }
        long zero = 0;
        try {
            System.out.println(5L / zero);
        } catch (ArithmeticException e) {
            System.out.println("ldiv: " + e.getMessage());
        }
        try {
            System.out.println(5L % zero);
        } catch (ArithmeticException e) {
            System.out.println("lrem: " + e.getMessage());
        }
        System.out.println("int*int overflow vs long: " + (100000 * 100000) + " " + (100000L * 100000));
        System.out.println("hex " + Long.toHexString(0xfedc_ba98_7654_3210L) + " " + Long.toHexString(-1L >>> 8));
        System.out.println("wide " + wideLocals(3));
    }

    // 130 long locals occupy 260 slots: the later ones are only reachable with `wide`.
    static long wideLocals(int seed) {
        long l000 = seed, l001 = l000 + 1, l002 = l001 + 1, l003 = l002 + 1, l004 = l003 + 1;
        long l005 = l004 + 1, l006 = l005 + 1, l007 = l006 + 1, l008 = l007 + 1, l009 = l008 + 1;
        long l010 = l009 * 3, l011 = l010 + 1, l012 = l011 + 1, l013 = l012 + 1, l014 = l013 + 1;
        long l015 = l014 + 1, l016 = l015 + 1, l017 = l016 + 1, l018 = l017 + 1, l019 = l018 + 1;
        long l020 = l019 * 3, l021 = l020 + 1, l022 = l021 + 1, l023 = l022 + 1, l024 = l023 + 1;
        long l025 = l024 + 1, l026 = l025 + 1, l027 = l026 + 1, l028 = l027 + 1, l029 = l028 + 1;
        long l030 = l029 * 3, l031 = l030 + 1, l032 = l031 + 1, l033 = l032 + 1, l034 = l033 + 1;
        long l035 = l034 + 1, l036 = l035 + 1, l037 = l036 + 1, l038 = l037 + 1, l039 = l038 + 1;
        long l040 = l039 * 3, l041 = l040 + 1, l042 = l041 + 1, l043 = l042 + 1, l044 = l043 + 1;
        long l045 = l044 + 1, l046 = l045 + 1, l047 = l046 + 1, l048 = l047 + 1, l049 = l048 + 1;
        long l050 = l049 * 3, l051 = l050 + 1, l052 = l051 + 1, l053 = l052 + 1, l054 = l053 + 1;
        long l055 = l054 + 1, l056 = l055 + 1, l057 = l056 + 1, l058 = l057 + 1, l059 = l058 + 1;
        long l060 = l059 * 3, l061 = l060 + 1, l062 = l061 + 1, l063 = l062 + 1, l064 = l063 + 1;
        long l065 = l064 + 1, l066 = l065 + 1, l067 = l066 + 1, l068 = l067 + 1, l069 = l068 + 1;
        long l070 = l069 * 3, l071 = l070 + 1, l072 = l071 + 1, l073 = l072 + 1, l074 = l073 + 1;
        long l075 = l074 + 1, l076 = l075 + 1, l077 = l076 + 1, l078 = l077 + 1, l079 = l078 + 1;
        long l080 = l079 * 3, l081 = l080 + 1, l082 = l081 + 1, l083 = l082 + 1, l084 = l083 + 1;
        long l085 = l084 + 1, l086 = l085 + 1, l087 = l086 + 1, l088 = l087 + 1, l089 = l088 + 1;
        long l090 = l089 * 3, l091 = l090 + 1, l092 = l091 + 1, l093 = l092 + 1, l094 = l093 + 1;
        long l095 = l094 + 1, l096 = l095 + 1, l097 = l096 + 1, l098 = l097 + 1, l099 = l098 + 1;
        long l100 = l099 * 3, l101 = l100 + 1, l102 = l101 + 1, l103 = l102 + 1, l104 = l103 + 1;
        long l105 = l104 + 1, l106 = l105 + 1, l107 = l106 + 1, l108 = l107 + 1, l109 = l108 + 1;
        long l110 = l109 * 3, l111 = l110 + 1, l112 = l111 + 1, l113 = l112 + 1, l114 = l113 + 1;
        long l115 = l114 + 1, l116 = l115 + 1, l117 = l116 + 1, l118 = l117 + 1, l119 = l118 + 1;
        long l120 = l119 * 3, l121 = l120 + 1, l122 = l121 + 1, l123 = l122 + 1, l124 = l123 + 1;
        long l125 = l124 + 1, l126 = l125 + 1, l127 = l126 + 1, l128 = l127 + 1, l129 = l128 + 1;
        double d130 = l129 / 2.0;
        double d131 = d130 * 1.5;
        int i132 = (int) l129;
        i132 += 1000;
        i132++;
        for (int i = 0; i < 10; i++) {
            l129 += i;
            d131 += i;
        }
        return l000 + l010 + l020 + l030 + l040 + l050 + l060 + l070 + l080 + l090 + l100 + l110
            + l120 + l125 + l128 + l129 + (long) d130 + (long) d131 + i132;
    }
}
