package java.util;

public class MissingFormatArgumentException extends IllegalFormatException {
    public MissingFormatArgumentException() { super(); }
    public MissingFormatArgumentException(String message) { super(message); }
    public MissingFormatArgumentException(String message, Throwable cause) { super(message, cause); }
    public MissingFormatArgumentException(Throwable cause) { super(cause); }
}
