package java.io;

public class EOFException extends IOException {
    public EOFException() { super(); }
    public EOFException(String message) { super(message); }
    public EOFException(String message, Throwable cause) { super(message, cause); }
    public EOFException(Throwable cause) { super(cause); }
}
