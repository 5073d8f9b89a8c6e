// tags: lambda
// release: 17
// Lambdas compiled for release 17: private lambda bodies reached by nestmate access,
// lambdas in interfaces' default and static methods, in constructors, in static initializers
// and in inner classes, capture of long/double/array values, generic functional interfaces,
// a lambda identity check (non-capturing lambdas from one site may be shared, so only the
// results are printed), and a hand-written event bus driven by Consumer lists.
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

public class LambdaCapture17 {
    interface Shape {
        double area();

        default Supplier<String> lazyDescription() {
            return () -> "shape with area " + area();
        }

        static Shape scaled(Shape s, double factor) {
            return () -> s.area() * factor * factor;
        }
    }

    static final Map<String, Function<Double, Double>> CONVERSIONS = new HashMap<>();

    static {
        CONVERSIONS.put("c->f", c -> c * 9 / 5 + 32);
        CONVERSIONS.put("f->c", f -> (f - 32) * 5 / 9);
        CONVERSIONS.put("km->mi", km -> km / 1.609344);
    }

    private final List<Runnable> onClose = new ArrayList<>();
    private int closed;

    LambdaCapture17(String label) {
        onClose.add(() -> closed++);
        onClose.add(() -> System.out.println("closing " + label + " (closed=" + closed + ")"));
    }

    void close() {
        for (Runnable r : onClose) {
            r.run();
        }
    }

    class Inner {
        Supplier<String> outerView() {
            return () -> "inner sees closed=" + closed;
        }
    }

    static class EventBus {
        private final Map<String, List<Consumer<String>>> handlers = new HashMap<>();

        void on(String topic, Consumer<String> handler) {
            handlers.computeIfAbsent(topic, k -> new ArrayList<>()).add(handler);
        }

        int publish(String topic, String payload) {
            List<Consumer<String>> list = handlers.getOrDefault(topic, new ArrayList<>());
            list.forEach(h -> h.accept(payload));
            return list.size();
        }
    }

    static <T, R> List<R> map(List<T> in, Function<? super T, ? extends R> f) {
        List<R> out = new ArrayList<>();
        for (T t : in) {
            out.add(f.apply(t));
        }
        return out;
    }

    public static void main(String[] args) {
        Shape unit = () -> 1.0;
        Shape big = Shape.scaled(unit, 3);
        System.out.println(unit.lazyDescription().get() + "; " + big.lazyDescription().get());
        for (String key : new String[] {"c->f", "f->c", "km->mi"}) {
            System.out.println(key + " " + CONVERSIONS.get(key).apply(100.0));
        }
        LambdaCapture17 res = new LambdaCapture17("resource");
        Supplier<String> view = res.new Inner().outerView();
        res.close();
        res.close();
        System.out.println(view.get());
        long bigLong = Long.MAX_VALUE - 5;
        double precise = 0.1;
        int[] counter = {0};
        Runnable bump = () -> counter[0] += (int) (bigLong % 1000) + (int) (precise * 10);
        for (int i = 0; i < 10; i++) {
            bump.run();
        }
        System.out.println("counter " + counter[0]);
        EventBus bus = new EventBus();
        StringBuilder log = new StringBuilder();
        bus.on("greet", p -> log.append("[1:").append(p).append(']'));
        bus.on("greet", p -> log.append("[2:").append(p.length()).append(']'));
        bus.on("bye", log::append);
        int n = bus.publish("greet", "hi") + bus.publish("bye", "<bye>") + bus.publish("none", "x");
        System.out.println(log + " handlers " + n);
        List<String> names = Arrays.asList("ada", "grace", "linus");
        System.out.println(map(names, String::length) + " " + map(map(names, s -> s + "!"), s -> s.charAt(0)));
        BiConsumer<StringBuilder, Integer> repeat = (sb, k) -> {
            for (int i = 0; i < k; i++) {
                sb.append(k);
            }
        };
        StringBuilder rep = new StringBuilder();
        for (int k = 1; k <= 4; k++) {
            repeat.accept(rep, k);
        }
        System.out.println(rep);
        Supplier<Supplier<Supplier<String>>> nested = () -> () -> () -> "three levels";
        System.out.println(nested.get().get().get());
    }
}
