//! GC stress with a mutator whose reference barriers are the x86-64
//! templates: generated code (installed in the `CodeCache`, the thread
//! block in `rdi`) loads reference fields through the LRB idle test, the
//! collection-set medium path and a slow stub calling
//! `fastpath::gc::lrb_slow_entry`, and stores them through the SATB idle
//! test, the enqueue medium path and a stub calling
//! `fastpath::gc::satb_slow_entry`, on a `shenandoah` heap in concurrent
//! mode with aggressive back-to-back cycles and the verifier after every
//! cycle; the collection-set path resolves copies in the heap's cell
//! format, so this runs once per format (`HeapConfig::cell_format`):
//! compact cells (a copy recorded in the original's layout word) and
//! Brooks cells (the forwarding word). The workload (gc_stress.rs's graph: rewire edges, replace nodes,
//! bump values) is checked against its model after every step, and its
//! running checksum must equal the one of the same workload (same seed,
//! same steps) through the Rust accessors. Bounded by FASTPATH_STRESS_MS
//! (default 2000 ms); prints the steps checked and the cycles seen.
//!
//! The contract with the collector: generated code holds a raw object
//! address only inside one call, which contains no safepoint poll; the
//! Rust side reads the roots ([`Mutator::get`]) before each call and polls
//! ([`Mutator::safepoint_poll`], or an allocation) only between calls, so
//! no pause can move an object while generated code holds its address.
//!
//! The card configurations run the card post-barrier templates (plain and
//! conditional) the same way: a `serial` (card) or `card-cond` heap in
//! passive mode, a collection every few steps with the verifier after each,
//! the template dirtying the written object's card through the block's
//! biased base (checked after every store), and the Rust run's checksum.
//! The `g1` configuration runs G1's filtered card template the same way
//! (SATB idle: marking happens inside the passive pauses): after every
//! store of a non-null reference across regions the field's card is dirty,
//! and after every collection each card so dirtied is clean again (it was
//! enqueued: the collection cleans exactly the enqueued cards).
//!
//! The `shenandoah-2017` configuration runs the Brooks write barrier
//! template in concurrent mode (aggressive cycles, the verifier after
//! each): every reference store goes through it (its stub calling
//! `fastpath::gc::brooks_wb_slow_entry`, which evacuates the object while
//! evacuation runs, then the stored value's resolution), the field
//! recomputed in the object to write, the SATB idle test and enqueue path,
//! and the store; loads go through the Rust accessors (Brooks read
//! barrier). The same checksums as the all-Rust run.
#![cfg(target_arch = "x86_64")]
// dynasm's dynamic registers (`Rq(n)`) expand to `n.into()`, a no-op for `u8`.
#![allow(clippy::useless_conversion)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use dynasmrt::{dynasm, x64::X64Relocation, DynasmApi, DynasmLabelApi, VecAssembler};
use fastpath::code::{CodeCache, Entry};
use fastpath::gc::layout::CellFormat;
use fastpath::gc::{
    Barrier, BarrierBits, BarrierSet, G1Barriers, GcMode, GcStats, Handle, Heap, HeapConfig, Mutator,
    SerialBarriers, Shenandoah2017Barriers, ShenandoahBarriers, Static,
};
use fastpath::thread::{self, ThreadBlock};
use fastpath_jit::reg::{x64::*, RegSet};
use fastpath_jit::*;

mod common;
/// The graph workload's model, gc_stress.rs's.
#[path = "../../fastpath/tests/common/graph.rs"]
mod graph;

use common::frame::idle_then_medium;

const SLOTS: usize = 32;

/// fastpath's object layout: header, layout word, then the reference
/// fields, then the data words (checked against the Rust accessors by
/// `layout_agrees`).
fn ref_field(obj: usize, i: usize) -> usize {
    obj + 16 + 8 * i
}
/// Data word `j` of a node (2 references).
fn node_data(obj: usize, j: usize) -> usize {
    obj + 16 + 8 * (2 + j)
}

thread_local! {
    /// Calls of the LRB and SATB stubs' slow paths on this thread (each
    /// LRB configuration runs on a thread of its own).
    static LRB_SLOW: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    static SATB_SLOW: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}
static G1_SLOW: AtomicUsize = AtomicUsize::new(0);
static BROOKS_SLOW: AtomicUsize = AtomicUsize::new(0);
static BROOKS_SATB_SLOW: AtomicUsize = AtomicUsize::new(0);
/// Cards the G1 template dirtied, found clean after the next collection.
static G1_CLEANED: AtomicUsize = AtomicUsize::new(0);

