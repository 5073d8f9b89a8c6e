// tags: numeric string
// release: 21
// Double.toString and Float.toString over many values: random bit patterns (seeded), powers
// of ten and two at the edges of the decimal/scientific switch (1e-3 and 1e7), subnormals,
// and values one ulp away from round numbers. JDK 19+ prints the shortest decimal that rounds
// to the value (Raffaello Giulietti's algorithm), which is why this program is release 21.
import java.util.Random;

public class DoublePrinting21 {
    public static void main(String[] args) {
        Random r = new Random(19);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            double d = Double.longBitsToDouble(r.nextLong());
            float f = Float.intBitsToFloat(r.nextInt());
            sb.setLength(0);
            sb.append(d).append(' ').append(f).append(' ').append(r.nextDouble() * Math.pow(10, r.nextInt(40) - 20))
                .append(' ').append((float) (r.nextGaussian() * 1000));
            System.out.println(sb);
        }
        for (int e = -8; e <= 9; e++) {
            double p = Math.pow(10, e);
            System.out.println(e + ": " + p + " " + Math.nextUp(p) + " " + Math.nextDown(p) + " " + (float) p + " "
                + Math.nextUp((float) p) + " " + (p * 1.5) + " " + (p / 3));
        }
        for (int e = -1074; e <= 1023; e += 97) {
            System.out.println("2^" + e + " = " + Math.scalb(1.0, e) + " " + Math.scalb(1.0f, Math.max(-149, Math.min(127, e))));
        }
        double[] specials = {
            Double.MIN_VALUE, Double.MIN_NORMAL, Math.nextDown(Double.MIN_NORMAL), Double.MAX_VALUE, 2e23, 1e23, 8.41e21,
            5e-324, 9007199254740993.0, 0.1 + 0.7, 1.0 / 49 * 49, 4.35, 0.001, 0.0009999999999999998, 9999999.999999998,
            1.0E7, 123456789012345680.0
        };
        for (double d : specials) {
            System.out.println(d + " " + (float) d);
        }
    }
}
