// tags: numeric
// release: 11
// java.util.Random is specified bit for bit (a 48-bit LCG): seeded sequences of nextInt,
// nextInt(bound) for powers of two and other bounds (with the rejection loop), nextLong,
// nextBoolean, nextFloat, nextDouble (printed exactly), nextGaussian (the polar method with
// StrictMath; printed rounded), nextBytes, setSeed, and a shuffle and a Monte Carlo estimate.
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

public class RandomSequences {
    public static void main(String[] args) {
        Random r = new Random(42);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            sb.append(r.nextInt()).append(' ');
        }
        System.out.println("nextInt " + sb);
        sb.setLength(0);
        for (int bound : new int[] {1, 2, 16, 1 << 30, 3, 10, 100, 1000000007, Integer.MAX_VALUE}) {
            sb.append(bound).append(':').append(r.nextInt(bound)).append(',').append(r.nextInt(bound)).append(' ');
        }
        System.out.println("nextInt(bound) " + sb);
        sb.setLength(0);
        for (int i = 0; i < 5; i++) {
            sb.append(r.nextLong()).append(' ');
        }
        System.out.println("nextLong " + sb);
        sb.setLength(0);
        for (int i = 0; i < 20; i++) {
            sb.append(r.nextBoolean() ? '1' : '0');
        }
        System.out.println("nextBoolean " + sb);
        sb.setLength(0);
        for (int i = 0; i < 5; i++) {
            sb.append(r.nextDouble()).append(' ');
        }
        System.out.println("nextDouble " + sb);
        sb.setLength(0);
        for (int i = 0; i < 5; i++) {
            sb.append(Integer.toHexString(Float.floatToIntBits(r.nextFloat()))).append(' ');
        }
        System.out.println("nextFloat bits " + sb);
        sb.setLength(0);
        for (int i = 0; i < 6; i++) {
            sb.append(String.format("%.9f", r.nextGaussian())).append(' ');
        }
        System.out.println("nextGaussian " + sb);
        byte[] bytes = new byte[10];
        r.nextBytes(bytes);
        sb.setLength(0);
        for (byte b : bytes) {
            sb.append(b).append(' ');
        }
        System.out.println("nextBytes " + sb);
        r.setSeed(42);
        System.out.println("after setSeed(42) " + r.nextInt() + " " + new Random(42).nextInt() + " "
            + new Random(-1L).nextLong() + " " + new Random(0).nextInt(10) + " " + new Random(Long.MIN_VALUE).nextDouble());

        Random shuffler = new Random(2024);
        List<Integer> deck = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            deck.add(i);
        }
        for (int i = deck.size() - 1; i > 0; i--) {
            int j = shuffler.nextInt(i + 1);
            Integer tmp = deck.get(i);
            deck.set(i, deck.get(j));
            deck.set(j, tmp);
        }
        System.out.println("shuffled " + deck);

        Random mc = new Random(7);
        int inside = 0;
        int n = 200000;
        for (int i = 0; i < n; i++) {
            double x = mc.nextDouble();
            double y = mc.nextDouble();
            if (x * x + y * y <= 1.0) {
                inside++;
            }
        }
        System.out.println("monte carlo inside " + inside + " of " + n + " pi ~ " + (4.0 * inside / n));
        long hist = 0;
        Random dice = new Random(99);
        int[] counts = new int[6];
        for (int i = 0; i < 60000; i++) {
            counts[dice.nextInt(6)]++;
        }
        for (int c : counts) {
            hist = hist * 100003 + c;
        }
        System.out.println("dice " + counts[0] + " " + counts[1] + " " + counts[2] + " " + counts[3] + " " + counts[4] + " "
            + counts[5] + " " + hist);
    }
}
