package java.util;

public class IllegalFormatConversionException extends IllegalFormatException {
    public IllegalFormatConversionException() { super(); }
    public IllegalFormatConversionException(String message) { super(message); }
    public IllegalFormatConversionException(String message, Throwable cause) { super(message, cause); }
    public IllegalFormatConversionException(Throwable cause) { super(cause); }
}
