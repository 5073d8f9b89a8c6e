//! Self-recursive calls in compiled code (`jit/translate.rs`,
//! `call_self`): a statically bound call of the method being compiled is a
//! direct call to the function's own start, linked at installation
//! (`fastpath_cranelift::link`), with no load of `Method::jit`'s entry and
//! no interpreted path.
//!
//! `SelfCalls` runs every kind of self-call (static, private, final, a
//! final class's; the same method on another receiver), an exception
//! thrown deep in the recursion through handlers in self-called frames, a
//! `StackOverflowError` from unbounded self-recursion (caught three times,
//! the method running on after each), references held across self-calls
//! while the callees allocate in a heap that must collect (the collector
//! moves them; the verifier runs after every cycle), and an overriding
//! subclass a non-final virtual call of the same method must reach; under
//! `-Xcomp`, after 2 calls and under the default tiers, and with a 16 MiB
//! heap under the passive and the concurrent collector; its output must be
//! HotSpot 25's (recorded below). The decoder check (x86-64) reads the
//! installed code of a self-recursive method: a `call rel32` whose target
//! is the method's own entry, and no read of a method's compiled entry.
//!
//! `InARow` makes calls in a row from an inlined callee while the callees
//! allocate in a heap that must collect, a local given a new object
//! between two of them: a safepoint writes only the frame words that
//! changed since the last one (`jit/facts.rs`, `frame_words`), so a word
//! skipped wrongly leaves the collector a stale root; its output must be
//! the interpreter's under `-Xcomp` with both collectors and the verifier.
//!
//! Interface call sites' inline caches (`runtime::ItableCache`) and type
//! checks against a class through the class display inline (`emit.rs`,
//! `is_instance`): `Dispatch` warms sites on one class, then calls them
//! with others (an overriding subclass, an inheriting one, another
//! implementation, a default method), from two threads at once, and
//! checks `instanceof`/`checkcast` against classes for every relation
//! (itself, deeper, shallower, sibling, unrelated, null, arrays), and
//! array stores against every kind of component (`Object`, a superclass,
//! a subclass's array seen as its superclass's, an interface, an array);
//! its output must be HotSpot 25's under the three tiers. The decoder check
//! finds no call of the `IsSubclass` helper in a method whose type checks
//! are all against classes.

use crate::harness;

const PROGRAM: &str = r#"
// Self-recursive calls, which compiled code makes as direct calls to its own start: static,
// private (invokevirtual of a private method), final, and a final class's method; a call of
// the same method through another receiver; an exception thrown deep in the recursion and
// caught on the way out (a handler in a self-called frame) and at the top; a
// StackOverflowError from unbounded self-recursion, caught, after which the method still
// runs; references held across self-calls while the callees allocate enough to collect (a
// small heap), the objects moved by the collector read after each call; an overriding
// subclass whose method is not the one a non-final virtual call of the same name reaches.
public class SelfCalls {
    static final class Node {
        final int value;
        Node next;

        Node(int value, Node next) {
            this.value = value;
            this.next = next;
        }
    }

    int depthSeen;
    final int[] counts = new int[4];

    static int fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static long sumTo(long n) {
        return n == 0 ? 0 : n + sumTo(n - 1);
    }

    private int place(int c, int[] rows) {
        if (c == rows.length) {
            counts[0]++;
            return 1;
        }
        int found = 0;
        for (int r = 0; r < rows.length; r++) {
            boolean ok = true;
            for (int p = 0; p < c; p++) {
                if (rows[p] == r || Math.abs(rows[p] - r) == c - p) {
                    ok = false;
                }
            }
            if (ok) {
                rows[c] = r;
                found += place(c + 1, rows);
            }
        }
        return found;
    }

    final double half(double x, int n) {
        return n == 0 ? x : half(x / 2, n - 1) + 0.5;
    }

    // A call of the same method on another receiver.
    private int countDown(SelfCalls other, int n) {
        depthSeen = Math.max(depthSeen, n);
        return n == 0 ? 0 : 1 + other.countDown(this, n - 1);
    }

