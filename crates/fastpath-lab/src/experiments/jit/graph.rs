//! Seed 003's question of JIT code: what the barrier fast paths cost a
//! whole workload when the collector is passive (every barrier compiled in,
//! none ever taking its slow path). The kernel is `fastpath gc`'s `graph`
//! workload (one operation rewires a 1000-node graph of 4-edge nodes: two
//! node loads from the node array, an edge swap between them, a CAS of the
//! next edge, a visit counter bumped) generated as machine code with
//! dynasm-rs, the fastpath-jit templates inlined at every access the
//! barrier set guards, and installed in fastpath's `CodeCache`.
//!
//! Where it sits: a table of [`super`]. Per operation the kernel issues
//! 5 reference loads (each followed by the LRB idle test when `lrb` is in
//! the set), 2 reference stores and 1 reference CAS (each preceded by the
//! SATB idle test and followed by the card mark of the object, plain or
//! conditional, for `satb`, `card` and `card-cond`, or by G1's filtered
//! card barrier on the field for `g1-card` and `g1`), 2 objects read and
//! written through their Brooks forwarding word (`brooks-rb`: a node's
//! accesses go through one read barrier, as C2 hoists it; `brooks-wb`:
//! through one write barrier instead, as both objects are written and
//! C2 drops a read barrier a write barrier dominates), the CAS with
//! its failure test (`cas`), and a data word bumped.
//!
//! The graph lives in a fastpath [`Heap`] in passive mode, with the barrier
//! set of the row (so the thread block's GC state, card base and the
//! object layout are the real ones): a node array (1000 reference fields)
//! and 1000 nodes of 4 references and 1 data word, allocated and linked
//! through the mutator, on the thread that runs the kernel. Nothing
//! allocates while the kernel runs, so no collection moves an object
//! between [`Kernel::new`]'s reading of the array's address and the runs
//! (the contract of generated code holding raw addresses: no stop inside
//! it). Register use per operation:
//! ```text
//! r11 seed (LCG) · r12 a · r13 b · r14 a.e[s] · r15 b.e[u] · r9 s, then k · r10 u
//! rbx, rax: card-mark address and base, CAS expected value · r8: a Brooks-resolved object
//! ```

use dynasmrt::x64::X64Relocation;
use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::{CodeCache, Entry};
use fastpath::gc::{Barrier, BarrierBits, Dynamic, GcMode, Handle, Heap, HeapConfig, Mutator};
use fastpath::thread::ThreadBlock;
use fastpath_jit::reg::{x64::*, Reg, RegSet};
use fastpath_jit::{
    BrooksReadBarrier, BrooksWriteBarrier, CardBase, CardMark, CasRef, Emit, EmitStub, G1Card, GcBarrier,
    GcStateTest, Labels, SlowStub, ThreadLayout,
};

/// Nodes in the graph (the Rust workload's).
pub const NODES: usize = 1000;
/// Edges per node.
const EDGES: usize = 4;
/// Offset of reference field 0 from the object's address (header, layout
/// word: fastpath's object layout, checked in [`Kernel::new`]).
const REFS: i32 = 16;
/// Offset of a node's data word (after its 4 references).
const DATA: i32 = REFS + 8 * EDGES as i32;

/// Barrier executions per operation: (LRB: reference loads, SATB and
/// card: reference stores and CASes).
pub const LOADS: f64 = 5.0;
/// Reference stores and CASes per operation.
pub const STORES: f64 = 3.0;
/// Objects accessed per operation (the Brooks read or write barrier's
/// executions).
pub const OBJECTS: f64 = 2.0;
/// Reference CASes per operation.
pub const CASES: f64 = 1.0;

/// A barrier set of the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Set {
    /// The name in the table (the gc experiment's set name).
    pub name: &'static str,
    /// The heap's barrier set.
    pub bits: BarrierBits,
    /// SATB idle test before each store and CAS.
    pub satb: bool,
    /// LRB idle test after each reference load.
    pub lrb: bool,
    /// Card mark after each store and CAS.
    pub card: bool,
    /// The card mark tests the card first.
    pub card_cond: bool,
    /// G1's filtered card barrier on the field after each store and CAS.
    pub g1: bool,
    /// Brooks read barrier on each object before its accesses.
    pub brooks: bool,
    /// Brooks write barrier on each object before its accesses (in place
    /// of the read barrier).
    pub brooks_wb: bool,
    /// The CAS template (its failure test) instead of a bare CAS.
    pub cas: bool,
}

