package java.util;

/** printf-style formatting: %[index$][flags][width][.precision]conversion for b c d o x X e E f g G s S h H n %, as java.util.Formatter prints them. */
public final class Formatter implements java.io.Closeable, java.io.Flushable {
    private final StringBuilder a;

    public Formatter() { a = new StringBuilder(); }
    public Formatter(StringBuilder sb) { a = sb; }
    public Formatter(Appendable a) { this.a = new StringBuilder(); }
    public Formatter(Locale l) { this(); }

    /** OpenJDK's digits for %f (`conv` 'f') and %e (`conv` 'e'): the shortest decimal rounded half-up. */
    private static native String formatDouble(double value, int precision, int conv);

    public String toString() { return a.toString(); }
    public void flush() {}
    public void close() {}
    public Locale locale() { return Locale.US; }
    public Appendable out() { return a; }

    public Formatter format(Locale l, String format, Object... args) { return format(format, args); }

    public Formatter format(String format, Object... args) {
        int i = 0, n = format.length();
        int ordinary = 0;
        int lastIndex = -1;
        while (i < n) {
            char c = format.charAt(i);
            if (c != '%') { a.append(c); i++; continue; }
            int start = i;
            i++;
            if (i >= n) throw new UnknownFormatConversionException("Conversion = '%'");
            // argument index
            int argIndex = -1;
            int j = i;
            while (j < n && Character.isDigit(format.charAt(j))) j++;
            if (j < n && format.charAt(j) == '$' && j > i) {
                argIndex = Integer.parseInt(format.substring(i, j)) - 1;
                i = j + 1;
            } else if (i < n && format.charAt(i) == '<') {
                argIndex = lastIndex;
                i++;
            }
            // flags
            String flags = "";
            while (i < n && "-#+ 0,(".indexOf(format.charAt(i)) >= 0) {
                flags += format.charAt(i);
                i++;
            }
            int width = -1;
            j = i;
            while (j < n && Character.isDigit(format.charAt(j))) j++;
            if (j > i) { width = Integer.parseInt(format.substring(i, j)); i = j; }
            int precision = -1;
            if (i < n && format.charAt(i) == '.') {
                i++;
                j = i;
                while (j < n && Character.isDigit(format.charAt(j))) j++;
                if (j == i) throw new IllegalFormatPrecisionException(format.substring(start, Math.min(n, j + 1)));
                precision = Integer.parseInt(format.substring(i, j));
                i = j;
            }
            if (i >= n) throw new UnknownFormatConversionException("Conversion = '%'");
            char conv = format.charAt(i++);
            boolean upper = false;
            if (conv == 't' || conv == 'T') throw new UnknownFormatConversionException("Conversion = '" + conv + "'");
            if (conv == 'n') { a.append('\n'); continue; }
            if (conv == '%') { pad("%", flags, width); continue; }
            if ("bBhHsScCdoxXeEfgGaA".indexOf(conv) < 0) throw new UnknownFormatConversionException("Conversion = '" + conv + "'");
            if (Character.isUpperCase(conv)) { upper = true; conv = Character.toLowerCase(conv); }
            Object arg;
            if (argIndex < 0) {
                if (ordinary >= (args == null ? 0 : args.length)) throw new MissingFormatArgumentException("Format specifier '" + format.substring(start, i) + "'");
                lastIndex = ordinary;
                arg = args[ordinary++];
            } else {
                if (args == null || argIndex >= args.length) throw new MissingFormatArgumentException("Format specifier '" + format.substring(start, i) + "'");
                lastIndex = argIndex;
                arg = args[argIndex];
            }
            String s;
            switch (conv) {
                case 'b': s = arg == null ? "false" : (arg instanceof Boolean ? arg.toString() : "true"); if (precision >= 0 && precision < s.length()) s = s.substring(0, precision); break;
                case 'h': s = arg == null ? "null" : Integer.toHexString(arg.hashCode()); break;
                case 's': s = String.valueOf(arg); if (precision >= 0 && precision < s.length()) s = s.substring(0, precision); break;
                case 'c':
                    if (arg == null) s = "null";
                    else if (arg instanceof Character) s = arg.toString();
                    else if (arg instanceof Byte || arg instanceof Short || arg instanceof Integer) s = new String(Character.toChars(((Number) arg).intValue()));
                    else throw new IllegalFormatConversionException(conv + " != " + arg.getClass().getName());
                    break;
                case 'd': s = integral(arg, flags, conv); break;
                case 'o': case 'x': s = radix(arg, flags, conv, upper); break;
                case 'e': case 'f': case 'g': case 'a': s = floating(arg, flags, precision, conv); break;
                default: throw new UnknownFormatConversionException("Conversion = '" + conv + "'");
            }
            if (upper) s = s.toUpperCase();
            if (flags.indexOf('0') >= 0 && width > s.length() && arg != null && "doxefg".indexOf(conv) >= 0) {
                int signLen = (s.startsWith("-") || s.startsWith("+") || s.startsWith(" ") || s.startsWith("(")) ? 1 : 0;
                if (s.startsWith("0x") || s.startsWith("0X")) signLen = 2;
                StringBuilder z = new StringBuilder(s.substring(0, signLen));
                for (int k = s.length(); k < width; k++) z.append('0');
                z.append(s.substring(signLen));
                s = z.toString();
            }
            pad(s, flags, width);
        }
        return this;
    }