    // Throws at depth 0; a handler at every depth divisible by 5 adds and rethrows.
    static int throwAt(int n, int[] caught) {
        if (n == 0) {
            throw new IllegalStateException("bottom");
        }
        if (n % 5 == 0) {
            try {
                return throwAt(n - 1, caught) + 1;
            } catch (IllegalStateException e) {
                caught[0] += n;
                throw new IllegalStateException(e.getMessage() + "<" + n);
            }
        }
        return throwAt(n - 1, caught) + 1;
    }

    static int unbounded(int n) {
        return unbounded(n + 1) + 1;
    }

    // Builds a list of n nodes, allocating garbage at every level, and checks the part built
    // so far after every self-call (the collector moves it meanwhile).
    static Node build(int n, Node tail) {
        if (n == 0) {
            return tail;
        }
        int[] garbage = new int[256 + n % 7];
        garbage[garbage.length - 1] = n;
        Node here = new Node(n, tail);
        Node rest = build(n - 1, here);
        if (here.value != n || here.next != tail || garbage[garbage.length - 1] != n) {
            throw new AssertionError("moved object lost at " + n);
        }
        return rest;
    }

    static int length(Node n) {
        return n == null ? 0 : 1 + length(n.next);
    }

    int chain(int n) {
        return n == 0 ? 0 : 1 + chain(n - 1);
    }

    static final class Sub extends SelfCalls {
        @Override
        int chain(int n) {
            return 1000 + (n == 0 ? 0 : super.chain(n - 1));
        }
    }

    public static void main(String[] args) {
        SelfCalls s = new SelfCalls();
        long sum = 0;
        for (int k = 0; k < 300; k++) {
            sum += fib(12 + k % 3);
            sum += sumTo(50 + k);
            sum += s.place(0, new int[5 + k % 2]);
            sum += (long) s.half(1024.0, 3 + k % 4);
            sum += s.countDown(new SelfCalls(), 20 + k % 10);
            sum += s.chain(10);
        }
        System.out.println("warm " + sum + " " + s.counts[0] + " " + s.depthSeen);
        System.out.println("fib " + fib(25));
        System.out.println("sumTo " + sumTo(3000));
        System.out.println("queens8 " + s.place(0, new int[8]));
        System.out.println("half " + s.half(3.0, 10));
        int[] caught = new int[1];
        for (int k = 0; k < 200; k++) {
            try {
                throwAt(23, caught);
            } catch (IllegalStateException e) {
                if (k == 199) {
                    System.out.println("throwAt " + e.getMessage() + " " + caught[0]);
                }
            }
        }
        for (int k = 0; k < 3; k++) {
            try {
                unbounded(0);
            } catch (StackOverflowError e) {
                System.out.println("overflow " + k + " then " + fib(15));
            }
        }
        long total = 0;
        for (int k = 0; k < 400; k++) {
            total += length(build(200, null));
        }
        System.out.println("built " + total);
        SelfCalls sub = new Sub();
        System.out.println("chain " + s.chain(30) + " " + sub.chain(5));
    }
}
"#;

/// `SelfCalls`'s output on HotSpot 25 (`java SelfCalls`).
const OUT: &str = "warm 7231400 2100 29
fib 75025
sumTo 4501500
queens8 92
half 5.0029296875
throwAt bottom<5<10<15<20 10000
overflow 0 then 610
overflow 1 then 610
overflow 2 then 610
built 80000
chain 30 3002
";

const DISPATCH: &str = r#"
// Interface calls through compiled call sites' inline caches (the first receiver class a
// site sees, cached; every other class looked up), and type checks against classes through
// the class display inline: a site that turns polymorphic after warming on one class; a
// subclass that overrides the cached class's method and one that inherits it; a default
// method and its override; two threads filling the same sites with different classes at
// once; instanceof and checkcast against a class for the class itself, a deeper subclass, a
// superclass instance, a sibling at the same depth, an unrelated class, null and arrays; array
// stores checked against a class component (Object, a superclass, a subclass's array seen as
// its superclass's), an interface component and an array component.
public class Dispatch {
    interface Shape {
        int area();

