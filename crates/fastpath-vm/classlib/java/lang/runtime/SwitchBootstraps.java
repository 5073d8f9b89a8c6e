package java.lang.runtime;

/**
 * The run-time half of pattern `switch` (javac's `typeSwitch` call sites): the VM links each
 * call site to a class holding its labels, which calls {@link #typeSwitch} with them.
 */
public final class SwitchBootstraps {
    private SwitchBootstraps() {}

    /** An enum constant label: its class and name (the enum is not initialized until it is compared). */
    public static final class EnumLabel {
        final Class<?> enumClass;
        final String name;
        public EnumLabel(Class<?> enumClass, String name) {
            this.enumClass = enumClass;
            this.name = name;
        }
    }

    /**
     * The index of the first label at or after `restart` that `target` matches: a Class by
     * instanceof, a String by equals, an Integer against Integer/Character/Short/Byte values,
     * an enum label by identity of the constant; -1 for null; labels.length when none matches.
     */
    public static int typeSwitch(Object target, int restart, Object[] labels) {
        if (target == null) return -1;
        for (int i = restart; i < labels.length; i++) {
            Object label = labels[i];
            if (label instanceof Class) {
                if (((Class<?>) label).isInstance(target)) return i;
            } else if (label instanceof String) {
                if (label.equals(target)) return i;
            } else if (label instanceof Integer) {
                int v = (Integer) label;
                if (target instanceof Integer && (Integer) target == v) return i;
                if (target instanceof Character && (Character) target == v) return i;
                if (target instanceof Short && (Short) target == v) return i;
                if (target instanceof Byte && (Byte) target == v) return i;
            } else if (label instanceof EnumLabel) {
                EnumLabel e = (EnumLabel) label;
                if (target instanceof Enum && ((Enum<?>) target).getDeclaringClass() == e.enumClass
                        && ((Enum<?>) target).name().equals(e.name)) return i;
            }
        }
        return labels.length;
    }
}
