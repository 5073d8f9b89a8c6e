//! Loops as C2 compiles them (`jit/loops.rs`, x86-64): a counted loop
//! over a field's array goes around with no safepoint poll, no load of the
//! field and no test of the GC-state byte (the field and the byte are
//! loaded before the loop, the poll is at the end of each strip of at most
//! 1000 iterations); a loop that must reload the field each iteration (a
//! call in it, a store to the field, a volatile read, a monitor) does. A
//! coarsened `synchronized` loop keeps the rounds it holds its lock in a
//! register and, in SyncCounter's shape, stores nothing to the stack on
//! its way around (its release's runtime call, on a path that joins the
//! loop, clobbers no register).
//! Then the strips' polls at work: a counted loop of a billion
//! iterations, and a loop over a field's array run again and again, stop
//! for the collector while another thread allocates in a small heap, and
//! the arrays the loops write after a stop (which may have moved) hold
//! what they must.
//!
//! The decoder half boots one VM in this process (`-Xcomp`) and reads its
//! installed code back (`harness::compiled_code`); the other half runs
//! `fastpath-vm` under `-Xcomp` and the default tiers (on-stack
//! replacement into the loop), with the concurrent collector and the heap
//! verifier.

#![cfg(target_arch = "x86_64")]

use crate::harness;

use iced_x86::{Instruction, Mnemonic, OpKind, Register};

const PROGRAM: &str = r#"
public class Loops {
    int[] payload = new int[100];
    volatile int seen;

    int fill(int key) {
        for (int i = 0; i < payload.length; i++) {
            payload[i] = key * 31 + i;
        }
        return payload[payload.length - 1];
    }

    int sum7() {
        int s = 0;
        for (int i = 0; i < 7; i++) {
            s += payload[i];
        }
        return s;
    }

