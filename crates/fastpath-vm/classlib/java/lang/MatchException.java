package java.lang;

public final class MatchException extends RuntimeException {
    public MatchException(String message, Throwable cause) { super(message, cause); }
}
