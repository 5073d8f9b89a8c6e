package java.util.regex;

import java.util.ArrayList;
import java.util.List;

/**
 * Regular expressions by backtracking: literals, '.', classes [a-z] [^...] with \d \s \w escapes,
 * predefined \d \D \s \S \w \W, \b, groups (capturing and (?:...)), alternation, greedy and
 * reluctant quantifiers * + ? {n} {n,} {n,m}, anchors ^ $. (No lookaround, backreferences or flags.)
 */
public final class Pattern {
    static final int LITERAL = 0, ANY = 1, CLASS = 2, GROUP = 3, ALT = 4, REPEAT = 5, BOL = 6, EOL = 7, WORDB = 8, SEQ = 9, NWORDB = 10;

    static final class Node {
        int kind;
        char ch;
        boolean negate;
        List<int[]> ranges;
        int group = -1;
        List<Node> items;
        Node body;
        int min, max;
        boolean lazy;
    }

    private final String pattern;
    final Node root;
    final int groupCount;
    private int pos;
    private int groups;

    private Pattern(String regex) {
        this.pattern = regex;
        this.pos = 0;
        this.groups = 0;
        Node n = parseAlt();
        if (pos < regex.length()) throw error("Unmatched closing ')'", pos - 1 < 0 ? 0 : pos);
        this.root = n;
        this.groupCount = groups;
    }

    public static Pattern compile(String regex) { return new Pattern(regex); }
    public static Pattern compile(String regex, int flags) { return new Pattern(regex); }
    public String pattern() { return pattern; }
    public String toString() { return pattern; }
    public Matcher matcher(CharSequence input) { return new Matcher(this, input); }
    public static boolean matches(String regex, CharSequence input) { return compile(regex).matcher(input).matches(); }