const NONE: Set = Set {
    name: "none",
    bits: BarrierBits::NONE,
    satb: false,
    lrb: false,
    card: false,
    card_cond: false,
    g1: false,
    brooks: false,
    brooks_wb: false,
    cas: false,
};

const fn bits(b: &[Barrier]) -> BarrierBits {
    let mut v = 0;
    let mut i = 0;
    while i < b.len() {
        v |= b[i].bit();
        i += 1;
    }
    BarrierBits(v)
}

/// The sets of the table (seed 003's): none, each barrier alone, the
/// `serial`, `shenandoah`, `shenandoah-2017` and `g1` presets.
pub const SETS: [Set; 12] = [
    NONE,
    Set {
        name: "card",
        bits: BarrierBits::SERIAL,
        card: true,
        ..NONE
    },
    Set {
        name: "card-cond",
        bits: bits(&[Barrier::CardCond]),
        card: true,
        card_cond: true,
        ..NONE
    },
    Set {
        name: "g1-card",
        bits: bits(&[Barrier::G1Card]),
        g1: true,
        ..NONE
    },
    Set {
        name: "satb",
        bits: bits(&[Barrier::Satb]),
        satb: true,
        ..NONE
    },
    Set {
        name: "brooks-rb",
        bits: bits(&[Barrier::BrooksRb]),
        brooks: true,
        ..NONE
    },
    Set {
        name: "brooks-wb",
        bits: bits(&[Barrier::BrooksWb]),
        brooks_wb: true,
        ..NONE
    },
    Set {
        name: "lrb",
        bits: bits(&[Barrier::Lrb]),
        lrb: true,
        ..NONE
    },
    Set {
        name: "cas",
        bits: bits(&[Barrier::Cas]),
        cas: true,
        ..NONE
    },
    Set {
        name: "shenandoah",
        bits: BarrierBits::SHENANDOAH,
        satb: true,
        lrb: true,
        cas: true,
        ..NONE
    },
    Set {
        name: "shenandoah-2017",
        bits: BarrierBits::SHENANDOAH_2017,
        satb: true,
        brooks_wb: true,
        cas: true,
        ..NONE
    },
    Set {
        name: "g1",
        bits: BarrierBits::G1,
        satb: true,
        g1: true,
        ..NONE
    },
];

impl Set {
    /// Barrier executions per operation under this set.
    pub fn executions(&self) -> f64 {
        let mut e = 0.0;
        if self.satb {
            e += STORES;
        }
        if self.lrb {
            e += LOADS;
        }
        if self.card || self.g1 {
            e += STORES;
        }
        if self.brooks || self.brooks_wb {
            e += OBJECTS;
        }
        if self.cas {
            e += CASES;
        }
        e
    }
}

/// `extern "C" fn(thread, array's field 0, seed, n, _)`.
type KernelFn = extern "C" fn(*const ThreadBlock, *const u64, *mut u64, u64, *const u64);

/// The graph on its heap and the kernel for one set.
pub struct Kernel {
    func: KernelFn,
    // Declared before the cache: the entry is only an address in it.
    _entry: Entry,
    _cache: CodeCache,
    /// Address of the node array's reference field 0.
    array: usize,
    // The mutator before the heap: dropped first.
    m: Mutator<Dynamic>,
    _root: Handle,
    _heap: Heap,
    seed: Box<u64>,
}

