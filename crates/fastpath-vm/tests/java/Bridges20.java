// tags: bytecode
// release: 20
// Generics after erasure: bridge methods for covariant returns and for implementing a generic
// interface (the bridge casts with checkcast), a ClassCastException raised inside a bridge by
// heap pollution, bounded type parameters, generic methods, and wildcards.
import java.util.ArrayList;
import java.util.List;

public class Bridges20 {
    interface Transformer<A, B> {
        B apply(A a);
    }

    static class Length implements Transformer<String, Integer> {
        public Integer apply(String s) {
            return s.length();
        }
    }

    static class Animal {
        Animal self() {
            return this;
        }

        String sound() {
            return "...";
        }
    }

    static class Dog extends Animal {
        @Override
        Dog self() {
            return this;
        }

        @Override
        String sound() {
            return "woof";
        }

        String fetch() {
            return "stick";
        }
    }

    static abstract class Node<T extends Comparable<T>> implements Comparable<Node<T>> {
        abstract T key();

        public int compareTo(Node<T> o) {
            return key().compareTo(o.key());
        }
    }

    static final class IntNode extends Node<Integer> {
        final int k;

        IntNode(int k) {
            this.k = k;
        }

        Integer key() {
            return k;
        }
    }

    static <T extends Comparable<T>> T max(List<T> xs) {
        T best = xs.get(0);
        for (T x : xs) {
            if (x.compareTo(best) > 0) {
                best = x;
            }
        }
        return best;
    }

    static double sum(List<? extends Number> xs) {
        double s = 0;
        for (Number n : xs) {
            s += n.doubleValue();
        }
        return s;
    }

    static void fill(List<? super Integer> xs, int n) {
        for (int i = 0; i < n; i++) {
            xs.add(i);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    public static void main(String[] args) {
        Transformer<String, Integer> t = new Length();
        System.out.println(t.apply("bridge"));
        Transformer raw = t;
        try {
            raw.apply(42);
        } catch (ClassCastException e) {
            System.out.println("bridge checkcast rejected an Integer");
        }
        Animal a = new Dog();
        System.out.println(a.self().sound() + " " + new Dog().self().fetch());
        List<Node<Integer>> nodes = new ArrayList<>();
        for (int k : new int[] {5, 17, 3, 11}) {
            nodes.add(new IntNode(k));
        }
        System.out.println("max node " + max(nodes).key());
        Comparable c = new IntNode(1);
        try {
            c.compareTo("not a node");
        } catch (ClassCastException e) {
            System.out.println("compareTo bridge rejected a String");
        }
        List<String> words = new ArrayList<>();
        words.add("pear");
        words.add("apple");
        words.add("zucchini");
        System.out.println("max word " + max(words));
        List<Number> nums = new ArrayList<>();
        fill(nums, 5);
        nums.add(2.5);
        System.out.println("sum " + sum(nums) + " " + nums);
        List polluted = new ArrayList<String>();
        polluted.add(7);
        List<String> strings = polluted;
        try {
            String s = strings.get(0);
            System.out.println(s);
        } catch (ClassCastException e) {
            System.out.println("heap pollution caught at the checkcast");
        }
    }
}
