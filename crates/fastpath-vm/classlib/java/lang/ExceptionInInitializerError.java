package java.lang;

public class ExceptionInInitializerError extends LinkageError {
    private final Throwable exception;
    public ExceptionInInitializerError() { super((String) null, (Throwable) null); exception = null; }
    public ExceptionInInitializerError(Throwable thrown) { super((String) null, thrown); exception = thrown; }
    public ExceptionInInitializerError(String s) { super(s, (Throwable) null); exception = null; }
    public Throwable getException() { return exception; }
}
