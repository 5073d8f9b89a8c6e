// tags: string
// release: 17
// String concatenation compiled for release 9+: javac emits invokedynamic
// makeConcatWithConstants with a recipe (constants folded into the recipe, \1 for arguments).
// Every type, null, toString returning null, constants containing the recipe's tag characters,
// and a concatenation of more than 200 arguments, which javac splits into several call sites.
public class ConcatIndy17 {
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
        boolean z = false;
        byte b = 127;
        char c = '\u0041';
        short s = -1;
        int i = Integer.MAX_VALUE;
        long l = Long.MIN_VALUE;
        float f = -3.75f;
        double d = 1e100;
        Object nothing = null;
        Thing thing = new Thing(9);
        Thing nullString = new Thing(-2);
        System.out.println("z=" + z + " b=" + b + " c=" + c + " s=" + s + " i=" + i + " l=" + l + " f=" + f + " d=" + d);
        System.out.println("objects " + nothing + "/" + thing + "/" + nullString + "/" + (Object) "o");
        System.out.println("tags \u0001 and \u0002 in constants " + i + "\u0001" + b + "\u0002");
        System.out.println(c + c + "" + c + c);
        System.out.println(i + l + "" + (i + l));
        String acc = "";
        for (int k = 0; k < 5; k++) {
            acc += k + ":" + (k * k) + ";";
        }
        System.out.println(acc);
        Integer boxed = null;
        System.out.println("null box " + boxed);
        int v0 = 0, v1 = 1, v2 = 2, v3 = 3, v4 = 4, v5 = 5, v6 = 6, v7 = 7, v8 = 8, v9 = 9;
        String wide = "" + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9
            + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9
            + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9
            + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9
            + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9
            + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9
            + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9
            + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9
            + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9
            + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + v0 + v1 + v2 + v3 + v4 + v5 + v6 + v7 + v8 + v9 + "end";
        System.out.println(wide.length() + " " + wide.substring(0, 12) + " " + wide.substring(wide.length() - 13)
            + " " + wide.hashCode());
        long[] ls = {1, 2};
        System.out.println("elements " + ls[0] + ls[1] + " length " + ls.length);
        System.out.println(1 + 2 + "x" + 1 + 2 + 'c' + (char) 100 + 1.0f + 1.0);
    }
}
