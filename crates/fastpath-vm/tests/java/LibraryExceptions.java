// tags: exception collections
// release: 14
// Exceptions thrown by the class library, with their messages where JDK 17 and JDK 25 agree:
// number parsing, list and deque bounds, iterators (exhausted, concurrent modification),
// unmodifiable collections, Objects.requireNonNull, Math exact arithmetic, arraycopy,
// Random bounds, monitor misuse, thread state. String index exceptions print only their class
// here (their messages changed in JDK 20; LibraryMessages21 checks the new ones).
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;

public class LibraryExceptions {
    interface Task {
        Object run() throws Exception;
    }

    static void t(String what, Task task) {
        try {
            Object result = task.run();
            System.out.println(what + " = " + result);
        } catch (StringIndexOutOfBoundsException e) {
            System.out.println(what + " -> StringIndexOutOfBoundsException");
        } catch (Exception e) {
            System.out.println(what + " -> " + e);
        }
    }

    public static void main(String[] args) {
        t("parseInt abc", () -> Integer.parseInt("abc"));
        t("parseInt empty", () -> Integer.parseInt(""));
        t("parseInt null", () -> Integer.parseInt(null));
        t("parseInt overflow", () -> Integer.parseInt("2147483648"));
        t("parseInt min", () -> Integer.parseInt("-2147483648"));
        t("parseInt plus", () -> Integer.parseInt("+17"));
        t("parseInt radix 16", () -> Integer.parseInt("-ff", 16));
        t("parseLong overflow", () -> Long.parseLong("9223372036854775808"));
        t("parseDouble junk", () -> Double.parseDouble("1.2.3"));
        t("parseDouble ok", () -> Double.parseDouble(" 1e3 "));
        t("valueOf junk", () -> Integer.valueOf("12a"));
        t("charAt", () -> "abc".charAt(3));
        t("substring", () -> "abc".substring(2, 1));
        t("ArrayList.get", () -> new ArrayList<>(Arrays.asList(1, 2)).get(2));
        t("ArrayList.get negative", () -> new ArrayList<>(Arrays.asList(1, 2)).get(-1));
        t("ArrayList.remove", () -> new ArrayList<Integer>().remove(0));
        t("ArrayList.set", () -> new ArrayList<Integer>().set(0, 1));
        t("ArrayList.add at", () -> {
            List<Integer> l = new ArrayList<>();
            l.add(1, 5);
            return l;
        });
        t("LinkedList.get", () -> new LinkedList<Integer>().get(3));
        t("LinkedList.removeFirst", () -> new LinkedList<Integer>().removeFirst());
        t("LinkedList.getLast", () -> new LinkedList<Integer>().getLast());
        t("ArrayDeque.pop", () -> new ArrayDeque<Integer>().pop());
        t("ArrayDeque.removeLast", () -> new ArrayDeque<Integer>().removeLast());
        t("ArrayDeque.addFirst null", () -> {
            new ArrayDeque<Integer>().addFirst(null);
            return null;
        });
        t("ArrayDeque.poll empty", () -> new ArrayDeque<Integer>().poll());
        t("iterator past end", () -> {
            Iterator<Integer> it = new ArrayList<>(Arrays.asList(1)).iterator();
            it.next();
            return it.next();
        });
        t("iterator remove twice", () -> {
            Iterator<Integer> it = new ArrayList<>(Arrays.asList(1, 2)).iterator();
            it.next();
            it.remove();
            it.remove();
            return null;
        });
        t("HashMap iterator past end", () -> new HashMap<String, String>().keySet().iterator().next());
        t("ArrayList modified in for-each", () -> {
            List<Integer> l = new ArrayList<>(Arrays.asList(1, 2, 3, 4));
            for (Integer i : l) {
                if (i == 2) {
                    l.remove(i);
                }
            }
            return l;
        });
        t("remove of the second-to-last element is not detected", () -> {
            List<Integer> l = new ArrayList<>(Arrays.asList(1, 2, 3));
            for (Integer i : l) {
                if (i == 2) {
                    l.remove(i);
                }
            }
            return l;
        });
        t("HashMap modified while iterating", () -> {
            Map<String, Integer> m = new HashMap<>();
            m.put("a", 1);
            m.put("b", 2);
            for (String k : m.keySet()) {
                m.put(k + k, 0);
            }
            return m;
        });
        t("unmodifiableList.add", () -> Collections.unmodifiableList(new ArrayList<Integer>()).add(1));
        t("unmodifiableMap.put", () -> Collections.unmodifiableMap(new HashMap<String, Integer>()).put("k", 1));
        t("Arrays.asList.add", () -> Arrays.asList(1, 2).add(3));
        t("Arrays.asList.set", () -> {
            List<Integer> l = Arrays.asList(1, 2);
            l.set(0, 9);
            return l;
        });
        t("requireNonNull", () -> Objects.requireNonNull(null));
        t("requireNonNull message", () -> Objects.requireNonNull(null, "config must not be null"));
        t("addExact", () -> Math.addExact(Integer.MAX_VALUE, 1));
        t("multiplyExact long", () -> Math.multiplyExact(Long.MIN_VALUE, -1L));
        t("toIntExact", () -> Math.toIntExact(1L << 31));
        t("negateExact", () -> Math.negateExact(Integer.MIN_VALUE));
        t("floorDiv by zero", () -> Math.floorDiv(1, 0));
        t("arraycopy bounds", () -> {
            System.arraycopy(new int[2], 0, new int[1], 0, 2);
            return null;
        });
        t("arraycopy types", () -> {
            System.arraycopy(new int[2], 0, new long[2], 0, 2);
            return null;
        });
        t("arraycopy elements", () -> {
            System.arraycopy(new Object[] {"a", 1}, 0, new String[2], 0, 2);
            return null;
        });
        t("arraycopy null", () -> {
            System.arraycopy(null, 0, new int[1], 0, 1);
            return null;
        });
        t("arraycopy negative length", () -> {
            System.arraycopy(new int[2], 0, new int[2], 0, -1);
            return null;
        });
        t("arraycopy overlapping", () -> {
            int[] a = {1, 2, 3, 4, 5};
            System.arraycopy(a, 0, a, 1, 4);
            return Arrays.toString(a);
        });
        t("copyOfRange", () -> Arrays.copyOfRange(new int[3], 2, 1));
        t("copyOf negative", () -> Arrays.copyOf(new int[3], -1));
        t("Random.nextInt(0)", () -> new Random(1).nextInt(0));
        t("wait unowned", () -> {
            new Object().wait();
            return null;
        });
        t("notify unowned", () -> {
            new Object().notifyAll();
            return null;
        });
        t("wait negative", () -> {
            Object o = new Object();
            synchronized (o) {
                o.wait(-1);
            }
            return null;
        });
        t("start twice", () -> {
            Thread th = new Thread(() -> { });
            th.start();
            th.join();
            th.start();
            return null;
        });
        t("sleep negative", () -> {
            Thread.sleep(-1);
            return null;
        });
        t("StringBuilder.deleteCharAt", () -> new StringBuilder("ab").deleteCharAt(2));
        t("Collections.sort of mixed types", () -> {
            List<Object> l = new ArrayList<>(Arrays.asList("a", 1));
            try {
                Collections.sort((List) l);
            } catch (ClassCastException e) {
                return "ClassCastException";
            }
            return l;
        });
        t("Integer.valueOf cache", () -> (Integer.valueOf(100) == Integer.valueOf(100)));
    }
}
