package java.util;

import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;
import java.util.function.IntToDoubleFunction;
import java.util.function.IntToLongFunction;

/** Array utilities. Sorting primitives gives the one sorted order (floats and doubles in Double.compare's total order); sorting objects is a stable merge sort, as TimSort is stable. */
public final class Arrays {
    private Arrays() {}

    /** A new array of `component` (the VM's). */
    static native Object newArray(Class<?> component, int length);

    static void rangeCheck(int arrayLength, int fromIndex, int toIndex) {
        if (fromIndex > toIndex) throw new IllegalArgumentException("fromIndex(" + fromIndex + ") > toIndex(" + toIndex + ")");
        if (fromIndex < 0) throw new ArrayIndexOutOfBoundsException("Array index out of range: " + fromIndex);
        if (toIndex > arrayLength) throw new ArrayIndexOutOfBoundsException("Array index out of range: " + toIndex);
    }

    public static void sort(int[] a) { sort(a, 0, a.length); }

    public static void sort(int[] a, int fromIndex, int toIndex) {
        rangeCheck(a.length, fromIndex, toIndex);
        quicksort(a, fromIndex, toIndex - 1);
    }

    private static boolean less(int a, int b) { return a < b; }

    private static void quicksort(int[] a, int lo, int hi) {
        while (hi - lo > 16) {
            int mid = (lo + hi) >>> 1;
            if (less(a[mid], a[lo])) swap(a, mid, lo);
            if (less(a[hi], a[lo])) swap(a, hi, lo);
            if (less(a[hi], a[mid])) swap(a, hi, mid);
            int pivot = a[mid];
            int i = lo, j = hi;
            while (i <= j) {
                while (less(a[i], pivot)) i++;
                while (less(pivot, a[j])) j--;
                if (i <= j) { swap(a, i, j); i++; j--; }
            }
            if (j - lo < hi - i) { quicksort(a, lo, j); lo = i; }
            else { quicksort(a, i, hi); hi = j; }
        }
        for (int i = lo + 1; i <= hi; i++) {
            int x = a[i];
            int j = i - 1;
            while (j >= lo && less(x, a[j])) { a[j + 1] = a[j]; j--; }
            a[j + 1] = x;
        }
    }

    private static void swap(int[] a, int i, int j) { int t = a[i]; a[i] = a[j]; a[j] = t; }

    public static void fill(int[] a, int val) { for (int i = 0, len = a.length; i < len; i++) a[i] = val; }

    public static void fill(int[] a, int fromIndex, int toIndex, int val) {
        rangeCheck(a.length, fromIndex, toIndex);
        for (int i = fromIndex; i < toIndex; i++) a[i] = val;
    }

    public static int[] copyOf(int[] original, int newLength) {
        if (newLength < 0) throw new NegativeArraySizeException(Integer.toString(newLength));
        int[] copy = new int[newLength];
        System.arraycopy(original, 0, copy, 0, Math.min(original.length, newLength));
        return copy;
    }

    public static int[] copyOfRange(int[] original, int from, int to) {
        int newLength = to - from;
        if (newLength < 0) throw new IllegalArgumentException(from + " > " + to);
        if (from < 0 || from > original.length) throw new ArrayIndexOutOfBoundsException("Array index out of range: " + from);
        int[] copy = new int[newLength];
        System.arraycopy(original, from, copy, 0, Math.min(original.length - from, newLength));
        return copy;
    }

    public static boolean equals(int[] a, int[] a2) {
        if (a == a2) return true;
        if (a == null || a2 == null) return false;
        int length = a.length;
        if (a2.length != length) return false;
        for (int i = 0; i < length; i++) if (a[i] != a2[i]) return false;
        return true;
    }

    public static int hashCode(int[] a) {
        if (a == null) return 0;
        int result = 1;
        for (int element : a) result = 31 * result + Integer.hashCode(element);
        return result;
    }

    public static String toString(int[] a) {
        if (a == null) return "null";
        int iMax = a.length - 1;
        if (iMax == -1) return "[]";
        StringBuilder b = new StringBuilder();
        b.append('[');
        for (int i = 0; ; i++) {
            b.append(a[i]);
            if (i == iMax) return b.append(']').toString();
            b.append(", ");
        }
    }

    public static int binarySearch(int[] a, int key) { return binarySearch(a, 0, a.length, key); }

