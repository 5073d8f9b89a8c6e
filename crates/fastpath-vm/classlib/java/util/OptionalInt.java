package java.util;

import java.util.function.IntConsumer;
import java.util.function.IntSupplier;

public final class OptionalInt {
    private static final OptionalInt EMPTY = new OptionalInt(false, 0);
    private final boolean isPresent;
    private final int value;

    private OptionalInt(boolean isPresent, int value) {
        this.isPresent = isPresent;
        this.value = value;
    }

    public static OptionalInt empty() { return EMPTY; }
    public static OptionalInt of(int value) { return new OptionalInt(true, value); }
    public int getAsInt() {
        if (!isPresent) throw new NoSuchElementException("No value present");
        return value;
    }
    public boolean isPresent() { return isPresent; }
    public boolean isEmpty() { return !isPresent; }
    public void ifPresent(IntConsumer action) { if (isPresent) action.accept(value); }
    public int orElse(int other) { return isPresent ? value : other; }
    public int orElseGet(IntSupplier supplier) { return isPresent ? value : supplier.getAsInt(); }
    public int orElseThrow() { return getAsInt(); }
    public boolean equals(Object obj) {
        if (this == obj) return true;
        if (!(obj instanceof OptionalInt)) return false;
        OptionalInt other = (OptionalInt) obj;
        return (isPresent && other.isPresent) ? value == other.value : isPresent == other.isPresent;
    }
    public int hashCode() { return isPresent ? Integer.hashCode(value) : 0; }
    public String toString() { return isPresent ? ("OptionalInt[" + value + "]") : "OptionalInt.empty"; }
}
