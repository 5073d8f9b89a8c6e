//! The decoder check of null-check elimination across the JIT's cold
//! stops and around loops (`jit/facts.rs`'s frame-variable facts,
//! `jit/loop_vars.rs`): a reference the method has already checked keeps
//! no null check (no call of the `NullPointerException` helper) after a
//! call that spills and reloads it, after an allocation whose slow path
//! joins the hot one, inside and after a `synchronized` block on it (one
//! whose lock a loop keeps across rounds too), in a loop that loads
//! the local and never stores it, after a call inlined behind guards, and
//! after a join whose one way called (`Translator::lift_local_facts`); a loop that
//! replaces the local keeps its check, and throws where the interpreter
//! throws (`main` checks the results and fails the run otherwise).
//!
//! One VM in this process (`-Xcomp`), whose methods' installed code is read
//! back and decoded with iced-x86 (`harness::compiled_code`).

#![cfg(target_arch = "x86_64")]

use crate::harness;

use fastpath_vm::jit::helpers::Helper;

const PROGRAM: &str = r#"
public class Nulls {
    int x;
    int y;
    Nulls next;

    // Not inlined (overridden below): a call the caller spills around.
    int touch(int k) {
        return k + 1;
    }

    int called(Nulls b, int k) {
        int s = b.x;
        s += touch(k);
        s += b.y;
        b.x = s;
        return s;
    }

    int allocated(Nulls b, int n) {
        int s = b.x;
        int[] a = new int[n];
        s += a.length + b.y;
        Nulls c = new Nulls();
        c.x = s;
        b.next = c;
        return b.x + c.x;
    }

    int locked(Nulls b) {
        int s = b.x;
        synchronized (b) {
            b.y++;
            s += b.y;
        }
        return s + b.x;
    }

    int invariant(Nulls b, int n) {
        int s = b.x;
        for (int i = 0; i < n; i++) {
            s += b.y;
            b.x = s;
        }
        return s;
    }

    // The lock kept across the loop's rounds (coarsened): its re-entry's
    // and exit's ways join without losing what is known of `b`.
    int coarsened(Nulls b, int n) {
        int s = b.x;
        for (int i = 0; i < n; i++) {
            synchronized (b) {
                s += b.y;
            }
            s += b.x;
        }
        return s;
    }

    // The same, `b` first checked as the loop's lock, and an allocation
    // (a stop on its slow path) between the re-entry and the body's read
    // of it: that read checks nothing again.
    int lockedFirst(Nulls b, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            synchronized (b) {
                s += new int[i & 3].length;
                s += b.y;
            }
            s += i;
        }
        return s;
    }

    static abstract class Shape {
        abstract int sides();
    }

    static final class Square extends Shape {
        int sides() {
            return 4;
        }
    }

    static final class Triangle extends Shape {
        int sides() {
            return 3;
        }
    }

    // A call inlined behind guards (two implementations loaded), its miss
    // a call: every way into the join after it keeps `b` checked.
    int guarded(Nulls b, Shape s) {
        int t = b.x;
        t += s.sides();
        return t + b.y;
    }

    // A join after a call on one way only (`touch` has four
    // implementations: a call): `b`, checked before the ternary, is a
    // reloaded value on one way and the checked one on the other.
    int joined(Nulls b, Nulls c, int k) {
        int t = b.x;
        int u = c == null ? 0 : c.touch(k);
        return t + u + b.y;
    }

    int replaced(Nulls b, Nulls c, int n) {
        int s = b.x;
        try {
            for (int i = 0; i < n; i++) {
                s += b.y;
                b = c;
            }
        } catch (NullPointerException e) {
            s = -s;
        }
        return s;
    }

    // Overrides every method (and so do two more classes below): the
    // calls in `main` have four implementations, more than a JIT inlines
    // behind guards, so each method is compiled on its own, not inlined.
    static class Other extends Nulls {
        int touch(int k) { return 0; }
        int called(Nulls b, int k) { return 0; }
        int allocated(Nulls b, int n) { return 0; }
        int locked(Nulls b) { return 0; }
        int invariant(Nulls b, int n) { return 0; }
        int coarsened(Nulls b, int n) { return 0; }
        int lockedFirst(Nulls b, int n) { return 0; }
        int replaced(Nulls b, Nulls c, int n) { return 0; }
        int guarded(Nulls b, Shape s) { return 0; }
        int joined(Nulls b, Nulls c, int k) { return 0; }
    }

    static class Second extends Other {
        int touch(int k) { return 0; }
        int called(Nulls b, int k) { return 0; }
        int allocated(Nulls b, int n) { return 0; }
        int locked(Nulls b) { return 0; }
        int invariant(Nulls b, int n) { return 0; }
        int coarsened(Nulls b, int n) { return 0; }
        int lockedFirst(Nulls b, int n) { return 0; }
        int replaced(Nulls b, Nulls c, int n) { return 0; }
        int guarded(Nulls b, Shape s) { return 0; }
        int joined(Nulls b, Nulls c, int k) { return 0; }
    }

    static class Third extends Other {
        int touch(int k) { return 0; }
        int called(Nulls b, int k) { return 0; }
        int allocated(Nulls b, int n) { return 0; }
        int locked(Nulls b) { return 0; }
        int invariant(Nulls b, int n) { return 0; }
        int coarsened(Nulls b, int n) { return 0; }
        int lockedFirst(Nulls b, int n) { return 0; }
        int replaced(Nulls b, Nulls c, int n) { return 0; }
        int guarded(Nulls b, Shape s) { return 0; }
        int joined(Nulls b, Nulls c, int k) { return 0; }
    }

    public static void main(String[] args) {
        Nulls other = new Other();
        Object second = new Second();
        Object third = new Third();
        other.touch(0);
        Nulls r = new Nulls();
        Nulls b = new Nulls();
        b.x = 1;
        b.y = 2;
        int called = r.called(b, 5);            // 1 + 6 + 2 = 9, b.x = 9
        int allocated = r.allocated(b, 3);      // 9 + 3 + 2 = 14; 9 + 14
        int locked = r.locked(b);               // 9 + 3, then + 9
        int invariant = r.invariant(b, 4);      // 9 + 3 + 3 + 3 + 3
        int coarsened = r.coarsened(b, 4);      // 21 + 4 * (3 + 21)
        int lockedFirst = r.lockedFirst(b, 4);  // 2 * (0 + 1 + 2 + 3) + 4 * 3
        int replaced = r.replaced(b, null, 3);  // 21 + 3, then c.y throws
        Shape triangle = new Triangle();
        int guarded = r.guarded(b, new Square()) + r.guarded(b, triangle); // 21 + 4 + 3, 21 + 3 + 3
        int joined = r.joined(b, null, 5) + r.joined(b, r, 5); // 21 + 0 + 3, 21 + 6 + 3
        String got = called + " " + allocated + " " + locked + " " + invariant + " " + coarsened + " " + lockedFirst
                + " " + replaced + " " + guarded + " " + joined;
        if (!got.equals("9 23 21 21 117 24 -24 55 54")) {
            throw new Error(got);
        }
    }
}
"#;

