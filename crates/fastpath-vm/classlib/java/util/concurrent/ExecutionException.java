package java.util.concurrent;

public class ExecutionException extends java.lang.Exception {
    public ExecutionException() { super(); }
    public ExecutionException(String message) { super(message); }
    public ExecutionException(String message, Throwable cause) { super(message, cause); }
    public ExecutionException(Throwable cause) { super(cause); }
}
