package java.lang;

public final class StackTraceElement implements java.io.Serializable {
    private final String declaringClass;
    private final String methodName;
    private final String fileName;
    private final int lineNumber;
    private final boolean boot;

    public StackTraceElement(String declaringClass, String methodName, String fileName, int lineNumber) {
        this(declaringClass, methodName, fileName, lineNumber, false);
    }

    /** The VM's: `boot` classes print with their module, `java.base/`. */
    private StackTraceElement(String declaringClass, String methodName, String fileName, int lineNumber, boolean boot) {
        this.declaringClass = declaringClass;
        this.methodName = methodName;
        this.fileName = fileName;
        this.lineNumber = lineNumber;
        this.boot = boot;
    }

    public String getFileName() { return fileName; }
    public int getLineNumber() { return lineNumber; }
    public String getClassName() { return declaringClass; }
    public String getMethodName() { return methodName; }
    public boolean isNativeMethod() { return lineNumber == -2; }
    public String getModuleName() { return boot ? "java.base" : null; }

    public String toString() {
        StringBuilder sb = new StringBuilder();
        if (boot) sb.append("java.base/");
        sb.append(declaringClass).append('.').append(methodName).append('(');
        if (isNativeMethod()) sb.append("Native Method");
        else if (fileName == null) sb.append("Unknown Source");
        else {
            sb.append(fileName);
            if (lineNumber >= 0) sb.append(':').append(lineNumber);
        }
        return sb.append(')').toString();
    }

    public boolean equals(Object obj) {
        if (obj == this) return true;
        if (!(obj instanceof StackTraceElement)) return false;
        StackTraceElement e = (StackTraceElement) obj;
        return e.lineNumber == lineNumber && java.util.Objects.equals(declaringClass, e.declaringClass)
            && java.util.Objects.equals(methodName, e.methodName) && java.util.Objects.equals(fileName, e.fileName);
    }

    public int hashCode() {
        int result = 31 * declaringClass.hashCode() + methodName.hashCode();
        result = 31 * result + java.util.Objects.hashCode(fileName);
        return 31 * result + lineNumber;
    }
}
