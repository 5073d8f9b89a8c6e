// tags: string
// release: 17
// String.indexOf and lastIndexOf of a code point: every start around a string's ends, code points
// below U+10000 (one code unit), supplementary ones (a surrogate pair, found only whole), lone
// surrogates, negative and past-U+10FFFF code points (never found); then strings of every length
// up to 40 with the sought char at every place, searched from every start (sums of the answers,
// run often enough that the searches are compiled).
public class CharSearch {
    public static void main(String[] args) {
        String s = "x\ud83d" + "abc\ud83d\ude00z\ud83d";
        int[] chs = {0x1f600, 0x1f601, 0x110000, -1, Integer.MIN_VALUE, 0xd83d, 0xde00, 'z', 'x', 0x10ffff};
        int[] froms = {Integer.MIN_VALUE, -5, 0, 1, 2, 5, 6, 7, 8, 9, 100, Integer.MAX_VALUE};
        for (int ch : chs) {
            StringBuilder b = new StringBuilder();
            for (int f : froms) {
                b.append(s.indexOf(ch, f)).append(' ').append(s.lastIndexOf(ch, f)).append(' ');
            }
            System.out.println(Integer.toHexString(ch) + ": " + b + s.indexOf(ch) + " " + s.lastIndexOf(ch));
        }
        String pairEnd = "ab\ud83d\ude00";
        System.out.println(pairEnd.indexOf(0x1f600) + " " + pairEnd.indexOf(0x1f600, 3) + " " + pairEnd.lastIndexOf(0x1f600)
            + " " + "".indexOf('a') + " " + "".lastIndexOf('a') + " " + "".indexOf(0x1f600) + " " + "\ud83d".indexOf(0x1f600));

        long sum = 0, found = 0;
        for (int round = 0; round < 6; round++) {
            for (int n = 0; n <= 40; n++) {
                char[] cs = new char[n];
                for (int i = 0; i < n; i++) {
                    cs[i] = (char) ('a' + (i * 7 + round) % 26);
                }
                for (int at = -1; at < n; at++) {
                    if (at >= 0) {
                        cs[at] = ',';
                    }
                    String t = new String(cs);
                    for (int from = -2; from <= n + 1; from++) {
                        int i = t.indexOf(',', from);
                        int j = t.lastIndexOf(',', from);
                        sum = sum * 31 + i * 17 + j;
                        if (i >= 0) {
                            found++;
                        }
                    }
                    sum += t.indexOf(',') + t.indexOf('a' + round % 26) * 3 + t.indexOf(0x1f600);
                    if (at >= 0) {
                        cs[at] = (char) ('a' + (at * 7 + round) % 26);
                    }
                }
            }
        }
        System.out.println("searches: sum " + sum + ", found " + found);
    }
}
