package java.lang.invoke;

public class WrongMethodTypeException extends RuntimeException {
    public WrongMethodTypeException() { super(); }
    public WrongMethodTypeException(String s) { super(s); }
}
