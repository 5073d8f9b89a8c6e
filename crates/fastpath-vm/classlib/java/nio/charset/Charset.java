package java.nio.charset;

/** Named charsets; the VM encodes and decodes UTF-8 only, as String's byte conversions do. */
public abstract class Charset implements Comparable<Charset> {
    private final String name;
    protected Charset(String canonicalName, String[] aliases) { this.name = canonicalName; }
    public final String name() { return name; }
    public String displayName() { return name; }
    public String toString() { return name; }
    public final int compareTo(Charset that) { return name().compareToIgnoreCase(that.name()); }
    public static Charset defaultCharset() { return StandardCharsets.UTF_8; }
    public static Charset forName(String charsetName) {
        switch (charsetName.toUpperCase()) {
            case "UTF-8": case "UTF8": return StandardCharsets.UTF_8;
            case "US-ASCII": case "ASCII": return StandardCharsets.US_ASCII;
            case "ISO-8859-1": case "LATIN1": return StandardCharsets.ISO_8859_1;
            default: throw new IllegalArgumentException(charsetName);
        }
    }
}