// Statistics of the calling threads' own calls (the shared counters Relaxed).
extern "C" fn lrb_counted(t: *const ThreadBlock, obj: usize, field: usize) -> usize {
    LRB_SLOW.with(|c| c.set(c.get() + 1));
    fastpath_jit::slow::lrb(t, obj, field)
}
extern "C" fn satb_counted(t: *const ThreadBlock, prev: usize) {
    SATB_SLOW.with(|c| c.set(c.get() + 1));
    fastpath_jit::slow::satb_enqueue(t, prev)
}
extern "C" fn brooks_counted(t: *const ThreadBlock, obj: usize) -> usize {
    BROOKS_SLOW.fetch_add(1, Ordering::Relaxed);
    fastpath_jit::slow::brooks_wb(t, obj)
}
extern "C" fn brooks_satb_counted(t: *const ThreadBlock, prev: usize) {
    BROOKS_SATB_SLOW.fetch_add(1, Ordering::Relaxed);
    fastpath_jit::slow::satb_enqueue(t, prev)
}
extern "C" fn g1_counted(t: *const ThreadBlock, field: usize) {
    G1_SLOW.fetch_add(1, Ordering::Relaxed);
    fastpath_jit::slow::g1_card(t, field)
}

type LoadFn = extern "C" fn(*const ThreadBlock, usize) -> usize;
/// `(block, field, value, object)`: the object's address is the card
/// templates' (the card of the object written, as the Rust barrier marks);
/// the SATB store ignores it.
type StoreFn = extern "C" fn(*const ThreadBlock, usize, usize, usize);

/// The generated accessors, alive as long as their cache.
struct Jit {
    _cache: CodeCache,
    _entries: Vec<Entry>,
    load: LoadFn,
    store: StoreFn,
    /// What the store does to the cards (checked after each store).
    cards: Cards,
    /// Loads go through the Rust accessors (`load` is unused).
    rust_loads: bool,
}

/// The card barrier a generated store runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cards {
    None,
    /// The object's card is dirty after every store.
    Object,
    /// G1: the field's card is dirty after a non-null store across regions
    /// of this many bytes, and clean after the next collection.
    G1 {
        region_bytes: usize,
    },
}

impl Jit {
    /// The generated accessors, from their entries in `cache`.
    ///
    /// # Safety
    /// `load` and `store` are complete functions of [`LoadFn`] and
    /// [`StoreFn`]'s signatures (the SysV ABI; any stub keeps rsp aligned);
    /// they are called only on the building thread with its block, on
    /// fields of its mutator's heap, between its stops (module docs).
    unsafe fn new(cache: CodeCache, load: Entry, store: Entry, cards: Cards, rust_loads: bool) -> Jit {
        // SAFETY: per this function's contract.
        let (load_fn, store_fn) = unsafe { (load.as_fn::<LoadFn>(), store.as_fn::<StoreFn>()) };
        Jit {
            _cache: cache,
            _entries: vec![load, store],
            load: load_fn,
            store: store_fn,
            cards,
            rust_loads,
        }
    }
}

/// `load(block = rdi, field = rsi) -> reference (rax)`: a plain load (no
/// load barrier in the set, or loads through the Rust accessors).
fn plain_load(cache: &CodeCache) -> Entry {
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    dynasm!(ops ; .arch x64 ; mov rax, QWORD [rsi] ; ret);
    cache.install(&ops.finalize().unwrap()).unwrap()
}

/// The SATB pre-barrier of a store and the store
/// (`common::frame::idle_then_medium`): the idle test inline, at its
/// `done` the store of rdx into [rsi], `add rsp, 8` and `ret`; the enqueue
/// medium path out of line (previous value in rcx, rax scratch), its stub
/// calling `satb` with (block, previous value). The thread block in rdi;
/// rsp 8 below 16-alignment on entry to the function's tail (the caller's
/// `sub rsp, 8`).
fn emit_satb_store(ops: &mut VecAssembler<X64Relocation>, satb: usize) {
    let idle = idle_test(GcBarrier::Satb);
    let enqueue = SatbEnqueue {
        thread: RDI,
        field: RSI,
        prev: RCX,
        tmp: RAX,
        tmp2: RAX,
        queue: SatbQueueLayout::fastpath().unwrap(),
        refs: fastpath_jit::RefWidth::Full,
    };
    let stub = enqueue
        .slow_call()
        .unwrap()
        .stub(satb, &[], RegSet::of(&[RDI, RSI, RDX]));
    // The store itself: a plain `mov` is a Release store on x86-64, as the
    // Rust accessor's.
    idle_then_medium(
        ops,
        &idle,
        &enqueue,
        &stub.unwrap(),
        |ops| dynasm!(ops ; .arch x64 ; mov QWORD [rsi], rdx ; add rsp, 8 ; ret),
    );
}

/// The idle test of `barrier` on the real block, thread in rdi.
fn idle_test(barrier: GcBarrier) -> GcStateTest {
    GcStateTest {
        barrier,
        thread: RDI,
        tmp: RAX,
        layout: ThreadLayout::fastpath().unwrap(),
    }
}

fn labels(ops: &mut VecAssembler<X64Relocation>) -> Labels {
    Labels {
        slow: ops.new_dynamic_label(),
        done: ops.new_dynamic_label(),
    }
}