    int sumTo(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += payload[i & 63];
        }
        return s;
    }

    void touch(int i) {
        seen = i;
    }

    int called(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            touch(i);
            s += payload[i & 63];
        }
        return s;
    }

    // Eight iterations with a call (`touch`, four implementations: a
    // call): no poll at its back edge (the callee polls at its entry),
    // the field loaded at each iteration (the callee may store it).
    int called8() {
        int s = 0;
        for (int i = 0; i < 8; i++) {
            touch(i);
            s += payload[i];
        }
        return s;
    }

    int stored(int[] b) {
        int s = 0;
        for (int i = 0; i < payload.length; i++) {
            if (i == 50) {
                payload = b;
            }
            s += payload[i];
        }
        return s;
    }

    int volatileRead(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += payload[i & 63] + seen;
        }
        return s;
    }

    int locked(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            synchronized (this) {
                s += payload[i & 63];
            }
        }
        return s;
    }

    long tally;

    // SyncCounter's shape: the coarsened lock's field kept in a register.
    long counter(int n) {
        for (int i = 0; i < n; i++) {
            synchronized (this) {
                tally++;
            }
        }
        return tally;
    }

    // SyncCounter's loop as its lambda has it: a static method, the lock
    // and the bound its parameters (a method with monitors is never
    // inlined, so it is compiled on its own).
    static long lockedTally(Loops c, int n) {
        for (int i = 0; i < n; i++) {
            synchronized (c) {
                c.tally++;
            }
        }
        return c.tally;
    }

    // The field through another reference too (`p` may be `this`): in
    // memory every round.
    long aliasedCounter(Loops p, int n) {
        for (int i = 0; i < n; i++) {
            synchronized (this) {
                tally++;
                p.tally++;
            }
        }
        return tally;
    }

    // Overrides every method (and so do two more classes below): the
    // calls in `main` have four implementations, more than a JIT inlines
    // behind guards, so each method is compiled on its own.
    static class Other extends Loops {
        int fill(int key) { return 0; }
        int sumTo(int n) { return 0; }
        int sum7() { return 0; }
        void touch(int i) { }
        int called(int n) { return 0; }
        int called8() { return 0; }
        int stored(int[] b) { return 0; }
        int volatileRead(int n) { return 0; }
        int locked(int n) { return 0; }
        long counter(int n) { return 0; }
        long aliasedCounter(Loops p, int n) { return 0; }
    }

    static class Second extends Other {
        int fill(int key) { return 0; }
        int sumTo(int n) { return 0; }
        int sum7() { return 0; }
        void touch(int i) { }
        int called(int n) { return 0; }
        int called8() { return 0; }
        int stored(int[] b) { return 0; }
        int volatileRead(int n) { return 0; }
        int locked(int n) { return 0; }
        long counter(int n) { return 0; }
        long aliasedCounter(Loops p, int n) { return 0; }
    }

    static class Third extends Other {
        int fill(int key) { return 0; }
        int sumTo(int n) { return 0; }
        int sum7() { return 0; }
        void touch(int i) { }
        int called(int n) { return 0; }
        int called8() { return 0; }
        int stored(int[] b) { return 0; }
        int volatileRead(int n) { return 0; }
        int locked(int n) { return 0; }
        long counter(int n) { return 0; }
        long aliasedCounter(Loops p, int n) { return 0; }
    }

    public static void main(String[] args) {
        Loops other = new Other();
        Object second = new Second();
        Object third = new Third();
        Loops l = new Loops();
        int last = l.fill(7);
        // 0 + 1 + ... + 63, the payload's first 64 elements less 64 * 217.
        int base = 64 * 217 + 63 * 64 / 2;
        int[] got = {l.sumTo(64), l.called(64), l.volatileRead(64) - 64 * 63, l.locked(64)};
        if (l.sum7() != 7 * 217 + 21) {
            throw new Error("sum7 " + l.sum7());
        }
        if (l.called8() != 8 * 217 + 28 || l.seen != 7) {
            throw new Error("called8 " + l.called8() + " " + l.seen);
        }
        if (l.counter(64) != 64 || l.aliasedCounter(l, 64) != 64 + 128
                || lockedTally(l, 64) != 64 + 128 + 64) {
            throw new Error("tally " + l.tally);
        }
        int stored = l.stored(new int[100]);
        int want = 50 * 217 + 49 * 50 / 2;
        if (last != 217 + 99 || got[0] != base || got[1] != base || got[2] != base || got[3] != base
                || stored != want) {
            throw new Error(last + " " + got[0] + " " + got[1] + " " + got[2] + " " + got[3] + " " + stored);
        }
    }
}
"#;

fn memory(i: &Instruction) -> bool {
    (0..i.op_count()).any(|k| i.op_kind(k) == OpKind::Memory)
}

/// A one-byte read of the thread block at `offset` (the poll word's or
/// the GC-state byte's).
fn byte_read(i: &Instruction, offset: usize) -> bool {
    memory(i) && i.memory_size().size() == 1 && i.memory_displacement64() == offset as u64
}

/// A load of the reference field at offset `disp` of an object (not a
/// stack slot), `slot` bytes wide (the heap's reference width: 8, or 4
/// compressed).
fn field_load(i: &Instruction, disp: u64, slot: usize) -> bool {
    memory(i)
        && i.op0_kind() == OpKind::Register
        && i.memory_displacement64() == disp
        && i.memory_index() == iced_x86::Register::None
        && !matches!(i.memory_base(), iced_x86::Register::RSP | iced_x86::Register::RBP)
        && i.memory_size().size() == slot
}

/// An 8-byte access (load, store or both) of a primitive field of an
/// object: its data address is the object plus its reference slots' bytes
/// (`jit::layout`), an index register (the count scaled by 8 with
/// full-width slots; the padded bytes, unscaled, with compressed ones),
/// not a stack slot.
fn data_access(i: &Instruction) -> bool {
    memory(i)
        && i.memory_index() != iced_x86::Register::None
        && matches!(i.memory_index_scale(), 1 | 8)
        && !matches!(i.memory_base(), iced_x86::Register::RSP | iced_x86::Register::RBP)
        && i.memory_size().size() == 8
}

