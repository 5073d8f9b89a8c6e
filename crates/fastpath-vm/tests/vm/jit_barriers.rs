//! The load-reference barrier in compiled code (x86-64), decoded and run.
//!
//! Decoded (one VM in this process, `-Xcomp`, the default Shenandoah
//! barrier set): a reference field only tested against null is loaded
//! with no barrier (no test of the GC-state byte); one tested and then
//! used is loaded once and goes through one barrier; an array element
//! only tested against null has no barrier either; three barriers in a
//! row test one load of the GC-state byte and keep the values live
//! across them in registers (no stack access on the path from that load
//! to the return but the epilogue's restores: the barriers' slow calls
//! preserve every register). Between stops for the collector
//! (`jit/facts.rs`): LRB, SATB and LRB with no call between test one load
//! of the GC state, a call between two barriers loads it again after the
//! call; stores and loads of one object's primitive fields read its
//! layout word once, an inlined static call keeps `this` checked, and a
//! reference tested against null is not tested again after its barrier;
//! a new object's constructor stores without SATB barriers, and not the
//! null its allocation left, also after calls passed no reference.
//!
//! Run (a child VM per collector mode, `-Xcomp`, a 16 MiB heap, the
//! heap verifier after every cycle): lists tested and followed while
//! the collector evacuates them print what the interpreter prints.

#![cfg(target_arch = "x86_64")]

use crate::harness;

use std::process::Command;
use std::time::Duration;

use fastpath_vm::runtime::Vm;
use iced_x86::{Instruction, Mnemonic, OpKind, Register};

