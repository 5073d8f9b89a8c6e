// Towers: the towers of Hanoi with 14 discs on three piles, each pile a linked stack of disc
// objects, moving discs recursively and refusing to put a larger disc on a smaller one.
// Check: 2^14 - 1 = 16383 moves per run, and the target pile holds all discs in order.
final class Towers extends Benchmark {
    static final int DISCS = 14;

    static final class Disc {
        final int size;
        Disc next;

        Disc(int size) {
            this.size = size;
        }
    }

    private final Disc[] piles = new Disc[3];
    private int moves;

    private void push(Disc d, int pile) {
        Disc top = piles[pile];
        if (top != null && d.size >= top.size) {
            throw new IllegalStateException("cannot put a disc of size " + d.size + " on one of size " + top.size);
        }
        d.next = top;
        piles[pile] = d;
    }

    private Disc pop(int pile) {
        Disc top = piles[pile];
        if (top == null) {
            throw new IllegalStateException("pile " + pile + " is empty");
        }
        piles[pile] = top.next;
        top.next = null;
        return top;
    }

    private void move(int from, int to, int n) {
        if (n == 1) {
            push(pop(from), to);
            moves++;
            return;
        }
        int other = 3 - from - to;
        move(from, other, n - 1);
        move(from, to, 1);
        move(other, to, n - 1);
    }

    @Override
    Object run(int inner, int threads) {
        long total = 0;
        for (int i = 0; i < inner; i++) {
            piles[0] = piles[1] = piles[2] = null;
            for (int s = DISCS; s >= 1; s--) {
                push(new Disc(s), 0);
            }
            moves = 0;
            move(0, 1, DISCS);
            int expectedSize = 1;
            for (Disc d = piles[1]; d != null; d = d.next) {
                if (d.size != expectedSize++) {
                    return -1L;
                }
            }
            if (expectedSize != DISCS + 1 || piles[0] != null || piles[2] != null) {
                return -2L;
            }
            total += moves;
        }
        return total;
    }

    @Override
    String verify(Object result, int inner, int threads) {
        return expect("moves (negative: wrong final piles)", (Long) result, ((1L << DISCS) - 1) * inner);
    }

    @Override
    int defaultInner() {
        return 150;
    }
}
