// tags: string numeric
// release: 11
// String.format and printf restricted to %d %s %f %x with widths and precision: padding,
// truncation of %s by precision, %f rounding (Java rounds the decimal expansion half-up, so
// 0.125 -> 0.13 and 2.5 -> 3, unlike C's printf), %x of negative int and long (two's
// complement), and byte/short/long/BigInteger-free arguments.
public class Formatting {
    public static void main(String[] args) {
        System.out.println(String.format("%d|%5d|%-5d|%1d", 42, 42, 42, 12345));
        System.out.println(String.format("%d %d %d %d", Integer.MIN_VALUE, Long.MAX_VALUE, (byte) -5, (short) 300));
        System.out.println(String.format("%x %x %x %x %x", 255, -1, -1L, 0, (byte) -1));
        System.out.println(String.format("%8x|%-8x|%x", 0xbeef, 0xbeef, Long.MIN_VALUE));
        System.out.println(String.format("%s|%10s|%-10s|%.3s|%10.2s|", "text", "right", "left", "truncate", "ab"));
        System.out.println(String.format("%s %s %s %s", null, 12, true, 'c'));
        System.out.println(String.format("%f|%.0f|%.1f|%.2f|%.3f|%10.4f|%-10.1f|", Math.PI, 2.5, 0.05, 0.125, -1.0005,
            Math.E, 99.95));
        System.out.println(String.format("%.2f %.2f %.2f %.2f %.2f", 0.005, 0.015, 0.025, 1.005, 2.675));
        System.out.println(String.format("%.0f %.0f %.0f %.0f %.0f", 0.5, 1.5, -0.5, -2.5, 3.49999));
        System.out.println(String.format("%f %f %f", 1e10, 1e-10, 123456789.123456789));
        System.out.println(String.format("%.3f %.3f %.3f", Double.NaN, Double.POSITIVE_INFINITY, -0.0));
        System.out.println(String.format("%.6f %.6f %.6f", 1.0f / 3, (double) (1.0f / 3), 100.0 / 3));
        System.out.println(String.format("%.10f %.15f", 0.1, 0.1));
        System.out.println(String.format("%12.3f|%-12.3f|%12f", -12.3456, 12.3456, 1.0));
        System.out.println(String.format("no args") + String.format(" %s percent", 50));
        System.out.printf("%d items cost %.2f, code %x, by %s\n", 3, 19.999, 48879, "me");
        for (int i = 0; i < 5; i++) {
            System.out.printf("%3d %8.3f %6x %-6s|\n", i * 37, i * 1.375, i * 4099, "r" + i);
        }
        StringBuilder table = new StringBuilder();
        for (int i = 1; i <= 3; i++) {
            table.append(String.format("%4d%4d%4d\n", i, i * i, i * i * i));
        }
        System.out.print(table);
        System.out.println(String.format("%d", 1234567890123L) + " " + String.format("%x", 1234567890123L));
        System.out.println(String.format("%5s|%-5s|%5s", "toolongvalue", "", null));
    }
}