        default int sides() {
            return 0;
        }
    }

    static class Square implements Shape {
        final int s;

        Square(int s) {
            this.s = s;
        }

        public int area() {
            return s * s;
        }

        public int sides() {
            return 4;
        }
    }

    static class Tile extends Square {
        Tile(int s) {
            super(s);
        }

        @Override
        public int area() {
            return 1000 + s;
        }
    }

    static class Plain extends Square {
        Plain(int s) {
            super(s);
        }
    }

    static final class Circle implements Shape {
        final int r;

        Circle(int r) {
            this.r = r;
        }

        public int area() {
            return 3 * r * r;
        }
    }

    static class A {}

    static class B extends A {}

    static class C extends B {}

    static class D extends B {}

    static int total(Shape[] shapes) {
        int t = 0;
        for (Shape s : shapes) {
            t += s.area() * 10 + s.sides();
        }
        return t;
    }

    static int one(Shape s) {
        return s.area() + s.sides();
    }

    static String kinds(Object o) {
        StringBuilder sb = new StringBuilder();
        sb.append(o instanceof A ? 'A' : '-');
        sb.append(o instanceof B ? 'B' : '-');
        sb.append(o instanceof C ? 'C' : '-');
        sb.append(o instanceof D ? 'D' : '-');
        sb.append(o instanceof Square ? 'S' : '-');
        sb.append(o instanceof Object ? 'O' : '-');
        return sb.toString();
    }

    static String cast(Object o) {
        try {
            B b = (B) o;
            return b == null ? "null" : "B";
        } catch (ClassCastException e) {
            return "CCE";
        }
    }

    // Stores a value into an array, the store check's result printed.
    static String store(Object[] array, Object value) {
        try {
            array[0] = value;
            return "ok";
        } catch (ArrayStoreException e) {
            return "ASE";
        }
    }

    static String stores() {
        StringBuilder sb = new StringBuilder();
        Object[] objects = new Object[1];
        A[] as = new A[1];
        A[] bsAsAs = new B[1];
        Shape[] shapes = new Shape[1];
        Object[][] nested = new Object[1][];
        Object[] values = {"s", new C(), new int[1], new A(), new B(), new D(), new Tile(1),
            new String[1], null};
        for (Object v : values) {
            sb.append(store(objects, v).charAt(0));
            sb.append(store(as, v).charAt(0));
            sb.append(store(bsAsAs, v).charAt(0));
            sb.append(store(shapes, v).charAt(0));
            sb.append(store(nested, v).charAt(0));
            sb.append(' ');
        }
        return sb.toString();
    }

    public static void main(String[] args) throws Exception {
        Shape[] squares = new Shape[16];
        for (int i = 0; i < squares.length; i++) {
            squares[i] = new Square(i);
        }
        long warm = 0;
        for (int k = 0; k < 3000; k++) {
            warm += total(squares);
            warm += one(squares[k % 16]);
            warm += kinds(new C()).length();
            warm += cast(new C()).length();
            if (k % 10 == 0) {
                warm += stores().length();
            }
        }
        System.out.println("warm " + warm);
        Shape[] mixed = {new Square(3), new Tile(3), new Plain(3), new Circle(3), new Square(2)};
        System.out.println("mixed " + total(mixed));
        for (Shape s : mixed) {
            System.out.print(one(s) + " ");
        }
        System.out.println();
        Object[] things = {new A(), new B(), new C(), new D(), new Square(1), new Tile(1), null,
            new int[2], new String[1], new C[1], "s"};
        for (Object o : things) {
            System.out.println(kinds(o) + " " + cast(o));
        }
        System.out.println("stores " + stores());
        // Two threads, each warming the shared sites with its own classes.
        Shape[] tiles = new Shape[16];
        Shape[] circles = new Shape[16];
        for (int i = 0; i < 16; i++) {
            tiles[i] = new Tile(i);
            circles[i] = new Circle(i);
        }
        long[] sums = new long[2];
        Thread t1 = new Thread(() -> {
            for (int k = 0; k < 2000; k++) {
                sums[0] += total(tiles) + one(tiles[k % 16]);
            }
        });
        Thread t2 = new Thread(() -> {
            for (int k = 0; k < 2000; k++) {
                sums[1] += total(circles) + one(circles[k % 16]);
            }
        });
        t1.start();
        t2.start();
        t1.join();
        t2.join();
        System.out.println("threads " + sums[0] + " " + sums[1]);
        System.out.println("after " + total(mixed) + " " + total(squares) + " " + total(tiles) + " " + total(circles));
    }
}
"#;