impl Kernel {
    /// Builds the graph on a passive heap of `set`'s barriers (node `i`'s
    /// edge `k` to node `(7i + 131k + 1) mod 1000`, as the Rust workload's
    /// setup) and generates the kernel. The calling thread becomes the
    /// heap's mutator (one heap per thread at a time).
    pub fn new(set: Set) -> anyhow::Result<Kernel> {
        let heap = Heap::new(HeapConfig::new(8 << 20, set.bits, GcMode::Passive))
            .map_err(|e| anyhow::anyhow!("heap ({}): {e}", set.name))?;
        let mut m = heap
            .mutator::<Dynamic>()
            .map_err(|e| anyhow::anyhow!("mutator: {e}"))?;
        if m.ref_width() != fastpath::gc::layout::RefWidth::Full {
            anyhow::bail!(
                "the graph kernel's generated code addresses 8-byte reference slots: run it with FASTPATH_GC_REFS=full"
            );
        }
        let e = |e: fastpath::gc::GcError| anyhow::anyhow!("building the graph: {e}");
        let root = m.alloc(NODES, 0).map_err(e)?;
        let mut nodes = Vec::with_capacity(NODES);
        for _ in 0..NODES {
            nodes.push(m.alloc(EDGES, 1).map_err(e)?);
        }
        // No allocation from here on: the objects stay where they are.
        for (i, &h) in nodes.iter().enumerate() {
            let n = m.get(h).map_err(e)?;
            for k in 0..EDGES {
                let t = m.get(nodes[(i * 7 + k * 131 + 1) % NODES]).map_err(e)?;
                m.store(n, k, Some(t)).map_err(e)?;
            }
            m.store(m.get(root).map_err(e)?, i, Some(n)).map_err(e)?;
        }
        let arr = m.get(root).map_err(e)?;
        let array = arr.addr() + REFS as usize;
        // The layout the kernel's offsets assume, checked through the
        // mutator: array field 0 holds node 0, node 0's edge 0 node 1.
        let (n0, n1) = (m.get(nodes[0]).map_err(e)?, m.get(nodes[1]).map_err(e)?);
        // SAFETY: `array` and the node fields are inside live objects of
        // this heap (no allocation since `get`); plain reads.
        let (a0, e0) = unsafe {
            (
                (array as *const usize).read(),
                ((n0.addr() + REFS as usize) as *const usize).read(),
            )
        };
        anyhow::ensure!(
            a0 == n0.addr() && e0 == n1.addr(),
            "fastpath's object layout is not the kernel's (references at +{REFS})"
        );
        m.truncate_roots(1);
        let block = fastpath::thread::current().as_ptr() as usize;
        // SAFETY: this thread's block (it has a mutator of `heap`): the
        // word at the published offset is the biased base of the heap's
        // card table, written when the mutator was made.
        let card_base = unsafe { ((block + fastpath::thread::CARD_TABLE_BASE_OFFSET) as *const u64).read() };
        let code = emit(set, card_base)?;
        let cache = CodeCache::new(code.len().max(4096)).map_err(|e| anyhow::anyhow!("code cache: {e}"))?;
        let entry = cache
            .install(&code)
            .map_err(|e| anyhow::anyhow!("installing the graph kernel: {e}"))?;
        // SAFETY: `emit` generates a complete function of the `KernelFn`
        // signature; it stays installed in `cache`, owned by the kernel.
        let func = unsafe { entry.as_fn::<KernelFn>() };
        Ok(Kernel {
            func,
            _entry: entry,
            _cache: cache,
            array,
            m,
            _root: root,
            _heap: heap,
            seed: Box::new(0x9e37_79b9_7f4a_7c15),
        })
    }

    /// `n` operations.
    pub fn run(&mut self, n: u64) {
        let thread = fastpath::thread::current().as_ptr();
        debug_assert!(self.m.on_current_thread());
        (self.func)(
            thread,
            self.array as *const u64,
            &mut *self.seed,
            n,
            std::ptr::null(),
        );
    }
}