/// The LRB configurations' accessors for `m`'s heap, whose cells are in
/// `format`.
fn build<B: BarrierSet>(m: &Mutator<B>, format: CellFormat) -> Jit {
    let cset = CsetMap::of(m);
    let cache = CodeCache::new(64 * 1024).unwrap();
    // load(block = rdi, field = rsi) -> reference (rax): the LRB, its stub
    // the collection-set path's slow call with the thread and the field.
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    // `sub rsp, 8`: rsp 16-aligned where the templates run (the stubs'
    // precondition, as in a JIT's frame).
    dynasm!(ops ; .arch x64 ; sub rsp, 8 ; mov rax, QWORD [rsi]);
    let idle = idle_test(GcBarrier::Lrb);
    let medium = LrbCset {
        obj: RAX,
        tmp: RCX,
        tmp2: RDX,
        cset,
        forwardee: ObjectLayout::fastpath(format).unwrap().forwardee,
    };
    let lrb = lrb_counted as *const () as usize;
    let stub = medium
        .slow_call()
        .unwrap()
        .stub(lrb, &[RDI, RSI], RegSet::of(&[RDI, RSI, RAX]));
    idle_then_medium(
        &mut ops,
        &idle,
        &medium,
        &stub.unwrap(),
        |ops| dynasm!(ops ; .arch x64 ; add rsp, 8 ; ret),
    );
    let load_entry = cache.install(&ops.finalize().unwrap()).unwrap();
    // store(block = rdi, field = rsi, value = rdx, object = rcx: unused).
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    dynasm!(ops ; .arch x64 ; sub rsp, 8);
    emit_satb_store(&mut ops, satb_counted as *const () as usize);
    let store_entry = cache.install(&ops.finalize().unwrap()).unwrap();
    // SAFETY: complete functions of the accessors' signatures, used as the
    // module docs say.
    unsafe { Jit::new(cache, load_entry, store_entry, Cards::None, false) }
}

/// The `shenandoah-2017` configuration's store (loads are the Rust
/// accessors'): the Brooks write barrier on the object (its stub calling
/// `fastpath::gc::brooks_wb_slow_entry`, resuming at the stored value's
/// resolution), the field recomputed in the object to write, then the SATB
/// idle test, enqueue medium path and stub, and the store: the Rust
/// barrier's order (`store_raw`: write barrier, SATB, store).
fn build_brooks() -> Jit {
    let layout = ThreadLayout::fastpath().unwrap();
    let cache = CodeCache::new(16 * 1024).unwrap();
    let load_entry = plain_load(&cache);
    // store(block = rdi, field = rsi, value = rdx, object = rcx).
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let (wb_slow, storeval, wb_done) = (
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
        ops.new_dynamic_label(),
    );
    // `sub rsp, 8`: rsp 16-aligned for the stubs' calls; rsi becomes the
    // field's offset in the object.
    dynasm!(ops ; .arch x64 ; sub rsp, 8 ; sub rsi, rcx);
    let forwarding = ObjectLayout::fastpath(CellFormat::Brooks)
        .unwrap()
        .brooks_forwarding()
        .unwrap();
    BrooksWriteBarrier {
        thread: RDI,
        obj: RCX,
        tmp: RAX,
        gc_state: layout.gc_state,
        state_bits: BrooksWriteBarrier::FASTPATH_STATE_BITS,
        forwarding,
    }
    .emit(
        &mut ops,
        Labels {
            slow: wb_slow,
            done: wb_done,
        },
    )
    .unwrap();
    dynasm!(ops ; .arch x64 ; =>wb_done ; add rsi, rcx);
    emit_satb_store(&mut ops, brooks_satb_counted as *const () as usize);
    SlowStub {
        func: brooks_counted as *const () as usize,
        args: vec![RDI, RCX],
        ret: Some(RCX),
        live: RegSet::of(&[RDI, RSI, RDX]),
    }
    .emit(&mut ops, wb_slow, storeval)
    .unwrap();
    dynasm!(ops ; .arch x64 ; =>storeval);
    BrooksStoreVal { val: RDX, forwarding }
        .emit(
            &mut ops,
            Labels {
                slow: wb_done,
                done: wb_done,
            },
        )
        .unwrap();
    dynasm!(ops ; .arch x64 ; jmp =>wb_done);
    let store_entry = cache.install(&ops.finalize().unwrap()).unwrap();
    // SAFETY: complete functions of the accessors' signatures, used as the
    // module docs say.
    unsafe { Jit::new(cache, load_entry, store_entry, Cards::None, true) }
}

