package java.util;

import java.util.function.DoubleConsumer;
import java.util.function.DoubleSupplier;

public final class OptionalDouble {
    private static final OptionalDouble EMPTY = new OptionalDouble(false, Double.NaN);
    private final boolean isPresent;
    private final double value;

    private OptionalDouble(boolean isPresent, double value) {
        this.isPresent = isPresent;
        this.value = value;
    }

    public static OptionalDouble empty() { return EMPTY; }
    public static OptionalDouble of(double value) { return new OptionalDouble(true, value); }
    public double getAsDouble() {
        if (!isPresent) throw new NoSuchElementException("No value present");
        return value;
    }
    public boolean isPresent() { return isPresent; }
    public boolean isEmpty() { return !isPresent; }
    public void ifPresent(DoubleConsumer action) { if (isPresent) action.accept(value); }
    public double orElse(double other) { return isPresent ? value : other; }
    public double orElseGet(DoubleSupplier supplier) { return isPresent ? value : supplier.getAsDouble(); }
    public double orElseThrow() { return getAsDouble(); }
    public boolean equals(Object obj) {
        if (this == obj) return true;
        if (!(obj instanceof OptionalDouble)) return false;
        OptionalDouble other = (OptionalDouble) obj;
        return (isPresent && other.isPresent) ? Double.compare(value, other.value) == 0 : isPresent == other.isPresent;
    }
    public int hashCode() { return isPresent ? Double.hashCode(value) : 0; }
    public String toString() { return isPresent ? ("OptionalDouble[" + value + "]") : "OptionalDouble.empty"; }
}