    public static int binarySearch(int[] a, int fromIndex, int toIndex, int key) {
        rangeCheck(a.length, fromIndex, toIndex);
        int low = fromIndex;
        int high = toIndex - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            int midVal = a[mid];
            if (less(midVal, key)) low = mid + 1;
            else if (less(key, midVal)) high = mid - 1;
            else return mid;
        }
        return -(low + 1);
    }

    public static void sort(long[] a) { sort(a, 0, a.length); }

    public static void sort(long[] a, int fromIndex, int toIndex) {
        rangeCheck(a.length, fromIndex, toIndex);
        quicksort(a, fromIndex, toIndex - 1);
    }

    private static boolean less(long a, long b) { return a < b; }

    private static void quicksort(long[] a, int lo, int hi) {
        while (hi - lo > 16) {
            int mid = (lo + hi) >>> 1;
            if (less(a[mid], a[lo])) swap(a, mid, lo);
            if (less(a[hi], a[lo])) swap(a, hi, lo);
            if (less(a[hi], a[mid])) swap(a, hi, mid);
            long pivot = a[mid];
            int i = lo, j = hi;
            while (i <= j) {
                while (less(a[i], pivot)) i++;
                while (less(pivot, a[j])) j--;
                if (i <= j) { swap(a, i, j); i++; j--; }
            }
            if (j - lo < hi - i) { quicksort(a, lo, j); lo = i; }
            else { quicksort(a, i, hi); hi = j; }
        }
        for (int i = lo + 1; i <= hi; i++) {
            long x = a[i];
            int j = i - 1;
            while (j >= lo && less(x, a[j])) { a[j + 1] = a[j]; j--; }
            a[j + 1] = x;
        }
    }

    private static void swap(long[] a, int i, int j) { long t = a[i]; a[i] = a[j]; a[j] = t; }

    public static void fill(long[] a, long val) { for (int i = 0, len = a.length; i < len; i++) a[i] = val; }

    public static void fill(long[] a, int fromIndex, int toIndex, long val) {
        rangeCheck(a.length, fromIndex, toIndex);
        for (int i = fromIndex; i < toIndex; i++) a[i] = val;
    }

    public static long[] copyOf(long[] original, int newLength) {
        if (newLength < 0) throw new NegativeArraySizeException(Integer.toString(newLength));
        long[] copy = new long[newLength];
        System.arraycopy(original, 0, copy, 0, Math.min(original.length, newLength));
        return copy;
    }

    public static long[] copyOfRange(long[] original, int from, int to) {
        int newLength = to - from;
        if (newLength < 0) throw new IllegalArgumentException(from + " > " + to);
        if (from < 0 || from > original.length) throw new ArrayIndexOutOfBoundsException("Array index out of range: " + from);
        long[] copy = new long[newLength];
        System.arraycopy(original, from, copy, 0, Math.min(original.length - from, newLength));
        return copy;
    }

    public static boolean equals(long[] a, long[] a2) {
        if (a == a2) return true;
        if (a == null || a2 == null) return false;
        int length = a.length;
        if (a2.length != length) return false;
        for (int i = 0; i < length; i++) if (a[i] != a2[i]) return false;
        return true;
    }

    public static int hashCode(long[] a) {
        if (a == null) return 0;
        int result = 1;
        for (long element : a) result = 31 * result + Long.hashCode(element);
        return result;
    }

    public static String toString(long[] a) {
        if (a == null) return "null";
        int iMax = a.length - 1;
        if (iMax == -1) return "[]";
        StringBuilder b = new StringBuilder();
        b.append('[');
        for (int i = 0; ; i++) {
            b.append(a[i]);
            if (i == iMax) return b.append(']').toString();
            b.append(", ");
        }
    }

    public static int binarySearch(long[] a, long key) { return binarySearch(a, 0, a.length, key); }

    public static int binarySearch(long[] a, int fromIndex, int toIndex, long key) {
        rangeCheck(a.length, fromIndex, toIndex);
        int low = fromIndex;
        int high = toIndex - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            long midVal = a[mid];
            if (less(midVal, key)) low = mid + 1;
            else if (less(key, midVal)) high = mid - 1;
            else return mid;
        }
        return -(low + 1);
    }

    public static void sort(short[] a) { sort(a, 0, a.length); }

    public static void sort(short[] a, int fromIndex, int toIndex) {
        rangeCheck(a.length, fromIndex, toIndex);
        quicksort(a, fromIndex, toIndex - 1);
    }

    private static boolean less(short a, short b) { return a < b; }

    private static void quicksort(short[] a, int lo, int hi) {
        while (hi - lo > 16) {
            int mid = (lo + hi) >>> 1;
            if (less(a[mid], a[lo])) swap(a, mid, lo);
            if (less(a[hi], a[lo])) swap(a, hi, lo);
            if (less(a[hi], a[mid])) swap(a, hi, mid);
            short pivot = a[mid];
            int i = lo, j = hi;
            while (i <= j) {
                while (less(a[i], pivot)) i++;
                while (less(pivot, a[j])) j--;
                if (i <= j) { swap(a, i, j); i++; j--; }
            }
            if (j - lo < hi - i) { quicksort(a, lo, j); lo = i; }
            else { quicksort(a, i, hi); hi = j; }
        }
        for (int i = lo + 1; i <= hi; i++) {
            short x = a[i];
            int j = i - 1;
            while (j >= lo && less(x, a[j])) { a[j + 1] = a[j]; j--; }
            a[j + 1] = x;
        }
    }

    private static void swap(short[] a, int i, int j) { short t = a[i]; a[i] = a[j]; a[j] = t; }

    public static void fill(short[] a, short val) { for (int i = 0, len = a.length; i < len; i++) a[i] = val; }

    public static void fill(short[] a, int fromIndex, int toIndex, short val) {
        rangeCheck(a.length, fromIndex, toIndex);
        for (int i = fromIndex; i < toIndex; i++) a[i] = val;
    }

    public static short[] copyOf(short[] original, int newLength) {
        if (newLength < 0) throw new NegativeArraySizeException(Integer.toString(newLength));
        short[] copy = new short[newLength];
        System.arraycopy(original, 0, copy, 0, Math.min(original.length, newLength));
        return copy;
    }

    public static short[] copyOfRange(short[] original, int from, int to) {
        int newLength = to - from;
        if (newLength < 0) throw new IllegalArgumentException(from + " > " + to);
        if (from < 0 || from > original.length) throw new ArrayIndexOutOfBoundsException("Array index out of range: " + from);
        short[] copy = new short[newLength];
        System.arraycopy(original, from, copy, 0, Math.min(original.length - from, newLength));
        return copy;
    }

    public static boolean equals(short[] a, short[] a2) {
        if (a == a2) return true;
        if (a == null || a2 == null) return false;
        int length = a.length;
        if (a2.length != length) return false;
        for (int i = 0; i < length; i++) if (a[i] != a2[i]) return false;
        return true;
    }

    public static int hashCode(short[] a) {
        if (a == null) return 0;
        int result = 1;
        for (short element : a) result = 31 * result + Short.hashCode(element);
        return result;
    }

    public static String toString(short[] a) {
        if (a == null) return "null";
        int iMax = a.length - 1;
        if (iMax == -1) return "[]";
        StringBuilder b = new StringBuilder();
        b.append('[');
        for (int i = 0; ; i++) {
            b.append(a[i]);
            if (i == iMax) return b.append(']').toString();
            b.append(", ");
        }
    }

    public static int binarySearch(short[] a, short key) { return binarySearch(a, 0, a.length, key); }

    public static int binarySearch(short[] a, int fromIndex, int toIndex, short key) {
        rangeCheck(a.length, fromIndex, toIndex);
        int low = fromIndex;
        int high = toIndex - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            short midVal = a[mid];
            if (less(midVal, key)) low = mid + 1;
            else if (less(key, midVal)) high = mid - 1;
            else return mid;
        }
        return -(low + 1);
    }

    public static void sort(char[] a) { sort(a, 0, a.length); }

    public static void sort(char[] a, int fromIndex, int toIndex) {
        rangeCheck(a.length, fromIndex, toIndex);
        quicksort(a, fromIndex, toIndex - 1);
    }

    private static boolean less(char a, char b) { return a < b; }

    private static void quicksort(char[] a, int lo, int hi) {
        while (hi - lo > 16) {
            int mid = (lo + hi) >>> 1;
            if (less(a[mid], a[lo])) swap(a, mid, lo);
            if (less(a[hi], a[lo])) swap(a, hi, lo);
            if (less(a[hi], a[mid])) swap(a, hi, mid);
            char pivot = a[mid];
            int i = lo, j = hi;
            while (i <= j) {
                while (less(a[i], pivot)) i++;
                while (less(pivot, a[j])) j--;
                if (i <= j) { swap(a, i, j); i++; j--; }
            }
            if (j - lo < hi - i) { quicksort(a, lo, j); lo = i; }
            else { quicksort(a, i, hi); hi = j; }
        }
        for (int i = lo + 1; i <= hi; i++) {
            char x = a[i];
            int j = i - 1;
            while (j >= lo && less(x, a[j])) { a[j + 1] = a[j]; j--; }
            a[j + 1] = x;
        }
    }

    private static void swap(char[] a, int i, int j) { char t = a[i]; a[i] = a[j]; a[j] = t; }

    public static void fill(char[] a, char val) { for (int i = 0, len = a.length; i < len; i++) a[i] = val; }

    public static void fill(char[] a, int fromIndex, int toIndex, char val) {
        rangeCheck(a.length, fromIndex, toIndex);
        for (int i = fromIndex; i < toIndex; i++) a[i] = val;
    }

    public static char[] copyOf(char[] original, int newLength) {
        if (newLength < 0) throw new NegativeArraySizeException(Integer.toString(newLength));
        char[] copy = new char[newLength];
        System.arraycopy(original, 0, copy, 0, Math.min(original.length, newLength));
        return copy;
    }

    public static char[] copyOfRange(char[] original, int from, int to) {
        int newLength = to - from;
        if (newLength < 0) throw new IllegalArgumentException(from + " > " + to);
        if (from < 0 || from > original.length) throw new ArrayIndexOutOfBoundsException("Array index out of range: " + from);
        char[] copy = new char[newLength];
        System.arraycopy(original, from, copy, 0, Math.min(original.length - from, newLength));
        return copy;
    }

    public static boolean equals(char[] a, char[] a2) {
        if (a == a2) return true;
        if (a == null || a2 == null) return false;
        int length = a.length;
        if (a2.length != length) return false;
        for (int i = 0; i < length; i++) if (a[i] != a2[i]) return false;
        return true;
    }

    public static int hashCode(char[] a) {
        if (a == null) return 0;
        int result = 1;
        for (char element : a) result = 31 * result + Character.hashCode(element);
        return result;
    }

    public static String toString(char[] a) {
        if (a == null) return "null";
        int iMax = a.length - 1;
        if (iMax == -1) return "[]";
        StringBuilder b = new StringBuilder();
        b.append('[');
        for (int i = 0; ; i++) {
            b.append(a[i]);
            if (i == iMax) return b.append(']').toString();
            b.append(", ");
        }
    }

    public static int binarySearch(char[] a, char key) { return binarySearch(a, 0, a.length, key); }

    public static int binarySearch(char[] a, int fromIndex, int toIndex, char key) {
        rangeCheck(a.length, fromIndex, toIndex);
        int low = fromIndex;
        int high = toIndex - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            char midVal = a[mid];
            if (less(midVal, key)) low = mid + 1;
            else if (less(key, midVal)) high = mid - 1;
            else return mid;
        }
        return -(low + 1);
    }

    public static void sort(byte[] a) { sort(a, 0, a.length); }

    public static void sort(byte[] a, int fromIndex, int toIndex) {
        rangeCheck(a.length, fromIndex, toIndex);
        quicksort(a, fromIndex, toIndex - 1);
    }

    private static boolean less(byte a, byte b) { return a < b; }

    private static void quicksort(byte[] a, int lo, int hi) {
        while (hi - lo > 16) {
            int mid = (lo + hi) >>> 1;
            if (less(a[mid], a[lo])) swap(a, mid, lo);
            if (less(a[hi], a[lo])) swap(a, hi, lo);
            if (less(a[hi], a[mid])) swap(a, hi, mid);
            byte pivot = a[mid];
            int i = lo, j = hi;
            while (i <= j) {
                while (less(a[i], pivot)) i++;
                while (less(pivot, a[j])) j--;
                if (i <= j) { swap(a, i, j); i++; j--; }
            }
            if (j - lo < hi - i) { quicksort(a, lo, j); lo = i; }
            else { quicksort(a, i, hi); hi = j; }
        }
        for (int i = lo + 1; i <= hi; i++) {
            byte x = a[i];
            int j = i - 1;
            while (j >= lo && less(x, a[j])) { a[j + 1] = a[j]; j--; }
            a[j + 1] = x;
        }
    }

    private static void swap(byte[] a, int i, int j) { byte t = a[i]; a[i] = a[j]; a[j] = t; }

    public static void fill(byte[] a, byte val) { for (int i = 0, len = a.length; i < len; i++) a[i] = val; }

    public static void fill(byte[] a, int fromIndex, int toIndex, byte val) {
        rangeCheck(a.length, fromIndex, toIndex);
        for (int i = fromIndex; i < toIndex; i++) a[i] = val;
    }

    public static byte[] copyOf(byte[] original, int newLength) {
        if (newLength < 0) throw new NegativeArraySizeException(Integer.toString(newLength));
        byte[] copy = new byte[newLength];
        System.arraycopy(original, 0, copy, 0, Math.min(original.length, newLength));
        return copy;
    }

    public static byte[] copyOfRange(byte[] original, int from, int to) {
        int newLength = to - from;
        if (newLength < 0) throw new IllegalArgumentException(from + " > " + to);
        if (from < 0 || from > original.length) throw new ArrayIndexOutOfBoundsException("Array index out of range: " + from);
        byte[] copy = new byte[newLength];
        System.arraycopy(original, from, copy, 0, Math.min(original.length - from, newLength));
        return copy;
    }

    public static boolean equals(byte[] a, byte[] a2) {
        if (a == a2) return true;
        if (a == null || a2 == null) return false;
        int length = a.length;
        if (a2.length != length) return false;
        for (int i = 0; i < length; i++) if (a[i] != a2[i]) return false;
        return true;
    }

    public static int hashCode(byte[] a) {
        if (a == null) return 0;
        int result = 1;
        for (byte element : a) result = 31 * result + Byte.hashCode(element);
        return result;
    }

    public static String toString(byte[] a) {
        if (a == null) return "null";
        int iMax = a.length - 1;
        if (iMax == -1) return "[]";
        StringBuilder b = new StringBuilder();
        b.append('[');
        for (int i = 0; ; i++) {
            b.append(a[i]);
            if (i == iMax) return b.append(']').toString();
            b.append(", ");
        }
    }

    public static int binarySearch(byte[] a, byte key) { return binarySearch(a, 0, a.length, key); }

    public static int binarySearch(byte[] a, int fromIndex, int toIndex, byte key) {
        rangeCheck(a.length, fromIndex, toIndex);
        int low = fromIndex;
        int high = toIndex - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            byte midVal = a[mid];
            if (less(midVal, key)) low = mid + 1;
            else if (less(key, midVal)) high = mid - 1;
            else return mid;
        }
        return -(low + 1);
    }

    public static void sort(float[] a) { sort(a, 0, a.length); }

    public static void sort(float[] a, int fromIndex, int toIndex) {
        rangeCheck(a.length, fromIndex, toIndex);
        quicksort(a, fromIndex, toIndex - 1);
    }

    private static boolean less(float a, float b) { return Float.compare(a, b) < 0; }

    private static void quicksort(float[] a, int lo, int hi) {
        while (hi - lo > 16) {
            int mid = (lo + hi) >>> 1;
            if (less(a[mid], a[lo])) swap(a, mid, lo);
            if (less(a[hi], a[lo])) swap(a, hi, lo);
            if (less(a[hi], a[mid])) swap(a, hi, mid);
            float pivot = a[mid];
            int i = lo, j = hi;
            while (i <= j) {
                while (less(a[i], pivot)) i++;
                while (less(pivot, a[j])) j--;
                if (i <= j) { swap(a, i, j); i++; j--; }
            }
            if (j - lo < hi - i) { quicksort(a, lo, j); lo = i; }
            else { quicksort(a, i, hi); hi = j; }
        }
        for (int i = lo + 1; i <= hi; i++) {
            float x = a[i];
            int j = i - 1;
            while (j >= lo && less(x, a[j])) { a[j + 1] = a[j]; j--; }
            a[j + 1] = x;
        }
    }

    private static void swap(float[] a, int i, int j) { float t = a[i]; a[i] = a[j]; a[j] = t; }

    public static void fill(float[] a, float val) { for (int i = 0, len = a.length; i < len; i++) a[i] = val; }

    public static void fill(float[] a, int fromIndex, int toIndex, float val) {
        rangeCheck(a.length, fromIndex, toIndex);
        for (int i = fromIndex; i < toIndex; i++) a[i] = val;
    }

    public static float[] copyOf(float[] original, int newLength) {
        if (newLength < 0) throw new NegativeArraySizeException(Integer.toString(newLength));
        float[] copy = new float[newLength];
        System.arraycopy(original, 0, copy, 0, Math.min(original.length, newLength));
        return copy;
    }

    public static float[] copyOfRange(float[] original, int from, int to) {
        int newLength = to - from;
        if (newLength < 0) throw new IllegalArgumentException(from + " > " + to);
        if (from < 0 || from > original.length) throw new ArrayIndexOutOfBoundsException("Array index out of range: " + from);
        float[] copy = new float[newLength];
        System.arraycopy(original, from, copy, 0, Math.min(original.length - from, newLength));
        return copy;
    }

    public static boolean equals(float[] a, float[] a2) {
        if (a == a2) return true;
        if (a == null || a2 == null) return false;
        int length = a.length;
        if (a2.length != length) return false;
        for (int i = 0; i < length; i++) if (Float.compare(a[i], a2[i]) != 0) return false;
        return true;
    }

    public static int hashCode(float[] a) {
        if (a == null) return 0;
        int result = 1;
        for (float element : a) result = 31 * result + Float.hashCode(element);
        return result;
    }

    public static String toString(float[] a) {
        if (a == null) return "null";
        int iMax = a.length - 1;
        if (iMax == -1) return "[]";
        StringBuilder b = new StringBuilder();
        b.append('[');
        for (int i = 0; ; i++) {
            b.append(a[i]);
            if (i == iMax) return b.append(']').toString();
            b.append(", ");
        }
    }

    public static int binarySearch(float[] a, float key) { return binarySearch(a, 0, a.length, key); }

    public static int binarySearch(float[] a, int fromIndex, int toIndex, float key) {
        rangeCheck(a.length, fromIndex, toIndex);
        int low = fromIndex;
        int high = toIndex - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            float midVal = a[mid];
            if (less(midVal, key)) low = mid + 1;
            else if (less(key, midVal)) high = mid - 1;
            else return mid;
        }
        return -(low + 1);
    }

    public static void sort(double[] a) { sort(a, 0, a.length); }

    public static void sort(double[] a, int fromIndex, int toIndex) {
        rangeCheck(a.length, fromIndex, toIndex);
        quicksort(a, fromIndex, toIndex - 1);
    }

    private static boolean less(double a, double b) { return Double.compare(a, b) < 0; }

    private static void quicksort(double[] a, int lo, int hi) {
        while (hi - lo > 16) {
            int mid = (lo + hi) >>> 1;
            if (less(a[mid], a[lo])) swap(a, mid, lo);
            if (less(a[hi], a[lo])) swap(a, hi, lo);
            if (less(a[hi], a[mid])) swap(a, hi, mid);
            double pivot = a[mid];
            int i = lo, j = hi;
            while (i <= j) {
                while (less(a[i], pivot)) i++;
                while (less(pivot, a[j])) j--;
                if (i <= j) { swap(a, i, j); i++; j--; }
            }
            if (j - lo < hi - i) { quicksort(a, lo, j); lo = i; }
            else { quicksort(a, i, hi); hi = j; }
        }
        for (int i = lo + 1; i <= hi; i++) {
            double x = a[i];
            int j = i - 1;
            while (j >= lo && less(x, a[j])) { a[j + 1] = a[j]; j--; }
            a[j + 1] = x;
        }
    }

    private static void swap(double[] a, int i, int j) { double t = a[i]; a[i] = a[j]; a[j] = t; }

    public static void fill(double[] a, double val) { for (int i = 0, len = a.length; i < len; i++) a[i] = val; }

    public static void fill(double[] a, int fromIndex, int toIndex, double val) {
        rangeCheck(a.length, fromIndex, toIndex);
        for (int i = fromIndex; i < toIndex; i++) a[i] = val;
    }

    public static double[] copyOf(double[] original, int newLength) {
        if (newLength < 0) throw new NegativeArraySizeException(Integer.toString(newLength));
        double[] copy = new double[newLength];
        System.arraycopy(original, 0, copy, 0, Math.min(original.length, newLength));
        return copy;
    }

    public static double[] copyOfRange(double[] original, int from, int to) {
        int newLength = to - from;
        if (newLength < 0) throw new IllegalArgumentException(from + " > " + to);
        if (from < 0 || from > original.length) throw new ArrayIndexOutOfBoundsException("Array index out of range: " + from);
        double[] copy = new double[newLength];
        System.arraycopy(original, from, copy, 0, Math.min(original.length - from, newLength));
        return copy;
    }

    public static boolean equals(double[] a, double[] a2) {
        if (a == a2) return true;
        if (a == null || a2 == null) return false;
        int length = a.length;
        if (a2.length != length) return false;
        for (int i = 0; i < length; i++) if (Double.compare(a[i], a2[i]) != 0) return false;
        return true;
    }

    public static int hashCode(double[] a) {
        if (a == null) return 0;
        int result = 1;
        for (double element : a) result = 31 * result + Double.hashCode(element);
        return result;
    }

    public static String toString(double[] a) {
        if (a == null) return "null";
        int iMax = a.length - 1;
        if (iMax == -1) return "[]";
        StringBuilder b = new StringBuilder();
        b.append('[');
        for (int i = 0; ; i++) {
            b.append(a[i]);
            if (i == iMax) return b.append(']').toString();
            b.append(", ");
        }
    }

    public static int binarySearch(double[] a, double key) { return binarySearch(a, 0, a.length, key); }

    public static int binarySearch(double[] a, int fromIndex, int toIndex, double key) {
        rangeCheck(a.length, fromIndex, toIndex);
        int low = fromIndex;
        int high = toIndex - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            double midVal = a[mid];
            if (less(midVal, key)) low = mid + 1;
            else if (less(key, midVal)) high = mid - 1;
            else return mid;
        }
        return -(low + 1);
    }

    public static void fill(boolean[] a, boolean val) { for (int i = 0, len = a.length; i < len; i++) a[i] = val; }
    public static void fill(boolean[] a, int fromIndex, int toIndex, boolean val) {
        rangeCheck(a.length, fromIndex, toIndex);
        for (int i = fromIndex; i < toIndex; i++) a[i] = val;
    }
    public static boolean[] copyOf(boolean[] original, int newLength) {
        boolean[] copy = new boolean[newLength];
        System.arraycopy(original, 0, copy, 0, Math.min(original.length, newLength));
        return copy;
    }
    public static boolean[] copyOfRange(boolean[] original, int from, int to) {
        int newLength = to - from;
        if (newLength < 0) throw new IllegalArgumentException(from + " > " + to);
        boolean[] copy = new boolean[newLength];
        System.arraycopy(original, from, copy, 0, Math.min(original.length - from, newLength));
        return copy;
    }
    public static boolean equals(boolean[] a, boolean[] a2) {
        if (a == a2) return true;
        if (a == null || a2 == null || a.length != a2.length) return false;
        for (int i = 0; i < a.length; i++) if (a[i] != a2[i]) return false;
        return true;
    }
    public static int hashCode(boolean[] a) {
        if (a == null) return 0;
        int result = 1;
        for (boolean element : a) result = 31 * result + (element ? 1231 : 1237);
        return result;
    }
    public static String toString(boolean[] a) {
        if (a == null) return "null";
        int iMax = a.length - 1;
        if (iMax == -1) return "[]";
        StringBuilder b = new StringBuilder();
        b.append('[');
        for (int i = 0; ; i++) {
            b.append(a[i]);
            if (i == iMax) return b.append(']').toString();
            b.append(", ");
        }
    }

    public static void fill(Object[] a, Object val) { for (int i = 0, len = a.length; i < len; i++) a[i] = val; }
    public static void fill(Object[] a, int fromIndex, int toIndex, Object val) {
        rangeCheck(a.length, fromIndex, toIndex);
        for (int i = fromIndex; i < toIndex; i++) a[i] = val;
    }

    public static <T> T[] copyOf(T[] original, int newLength) { return (T[]) copyOf(original, newLength, original.getClass()); }

    public static <T, U> T[] copyOf(U[] original, int newLength, Class<? extends T[]> newType) {
        if (newLength < 0) throw new NegativeArraySizeException(Integer.toString(newLength));
        T[] copy = (T[]) newArray(newType.getComponentType(), newLength);
        System.arraycopy(original, 0, copy, 0, Math.min(original.length, newLength));
        return copy;
    }

    public static <T> T[] copyOfRange(T[] original, int from, int to) { return copyOfRange(original, from, to, (Class<? extends T[]>) original.getClass()); }

    public static <T, U> T[] copyOfRange(U[] original, int from, int to, Class<? extends T[]> newType) {
        int newLength = to - from;
        if (newLength < 0) throw new IllegalArgumentException(from + " > " + to);
        if (from < 0 || from > original.length) throw new ArrayIndexOutOfBoundsException("Array index out of range: " + from);
        T[] copy = (T[]) newArray(newType.getComponentType(), newLength);
        System.arraycopy(original, from, copy, 0, Math.min(original.length - from, newLength));
        return copy;
    }

    public static void sort(Object[] a) { sort(a, 0, a.length, null); }
    public static void sort(Object[] a, int fromIndex, int toIndex) { sort(a, fromIndex, toIndex, null); }
    public static <T> void sort(T[] a, Comparator<? super T> c) { sort(a, 0, a.length, c); }

    public static <T> void sort(T[] a, int fromIndex, int toIndex, Comparator<? super T> c) {
        rangeCheck(a.length, fromIndex, toIndex);
        if (toIndex - fromIndex < 2) return;
        Object[] aux = new Object[toIndex - fromIndex];
        System.arraycopy(a, fromIndex, aux, 0, toIndex - fromIndex);
        mergeSort(aux, a, fromIndex, toIndex, -fromIndex, (Comparator<Object>) c);
    }

    private static int cmp(Object a, Object b, Comparator<Object> c) {
        return c == null ? ((Comparable<Object>) a).compareTo(b) : c.compare(a, b);
    }

    /** Sorts dest[low..high) from src (offset by `off`), stable: a left element wins ties. */
    private static void mergeSort(Object[] src, Object[] dest, int low, int high, int off, Comparator<Object> c) {
        int length = high - low;
        if (length < 7) {
            for (int i = low; i < high; i++)
                for (int j = i; j > low && cmp(dest[j - 1], dest[j], c) > 0; j--) {
                    Object t = dest[j]; dest[j] = dest[j - 1]; dest[j - 1] = t;
                }
            return;
        }
        int destLow = low;
        int destHigh = high;
        low += off;
        high += off;
        int mid = (low + high) >>> 1;
        mergeSort(dest, src, low, mid, -off, c);
        mergeSort(dest, src, mid, high, -off, c);
        if (cmp(src[mid - 1], src[mid], c) <= 0) {
            System.arraycopy(src, low, dest, destLow, length);
            return;
        }
        for (int i = destLow, p = low, q = mid; i < destHigh; i++) {
            if (q >= high || p < mid && cmp(src[p], src[q], c) <= 0) dest[i] = src[p++];
            else dest[i] = src[q++];
        }
    }

    public static <T> int binarySearch(T[] a, T key, Comparator<? super T> c) {
        int low = 0, high = a.length - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            int r = cmp(a[mid], key, (Comparator<Object>) c);
            if (r < 0) low = mid + 1;
            else if (r > 0) high = mid - 1;
            else return mid;
        }
        return -(low + 1);
    }

    public static int binarySearch(Object[] a, Object key) { return binarySearch(a, key, null); }

    public static boolean equals(Object[] a, Object[] a2) {
        if (a == a2) return true;
        if (a == null || a2 == null) return false;
        int length = a.length;
        if (a2.length != length) return false;
        for (int i = 0; i < length; i++) if (!Objects.equals(a[i], a2[i])) return false;
        return true;
    }

    public static int hashCode(Object[] a) {
        if (a == null) return 0;
        int result = 1;
        for (Object element : a) result = 31 * result + (element == null ? 0 : element.hashCode());
        return result;
    }

    public static int deepHashCode(Object[] a) {
        if (a == null) return 0;
        int result = 1;
        for (Object element : a) {
            int elementHash;
            if (element == null) elementHash = 0;
            else if (element instanceof Object[]) elementHash = deepHashCode((Object[]) element);
            else if (element instanceof int[]) elementHash = hashCode((int[]) element);
            else if (element instanceof long[]) elementHash = hashCode((long[]) element);
            else if (element instanceof double[]) elementHash = hashCode((double[]) element);
            else if (element instanceof char[]) elementHash = hashCode((char[]) element);
            else if (element instanceof byte[]) elementHash = hashCode((byte[]) element);
            else if (element instanceof boolean[]) elementHash = hashCode((boolean[]) element);
            else if (element instanceof float[]) elementHash = hashCode((float[]) element);
            else if (element instanceof short[]) elementHash = hashCode((short[]) element);
            else elementHash = element.hashCode();
            result = 31 * result + elementHash;
        }
        return result;
    }

    public static boolean deepEquals(Object[] a1, Object[] a2) {
        if (a1 == a2) return true;
        if (a1 == null || a2 == null) return false;
        int length = a1.length;
        if (a2.length != length) return false;
        for (int i = 0; i < length; i++) {
            Object e1 = a1[i], e2 = a2[i];
            if (e1 == e2) continue;
            if (e1 == null || e2 == null) return false;
            if (!deepEquals0(e1, e2)) return false;
        }
        return true;
    }

    static boolean deepEquals0(Object e1, Object e2) {
        if (e1 instanceof Object[] && e2 instanceof Object[]) return deepEquals((Object[]) e1, (Object[]) e2);
        if (e1 instanceof int[] && e2 instanceof int[]) return equals((int[]) e1, (int[]) e2);
        if (e1 instanceof long[] && e2 instanceof long[]) return equals((long[]) e1, (long[]) e2);
        if (e1 instanceof char[] && e2 instanceof char[]) return equals((char[]) e1, (char[]) e2);
        if (e1 instanceof byte[] && e2 instanceof byte[]) return equals((byte[]) e1, (byte[]) e2);
        if (e1 instanceof double[] && e2 instanceof double[]) return equals((double[]) e1, (double[]) e2);
        if (e1 instanceof float[] && e2 instanceof float[]) return equals((float[]) e1, (float[]) e2);
        if (e1 instanceof short[] && e2 instanceof short[]) return equals((short[]) e1, (short[]) e2);
        if (e1 instanceof boolean[] && e2 instanceof boolean[]) return equals((boolean[]) e1, (boolean[]) e2);
        return e1.equals(e2);
    }

    public static String toString(Object[] a) {
        if (a == null) return "null";
        int iMax = a.length - 1;
        if (iMax == -1) return "[]";
        StringBuilder b = new StringBuilder();
        b.append('[');
        for (int i = 0; ; i++) {
            b.append(String.valueOf(a[i]));
            if (i == iMax) return b.append(']').toString();
            b.append(", ");
        }
    }

    public static String deepToString(Object[] a) {
        if (a == null) return "null";
        StringBuilder buf = new StringBuilder();
        deepToString(a, buf, new IdentityHashMap<Object[], Boolean>());
        return buf.toString();
    }

    private static void deepToString(Object[] a, StringBuilder buf, IdentityHashMap<Object[], Boolean> dejaVu) {
        if (a == null) { buf.append("null"); return; }
        int iMax = a.length - 1;
        if (iMax == -1) { buf.append("[]"); return; }
        dejaVu.put(a, Boolean.TRUE);
        buf.append('[');
        for (int i = 0; ; i++) {
            Object element = a[i];
            if (element == null) buf.append("null");
            else if (element instanceof Object[]) {
                if (dejaVu.containsKey(element)) buf.append("[...]");
                else deepToString((Object[]) element, buf, dejaVu);
            } else if (element instanceof int[]) buf.append(toString((int[]) element));
            else if (element instanceof long[]) buf.append(toString((long[]) element));
            else if (element instanceof double[]) buf.append(toString((double[]) element));
            else if (element instanceof char[]) buf.append(toString((char[]) element));
            else if (element instanceof byte[]) buf.append(toString((byte[]) element));
            else if (element instanceof boolean[]) buf.append(toString((boolean[]) element));
            else if (element instanceof float[]) buf.append(toString((float[]) element));
            else if (element instanceof short[]) buf.append(toString((short[]) element));
            else buf.append(element.toString());
            if (i == iMax) break;
            buf.append(", ");
        }
        buf.append(']');
        dejaVu.remove(a);
    }

    public static <T> void setAll(T[] array, IntFunction<? extends T> generator) {
        Objects.requireNonNull(generator);
        for (int i = 0; i < array.length; i++) array[i] = generator.apply(i);
    }
    public static void setAll(int[] array, IntUnaryOperator generator) {
        Objects.requireNonNull(generator);
        for (int i = 0; i < array.length; i++) array[i] = generator.applyAsInt(i);
    }
    public static void setAll(long[] array, IntToLongFunction generator) {
        Objects.requireNonNull(generator);
        for (int i = 0; i < array.length; i++) array[i] = generator.applyAsLong(i);
    }
    public static void setAll(double[] array, IntToDoubleFunction generator) {
        Objects.requireNonNull(generator);
        for (int i = 0; i < array.length; i++) array[i] = generator.applyAsDouble(i);
    }

    public static <T> List<T> asList(T... a) { return new ArrayListView<T>(a); }

    public static <T> java.util.stream.Stream<T> stream(T[] array) { return asList(array).stream(); }

    public static <T> java.util.stream.Stream<T> stream(T[] array, int startInclusive, int endExclusive) {
        return asList(array).subList(startInclusive, endExclusive).stream();
    }

    public static java.util.stream.IntStream stream(int[] array) { return java.util.stream.IntStream.of(array); }

    private static class ArrayListView<E> extends AbstractList<E> implements RandomAccess, java.io.Serializable {
        private final E[] a;
        ArrayListView(E[] array) { a = Objects.requireNonNull(array); }
        public int size() { return a.length; }
        public Object[] toArray() { return Arrays.copyOf(a, a.length, Object[].class); }
        public <T> T[] toArray(T[] t) {
            int size = size();
            if (t.length < size) return Arrays.copyOf(this.a, size, (Class<? extends T[]>) t.getClass());
            System.arraycopy(this.a, 0, t, 0, size);
            if (t.length > size) t[size] = null;
            return t;
        }
        public E get(int index) { return a[index]; }
        public E set(int index, E element) {
            E oldValue = a[index];
            a[index] = element;
            return oldValue;
        }
        public int indexOf(Object o) {
            for (int i = 0; i < a.length; i++) if (Objects.equals(o, a[i])) return i;
            return -1;
        }
        public boolean contains(Object o) { return indexOf(o) >= 0; }
        public void sort(Comparator<? super E> c) { Arrays.sort(a, c); }
    }
}
