// tags: basic bytecode
// release: 17
// Virtual call sites with more implementations loaded than class-hierarchy analysis binds,
// whose receiver profile sees one or two classes while the caller is compiled hot (a JIT
// inlines those classes' methods behind exact class checks), then other receivers at the same
// sites: a subclass of a profiled class that inherits the profiled method, one that overrides
// it, an array and a boxed value through an Object-typed call of hashCode/equals/toString,
// and a null receiver; each receiver runs its own method.
public class ProfiledExact {
    static class Animal {
        final int legs;

        Animal(int legs) {
            this.legs = legs;
        }

        int sound() {
            return legs * 10;
        }
    }

    static class Dog extends Animal {
        Dog() {
            super(4);
        }

        @Override
        int sound() {
            return 4001;
        }
    }

    static class Bird extends Animal {
        Bird() {
            super(2);
        }

        @Override
        int sound() {
            return 2002;
        }
    }

    static class Fish extends Animal {
        Fish() {
            super(0);
        }

        @Override
        int sound() {
            return 7;
        }
    }

    // Inherits Dog's method: a vtable guard would pass it, an exact class check does not.
    static class Puppy extends Dog {
    }

    static class LoudPuppy extends Dog {
        @Override
        int sound() {
            return -4001;
        }
    }

    static final class Key {
        final int k;

        Key(int k) {
            this.k = k;
        }

        @Override
        public int hashCode() {
            return k * 17;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && ((Key) o).k == k;
        }

        @Override
        public String toString() {
            return "Key" + k;
        }
    }

    static long sounds(Animal[] zoo, int rounds) {
        long sum = 0;
        for (int r = 0; r < rounds; r++) {
            for (Animal a : zoo) {
                sum += a.sound();
            }
        }
        return sum;
    }

    static long hashes(Object[] objects, int rounds) {
        long sum = 0;
        for (int r = 0; r < rounds; r++) {
            for (Object o : objects) {
                int h = o.hashCode();
                sum += o.getClass().isArray() ? 1 : h;
                sum += o.equals(objects[0]) ? 3 : 5;
            }
        }
        return sum;
    }

    static String names(Object[] objects) {
        StringBuilder sb = new StringBuilder();
        for (Object o : objects) {
            String s = o.toString();
            sb.append(o.getClass().isArray() ? "array" : s).append(' ');
        }
        return sb.toString();
    }

    public static void main(String[] args) {
        // Every implementation loaded first, so that class-hierarchy analysis leaves the sites
        // to the profile.
        Animal[] all = {new Animal(3), new Dog(), new Bird(), new Fish(), new Puppy(), new LoudPuppy()};
        int legs = 0;
        for (Animal a : all) {
            legs += a.legs;
        }
        System.out.println("all " + all.length + " " + legs);
        Animal[] profiled = {new Dog(), new Bird(), new Dog()};
        for (int i = 0; i < 4; i++) {
            System.out.println("profiled " + sounds(profiled, 3000));
        }
        Object[] keys = {new Key(1), new Key(2), new Key(1)};
        for (int i = 0; i < 4; i++) {
            System.out.println("keys " + hashes(keys, 3000) + " " + names(keys));
        }
        if (args.length > 0 && args[0].equals("early")) {
            return;
        }
        Animal[] late = {new Puppy(), new Dog(), new LoudPuppy(), new Fish(), new Animal(5), new Bird()};
        for (int i = 0; i < 3; i++) {
            System.out.println("late " + sounds(late, 1000));
        }
        Object[] mixed = {new Key(1), new int[] {1, 2}, Integer.valueOf(17), "s", new Key(1), new Object[0]};
        System.out.println("mixed " + hashes(mixed, 1) + " " + names(mixed));
        Animal[] withNull = {new Dog(), null};
        try {
            System.out.println(sounds(withNull, 1));
        } catch (NullPointerException e) {
            System.out.println("NPE " + e.getMessage());
        }
    }
}