    public static String quote(String s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if ("\\^$.|?*+()[]{}".indexOf(c) >= 0) sb.append('\\');
            sb.append(c);
        }
        return sb.toString();
    }

    public String[] split(CharSequence input) { return split(input, 0); }

    public String[] split(CharSequence input, int limit) {
        int index = 0;
        boolean matchLimited = limit > 0;
        ArrayList<String> matchList = new ArrayList<String>();
        Matcher m = matcher(input);
        while (m.find()) {
            if (!matchLimited || matchList.size() < limit - 1) {
                if (index == 0 && index == m.start() && m.start() == m.end()) continue;
                matchList.add(input.subSequence(index, m.start()).toString());
                index = m.end();
            } else if (matchList.size() == limit - 1) {
                matchList.add(input.subSequence(index, input.length()).toString());
                index = m.end();
            }
        }
        if (index == 0) return new String[] {input.toString()};
        if (!matchLimited || matchList.size() < limit) matchList.add(input.subSequence(index, input.length()).toString());
        int resultSize = matchList.size();
        if (limit == 0) while (resultSize > 0 && matchList.get(resultSize - 1).isEmpty()) resultSize--;
        String[] result = new String[resultSize];
        return matchList.subList(0, resultSize).toArray(result);
    }

    private PatternSyntaxException error(String desc, int at) { return new PatternSyntaxException(desc, pattern, at); }

    private boolean more() { return pos < pattern.length(); }
    private char peek() { return pattern.charAt(pos); }

    private Node parseAlt() {
        Node first = parseSeq();
        if (!more() || peek() != '|') return first;
        Node alt = new Node();
        alt.kind = ALT;
        alt.items = new ArrayList<Node>();
        alt.items.add(first);
        while (more() && peek() == '|') {
            pos++;
            alt.items.add(parseSeq());
        }
        return alt;
    }

    private Node parseSeq() {
        Node seq = new Node();
        seq.kind = SEQ;
        seq.items = new ArrayList<Node>();
        while (more() && peek() != '|' && peek() != ')') {
            Node atom = parseAtom();
            seq.items.add(parseQuantifier(atom));
        }
        return seq;
    }

    private Node parseQuantifier(Node atom) {
        if (!more()) return atom;
        char c = peek();
        int min, max;
        if (c == '*') { min = 0; max = Integer.MAX_VALUE; pos++; }
        else if (c == '+') { min = 1; max = Integer.MAX_VALUE; pos++; }
        else if (c == '?') { min = 0; max = 1; pos++; }
        else if (c == '{' && pos + 1 < pattern.length() && Character.isDigit(pattern.charAt(pos + 1))) {
            int close = pattern.indexOf('}', pos);
            if (close < 0) throw error("Unclosed counted closure", pos);
            String spec = pattern.substring(pos + 1, close);
            int comma = spec.indexOf(',');
            if (comma < 0) { min = max = Integer.parseInt(spec); }
            else {
                min = Integer.parseInt(spec.substring(0, comma));
                max = comma == spec.length() - 1 ? Integer.MAX_VALUE : Integer.parseInt(spec.substring(comma + 1));
            }
            pos = close + 1;
        } else return atom;
        Node r = new Node();
        r.kind = REPEAT;
        r.body = atom;
        r.min = min;
        r.max = max;
        if (more() && peek() == '?') { r.lazy = true; pos++; }
        else if (more() && peek() == '+') { pos++; }
        return r;
    }

    private Node parseAtom() {
        char c = pattern.charAt(pos++);
        Node n = new Node();
        switch (c) {
            case '.': n.kind = ANY; return n;
            case '^': n.kind = BOL; return n;
            case '$': n.kind = EOL; return n;
            case '(': {
                boolean capture = true;
                if (pattern.startsWith("?:", pos)) { capture = false; pos += 2; }
                else if (more() && peek() == '?') throw error("Unknown inline modifier", pos);
                int g = capture ? ++groups : -1;
                Node body = parseAlt();
                if (!more() || peek() != ')') throw error("Unclosed group", pattern.length());
                pos++;
                n.kind = GROUP;
                n.group = g;
                n.body = body;
                return n;
            }
            case '[': return parseClass();
            case '\\': return parseEscape(false);
            case '*': case '+': case '?': throw error("Dangling meta character '" + c + "'", pos - 1);
            default: n.kind = LITERAL; n.ch = c; return n;
        }
    }

    private Node parseEscape(boolean inClass) {
        if (!more()) throw error("Unexpected internal error", pos);
        char c = pattern.charAt(pos++);
        Node n = new Node();
        switch (c) {
            case 'd': case 'D': case 's': case 'S': case 'w': case 'W':
                n.kind = CLASS;
                n.ranges = new ArrayList<int[]>();
                addPredefined(n.ranges, Character.toLowerCase(c));
                n.negate = Character.isUpperCase(c);
                return n;
            case 'b': if (!inClass) { n.kind = WORDB; return n; } break;
            case 'B': if (!inClass) { n.kind = NWORDB; return n; } break;
            case 't': c = '\t'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 'f': c = '\f'; break;
            case '0': c = '\0'; break;
            default:
                if (Character.isLetterOrDigit(c)) throw error("Illegal/unsupported escape sequence", pos - 1);
        }
        n.kind = LITERAL;
        n.ch = c;
        return n;
    }

    private static void addPredefined(List<int[]> ranges, char c) {
        if (c == 'd') ranges.add(new int[] {'0', '9'});
        else if (c == 's') { ranges.add(new int[] {' ', ' '}); ranges.add(new int[] {'\t', '\r'}); }
        else { ranges.add(new int[] {'a', 'z'}); ranges.add(new int[] {'A', 'Z'}); ranges.add(new int[] {'0', '9'}); ranges.add(new int[] {'_', '_'}); }
    }

    private Node parseClass() {
        Node n = new Node();
        n.kind = CLASS;
        n.ranges = new ArrayList<int[]>();
        if (more() && peek() == '^') { n.negate = true; pos++; }
        boolean first = true;
        while (true) {
            if (!more()) throw error("Unclosed character class", pattern.length() - 1);
            char c = pattern.charAt(pos++);
            if (c == ']' && !first) break;
            first = false;
            int lo;
            if (c == '\\') {
                Node e = parseEscape(true);
                if (e.kind == CLASS) {
                    if (e.negate) throw error("Negated predefined class in a class is not supported", pos);
                    n.ranges.addAll(e.ranges);
                    continue;
                }
                lo = e.ch;
            } else if (c == '[') {
                throw error("Nested character classes are not supported", pos - 1);
            } else lo = c;
            int hi = lo;
            if (pos + 1 < pattern.length() && peek() == '-' && pattern.charAt(pos + 1) != ']') {
                pos++;
                char h = pattern.charAt(pos++);
                if (h == '\\') h = parseEscape(true).ch;
                hi = h;
                if (hi < lo) throw error("Illegal character range", pos - 1);
            }
            n.ranges.add(new int[] {lo, hi});
        }
        return n;
    }
}
