package java.lang;

public class TypeNotPresentException extends RuntimeException {
    public TypeNotPresentException() { super(); }
    public TypeNotPresentException(String message) { super(message); }
    public TypeNotPresentException(String message, Throwable cause) { super(message, cause); }
    public TypeNotPresentException(Throwable cause) { super(cause); }
}
