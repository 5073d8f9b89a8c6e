package java.util.concurrent;

public class CancellationException extends java.lang.IllegalStateException {
    public CancellationException() { super(); }
    public CancellationException(String message) { super(message); }
    public CancellationException(String message, Throwable cause) { super(message, cause); }
    public CancellationException(Throwable cause) { super(cause); }
}
