package java.util.function;

public interface BooleanSupplier {
    boolean getAsBoolean();
}
