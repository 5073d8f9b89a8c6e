package java.util;

public class IllegalFormatPrecisionException extends IllegalFormatException {
    public IllegalFormatPrecisionException(String message) { super(message); }
}
