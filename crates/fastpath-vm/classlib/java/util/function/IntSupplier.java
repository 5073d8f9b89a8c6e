package java.util.function;

public interface IntSupplier {
    int getAsInt();
}
