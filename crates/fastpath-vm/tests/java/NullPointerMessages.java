// tags: exception bytecode
// release: 17
// HotSpot's helpful NullPointerException messages (JEP 358), for the bytecodes that can throw
// them. The null values come from static fields, instance fields, array elements and method
// results, never from local variables, so the messages do not depend on whether the class
// was compiled with -g (which adds local variable names).
public class NullPointerMessages {
    static String name;
    static int[] numbers;
    static int[][] grid = new int[2][];
    static NullPointerMessages instance;
    static Object lock;
    static Integer boxed;
    static RuntimeException pending;
    NullPointerMessages next;
    String label;
    long count;

    static String nothing() {
        return null;
    }

    NullPointerMessages self() {
        return next;
    }

    interface Task {
        void run();
    }

    static void show(Task t) {
        try {
            t.run();
            System.out.println("no exception");
        } catch (NullPointerException e) {
            System.out.println(e.getMessage());
        }
    }

    public static void main(String[] args) {
        show(() -> System.out.println(name.length()));
        show(() -> System.out.println(numbers[0]));
        show(() -> numbers[1] = 5);
        show(() -> System.out.println(numbers.length));
        show(() -> System.out.println(grid[1][0]));
        show(() -> System.out.println(instance.count));
        show(() -> instance.count = 3);
        show(() -> System.out.println(instance.label.length()));
        show(() -> System.out.println(nothing().length()));
        show(() -> System.out.println(new NullPointerMessages().next.label));
        show(() -> System.out.println(new NullPointerMessages().self().self()));
        show(() -> System.out.println(new NullPointerMessages().label.concat("x")));
        show(() -> {
            synchronized (lock) {
                System.out.println("unreachable");
            }
        });
        show(() -> System.out.println(boxed + 1));
        show(() -> {
            throw pending;
        });
        show(() -> System.out.println(name.equals("x")));
        show(() -> System.out.println(((String) (Object) numbers).length()));
    }
}