const PROGRAM: &str = r#"public class Barriers {
    Barriers next;
    Barriers first;
    Barriers second;
    Barriers[] slots = new Barriers[2];
    int n;

    Barriers(Barriers next, int n) {
        this.next = next;
        this.n = n;
    }

    // Only tested against null: no load-reference barrier.
    boolean hasNext() {
        return next != null;
    }

    // Tested, then used: the tested load's value through one barrier.
    Barriers nextOrSelf() {
        if (next != null) {
            return next;
        }
        return this;
    }

    // The array through its barrier, the element only tested: no barrier.
    boolean hasSlot(int i) {
        return slots[i] != null;
    }

    // Three barriers, `this` and the partial sums live across each.
    int sum3() {
        return next.n + first.n * 3 + second.n * 5 + n;
    }

    // Two barriers, a call between: the GC state is loaded again after it.
    int sumAcross() {
        int a = first.n;
        int b = one();
        return a + b + second.n;
    }

    // Tested against null, then followed: the barrier's result is known
    // non-null from the test of the loaded value (no second null check).
    int nextN() {
        if (next != null) {
            return next.n;
        }
        return -1;
    }

    // Synchronized: never inlined, a real call.
    static synchronized int one() {
        return 1;
    }

    // A reference store between two reference loads: the LRB, the SATB
    // barrier and the LRB test one load of the GC state.
    int relink() {
        first = next;
        return second.n;
    }

    // Stores and loads of `this`'s primitive fields around an inlined
    // static call: one read of the layout word, no null check of `this`.
    int bump(int d) {
        n += d;
        n = n + abs(d);
        return n;
    }

    // `Math.abs(int)`'s body, in a class initialized before any compiled
    // call (no class-initialization check, whose cold call forgets facts).
    static int abs(int a) {
        return a < 0 ? -a : a;
    }

    // A new object's constructor: its reference fields still hold the
    // allocation's null, so its stores need no SATB barrier (no test of
    // the GC state) and its store of null none at all.
    static final class Pair {
        Pair left;
        Pair right;
        Object tag;
        int n;

        Pair(Pair left, Pair right, int n) {
            this.left = left;
            this.right = right;
            this.tag = null;
            this.n = n;
        }
    }

    // Synchronized: never inlined into `main`, compiled on its own.
    static synchronized Pair pair(Pair l, Pair r, int n) {
        return new Pair(l, r, n);
    }

    // Built from two calls passed no reference: the new object, which no
    // other code can reach, keeps its null fields through them.
    static synchronized Pair pairAround(int n) {
        return new Pair(leaf(n), leaf(n + 1), n);
    }

    // One call passed a reference (which could be the new object under
    // another name): its fields are no longer known null after it.
    static synchronized Pair pairPassing(Pair l, int n) {
        return new Pair(same(l), null, n);
    }

    // `b` checked against null at its first field read, then reloaded
    // after a call (the collector may have moved it): still known non-null.
    static synchronized int aroundCall(Barriers b) {
        int a = b.n;
        int c = one();
        return a + b.n + c;
    }

    static synchronized Pair leaf(int n) {
        return new Pair(null, null, n);
    }

    static synchronized Pair same(Pair p) {
        return p;
    }

    // Overrides of each method, loaded and called, and two more classes
    // overriding them again, loaded: the calls in `main` have four
    // targets, more than a JIT inlines behind guards, so each method is
    // compiled on its own.
    static class Other extends Barriers {
        Other() {
            super(null, 0);
        }

        @Override
        boolean hasNext() {
            return false;
        }

        @Override
        Barriers nextOrSelf() {
            return null;
        }

        @Override
        int sum3() {
            return 0;
        }

        @Override
        boolean hasSlot(int i) {
            return true;
        }

        @Override
        int sumAcross() {
            return 0;
        }

        @Override
        int relink() {
            return 0;
        }

        @Override
        int nextN() {
            return 0;
        }

        @Override
        int bump(int d) {
            return 0;
        }
    }

    static class Second extends Other {
        Second() {
            super();
        }

        @Override
        boolean hasNext() {
            return false;
        }

        @Override
        Barriers nextOrSelf() {
            return null;
        }

        @Override
        int sum3() {
            return 0;
        }

        @Override
        boolean hasSlot(int i) {
            return true;
        }

        @Override
        int sumAcross() {
            return 0;
        }

        @Override
        int relink() {
            return 0;
        }

        @Override
        int nextN() {
            return 0;
        }

        @Override
        int bump(int d) {
            return 0;
        }
    }

    static class Third extends Other {
        Third() {
            super();
        }

        @Override
        boolean hasNext() {
            return false;
        }

        @Override
        Barriers nextOrSelf() {
            return null;
        }

        @Override
        int sum3() {
            return 0;
        }

        @Override
        boolean hasSlot(int i) {
            return true;
        }

        @Override
        int sumAcross() {
            return 0;
        }

        @Override
        int relink() {
            return 0;
        }

        @Override
        int nextN() {
            return 0;
        }

        @Override
        int bump(int d) {
            return 0;
        }
    }

    public static void main(String[] args) {
        Barriers o = new Other();
        Object second = new Second();
        Object third = new Third();
        int z = (o.hasNext() ? 1 : 0) + o.sum3() + (o.nextOrSelf() == null ? 0 : 1) + (o.hasSlot(0) ? 1 : 0)
            + o.sumAcross() + o.relink() + o.bump(1) + o.nextN();
        Barriers tail = new Barriers(null, 1);
        Barriers b = new Barriers(tail, 2);
        b.first = tail;
        b.second = b;
        int s = 0;
        for (int i = 0; i < 3; i++) {
            s += b.hasNext() ? 1 : 0;
            s += tail.hasNext() ? 10 : 0;
            s += b.nextOrSelf().n + tail.nextOrSelf().n;
            s += b.sum3();
            b.slots[1] = tail;
            s += (b.hasSlot(0) ? 100 : 0) + (b.hasSlot(1) ? 1000 : 0);
            s += b.sumAcross() + b.relink() + b.bump(-3) + b.nextN() + tail.nextN();
        }
        Pair p = pair(pair(null, null, 1), null, 2);
        s += p.left.n + p.n + (p.right == null && p.tag == null ? 1 : 0);
        s += pairAround(3).right.n + pairPassing(p, 4).left.n + aroundCall(b);
        System.out.println("sum " + (s + z));
    }
}
"#;

const STRESS: &str = r#"
public class BarrierStress {
    static final class Node {
        Node next;
        Node side;
        int v;

        Node(Node next, int v) {
            this.next = next;
            this.v = v;
        }

        boolean hasNext() {
            return next != null;
        }

        // The field tested against null, then followed: the tested value
        // through the barrier, while the collector moves the list.
        int lengthFollowing() {
            int n = 1;
            Node p = this;
            while (p.next != null) {
                p = p.next;
                n++;
            }
            return n;
        }

        int sideOr(int d) {
            if (side != null) {
                return side.v;
            }
            return d;
        }
    }

