// GcListChurn: a live set of 4096 linked lists (kept across iterations) of which each
// iteration replaces `inner` randomly chosen ones (seeded) with fresh lists of 1 to 64
// nodes, so old lists die in random order while most of the live set survives many
// collections: the pattern generational and region-based collectors find hardest. Check:
// each replaced list has the contents recorded for it, and the whole live set's checksum
// equals the one maintained incrementally.
final class GcListChurn extends Benchmark {
    static final int SLOTS = 4096;

    static final class Cell {
        final long value;
        final Cell next;

        Cell(long value, Cell next) {
            this.value = value;
            this.next = next;
        }
    }

    private final Cell[] slots = new Cell[SLOTS];
    private final long[] sums = new long[SLOTS];
    private long liveChecksum;
    private final Lcg random = new Lcg(424242);
    private long generation;

    private static long sum(Cell c) {
        long s = 0;
        for (; c != null; c = c.next) {
            s += c.value;
        }
        return s;
    }

    @Override
    Object run(int inner, int threads) {
        long corrupted = 0;
        for (int i = 0; i < inner; i++) {
            int k = random.next(SLOTS);
            if (sum(slots[k]) != sums[k]) {
                corrupted++;
            }
            generation++;
            int length = 1 + random.next(64);
            Cell head = null;
            long s = 0;
            for (int j = 0; j < length; j++) {
                long v = generation * 64 + j;
                head = new Cell(v, head);
                s += v;
            }
            liveChecksum += s - sums[k];
            slots[k] = head;
            sums[k] = s;
        }
        long total = 0;
        for (Cell c : slots) {
            total += sum(c);
        }
        return new long[] {corrupted, total, liveChecksum};
    }

    @Override
    String verify(Object result, int inner, int threads) {
        long[] r = (long[]) result;
        String e = expect("corrupted lists", r[0], 0);
        return e != null ? e : expect("live set checksum", r[1], r[2]);
    }

    @Override
    int defaultInner() {
        return 20_000;
    }
}
