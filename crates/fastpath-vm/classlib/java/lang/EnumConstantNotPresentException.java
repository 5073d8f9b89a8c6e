package java.lang;

public class EnumConstantNotPresentException extends RuntimeException {
    public EnumConstantNotPresentException() { super(); }
    public EnumConstantNotPresentException(String message) { super(message); }
    public EnumConstantNotPresentException(String message, Throwable cause) { super(message, cause); }
    public EnumConstantNotPresentException(Throwable cause) { super(cause); }
}