/// `Dispatch`'s output on HotSpot 25 (`java Dispatch`).
const DISPATCH_OUT: &str = "warm 37673220
mixed 10536
13 1007 13 27 8 
A----O CCE
AB---O B
ABC--O B
AB-D-O B
----SO CCE
----SO CCE
------ null
-----O CCE
-----O CCE
-----O CCE
-----O CCE
stores oAAAA oooAA oAAAA ooAAA oooAA oooAA oAAoA oAAAo ooooo 
threads 324551000 74865000
after 10536 12464 161264 37200
";

use harness::Tier;

#[test]
fn self_recursive_calls_match_hotspot() {
    let dir = harness::scratch_dir("fastpath-vm-jit-calls");
    harness::javac_sources(&dir, &dir, &[("SelfCalls", PROGRAM)]);
    let runs: [Tier; 5] = [
        (&[], &["-Xcomp"]),
        (&[("FASTPATH_VM_JIT_THRESHOLD", "2")], &["-Xbatch"]),
        (&[], &[]),
        harness::XCOMP_COLLECTING[0],
        harness::XCOMP_COLLECTING[1],
    ];
    for (env, opts) in runs {
        let (out, err) =
            harness::run_in_tier(&dir, "SelfCalls", (env, opts), &[("FASTPATH_VM_GC_STATS", "1")]);
        assert_eq!(out, OUT, "stdout under {env:?} {opts:?}");
        if opts.contains(&"-Xmx16m") {
            harness::assert_collected_cleanly(&err, &format!("{env:?} {opts:?}"));
        }
    }
}

/// Compiled code holds the thread block in its pinned register and finds
/// the thread's slot stack through the block's runtime context word
/// (`fastpath::thread::RUNTIME_CONTEXT_OFFSET`), which every entry from
/// Rust sets and puts back when compiled code returns: a runtime that
/// keeps its own word there on the same thread (another VM, another
/// language's) finds it again after Java has run.
#[test]
fn entries_from_rust_put_back_the_runtime_context_word() {
    let dir = harness::scratch_dir("fastpath-vm-jit-calls-context");
    harness::javac_sources(&dir, &dir, &[("SelfCalls", PROGRAM)]);
    let block = fastpath::thread::current();
    let theirs = 0x5eed_0008;
    block.set_runtime_context(theirs);
    let vm = harness::run_xcomp_in_process(&dir, "SelfCalls");
    assert_eq!(
        block.runtime_context(),
        theirs,
        "the runtime context word after running SelfCalls compiled"
    );
    block.set_runtime_context(0);
    // The program did enter compiled code (every method under -Xcomp).
    let c = vm.loader.load("SelfCalls").expect("SelfCalls is loaded");
    let fib = fastpath_vm::link::resolve::find_method(c, "fib", "(I)I").expect("SelfCalls.fib");
    assert_ne!(fib.jit.entry(), 0, "SelfCalls.fib was compiled");
}