/// Assembles the kernel for `set`.
fn emit(set: Set, card_base: u64) -> anyhow::Result<Vec<u8>> {
    let layout = ThreadLayout::fastpath().map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let mut stubs: Vec<(Labels, Reg)> = Vec::new();
    // G1 card stubs: (labels, field register), to the library's slow path.
    let mut g1_stubs: Vec<Labels> = Vec::new();
    let region_shift = HeapConfig::new(8 << 20, set.bits, GcMode::Passive)
        .region_bytes
        .trailing_zeros() as u8;
    let g1 = G1 {
        on: set.g1,
        layout,
        region_shift,
    };
    let (top, end) = (ops.new_dynamic_label(), ops.new_dynamic_label());
    // Five pushes: rsp 16-aligned for the stubs' calls.
    dynasm!(ops
        ; .arch x64
        ; push rbx ; push r12 ; push r13 ; push r14 ; push r15
        ; mov r11, QWORD [rdx]
        ; test rcx, rcx
        ; jz =>end
        ; =>top
        // seed = seed * 6364136223846793005 + 1442695040888963407
        ; mov rax, QWORD 6_364_136_223_846_793_005u64 as i64
        ; imul r11, rax
        ; mov rax, QWORD 1_442_695_040_888_963_407u64 as i64
        ; add r11, rax
        // a = array[(lo32 * 1000) >> 32], b = array[(hi32 * 1000) >> 32]
        ; mov eax, r11d
        ; imul rax, rax, NODES as i32
        ; shr rax, 32
        ; mov r12, QWORD [rsi + rax * 8]
    );
    lrb(&mut ops, set, layout, R12, &mut stubs);
    dynasm!(ops
        ; .arch x64
        ; mov rax, r11
        ; shr rax, 32
        ; imul rax, rax, NODES as i32
        ; shr rax, 32
        ; mov r13, QWORD [rsi + rax * 8]
    );
    lrb(&mut ops, set, layout, R13, &mut stubs);
    // Brooks: every access of a and b goes through their forwarding words
    // (resolved once per object, as C2 hoists the read barrier; the
    // references stored are the loaded ones, as the Rust accessors').
    brooks(&mut ops, set, layout, R12, &mut stubs);
    brooks(&mut ops, set, layout, R13, &mut stubs);
    // s = (seed >> 22) & 3, u = (seed >> 24) & 3; swap a.e[s] and b.e[u].
    dynasm!(ops
        ; .arch x64
        ; mov r9, r11 ; shr r9, 22 ; and r9, 3
        ; mov r10, r11 ; shr r10, 24 ; and r10, 3
        ; mov r14, QWORD [r12 + r9 * 8 + REFS]
    );
    lrb(&mut ops, set, layout, R14, &mut stubs);
    dynasm!(ops ; .arch x64 ; mov r15, QWORD [r13 + r10 * 8 + REFS]);
    lrb(&mut ops, set, layout, R15, &mut stubs);
    satb(&mut ops, set, layout, R12, &mut stubs);
    dynasm!(ops ; .arch x64 ; mov QWORD [r12 + r9 * 8 + REFS], r15);
    card(&mut ops, set, layout, card_base, R12);
    if g1.on {
        dynasm!(ops ; .arch x64 ; lea rbx, [r12 + r9 * 8 + REFS]);
        g1.emit(&mut ops, R15, &mut g1_stubs);
    }
    satb(&mut ops, set, layout, R13, &mut stubs);
    dynasm!(ops ; .arch x64 ; mov QWORD [r13 + r10 * 8 + REFS], r14);
    card(&mut ops, set, layout, card_base, R13);
    if g1.on {
        dynasm!(ops ; .arch x64 ; lea rbx, [r13 + r10 * 8 + REFS]);
        g1.emit(&mut ops, R14, &mut g1_stubs);
    }
    // k = (s + 1) & 3; CAS a.e[k] from its current value to b. The
    // template keeps the expected value in a register of its own (r10,
    // free here) and moves it into rax itself.
    let expected = if set.cas { R10 } else { RAX };
    dynasm!(ops ; .arch x64 ; add r9, 1 ; and r9, 3);
    if set.cas {
        dynasm!(ops ; .arch x64 ; mov r10, QWORD [r12 + r9 * 8 + REFS]);
    } else {
        dynasm!(ops ; .arch x64 ; mov rax, QWORD [r12 + r9 * 8 + REFS]);
    }
    lrb(&mut ops, set, layout, expected, &mut stubs);
    satb(&mut ops, set, layout, R12, &mut stubs);
    if set.cas {
        // The CAS template on the field's address (r8, free here); its
        // failure test's slow path is counted like the others.
        let l = labels(&mut ops);
        dynasm!(ops ; .arch x64 ; lea r8, [r12 + r9 * 8 + REFS]);
        CasRef::x64(RDI, R8, expected, R13, layout)
            .emit(&mut ops, l)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        dynasm!(ops ; .arch x64 ; =>l.done);
        stubs.push((l, R8));
    } else {
        dynasm!(ops ; .arch x64 ; lock cmpxchg QWORD [r12 + r9 * 8 + REFS], r13);
    }
    card(&mut ops, set, layout, card_base, R12);
    if g1.on {
        // The field CASed (to b, in r13); rax is free after the CAS.
        dynasm!(ops ; .arch x64 ; lea rbx, [r12 + r9 * 8 + REFS]);
        g1.emit(&mut ops, R13, &mut g1_stubs);
    }
    // b's visit counter (a data word: no barrier in these sets).
    dynasm!(ops
        ; .arch x64
        ; add QWORD [r13 + DATA], 1
        ; dec rcx
        ; jnz =>top
        ; =>end
        ; mov QWORD [rdx], r11
        ; pop r15 ; pop r14 ; pop r13 ; pop r12 ; pop rbx
        ; ret
    );
    let live = RegSet::of(&[RDI, RSI, RDX, RCX, R8, R9, R10, R11, RAX]);
    for (l, value) in stubs {
        SlowStub {
            // Counted: never expected while passive.
            func: super::code::count_slow_ptr(),
            args: vec![RDI, value],
            ret: None,
            live,
        }
        .emit(&mut ops, l.slow, l.done)
        .map_err(|e| anyhow::anyhow!("slow stub: {e}"))?;
    }
    for l in g1_stubs {
        // The library's slow path (the card dirtied and enqueued): counting
        // it instead would leave the card clean and every later store to
        // it on the slow path.
        SlowStub {
            func: fastpath_jit::slow::g1_card as *const () as usize,
            args: vec![RDI, RBX],
            ret: None,
            live,
        }
        .emit(&mut ops, l.slow, l.done)
        .map_err(|e| anyhow::anyhow!("slow stub: {e}"))?;
    }
    ops.finalize()
        .map_err(|e| anyhow::anyhow!("assembling the graph kernel: {e:?}"))
}

