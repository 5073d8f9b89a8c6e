//! Natives that compiled code computes inline (`jit/math.rs`): `Math.sqrt`,
//! `StrictMath.sqrt`, the raw bit moves of `Double` and `Float`,
//! `Integer.numberOfLeadingZeros`, and `Math.abs`, `min` and `max` of `int`
//! and `long`.
//!
//! `Roots` prints the bits of each method's result on edge cases (signed
//! zeros, infinities, NaNs with payloads, subnormals, the largest and
//! smallest values) and on a spread of ordinary values, and checks the
//! results it can know exactly itself (perfect squares, `sqrt(2)`'s
//! correctly rounded bits). Its output under `-Xint`, where the natives
//! run, must equal its output under `-Xcomp`, where the inline code runs.
//! Then one VM in this process runs it under `-Xcomp` and the compiled
//! `root` and `toBits` are decoded with iced-x86: `root` has a `sqrtsd`
//! and a path from its entry to its return that calls nothing (no call of
//! the native through the runtime's `Invoke` helper), `toBits` such a path
//! too, `leading` an `lzcnt` where the CPU has LZCNT, and the `abs`,
//! `min` and `max` callers a conditional move for each and no call.

#![cfg(target_arch = "x86_64")]

use crate::harness;

use iced_x86::Mnemonic;

const PROGRAM: &str = r#"
public class Roots {
    static double root(double x) {
        return Math.sqrt(x);
    }

    static double strictRoot(double x) {
        return StrictMath.sqrt(x);
    }

    static long toBits(double x) {
        return Double.doubleToRawLongBits(x);
    }

    static double fromBits(long b) {
        return Double.longBitsToDouble(b);
    }

    static int leading(int x) {
        return Integer.numberOfLeadingZeros(x);
    }

    // As rootBits: `leading` is compiled on its own.
    static int leadingDeep(int x) {
        return leadingDeeper(x);
    }

    static int leadingDeeper(int x) {
        return leading(x);
    }

    static int absI(int x) {
        int r = Math.abs(x);
        return r;
    }

    static long absL(long x) {
        long r = Math.abs(x);
        return r;
    }

    static int minI(int a, int b) {
        int r = Math.min(a, b);
        return r;
    }

    static int maxI(int a, int b) {
        int r = Math.max(a, b);
        return r;
    }

    static long minL(long a, long b) {
        long r = Math.min(a, b);
        return r;
    }

    static long maxL(long a, long b) {
        long r = StrictMath.max(a, b);
        return r;
    }

    // As rootBits: the callees below two calls are compiled on their own
    // (each keeps its result in a local: bigger than a trivial method,
    // which is inlined at any depth).
    static long minMaxDeep(int a, int b, long c, long d) {
        return minMaxDeeper(a, b, c, d);
    }

    static long minMaxDeeper(int a, int b, long c, long d) {
        return minI(a, b) + 3L * maxI(a, b) + 5 * minL(c, d) + 7 * maxL(c, d) + 11 * absI(a) + 13 * absL(c);
    }

    static int floatToBits(float x) {
        return Float.floatToRawIntBits(x);
    }

    static float floatFromBits(int b) {
        return Float.intBitsToFloat(b);
    }

    // Two calls deep from main, as deep as a JIT nests inlined callees
    // (`MAX_INLINE_DEPTH`): root and toBits are called from main's
    // compiled code, and so compiled on their own.
    static long rootBits(double x) {
        return deeper(x);
    }

