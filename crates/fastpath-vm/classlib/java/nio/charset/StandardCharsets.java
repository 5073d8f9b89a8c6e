package java.nio.charset;

public final class StandardCharsets {
    private StandardCharsets() {}
    private static final class Named extends Charset {
        Named(String name) { super(name, null); }
    }
    public static final Charset UTF_8 = new Named("UTF-8");
    public static final Charset US_ASCII = new Named("US-ASCII");
    public static final Charset ISO_8859_1 = new Named("ISO-8859-1");
    public static final Charset UTF_16 = new Named("UTF-16");
}
