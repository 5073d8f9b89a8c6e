// tags: bytecode string
// release: 14
// tableswitch (dense keys, with and without holes), lookupswitch (sparse keys, negative and
// extreme keys), switches on char/byte/short, string switch (hashCode lookupswitch, then
// equals, including colliding hashes "Aa"/"BB"), fall-through, and switch expressions with
// yield (release 14).
public class Switches {
    static int dense(int x) {
        switch (x) {
            case 0: return 100;
            case 1: return 101;
            case 2: return 102;
            case 3: return 103;
            case 5: return 105;
            case 6: return 106;
            default: return -1;
        }
    }

    static int sparse(int x) {
        switch (x) {
            case Integer.MIN_VALUE: return 1;
            case -1000000: return 2;
            case -1: return 3;
            case 0: return 4;
            case 1000: return 5;
            case 65536: return 6;
            case Integer.MAX_VALUE: return 7;
            default: return 0;
        }
    }

    static String fall(int x) {
        StringBuilder sb = new StringBuilder();
        switch (x) {
            case 1:
                sb.append("one ");
            case 2:
                sb.append("two ");
                break;
            case 3:
                sb.append("three ");
            default:
                sb.append("default ");
        }
        return sb.toString().trim();
    }

    static String str(String s) {
        switch (s) {
            case "Aa": return "Aa";
            case "BB": return "BB (same hash as Aa)";
            case "": return "empty";
            case "hello": return "greeting";
            case "polygenelubricants": return "hash is MIN_VALUE";
            default: return "unknown " + s;
        }
    }

    static int expr(String day) {
        return switch (day) {
            case "SAT", "SUN" -> 0;
            case "MON" -> {
                int base = 8;
                yield base + 1;
            }
            default -> {
                if (day.length() > 3) {
                    yield -1;
                }
                yield 8;
            }
        };
    }

    static String charKind(char c) {
        return switch (c) {
            case 'a', 'e', 'i', 'o', 'u' -> "vowel";
            case ' ' -> "space";
            default -> c >= '0' && c <= '9' ? "digit" : "consonant";
        };
    }

    public static void main(String[] args) {
        StringBuilder sb = new StringBuilder();
        for (int i = -2; i <= 8; i++) {
            sb.append(dense(i)).append(' ');
        }
        System.out.println(sb.toString().trim());
        int[] keys = {Integer.MIN_VALUE, -1000000, -999999, -1, 0, 1, 999, 1000, 65536, Integer.MAX_VALUE, 42};
        sb.setLength(0);
        for (int k : keys) {
            sb.append(sparse(k));
        }
        System.out.println(sb);
        for (int i = 0; i <= 4; i++) {
            System.out.println(i + ": " + fall(i));
        }
        for (String s : new String[] {"Aa", "BB", "", "hello", "Hello", "polygenelubricants", "C#"}) {
            System.out.println("\"" + s + "\" -> " + str(s) + " hash " + s.hashCode());
        }
        for (String d : new String[] {"SAT", "SUN", "MON", "TUE", "FRIDAY"}) {
            System.out.println(d + " " + expr(d));
        }
        sb.setLength(0);
        for (char c : "a1 bz9e".toCharArray()) {
            sb.append(charKind(c)).append(',');
        }
        System.out.println(sb);
        byte by = -3;
        short sh = 300;
        switch (by) {
            case -3: System.out.println("byte -3"); break;
            default: System.out.println("byte other");
        }
        switch (sh) {
            case 300: System.out.println("short 300"); break;
            default: System.out.println("short other");
        }
        int acc = 0;
        for (int i = 0; i < 10000; i++) {
            acc += switch (i % 7) {
                case 0 -> 1;
                case 1 -> 3;
                case 2 -> 5;
                case 3 -> 7;
                case 4 -> 11;
                case 5 -> 13;
                default -> 17;
            };
        }
        System.out.println("acc " + acc);
        Integer boxed = 2;
        switch (boxed) {
            case 2: System.out.println("unboxed switch"); break;
            default: System.out.println("no");
        }
    }
}
