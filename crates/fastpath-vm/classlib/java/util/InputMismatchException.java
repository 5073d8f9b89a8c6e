package java.util;

public class InputMismatchException extends NoSuchElementException {
    public InputMismatchException() { super(); }
    public InputMismatchException(String message) { super(message); }
    public InputMismatchException(String message, Throwable cause) { super(message, cause); }
    public InputMismatchException(Throwable cause) { super(cause); }
}