#[cfg(target_arch = "x86_64")]
#[test]
fn a_self_recursive_call_is_a_direct_call_to_its_own_entry() {
    use iced_x86::{Code, OpKind, Register};

    let dir = harness::scratch_dir("fastpath-vm-jit-calls-decode");
    harness::javac_sources(&dir, &dir, &[("SelfCalls", PROGRAM)]);
    let vm = harness::run_xcomp_in_process(&dir, "SelfCalls");
    for (name, desc) in [("fib", "(I)I"), ("place", "(I[I)I"), ("half", "(DI)D")] {
        let (entry, code) = harness::compiled_code(vm, "SelfCalls", name, desc);
        let shown: String = code.iter().map(|i| format!("{:x}: {i}\n", i.ip())).collect();
        let to_self = code
            .iter()
            .filter(|i| i.code() == Code::Call_rel32_64 && i.near_branch_target() == entry as u64)
            .count();
        assert!(
            to_self >= 1,
            "SelfCalls.{name} makes no direct call to itself:\n{shown}"
        );
        // No read of a method's compiled entry (`Method::jit`): the
        // indirect call through it is gone (the calls left are the
        // helpers', on cold paths).
        let entry_field = (std::mem::offset_of!(fastpath_vm::link::class::Method, jit)
            + fastpath_vm::jit::MethodJit::ENTRY_OFFSET) as u64;
        let entry_reads = code
            .iter()
            .filter(|i| {
                (0..i.op_count()).any(|k| i.op_kind(k) == OpKind::Memory)
                    && i.memory_displacement64() == entry_field
                    && i.memory_index() == Register::None
            })
            .count();
        if name != "place" {
            assert_eq!(
                entry_reads, 0,
                "SelfCalls.{name} reads a method's entry:\n{shown}"
            );
        }
        // `fib`'s two calls are each inlined once
        // (`MAX_RECURSIVE_INLINE_LEVEL`), and the inlined bodies' two
        // calls each are to itself: 4; `half`'s one call is inlined,
        // and the inlined body's one call is to itself.
        if name != "place" {
            const { assert!(fastpath_vm::jit::translate::MAX_RECURSIVE_INLINE_LEVEL == 1) };
            let expect = if name == "fib" { 4 } else { 1 };
            assert_eq!(to_self, expect, "SelfCalls.{name}:\n{shown}");
        }
    }
}

#[test]
fn interface_caches_and_class_checks_match_hotspot() {
    let dir = harness::scratch_dir("fastpath-vm-jit-dispatch");
    harness::javac_sources(&dir, &dir, &[("Dispatch", DISPATCH)]);
    let runs: [Tier; 3] = [
        (&[], &["-Xcomp"]),
        (&[("FASTPATH_VM_JIT_THRESHOLD", "2")], &["-Xbatch"]),
        (&[], &[]),
    ];
    harness::expect_in_tiers(&dir, "Dispatch", &runs, DISPATCH_OUT);
}

#[cfg(target_arch = "x86_64")]
#[test]
fn class_checks_call_no_helper() {
    use fastpath_vm::jit::helpers::Helper;
    use fastpath_vm::link::resolve::find_method;
    use iced_x86::{Decoder, DecoderOptions, FlowControl, Mnemonic, OpKind};

    let dir = harness::scratch_dir("fastpath-vm-jit-dispatch-decode");
    harness::javac_sources(&dir, &dir, &[("Dispatch", DISPATCH)]);
    let vm = harness::run_xcomp_in_process(&dir, "Dispatch");
    let helpers = harness::helper_table(vm);
    let is_subclass = helpers.0[Helper::IsSubclass.index() as usize] as u64;
    let class = vm.loader.load("Dispatch").expect("Dispatch is loaded");
    let m = find_method(class, "kinds", "(Ljava/lang/Object;)Ljava/lang/String;").expect("Dispatch.kinds");
    let entry = m.jit.entry();
    assert_ne!(entry, 0, "Dispatch.kinds was not compiled under -Xcomp");
    let (start, end) = vm.jit.code_range(entry).expect("an installed method");
    // SAFETY: `[start, end)` is the method's installed code, mapped
    // readable and executable for the VM's life (the VM is leaked), and
    // never rewritten once installed.
    let bytes = unsafe { std::slice::from_raw_parts(start as *const u8, end - start) };
    let code: Vec<_> = Decoder::with_ip(64, bytes, start as u64, DecoderOptions::NONE)
        .iter()
        .collect();
    let shown: String = code.iter().map(|i| format!("{:x}: {i}\n", i.ip())).collect();
    // Every call's target: a direct call's, or the constant last moved
    // into an indirect call's register.
    let mut targets = Vec::new();
    for (k, i) in code.iter().enumerate() {
        match i.flow_control() {
            FlowControl::Call => targets.push(i.near_branch_target()),
            FlowControl::IndirectCall if i.op0_kind() == OpKind::Register => {
                let r = i.op0_register();
                if let Some(set) = code[..k]
                    .iter()
                    .rev()
                    .find(|p| p.mnemonic() == Mnemonic::Mov && p.op0_register() == r)
                {
                    if set.op1_kind() == OpKind::Immediate64 {
                        targets.push(set.immediate64());
                    }
                }
            }
            _ => {}
        }
    }
    assert!(
        !targets.is_empty(),
        "Dispatch.kinds calls nothing (StringBuilder):\n{shown}"
    );
    assert!(
        !targets.contains(&is_subclass),
        "Dispatch.kinds calls the IsSubclass helper:\n{shown}"
    );
}

