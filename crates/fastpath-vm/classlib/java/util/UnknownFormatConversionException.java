package java.util;

public class UnknownFormatConversionException extends IllegalFormatException {
    public UnknownFormatConversionException() { super(); }
    public UnknownFormatConversionException(String message) { super(message); }
    public UnknownFormatConversionException(String message, Throwable cause) { super(message, cause); }
    public UnknownFormatConversionException(Throwable cause) { super(cause); }
}
