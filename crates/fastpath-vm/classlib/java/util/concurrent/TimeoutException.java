package java.util.concurrent;

public class TimeoutException extends java.lang.Exception {
    public TimeoutException() { super(); }
    public TimeoutException(String message) { super(message); }
    public TimeoutException(String message, Throwable cause) { super(message, cause); }
    public TimeoutException(Throwable cause) { super(cause); }
}