/// G1's filtered card barrier of the kernel: on the field address in rbx
/// (a copy: callee-saved, kept by the stub's call), rax scratch (free at
/// every card barrier of the kernel), the base from the thread block.
struct G1 {
    on: bool,
    layout: ThreadLayout,
    region_shift: u8,
}

impl G1 {
    /// After a store of `value` into the field at rbx.
    fn emit(&self, ops: &mut VecAssembler<X64Relocation>, value: Reg, stubs: &mut Vec<Labels>) {
        let l = labels(ops);
        G1Card {
            addr: RBX,
            val: value,
            tmp: RAX,
            tmp2: RAX,
            base: CardBase::Thread(RDI),
            region_shift: self.region_shift,
            layout: self.layout,
        }
        .emit(ops, l)
        .expect("the kernel's fixed registers and layout");
        dynasm!(ops ; .arch x64 ; =>l.done);
        stubs.push(l);
    }
}

/// The Brooks write barrier (or else the read barrier) on the object in
/// `obj`, in place.
fn brooks(
    ops: &mut VecAssembler<X64Relocation>,
    set: Set,
    layout: ThreadLayout,
    obj: Reg,
    stubs: &mut Vec<(Labels, Reg)>,
) {
    if set.brooks_wb {
        let l = labels(ops);
        BrooksWriteBarrier {
            thread: RDI,
            obj,
            tmp: RAX,
            gc_state: layout.gc_state,
            state_bits: BrooksWriteBarrier::FASTPATH_STATE_BITS,
            forwarding: -8,
        }
        .emit(ops, l)
        .expect("the kernel's fixed registers and layout");
        dynasm!(ops ; .arch x64 ; =>l.done);
        stubs.push((l, obj));
    } else if set.brooks {
        let l = labels(ops);
        BrooksReadBarrier { obj, forwarding: -8 }
            .emit(ops, l)
            .expect("the kernel's fixed registers and layout");
        dynasm!(ops ; .arch x64 ; =>l.done);
    }
}

fn labels(ops: &mut VecAssembler<X64Relocation>) -> Labels {
    Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    }
}

/// The LRB idle test on a loaded reference in `value`.
fn lrb(
    ops: &mut VecAssembler<X64Relocation>,
    set: Set,
    layout: ThreadLayout,
    value: Reg,
    stubs: &mut Vec<(Labels, Reg)>,
) {
    if set.lrb {
        let l = labels(ops);
        GcStateTest {
            barrier: GcBarrier::Lrb,
            thread: RDI,
            tmp: RAX,
            layout,
        }
        .emit(ops, l)
        .expect("the kernel's fixed registers and layout");
        dynasm!(ops ; .arch x64 ; =>l.done);
        stubs.push((l, value));
    }
}

/// The SATB idle test before a store into the object in `obj`.
fn satb(
    ops: &mut VecAssembler<X64Relocation>,
    set: Set,
    layout: ThreadLayout,
    obj: Reg,
    stubs: &mut Vec<(Labels, Reg)>,
) {
    if set.satb {
        let l = labels(ops);
        GcStateTest {
            barrier: GcBarrier::Satb,
            thread: RDI,
            tmp: RAX,
            layout,
        }
        .emit(ops, l)
        .expect("the kernel's fixed registers and layout");
        dynasm!(ops ; .arch x64 ; =>l.done);
        stubs.push((l, obj));
    }
}

/// The card mark of the object in `obj` (kept: the template shifts a copy
/// in rbx; rax holds the base, free at every card mark of the kernel).
// dynasm's dynamic register `Rq(n)` expands to `n.into()`, a no-op for `u8`.
#[allow(clippy::useless_conversion)]
fn card(ops: &mut VecAssembler<X64Relocation>, set: Set, layout: ThreadLayout, base: u64, obj: Reg) {
    if set.card {
        let l = labels(ops);
        dynasm!(ops ; .arch x64 ; mov rbx, Rq(obj.0));
        CardMark {
            addr: RBX,
            tmp: RAX,
            tmp2: RAX,
            base: CardBase::Imm(base),
            conditional: set.card_cond,
            layout,
        }
        .emit(ops, l)
        .expect("the kernel's fixed registers and layout");
        dynasm!(ops ; .arch x64 ; =>l.done);
    }
}
