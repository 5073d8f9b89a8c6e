// tags: exception bytecode
// release: 11
// Exceptions the JVM itself throws from bytecodes, with HotSpot's messages: idiv/irem/ldiv/lrem
// by zero, array index out of bounds on every array kind (load and store), negative array
// sizes (newarray, anewarray, multianewarray), array store, class cast (HotSpot's message names
// both classes and their loaders), null receivers and arrays (class only; helpful messages are
// in NullPointerMessages), and athrow of null. Each is caught and the program continues.
public class BytecodeExceptions {
    interface Task {
        void run() throws Throwable;
    }

    static int caught = 0;

    static void attempt(String what, Task task) {
        try {
            task.run();
            System.out.println(what + ": no exception");
        } catch (Throwable t) {
            caught++;
            String name = t instanceof NullPointerException ? "NullPointerException" : t.toString();
            System.out.println(what + ": " + name);
        }
    }

    static class Animal {
    }

    static class Cat extends Animal {
        int lives = 9;
    }

    static class Dog extends Animal {
    }

    static int zero = 0;
    static long lzero = 0;
    static int[] nullInts = null;
    static Object nullObject = null;
    static String nullString = null;

    public static void main(String[] args) {
        attempt("idiv", () -> System.out.println(1 / zero));
        attempt("irem", () -> System.out.println(1 % zero));
        attempt("ldiv", () -> System.out.println(1L / lzero));
        attempt("lrem", () -> System.out.println(1L % lzero));
        attempt("fdiv is not an error", () -> System.out.println(1.0f / zero));
        attempt("ddiv is not an error", () -> System.out.println(1.0 % zero));
        attempt("iaload", () -> System.out.println((new int[3])[3]));
        attempt("iastore", () -> (new int[2])[2] = 1);
        attempt("baload", () -> System.out.println((new byte[0])[0]));
        attempt("zastore", () -> (new boolean[1])[-1] = true);
        attempt("caload", () -> System.out.println((new char[5])[10]));
        attempt("saload", () -> System.out.println((new short[5])[Integer.MIN_VALUE]));
        attempt("laload", () -> System.out.println((new long[1])[1]));
        attempt("fastore", () -> (new float[1])[7] = 1f);
        attempt("daload", () -> System.out.println((new double[4])[4]));
        attempt("aaload", () -> System.out.println((new String[2])[2]));
        attempt("aastore", () -> (new Object[2])[Integer.MAX_VALUE] = "x");
        attempt("newarray", () -> System.out.println(new int[-1].length));
        attempt("anewarray", () -> System.out.println(new String[-5].length));
        attempt("multianewarray", () -> System.out.println(new int[3][-2].length));
        attempt("multianewarray outer", () -> System.out.println(new int[-3][2].length));
        attempt("array store", () -> {
            Object[] cats = new Cat[1];
            cats[0] = new Dog();
        });
        attempt("array store of String into Integer[]", () -> {
            Object[] ints = new Integer[1];
            ints[0] = "s";
        });
        attempt("array store into 2D", () -> {
            Object[] rows = new int[2][];
            rows[0] = new long[1];
        });
        attempt("checkcast", () -> {
            Animal a = new Cat();
            Dog d = (Dog) a;
            System.out.println(d);
        });
        attempt("checkcast to library class", () -> {
            Object o = Integer.valueOf(1);
            String s = (String) o;
            System.out.println(s);
        });
        attempt("checkcast to array", () -> {
            Object o = new Cat[1];
            Dog[] d = (Dog[]) o;
            System.out.println(d.length);
        });
        attempt("checkcast null is fine", () -> {
            Object o = null;
            Dog d = (Dog) o;
            System.out.println("cast null -> " + d);
        });
        attempt("invokevirtual on null", () -> System.out.println(nullString.length()));
        attempt("getfield on null", () -> System.out.println(((Cat) nullObject).lives));
        attempt("putfield on null", () -> ((Cat) nullObject).lives = 1);
        attempt("arraylength on null", () -> System.out.println(nullInts.length));
        attempt("iaload on null", () -> System.out.println(nullInts[0]));
        attempt("monitorenter on null", () -> {
            synchronized (nullObject) {
                System.out.println("unreachable");
            }
        });
        attempt("athrow null", () -> {
            RuntimeException e = null;
            throw e;
        });
        attempt("unboxing null", () -> {
            Integer boxed = (Integer) nullObject;
            System.out.println(boxed + 1);
        });
        System.out.println("caught " + caught);
    }
}
