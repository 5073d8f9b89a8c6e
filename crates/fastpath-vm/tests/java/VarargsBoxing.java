// tags: bytecode string
// release: 15
// Varargs (zero, one, many arguments, an explicit array, null), autoboxing and unboxing in
// assignments, arithmetic, compound assignment, comparisons and collections, overload
// resolution between boxing and varargs, and a text block (release 15).
import java.util.ArrayList;
import java.util.List;

public class VarargsBoxing {
    static int count(Object... xs) {
        return xs == null ? -1 : xs.length;
    }

    static int sum(int... xs) {
        int s = 0;
        for (int x : xs) {
            s += x;
        }
        return s;
    }

    static String join(String sep, String... parts) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) sb.append(sep);
            sb.append(parts[i]);
        }
        return sb.toString();
    }

    static String pick(int x) {
        return "int";
    }

    static String pick(Integer x) {
        return "Integer";
    }

    static String pick(int... x) {
        return "int...";
    }

    static String pick(long x) {
        return "long";
    }

    static String box(Object o) {
        return "Object";
    }

    static String box(long... o) {
        return "long...";
    }

    public static void main(String[] args) {
        System.out.println(count() + " " + count(1) + " " + count(1, "two", 3.0) + " " + count((Object[]) null)
            + " " + count((Object) null) + " " + count(new Object[] {1, 2}) + " " + count((Object) new Object[] {1, 2}));
        System.out.println(sum() + " " + sum(1) + " " + sum(1, 2, 3, 4, 5) + " " + sum(new int[] {10, 20}));
        System.out.println(join("-") + "|" + join("-", "a") + "|" + join(", ", "a", "b", "c"));
        byte b = 1;
        short s = 2;
        System.out.println(pick(1) + " " + pick(Integer.valueOf(1)) + " " + pick() + " " + pick(1, 2) + " " + pick(b)
            + " " + pick(s) + " " + pick(3L) + " " + box(1) + " " + box());

        Integer i = 10;
        int j = i + 5;
        i++;
        i += 100;
        Long l = 5L;
        l *= 3;
        Double d = 2.5;
        d /= 2;
        Character c = 'a';
        c++;
        Boolean flag = !Boolean.TRUE;
        System.out.println(i + " " + j + " " + l + " " + d + " " + c + " " + flag);
        Integer big1 = 1000;
        Integer big2 = 1000;
        System.out.println(big1.equals(big2) + " " + (big1.intValue() == big2) + " " + (big1 < big2 + 1));
        List<Integer> list = new ArrayList<>();
        for (int k = 0; k < 10; k++) {
            list.add(k * k);
        }
        int total = 0;
        for (int v : list) {
            total += v;
        }
        list.remove(Integer.valueOf(81));
        list.remove(0);
        System.out.println(total + " " + list);
        Object o = 42;
        Object od = 4.2;
        Object oc = 'x';
        Object oz = true;
        System.out.println((o instanceof Integer) + " " + (od instanceof Double) + " " + (oc instanceof Character) + " "
            + (oz instanceof Boolean) + " " + o + od + oc + oz);
        long widened = i;
        double dw = l;
        System.out.println(widened + " " + dw);
        Integer nothing = null;
        try {
            int bad = nothing;
            System.out.println(bad);
        } catch (NullPointerException e) {
            System.out.println("unboxing null throws NullPointerException");
        }
        String block = """
            Text blocks strip the common indentation,
              keep relative indentation,
            and end with a newline: \
            unless the line ends with a backslash.
            Quotes "need" no escapes; \t escapes still work.
            """;
        System.out.print(block);
        System.out.println(block.length() + " " + block.split("\n").length);
    }
}
