// tags: exception string
// release: 21
// Library exception messages that JDK 20 changed and JDK 21+ keep: String and StringBuilder
// index checks report "Index i out of bounds for length n" and "Range [b, e) out of bounds for
// length n" (JDK 17 said "String index out of range: i" and "begin b, end e, length n").
public class LibraryMessages21 {
    interface Task {
        Object run();
    }

    static void t(String what, Task task) {
        try {
            System.out.println(what + " = " + task.run());
        } catch (RuntimeException e) {
            System.out.println(what + " -> " + e);
        }
    }

    public static void main(String[] args) {
        t("charAt", () -> "abc".charAt(3));
        t("charAt negative", () -> "abc".charAt(-1));
        t("substring end", () -> "abc".substring(1, 5));
        t("substring reversed", () -> "abc".substring(2, 1));
        t("substring begin", () -> "abc".substring(4));
        t("valueOf range", () -> String.valueOf(new char[] {'a', 'b'}, 1, 2));
        t("StringBuilder.charAt", () -> new StringBuilder("xy").charAt(2));
        t("StringBuilder.deleteCharAt", () -> new StringBuilder("xy").deleteCharAt(5));
        t("StringBuilder.insert", () -> new StringBuilder("xy").insert(3, "z"));
        t("StringBuilder.setCharAt", () -> {
            StringBuilder sb = new StringBuilder("xy");
            sb.setCharAt(-1, 'q');
            return sb;
        });
        t("StringBuilder.delete", () -> new StringBuilder("xyz").delete(2, 1));
        t("StringBuilder.setLength", () -> {
            StringBuilder sb = new StringBuilder("xy");
            sb.setLength(-3);
            return sb;
        });
    }
}