/// The loop heads of `code`: the targets of its backward branches.
fn heads(code: &[Instruction]) -> Vec<usize> {
    let mut h: Vec<usize> = code
        .iter()
        .filter(|i| harness::is_backward_jump(i))
        .filter_map(|i| code.iter().position(|x| x.ip() == i.near_branch_target()))
        .collect();
    h.sort_unstable();
    h.dedup();
    h
}

/// A coarsened loop's budget test: the rounds kept (a register) compared
/// with an immediate, then `setl` (combined with the lock-stack's answer)
/// or a signed branch (a promoting span's exit, which asks the budget
/// alone): `jit/coarsen.rs`'s `coarsened_exit`.
fn budget_test(c: &[Instruction]) -> Option<usize> {
    (0..c.len().saturating_sub(1)).find(|&k| {
        c[k].mnemonic() == Mnemonic::Cmp
            && c[k].op0_kind() == OpKind::Register
            && matches!(
                c[k].op1_kind(),
                OpKind::Immediate8to64 | OpKind::Immediate32to64 | OpKind::Immediate8 | OpKind::Immediate32
            )
            && matches!(c[k + 1].mnemonic(), Mnemonic::Setl | Mnemonic::Jl | Mnemonic::Jge)
    })
}

/// Whether some way around the loop from `head` (a loop head, or any
/// instruction on a loop) back to it passes no instruction that `avoid`
/// accepts and no call.
fn cycle_avoiding(code: &[Instruction], head: usize, avoid: &dyn Fn(&Instruction) -> bool) -> bool {
    cycle_avoiding_calls_or(code, head, &|i| avoid(i) || harness::is_call(i))
}

/// [`cycle_avoiding`] with the loop's calls on the way: a way from `head`
/// back to it through no instruction `avoid` names (calls return to the
/// next instruction).
fn cycle_avoiding_calls_or(code: &[Instruction], head: usize, avoid: &dyn Fn(&Instruction) -> bool) -> bool {
    // The head is on every way around it (a rare path laid out after the
    // return jumps back to the middle of a loop, so a head can be any of
    // the loop's instructions, the field's load among them).
    if avoid(&code[head]) {
        return false;
    }
    let succ = harness::successors(code);
    let mut seen = vec![false; code.len()];
    let mut stack: Vec<usize> = succ[head].clone();
    while let Some(k) = stack.pop() {
        if k == head {
            return true;
        }
        if k >= code.len() || seen[k] || avoid(&code[k]) {
            continue;
        }
        seen[k] = true;
        stack.extend(succ[k].iter().copied());
    }
    false
}

