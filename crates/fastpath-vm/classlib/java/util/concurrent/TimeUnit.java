package java.util.concurrent;

public enum TimeUnit {
    NANOSECONDS(1L), MICROSECONDS(1000L), MILLISECONDS(1000000L), SECONDS(1000000000L),
    MINUTES(60000000000L), HOURS(3600000000000L), DAYS(86400000000000L);

    private final long scale;

    TimeUnit(long scale) { this.scale = scale; }

    private static long cvt(long d, long dst, long src) {
        if (src == dst) return d;
        if (src < dst) return d / (dst / src);
        long r = src / dst;
        long max = Long.MAX_VALUE / r;
        if (d > max) return Long.MAX_VALUE;
        if (d < -max) return Long.MIN_VALUE;
        return d * r;
    }

    public long convert(long sourceDuration, TimeUnit sourceUnit) { return cvt(sourceDuration, scale, sourceUnit.scale); }
    public long toNanos(long duration) { return cvt(duration, NANOSECONDS.scale, scale); }
    public long toMicros(long duration) { return cvt(duration, MICROSECONDS.scale, scale); }
    public long toMillis(long duration) { return cvt(duration, MILLISECONDS.scale, scale); }
    public long toSeconds(long duration) { return cvt(duration, SECONDS.scale, scale); }
    public long toMinutes(long duration) { return cvt(duration, MINUTES.scale, scale); }
    public long toHours(long duration) { return cvt(duration, HOURS.scale, scale); }
    public long toDays(long duration) { return cvt(duration, DAYS.scale, scale); }

    public void sleep(long timeout) throws InterruptedException {
        if (timeout > 0) Thread.sleep(toMillis(timeout));
    }

    public void timedJoin(Thread thread, long timeout) throws InterruptedException {
        if (timeout > 0) thread.join(toMillis(timeout));
    }

    /** Waits on `obj` (whose monitor the caller holds) for at most `timeout` of this unit. */
    public void timedWait(Object obj, long timeout) throws InterruptedException {
        if (timeout > 0) {
            long ms = toMillis(timeout);
            obj.wait(ms > 0 ? ms : 1);
        }
    }
}
