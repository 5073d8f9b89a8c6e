// tags: bytecode numeric string
// release: 8
// char as an unsigned 16-bit integer: arithmetic promotes to int, compound assignment narrows,
// comparison is unsigned, concatenation prints the character. Output stays ASCII; other
// characters print as numbers.
public class CharArith {
    static char next(char c) {
        return (char) (c + 1);
    }

    public static void main(String[] args) {
        char c = 'A';
        System.out.println(c + 1);
        System.out.println((char) (c + 1));
        System.out.println("" + c + 1);
        System.out.println(c + 'B');
        System.out.println("" + c + 'B');
        c += 2;
        System.out.println(c);
        c++;
        System.out.println(c);
        System.out.println(next('y') + "" + next('z'));
        char max = '\uffff';
        System.out.println((int) max + " " + (int) (char) (max + 1) + " " + (max > 'a') + " " + (short) max);
        char zero = 0;
        zero--;
        System.out.println((int) zero);
        StringBuilder sb = new StringBuilder();
        for (char ch = 'a'; ch <= 'z'; ch += 3) {
            sb.append(ch);
        }
        System.out.println(sb);
        int sum = 0;
        for (char ch : "Hello, World".toCharArray()) {
            sum = sum * 31 + ch;
        }
        System.out.println(sum + " " + "Hello, World".hashCode());
        char[] caesar = "attack at dawn".toCharArray();
        for (int i = 0; i < caesar.length; i++) {
            if (caesar[i] >= 'a' && caesar[i] <= 'z') {
                caesar[i] = (char) ('a' + (caesar[i] - 'a' + 13) % 26);
            }
        }
        System.out.println(new String(caesar));
        System.out.println(String.valueOf(caesar, 0, 6));
        System.out.println((int) '\u00e9' + " " + (int) '\u4e2d' + " " + (int) "\ud83d\ude00".charAt(1) + " "
            + "\ud83d\ude00".length());
        char digit = '7';
        System.out.println(digit - '0' + 1);
        System.out.println((char) ('0' + 9));
        System.out.println(Character.valueOf('x') + " " + Character.toString('y') + " " + (Character.valueOf('q') == 'q'));
        switch (c) {
            case 'A': System.out.println("A"); break;
            case 'D': System.out.println("D matched"); break;
            default: System.out.println("other");
        }
        char[] table = new char[5];
        System.out.println((int) table[0] + " " + table.length);
        int i = 'z' - 'a';
        long l = 'z' * 1000L;
        double d = 'a' / 2.0;
        float f = 'b';
        System.out.println(i + " " + l + " " + d + " " + f);
    }
}
