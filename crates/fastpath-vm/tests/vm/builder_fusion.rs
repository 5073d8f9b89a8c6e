//! `StringBuilder` chains fused by the pre-decoder (`interp/builder_fusion.rs`,
//! C2's `OptimizeStringConcat`): which methods' chains become one
//! concatenation and which stay as written, read from the decoded
//! instructions of a VM in this process (`-Xcomp`: every method compiled
//! from the fused code), whose program checks each result against the text
//! HotSpot prints for it. The corpus program `BuilderChains` runs the same
//! shapes against HotSpot in every tier.

use crate::harness;

use fastpath_vm::interp::Insn;
use fastpath_vm::link::indy::is_concat_class;
use fastpath_vm::runtime::Vm;

const PROGRAM: &str = r#"
public class Chains {
    static String record(int id, int value) {
        StringBuilder b = new StringBuilder();
        b.append(id).append(',').append("name-").append(id).append(',');
        b.append(Integer.toHexString(value)).append(',').append(value);
        return b.toString();
    }

    static String constantsOnly() {
        return new StringBuilder(8).append("a").append('b').append(12).append(true).toString();
    }

    static String wide(long l, double d, String s) {
        return new StringBuilder().append(l).append(d).append(s).toString();
    }

    static String escapes(int n) {
        StringBuilder sb = new StringBuilder().append(n);
        touch(sb);
        return sb.toString();
    }

    static void touch(StringBuilder sb) {
        sb.append('!');
    }

    static String readAfter(int n) {
        StringBuilder sb = new StringBuilder().append(n);
        String s = sb.toString();
        return sb.length() == 2 ? s : "other";
    }

    static String object(Object o) {
        return new StringBuilder().append(o).append(1).toString();
    }

    static String branches(int n) {
        StringBuilder sb = new StringBuilder().append("n");
        if (n > 0) {
            sb.append('+');
        }
        return sb.append(n).toString();
    }

    static void check(String got, String want) {
        if (!got.equals(want)) {
            throw new AssertionError("got " + got + ", want " + want);
        }
    }

    public static void main(String[] args) {
        check(record(7919, 1103527590), "7919,name-7919,41c67ea6,1103527590");
        check(constantsOnly(), "ab12true");
        check(wide(-5L, 0.5, null), "-50.5null");
        check(escapes(3), "3!");
        check(readAfter(42), "42");
        check(object(null), "null1");
        check(branches(4), "n+4");
        check(branches(-4), "n-4");
    }
}
"#;

/// The decoded instructions of `Chains.name` (`desc`), which ran.
fn insns(vm: &Vm, name: &str, desc: &str) -> &'static [Insn] {
    let c = vm.loader.load("Chains").expect("Chains is loaded");
    let m = fastpath_vm::link::resolve::find_method(c, name, desc).unwrap_or_else(|| panic!("Chains.{name}"));
    match m.decoded.get() {
        Some(Ok(d)) => &d.insns,
        _ => panic!("Chains.{name} was not decoded"),
    }
}

/// Calls to `StringBuilder` methods, and calls to spun concatenations.
fn calls(code: &[Insn]) -> (usize, usize) {
    let target = |i: &Insn| match *i {
        Insn::InvokeStatic(m) | Insn::InvokeDirect(m) => Some(m),
        Insn::InvokeVirtual { method, .. } => Some(method),
        _ => None,
    };
    let builder = code
        .iter()
        .filter_map(target)
        .filter(|m| m.class.name.contains("StringBuilder"))
        .count();
    let concat = code
        .iter()
        .filter_map(target)
        .filter(|m| is_concat_class(m.class))
        .count();
    (builder, concat)
}

#[test]
fn chains_that_never_escape_become_one_concatenation() {
    let dir = harness::scratch_dir("fastpath-vm-builder-fusion");
    harness::javac_sources(&dir, &dir, &[("Chains", PROGRAM)]);
    let vm = harness::run_xcomp_in_process(&dir, "Chains");

    // Split over two statements through a local, constants folded into
    // text: one concatenation, no builder call left.
    for (name, desc) in [
        ("record", "(II)Ljava/lang/String;"),
        ("constantsOnly", "()Ljava/lang/String;"),
        ("wide", "(JDLjava/lang/String;)Ljava/lang/String;"),
    ] {
        let code = insns(vm, name, desc);
        assert_eq!(calls(code), (0, 1), "Chains.{name}: {code:?}");
        assert!(
            !code
                .iter()
                .any(|i| matches!(i, Insn::New(c) if c.name.contains("StringBuilder"))),
            "Chains.{name} still allocates its builder"
        );
    }
    // The builder passed to a method, read after `toString`, appended an
    // `Object` (whose `toString` runs when appended), or appended on one
    // branch: as written.
    for (name, desc) in [
        ("escapes", "(I)Ljava/lang/String;"),
        ("readAfter", "(I)Ljava/lang/String;"),
        ("object", "(Ljava/lang/Object;)Ljava/lang/String;"),
        ("branches", "(I)Ljava/lang/String;"),
    ] {
        let (builder, concat) = calls(insns(vm, name, desc));
        assert_eq!(concat, 0, "Chains.{name} was fused");
        assert!(builder >= 3, "Chains.{name}: {builder} builder calls");
    }
}
