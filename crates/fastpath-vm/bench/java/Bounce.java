// Bounce: balls with random positions and velocities move in a 500x500 box and reflect off
// the walls; the result is the number of wall bounces. Exercises object field access, small
// method calls and integer arithmetic. Each inner iteration restarts from the same seed, so
// it counts the same bounces: 1267, a number fixed by the generator (Benchmark.Lcg) and
// recomputed by an independent implementation when the benchmark was written.
final class Bounce extends Benchmark {
    static final int BALLS = 100;
    static final int STEPS = 50;
    static final int BOUNCES_PER_RUN = 1267;

    static final class Ball {
        private int x;
        private int y;
        private int xVel;
        private int yVel;

        Ball(Lcg random) {
            x = random.next(500);
            y = random.next(500);
            xVel = random.next(300) - 150;
            yVel = random.next(300) - 150;
        }

        boolean bounce() {
            int limit = 500;
            boolean bounced = false;
            x += xVel;
            y += yVel;
            if (x > limit) {
                x = limit;
                xVel = -Math.abs(xVel);
                bounced = true;
            }
            if (x < 0) {
                x = 0;
                xVel = Math.abs(xVel);
                bounced = true;
            }
            if (y > limit) {
                y = limit;
                yVel = -Math.abs(yVel);
                bounced = true;
            }
            if (y < 0) {
                y = 0;
                yVel = Math.abs(yVel);
                bounced = true;
            }
            return bounced;
        }
    }

    static int once() {
        Lcg random = new Lcg(74755);
        Ball[] balls = new Ball[BALLS];
        for (int i = 0; i < balls.length; i++) {
            balls[i] = new Ball(random);
        }
        int bounces = 0;
        for (int s = 0; s < STEPS; s++) {
            for (Ball b : balls) {
                if (b.bounce()) {
                    bounces++;
                }
            }
        }
        return bounces;
    }

    @Override
    Object run(int inner, int threads) {
        long total = 0;
        for (int i = 0; i < inner; i++) {
            total += once();
        }
        return total;
    }

    @Override
    String verify(Object result, int inner, int threads) {
        return expect("bounces", (Long) result, (long) BOUNCES_PER_RUN * inner);
    }

    @Override
    int defaultInner() {
        return 600;
    }
}