#[test]
fn counted_loops_hoist_their_field_and_poll_per_strip_and_near_misses_reload() {
    let dir = harness::scratch_dir("fastpath-vm-jit-loops");
    harness::javac_sources(&dir, &dir, &[("Loops", PROGRAM)]);
    let vm = harness::run_xcomp_in_process(&dir, "Loops");
    let slot = vm.heap.ref_width().slot_bytes();
    let poll = fastpath::thread::POLL_WORD_OFFSET;
    let gc_state = fastpath::thread::GC_STATE_OFFSET;
    // `payload`, the class's first reference field (a tagged instance's
    // reference 0).
    let payload = vm.heap.ref_width().tagged_ref_offset(0) as u64;
    let code = |name: &str, desc: &str| harness::compiled_code(vm, "Loops", name, desc).1;
    let around_clear = |c: &[Instruction], avoid: &dyn Fn(&Instruction) -> bool| {
        heads(c).into_iter().any(|h| cycle_avoiding(c, h, avoid))
    };
    for (name, desc) in [("fill", "(I)I"), ("sumTo", "(I)I")] {
        let c = code(name, desc);
        let listing = harness::listing(&c);
        assert!(!heads(&c).is_empty(), "{name}: no loop\n{listing}");
        assert!(
            around_clear(&c, &|i| byte_read(i, poll)),
            "{name}: every way around its loop polls\n{listing}"
        );
        assert!(
            around_clear(&c, &|i| byte_read(i, poll)
                || byte_read(i, gc_state)
                || field_load(i, payload, slot)),
            "{name}: its loop loads the field or tests the GC state each iteration\n{listing}"
        );
        // The poll is still there: at the strips' ends.
        assert!(c.iter().any(|i| byte_read(i, poll)), "{name}: no poll\n{listing}");
    }
    // Seven iterations from 0: no poll on any cycle (no strips either),
    // no load of the field around the loop.
    let c = code("sum7", "()I");
    let listing = harness::listing(&c);
    assert!(!heads(&c).is_empty(), "sum7: no loop\n{listing}");
    assert!(
        (0..c.len()).all(|k| !byte_read(&c[k], poll) || !cycle_avoiding(&c, k, &|_| false)),
        "sum7: a poll in its loop\n{listing}"
    );
    assert!(
        around_clear(&c, &|i| field_load(i, payload, slot)),
        "sum7: its loop loads the field\n{listing}"
    );
    // Eight iterations with a call in them: no poll on any cycle either,
    // but the call and the field's load on every way around.
    let c = code("called8", "()I");
    let listing = harness::listing(&c);
    let loop_heads = heads(&c);
    assert!(!loop_heads.is_empty(), "called8: no loop\n{listing}");
    assert!(
        (0..c.len()).all(|k| !byte_read(&c[k], poll) || !cycle_avoiding_calls_or(&c, k, &|_| false)),
        "called8: a poll in its loop\n{listing}"
    );
    let clear_of = |avoid: &dyn Fn(&Instruction) -> bool| {
        loop_heads.iter().any(|&h| cycle_avoiding_calls_or(&c, h, avoid))
    };
    assert!(
        clear_of(&|_| false) && !clear_of(&harness::is_call) && !clear_of(&|i| field_load(i, payload, slot)),
        "called8: no way around its loop, or one without the call or the field's load\n{listing}"
    );
    // A coarsened lock's field (`jit/promote.rs`): some way around the
    // loop (the lock kept, the enter skipped) neither loads nor stores it;
    // it is loaded after a real enter and stored before a release. With
    // the field also written through another reference, every way
    // around reads and writes it in memory.
    let c = code("counter", "(I)J");
    let listing = harness::listing(&c);
    assert!(!heads(&c).is_empty(), "counter: no loop\n{listing}");
    assert!(
        c.iter().any(data_access),
        "counter: the field is never loaded or stored\n{listing}"
    );
    assert!(
        around_clear(&c, &data_access),
        "counter: every way around its loop accesses the field in memory\n{listing}"
    );
    // The coarsened lock's release calls the runtime through the
    // register-preserving stub (`jit/preserve.rs`), so the rounds kept,
    // compared with the budget every round (a register compared with an
    // immediate, then `setl`), stay in a register: some way around the
    // loop through that test loads the count from no stack slot. (Through
    // a System V call the count went to a stack slot, loaded back every
    // round.)
    let budget = budget_test(&c).unwrap_or_else(|| panic!("counter: no budget test\n{listing}"));
    let kept = c[budget].op0_register().full_register();
    let reloads_kept = |i: &Instruction| {
        i.op0_kind() == OpKind::Register
            && i.op0_register().full_register() == kept
            && memory(i)
            && matches!(i.memory_base(), Register::RSP | Register::RBP)
    };
    assert!(
        cycle_avoiding(&c, budget, &reloads_kept),
        "counter: every way around its loop loads the rounds kept ({kept:?}) from the stack\n{listing}"
    );
    // SyncCounter's shape, the lock and the bound parameters: some way
    // around the loop through the budget test stores nothing to the stack
    // (through a System V release the bound and the lock went to stack
    // slots, stored and loaded back every round).
    let c = code("lockedTally", "(LLoops;I)J");
    let listing = harness::listing(&c);
    let budget = budget_test(&c).unwrap_or_else(|| panic!("lockedTally: no budget test\n{listing}"));
    let stack_store = |i: &Instruction| {
        i.op0_kind() == OpKind::Memory && matches!(i.memory_base(), Register::RSP | Register::RBP)
    };
    assert!(
        cycle_avoiding(&c, budget, &stack_store),
        "lockedTally: every way around its loop stores to the stack\n{listing}"
    );
    let c = code("aliasedCounter", "(LLoops;I)J");
    let listing = harness::listing(&c);
    assert!(!heads(&c).is_empty(), "aliasedCounter: no loop\n{listing}");
    assert!(
        !around_clear(&c, &data_access),
        "aliasedCounter: a way around its loop keeps the field out of memory\n{listing}"
    );
    // A call, a store to the field, a volatile read, a monitor: every way
    // around the loop loads the field (a call's way calls).
    for (name, desc) in [
        ("called", "(I)I"),
        ("stored", "([I)I"),
        ("volatileRead", "(I)I"),
        ("locked", "(I)I"),
    ] {
        let c = code(name, desc);
        let listing = harness::listing(&c);
        assert!(!heads(&c).is_empty(), "{name}: no loop\n{listing}");
        assert!(
            !around_clear(&c, &|i| field_load(i, payload, slot)),
            "{name}: a way around its loop does not load the field\n{listing}"
        );
    }
}

