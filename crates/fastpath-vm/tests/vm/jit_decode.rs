//! The decoder check of compiled Java methods (x86-64): the fast paths are
//! inline in the code the JIT installs. A `synchronized` method has a path
//! from its entry to its return that calls nothing and goes through the
//! enter's and the exit's header CASes, its only locked instructions (the
//! uncontended lock and unlock: the runtime's enter and exit, and the
//! poll, are called only on the branches off it); a reference field
//! store's SATB barrier is the idle test of the thread block's GC-state
//! byte and a branch out of line (laid out after the return), with no call,
//! no locked instruction and no fence before the return; and `Thread.onSpinWait()`
//! is one call of the installed pause stub, not of the runtime's `Invoke`;
//! three accesses to a field's array in one basic block load the field
//! through the load-reference barrier once and the array's length once;
//! a primitive field of a final class, or of an object the method just
//! allocated, is read at a fixed offset, without the layout-word load a
//! class with subclasses needs; an array whose declared type gives its
//! form has its length read in one load; a reference stored into an
//! array of a final class, of that class by its declared type, has no
//! store check (no read of the array class's component), where one into
//! an array of a class with subclasses keeps it; a virtual call on a
//! receiver declared of a class whose vtable has the call's entry reads
//! no vtable length (one through a `checkcast` still does); and a call in
//! a loop of an inlined callee stores none of the callee frame's header
//! words, written once where the callee is entered.
//!
//! One VM in this process (`-Xcomp`, the default Shenandoah barrier set
//! and lightweight locking), whose methods' installed code is read back
//! through `Jit::code_range` and decoded with iced-x86.

#![cfg(target_arch = "x86_64")]

use crate::harness;

use fastpath_vm::runtime::Vm;
use iced_x86::{Decoder, DecoderOptions, FlowControl, Instruction, Mnemonic, OpKind, Register};

const PROGRAM: &str = r#"
public class Decode {
    Decode next;
    int count;
    int[] values = {1, 2, 3};

    // Three reads of `values` in one basic block, no store to it or call
    // between: one load, one null check, one length (overridden below, so
    // compiled on its own).
    void swap(int i, int j) {
        int t = values[i];
        values[i] = values[j];
        values[j] = t;
    }

    synchronized void bump() {
        count++;
    }

    void link(Decode n) {
        next = n;
    }

    // An instance method of a class that is not final, overridden in
    // three loaded subclasses: its virtual calls have four
    // implementations, more than a JIT inlines behind guards
    // (`MAX_GUARDED_TARGETS`), so it is compiled on its own, not inlined
    // into `main` (as `link`).
    void spin() {
        Thread.onSpinWait();
    }

    static class Other extends Decode {
        @Override
        void link(Decode n) {
        }

        @Override
        void spin() {
        }

        @Override
        void swap(int i, int j) {
        }
    }

    static class Second extends Other {
        @Override
        void link(Decode n) {
            next = this;
        }

        @Override
        void spin() {
            count++;
        }

        @Override
        void swap(int i, int j) {
            count--;
        }
    }

    static class Third extends Other {
        @Override
        void link(Decode n) {
            next = null;
        }

        @Override
        void spin() {
            count += 2;
        }

        @Override
        void swap(int i, int j) {
            count -= 2;
        }
    }

    // Four implementations: the interface calls stay calls, and each
    // `get` is compiled on its own.
    interface Value {
        int get();
    }

    // A primitive field of a final class: no subclass can add references
    // before its data words, so its offset is fixed (no layout-word load;
    // `bump` above reads a field of a class with subclasses, through it).
    static final class Cell implements Value {
        Object ref;
        int v = 7;

        public int get() {
            return v;
        }
    }

    static final class One implements Value {
        public int get() {
            return 1;
        }
    }

    static final class Two implements Value {
        public int get() {
            return 2;
        }
    }

    // A class with a subclass that adds a reference: its `n` has no
    // fixed offset, except in an object the code just allocated.
    static class Open {
        int n;
    }

    static class OpenSub extends Open {
        Object r;
    }

    static final class Three implements Value {
        public int get() {
            Open o = new Open();
            o.n = 3;
            return o.n;
        }
    }

    public static void main(String[] args) {
        int sum = 0;
        for (Value v : new Value[] {new Cell(), new One(), new Two(), new Three()}) {
            sum += v.get();
        }
        sum += new OpenSub().n;
        System.out.println("values " + sum);
        Decode other = new Other();
        other.spin();
        new Second().spin();
        new Third().spin();
        Decode d = new Decode();
        for (int i = 0; i < 3; i++) {
            d.bump();
            d.link(d);
            d.spin();
            d.swap(0, 2);
        }
        System.out.println("count " + d.count + " " + d.values[0]);
    }
}
"#;

/// The code of `Decode.name` (`desc`), decoded up to its last `ret`.
fn decode(vm: &Vm, name: &str, desc: &str) -> Vec<Instruction> {
    harness::compiled_code(vm, "Decode", name, desc).1
}

