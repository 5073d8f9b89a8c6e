import java.util.ArrayList;
import java.util.HashMap;

// Json: a recursive-descent JSON parser building a tree of value objects (objects keep
// their members in a HashMap and in insertion order, numbers keep their literal text), run
// over a 20 KB document that the benchmark generates once (seeded, with nesting, escapes,
// unicode escapes, numbers with fractions and exponents, literals and whitespace). Exercises
// string scanning, StringBuilder, small-object allocation and HashMap.
// Check: the counts of each kind of value and the sum of the integers match what the
// generator produced, and the tree serialises back to the generator's canonical text.
final class Json extends Benchmark {
    abstract static class Value {
        abstract void write(StringBuilder out);
    }

    static final class JObject extends Value {
        final ArrayList<String> names = new ArrayList<>();
        final ArrayList<Value> values = new ArrayList<>();
        final HashMap<String, Value> byName = new HashMap<>();

        void add(String name, Value v) {
            names.add(name);
            values.add(v);
            byName.put(name, v);
        }

        @Override
        void write(StringBuilder out) {
            out.append('{');
            for (int i = 0; i < names.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                writeString(out, names.get(i));
                out.append(':');
                values.get(i).write(out);
            }
            out.append('}');
        }
    }

    static final class JArray extends Value {
        final ArrayList<Value> items = new ArrayList<>();

        @Override
        void write(StringBuilder out) {
            out.append('[');
            for (int i = 0; i < items.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                items.get(i).write(out);
            }
            out.append(']');
        }
    }

    static final class JString extends Value {
        final String value;

        JString(String value) {
            this.value = value;
        }

        @Override
        void write(StringBuilder out) {
            writeString(out, value);
        }
    }

    static final class JNumber extends Value {
        final String literal;

        JNumber(String literal) {
            this.literal = literal;
        }

        @Override
        void write(StringBuilder out) {
            out.append(literal);
        }
    }

    static final class JLiteral extends Value {
        static final JLiteral TRUE = new JLiteral("true");
        static final JLiteral FALSE = new JLiteral("false");
        static final JLiteral NULL = new JLiteral("null");
        final String text;

        private JLiteral(String text) {
            this.text = text;
        }

        @Override
        void write(StringBuilder out) {
            out.append(text);
        }
    }

    static void writeString(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (c < 0x20 || c > 0x7e) {
                        out.append("\\u");
                        String hex = Integer.toHexString(c);
                        for (int k = hex.length(); k < 4; k++) {
                            out.append('0');
                        }
                        out.append(hex);
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }

    static final class Counts {
        int objects;
        int arrays;
        int strings;
        int numbers;
        int literals;
        long integerSum;

        boolean same(Counts o) {
            return objects == o.objects && arrays == o.arrays && strings == o.strings && numbers == o.numbers
                && literals == o.literals && integerSum == o.integerSum;
        }

        @Override
        public String toString() {
            return objects + " objects, " + arrays + " arrays, " + strings + " strings, " + numbers + " numbers, "
                + literals + " literals, integer sum " + integerSum;
        }
    }

    static final class Parser {
        private final String text;
        private int pos;
        private final StringBuilder scratch = new StringBuilder();
        final Counts counts = new Counts();

        Parser(String text) {
            this.text = text;
        }

        Value parseDocument() {
            skipWhitespace();
            Value v = parseValue();
            skipWhitespace();
            if (pos != text.length()) {
                throw error("trailing characters");
            }
            return v;
        }

        private RuntimeException error(String what) {
            return new IllegalArgumentException(what + " at offset " + pos);
        }

        private void skipWhitespace() {
            while (pos < text.length()) {
                char c = text.charAt(pos);
                if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
                    return;
                }
                pos++;
            }
        }

        private void expect(char c) {
            if (pos >= text.length() || text.charAt(pos) != c) {
                throw error("expected '" + c + "'");
            }
            pos++;
        }

        private Value parseValue() {
            if (pos >= text.length()) {
                throw error("unexpected end");
            }
            char c = text.charAt(pos);
            switch (c) {
                case '{': return parseObject();
                case '[': return parseArray();
                case '"':
                    counts.strings++;
                    return new JString(parseString());
                case 't': return literal("true", JLiteral.TRUE);
                case 'f': return literal("false", JLiteral.FALSE);
                case 'n': return literal("null", JLiteral.NULL);
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        return parseNumber();
                    }
                    throw error("unexpected character '" + c + "'");
            }
        }