    // Each node's fields stored after recursive calls passed no reference
    // (no SATB barrier: the new node's fields hold null through them),
    // while the collector marks and moves what the calls allocate.
    static Node build(int depth, int v) {
        if (depth == 0) {
            return new Node(null, v);
        }
        Node n = new Node(build(depth - 1, v + 1), v);
        n.side = build(depth - 1, v - 1);
        return n;
    }

    static long sumTree(Node n) {
        return n == null ? 0 : n.v + sumTree(n.next) + sumTree(n.side);
    }

    public static void main(String[] args) {
        Node[] ring = new Node[1024];
        long check = 0;
        for (int round = 0; round < 30000; round++) {
            Node head = null;
            for (int i = 0; i < 40; i++) {
                head = new Node(head, round + i);
                if (i % 3 == 0) {
                    head.side = new Node(null, round - i);
                }
            }
            ring[round & 1023] = head;
            Node p = ring[(round * 7) & 1023];
            int steps = 0;
            while (p != null && p.hasNext()) {
                check += p.sideOr(1) + p.v;
                p = p.next;
                steps++;
            }
            check += steps + head.lengthFollowing();
            if ((round & 15) == 0) {
                check += sumTree(build(6, round));
            }
            if (ring[(round * 3) & 1023] != null) {
                check += ring[(round * 3) & 1023].v;
            }
        }
        System.out.println("check " + check);
    }
}
"#;

/// The code of `Barriers.name` (`desc`), decoded up to its last `ret`.
fn decode(vm: &Vm, name: &str, desc: &str) -> Vec<Instruction> {
    harness::compiled_code(vm, "Barriers", name, desc).1
}

fn memory(i: &Instruction) -> bool {
    (0..i.op_count()).any(|k| i.op_kind(k) == OpKind::Memory)
}

/// The load-reference barrier's test: a byte read of the GC state.
fn gc_state_tests(code: &[Instruction]) -> Vec<usize> {
    let at = fastpath::thread::GC_STATE_OFFSET as u64;
    (0..code.len())
        .filter(|&k| {
            let i = &code[k];
            memory(i)
                && i.memory_displacement64() == at
                && i.memory_index() == Register::None
                && i.memory_size().size() == 1
        })
        .collect()
}

/// Loads of the reference field at data offset `disp` of an object, after
/// the entry's checks (whose reads of the context come first): up to the
/// entry's safepoint poll (a byte read of the thread block's poll word)
/// where the entry has one, else (a leaf's entry: no poll) up to the
/// slot-stack check's branch, the first conditional jump.
fn field_loads(code: &[Instruction], disp: u64, slot: usize) -> usize {
    let poll = fastpath::thread::POLL_WORD_OFFSET as u64;
    let body = code
        .iter()
        .position(|i| memory(i) && i.memory_size().size() == 1 && i.memory_displacement64() == poll)
        .or_else(|| code.iter().position(|i| i.is_jcc_short_or_near()))
        .expect("the entry's stack check")
        + 1;
    code[body..]
        .iter()
        .filter(|i| {
            i.mnemonic() == Mnemonic::Mov
                && memory(i)
                && i.op0_kind() == OpKind::Register
                && i.memory_displacement64() == disp
                && i.memory_index() == Register::None
                && !matches!(i.memory_base(), Register::RSP | Register::RBP)
                && i.memory_size().size() == slot
        })
        .count()
}

