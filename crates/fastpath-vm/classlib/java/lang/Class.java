package java.lang;

public final class Class<T> implements java.io.Serializable {
    /** The VM's class metadata (its address). */
    private long vmClass;
    private String name;

    private Class() {}

    public String getName() {
        String n = name;
        if (n == null) name = n = initName();
        return n;
    }
    private native String initName();

    public String getSimpleName() {
        if (isArray()) return getComponentType().getSimpleName() + "[]";
        String n = getName();
        int dot = n.lastIndexOf('.');
        n = n.substring(dot + 1);
        int dollar = n.lastIndexOf('$');
        if (dollar >= 0) {
            String rest = n.substring(dollar + 1);
            int i = 0;
            while (i < rest.length() && Character.isDigit(rest.charAt(i))) i++;
            return rest.substring(i);
        }
        return n;
    }

    public String getTypeName() {
        if (isArray()) return getComponentType().getTypeName() + "[]";
        return getName();
    }

    public String getCanonicalName() {
        if (isArray()) {
            String c = getComponentType().getCanonicalName();
            return c == null ? null : c + "[]";
        }
        return getName().replace('$', '.');
    }

    public String getPackageName() {
        Class<?> c = this;
        while (c.isArray()) c = c.getComponentType();
        if (c.isPrimitive()) return "java.lang";
        String n = c.getName();
        int dot = n.lastIndexOf('.');
        return dot < 0 ? "" : n.substring(0, dot);
    }

    public String toString() {
        return (isInterface() ? "interface " : (isPrimitive() ? "" : "class ")) + getName();
    }

    public native boolean isArray();
    public native boolean isInterface();
    public native boolean isPrimitive();
    public native int getModifiers();
    public native Class<? super T> getSuperclass();
    public native Class<?> getComponentType();
    public native boolean isInstance(Object obj);
    public native boolean isAssignableFrom(Class<?> cls);
    static native Class<?> getPrimitiveClass(String name);
    public static native Class<?> forName(String className) throws ClassNotFoundException;
    private native Object[] getEnumConstants0();

    public boolean isEnum() {
        return (getModifiers() & 0x4000) != 0 && getSuperclass() == Enum.class;
    }

    public boolean isRecord() {
        return getSuperclass() == Record.class;
    }

    public T[] getEnumConstants() {
        Object[] v = getEnumConstants0();
        return (T[]) v;
    }

    public T cast(Object obj) {
        if (obj != null && !isInstance(obj)) {
            throw new ClassCastException("Cannot cast " + obj.getClass().getName() + " to " + getName());
        }
        return (T) obj;
    }

    public boolean desiredAssertionStatus() { return false; }
}