    private void pad(String s, String flags, int width) {
        boolean left = flags.indexOf('-') >= 0;
        if (!left) for (int k = s.length(); k < width; k++) a.append(' ');
        a.append(s);
        if (left) for (int k = s.length(); k < width; k++) a.append(' ');
    }

    private static String group(String digits) {
        StringBuilder sb = new StringBuilder();
        int n = digits.length();
        for (int k = 0; k < n; k++) {
            if (k > 0 && (n - k) % 3 == 0) sb.append(',');
            sb.append(digits.charAt(k));
        }
        return sb.toString();
    }

    private static String sign(boolean neg, String mag, String flags) {
        if (neg) return flags.indexOf('(') >= 0 ? "(" + mag + ")" : "-" + mag;
        if (flags.indexOf('+') >= 0) return "+" + mag;
        if (flags.indexOf(' ') >= 0) return " " + mag;
        return mag;
    }

    private static String integral(Object arg, String flags, char conv) {
        if (arg == null) return "null";
        long v;
        if (arg instanceof Integer || arg instanceof Long || arg instanceof Short || arg instanceof Byte) v = ((Number) arg).longValue();
        else throw new IllegalFormatConversionException(conv + " != " + arg.getClass().getName());
        boolean neg = v < 0;
        String mag = neg ? (v == Long.MIN_VALUE ? "9223372036854775808" : Long.toString(-v)) : Long.toString(v);
        if (flags.indexOf(',') >= 0) mag = group(mag);
        return sign(neg, mag, flags);
    }

    private static String radix(Object arg, String flags, char conv, boolean upper) {
        if (arg == null) return "null";
        String s;
        if (arg instanceof Integer) s = conv == 'x' ? Integer.toHexString((Integer) arg) : Integer.toOctalString((Integer) arg);
        else if (arg instanceof Long) s = conv == 'x' ? Long.toHexString((Long) arg) : Long.toOctalString((Long) arg);
        else if (arg instanceof Short) { int v = ((Short) arg) & 0xffff; s = conv == 'x' ? Integer.toHexString(v) : Integer.toOctalString(v); }
        else if (arg instanceof Byte) { int v = ((Byte) arg) & 0xff; s = conv == 'x' ? Integer.toHexString(v) : Integer.toOctalString(v); }
        else throw new IllegalFormatConversionException(conv + " != " + arg.getClass().getName());
        if (flags.indexOf('#') >= 0) s = (conv == 'x' ? "0x" : "0") + s;
        return s;
    }

    private static String floating(Object arg, String flags, int precision, char conv) {
        if (arg == null) return "null";
        double v;
        if (arg instanceof Double || arg instanceof Float) v = ((Number) arg).doubleValue();
        else throw new IllegalFormatConversionException(conv + " != " + arg.getClass().getName());
        if (Double.isNaN(v)) return "NaN";
        if (Double.isInfinite(v)) return sign(v < 0, "Infinity", flags);
        if (precision < 0) precision = 6;
        boolean neg = v < 0 || (v == 0.0 && 1.0 / v < 0);
        double mag = Math.abs(v);
        String s;
        if (conv == 'a') {
            s = Double.toHexString(mag);
        } else if (conv == 'e') {
            s = formatDouble(mag, precision, 'e');
        } else if (conv == 'f') {
            s = formatDouble(mag, precision, 'f');
            if (flags.indexOf(',') >= 0) {
                int dot = s.indexOf('.');
                String ip = dot < 0 ? s : s.substring(0, dot);
                s = group(ip) + (dot < 0 ? "" : s.substring(dot));
            }
        } else {
            if (precision == 0) precision = 1;
            if (mag == 0.0) {
                s = formatDouble(0.0, precision - 1, 'f');
            } else {
                String sci = formatDouble(mag, precision - 1, 'e');
                int exp = Integer.parseInt(sci.substring(sci.indexOf('e') + 1));
                if (exp >= -4 && exp < precision) {
                    s = formatDouble(mag, precision - 1 - exp, 'f');
                } else {
                    s = sci;
                }
            }
        }
        return sign(neg, s, flags);
    }
}