/// Calls in a row from an inlined callee, with references live across
/// them while the callees allocate in a heap that must collect: the second
/// and later calls store only what changed of the frames (`facts.rs`'s
/// `frame_words`), so a local given a new object between two calls must be
/// stored again, and each call's reloaded references must be what the
/// collector left in the frame. The interpreter's output is the
/// oracle for `-Xcomp` under the passive and the concurrent collector
/// (16 MiB, the verifier after every cycle) and for the default tiers.
const IN_A_ROW: &str = r#"
public class InARow {
    static final class Node {
        final int v;
        Node next;
        Node(int v, Node next) { this.v = v; this.next = next; }
    }

    // Recursive, so that their calls stay calls where they are inlined.
    static Node grow(Node head, int n) {
        return n == 0 ? head : grow(new Node(n, head), n - 1);
    }

    static int length(Node n) {
        return n == null ? 0 : 1 + length(n.next);
    }

    // Small enough to be inlined into main's loop: calls in a row with
    // a, b and x live across them, x given a new object between two calls
    // (its slot must be written again), y kept through them.
    static int three(Node a, Node b, int k) {
        Node x = grow(null, 40 + k % 7);
        Node y = x;
        int s = x.v;
        x = grow(x, 30);
        s += length(x);
        x = grow(b, 20 + k % 3);
        s += length(x);
        return s + a.v + b.v + x.v + y.v + length(y);
    }

    public static void main(String[] args) {
        Node keep = grow(null, 500);
        long sum = 0;
        for (int i = 0; i < 20000; i++) {
            Node a = new Node(i, keep);
            Node b = new Node(-i, a);
            sum += three(a, b, i);
            sum += a.next.v + b.next.v + length(keep);
            if (i % 2000 == 0) {
                keep = grow(null, 500);
            }
        }
        System.out.println("sum " + sum);
    }
}
"#;

#[test]
fn calls_in_a_row_reload_what_the_collector_moved() {
    let dir = harness::scratch_dir("fastpath-vm-jit-calls-in-a-row");
    harness::javac_sources(&dir, &dir, &[("InARow", IN_A_ROW)]);
    let (want, _) = harness::run_in_tier(&dir, "InARow", (&[], &["-Xint"]), &[]);
    assert!(want.starts_with("sum "), "{want}");
    let runs: [Tier; 3] = [
        (&[], &[]),
        harness::XCOMP_COLLECTING[0],
        harness::XCOMP_COLLECTING[1],
    ];
    for (env, opts) in runs {
        let (out, err) = harness::run_in_tier(&dir, "InARow", (env, opts), &[("FASTPATH_VM_GC_STATS", "1")]);
        assert_eq!(out, want, "stdout under {env:?} {opts:?}");
        if opts.contains(&"-Xmx16m") {
            harness::assert_collected_cleanly(&err, &format!("{env:?} {opts:?}"));
        }
    }
}