#[test]
fn compiled_reference_loads_elide_and_share_their_barriers() {
    let dir = harness::scratch_dir("fastpath-vm-jit-barriers");
    harness::javac_sources(&dir, &dir, &[("Barriers", PROGRAM)]);
    let vm = harness::run_xcomp_in_process(&dir, "Barriers");
    // The heap's reference width (the VM's default for a heap below 2 GiB:
    // unscaled, 4 bytes holding the address), and an instance's reference
    // 0 (12: the tagged word's 4 bytes before it).
    assert_eq!(vm.heap.ref_width(), fastpath::gc::layout::RefWidth::Unscaled);
    let next = vm.heap.ref_width().tagged_ref_offset(0) as u64;
    let slot = vm.heap.ref_width().slot_bytes();

    // Only tested against null: loaded, no barrier.
    let all = decode(vm, "hasNext", "()Z");
    let shown = harness::listing(&all);
    assert_eq!(
        gc_state_tests(&all).len(),
        0,
        "hasNext's load has a barrier:\n{shown}"
    );
    assert_eq!(
        field_loads(&all, next, slot),
        1,
        "hasNext loads `next` once:\n{shown}"
    );

    // Tested, then returned: one load, its one barrier after the test.
    let all = decode(vm, "nextOrSelf", "()LBarriers;");
    let shown = harness::listing(&all);
    let tests = gc_state_tests(&all);
    assert_eq!(tests.len(), 1, "nextOrSelf's barriers:\n{shown}");
    assert_eq!(
        field_loads(&all, next, slot),
        1,
        "nextOrSelf loads `next` once:\n{shown}"
    );
    // An unscaled slot's 32 bits are the address: nothing shifts what the
    // load zero-extended.
    assert!(
        !all.iter().any(|i| i.mnemonic() == Mnemonic::Shl),
        "nextOrSelf decodes a reference with a shift:\n{shown}"
    );

    // The array loaded through a barrier, its element only tested.
    let all = decode(vm, "hasSlot", "(I)Z");
    let shown = harness::listing(&all);
    assert_eq!(gc_state_tests(&all).len(), 1, "hasSlot's barriers:\n{shown}");

    // Three barriers on one load of the GC state (no call between them),
    // each testing it: from the load to the return, the stack is touched
    // only by the epilogue (callee-saved registers restored, the frame
    // popped); no value is spilled around a barrier.
    let all = decode(vm, "sum3", "()I");
    let shown = harness::listing(&all);
    let tests = gc_state_tests(&all);
    assert_eq!(tests.len(), 1, "sum3 loads the GC state once:\n{shown}");
    let first_ret = all.iter().position(|i| i.mnemonic() == Mnemonic::Ret).unwrap();
    assert_eq!(
        state_bit_tests(&all[tests[0]..first_ret]),
        3,
        "sum3's three barriers on its path:\n{shown}"
    );
    let path = &all[tests[0]..=first_ret];
    let stack = |i: &Instruction| memory(i) && matches!(i.memory_base(), Register::RSP | Register::RBP);
    let epilogue = path.iter().position(stack).unwrap_or(path.len() - 1);
    for i in &path[epilogue..] {
        let restore = stack(i)
            && i.mnemonic() == Mnemonic::Mov
            && i.op0_kind() == OpKind::Register
            && matches!(
                i.op0_register(),
                Register::RBX | Register::R12 | Register::R13 | Register::R14
            );
        let frame = matches!(
            i.mnemonic(),
            Mnemonic::Add | Mnemonic::Pop | Mnemonic::Ret | Mnemonic::Leave
        ) || (i.mnemonic() == Mnemonic::Mov && i.op0_register() == Register::RSP);
        assert!(
            restore || frame,
            "sum3 touches the stack between its barriers and its epilogue ({i}):\n{shown}"
        );
    }
}

/// The barriers' idle tests of a loaded GC-state byte: `test r8, bit`
/// (the has-forwarded bit for the LRB, the marking bit for SATB).
fn state_bit_tests(code: &[Instruction]) -> usize {
    let l = fastpath_jit::ThreadLayout::fastpath().expect("fastpath's thread layout");
    let bits = [u64::from(l.has_forwarded_bit), u64::from(l.marking_bit)];
    code.iter()
        .filter(|i| {
            i.mnemonic() == Mnemonic::Test
                && i.op0_kind() == OpKind::Register
                && i.op1_kind() == OpKind::Immediate8
                && bits.contains(&i.immediate8().into())
        })
        .count()
}

/// Reads of an object's layout word (an instance's 4-byte tagged word, an
/// array's reference count in its untagged word's low 32 bits, at `LAYOUT`,
/// not on the stack).
fn layout_reads(code: &[Instruction]) -> usize {
    let at = fastpath_vm::jit::layout::LAYOUT as u64;
    code.iter()
        .filter(|i| {
            memory(i)
                && i.memory_displacement64() == at
                && i.memory_index() == Register::None
                // An instance's tagged word, an array's reference count.
                && matches!(i.memory_size().size(), 2 | 4)
                && !matches!(i.memory_base(), Register::RSP | Register::RBP)
        })
        .count()
}

