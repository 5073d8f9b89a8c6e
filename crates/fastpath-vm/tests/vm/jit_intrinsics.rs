//! The JIT's intrinsics in compiled code (x86-64), decoded and run: a
//! `System.arraycopy` of a primitive array is inline.
//!
//! One VM in this process (`-Xcomp`, the default Shenandoah barrier set)
//! runs a program that copies `int[]` and `char[]` ranges from compiled
//! methods and checks every result itself (status 0 only when each copy,
//! short, long and overlapping, is right). Then the methods' installed
//! code, read back through `Jit::code_range` and decoded with iced-x86:
//! a copy of a constant 3 ints has a path from the entry to the return
//! that calls nothing; a copy of a variable length has a path to the
//! return that calls nothing (short) and one whose only call is the
//! intrinsic's memmove routine (long); neither path calls the runtime's
//! `Invoke` helper, through which the native `arraycopy` is called (only
//! the cold fallback does). The program also checks `String.hashCode`
//! (another intrinsic) against the recurrence at lengths 0..40, and
//! `Character.digit` (the third: inline below code point 128, a leaf call
//! above) at every code point below 0x600 in radixes inside and outside
//! 2..=36; its compiled methods call neither the library's method nor
//! anything on an ASCII code point's path. `String.indexOf(int, int)`
//! (the fourth: a leaf call of a word-at-a-time scan) is checked against a
//! plain loop at lengths 0..40 from every start and on surrogate pairs; its
//! compiled method has a path to the return whose only call is the scan.
//! `String.equals(Object)` (the fifth: inline tests, then a leaf call's
//! compare) is checked on equal, different, longer, null and non-string
//! arguments; its compiled method has a path to the return whose only call
//! is the compare and one that calls nothing. A new `char[]` that an
//! `arraycopy` fills (`fill.rs`) has a path to the return with no 16-byte
//! zeroing store and no call but memmove.

#![cfg(target_arch = "x86_64")]

use crate::harness;

use fastpath_vm::jit::helpers::Helper;
use iced_x86::{Instruction, Mnemonic, OpKind};

const PROGRAM: &str = r#"
public class Copies {
    // Instance methods overridden in three loaded subclasses: their calls
    // have four implementations, more than a JIT inlines behind guards,
    // so each is compiled on its own.
    void three(int[] a, int[] b) {
        System.arraycopy(a, 1, b, 0, 3);
    }

    void chars(char[] a, int from, char[] b, int to, int n) {
        System.arraycopy(a, from, b, to, n);
    }

    int digitChar(char c, int radix) {
        return Character.digit(c, radix);
    }

    int digitInt(int cp, int radix) {
        return Character.digit(cp, radix);
    }

    int find(String s, int ch, int from) {
        return s.indexOf(ch, from);
    }

    boolean same(String s, Object o) {
        return s.equals(o);
    }

    // A new array that the copy fills from element 0 (`fill.rs`): not
    // zeroed where the copy writes it.
    char[] fresh(char[] v, int n) {
        char[] r = new char[n];
        System.arraycopy(v, 0, r, 0, n);
        return r;
    }

    /** Character.digit's value for every code point below 0x600 (none
     *  above 127 is a digit or a letter with a digit value). */
    static int expectedDigit(int cp, int radix) {
        if (radix < 2 || radix > 36) {
            return -1;
        }
        int d = -1;
        if (cp >= '0' && cp <= '9') {
            d = cp - '0';
        } else if (cp >= 'a' && cp <= 'z') {
            d = cp - 'a' + 10;
        } else if (cp >= 'A' && cp <= 'Z') {
            d = cp - 'A' + 10;
        }
        return d < radix ? d : -1;
    }

    static class Other extends Copies {
        @Override
        void three(int[] a, int[] b) {
        }

        @Override
        int digitChar(char c, int radix) {
            return -2;
        }

        @Override
        int digitInt(int cp, int radix) {
            return -2;
        }

        @Override
        int find(String s, int ch, int from) {
            return -2;
        }

        @Override
        boolean same(String s, Object o) {
            return false;
        }

