//! The shape of compiled code that the translator's static knowledge
//! buys (x86-64, `-Xcomp`, decoded back from the code cache):
//! - block layout (`jit/predict.rs`): a loop that makes no call and
//!   returns from inside its body lays the body out after the test that
//!   leaves it, so that no conditional branch inside the loop jumps
//!   forward within it (one taken jump an iteration, the back edge);
//! - fixed data offsets from declared types (`jit/declared.rs`,
//!   `narrower`, `final_nrefs`): a superclass's method inlined on a final
//!   class's instance reads the superclass's primitive field at a fixed
//!   offset from the object, with no load of the class's reference count.

#![cfg(target_arch = "x86_64")]

use crate::harness;

use iced_x86::{FlowControl, Instruction, OpKind};

const PROGRAM: &str = r#"
public class Layouts {
    static final class Cell {
        final int value;
        Cell next;

        Cell(int value) {
            this.value = value;
        }
    }

    // List's walk: the return inside the body is the loop's exit.
    // Synchronized, so that it is compiled on its own, not inlined into
    // `main` (the lock is outside the loop).
    static synchronized boolean shorter(Cell x, Cell y) {
        Cell xs = x;
        Cell ys = y;
        while (ys != null) {
            if (xs == null) {
                return true;
            }
            xs = xs.next;
            ys = ys.next;
        }
        return false;
    }

    static Cell list(int n) {
        Cell head = null;
        for (int i = 0; i < n; i++) {
            Cell c = new Cell(i);
            c.next = head;
            head = c;
        }
        return head;
    }

    static class Counter {
        Object label;
        int count;

        final int bump() {
            return ++count;
        }
    }

    // A final subclass with a reference of its own: a `Counter` that is
    // not a `Leaf` has its data words elsewhere.
    static final class Leaf extends Counter {
        Object more;
        int extra;
    }

    // Synchronized, as `shorter` is.
    static synchronized int twice(Leaf leaf) {
        return leaf.bump() + leaf.bump();
    }

    public static void main(String[] args) {
        Cell six = list(6);
        Cell ten = list(10);
        if (!shorter(six, ten) || shorter(ten, six) || shorter(six, six)) {
            throw new Error("shorter");
        }
        Leaf leaf = new Leaf();
        Counter plain = new Counter();
        plain.bump();
        if (twice(leaf) != 3 || leaf.count != 2 || plain.count != 1) {
            throw new Error("twice " + leaf.count);
        }
    }
}
"#;

fn memory(i: &Instruction) -> bool {
    (0..i.op_count()).any(|k| i.op_kind(k) == OpKind::Memory)
}

#[test]
fn loops_fall_through_their_bodies_and_final_receivers_read_fixed_offsets() {
    let dir = harness::scratch_dir("fastpath-vm-jit-layout");
    harness::javac_sources(&dir, &dir, &[("Layouts", PROGRAM)]);
    let vm = harness::run_xcomp_in_process(&dir, "Layouts");

    let (_, code) = harness::compiled_code(vm, "Layouts", "shorter", "(LLayouts$Cell;LLayouts$Cell;)Z");
    // The walk is the shortest cycle: the other backward jumps are rare
    // paths (a stop's, laid out after the code) rejoining it.
    let (head, end) = code
        .iter()
        .filter(|i| harness::is_backward_jump(i))
        .map(|i| (i.near_branch_target(), i.ip()))
        .min_by_key(|(head, end)| end - head)
        .unwrap_or_else(|| panic!("shorter has no loop:\n{}", harness::listing(&code)));
    let body: Vec<&Instruction> = code.iter().filter(|i| (head..=end).contains(&i.ip())).collect();
    assert!(
        !body.iter().any(|i| harness::is_call(i)),
        "the walk {head:x}..={end:x} calls\n{}",
        harness::listing(&code)
    );
    for i in body
        .iter()
        .filter(|i| i.flow_control() == FlowControl::ConditionalBranch)
    {
        let t = i.near_branch_target();
        assert!(
            t < head || t > end,
            "the branch at {:x} jumps forward inside the loop {head:x}..={end:x}: \
             the body is not laid out after the test that leaves it\n{}",
            i.ip(),
            harness::listing(&code)
        );
    }

    let (_, code) = harness::compiled_code(vm, "Layouts", "twice", "(LLayouts$Leaf;)I");
    let nrefs = std::mem::offset_of!(fastpath_vm::link::Class, nrefs) as u64;
    let class_reads: Vec<&Instruction> = code
        .iter()
        .filter(|i| memory(i) && i.memory_displacement64() == nrefs)
        .collect();
    assert!(
        class_reads.is_empty(),
        "twice reads a class's reference count ({:x?}): the final receiver's data offset is not fixed\n{}",
        class_reads.iter().map(|i| i.ip()).collect::<Vec<_>>(),
        harness::listing(&code)
    );
    // `count` is read and written on the object itself.
    assert!(
        code.iter()
            .any(|i| i.mnemonic() == iced_x86::Mnemonic::Add || i.mnemonic() == iced_x86::Mnemonic::Inc),
        "twice has no increment\n{}",
        harness::listing(&code)
    );
}