#[test]
fn compiled_barriers_share_the_gc_state_between_stops_and_objects_their_layout() {
    let dir = harness::scratch_dir("fastpath-vm-jit-barriers-state");
    harness::javac_sources(&dir, &dir, &[("Barriers", PROGRAM)]);
    let vm = harness::run_xcomp_in_process(&dir, "Barriers");

    // A call between two reference loads: the GC state is loaded before
    // each, with the call between the two loads.
    let all = decode(vm, "sumAcross", "()I");
    let shown = harness::listing(&all);
    let tests = gc_state_tests(&all);
    assert_eq!(tests.len(), 2, "sumAcross loads the GC state twice:\n{shown}");
    assert!(
        all[tests[0]..tests[1]].iter().any(harness::is_call),
        "sumAcross: no call between its GC-state loads:\n{shown}"
    );

    // LRB, SATB, LRB with no call between: one load, three tests.
    let all = decode(vm, "relink", "()I");
    let shown = harness::listing(&all);
    let tests = gc_state_tests(&all);
    assert_eq!(tests.len(), 1, "relink loads the GC state once:\n{shown}");
    assert_eq!(state_bit_tests(&all), 3, "relink's three barriers:\n{shown}");

    // Two stores and three loads of `this`'s fields: one layout read; the
    // inlined `abs` keeps `this` non-null (no test of a 64-bit register
    // against itself: a null check; `abs` tests 32 bits).
    let all = decode(vm, "bump", "(I)I");
    let shown = harness::listing(&all);
    assert_eq!(layout_reads(&all), 1, "bump reads its layout word once:\n{shown}");
    assert_eq!(null_tests(&all), 0, "bump checks `this` against null:\n{shown}");

    // A new object's constructor stores into fields the allocation left
    // null: no SATB barrier (no GC-state load), no null check of the new
    // object, and `tag`'s null stored by the allocation's zeroing alone
    // (the monitor of the synchronized method does not test the state).
    let all = decode(vm, "pair", "(LBarriers$Pair;LBarriers$Pair;I)LBarriers$Pair;");
    let shown = harness::listing(&all);
    assert_eq!(
        gc_state_tests(&all).len(),
        0,
        "pair's stores test the GC state:\n{shown}"
    );
    // (The runtime allocation's cold path, after the return, tests the
    // helper's result.)
    let first_ret = all.iter().position(|i| i.mnemonic() == Mnemonic::Ret).unwrap();
    assert_eq!(
        null_tests(&all[..first_ret]),
        0,
        "pair checks its new object against null:\n{shown}"
    );
    // `tag`, the third reference, and the word that holds it, which the
    // allocation's zeroing writes (8 bytes; a compressed slot is half of
    // a word).
    let refs = vm.heap.ref_width();
    let tag = refs.tagged_ref_offset(2) as u64;
    let tag_word = tag & !7;
    // Stores of an immediate zero there, of either width, but for the
    // frame's words at that displacement: the frame's address is the
    // prologue's first sum of the first argument (the slot stack's top)
    // and the locals' size, one register from there on.
    let frame = all
        .iter()
        .find(|i| i.mnemonic() == Mnemonic::Lea && i.memory_base() == Register::RDI)
        .map(|i| i.op0_register())
        .expect("the prologue computes the frame's address");
    let tag_stores = all
        .iter()
        .filter(|i| {
            i.mnemonic() == Mnemonic::Mov
                && i.op0_kind() == OpKind::Memory
                && matches!(i.op1_kind(), OpKind::Immediate32to64 | OpKind::Immediate32)
                && (i.op1_kind() == OpKind::Immediate32 || i.immediate32to64() == 0)
                && (i.op1_kind() == OpKind::Immediate32to64 || i.immediate32() == 0)
                && (i.memory_displacement64() == tag || i.memory_displacement64() == tag_word)
                && i.memory_index() == Register::None
                && !matches!(i.memory_base(), Register::RSP | Register::RBP)
                && i.memory_base() != frame
                && i.memory_size().size() >= refs.slot_bytes()
        })
        .count();
    assert_eq!(
        tag_stores, 1,
        "pair stores `tag` other than by its zeroing:\n{shown}"
    );

    // The same stores after calls: none tests the GC state after calls
    // passed no reference (no barrier in `pairAround` reads it); after one
    // passed a reference, the store of its result does (one load of the
    // state, after the call).
    let all = decode(vm, "pairAround", "(I)LBarriers$Pair;");
    let shown = harness::listing(&all);
    assert_eq!(
        gc_state_tests(&all).len(),
        0,
        "pairAround's stores after its calls test the GC state:\n{shown}"
    );
    let all = decode(vm, "pairPassing", "(LBarriers$Pair;I)LBarriers$Pair;");
    let shown = harness::listing(&all);
    let tests = gc_state_tests(&all);
    assert_eq!(
        tests.len(),
        1,
        "pairPassing's store has no SATB barrier:\n{shown}"
    );
    assert!(
        all[..tests[0]].iter().any(harness::is_call),
        "pairPassing: its GC-state load is not after its call:\n{shown}"
    );

    // A reference checked against null before a call is known non-null
    // after it, reloaded: from the call to the return, the one 64-bit
    // register test is the call's status.
    let all = decode(vm, "aroundCall", "(LBarriers;)I");
    let shown = harness::listing(&all);
    let first_ret = all.iter().position(|i| i.mnemonic() == Mnemonic::Ret).unwrap();
    let last_call = all[..first_ret]
        .iter()
        .rposition(harness::is_call)
        .expect("aroundCall's call");
    assert_eq!(
        null_tests(&all[last_call..first_ret]),
        1,
        "aroundCall checks `b` against null again after its call:\n{shown}"
    );

    // `next` tested, then followed through its barrier: one null test on
    // the way to the first return (the barrier's cold paths, after it,
    // test the reference they resolve).
    let all = decode(vm, "nextN", "()I");
    let shown = harness::listing(&all);
    let first_ret = all.iter().position(|i| i.mnemonic() == Mnemonic::Ret).unwrap();
    assert_eq!(
        null_tests(&all[..first_ret]),
        1,
        "nextN tests `next` against null once:\n{shown}"
    );
}