const STOPS: &str = r#"
public class Stops {
    static volatile boolean done;
    static volatile int made;
    int[] data = new int[4096];

    static int spin(int n) {
        int x = 1;
        for (int i = 0; i < n; i++) {
            x = x * 31 + i;
        }
        return x;
    }

    void add(int k) {
        for (int i = 0; i < data.length; i++) {
            data[i] += i ^ k;
        }
    }

    public static void main(String[] args) throws Exception {
        Thread churn = new Thread(() -> {
            Object[] keep = new Object[64];
            int k = 0;
            while (!done) {
                keep[k++ & 63] = new int[512];
                made = k;
            }
        });
        churn.start();
        while (made == 0) {
            Thread.onSpinWait();
        }
        // A billion iterations: while they run, the other thread
        // allocates 24 MB more in the 16 MB heap, which it can only do if
        // the loop stops for the collector's cycles (without a stop it
        // waits for the first one after at most 8,000 arrays).
        int before = made;
        int x = spin(1_000_000_000);
        int during = made - before;
        // The field's array, loaded before its loop, again after each stop.
        Stops s = new Stops();
        int rounds = 1000;
        for (int r = 0; r < rounds; r++) {
            s.add(r);
        }
        done = true;
        churn.join();
        int[] want = new int[4096];
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < 4096; i++) {
                want[i] += i ^ r;
            }
        }
        boolean same = java.util.Arrays.equals(want, s.data);
        System.out.println((during >= 12_000) + " " + same + " " + x);
    }
}
"#;

#[test]
fn long_counted_loops_stop_for_the_collector() {
    let dir = harness::scratch_dir("fastpath-vm-jit-loop-stops");
    harness::javac_sources(&dir, &dir, &[("Stops", STOPS)]);
    // `spin(1_000_000_000)`: `x = x * 31 + i` from 1, wrapping (computed
    // once by the same loop in Rust, `i32::wrapping_mul`/`wrapping_add`).
    let want = "true true -568974079\n";
    let runs: [harness::Tier; 2] = [
        (
            &[
                ("FASTPATH_GC_MODE", "concurrent"),
                ("FASTPATH_VM_VERIFY_HEAP", "1"),
            ],
            &["-Xcomp", "-Xmx16m"],
        ),
        (&[("FASTPATH_GC_MODE", "concurrent")], &["-Xmx16m"]),
    ];
    for (env, opts) in runs {
        let (out, err) = harness::run_in_tier(&dir, "Stops", (env, opts), &[("FASTPATH_VM_GC_STATS", "1")]);
        assert_eq!(out, want, "stdout under {env:?} {opts:?}\n{err}");
        let stats = err
            .lines()
            .find(|l| l.starts_with("fastpath-vm gc: "))
            .unwrap_or_else(|| panic!("no GC summary under {env:?} {opts:?}:\n{err}"));
        assert!(stats.contains(" 0 errors"), "{stats}");
    }
}