/// The card configurations' accessors: a plain load (no read barrier in
/// the set), and a store followed by the card template (conditional or
/// not) on the object, its base loaded from the thread block.
fn build_card(conditional: bool) -> Jit {
    let layout = ThreadLayout::fastpath().unwrap();
    let cache = CodeCache::new(16 * 1024).unwrap();
    let load_entry = plain_load(&cache);
    // store(block = rdi, field = rsi, value = rdx, object = rcx).
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let l = labels(&mut ops);
    dynasm!(ops ; .arch x64 ; mov QWORD [rsi], rdx);
    CardMark {
        addr: RCX,
        tmp: RAX,
        tmp2: RAX,
        base: CardBase::Thread(RDI),
        conditional,
        layout,
    }
    .emit(&mut ops, l)
    .unwrap();
    // The card template has no slow path: `slow` is bound where nothing
    // jumps to it.
    dynasm!(ops ; .arch x64 ; =>l.done ; ret ; =>l.slow ; ret);
    let store_entry = cache.install(&ops.finalize().unwrap()).unwrap();
    // SAFETY: complete functions of the accessors' signatures (leaf
    // functions, no stack use), used as the module docs say.
    unsafe { Jit::new(cache, load_entry, store_entry, Cards::Object, false) }
}

/// The `g1` configuration's accessors: a plain load, and a store followed
/// by G1's filtered card template on the field, its stub calling the
/// library's slow path (counted).
fn build_g1_card() -> Jit {
    let layout = ThreadLayout::fastpath().unwrap();
    let region_bytes = g1_config().region_bytes;
    let cache = CodeCache::new(16 * 1024).unwrap();
    let load_entry = plain_load(&cache);
    // store(block = rdi, field = rsi, value = rdx, object = rcx: unused).
    let mut ops = VecAssembler::<X64Relocation>::new(0);
    let l = labels(&mut ops);
    // `sub rsp, 8`: rsp 16-aligned for the stub's call.
    dynasm!(ops ; .arch x64 ; sub rsp, 8 ; mov QWORD [rsi], rdx);
    G1Card {
        addr: RSI,
        val: RDX,
        tmp: RAX,
        tmp2: R8,
        base: CardBase::Thread(RDI),
        region_shift: region_bytes.trailing_zeros() as u8,
        layout,
    }
    .emit(&mut ops, l)
    .unwrap();
    dynasm!(ops ; .arch x64 ; =>l.done ; add rsp, 8 ; ret);
    SlowStub {
        func: g1_counted as *const () as usize,
        args: vec![RDI, RSI],
        ret: None,
        live: RegSet::of(&[RDI, RSI, RDX]),
    }
    .emit(&mut ops, l.slow, l.done)
    .unwrap();
    let store_entry = cache.install(&ops.finalize().unwrap()).unwrap();
    // SAFETY: complete functions of the accessors' signatures (the stub
    // keeps rsp aligned), used as the module docs say.
    unsafe { Jit::new(cache, load_entry, store_entry, Cards::G1 { region_bytes }, false) }
}

fn g1_config() -> HeapConfig {
    HeapConfig::new(8 << 20, BarrierBits::G1, GcMode::Passive)
}

/// The GC state byte in this thread's block.
fn gc_state() -> u8 {
    let block = thread::current().as_ptr() as usize;
    // SAFETY: the byte at the published offset of this thread's block.
    unsafe { ((block + thread::GC_STATE_OFFSET) as *const u8).read_volatile() }
}

/// The card of `addr` (its byte), through the block's biased base: what
/// the card template wrote.
fn card_of(addr: usize) -> u8 {
    let block = thread::current().as_ptr() as usize;
    // SAFETY: the block of this thread, which has a mutator: the word at
    // the published offset is the biased base of its heap's card table, and
    // `addr` is in that heap, so base + (addr >> shift) is its card.
    unsafe {
        let base = ((block + thread::CARD_TABLE_BASE_OFFSET) as *const usize).read();
        ((base + (addr >> ThreadLayout::fastpath().unwrap().card_shift)) as *const u8).read_volatile()
    }
}

/// How the workload reaches the heap: the generated accessors or the Rust
/// ones (`None`).
struct Run<'a, B: BarrierSet> {
    m: Mutator<B>,
    jit: Option<&'a Jit>,
    array: Handle,
    /// A collection every this many steps (passive mode), else none.
    collect_every: Option<usize>,
    /// Fields whose cards the G1 template dirtied since the last
    /// collection.
    dirtied: std::cell::RefCell<Vec<usize>>,
}

