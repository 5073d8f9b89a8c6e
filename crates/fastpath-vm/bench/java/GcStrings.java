// GcStrings: building and parsing text, the allocation of a log formatter or a CSV exporter.
// Each iteration formats `inner` records ("id,name-<id>,<hex value>,<value>") with a
// StringBuilder into Strings, gathers every 64 of them into one document (a StringBuilder that
// grows by copying its array), keeps the last DOCUMENTS documents in a ring across
// iterations (a retained set of about 2.5 MB that turns over), and parses each record back
// (indexOf, substring, Integer.parseInt). Check: every parsed field equals the one formatted,
// every document has the length of its records; the String.hashCode sums go into the checksum,
// which makes any VM that builds different text disagree with HotSpot.
final class GcStrings extends Benchmark {
    static final int BATCH = 64;
    static final int DOCUMENTS = 512;

    private final String[] ring = new String[DOCUMENTS];
    private int next;
    private int serial;

    static String format(int id, int value) {
        StringBuilder b = new StringBuilder();
        b.append(id).append(',').append("name-").append(id).append(',');
        b.append(Integer.toHexString(value)).append(',').append(value);
        return b.toString();
    }

    @Override
    Object run(int inner, int threads) {
        long wrong = 0;
        long hashSum = 0;
        long valueSum = 0;
        String[] batch = new String[BATCH];
        int filled = 0;
        for (int i = 0; i < inner; i++) {
            int id = serial++;
            int value = (id * 1103515245 + 12345) & 0x7fffffff;
            String line = format(id, value);
            hashSum += line.hashCode();
            // Parse it back.
            int c1 = line.indexOf(',');
            int c2 = line.indexOf(',', c1 + 1);
            int c3 = line.indexOf(',', c2 + 1);
            int parsedId = Integer.parseInt(line.substring(0, c1));
            String name = line.substring(c1 + 1, c2);
            int parsedHex = Integer.parseInt(line.substring(c2 + 1, c3), 16);
            int parsedValue = Integer.parseInt(line.substring(c3 + 1));
            if (parsedId != id || parsedHex != value || parsedValue != value
                || !name.equals("name-" + id)) {
                wrong++;
            }
            valueSum += parsedValue;
            batch[filled++] = line;
            if (filled == BATCH) {
                StringBuilder doc = new StringBuilder();
                int expected = 0;
                for (String s : batch) {
                    doc.append(s).append('\n');
                    expected += s.length() + 1;
                }
                String d = doc.toString();
                if (d.length() != expected) {
                    wrong++;
                }
                hashSum += d.hashCode();
                ring[next] = d;
                next = (next + 1) % DOCUMENTS;
                filled = 0;
            }
        }
        long retained = 0;
        for (String d : ring) {
            if (d != null) {
                retained += d.length();
            }
        }
        return new long[] {wrong, hashSum, valueSum, retained};
    }

    @Override
    String verify(Object result, int inner, int threads) {
        long[] r = (long[]) result;
        String e = expect("records parsed wrong", r[0], 0);
        if (e == null && r[3] == 0) {
            e = "no document retained";
        }
        return e;
    }

    @Override
    int defaultInner() {
        return 100_000;
    }
}
