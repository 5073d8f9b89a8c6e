// Sieve: the sieve of Eratosthenes over 5000 booleans, counting primes. There are 669
// primes below 5000.
final class Sieve extends Benchmark {
    static int primesBelow(int n) {
        boolean[] composite = new boolean[n];
        int count = 0;
        for (int i = 2; i < n; i++) {
            if (!composite[i]) {
                count++;
                for (int k = i + i; k < n; k += i) {
                    composite[k] = true;
                }
            }
        }
        return count;
    }

    @Override
    Object run(int inner, int threads) {
        long total = 0;
        for (int i = 0; i < inner; i++) {
            total += primesBelow(5000);
        }
        return total;
    }

    @Override
    String verify(Object result, int inner, int threads) {
        return expect("primes", (Long) result, 669L * inner);
    }

    @Override
    int defaultInner() {
        return 800;
    }
}