        private Value literal(String word, JLiteral value) {
            if (!text.startsWith(word, pos)) {
                throw error("bad literal");
            }
            pos += word.length();
            counts.literals++;
            return value;
        }

        private JObject parseObject() {
            expect('{');
            counts.objects++;
            JObject obj = new JObject();
            skipWhitespace();
            if (text.charAt(pos) == '}') {
                pos++;
                return obj;
            }
            while (true) {
                skipWhitespace();
                String name = parseString();
                skipWhitespace();
                expect(':');
                skipWhitespace();
                obj.add(name, parseValue());
                skipWhitespace();
                if (text.charAt(pos) == ',') {
                    pos++;
                    continue;
                }
                expect('}');
                return obj;
            }
        }

        private JArray parseArray() {
            expect('[');
            counts.arrays++;
            JArray arr = new JArray();
            skipWhitespace();
            if (text.charAt(pos) == ']') {
                pos++;
                return arr;
            }
            while (true) {
                skipWhitespace();
                arr.items.add(parseValue());
                skipWhitespace();
                if (text.charAt(pos) == ',') {
                    pos++;
                    continue;
                }
                expect(']');
                return arr;
            }
        }

        private String parseString() {
            expect('"');
            scratch.setLength(0);
            while (true) {
                char c = text.charAt(pos++);
                if (c == '"') {
                    return scratch.toString();
                }
                if (c != '\\') {
                    scratch.append(c);
                    continue;
                }
                char e = text.charAt(pos++);
                switch (e) {
                    case '"': scratch.append('"'); break;
                    case '\\': scratch.append('\\'); break;
                    case '/': scratch.append('/'); break;
                    case 'b': scratch.append('\b'); break;
                    case 'f': scratch.append('\f'); break;
                    case 'n': scratch.append('\n'); break;
                    case 'r': scratch.append('\r'); break;
                    case 't': scratch.append('\t'); break;
                    case 'u': {
                        int code = 0;
                        for (int k = 0; k < 4; k++) {
                            code = code * 16 + hexDigit(text.charAt(pos++));
                        }
                        scratch.append((char) code);
                        break;
                    }
                    default: throw error("bad escape");
                }
            }
        }

        private int hexDigit(char c) {
            if (c >= '0' && c <= '9') return c - '0';
            if (c >= 'a' && c <= 'f') return c - 'a' + 10;
            if (c >= 'A' && c <= 'F') return c - 'A' + 10;
            throw error("bad hex digit");
        }

        private Value parseNumber() {
            int start = pos;
            boolean negative = false;
            if (text.charAt(pos) == '-') {
                negative = true;
                pos++;
            }
            long integer = 0;
            while (pos < text.length() && isDigit(text.charAt(pos))) {
                integer = integer * 10 + (text.charAt(pos) - '0');
                pos++;
            }
            boolean isInteger = true;
            if (pos < text.length() && text.charAt(pos) == '.') {
                isInteger = false;
                pos++;
                digits();
            }
            if (pos < text.length() && (text.charAt(pos) == 'e' || text.charAt(pos) == 'E')) {
                isInteger = false;
                pos++;
                if (text.charAt(pos) == '+' || text.charAt(pos) == '-') {
                    pos++;
                }
                digits();
            }
            counts.numbers++;
            if (isInteger) {
                counts.integerSum += negative ? -integer : integer;
            }
            return new JNumber(text.substring(start, pos));
        }

        private void digits() {
            int start = pos;
            while (pos < text.length() && isDigit(text.charAt(pos))) {
                pos++;
            }
            if (pos == start) {
                throw error("digit expected");
            }
        }

