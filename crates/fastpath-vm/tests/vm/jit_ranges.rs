//! The decoder check of range-check elimination (`jit/ranges.rs`, x86-64):
//! a counted loop over an array's elements compiles with no bounds check
//! (no call of the `ArrayIndexOutOfBoundsException` helper anywhere in the
//! method), in its three javac shapes (index below `a.length`, for-each,
//! counting down to 0), for `a[i + 1]` below `a.length - 1` and for an index
//! below the `n` of `a = new boolean[n]`; a loop that
//! almost qualifies keeps its check: a test of `i <= a.length`, the array
//! local reassigned after the length was read, the index stepped in the
//! body, `a[i + 1]` below `a.length`, `n` changed after the allocation.
//!
//! An index proven below the length but not `>= 0` (`k += i` may wrap):
//! the access keeps a test of the index's sign and nothing else, so a
//! sieve's inner loop over `c = new boolean[n]` has no null check, and a
//! stride that wraps past `Integer.MAX_VALUE` or a negative start throws
//! the interpreter's `ArrayIndexOutOfBoundsException`, message included.
//!
//! An array held in a field (`jit/bounded.rs`): `this.v[i]` below
//! `this.v.length` has no bounds check; it keeps it where the field may
//! change between the test and the access (a store to it on a path in
//! between, a call that may store it) and where the field is volatile
//! (each read loads it again). The near misses replace the array mid-loop
//! with a shorter one and must throw where the interpreter throws (`main`
//! checks the results and fails the run otherwise).
//!
//! One VM in this process (`-Xcomp`), whose methods' installed code is read
//! back and decoded with iced-x86 (`harness::compiled_code`).

#![cfg(target_arch = "x86_64")]

use crate::harness;

use fastpath_vm::jit::helpers::Helper;

const PROGRAM: &str = r#"
public class Ranges {
    int[] v;
    volatile int[] w;

    int field() {
        int s = 0;
        for (int i = 0; i < v.length; i++) {
            s += v[i];
        }
        return s;
    }

    int fieldStored(int[] b) {
        int s = 0;
        try {
            for (int i = 0; i < v.length; i++) {
                if (i == 3) {
                    v = b;
                }
                s += v[i];
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            s = -s;
        }
        return s;
    }

    void shrink(int i, int[] b) {
        if (i == 3) {
            v = b;
        }
    }

    int fieldCalled(int[] b) {
        int s = 0;
        try {
            for (int i = 0; i < v.length; i++) {
                shrink(i, b);
                s += v[i];
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            s = -s;
        }
        return s;
    }

    int volatileField() {
        int s = 0;
        for (int i = 0; i < w.length; i++) {
            s += w[i];
        }
        return s;
    }

    int upTo(int[] a) {
        int s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i];
        }
        return s;
    }

    long forEach(long[] a) {
        long s = 0;
        for (long x : a) {
            s += x;
        }
        return s;
    }

    int downTo(int[] a) {
        int s = 0;
        for (int i = a.length - 1; i >= 0; i--) {
            s += a[i];
        }
        return s;
    }

    void pairs(int[] a) {
        for (int i = 0; i < a.length - 1; i++) {
            a[i] = a[i] + a[i + 1];
        }
    }

    int allocated(int n) {
        boolean[] c = new boolean[n];
        int s = 0;
        for (int i = 0; i < n; i++) {
            if (!c[i]) {
                s++;
            }
        }
        return s;
    }

