package java.io;

public class FileNotFoundException extends IOException {
    public FileNotFoundException() { super(); }
    public FileNotFoundException(String message) { super(message); }
    public FileNotFoundException(String message, Throwable cause) { super(message, cause); }
    public FileNotFoundException(Throwable cause) { super(cause); }
}