    static long deeper(double x) {
        return toBits(root(x));
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    public static void main(String[] args) {
        long[] edges = {
            0L, 0x8000000000000000L, 0x7ff0000000000000L, 0xfff0000000000000L,
            0x7ff8000000000000L, 0x7ff0000000000001L, 0xfff8000000000123L,
            1L, 0x000fffffffffffffL, 0x7fefffffffffffffL, 0x3ff0000000000000L,
            0xbff0000000000000L, 0x4000000000000000L, 0x0010000000000000L,
        };
        check(rootBits(4.0) == 0x4000000000000000L, "sqrt(4) two calls deep");
        StringBuilder out = new StringBuilder();
        for (long e : edges) {
            double d = fromBits(e);
            check(toBits(d) == e, "the raw bits of " + Long.toHexString(e) + " round trip");
            out.append(Long.toHexString(toBits(root(d)))).append(' ');
            out.append(Long.toHexString(toBits(strictRoot(d)))).append('\n');
        }
        long seed = 12345;
        for (int i = 0; i < 200; i++) {
            seed = seed * 6364136223846793005L + 1442695040888963407L;
            double d = fromBits(seed >>> 1);
            out.append(Long.toHexString(toBits(root(d)))).append('\n');
        }
        for (int i = 0; i <= 3000; i++) {
            check(root((double) i * i) == i, "sqrt of " + i + " squared");
        }
        check(toBits(root(2.0)) == 0x3ff6a09e667f3bcdL, "sqrt(2) correctly rounded");
        check(toBits(root(-0.0)) == 0x8000000000000000L, "sqrt(-0.0) is -0.0");
        check(Double.isNaN(root(-1.0)), "sqrt(-1) is NaN");
        int[] fedges = {0, 0x80000000, 0x7f800000, 0x7fc00000, 0x7f800001, 0xffc00123, 1, 0x3f800000};
        for (int e : fedges) {
            check(floatToBits(floatFromBits(e)) == e, "the raw float bits of " + Integer.toHexString(e) + " round trip");
            out.append(Integer.toHexString(floatToBits(floatFromBits(e) * 3.0f))).append('\n');
        }
        for (int e : new int[] {0, 1, -1, 0x8000, 0x7fffffff, 0x80000000, 12345678}) {
            out.append(leadingDeep(e)).append(' ').append(leading(e)).append('\n');
        }
        int[] ints = {0, 1, -1, 7, -7, 0x7fffffff, 0x80000000, 0x80000001, 123456789, -987654321};
        for (int a : ints) {
            out.append(absI(a)).append(' ');
            for (int b : ints) {
                out.append(minI(a, b)).append(' ').append(maxI(a, b)).append(' ');
            }
            out.append('\n');
        }
        check(absI(0x80000000) == 0x80000000, "abs(MIN_VALUE) is MIN_VALUE");
        out.append(minMaxDeep(-3, 4, -5L, 6L)).append(' ').append(minMaxDeep(9, -8, 0x8000000000000000L, 2L)).append('\n');
        long[] longs = {0L, 1L, -1L, 0x7fffffffffffffffL, 0x8000000000000000L, 0x8000000000000001L,
            0x100000000L, -0x100000000L, 0xffffffffL, -5L};
        for (long a : longs) {
            out.append(absL(a)).append(' ');
            for (long b : longs) {
                out.append(minL(a, b)).append(' ').append(maxL(a, b)).append(' ');
            }
            out.append('\n');
        }
        check(absL(0x8000000000000000L) == 0x8000000000000000L, "abs(Long.MIN_VALUE) is MIN_VALUE");
        System.out.print(out);
        System.out.println("roots ok");
    }
}
"#;

#[test]
fn inline_natives_match_the_natives_and_call_nothing() {
    const { assert!(fastpath_vm::jit::inlining::MAX_INLINE_DEPTH == 2) };
    let dir = harness::scratch_dir("fastpath-vm-jit-math");
    harness::javac_sources(&dir, &dir, &[("Roots", PROGRAM)]);
    let (interpreted, _) = harness::run_in_tier(&dir, "Roots", (&[], &["-Xint"]), &[]);
    let (compiled, _) = harness::run_in_tier(&dir, "Roots", (&[], &["-Xcomp"]), &[]);
    assert!(interpreted.ends_with("roots ok\n"), "{interpreted}");
    assert_eq!(
        compiled, interpreted,
        "-Xcomp's results against the natives' (-Xint)"
    );

    let vm = harness::run_xcomp_in_process(&dir, "Roots");
    let (_, root) = harness::compiled_code(vm, "Roots", "root", "(D)D");
    let shown = harness::listing(&root);
    assert!(
        // `vsqrtsd` where the CPU has AVX (the JIT's ISA takes the CPU's extensions).
        root.iter()
            .any(|i| matches!(i.mnemonic(), Mnemonic::Sqrtsd | Mnemonic::Vsqrtsd)),
        "no sqrtsd in the compiled Math.sqrt call:\n{shown}"
    );
    assert!(
        harness::path_to_ret(&root, &|_| false, false),
        "every path through the compiled Math.sqrt call calls something:\n{shown}"
    );
    // `Integer.numberOfLeadingZeros` is one `lzcnt` where the CPU has it
    // (the JIT's ISA takes LZCNT from the CPU identification), else `bsr`.
    let (_, leading) = harness::compiled_code(vm, "Roots", "leading", "(I)I");
    let shown = harness::listing(&leading);
    let want = if fastpath::cpu::info().has(fastpath::cpu::Feature::Lzcnt) {
        Mnemonic::Lzcnt
    } else {
        Mnemonic::Bsr
    };
    assert!(
        leading.iter().any(|i| i.mnemonic() == want),
        "no {want:?} in the compiled Integer.numberOfLeadingZeros:\n{shown}"
    );
    assert!(
        harness::path_to_ret(&leading, &|_| false, false),
        "every path through the compiled Integer.numberOfLeadingZeros calls something:\n{shown}"
    );
    // `Math.abs`, `min` and `max` of `int` and `long`: a conditional move
    // each, no branch on the operands, no call (`minMaxDeep` has the six,
    // inlined with `minMaxDeeper`; `absI` and `absL`, called from `main`
    // too, are compiled on their own).
    for (name, desc, moves) in [
        ("absI", "(I)I", 1),
        ("absL", "(J)J", 1),
        ("minMaxDeep", "(IIJJ)J", 6),
    ] {
        let (_, code) = harness::compiled_code(vm, "Roots", name, desc);
        let shown = harness::listing(&code);
        let cmovs = code
            .iter()
            .filter(|i| format!("{:?}", i.mnemonic()).starts_with("Cmov"))
            .count();
        assert!(
            cmovs >= moves,
            "{cmovs} cmov in the compiled {name}, not {moves}:\n{shown}"
        );
        assert!(
            harness::path_to_ret(&code, &|_| false, false),
            "every path through the compiled {name} calls something:\n{shown}"
        );
    }
    let (_, bits) = harness::compiled_code(vm, "Roots", "toBits", "(D)J");
    let shown = harness::listing(&bits);
    assert!(
        harness::path_to_ret(&bits, &|_| false, false),
        "every path through the compiled Double.doubleToRawLongBits call calls something:\n{shown}"
    );
}
