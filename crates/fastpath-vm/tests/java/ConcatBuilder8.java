// tags: string
// release: 8
// String concatenation compiled for release 8: javac emits StringBuilder.append chains. Every
// primitive type, boxes, null, objects with toString (including one returning null), char
// arithmetic vs char concatenation, compound += on strings, and constant folding.
public class ConcatBuilder8 {
    static class Thing {
        final int id;

        Thing(int id) {
            this.id = id;
        }

        @Override
        public String toString() {
            return id < 0 ? null : "Thing#" + id;
        }
    }

    public static void main(String[] args) {
        boolean z = true;
        byte b = -8;
        char c = 'q';
        short s = 1234;
        int i = -56789;
        long l = 9_876_543_210L;
        float f = 1.25f;
        double d = -0.5;
        Object nothing = null;
        String str = "str";
        Integer boxed = 77;
        Thing thing = new Thing(3);
        Thing nullString = new Thing(-1);
        System.out.println(z + " " + b + " " + c + " " + s + " " + i + " " + l + " " + f + " " + d);
        System.out.println("objects: " + nothing + " " + str + " " + boxed + " " + thing + " " + nullString);
        System.out.println(1 + 2 + "3" + 4 + 5);
        System.out.println('a' + 'b' + "c" + 'd' + 'e');
        System.out.println("" + Long.MIN_VALUE + Integer.MIN_VALUE + Double.MIN_VALUE + Float.MAX_VALUE + Byte.MIN_VALUE
            + Short.MAX_VALUE + (int) Character.MAX_VALUE);
        String acc = "";
        for (int k = 0; k < 10; k++) {
            acc += k;
            acc += ',';
        }
        acc += null;
        acc += 2.5;
        acc += true;
        System.out.println(acc);
        final String folded = "con" + "stant" + 1 + 'c' + 2L + true;
        System.out.println(folded + " " + (folded == "constant1c2true"));
        String multi = "";
        for (int k = 0; k < 100; k++) {
            multi = multi + (char) ('A' + k % 26);
        }
        System.out.println(multi.length() + " " + multi.substring(90) + " " + multi.hashCode());
        char[] arr = {'x', 'y'};
        System.out.println("chars " + arr[0] + arr[1] + " " + String.valueOf(arr));
        System.out.println(str + 0.1f + 0.1 + 1e20 + 1e-5f + 100.0 + (-0.0f));
    }
}
