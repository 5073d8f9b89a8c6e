package java.util.regex;

public final class Matcher {
    private final Pattern pattern;
    private CharSequence text;
    private int[] groups;
    private int searchFrom;
    private boolean matched;
    private int appendPos;
    private int steps;

    Matcher(Pattern p, CharSequence text) {
        this.pattern = p;
        this.text = text;
        this.groups = new int[(p.groupCount + 1) * 2];
    }

    public Pattern pattern() { return pattern; }

    public Matcher reset() {
        searchFrom = 0;
        matched = false;
        appendPos = 0;
        return this;
    }

    public Matcher reset(CharSequence input) {
        text = input;
        return reset();
    }

    private interface Cont { boolean run(int at); }

    private boolean isWord(int i) {
        if (i < 0 || i >= text.length()) return false;
        char c = text.charAt(i);
        return Character.isLetterOrDigit(c) || c == '_';
    }

    private boolean m(final Pattern.Node n, final int at, final Cont k) {
        if (++steps > 50000000) throw new IllegalStateException("regular expression too complex");
        switch (n.kind) {
            case Pattern.LITERAL: return at < text.length() && text.charAt(at) == n.ch && k.run(at + 1);
            case Pattern.ANY: return at < text.length() && text.charAt(at) != '\n' && k.run(at + 1);
            case Pattern.CLASS: {
                if (at >= text.length()) return false;
                char c = text.charAt(at);
                boolean in = false;
                for (int[] r : n.ranges) if (c >= r[0] && c <= r[1]) { in = true; break; }
                return in != n.negate && k.run(at + 1);
            }
            case Pattern.BOL: return at == 0 && k.run(at);
            case Pattern.EOL: return (at == text.length() || (at == text.length() - 1 && text.charAt(at) == '\n')) && k.run(at);
            case Pattern.WORDB: return isWord(at - 1) != isWord(at) && k.run(at);
            case Pattern.NWORDB: return isWord(at - 1) == isWord(at) && k.run(at);
            case Pattern.SEQ: return seq(n, 0, at, k);
            case Pattern.ALT:
                for (Pattern.Node alt : n.items) if (m(alt, at, k)) return true;
                return false;
            case Pattern.GROUP: {
                if (n.group < 0) return m(n.body, at, k);
                final int g = n.group;
                final int oldS = groups[2 * g], oldE = groups[2 * g + 1];
                boolean ok = m(n.body, at, new Cont() {
                    public boolean run(int end) {
                        int ps = groups[2 * g], pe = groups[2 * g + 1];
                        groups[2 * g] = at;
                        groups[2 * g + 1] = end;
                        if (k.run(end)) return true;
                        groups[2 * g] = ps;
                        groups[2 * g + 1] = pe;
                        return false;
                    }
                });
                if (!ok) { groups[2 * g] = oldS; groups[2 * g + 1] = oldE; }
                return ok;
            }
            case Pattern.REPEAT: return rep(n, 0, at, -1, k);
            default: return false;
        }
    }

    private boolean seq(final Pattern.Node n, final int i, int at, final Cont k) {
        if (i == n.items.size()) return k.run(at);
        return m(n.items.get(i), at, new Cont() {
            public boolean run(int next) { return seq(n, i + 1, next, k); }
        });
    }

    private boolean rep(final Pattern.Node n, final int count, final int at, final int lastAt, final Cont k) {
        if (count >= n.min && at == lastAt) return false; // an empty iteration makes no progress
        final Cont more = new Cont() {
            public boolean run(int next) { return rep(n, count + 1, next, at, k); }
        };
        if (count < n.min) return m(n.body, at, more);
        if (n.lazy) {
            if (k.run(at)) return true;
            return count < n.max && m(n.body, at, more);
        }
        if (count < n.max && m(n.body, at, more)) return true;
        return k.run(at);
    }

    private boolean matchAt(int start, final boolean whole) {
        for (int i = 0; i < groups.length; i++) groups[i] = -1;
        steps = 0;
        final int[] end = {-1};
        boolean ok = m(pattern.root, start, new Cont() {
            public boolean run(int e) {
                if (whole && e != text.length()) return false;
                end[0] = e;
                return true;
            }
        });
        if (ok) {
            groups[0] = start;
            groups[1] = end[0];
        }
        return ok;
    }

    public boolean matches() {
        matched = matchAt(0, true);
        return matched;
    }

    public boolean lookingAt() {
        matched = matchAt(0, false);
        return matched;
    }

    public boolean find() {
        int from = searchFrom;
        if (from > text.length()) {
            matched = false;
            return false;
        }
        for (int s = from; s <= text.length(); s++) {
            if (matchAt(s, false)) {
                matched = true;
                searchFrom = groups[1] == groups[0] ? groups[1] + 1 : groups[1];
                return true;
            }
        }
        matched = false;
        searchFrom = text.length() + 1;
        return false;
    }

    public boolean find(int start) {
        reset();
        searchFrom = start;
        return find();
    }

    private void check() {
        if (!matched) throw new IllegalStateException("No match found");
    }

    public int start() { check(); return groups[0]; }
    public int end() { check(); return groups[1]; }
    public int start(int g) { check(); return groups[2 * g]; }
    public int end(int g) { check(); return groups[2 * g + 1]; }
    public int groupCount() { return pattern.groupCount; }
    public String group() { return group(0); }

    public String group(int g) {
        check();
        if (g < 0 || g > pattern.groupCount) throw new IndexOutOfBoundsException("No group " + g);
        if (groups[2 * g] < 0) return null;
        return text.subSequence(groups[2 * g], groups[2 * g + 1]).toString();
    }

    private void appendReplacement0(StringBuilder sb, String replacement) {
        for (int i = 0; i < replacement.length(); i++) {
            char c = replacement.charAt(i);
            if (c == '\\' && i + 1 < replacement.length()) {
                sb.append(replacement.charAt(++i));
            } else if (c == '$' && i + 1 < replacement.length() && Character.isDigit(replacement.charAt(i + 1))) {
                int g = replacement.charAt(++i) - '0';
                String v = group(g);
                if (v != null) sb.append(v);
            } else if (c == '$') {
                throw new IllegalArgumentException("Illegal group reference");
            } else {
                sb.append(c);
            }
        }
    }

    public Matcher appendReplacement(StringBuilder sb, String replacement) {
        check();
        sb.append(text, appendPos, start());
        appendReplacement0(sb, replacement);
        appendPos = end();
        return this;
    }

    public StringBuilder appendTail(StringBuilder sb) {
        sb.append(text, appendPos, text.length());
        return sb;
    }

    public String replaceAll(String replacement) {
        reset();
        StringBuilder sb = new StringBuilder();
        while (find()) appendReplacement(sb, replacement);
        return appendTail(sb).toString();
    }

    public String replaceFirst(String replacement) {
        reset();
        StringBuilder sb = new StringBuilder();
        if (find()) appendReplacement(sb, replacement);
        return appendTail(sb).toString();
    }

    public boolean hitEnd() { return false; }
}
