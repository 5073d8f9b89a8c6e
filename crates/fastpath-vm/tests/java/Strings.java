// tags: string
// release: 11
// String: literals interned (== across classes and for compile-time constant expressions,
// not for strings built at run time), length, charAt, equals, hashCode, compareTo, substring,
// indexOf (char and string, with from-index), startsWith, endsWith, concat, trim, split on a
// literal (trailing empty strings dropped, limit), valueOf of every type, toCharArray.
class OtherClass {
    static final String LITERAL = "shared literal";
}

public class Strings {
    static final String PART = "shared";

    public static void main(String[] args) {
        String a = "shared literal";
        String b = PART + " literal";
        String c = new String(a);
        String runtime = PART;
        String d = runtime + " literal";
        System.out.println("interned " + (a == OtherClass.LITERAL) + " " + (a == b) + " " + (a == c) + " " + (a == d)
            + " " + a.equals(d) + " " + c.equals(a));
        String s = "  The quick brown fox jumps over the lazy dog  ";
        String t = s.trim();
        System.out.println("[" + t + "] " + s.length() + " " + t.length());
        System.out.println(t.charAt(0) + " " + t.charAt(t.length() - 1) + " " + t.indexOf('o') + " " + t.indexOf('o', 13)
            + " " + t.indexOf("the") + " " + t.indexOf("The") + " " + t.indexOf("cat") + " " + t.indexOf("", 5)
            + " " + t.indexOf('o', 42) + " " + t.indexOf('z', 100));
        System.out.println(t.substring(4) + "|" + t.substring(4, 9) + "|" + t.substring(0, 0) + "|" + t.substring(t.length()));
        System.out.println(t.startsWith("The") + " " + t.startsWith("quick", 4) + " " + t.endsWith("dog") + " "
            + t.endsWith("") + " " + t.startsWith("the"));
        System.out.println("con".concat("cat").concat("") + " " + "".length() + " " + " x ".trim().length() + " ["
            + "\t\n x \r".trim() + "] [" + "   ".trim() + "]");
        String[] words = t.split(" ");
        System.out.println(words.length + " words, last " + words[words.length - 1]);
        String[][] splits = {
            "a,b,,c,,".split(","), ",a,b".split(","), "abc".split(","), "".split(","), "a::b::c".split("::"),
            "a,b,c,d".split(",", 2), "a,b,,".split(",", -1), "x1y1z".split("1")
        };
        for (String[] parts : splits) {
            StringBuilder sb = new StringBuilder();
            sb.append(parts.length).append(':');
            for (String p : parts) {
                sb.append('[').append(p).append(']');
            }
            System.out.println(sb);
        }
        String[] cmp = {"apple", "Apple", "apricot", "app", "", "banana", "apple"};
        for (String x : cmp) {
            System.out.println("compare " + x + " " + Integer.signum(x.compareTo("apple")) + " " + x.compareTo("apple")
                + " " + x.equals("apple") + " " + x.hashCode());
        }
        System.out.println(String.valueOf(true) + String.valueOf('c') + String.valueOf(12) + String.valueOf(-34L)
            + String.valueOf(1.5f) + String.valueOf(2.25) + String.valueOf((Object) null) + String.valueOf(new char[] {'o', 'k'}));
        char[] chars = "hello".toCharArray();
        chars[0] = 'j';
        System.out.println(new String(chars) + " " + new String(chars, 1, 3) + " " + chars.length);
        System.out.println("hash of empty " + "".hashCode() + ", of a long string " + t.hashCode());
        StringBuilder acc = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            acc.append((char) ('a' + i % 26));
        }
        String long1 = acc.toString();
        System.out.println(long1.hashCode() + " " + long1.substring(190) + " " + long1.indexOf("xyz") + " "
            + long1.indexOf("xyz", 30));
        System.out.println("equalsIgnoreCase-free comparison " + "ABC".equals("abc") + " " + "abc".compareTo("abd")
            + " " + "b".compareTo("abc") + " " + "ab".compareTo("abc"));
        System.out.println("unicode lengths " + "\u00e9t\u00e9".length() + " " + "\ud83d\ude00x".length() + " "
            + (int) "\ud83d\ude00x".charAt(0) + " " + "\u00e9t\u00e9".hashCode());
        String nul = null;
        System.out.println("null concat " + nul + " " + ("" + null).length());
        System.out.println("equals(null) " + "x".equals(null) + " " + "a".equals((Object) "a"));
    }
}
