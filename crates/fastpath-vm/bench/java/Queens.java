// Queens: counts the solutions of the 8-queens problem by backtracking over boolean arrays
// for columns and both diagonals, and checks each solution found for attacks. Exercises
// arrays, branches and recursion. There are 92 solutions.
final class Queens extends Benchmark {
    private final boolean[] column = new boolean[8];
    private final boolean[] up = new boolean[15];
    private final boolean[] down = new boolean[15];
    private final int[] rowOf = new int[8];
    private int solutions;
    private boolean allValid;

    private void place(int c) {
        if (c == 8) {
            solutions++;
            allValid &= valid();
            return;
        }
        for (int r = 0; r < 8; r++) {
            if (!column[r] && !up[r + c] && !down[r - c + 7]) {
                column[r] = up[r + c] = down[r - c + 7] = true;
                rowOf[c] = r;
                place(c + 1);
                column[r] = up[r + c] = down[r - c + 7] = false;
            }
        }
    }

    private boolean valid() {
        for (int a = 0; a < 8; a++) {
            for (int b = a + 1; b < 8; b++) {
                if (rowOf[a] == rowOf[b] || Math.abs(rowOf[a] - rowOf[b]) == b - a) {
                    return false;
                }
            }
        }
        return true;
    }

    @Override
    Object run(int inner, int threads) {
        long total = 0;
        boolean ok = true;
        for (int i = 0; i < inner; i++) {
            solutions = 0;
            allValid = true;
            place(0);
            total += solutions;
            ok &= allValid;
        }
        return ok ? total : -total;
    }

    @Override
    String verify(Object result, int inner, int threads) {
        return expect("solutions (negative: an invalid one was found)", (Long) result, 92L * inner);
    }

    @Override
    int defaultInner() {
        return 200;
    }
}
