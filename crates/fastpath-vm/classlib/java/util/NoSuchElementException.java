package java.util;

public class NoSuchElementException extends java.lang.RuntimeException {
    public NoSuchElementException() { super(); }
    public NoSuchElementException(String message) { super(message); }
    public NoSuchElementException(String message, Throwable cause) { super(message, cause); }
    public NoSuchElementException(Throwable cause) { super(cause); }
}
