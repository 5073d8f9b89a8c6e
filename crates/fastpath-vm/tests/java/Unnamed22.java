// tags: bytecode lambda
// release: 22
// Unnamed variables and patterns (release 22): `_` for unused locals, catch parameters, lambda
// parameters and record components in patterns.
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

public class Unnamed22 {
    record Box(Object content, int weight) {
    }

    record Pair(Box left, Box right) {
    }

    static int weightOfRightIfLeftIsString(Object o) {
        return switch (o) {
            case Pair(Box(String _, int _), Box(_, int w)) -> w;
            case Pair(_, _) -> -1;
            default -> -2;
        };
    }

    public static void main(String[] args) {
        int count = 0;
        for (String _ : new String[] {"a", "b", "c"}) {
            count++;
        }
        System.out.println("counted " + count);
        List<Integer> list = new ArrayList<>();
        for (int i = 0, _ = list.size(); i < 5; i++) {
            list.add(i);
        }
        System.out.println(list);
        try {
            Integer.parseInt("nope");
        } catch (NumberFormatException _) {
            System.out.println("caught without naming it");
        }
        BiFunction<Integer, Integer, Integer> first = (a, _) -> a;
        System.out.println(first.apply(7, 8));
        System.out.println(weightOfRightIfLeftIsString(new Pair(new Box("s", 1), new Box(2.0, 30))));
        System.out.println(weightOfRightIfLeftIsString(new Pair(new Box(1, 1), new Box(2.0, 30))));
        System.out.println(weightOfRightIfLeftIsString("x"));
        Object o = new Box("inner", 5);
        if (o instanceof Box(String s, _)) {
            System.out.println("box of " + s);
        }
    }
}