/// The instructions on some path from the entry to a `ret` that calls
/// nothing (each conditional branch taken either way), as flags.
fn call_free_paths(code: &[Instruction]) -> Vec<bool> {
    let is_call = |i: &Instruction| matches!(i.flow_control(), FlowControl::Call | FlowControl::IndirectCall);
    let succ = harness::successors(code);
    // Forward from the entry, never through a call.
    let mut from = vec![false; code.len()];
    let mut stack = vec![0];
    while let Some(k) = stack.pop() {
        if k >= code.len() || from[k] || is_call(&code[k]) {
            continue;
        }
        from[k] = true;
        stack.extend(succ[k].iter().copied());
    }
    // Backward from the returns, on the same edges.
    let mut to = vec![false; code.len()];
    for (k, i) in code.iter().enumerate() {
        to[k] = i.mnemonic() == Mnemonic::Ret && from[k];
    }
    loop {
        let mut changed = false;
        for k in (0..code.len()).rev() {
            if !to[k] && from[k] && succ[k].iter().any(|&n| n < code.len() && to[n]) {
                to[k] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    to
}

fn calls(code: &[Instruction]) -> usize {
    code.iter()
        .filter(|i| i.flow_control() == FlowControl::Call || i.flow_control() == FlowControl::IndirectCall)
        .count()
}

fn locked(code: &[Instruction], m: Mnemonic) -> usize {
    code.iter()
        .filter(|i| i.has_lock_prefix() && i.mnemonic() == m)
        .count()
}

/// Whether `i` reads `bytes` bytes at displacement `disp` from a base
/// register alone.
fn reads_at(i: &Instruction, disp: usize, bytes: usize) -> bool {
    (0..i.op_count()).any(|k| i.op_kind(k) == OpKind::Memory)
        && i.memory_displacement64() == disp as u64
        && i.memory_index() == Register::None
        && i.memory_size().size() == bytes
}

/// Whether `i` reads the byte at displacement `disp` from a register.
fn reads_byte_at(i: &Instruction, disp: usize) -> bool {
    reads_at(i, disp, 1)
}

#[test]
fn compiled_lock_and_barrier_fast_paths_are_inline() {
    // `spin`, `link` and `swap` have four implementations each.
    const { assert!(fastpath_vm::jit::translate::MAX_GUARDED_TARGETS < 4) };
    let dir = harness::scratch_dir("fastpath-vm-jit-decode");
    harness::javac_sources(&dir, &dir, &[("Decode", PROGRAM)]);

    let vm = harness::run_xcomp_in_process(&dir, "Decode");

    // The synchronized method: from the entry to the return, a path that
    // calls nothing through the enter's and the exit's header CASes; the
    // runtime's calls only off it.
    let all = decode(vm, "bump", "()V");
    let shown = harness::listing(&all);
    let on = call_free_paths(&all);
    let hot: Vec<Instruction> = all.iter().zip(&on).filter(|(_, &o)| o).map(|(i, _)| *i).collect();
    assert!(
        hot.iter().any(|i| i.mnemonic() == Mnemonic::Ret),
        "every path through bump calls something:\n{shown}"
    );
    assert!(
        locked(&hot, Mnemonic::Cmpxchg) >= 2,
        "bump's call-free path lacks the enter's and the exit's header CAS:\n{shown}"
    );
    // The header CASes are the pair's only locked instructions, as C2's
    // (no region pin: a stopped mutator pins its lock-stack's regions,
    // `fastpath::gc`'s `collector/cycle.rs`).
    let other_locked = hot
        .iter()
        .filter(|i| i.has_lock_prefix() && i.mnemonic() != Mnemonic::Cmpxchg)
        .count();
    assert_eq!(
        other_locked, 0,
        "a locked instruction beside the header CASes on bump's call-free path:\n{shown}"
    );
    assert!(
        calls(&all) >= 3,
        "bump lacks the runtime's enter, exit and poll on its slow paths:\n{shown}"
    );

    // The reference store: the SATB barrier's idle test and its branch to
    // an out-of-line marking path; no call on the idle path.
    let all = decode(vm, "link", "(LDecode;)V");
    let shown = harness::listing(&all);
    let first_ret = all.iter().position(|i| i.mnemonic() == Mnemonic::Ret).unwrap();
    let hot = &all[..=first_ret];
    assert_eq!(calls(hot), 0, "a call on link's path:\n{shown}");
    let gc_state = fastpath::thread::GC_STATE_OFFSET;
    let tests: Vec<usize> = (0..all.len())
        .filter(|&k| reads_byte_at(&all[k], gc_state))
        .collect();
    assert_eq!(
        tests.len(),
        1,
        "link reads the GC state {} times:\n{shown}",
        tests.len()
    );
    let k = tests[0];
    assert!(k < first_ret, "the idle test is not on link's path:\n{shown}");
    let (test, branch) = (&all[k + 1], &all[k + 2]);
    assert!(
        matches!(test.mnemonic(), Mnemonic::Test | Mnemonic::And),
        "the GC-state load is not followed by its test:\n{shown}"
    );
    assert_eq!(
        branch.flow_control(),
        FlowControl::ConditionalBranch,
        "no branch after the test:\n{shown}"
    );
    assert!(
        branch.near_branch_target() > hot.last().unwrap().ip(),
        "the barrier's marking path is not out of line:\n{shown}"
    );
    assert_eq!(
        hot.iter().filter(|i| i.has_lock_prefix()).count(),
        0,
        "a locked instruction on link's path:\n{shown}"
    );
    // A plain store: x86-64's TSO already orders it after the object's
    // initialization; a fence (Cranelift's sequentially consistent
    // `atomic_store` is `mov` + `mfence`) is for volatile fields only.
    assert!(
        !hot.iter()
            .any(|i| matches!(i.mnemonic(), Mnemonic::Mfence | Mnemonic::Xchg)),
        "a fence on link's path:\n{shown}"
    );

    // The field's array: loaded once (one test of the GC state, the
    // load-reference barrier's) and its length read once, for three
    // accesses.
    let all = decode(vm, "swap", "(II)V");
    let shown = harness::listing(&all);
    let barrier_tests = all.iter().filter(|i| reads_byte_at(i, gc_state)).count();
    assert_eq!(
        barrier_tests, 1,
        "swap loads `values` {barrier_tests} times:\n{shown}"
    );
    let length_at = (fastpath_vm::jit::layout::REFS + fastpath_vm::jit::layout::LENGTH_WORD) as u64;
    let lengths = all
        .iter()
        .filter(|i| {
            (0..i.op_count()).any(|k| i.op_kind(k) == OpKind::Memory)
                && i.memory_displacement64() == length_at
                && i.memory_index() == Register::None
                && i.memory_size().size() == 4
        })
        .count();
    assert_eq!(
        lengths, 1,
        "swap reads the array's length {lengths} times:\n{shown}"
    );

    // onSpinWait: one direct call (the installed pause), not `Invoke`.
    let all = decode(vm, "spin", "()V");
    let shown = harness::listing(&all);
    let first_ret = all.iter().position(|i| i.mnemonic() == Mnemonic::Ret).unwrap();
    let hot = &all[..=first_ret];
    assert_eq!(calls(hot), 1, "spin's path:\n{shown}");
    let c = hot
        .iter()
        .position(|i| matches!(i.flow_control(), FlowControl::Call | FlowControl::IndirectCall))
        .unwrap();
    let target = match hot[c].op0_kind() {
        OpKind::Register => {
            let r = hot[c].op0_register();
            let set = hot[..c]
                .iter()
                .rev()
                .find(|i| i.mnemonic() == Mnemonic::Mov && i.op0_register() == r)
                .unwrap_or_else(|| panic!("the call's address is not a constant:\n{shown}"));
            set.immediate64()
        }
        _ => hot[c].near_branch_target(),
    };
    // SAFETY: the call's target is installed code (the pause stub, or a
    // helper in this binary's text), mapped readable; 32 bytes lie within
    // its mapping (the stub is followed by the cache's trap fill, a helper
    // by other text).
    let stub = unsafe { std::slice::from_raw_parts(target as *const u8, 32) };
    let body: Vec<Instruction> = Decoder::with_ip(64, stub, target, DecoderOptions::NONE)
        .iter()
        .take_while(|i| i.mnemonic() != Mnemonic::Ret)
        .collect();
    assert!(
        !body.is_empty()
            && body.len() <= 8
            && body.iter().all(|i| matches!(
                i.mnemonic(),
                Mnemonic::Pause | Mnemonic::Tpause | Mnemonic::Nop | Mnemonic::Mov | Mnemonic::Xor
            )),
        "onSpinWait does not call the pause stub:\n{shown}\nits target:\n{}",
        harness::listing(&body)
    );
}

#[test]
fn a_final_classs_or_a_new_objects_primitive_field_needs_no_layout_load() {
    let dir = harness::scratch_dir("fastpath-vm-jit-decode-final");
    harness::javac_sources(&dir, &dir, &[("Decode", PROGRAM)]);
    let vm = harness::run_xcomp_in_process(&dir, "Decode");
    // The layout word's offset from the object: an instance's 4-byte tagged
    // word (its class, whose reference count places the data words), an
    // array's low 32 bits (its count); the whole word is the new object's
    // initialisation, a store.
    let layout = fastpath::gc::layout::LAYOUT_WORD_OFFSET;
    let reads_layout = |i: &Instruction| reads_at(i, layout, 2) || reads_at(i, layout, 4);
    let of_final = harness::compiled_code(vm, "Decode$Cell", "get", "()I").1;
    let of_open = decode(vm, "bump", "()V");
    assert!(
        !of_final.iter().any(reads_layout),
        "Cell.get loads a layout word:\n{}",
        harness::listing(&of_final)
    );
    // A field of an object allocated in the method: its class is known.
    let of_new = harness::compiled_code(vm, "Decode$Three", "get", "()I").1;
    assert!(
        !of_new.iter().any(reads_layout),
        "Three.get loads a layout word:\n{}",
        harness::listing(&of_new)
    );
    assert!(
        of_open.iter().any(|i| reads_at(i, layout, 4)),
        "bump does not load the layout word (the check above would prove nothing):\n{}",
        harness::listing(&of_open)
    );
}

const SPANS: &str = r#"
public class Spans {
    static final class Cell {
        long value;
    }

    // Lock coarsening with the cell's field promoted: the lock is kept
    // across rounds, the field in a register.
    static long counted(Cell c, int n) {
        for (int i = 0; i < n; i++) {
            synchronized (c) {
                c.value++;
            }
        }
        return c.value;
    }

    public static void main(String[] args) {
        System.out.println(counted(new Cell(), 1000));
    }
}
"#;

/// A coarsened loop whose span promotes its field: the round the lock is
/// kept is the loop's code from its head to its back edge, the rarer paths
/// (the release at the span's end, the real enter, the poll's stop, the
/// throw of a null lock) laid out after it. That round has no call and no
/// locked instruction, and does not read the lock-stack (the span's budget
/// alone tells its exit that the lock is held at its top): a short
/// straight run of compares, the poll's byte test and the increments.
#[test]
fn a_kept_lock_s_round_is_a_short_loop_with_its_rare_paths_out_of_line() {
    let dir = harness::scratch_dir("fastpath-vm-jit-decode-spans");
    harness::javac_sources(&dir, &dir, &[("Spans", SPANS)]);
    let vm = harness::run_xcomp_in_process(&dir, "Spans");
    let code = harness::compiled_code(vm, "Spans", "counted", "(LSpans$Cell;I)J").1;
    let shown = harness::listing(&code);
    // The back edge: the one backward jump before the return (the cold
    // paths after it jump back into the loop too).
    let ret = code
        .iter()
        .position(|i| i.mnemonic() == Mnemonic::Ret)
        .unwrap_or_else(|| {
            panic!(
                "no return:
{shown}"
            )
        });
    let backward: Vec<(usize, usize)> = code[..ret]
        .iter()
        .enumerate()
        .filter(|(_, i)| {
            matches!(
                i.flow_control(),
                FlowControl::UnconditionalBranch | FlowControl::ConditionalBranch
            ) && i.near_branch_target() < i.ip()
        })
        .map(|(k, i)| {
            let head = code.iter().position(|h| h.ip() == i.near_branch_target());
            (
                head.unwrap_or_else(|| panic!("a back edge into no instruction:\n{shown}")),
                k,
            )
        })
        .collect();
    assert_eq!(backward.len(), 1, "not one back edge:\n{shown}");
    let (head, edge) = backward[0];
    let round = &code[head..=edge];
    let listed = harness::listing(round);
    assert_eq!(calls(round), 0, "a call in the kept round:\n{listed}");
    assert!(
        !round.iter().any(|i| i.has_lock_prefix()),
        "a locked instruction in the kept round:\n{listed}"
    );
    // Besides the poll's byte, the loop's own values only: at most one
    // reload of a spilled value (the thread block) beside it.
    let reads = round
        .iter()
        .filter(|i| {
            (0..i.op_count()).any(|k| i.op_kind(k) == OpKind::Memory) && i.mnemonic() != Mnemonic::Lea
        })
        .count();
    assert!(reads <= 2, "{reads} memory accesses in the kept round:\n{listed}");
    assert!(
        round.len() <= 24,
        "{} instructions in the kept round:\n{listed}",
        round.len()
    );
}

const LENGTHS: &str = r#"
public class Lengths {
    static final class Holder {
        char[] chars = new char[3];
    }

    // Four implementations: `main`'s interface call stays a call, and each
    // `length` is compiled on its own.
    interface Length {
        int length(Holder h, String[] a, Object o);
    }

    // The field's declared type is a primitive array: its length is the
    // data word after the class word, at a fixed offset.
    static final class PrimField implements Length {
        public int length(Holder h, String[] a, Object o) {
            return h.chars.length;
        }
    }

    // A reference array parameter: its length is its reference count, the
    // layout word's low 32 bits.
    static final class RefParam implements Length {
        public int length(Holder h, String[] a, Object o) {
            return a.length;
        }
    }

    // Only a checkcast types it: its form is read from the layout word,
    // and the length found from there.
    static final class Cast implements Length {
        public int length(Holder h, String[] a, Object o) {
            return ((String[]) o).length;
        }
    }

    static final class None implements Length {
        public int length(Holder h, String[] a, Object o) {
            return 0;
        }
    }

    public static void main(String[] args) {
        int sum = 0;
        for (Length l : new Length[] {new PrimField(), new RefParam(), new Cast(), new None()}) {
            sum += l.length(new Holder(), new String[4], new String[5]);
        }
        System.out.println(sum);
    }
}
"#;

/// The 4-byte reads of `code` (a memory operand of 4 bytes that is not
/// a store's destination).
fn dword_reads(code: &[Instruction]) -> Vec<&Instruction> {
    code.iter()
        .filter(|i| {
            (0..i.op_count()).any(|k| i.op_kind(k) == OpKind::Memory)
                && i.memory_size().size() == 4
                && (i.op0_kind() != OpKind::Memory || matches!(i.mnemonic(), Mnemonic::Cmp | Mnemonic::Test))
        })
        .collect()
}

/// `arraylength` on a value whose declared type is an array type reads
/// the length where that form keeps it: a primitive array's at its fixed
/// offset with no layout-word load, a reference array's as the layout
/// word's count, one read; a value typed only by a `checkcast` reads the
/// layout word and then the length it locates.
#[test]
fn a_typed_array_s_length_is_one_read() {
    const DESC: &str = "(LLengths$Holder;[Ljava/lang/String;Ljava/lang/Object;)I";
    let dir = harness::scratch_dir("fastpath-vm-jit-decode-lengths");
    harness::javac_sources(&dir, &dir, &[("Lengths", LENGTHS)]);
    let vm = harness::run_xcomp_in_process(&dir, "Lengths");
    let layout = fastpath::gc::layout::LAYOUT_WORD_OFFSET;
    let of_prim = harness::compiled_code(vm, "Lengths$PrimField", "length", DESC).1;
    assert!(
        !of_prim.iter().any(|i| reads_at(i, layout, 4)),
        "PrimField.length loads the array's layout word:\n{}",
        harness::listing(&of_prim)
    );
    // The length word: the second data word, after the class word.
    let length = fastpath::gc::layout::REFS_OFFSET + 8;
    assert!(
        of_prim.iter().any(|i| reads_at(i, length, 4)),
        "PrimField.length does not read the length at its fixed offset:\n{}",
        harness::listing(&of_prim)
    );
    let of_ref = harness::compiled_code(vm, "Lengths$RefParam", "length", DESC).1;
    let reads = dword_reads(&of_ref);
    assert!(
        reads.len() == 1 && reads_at(reads[0], layout, 4),
        "RefParam.length's length is not the layout word's count alone:\n{}",
        harness::listing(&of_ref)
    );
    let of_cast = harness::compiled_code(vm, "Lengths$Cast", "length", DESC).1;
    assert!(
        dword_reads(&of_cast).len() >= 2,
        "Cast.length reads its length in one load (the checks above would prove nothing):\n{}",
        harness::listing(&of_cast)
    );
}

const STORES: &str = r#"
public class Stores {
    static final class Disc {
        Disc next;
    }

    static class Open {
    }

    static class OpenSub extends Open {
    }

    Disc[] discs = new Disc[2];
    Open[] opens = new OpenSub[2];

    // Synchronized, so that each is compiled on its own rather than
    // inlined into `main`.
    // A declared `Disc` into a `Disc[]`: no array of a subclass exists.
    synchronized void putDisc(Disc d) {
        discs[1] = d;
    }

    // A declared `Open` into an `Open[]`, which may be an `OpenSub[]`.
    synchronized void putOpen(Open o) {
        opens[1] = o;
    }

    // A traversal's stack: a local array the loop only reads, an exact
    // `Disc[]` on the way in, keeps that type through the loop's head.
    synchronized int walk(Disc d) {
        Disc[] stack = new Disc[8];
        int top = 0;
        stack[top++] = d;
        int n = 0;
        while (top > 0) {
            Disc x = stack[--top];
            n++;
            if (x.next != null) {
                stack[top++] = x.next;
            }
        }
        return n;
    }

    // The loop stores the local: its head knows no type for it.
    synchronized int mixed(Disc d, int k) {
        Object[] a = new Disc[2];
        int n = 0;
        for (int i = 0; i < k; i++) {
            a[0] = d;
            n += a.length;
            if (i == 1) {
                a = new Object[3];
            }
        }
        return n;
    }

    public static void main(String[] args) {
        Stores s = new Stores();
        Disc chain = new Disc();
        chain.next = new Disc();
        chain.next.next = new Disc();
        System.out.println(s.walk(chain) + " " + s.mixed(chain, 4));
        s.putDisc(new Disc());
        s.putOpen(new OpenSub());
        try {
            s.putOpen(new Open());
        } catch (ArrayStoreException e) {
            System.out.println(e.getMessage());
        }
        System.out.println((s.discs[1] != null) + " " + (s.opens[1] != null));
    }
}
"#;

/// Reads of the array class's component (`Class::component`), which only
/// the store check makes.
fn component_reads(code: &[Instruction]) -> usize {
    let at = std::mem::offset_of!(fastpath_vm::link::Class, component);
    code.iter().filter(|i| reads_at(i, at, 8)).count()
}

#[test]
fn a_store_the_declared_types_prove_has_no_store_check() {
    let dir = harness::scratch_dir("fastpath-vm-jit-decode-stores");
    harness::javac_sources(&dir, &dir, &[("Stores", STORES)]);
    let vm = harness::run_xcomp_in_process(&dir, "Stores");
    let disc = harness::compiled_code(vm, "Stores", "putDisc", "(LStores$Disc;)V").1;
    assert_eq!(
        component_reads(&disc),
        0,
        "putDisc checks its store:\n{}",
        harness::listing(&disc)
    );
    let open = harness::compiled_code(vm, "Stores", "putOpen", "(LStores$Open;)V").1;
    assert!(
        component_reads(&open) >= 1,
        "putOpen has no store check (the test above would prove nothing):\n{}",
        harness::listing(&open)
    );
    let walk = harness::compiled_code(vm, "Stores", "walk", "(LStores$Disc;)I").1;
    assert_eq!(
        component_reads(&walk),
        0,
        "walk checks its stores into the loop's stack:\n{}",
        harness::listing(&walk)
    );
    let mixed = harness::compiled_code(vm, "Stores", "mixed", "(LStores$Disc;I)I").1;
    assert!(
        component_reads(&mixed) >= 1,
        "mixed has no store check though its loop stores the array's local:\n{}",
        harness::listing(&mixed)
    );
}

const CALLS: &str = r#"
public class Calls {
    static abstract class Base {
        abstract int get();
    }

    static final class A extends Base {
        int get() {
            return 1;
        }
    }

    static final class B extends Base {
        int get() {
            return 2;
        }
    }

    static final class C extends Base {
        int get() {
            return 3;
        }
    }

    static final class D extends Base {
        int get() {
            return 4;
        }
    }

    Base base;

    // Synchronized, so that each is compiled on its own. The receiver is
    // a field declared `Base`: its vtable has `get`'s entry.
    synchronized int declared() {
        return base.get();
    }

    // The receiver's type is a `checkcast`'s, which no declared type
    // records: the length is checked.
    synchronized int cast(Object o) {
        return ((Base) o).get();
    }

    public static void main(String[] args) {
        Calls c = new Calls();
        int sum = 0;
        for (Base b : new Base[] {new A(), new B(), new C(), new D()}) {
            c.base = b;
            sum += c.declared() + c.cast(b);
        }
        System.out.println(sum);
    }
}
"#;

/// Reads of a class's vtable length.
fn vtable_length_reads(vm: &Vm, code: &[Instruction]) -> usize {
    let sample = vm
        .loader
        .load("java/lang/Object")
        .expect("Object is loaded")
        .vtable[0];
    let vl = fastpath_vm::jit::layout::VecLayout::probe(sample).expect("the vtable's layout");
    code.iter().filter(|i| reads_at(i, vl.len as usize, 8)).count()
}

#[test]
fn a_declared_receivers_virtual_call_reads_no_vtable_length() {
    let dir = harness::scratch_dir("fastpath-vm-jit-decode-calls");
    harness::javac_sources(&dir, &dir, &[("Calls", CALLS)]);
    let vm = harness::run_xcomp_in_process(&dir, "Calls");
    let declared = harness::compiled_code(vm, "Calls", "declared", "()I").1;
    assert_eq!(
        vtable_length_reads(vm, &declared),
        0,
        "declared checks its receiver's vtable length:\n{}",
        harness::listing(&declared)
    );
    let cast = harness::compiled_code(vm, "Calls", "cast", "(Ljava/lang/Object;)I").1;
    assert!(
        vtable_length_reads(vm, &cast) >= 1,
        "cast reads no vtable length (the test above would prove nothing):\n{}",
        harness::listing(&cast)
    );
}

const DEAD: &str = r#"
public class Dead {
    static final class Node {
        int v;

        Node(int v) {
            this.v = v;
        }
    }

    // Synchronized, so that it stays a call.
    static synchronized int helper(Node n) {
        return n.v + 1;
    }

    // `a` is read before the loop only, `b` in it: at the loop's call
    // `a` is dead (locals: a, b, k, n, i). Synchronized too, so that it is
    // compiled on its own, not inlined into `main`.
    static synchronized int loop(Node a, Node b, int k) {
        int n = a.v;
        for (int i = 0; i < k; i++) {
            n += helper(b);
        }
        return n;
    }

    public static void main(String[] args) {
        System.out.println(loop(new Node(1), new Node(2), 3));
    }
}
"#;

/// A `mov` of 8 bytes from `[base - back]` into a register.
fn loads_frame_word(i: &Instruction, back: u64) -> bool {
    i.mnemonic() == Mnemonic::Mov
        && i.op0_kind() == OpKind::Register
        && i.op1_kind() == OpKind::Memory
        && i.memory_displacement64() == back.wrapping_neg()
        && i.memory_size().size() == 8
}

/// A `mov` of an 8-byte zero into `[base - back]`.
fn clears_frame_word(i: &Instruction, back: u64) -> bool {
    i.mnemonic() == Mnemonic::Mov
        && i.op0_kind() == OpKind::Memory
        && i.memory_displacement64() == back.wrapping_neg()
        && i.memory_size().size() == 8
        && i.op1_kind() == OpKind::Immediate32to64
        && i.immediate32to64() == 0
}

/// A reference local that is dead at a call (`jit/liveness.rs`) is not
/// reloaded after it, so no loop carries it; its frame slot is cleared
/// for the collector. The live one is stored and reloaded. Each stop's
/// code writes its instruction index to the frame's link word first: the
/// loads of `a` come only after stops at instruction 0, the method's
/// entry (its lock, taken through a call, and its poll), before `a` is
/// read.
#[test]
fn a_dead_reference_local_is_cleared_not_reloaded_at_a_call() {
    use fastpath_vm::jit::frame::{off, IN_CALL};
    let dir = harness::scratch_dir("fastpath-vm-jit-decode-dead");
    harness::javac_sources(&dir, &dir, &[("Dead", DEAD)]);
    let vm = harness::run_xcomp_in_process(&dir, "Dead");
    let code = harness::compiled_code(vm, "Dead", "loop", "(LDead$Node;LDead$Node;I)I").1;
    let listing = || harness::listing(&code);
    // Five locals: `a` is the word 5 below the frame's base, `b` 4.
    let (a, b) = (5 * 8, 4 * 8);
    // The instruction index the stop before code[k] wrote, if any.
    let stop_before = |k: usize| {
        code[..k].iter().rev().find_map(|i| {
            (i.mnemonic() == Mnemonic::Mov
                && i.op0_kind() == OpKind::Memory
                && i.memory_displacement64() == off::FRAME_LINK as u64
                && i.op1_kind() == OpKind::Immediate32to64)
                .then(|| i.immediate32to64() as usize & !IN_CALL)
        })
    };
    let clears: Vec<usize> = (0..code.len())
        .filter(|&k| clears_frame_word(&code[k], a))
        .collect();
    assert!(
        clears.iter().any(|&k| stop_before(k).is_some_and(|idx| idx > 0)),
        "a's slot is not cleared at the loop's stops:\n{}",
        listing()
    );
    for k in (0..code.len()).filter(|&k| loads_frame_word(&code[k], a)) {
        assert_eq!(
            stop_before(k),
            Some(0),
            "a, dead past the method's entry, is reloaded at {k}:\n{}",
            listing()
        );
    }
    assert!(
        (0..code.len()).any(|k| loads_frame_word(&code[k], b) && stop_before(k).is_some_and(|idx| idx > 0)),
        "b is not reloaded after the loop's call:\n{}",
        listing()
    );
}

const NARROW: &str = r#"
public class Narrow {
    static final class Flags {
        boolean on;
        byte small;
        char letter;
        short half;
    }

    // Four implementations: `main`'s interface call stays a call, and
    // `Constants.fill` is compiled on its own.
    interface Filler {
        void fill(boolean[] z, byte[] b, char[] c, short[] s, Flags f);
    }

    // Constants stored into narrow array elements and fields (bastore,
    // castore, sastore, putfield Z/B/C/S), each truncated as the JVM
    // does: `true` as 1, (byte) -1 as 0xff, (short) -2 as 0xfffe. (A
    // byte array's element is stored as 1 here: `bastore` of another
    // constant selects between it and its low bit, the array boolean or
    // byte, which the code does not tell.)
    static final class Constants implements Filler {
        public void fill(boolean[] z, byte[] b, char[] c, short[] s, Flags f) {
            z[1] = true;
            b[2] = (byte) 1;
            c[3] = 'x';
            s[4] = (short) -2;
            f.on = true;
            f.small = (byte) -1;
            f.letter = 'y';
            f.half = (short) 40000;
        }
    }

    static final class None1 implements Filler {
        public void fill(boolean[] z, byte[] b, char[] c, short[] s, Flags f) {
        }
    }

    static final class None2 implements Filler {
        public void fill(boolean[] z, byte[] b, char[] c, short[] s, Flags f) {
        }
    }

    static final class None3 implements Filler {
        public void fill(boolean[] z, byte[] b, char[] c, short[] s, Flags f) {
        }
    }

    public static void main(String[] args) {
        boolean[] z = new boolean[2];
        byte[] b = new byte[3];
        char[] c = new char[4];
        short[] s = new short[5];
        Flags f = new Flags();
        for (Filler filler : new Filler[] {new None1(), new None2(), new None3(), new Constants()}) {
            filler.fill(z, b, c, s, f);
        }
        String got = z[1] + " " + b[2] + " " + c[3] + " " + s[4] + " " + f.on + " " + f.small + " " + f.letter
                + " " + f.half;
        if (!got.equals("true 1 x -2 true -1 y -25536")) {
            throw new Error(got);
        }
    }
}
"#;

/// A constant stored into a narrow element or field (`boolean`, `byte`,
/// `char`, `short`) is one `mov` of an immediate to memory, the constant
/// truncated to the store's width, not a register loaded with it first;
/// `main` checks the values stored.
#[test]
fn a_narrow_constant_store_is_one_immediate_move() {
    let dir = harness::scratch_dir("fastpath-vm-jit-decode-narrow");
    harness::javac_sources(&dir, &dir, &[("Narrow", NARROW)]);
    let vm = harness::run_xcomp_in_process(&dir, "Narrow");
    let code = harness::compiled_code(vm, "Narrow$Constants", "fill", "([Z[B[C[SLNarrow$Flags;)V").1;
    let listing = harness::listing(&code);
    let stores = |bytes: usize| -> Vec<u64> {
        code.iter()
            .filter(|i| {
                i.mnemonic() == Mnemonic::Mov
                    && i.op0_kind() == OpKind::Memory
                    && i.memory_size().size() == bytes
            })
            .map(|i| match i.op1_kind() {
                OpKind::Immediate8 => u64::from(i.immediate8()),
                OpKind::Immediate16 => u64::from(i.immediate16()),
                // A register stored: not an immediate.
                _ => u64::MAX,
            })
            .collect()
    };
    let mut bytes = stores(1);
    bytes.sort_unstable();
    assert_eq!(bytes, vec![1, 1, 1, 0xff], "the byte-wide stores:\n{listing}");
    let mut words = stores(2);
    words.sort_unstable();
    assert_eq!(
        words,
        vec![0x78, 0x79, 0x9c40, 0xfffe],
        "the word-wide stores:\n{listing}"
    );
}

const UNWIND: &str = r#"
public class Unwind {
    // Four implementations: `main`'s interface calls stay calls, and
    // `Real`'s methods are compiled on their own.
    interface Ops {
        int pick(Object a, Object b, Object c, int[] arr, int i);

        int caught(Object a, Object b, int[] arr, int i);
    }

    static final class Real implements Ops {
        // `arr[i]` throws (null, or an index out of bounds) with `a`, `b`
        // and `c` live in the normal flow; no handler: the exception
        // leaves.
        public int pick(Object a, Object b, Object c, int[] arr, int i) {
            int x = arr[i];
            return x + (a == b ? 1 : 0) + (c == null ? 2 : 0);
        }

        // The same throw caught here: the handler reads `a` and `b`.
        public int caught(Object a, Object b, int[] arr, int i) {
            try {
                return arr[i] + (a == b ? 1 : 0);
            } catch (RuntimeException e) {
                return a == b ? -1 : -2;
            }
        }
    }

    static class Zero implements Ops {
        public int pick(Object a, Object b, Object c, int[] arr, int i) {
            return 0;
        }

        public int caught(Object a, Object b, int[] arr, int i) {
            return 0;
        }
    }

    static final class Zero2 extends Zero {
    }

    static final class Zero3 extends Zero {
    }

    public static void main(String[] args) {
        Object o = new Object();
        int[] arr = {5, 6};
        int zeros = 0;
        for (Ops z : new Ops[] {new Zero(), new Zero2(), new Zero3()}) {
            zeros += z.pick(o, o, o, arr, 0) + z.caught(o, o, arr, 0);
        }
        Ops r = new Real();
        int sum = zeros + r.pick(o, o, null, arr, 1) + r.caught(o, o, arr, 0) + r.caught(o, null, null, 0)
                + r.caught(o, o, arr, 2);
        String got = "" + sum;
        try {
            r.pick(o, o, o, arr, 2);
            got += " none";
        } catch (ArrayIndexOutOfBoundsException e) {
            got += " " + e.getMessage() + " at " + e.getStackTrace()[0].getMethodName();
        }
        try {
            r.pick(o, o, o, null, 0);
            got += " none";
        } catch (NullPointerException e) {
            got += " npe at " + e.getStackTrace()[0].getMethodName();
        }
        if (!got.equals("12 Index 2 out of bounds for length 2 at pick npe at pick")) {
            throw new Error(got);
        }
    }
}
"#;

/// The register stores on the straight line that ends at instruction
/// `k` (a call): back to the previous branch, jump or return.
fn register_stores_before(code: &[Instruction], k: usize) -> usize {
    code[..k]
        .iter()
        .rev()
        .take_while(|i| {
            matches!(i.flow_control(), FlowControl::Next | FlowControl::Call) && !harness::is_call(i)
        })
        .filter(|i| {
            i.mnemonic() == Mnemonic::Mov
                && i.op0_kind() == OpKind::Memory
                && i.op1_kind() == OpKind::Register
        })
        .count()
}

/// A throw whose exception leaves the compiled method stores no
/// reference for the collector (`frame.rs`'s `UNWINDING`): its stop
/// writes the frame's header words and position and publishes it, at
/// most three register stores (the method's address, a 64-bit constant,
/// and the publication's two; seven each before, the live `a`, `b` and
/// `c` among them), where a stop that can resume stores each live
/// reference besides (the caught throw: `a` and `b`, which its handler
/// reads). `main` checks both methods' results and the stack traces of
/// the exceptions that leave.
#[test]
fn a_throw_that_leaves_the_method_stores_no_reference() {
    let dir = harness::scratch_dir("fastpath-vm-jit-decode-unwind");
    harness::javac_sources(&dir, &dir, &[("Unwind", UNWIND)]);
    let vm = harness::run_xcomp_in_process(&dir, "Unwind");
    let helpers = harness::helper_table(vm);
    use fastpath_vm::jit::helpers::Helper;
    let throws = [
        helpers.addr(Helper::ThrowNpe) as u64,
        helpers.addr(Helper::ThrowIndex) as u64,
    ];
    let stores_at_throws = |name: &str, desc: &str| -> (Vec<usize>, String) {
        let code = harness::compiled_code(vm, "Unwind$Real", name, desc).1;
        let counts = (0..code.len())
            .filter(|&k| {
                throws
                    .iter()
                    .any(|&t| harness::calls_to(&code[..=k], t) > harness::calls_to(&code[..k], t))
            })
            .map(|k| register_stores_before(&code, k))
            .collect();
        (counts, harness::listing(&code))
    };
    let (left, listing) = stores_at_throws(
        "pick",
        "(Ljava/lang/Object;Ljava/lang/Object;Ljava/lang/Object;[II)I",
    );
    assert_eq!(left.len(), 2, "pick's two throws (null, index):\n{listing}");
    assert!(
        left.iter().all(|&n| n <= 3),
        "pick's throws store {left:?} registers, more than the header's and the publication's three:\n{listing}"
    );
    let (kept, listing) = stores_at_throws("caught", "(Ljava/lang/Object;Ljava/lang/Object;[II)I");
    assert!(
        !kept.is_empty() && kept.iter().all(|&n| n >= 4),
        "caught's throws store {kept:?} registers, not a and b besides the header's and the publication's:\n{listing}"
    );
}

const HOISTED: &str = r#"
public class Hoisted {
    static Object keep;
    static String trace = "";
    static int calls;

    static synchronized int bump(int x) {
        calls++;
        keep = new int[256];
        if (calls == 777) {
            StackTraceElement[] st = new Throwable().getStackTrace(); // TRACE
            for (int i = 0; i < 4; i++) {
                trace += st[i].getMethodName() + ":" + st[i].getLineNumber() + " ";
            }
        }
        return x + 1;
    }

    static int inner(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s = bump(s) + i; // CALL
        }
        return s;
    }

    // Synchronized: compiled on its own (not inlined into `main`).
    static synchronized int run(int n) {
        return inner(n) + 1; // INNER
    }

    public static void main(String[] args) {
        long total = 0;
        for (int r = 0; r < 400; r++) {
            total += run(100); // RUN
        }
        System.out.println(calls + " " + total + " " + trace);
    }
}
"#;

/// A loop with a call in an inlined callee (`inner`, inlined into `run`,
/// its loop calling `bump`, which being `synchronized` keeps from being
/// inlined, as `run` is kept out of `main`) has its frame's header written once, where the callee
/// is entered, and its head keeps it (`Translator::loop_header_words`):
/// no instruction of `run`'s code on a cycle holds `inner`'s method
/// address (the loop's call wrote the callee frame's method, flags and
/// caller, and `run`'s position, every trip before). The stack walks
/// that read those words see the right frames: a stack trace from `bump`
/// names `inner` at the loop's call and `run` at its call of `inner`, and
/// the collector walks them under `-Xcomp` with its verifier after every
/// cycle (each call allocates a kilobyte, 40 MB in all, in a 16 MiB heap).
#[test]
fn a_loop_in_an_inlined_callee_keeps_its_frame_header() {
    let dir = harness::scratch_dir("fastpath-vm-jit-decode-hoisted");
    harness::javac_sources(&dir, &dir, &[("Hoisted", HOISTED)]);
    let line_of = |marker: &str| {
        HOISTED
            .lines()
            .position(|l| l.contains(marker))
            .expect("a marker")
            + 1
    };
    // `inner` returns 100 + (0 + 1 + ... + 99) = 5050.
    let want = format!(
        "{} {} bump:{} inner:{} run:{} main:{} \n",
        400 * 100,
        400 * 5051,
        line_of("// TRACE"),
        line_of("// CALL"),
        line_of("// INNER"),
        line_of("// RUN")
    );
    harness::expect_in_tiers(&dir, "Hoisted", &harness::XCOMP_COLLECTING, &want);
    let vm = harness::run_xcomp_in_process(&dir, "Hoisted");
    let c = vm.loader.load("Hoisted").expect("Hoisted is loaded");
    let inner = fastpath_vm::link::resolve::find_method(c, "inner", "(I)I").expect("Hoisted.inner");
    let method = inner as *const fastpath_vm::link::Method as u64;
    let code = harness::compiled_code(vm, "Hoisted", "run", "(I)I").1;
    let holds_method = |i: &Instruction| {
        (0..i.op_count()).any(|k| {
            matches!(
                i.op_kind(k),
                OpKind::Immediate32to64 | OpKind::Immediate64 | OpKind::Immediate32
            ) && i.immediate(k) == method
        })
    };
    let succ = harness::successors(&code);
    // Whether instruction `k` reaches itself again.
    let on_cycle = |k: usize| {
        let mut seen = vec![false; code.len()];
        let mut work = succ[k].clone();
        while let Some(j) = work.pop() {
            if j == k {
                return true;
            }
            if j < code.len() && !std::mem::replace(&mut seen[j], true) {
                work.extend(succ[j].iter().copied());
            }
        }
        false
    };
    let listing = harness::listing(&code);
    assert!(
        (0..code.len()).any(|k| harness::is_call(&code[k]) && on_cycle(k)),
        "run's code has the loop's call:\n{listing}"
    );
    assert!(
        code.iter().any(holds_method),
        "run writes inner's frame header somewhere:\n{listing}"
    );
    let in_loop: Vec<String> = (0..code.len())
        .filter(|&k| holds_method(&code[k]) && on_cycle(k))
        .map(|k| format!("{:x}: {}", code[k].ip(), code[k]))
        .collect();
    assert!(
        in_loop.is_empty(),
        "inner's method address in the loop: {in_loop:?}\n{listing}"
    );
}
