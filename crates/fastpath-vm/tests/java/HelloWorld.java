// tags: basic
// release: 8
// The smallest program: one line on stdout, exit status 0.
public class HelloWorld {
    public static void main(String[] args) {
        System.out.println("Hello, world!");
    }
}