        private static boolean isDigit(char c) {
            return c >= '0' && c <= '9';
        }
    }

    // Generates the input: `pretty` with whitespace for the parser, `canonical` without.
    static final class Generator {
        final Lcg random = new Lcg(4242);
        final StringBuilder pretty = new StringBuilder();
        final StringBuilder canonical = new StringBuilder();
        final Counts counts = new Counts();

        void both(String s) {
            pretty.append(s);
            canonical.append(s);
        }

        void space() {
            pretty.append(random.next(3) == 0 ? "\n  " : " ");
        }

        void string(String s) {
            StringBuilder sb = new StringBuilder();
            writeString(sb, s);
            both(sb.toString());
        }

        String word() {
            String[] syllables = {"ka", "lo", "mi", "ne", "sa", "tu", "ri", "po", "\"q\"", "\\", "\n", "\u00e9", "\u4e2d"};
            StringBuilder sb = new StringBuilder();
            int n = 1 + random.next(4);
            for (int i = 0; i < n; i++) {
                sb.append(syllables[random.next(syllables.length)]);
            }
            return sb.toString();
        }

        void value(int depth) {
            int kind = depth >= 5 ? 2 + random.next(4) : random.next(6);
            switch (kind) {
                case 0: {
                    counts.objects++;
                    both("{");
                    int n = random.next(6);
                    for (int i = 0; i < n; i++) {
                        if (i > 0) {
                            both(",");
                        }
                        space();
                        string("k" + i + word());
                        both(":");
                        space();
                        value(depth + 1);
                    }
                    space();
                    both("}");
                    break;
                }
                case 1: {
                    counts.arrays++;
                    both("[");
                    int n = random.next(7);
                    for (int i = 0; i < n; i++) {
                        if (i > 0) {
                            both(",");
                            space();
                        }
                        value(depth + 1);
                    }
                    both("]");
                    break;
                }
                case 2:
                    counts.strings++;
                    string(word());
                    break;
                case 3: {
                    counts.numbers++;
                    int v = random.next(2000000) - 1000000;
                    counts.integerSum += v;
                    both(Integer.toString(v));
                    break;
                }
                case 4: {
                    counts.numbers++;
                    int form = random.next(3);
                    String lit = (random.next(2) == 0 ? "-" : "") + random.next(1000) + "." + random.next(1000)
                        + (form == 0 ? "" : form == 1 ? "e" + random.next(30) : "E-" + random.next(30));
                    both(lit);
                    break;
                }
                default: {
                    counts.literals++;
                    int which = random.next(3);
                    both(which == 0 ? "true" : which == 1 ? "false" : "null");
                }
            }
        }

        void document() {
            both("[");
            int i = 0;
            while (canonical.length() < 20000) {
                if (i++ > 0) {
                    both(",");
                    space();
                }
                counts.objects++;
                both("{");
                string("id");
                both(":");
                space();
                both(Integer.toString(i));
                counts.numbers++;
                counts.integerSum += i;
                both(",");
                string("payload");
                both(":");
                space();
                value(1);
                both("}");
            }
            both("]");
            counts.arrays++;
        }
    }

    private final String input;
    private final String canonical;
    private final Counts expected;

    Json() {
        Generator g = new Generator();
        g.document();
        input = g.pretty.toString();
        canonical = g.canonical.toString();
        expected = g.counts;
    }

    static final class Result {
        Value lastTree;
        Counts lastCounts;
        boolean allCountsEqual = true;
        Counts first;
    }

    @Override
    Object run(int inner, int threads) {
        Result r = new Result();
        for (int i = 0; i < inner; i++) {
            Parser p = new Parser(input);
            r.lastTree = p.parseDocument();
            if (r.first == null) {
                r.first = p.counts;
            } else {
                r.allCountsEqual &= r.first.same(p.counts);
            }
            r.lastCounts = p.counts;
        }
        return r;
    }

    @Override
    String verify(Object result, int inner, int threads) {
        Result r = (Result) result;
        if (!r.allCountsEqual) {
            return "iterations parsed the same text differently";
        }
        if (!r.lastCounts.same(expected)) {
            return "parsed " + r.lastCounts + "; generated " + expected;
        }
        StringBuilder out = new StringBuilder();
        r.lastTree.write(out);
        if (!out.toString().equals(canonical)) {
            return "serialised tree differs from the generated text";
        }
        return null;
    }

    @Override
    int defaultInner() {
        return 10;
    }
}
