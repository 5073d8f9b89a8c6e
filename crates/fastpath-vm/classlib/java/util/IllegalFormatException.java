package java.util;

public class IllegalFormatException extends java.lang.IllegalArgumentException {
    public IllegalFormatException() { super(); }
    public IllegalFormatException(String message) { super(message); }
    public IllegalFormatException(String message, Throwable cause) { super(message, cause); }
    public IllegalFormatException(Throwable cause) { super(cause); }
}