/// A reference's null tests: a 64-bit register tested against itself, or
/// compared with 8.
fn null_tests(code: &[Instruction]) -> usize {
    code.iter()
        .filter(|i| {
            let of_itself = i.mnemonic() == Mnemonic::Test
                && i.op1_kind() == OpKind::Register
                && i.op0_register() == i.op1_register();
            // The translator's form (`null_test`): below 8, unsigned.
            let below_8 = i.mnemonic() == Mnemonic::Cmp
                && matches!(i.op1_kind(), OpKind::Immediate8to64 | OpKind::Immediate32to64)
                && i.immediate64() == 8;
            i.op0_kind() == OpKind::Register && i.op0_register().is_gpr64() && (of_itself || below_8)
        })
        .count()
}

#[test]
fn null_tested_fields_followed_while_the_collector_evacuates() {
    let dir = harness::scratch_dir("fastpath-vm-jit-barriers-stress");
    harness::javac_sources(&dir, &dir, &[("BarrierStress", STRESS)]);
    let run = |env: &[(&str, &str)], opts: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_fastpath-vm"));
        cmd.envs(env.iter().copied())
            .args(opts)
            .arg("-cp")
            .arg(&dir)
            .arg("BarrierStress");
        harness::run_with_limit(cmd, Duration::from_secs(300)).unwrap_or_else(|e| panic!("{env:?}: {e}"))
    };
    let want = run(&[], &["-Xint"]);
    assert_eq!(
        want.status,
        Some(0),
        "-Xint: {}",
        String::from_utf8_lossy(&want.stderr)
    );
    for mode in ["passive", "concurrent"] {
        let env = [
            ("FASTPATH_GC_BARRIERS", "shenandoah"),
            ("FASTPATH_GC_MODE", mode),
            ("FASTPATH_VM_VERIFY_HEAP", "1"),
            ("FASTPATH_VM_GC_STATS", "1"),
        ];
        let o = run(&env, &["-Xcomp", "-Xmx16m"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status, Some(0), "{mode}: {err}");
        assert_eq!(o.stdout, want.stdout, "{mode}: the compiled run's output differs");
        let cycles: u64 = err
            .rsplit_once("fastpath-vm gc: ")
            .and_then(|(_, l)| l.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("{mode}: no collection statistics:\n{err}"));
        assert!(cycles > 0, "{mode}: the run did not collect:\n{err}");
        println!(
            "{mode}: {cycles} cycles, {}",
            String::from_utf8_lossy(&o.stdout).trim()
        );
    }
}
