package java.lang;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

public class Throwable implements java.io.Serializable {
    /** The VM's record of the frames (a long[]: method id, bytecode offset). */
    private transient Object backtrace;
    private String detailMessage;
    private Throwable cause = this;
    private StackTraceElement[] stackTrace;
    private List<Throwable> suppressedExceptions;
    private boolean enableSuppression = true;
    private boolean writableStackTrace = true;

    private static final StackTraceElement[] UNASSIGNED_STACK = new StackTraceElement[0];

    public Throwable() { fillInStackTrace(); }

    public Throwable(String message) {
        fillInStackTrace();
        detailMessage = message;
    }

    public Throwable(String message, Throwable cause) {
        fillInStackTrace();
        detailMessage = message;
        this.cause = cause;
    }

    public Throwable(Throwable cause) {
        fillInStackTrace();
        detailMessage = (cause == null ? null : cause.toString());
        this.cause = cause;
    }

    protected Throwable(String message, Throwable cause, boolean enableSuppression, boolean writableStackTrace) {
        if (writableStackTrace) fillInStackTrace();
        else stackTrace = UNASSIGNED_STACK;
        this.writableStackTrace = writableStackTrace;
        detailMessage = message;
        this.cause = cause;
        this.enableSuppression = enableSuppression;
    }

    public String getMessage() { return detailMessage; }

    public String getLocalizedMessage() { return getMessage(); }

    public synchronized Throwable getCause() { return (cause == this ? null : cause); }

    public synchronized Throwable initCause(Throwable cause) {
        if (this.cause != this) throw new IllegalStateException("Can't overwrite cause with " + java.util.Objects.toString(cause, "a null"), this);
        if (cause == this) throw new IllegalArgumentException("Self-causation not permitted", this);
        this.cause = cause;
        return this;
    }

    public String toString() {
        String s = getClass().getName();
        String message = getLocalizedMessage();
        return (message != null) ? (s + ": " + message) : s;
    }

    public void printStackTrace() { printStackTrace(System.err); }

    public void printStackTrace(PrintStream s) {
        StringBuilder sb = new StringBuilder();
        java.util.Set<Throwable> dejaVu = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<Throwable, Boolean>());
        dejaVu.add(this);
        sb.append(this).append('\n');
        StackTraceElement[] trace = getOurStackTrace();
        for (StackTraceElement traceElement : trace) sb.append("\tat ").append(traceElement).append('\n');
        for (Throwable se : getSuppressed()) se.printEnclosedStackTrace(sb, trace, "Suppressed: ", "\t", dejaVu);
        Throwable ourCause = getCause();
        if (ourCause != null) ourCause.printEnclosedStackTrace(sb, trace, "Caused by: ", "", dejaVu);
        s.print(sb.toString());
        s.flush();
    }

    private void printEnclosedStackTrace(StringBuilder sb, StackTraceElement[] enclosingTrace, String caption,
                                         String prefix, java.util.Set<Throwable> dejaVu) {
        if (dejaVu.contains(this)) {
            sb.append(prefix).append(caption).append("[CIRCULAR REFERENCE: ").append(this).append("]\n");
            return;
        }
        dejaVu.add(this);
        StackTraceElement[] trace = getOurStackTrace();
        int m = trace.length - 1;
        int n = enclosingTrace.length - 1;
        while (m >= 0 && n >= 0 && trace[m].equals(enclosingTrace[n])) { m--; n--; }
        int framesInCommon = trace.length - 1 - m;
        sb.append(prefix).append(caption).append(this).append('\n');
        for (int i = 0; i <= m; i++) sb.append(prefix).append("\tat ").append(trace[i]).append('\n');
        if (framesInCommon != 0) sb.append(prefix).append("\t... ").append(framesInCommon).append(" more\n");
        for (Throwable se : getSuppressed()) se.printEnclosedStackTrace(sb, trace, "Suppressed: ", prefix + "\t", dejaVu);
        Throwable ourCause = getCause();
        if (ourCause != null) ourCause.printEnclosedStackTrace(sb, trace, "Caused by: ", prefix, dejaVu);
    }

    public synchronized Throwable fillInStackTrace() {
        if (stackTrace != null || backtrace != null || writableStackTrace) {
            fillInStackTrace0();
            stackTrace = null;
        }
        return this;
    }

    private native Throwable fillInStackTrace0();
    private native StackTraceElement[] getStackTrace0();

    public StackTraceElement[] getStackTrace() { return getOurStackTrace().clone(); }

    private synchronized StackTraceElement[] getOurStackTrace() {
        if (stackTrace == null) {
            stackTrace = (backtrace == null) ? UNASSIGNED_STACK : getStackTrace0();
        }
        return stackTrace;
    }

    public void setStackTrace(StackTraceElement[] stackTrace) {
        StackTraceElement[] defensiveCopy = stackTrace.clone();
        for (int i = 0; i < defensiveCopy.length; i++) {
            if (defensiveCopy[i] == null) throw new NullPointerException("stackTrace[" + i + "]");
        }
        synchronized (this) {
            this.stackTrace = defensiveCopy;
        }
    }

    public final synchronized void addSuppressed(Throwable exception) {
        if (exception == this) throw new IllegalArgumentException("Self-suppression not permitted", exception);
        java.util.Objects.requireNonNull(exception, "Cannot suppress a null exception.");
        if (!enableSuppression) return;
        if (suppressedExceptions == null) suppressedExceptions = new ArrayList<Throwable>(1);
        suppressedExceptions.add(exception);
    }

    public final synchronized Throwable[] getSuppressed() {
        if (suppressedExceptions == null) return new Throwable[0];
        return suppressedExceptions.toArray(new Throwable[0]);
    }
}
