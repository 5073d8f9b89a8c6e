// The start-up measurement's program: the smallest useful run of the VM.
public class Hello {
    public static void main(String[] args) {
        System.out.println("Hello, world!");
    }
}