        @Override
        char[] fresh(char[] v, int n) {
            return null;
        }

        @Override
        void chars(char[] a, int from, char[] b, int to, int n) {
        }
    }

    static class Second extends Other {
        @Override
        boolean same(String s, Object o) {
            return true;
        }

        @Override
        char[] fresh(char[] v, int n) {
            return v;
        }

        @Override
        void three(int[] a, int[] b) {
        }

        @Override
        int digitChar(char c, int radix) {
            return -2;
        }

        @Override
        int digitInt(int cp, int radix) {
            return -2;
        }

        @Override
        void chars(char[] a, int from, char[] b, int to, int n) {
        }
    }

    static class Third extends Other {
        @Override
        boolean same(String s, Object o) {
            return true;
        }

        @Override
        char[] fresh(char[] v, int n) {
            return v;
        }

        @Override
        void three(int[] a, int[] b) {
        }

        @Override
        int digitChar(char c, int radix) {
            return -2;
        }

        @Override
        int digitInt(int cp, int radix) {
            return -2;
        }

        @Override
        void chars(char[] a, int from, char[] b, int to, int n) {
        }
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    public static void main(String[] args) {
        Copies other = new Other();
        Object second = new Second();
        Object third = new Third();
        other.three(null, null);
        other.chars(null, 0, null, 0, 0);
        check(other.digitChar('1', 10) == -2 && other.digitInt('1', 10) == -2 && other.find("", 0, 0) == -2, "the override");
        check(!other.same("", "") && other.fresh(null, 0) == null, "the overrides of same and fresh");
        check(((Copies) second).same("a", "b") && ((Copies) third).same("a", "b"), "the other overrides");
        Copies c = new Copies();
        int[] a = {10, 11, 12, 13, 14};
        int[] b = new int[4];
        c.three(a, b);
        check(b[0] == 11 && b[1] == 12 && b[2] == 13 && b[3] == 0, "three");
        // Every char count 0..72 (0 to 144 bytes: each inline tier, its
        // ends, and the memmove routine past 128 bytes).
        for (int n = 0; n <= 72; n++) {
            char[] src = new char[80];
            for (int i = 0; i < src.length; i++) {
                src[i] = (char) (i * 40961 + n);
            }
            char[] dst = new char[80];
            c.chars(src, 5, dst, 3, n);
            for (int i = 0; i < dst.length; i++) {
                check(dst[i] == (i >= 3 && i < 3 + n ? src[i + 2] : 0), "chars " + n + " at " + i);
            }
            // Overlapping, forward and backward.
            char[] same = src.clone();
            c.chars(same, 2, same, 4, n);
            for (int i = 4; i < 4 + n; i++) {
                check(same[i] == src[i - 2], "forward " + n + " at " + i);
            }
            same = src.clone();
            c.chars(same, 6, same, 1, n);
            for (int i = 1; i < 1 + n; i++) {
                check(same[i] == src[i + 5], "backward " + n + " at " + i);
            }
        }
        boolean threw = false;
        try {
            c.chars(new char[2], 1, new char[2], 0, 2);
        } catch (ArrayIndexOutOfBoundsException e) {
            threw = e.getMessage().equals("arraycopy: last source index 3 out of bounds for char[2]");
        }
        check(threw, "the out-of-bounds copy's exception");
        // String.hashCode (an intrinsic too) against the recurrence, at
        // every length 0..40 (each a fresh string: computed, then cached).
        StringBuilder text = new StringBuilder();
        for (int n = 0; n <= 40; n++) {
            String s = new String(text);
            int h = 0;
            for (int i = 0; i < s.length(); i++) {
                h = 31 * h + s.charAt(i);
            }
            check(s.hashCode() == h && s.hashCode() == h, "hash of length " + n);
            text.append((char) (n * 7919 + 33));
        }
        // Character.digit (an intrinsic: inline below 128, a leaf call
        // above) at every code point below 0x600 in every radix around the
        // valid ones, and at code points no char can hold.
        int[] radixes = {Integer.MIN_VALUE, -1, 0, 1, 2, 3, 8, 9, 10, 11, 16, 35, 36, 37, 100, Integer.MAX_VALUE};
        for (int cp = 0; cp < 0x600; cp++) {
            for (int r : radixes) {
                int e = expectedDigit(cp, r);
                check(c.digitChar((char) cp, r) == e, "digit(char " + cp + ", " + r + ")");
                check(c.digitInt(cp, r) == e, "digit(int " + cp + ", " + r + ")");
            }
        }
        int[] odd = {-1, -48, Integer.MIN_VALUE, 0x10ffff, 0x110000, Integer.MAX_VALUE};
        for (int cp : odd) {
            check(c.digitInt(cp, 10) == -1 && c.digitInt(cp, 36) == -1, "digit(int " + cp + ")");
        }
        check(Integer.parseInt("-7fffffff", 16) == -Integer.MAX_VALUE && Integer.parseInt("zZ", 36) == 36 * 35 + 35,
            "parseInt through the intrinsic");
        // String.indexOf(int, int) (a leaf call's scan) against a plain
        // loop: every length 0..40, the char at every place, every start,
        // and surrogate pairs, lone surrogates, code points never found.
        for (int n = 0; n <= 40; n++) {
            char[] cs = new char[n];
            for (int i = 0; i < n; i++) {
                cs[i] = (char) ('a' + i % 13);
            }
            for (int at = -1; at < n; at++) {
                if (at >= 0) {
                    cs[at] = ',';
                }
                String s = new String(cs);
                for (int from = -2; from <= n + 1; from++) {
                    int e = -1;
                    for (int i = Math.max(from, 0); i < n; i++) {
                        if (cs[i] == ',') {
                            e = i;
                            break;
                        }
                    }
                    check(c.find(s, ',', from) == e, "indexOf(',', " + from + ") at " + at + " of " + n);
                }
                if (at >= 0) {
                    cs[at] = (char) ('a' + at % 13);
                }
            }
        }
        String sup = "x\ud83dabc\ud83d\ude00z\ud83d";
        check(c.find(sup, 0x1f600, 0) == 5 && c.find(sup, 0x1f600, 6) == -1 && c.find(sup, 0xd83d, 2) == 5
            && c.find(sup, 0xde00, -9) == 6 && c.find(sup, 0x110000, 0) == -1 && c.find(sup, -1, 0) == -1
            && c.find(sup, 'z', Integer.MAX_VALUE) == -1 && c.find(sup, 'z', Integer.MIN_VALUE) == 7,
            "indexOf of code points");
        boolean npe = false;
        try {
            c.find(null, 'a', 0);
        } catch (NullPointerException e) {
            npe = true;
        }
        check(npe, "indexOf on null");
        // String.equals (a leaf call's compare after inline tests): every
        // length 0..40 against itself, a copy, a copy one char different
        // at every place (low and high byte), one longer, and non-strings.
        StringBuilder grow = new StringBuilder();
        for (int n = 0; n <= 40; n++) {
            String s = grow.toString();
            String t = new String(s.toCharArray());
            check(c.same(s, s) && c.same(s, t) && c.same(t, s), "equals of length " + n);
            check(!c.same(s, t + "x") && !c.same(s + "x", t), "equals of lengths " + n + ", " + (n + 1));
            check(!c.same(s, null) && !c.same(s, grow) && !c.same(s, s.toCharArray()), "equals of non-strings");
            for (int i = 0; i < n; i++) {
                for (int flip : new int[] {1, 0x100}) {
                    char[] d = s.toCharArray();
                    d[i] ^= (char) flip;
                    check(!c.same(s, new String(d)), "equals differing at " + i + " of " + n);
                }
            }
            grow.append((char) ('a' + n % 26 + (n % 3) * 0x100));
        }
        boolean sameNpe = false;
        try {
            c.same(null, "a");
        } catch (NullPointerException e) {
            sameNpe = true;
        }
        check(sameNpe, "equals on null");
        // A fresh array filled by the copy: every length, and the copy's
        // exceptions (the array is dropped with them).
        char[] letters = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ".toCharArray();
        for (int n = 0; n <= 40; n++) {
            char[] r = c.fresh(letters, n);
            check(r.length == n && new String(r).equals(new String(letters, 0, n)), "fresh of " + n);
        }
        boolean freshThrew = false;
        try {
            c.fresh(letters, letters.length + 1);
        } catch (ArrayIndexOutOfBoundsException e) {
            freshThrew = e.getMessage().equals("arraycopy: last source index 47 out of bounds for char[46]");
        }
        check(freshThrew, "the fresh copy's exception");
        System.out.println("copies ok");
    }
}
"#;

/// The address each call in `code` calls: a direct call's target, or the
/// constant last moved into an indirect call's register; `None` for a
/// call through memory or a register not set from a constant.
fn call_target(code: &[Instruction], k: usize) -> Option<u64> {
    let call = &code[k];
    match call.op0_kind() {
        OpKind::Register => {
            let r = call.op0_register();
            let set = code[..k]
                .iter()
                .rev()
                .find(|i| i.op0_register() == r && i.op_count() > 0)?;
            (set.mnemonic() == Mnemonic::Mov && set.op1_kind() == OpKind::Immediate64)
                .then(|| set.immediate64())
        }
        OpKind::NearBranch64 => Some(call.near_branch_target()),
        _ => None,
    }
}

/// Whether some path from the entry to a `ret` (each conditional branch
/// taken either way) passes only instructions `allowed` accepts (by index).
fn path_through(code: &[Instruction], allowed: &dyn Fn(usize) -> bool) -> bool {
    let succ = harness::successors(code);
    let mut seen = vec![false; code.len()];
    let mut stack = vec![0usize];
    while let Some(k) = stack.pop() {
        if k >= code.len() || seen[k] || !allowed(k) {
            continue;
        }
        seen[k] = true;
        if code[k].mnemonic() == Mnemonic::Ret {
            return true;
        }
        stack.extend(succ[k].iter().copied());
    }
    false
}

/// A store of 16 bytes (the allocation's vector zeroing, `emit.rs`).
fn wide_store(i: &Instruction) -> bool {
    i.op_count() == 2 && i.op0_kind() == OpKind::Memory && i.memory_size().size() == 16
}

#[test]
fn compiled_primitive_arraycopy_calls_no_native() {
    let dir = harness::scratch_dir("fastpath-vm-jit-intrinsics");
    harness::javac_sources(&dir, &dir, &[("Copies", PROGRAM)]);
    // Status 0: every copy's result was checked by the program.
    let vm = harness::run_xcomp_in_process(&dir, "Copies");

    let invoke = harness::helper_table(vm).addr(Helper::Invoke) as u64;
    let memmove = fastpath_vm::jit::intrinsics::conjoint_copy
        as unsafe extern "C" fn(*mut u8, *const u8, usize) as usize as u64;

    let (_, three) = harness::compiled_code(vm, "Copies", "three", "([I[I)V");
    let shown = harness::listing(&three);
    assert!(
        harness::path_to_ret(&three, &|_| false, false),
        "every path through a copy of 3 ints calls something:\n{shown}"
    );
    let calls_invoke = |code: &[Instruction]| {
        (0..code.len()).any(|k| harness::is_call(&code[k]) && call_target(code, k) == Some(invoke))
    };
    assert!(
        calls_invoke(&three),
        "the copy of 3 ints has no call of the native (its cold fallback) to tell apart:\n{shown}"
    );

    let (_, chars) = harness::compiled_code(vm, "Copies", "chars", "([CI[CII)V");
    let shown = harness::listing(&chars);
    assert!(
        harness::path_to_ret(&chars, &|_| false, false),
        "every path through a variable char[] copy calls something (no inline short copy):\n{shown}"
    );
    let only_memmove = |k: usize| call_target(&chars, k) == Some(memmove);
    assert!(
        harness::path_to_ret(&chars, &only_memmove, true),
        "no path through a variable char[] copy calls the memmove routine and nothing else:\n{shown}"
    );
    // The native is there, off both paths (each path above calls at most
    // the memmove routine).
    assert!(
        calls_invoke(&chars),
        "the variable char[] copy has no cold call of the native:\n{shown}"
    );

    // `String.indexOf(int, int)`: no call of the runtime's `Invoke` on
    // the way to the return (the library's method only from the cold
    // block of a string under construction), and a path whose only call
    // is the scan's leaf routine.
    let scan = fastpath_vm::jit::index_of::string_index_of
        as unsafe extern "C" fn(*const u16, usize, i64, i64) -> i32 as usize as u64;
    let (_, find) = harness::compiled_code(vm, "Copies", "find", "(Ljava/lang/String;II)I");
    let shown = harness::listing(&find);
    let only_scan = |k: usize| call_target(&find, k) == Some(scan);
    assert!(
        harness::path_to_ret(&find, &only_scan, true),
        "no path through find calls the string_index_of routine and nothing else:\n{shown}"
    );
    assert!(
        (0..find.len()).any(|k| harness::is_call(&find[k]) && call_target(&find, k) == Some(scan)),
        "find does not call the string_index_of routine:\n{shown}"
    );

    // `String.equals`: a path to the return whose only call is the
    // comparison's leaf routine, and none through the runtime's `Invoke`
    // but from the cold block of a string under construction.
    let chars_equal = fastpath_vm::jit::string_equals::chars_equal
        as unsafe extern "C" fn(*const u16, *const u16, usize) -> i32 as usize as u64;
    let (_, same) = harness::compiled_code(vm, "Copies", "same", "(Ljava/lang/String;Ljava/lang/Object;)Z");
    let shown = harness::listing(&same);
    let only_compare = |k: usize| call_target(&same, k) == Some(chars_equal);
    assert!(
        harness::path_to_ret(&same, &only_compare, true),
        "no path through same calls the chars_equal routine and nothing else:\n{shown}"
    );
    assert!(
        harness::path_to_ret(&same, &|_| false, false),
        "every path through same calls something (no inline identity, null, class or length answer):\n{shown}"
    );

    // A new char[] the copy fills (`fill.rs`): a path from the entry to
    // the return that calls nothing but the memmove routine and stores no
    // 16 bytes (the allocation's zeroing); the fallback (the copy's cold
    // path) zeroes with them.
    let (_, fresh) = harness::compiled_code(vm, "Copies", "fresh", "([CI)[C");
    let shown = harness::listing(&fresh);
    let unzeroed = |k: usize| {
        let i = &fresh[k];
        !wide_store(i) && (!harness::is_call(i) || call_target(&fresh, k) == Some(memmove))
    };
    assert!(
        path_through(&fresh, &unzeroed),
        "every path through fresh zeroes the new array or calls more than memmove:\n{shown}"
    );
    assert!(
        fresh.iter().any(wide_store),
        "fresh has no 16-byte zeroing store (the copy's cold path zeroes the array):\n{shown}"
    );

    // `Character.digit`: a path from the entry to the return that calls
    // nothing (an ASCII code point), one whose only call is the leaf
    // routine's (a code point above 127), and no call of the runtime's
    // `Invoke` (through which the library's method would be called).
    let digit = fastpath_vm::jit::digit::character_digit as extern "C" fn(i64, i64) -> i32 as usize as u64;
    for (name, desc) in [("digitChar", "(CI)I"), ("digitInt", "(II)I")] {
        let (_, code) = harness::compiled_code(vm, "Copies", name, desc);
        let shown = harness::listing(&code);
        assert!(
            harness::path_to_ret(&code, &|_| false, false),
            "every path through {name} calls something:\n{shown}"
        );
        assert!(
            !calls_invoke(&code),
            "{name} calls the runtime's Invoke (Character.digit not replaced):\n{shown}"
        );
        let leaf = |k: usize| call_target(&code, k) == Some(digit);
        assert!(
            harness::path_to_ret(&code, &leaf, true),
            "no path through {name} calls the character_digit routine:\n{shown}"
        );
    }
}