#[test]
fn checked_references_keep_no_null_check_across_stops_and_loops() {
    let dir = harness::scratch_dir("fastpath-vm-jit-nulls");
    harness::javac_sources(&dir, &dir, &[("Nulls", PROGRAM)]);
    let vm = harness::run_xcomp_in_process(&dir, "Nulls");
    let throw_npe = harness::helper_table(vm).addr(Helper::ThrowNpe) as u64;
    let checks = |name: &str, desc: &str| {
        let code = harness::compiled_code(vm, "Nulls", name, desc).1;
        (harness::calls_to(&code, throw_npe), harness::listing(&code))
    };
    // Each method's parameter `b` is checked once, at its first use; the
    // array and the object it allocates are never null.
    for (name, desc) in [
        ("called", "(LNulls;I)I"),
        ("allocated", "(LNulls;I)I"),
        ("invariant", "(LNulls;I)I"),
    ] {
        let (n, listing) = checks(name, desc);
        assert_eq!(n, 1, "{name} has {n} null checks, not b's one:\n{listing}");
    }
    // `b`'s, and two in javac's catch-all handler that releases the lock
    // and rethrows: a handler starts knowing nothing (it is entered from
    // every instruction it covers), so its `monitorexit` on the local copy
    // and its `athrow` check. The enter, the body and the exit check none.
    let (n, listing) = checks("locked", "(LNulls;)I");
    assert_eq!(
        n, 3,
        "locked has {n} null checks, not b's and the handler's two:\n{listing}"
    );
    // The same three in a loop whose lock is kept across rounds: the
    // re-entry (its object compared with the kept lock, a real enter on
    // a cold way) and the exit (kept or released) check nothing again.
    let (n, listing) = checks("coarsened", "(LNulls;I)I");
    assert_eq!(
        n, 3,
        "coarsened has {n} null checks, not b's and the handler's two:\n{listing}"
    );
    // `b` checked first at the loop's re-entry: that check (each time
    // round: nothing before the loop knew it) and the handler's two; the
    // body's `b.y`, after the re-entry's join and the allocation's stop,
    // none.
    let (n, listing) = checks("lockedFirst", "(LNulls;I)I");
    assert_eq!(
        n, 3,
        "lockedFirst has {n} null checks, not the re-entry's and the handler's two:\n{listing}"
    );
    // `b` checked at `b.x` and `s` as the receiver, once each: the ways
    // into the join after the guarded call (each inlined implementation
    // and the miss's call) all keep `b` checked.
    let (n, listing) = checks("guarded", "(LNulls;LNulls$Shape;)I");
    assert_eq!(n, 2, "guarded has {n} null checks, not b's and s's:\n{listing}");
    // `b`'s alone: the ternary's join after `c.touch(k)` on one way keeps
    // it (`c` is tested by the ternary itself, no null check).
    let (n, listing) = checks("joined", "(LNulls;LNulls;I)I");
    assert_eq!(n, 1, "joined has {n} null checks, not b's one:\n{listing}");
    // `b = c` in the loop: the loop's `b.y` is checked each time round.
    let (n, listing) = checks("replaced", "(LNulls;LNulls;I)I");
    assert!(n >= 2, "replaced lost its loop's null check:\n{listing}");
}
