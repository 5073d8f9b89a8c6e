// tags: bytecode clinit
// release: 25
// Flexible constructor bodies (release 25): statements before super(...) and this(...) that
// validate and compute arguments and initialize the subclass's own fields before the superclass
// constructor runs, so an overridable method called by the superclass constructor sees them.
public class FlexibleConstructors25 {
    static class Base {
        final String description;

        Base(String prefix) {
            description = prefix + ":" + describeSelf();
        }

        String describeSelf() {
            return "base";
        }
    }

    static class Sized extends Base {
        private final int size;

        Sized(int size) {
            if (size < 0) {
                throw new IllegalArgumentException("negative size " + size);
            }
            this.size = size;
            String prefix = size > 100 ? "large" : "small";
            super(prefix);
        }

        Sized(String text) {
            int parsed = Integer.parseInt(text.trim());
            this(parsed * 2);
        }

        @Override
        String describeSelf() {
            return "sized " + size;
        }
    }

    public static void main(String[] args) {
        System.out.println(new Sized(5).description);
        System.out.println(new Sized(500).description);
        System.out.println(new Sized(" 21 ").description);
        try {
            new Sized(-1);
        } catch (IllegalArgumentException e) {
            System.out.println("rejected before super(): " + e.getMessage());
        }
        try {
            new Sized("x");
        } catch (NumberFormatException e) {
            System.out.println("rejected before this(): " + e.getMessage());
        }
    }
}
