// tags: string
// release: 8
// StringBuilder: append of every type (boolean, char, int, long, float, double, char[],
// String, Object, null, CharSequence ranges), insert at several positions, reverse (surrogate
// pairs stay in order), delete, deleteCharAt, replace, setCharAt, setLength (truncating and
// padding with NUL), indexOf, charAt, length, and growth over many appends.
public class StringBuilderOps {
    public static void main(String[] args) {
        StringBuilder sb = new StringBuilder();
        sb.append(true).append(',').append('c').append(',').append(42).append(',').append(-7L).append(',')
            .append(1.5f).append(',').append(0.1).append(',').append(new char[] {'h', 'i'}).append(',')
            .append("str").append(',').append((Object) Integer.valueOf(9)).append(',').append((String) null)
            .append(',').append("abcdef", 2, 4);
        System.out.println(sb + " " + sb.length());
        sb.setLength(0);
        sb.append("0123456789");
        sb.insert(0, "<").insert(sb.length(), '>').insert(5, 3.5).insert(1, true).insert(2, 99L);
        System.out.println(sb);
        sb.delete(0, 7).deleteCharAt(sb.length() - 1).replace(2, 5, "REPLACED");
        System.out.println(sb + " " + sb.indexOf("PLACE") + " " + sb.indexOf("zzz") + " " + sb.charAt(3));
        sb.setCharAt(0, '#');
        sb.reverse();
        System.out.println(sb);
        sb.setLength(3);
        System.out.println("[" + sb + "]");
        sb.setLength(5);
        System.out.println(sb.length() + " " + (int) sb.charAt(4));
        StringBuilder pair = new StringBuilder("a\ud83d\ude00b");
        pair.reverse();
        System.out.println((int) pair.charAt(0) + " " + (int) pair.charAt(1) + " " + (int) pair.charAt(2) + " "
            + (int) pair.charAt(3));
        StringBuilder big = new StringBuilder(4);
        for (int i = 0; i < 5000; i++) {
            big.append(i % 10);
        }
        for (int i = 0; i < 100; i++) {
            big.deleteCharAt(i * 3);
        }
        big.insert(2500, "middle");
        System.out.println(big.length() + " " + big.toString().hashCode() + " " + big.indexOf("middle") + " "
            + big.substring(2495, 2515));
        StringBuilder nums = new StringBuilder();
        nums.append(Integer.MIN_VALUE).append(' ').append(Long.MAX_VALUE).append(' ').append(Double.NaN).append(' ')
            .append(Float.NEGATIVE_INFINITY).append(' ').append((char) 65).append(' ').append(65);
        System.out.println(nums);
        StringBuilder palin = new StringBuilder("racecar");
        System.out.println(palin.reverse().toString().equals("racecar") + " " + new StringBuilder("ab").reverse());
        CharSequence cs = new StringBuilder("charseq");
        StringBuilder fromCs = new StringBuilder(cs);
        fromCs.append(cs, 0, 4);
        System.out.println(fromCs + " " + cs.length() + " " + cs.charAt(4));
    }
}