impl<B: BarrierSet> Run<'_, B> {
    /// The generated store into `obj`'s field at `field`, and the card
    /// check of the card configurations.
    fn jit_store(&self, j: &Jit, obj: usize, field: usize, value: usize) {
        let dirty = ThreadLayout::fastpath().unwrap().dirty_card;
        if let Cards::G1 { .. } = j.cards {
            assert_eq!(
                gc_state(),
                0,
                "the G1 store runs no SATB test: marking must be idle"
            );
        }
        (j.store)(self.block(), field, value, obj);
        match j.cards {
            Cards::None => {}
            Cards::Object => assert_eq!(
                card_of(obj),
                dirty,
                "the card template left the card of {obj:#x} clean"
            ),
            Cards::G1 { region_bytes } => {
                if value != 0 && (field ^ value) >= region_bytes {
                    assert_eq!(
                        card_of(field),
                        dirty,
                        "the G1 card template left the card of {field:#x} clean"
                    );
                    self.dirtied.borrow_mut().push(field);
                }
            }
        }
    }

    /// After a collection: every card the G1 template dirtied was enqueued,
    /// so the collection cleaned it.
    fn check_cleaned(&self) {
        let dirty = ThreadLayout::fastpath().unwrap().dirty_card;
        for field in self.dirtied.borrow_mut().drain(..) {
            assert_ne!(
                card_of(field),
                dirty,
                "the card of {field:#x} stayed dirty after a collection: not enqueued"
            );
            // Relaxed: a tally of this thread's checks.
            G1_CLEANED.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The generated accessors if they also load (the Brooks run loads
    /// through the Rust accessors and stores through the templates).
    fn jit_loads(&self) -> Option<&Jit> {
        self.jit.filter(|j| !j.rust_loads)
    }

    fn block(&self) -> *const ThreadBlock {
        thread::current().as_ptr()
    }
    /// The node in array slot `i` (its address, valid until the next stop).
    fn slot(&self, i: usize) -> usize {
        let a = self.m.get(self.array).unwrap();
        match self.jit_loads() {
            Some(j) => (j.load)(self.block(), ref_field(a.addr(), i)),
            None => self.m.load(a, i).unwrap().unwrap().addr(),
        }
    }
    /// Slot `i`'s node's edge `e`'s target's id (0 for null).
    fn edge_id(&self, i: usize, e: usize) -> usize {
        let a = self.m.get(self.array).unwrap();
        match self.jit_loads() {
            Some(j) => {
                let n = (j.load)(self.block(), ref_field(a.addr(), i));
                let t = (j.load)(self.block(), ref_field(n, e));
                if t == 0 {
                    return 0;
                }
                // SAFETY: `t` is a live node of this heap (the LRB gave its
                // current copy), read before this thread's next stop.
                unsafe { (node_data(t, 0) as *const usize).read_volatile() }
            }
            None => {
                let n = self.m.load(a, i).unwrap().unwrap();
                self.m
                    .load(n, e)
                    .unwrap()
                    .map_or(0, |t| self.m.read(t, 0).unwrap())
            }
        }
    }
    /// Slot `i`'s node's data word `j`.
    fn data(&self, i: usize, j: usize) -> usize {
        match self.jit_loads() {
            // SAFETY: as in `edge_id`.
            Some(_) => unsafe { (node_data(self.slot(i), j) as *const usize).read_volatile() },
            None => {
                let a = self.m.get(self.array).unwrap();
                self.m.read(self.m.load(a, i).unwrap().unwrap(), j).unwrap()
            }
        }
    }
    /// Slot `i`'s node's edge `e` := slot `k`'s node.
    fn rewire(&self, i: usize, e: usize, k: usize) {
        match self.jit {
            Some(j) => {
                let (ni, nk) = (self.slot(i), self.slot(k));
                self.jit_store(j, ni, ref_field(ni, e), nk);
            }
            None => {
                let a = self.m.get(self.array).unwrap();
                let (ni, nk) = (
                    self.m.load(a, i).unwrap().unwrap(),
                    self.m.load(a, k).unwrap().unwrap(),
                );
                self.m.store(ni, e, Some(nk)).unwrap();
            }
        }
    }
    /// Slot `i` := a new node (allocated by the Rust side).
    fn replace(&mut self, i: usize, id: usize, value: usize) {
        let d = self.m.roots_len();
        let h = self.m.alloc(2, 2).unwrap();
        let o = self.m.get(h).unwrap();
        self.m.write(o, 0, id).unwrap();
        self.m.write(o, 1, value).unwrap();
        let a = self.m.get(self.array).unwrap();
        match self.jit {
            Some(j) => self.jit_store(j, a.addr(), ref_field(a.addr(), i), o.addr()),
            None => self.m.store(a, i, Some(o)).unwrap(),
        }
        self.m.truncate_roots(d);
    }
}

/// Runs `steps` steps (or until `until` says the run is long enough,
/// asked every 64 steps) of the workload seeded `seed`;
/// returns the steps run and the running checksum of the graph as read
/// after every step (which is also checked against the model).
fn workload<B: BarrierSet>(
    run: &mut Run<'_, B>,
    seed: u64,
    steps: usize,
    until: Option<&dyn Fn() -> bool>,
) -> (usize, u64) {
    let mut g = graph::Graph::new(SLOTS, 0, seed);
    for i in 0..SLOTS {
        let id = g.replace(i, i);
        run.replace(i, id, i);
    }
    let mut sum: u64 = 0xcbf2_9ce4_8422_2325;
    let mut n = 0;
    while n < steps && !(n % 64 == 0 && until.is_some_and(|done| done())) {
        match g.rng.next() % 8 {
            0..=4 => {
                let (i, e, k) = g.pick_rewire();
                run.rewire(i, e, k);
                g.rewire(i, e, k);
            }
            5 | 6 => {
                let (i, value) = g.pick_replace();
                let id = g.replace(i, value);
                run.replace(i, id, value);
            }
            _ => {
                // Garbage, so cycles have something to reclaim and copy.
                let d = run.m.roots_len();
                for _ in 0..8 {
                    run.m.alloc(2, 6).unwrap();
                }
                run.m.truncate_roots(d);
            }
        }
        run.m.safepoint_poll();
        for (i, want) in g.slots.iter().enumerate() {
            let (id, value) = (run.data(i, 0), run.data(i, 1));
            assert_eq!((id, value), (want.id, want.value), "step {n} slot {i}");
            for e in 0..2 {
                let t = run.edge_id(i, e);
                assert_eq!(t, want.edges[e], "step {n} slot {i} edge {e}");
                sum = (sum ^ t as u64).wrapping_mul(0x100_0000_01b3);
            }
            sum = (sum ^ (id as u64) << 20 ^ value as u64).wrapping_mul(0x100_0000_01b3);
        }
        run.m.safepoint_poll();
        n += 1;
        if run.collect_every.is_some_and(|k| n % k == 0) {
            run.m.collect().unwrap();
            run.check_cleaned();
        }
    }
    (n, sum)
}

/// A concurrent `shenandoah` heap of cells in `format` with aggressive
/// cycles and the verifier.
fn heap(format: CellFormat) -> Heap {
    let mut c = HeapConfig::new(8 << 20, BarrierBits::SHENANDOAH, GcMode::Concurrent);
    c.cell_format = common::lrb_real::cell_format_choice(format);
    c.aggressive = true;
    c.verify = true;
    Heap::new(c).unwrap()
}

/// When a timed run may end: its budget spent and at least
/// [`MIN_CYCLES`] cycles run (a loaded machine or an emulator can run
/// fewer in the budget), or [`HARD_CAP`] passed, which only a collector
/// that stopped running reaches (the test then fails on the cycle count).
fn long_enough(h: &Heap, budget: Duration) -> impl Fn() -> bool + '_ {
    let start = Instant::now();
    move || {
        let t = start.elapsed();
        t >= HARD_CAP || (t >= budget && h.stats().cycles >= MIN_CYCLES)
    }
}

/// The cycles a timed run must see.
const MIN_CYCLES: u64 = 3;

/// See [`long_enough`].
const HARD_CAP: Duration = Duration::from_secs(300);

fn stress_ms() -> u64 {
    std::env::var("FASTPATH_STRESS_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
}

#[test]
fn layout_agrees() {
    std::thread::spawn(|| {
        let h = heap(CellFormat::Compact);
        let mut m = h.mutator::<ShenandoahBarriers>().unwrap();
        let a = m.alloc(2, 2).unwrap();
        let b = m.alloc(2, 2).unwrap();
        let jit = build(&m, h.cell_format());
        let (oa, ob) = (m.get(a).unwrap(), m.get(b).unwrap());
        m.write(oa, 1, 77).unwrap();
        (jit.store)(
            thread::current().as_ptr(),
            ref_field(ob.addr(), 1),
            oa.addr(),
            ob.addr(),
        );
        assert_eq!(m.load(ob, 1).unwrap().map(|o| o.addr()), Some(oa.addr()));
        assert_eq!(
            (jit.load)(thread::current().as_ptr(), ref_field(ob.addr(), 1)),
            oa.addr()
        );
        // SAFETY: a live node of this heap, no stop since `get`.
        assert_eq!(unsafe { (node_data(oa.addr(), 1) as *const usize).read() }, 77);
        m.collect().unwrap();
    })
    .join()
    .unwrap();
}

/// The LRB configuration in cell format `format`: the workload through
/// the LRB and SATB templates and through the Rust accessors, on
/// concurrent `shenandoah` heaps of that format, in which the LRB's
/// collection-set path resolves copies.
fn lrb_stress(format: CellFormat, seed: u64) {
    let budget = Duration::from_millis(stress_ms());
    let (steps, jit_sum, stats, (lrb_slow, satb_slow)) = std::thread::spawn(move || {
        let h = heap(format);
        assert_eq!(h.cell_format(), format);
        let mut m = h.mutator::<ShenandoahBarriers>().unwrap();
        let array = m.alloc(SLOTS, 0).unwrap();
        let jit = build(&m, format);
        let mut run = Run {
            m,
            jit: Some(&jit),
            array,
            collect_every: None,
            dirtied: Default::default(),
        };
        let (steps, sum) = workload(&mut run, seed, usize::MAX, Some(&long_enough(&h, budget)));
        drop(run);
        let slow = (
            LRB_SLOW.with(std::cell::Cell::get),
            SATB_SLOW.with(std::cell::Cell::get),
        );
        (steps, sum, h.stats(), slow)
    })
    .join()
    .unwrap();
    let (rust_steps, rust_sum, rust_stats) = std::thread::spawn(move || {
        let h = heap(format);
        let mut m = h.mutator::<ShenandoahBarriers>().unwrap();
        let array = m.alloc(SLOTS, 0).unwrap();
        let mut run = Run {
            m,
            jit: None,
            array,
            collect_every: None,
            dirtied: Default::default(),
        };
        let (steps, sum) = workload(&mut run, seed, steps, None);
        drop(run);
        (steps, sum, h.stats())
    })
    .join()
    .unwrap();
    println!(
        "x64_gc_stress shenandoah ({format:?} cells): {steps} steps checked ({} slot reads each) through the \
         templates, checksum {jit_sum:#018x} (Rust accessors: {rust_steps} steps, {rust_sum:#018x}); template run: \
         {} cycles, {} verified ({} objects), {} copies by the collector, {} by the mutator; slow stubs called: LRB \
         {lrb_slow}, SATB {satb_slow}; Rust run: {} cycles, {} verified",
        SLOTS * 4,
        stats.cycles,
        stats.verified_cycles,
        stats.verified_objects,
        stats.evacuated_by_collector,
        stats.evacuated_by_mutators,
        rust_stats.cycles,
        rust_stats.verified_cycles,
    );
    check_concurrent_runs((steps, jit_sum, &stats), (rust_steps, rust_sum, &rust_stats));
    assert!(
        stats.evacuated_by_collector + stats.evacuated_by_mutators > 0,
        "nothing was evacuated"
    );
}

/// Compact cells: the LRB resolving copies through layout words.
#[test]
fn gc_stress_template_barriers() {
    lrb_stress(CellFormat::Compact, 0x5EED_1234);
}

/// Brooks cells: the LRB resolving copies through forwarding words.
#[test]
fn gc_stress_template_barriers_brooks_cells() {
    lrb_stress(CellFormat::Brooks, 0x5EED_B400);
}

/// A concurrent configuration's two runs (template, Rust: steps,
/// checksum, heap statistics) agree: no verifier error, the same steps
/// and checksums, at least [`MIN_CYCLES`] cycles, each verified.
fn check_concurrent_runs(
    (steps, jit_sum, stats): (usize, u64, &GcStats),
    (rust_steps, rust_sum, rust_stats): (usize, u64, &GcStats),
) {
    assert_eq!(stats.verify_errors, Vec::<String>::new());
    assert_eq!(rust_stats.verify_errors, Vec::<String>::new());
    assert!(steps > 0);
    assert_eq!(rust_steps, steps);
    assert_eq!(
        jit_sum, rust_sum,
        "the template run's checksums differ from the Rust run's"
    );
    assert!(stats.cycles >= MIN_CYCLES, "only {} cycles ran", stats.cycles);
    assert_eq!(
        stats.verified_cycles, stats.cycles,
        "the verifier ran after every cycle"
    );
}

/// Passive collections in the card runs: one every this many steps.
const CARD_COLLECT_EVERY: usize = 16;

/// The card configuration `B` (bits `bits`): the workload through the
/// accessors `build` makes (a card template) and through the Rust
/// accessors, the verifier after every collection, the same checksums.
fn card_stress<B: BarrierSet>(bits: BarrierBits, build: fn() -> Jit, name: &'static str) {
    const SEED: u64 = 0xCA4D_5EED;
    // At least three verified collections, even past the time budget (a
    // slow machine, emulation); a hard cap fails clearly.
    let min_steps = 3 * CARD_COLLECT_EVERY;
    let budget = Duration::from_millis(stress_ms());
    let run = move |jit: Option<&Jit>, steps: usize, deadline: Option<Instant>| -> (usize, u64, GcStats) {
        let mut c = HeapConfig::new(8 << 20, bits, GcMode::Passive);
        c.verify = true;
        let h = Heap::new(c).unwrap();
        let mut m = h.mutator::<B>().unwrap();
        let array = m.alloc(SLOTS, 0).unwrap();
        let mut run = Run {
            m,
            jit,
            array,
            collect_every: Some(CARD_COLLECT_EVERY),
            dirtied: Default::default(),
        };
        let until = deadline.map(|d| move || Instant::now() >= d);
        let until = until.as_ref().map(|f| f as &dyn Fn() -> bool);
        let (steps, sum) = workload(&mut run, SEED, steps, until);
        drop(run);
        (steps, sum, h.stats())
    };
    let (steps, jit_sum, stats) = std::thread::spawn(move || {
        let jit = build();
        let start = Instant::now();
        let (mut steps, mut sum, mut stats) = run(Some(&jit), usize::MAX, Some(start + budget));
        if steps < min_steps {
            // Too slow for the budget: the minimum, once more, from the start.
            (steps, sum, stats) = run(Some(&jit), min_steps, None);
        }
        assert!(
            start.elapsed() < budget * 20 + HARD_CAP,
            "{name}: {steps} steps took {:?}",
            start.elapsed()
        );
        (steps, sum, stats)
    })
    .join()
    .unwrap();
    let (rust_steps, rust_sum, rust_stats) =
        std::thread::spawn(move || run(None, steps, None)).join().unwrap();
    println!(
        "x64_gc_stress {name}: {steps} steps checked through its card template (the card checked after each of its \
         stores), checksum {jit_sum:#018x} (Rust accessors: {rust_steps} steps, {rust_sum:#018x}); template run: {} \
         verified collections ({} objects), {} regions freed; Rust run: {} verified",
        stats.verified_cycles,
        stats.verified_objects,
        stats.regions_freed,
        rust_stats.verified_cycles,
    );
    assert_eq!(stats.verify_errors, Vec::<String>::new());
    assert_eq!(rust_stats.verify_errors, Vec::<String>::new());
    assert!(steps >= min_steps);
    assert_eq!(rust_steps, steps);
    assert_eq!(
        jit_sum, rust_sum,
        "{name}: the template run's checksums differ from the Rust run's"
    );
    assert!(
        stats.verified_cycles >= (steps / CARD_COLLECT_EVERY) as u64,
        "{name}: {} verified collections in {steps} steps",
        stats.verified_cycles
    );
    assert!(stats.regions_freed > 0, "{name}: no region was freed");
}

#[test]
fn gc_stress_card_template() {
    card_stress::<SerialBarriers>(BarrierBits::SERIAL, || build_card(false), "serial (card)");
}

#[test]
fn gc_stress_conditional_card_template() {
    const BITS: u16 = Barrier::CardCond.bit();
    card_stress::<Static<BITS>>(BarrierBits(BITS), || build_card(true), "card-cond");
}

#[test]
fn gc_stress_g1_card_template() {
    let slow0 = G1_SLOW.load(Ordering::Relaxed);
    card_stress::<G1Barriers>(BarrierBits::G1, build_g1_card, "g1");
    let slow = G1_SLOW.load(Ordering::Relaxed) - slow0;
    println!(
        "x64_gc_stress g1: the G1 card stub called the library's slow path {slow} times; {} dirtied cards found \
         clean after the next collection",
        G1_CLEANED.load(Ordering::Relaxed)
    );
    assert!(slow > 0, "no store took the G1 card slow path");
}

/// The Brooks write barrier template (with the SATB idle test and enqueue
/// path) storing for the workload on a `shenandoah-2017` heap in concurrent
/// mode, aggressive back-to-back cycles, the verifier after every cycle;
/// loads through the Rust accessors. The same checksums as the all-Rust
/// run.
#[test]
fn gc_stress_brooks_write_barrier_template_concurrent() {
    const SEED: u64 = 0xB400_C5ED;
    let budget = Duration::from_millis(stress_ms());
    let heap = || {
        let mut c = HeapConfig::new(8 << 20, BarrierBits::SHENANDOAH_2017, GcMode::Concurrent);
        c.aggressive = true;
        c.verify = true;
        Heap::new(c).unwrap()
    };
    let run = move |jit: Option<&Jit>, steps: usize, timed: bool| {
        let h = heap();
        let mut m = h.mutator::<Shenandoah2017Barriers>().unwrap();
        let array = m.alloc(SLOTS, 0).unwrap();
        let mut run = Run {
            m,
            jit,
            array,
            collect_every: None,
            dirtied: Default::default(),
        };
        let until = long_enough(&h, budget);
        let until = timed.then_some(&until as &dyn Fn() -> bool);
        let (steps, sum) = workload(&mut run, SEED, steps, until);
        drop(run);
        (steps, sum, h.stats())
    };
    let (steps, jit_sum, stats) = std::thread::spawn(move || {
        let jit = build_brooks();
        run(Some(&jit), usize::MAX, true)
    })
    .join()
    .unwrap();
    let (rust_steps, rust_sum, rust_stats) = std::thread::spawn(move || run(None, steps, false))
        .join()
        .unwrap();
    let (wb_slow, satb_slow) = (
        BROOKS_SLOW.load(Ordering::Relaxed),
        BROOKS_SATB_SLOW.load(Ordering::Relaxed),
    );
    println!(
        "x64_gc_stress shenandoah-2017: {steps} steps checked, stores through the Brooks write barrier template, \
         checksum {jit_sum:#018x} (Rust accessors: {rust_steps} steps, {rust_sum:#018x}); template run: {} cycles, {} \
         verified ({} objects), {} copies by the collector, {} by the mutator; slow stubs called: Brooks WB \
         {wb_slow}, SATB {satb_slow}; Rust run: {} cycles, {} verified",
        stats.cycles,
        stats.verified_cycles,
        stats.verified_objects,
        stats.evacuated_by_collector,
        stats.evacuated_by_mutators,
        rust_stats.cycles,
        rust_stats.verified_cycles,
    );
    check_concurrent_runs((steps, jit_sum, &stats), (rust_steps, rust_sum, &rust_stats));
    assert!(wb_slow > 0, "no store took the Brooks write barrier's slow path");
}
