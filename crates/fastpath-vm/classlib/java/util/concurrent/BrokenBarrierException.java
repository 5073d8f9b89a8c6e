package java.util.concurrent;

public class BrokenBarrierException extends java.lang.Exception {
    public BrokenBarrierException() { super(); }
    public BrokenBarrierException(String message) { super(message); }
    public BrokenBarrierException(String message, Throwable cause) { super(message, cause); }
    public BrokenBarrierException(Throwable cause) { super(cause); }
}