    int grown(int n) {
        boolean[] c = new boolean[n];
        n++;
        int s = 0;
        try {
            for (int i = 0; i < n; i++) {
                if (!c[i]) {
                    s++;
                }
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            s = -s;
        }
        return s;
    }

    int sieve(int n) {
        boolean[] c = new boolean[n];
        int count = 0;
        for (int i = 2; i < n; i++) {
            if (!c[i]) {
                count++;
                for (int k = i + i; k < n; k += i) {
                    c[k] = true;
                }
            }
        }
        return count;
    }

    String strided(int[] a, int start, int step) {
        int s = 0;
        try {
            for (int k = start; k < a.length; k += step) {
                s += a[k];
                a[k] = s;
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            return s + " " + e.getMessage();
        }
        return s + "";
    }

    String stridedRefs(Object[] a, int start, int step) {
        String s = "";
        try {
            for (int k = start; k < a.length; k += step) {
                s += a[k];
                a[k] = s;
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            return s + " " + e.getMessage();
        }
        return s;
    }

    int inclusive(int[] a) {
        int s = 0;
        try {
            for (int i = 0; i <= a.length; i++) {
                s += a[i];
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            s = -s;
        }
        return s;
    }

    int swapped(int[] a, int[] b) {
        int s = 0;
        int n = a.length;
        try {
            for (int i = 0; i < n; i++) {
                s += a[i];
                a = b;
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            s = -s;
        }
        return s;
    }

    int stepped(int[] a) {
        int s = 0;
        try {
            for (int i = 0; i < a.length; i++) {
                i++;
                s += a[i];
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            s = -s;
        }
        return s;
    }

    int next(int[] a) {
        int s = 0;
        try {
            for (int i = 0; i < a.length; i++) {
                s += a[i + 1];
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            s = -s;
        }
        return s;
    }

    // Overrides every method (and so do two more classes below): the
    // calls in `main` have four implementations, more than a JIT inlines
    // behind guards, so each method is compiled on its own, not inlined.
    static class Other extends Ranges {
        int upTo(int[] a) { return 0; }
        long forEach(long[] a) { return 0; }
        int downTo(int[] a) { return 0; }
        void pairs(int[] a) { }
        int allocated(int n) { return 0; }
        int sieve(int n) { return 0; }
        String strided(int[] a, int start, int step) { return ""; }
        String stridedRefs(Object[] a, int start, int step) { return ""; }
        int grown(int n) { return 0; }
        int inclusive(int[] a) { return 0; }
        int swapped(int[] a, int[] b) { return 0; }
        int stepped(int[] a) { return 0; }
        int next(int[] a) { return 0; }
        int field() { return 0; }
        int fieldStored(int[] b) { return 0; }
        void shrink(int i, int[] b) { }
        int fieldCalled(int[] b) { return 0; }
        int volatileField() { return 0; }
    }

    static class Second extends Other {
        int upTo(int[] a) { return 0; }
        long forEach(long[] a) { return 0; }
        int downTo(int[] a) { return 0; }
        void pairs(int[] a) { }
        int allocated(int n) { return 0; }
        int sieve(int n) { return 0; }
        String strided(int[] a, int start, int step) { return ""; }
        String stridedRefs(Object[] a, int start, int step) { return ""; }
        int grown(int n) { return 0; }
        int inclusive(int[] a) { return 0; }
        int swapped(int[] a, int[] b) { return 0; }
        int stepped(int[] a) { return 0; }
        int next(int[] a) { return 0; }
        int field() { return 0; }
        int fieldStored(int[] b) { return 0; }
        void shrink(int i, int[] b) { }
        int fieldCalled(int[] b) { return 0; }
        int volatileField() { return 0; }
    }

    static class Third extends Other {
        int upTo(int[] a) { return 0; }
        long forEach(long[] a) { return 0; }
        int downTo(int[] a) { return 0; }
        void pairs(int[] a) { }
        int allocated(int n) { return 0; }
        int sieve(int n) { return 0; }
        String strided(int[] a, int start, int step) { return ""; }
        String stridedRefs(Object[] a, int start, int step) { return ""; }
        int grown(int n) { return 0; }
        int inclusive(int[] a) { return 0; }
        int swapped(int[] a, int[] b) { return 0; }
        int stepped(int[] a) { return 0; }
        int next(int[] a) { return 0; }
        int field() { return 0; }
        int fieldStored(int[] b) { return 0; }
        void shrink(int i, int[] b) { }
        int fieldCalled(int[] b) { return 0; }
        int volatileField() { return 0; }
    }

    public static void main(String[] args) {
        Ranges other = new Other();
        Object second = new Second();
        Object third = new Third();
        other.pairs(null);
        Ranges r = new Ranges();
        int[] a = {1, 2, 3, 4, 5};
        long[] l = {1, 2, 3};
        r.pairs(a);
        System.out.println(r.upTo(a) + " " + r.forEach(l) + " " + r.downTo(a) + " " + r.inclusive(a) + " "
                + r.swapped(a, new int[2]) + " " + r.stepped(a) + " " + r.next(a) + " " + r.allocated(7) + " "
                + r.grown(7));
        int[] c = {1, 2, 3, 4, 5};
        r.v = c;
        r.w = c;
        int f = r.field();
        int vf = r.volatileField();
        int fs = r.fieldStored(new int[2]);
        r.v = c;
        int fc = r.fieldCalled(new int[2]);
        // The field replaced by a 2-element array at i == 3: v[3] throws
        // after 1 + 2 + 3.
        if (f != 15 || vf != 15 || fs != -6 || fc != -6) {
            throw new Error(f + " " + vf + " " + fs + " " + fc);
        }
        // The primes below 5000, and strides: every other element, a
        // negative start, a step that wraps past Integer.MAX_VALUE.
        String[] strides = {
            r.strided(new int[] {1, 2, 3, 4, 5}, 0, 2),
            r.strided(new int[] {1, 2, 3, 4, 5}, -3, 1),
            r.strided(new int[] {1, 2, 3, 4, 5}, 1, Integer.MAX_VALUE),
            r.stridedRefs(new Object[] {"a", "b", "c", "d"}, 1, 2),
            r.stridedRefs(new Object[] {"a", "b", "c", "d"}, 2, Integer.MAX_VALUE),
        };
        String want = "9|0 Index -3 out of bounds for length 5|2 Index -2147483648 out of bounds for length 5"
            + "|bd|c Index -2147483647 out of bounds for length 4";
        String got = strides[0] + "|" + strides[1] + "|" + strides[2] + "|" + strides[3] + "|" + strides[4];
        if (r.sieve(5000) != 669 || !got.equals(want)) {
            throw new Error(r.sieve(5000) + " " + got);
        }
    }
}
"#;

#[test]
fn counted_loops_have_no_bounds_check_and_near_misses_keep_it() {
    let dir = harness::scratch_dir("fastpath-vm-jit-ranges");
    harness::javac_sources(&dir, &dir, &[("Ranges", PROGRAM)]);
    let vm = harness::run_xcomp_in_process(&dir, "Ranges");
    let throw_index = harness::helper_table(vm).addr(Helper::ThrowIndex) as u64;
    let checks = |name: &str, desc: &str| {
        let code = harness::compiled_code(vm, "Ranges", name, desc).1;
        let listing: String = code.iter().map(|i| format!("{:x}: {i}\n", i.ip())).collect();
        (harness::calls_to(&code, throw_index), listing)
    };
    for (name, desc) in [
        ("upTo", "([I)I"),
        ("forEach", "([J)J"),
        ("downTo", "([I)I"),
        ("pairs", "([I)V"),
        ("allocated", "(I)I"),
        ("field", "()I"),
    ] {
        let (n, listing) = checks(name, desc);
        assert_eq!(n, 0, "{name} keeps {n} bounds checks:\n{listing}");
    }
    // Below the length, sign unknown: the sign test throws, and the
    // sieve's inner access has no null check (nor has the rest of it).
    let throw_npe = harness::helper_table(vm).addr(Helper::ThrowNpe) as u64;
    for (name, desc) in [
        ("sieve", "(I)I"),
        ("strided", "([III)Ljava/lang/String;"),
        ("stridedRefs", "([Ljava/lang/Object;II)Ljava/lang/String;"),
    ] {
        let (n, listing) = checks(name, desc);
        assert!(n >= 1, "{name} lost its sign check:\n{listing}");
    }
    let sieve = harness::compiled_code(vm, "Ranges", "sieve", "(I)I").1;
    let npes = harness::calls_to(&sieve, throw_npe);
    assert_eq!(
        npes,
        0,
        "sieve keeps {npes} null checks:\n{}",
        harness::listing(&sieve)
    );
    for (name, desc) in [
        ("inclusive", "([I)I"),
        ("swapped", "([I[I)I"),
        ("stepped", "([I)I"),
        ("next", "([I)I"),
        ("grown", "(I)I"),
        ("fieldStored", "([I)I"),
        ("fieldCalled", "([I)I"),
        ("volatileField", "()I"),
    ] {
        let (n, listing) = checks(name, desc);
        assert!(n >= 1, "{name} lost its bounds check:\n{listing}");
    }
}
