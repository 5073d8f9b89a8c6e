//! The G1 card post-barrier's differential test, shared by every form's
//! test binary (x64_g1_card.rs, aarch64_g1_card.rs, fastpath-cranelift's
//! fast_paths.rs): the same filter cases through the library's Rust
//! `g1-card` barrier (`Mutator::store` on a `g1` heap) and through generated
//! code (a raw store, the G1 card template, its slow stub calling
//! `fastpath::gc::g1_card_slow_entry`) on twin heaps; the field's card after
//! each store and after the next collection (which cleans exactly the
//! enqueued cards) must agree, and match the expected outcome.

use std::cell::Cell;

use fastpath::gc::{BarrierBits, G1Barriers, GcMode, Heap, HeapConfig, Mutator};
use fastpath::thread::{self, ThreadBlock};
use fastpath_jit::ThreadLayout;

/// A card's value when clean (the library's; dirty is 0).
pub const CLEAN: u8 = 1;
pub const DIRTY: u8 = 0;

/// `(block, field, value)`: stores `value` into the reference field at
/// `field`, then runs the G1 card barrier.
pub type Store = extern "C" fn(*const ThreadBlock, usize, usize);

thread_local! {
    /// Calls of [`slow_counted`] on this thread.
    static SLOW: Cell<usize> = const { Cell::new(0) };
}

/// The stub's slow path: the library's, counted.
pub extern "C" fn slow_counted(t: *const ThreadBlock, field: usize) {
    SLOW.with(|c| c.set(c.get() + 1));
    fastpath_jit::slow::g1_card(t, field)
}

/// Slow-path calls on this thread so far.
pub fn slow_calls() -> usize {
    SLOW.with(Cell::get)
}

/// A passive `g1` heap (SATB and G1 card barriers; marking only inside the
/// pause, so the SATB barrier is idle wherever generated code runs) with
/// the verifier after every collection.
pub fn config() -> HeapConfig {
    let mut c = HeapConfig::new(8 << 20, BarrierBits::G1, GcMode::Passive);
    c.verify = true;
    c
}

/// log2 of the heap's region size, as the template takes it.
pub fn region_shift() -> u8 {
    config().region_bytes.trailing_zeros() as u8
}

/// The biased card-table base in this thread's block (a mutator lives).
pub fn card_base() -> usize {
    let block = thread::current().as_ptr() as usize;
    // SAFETY: the word at the published offset of this thread's block.
    unsafe { ((block + thread::CARD_TABLE_BASE_OFFSET) as *const usize).read() }
}

/// The card of heap address `addr`, through the block's biased base.
pub fn card_of(addr: usize) -> u8 {
    let shift = ThreadLayout::fastpath().unwrap().card_shift;
    // SAFETY: this thread has a mutator, so the base is its heap's, and
    // `addr` is in that heap: base + (addr >> shift) is its card.
    unsafe { ((card_base() + (addr >> shift)) as *const u8).read_volatile() }
}

/// Reference field `i` of an object (fastpath's layout: header, layout
/// word, references).
pub fn ref_field(obj: usize, i: usize) -> usize {
    obj + 16 + 8 * i
}

/// One case's outcome: the card after each store, the card after the
/// collection that follows, and (generated code only) the slow-path calls.
#[derive(Debug, PartialEq, Eq, Clone)]
pub struct Outcome {
    pub cards: Vec<u8>,
    pub after_cycle: u8,
    pub slow: Option<usize>,
}

/// The cases: (name, stores as (field index, value role)), all into the
/// fields of one object `a`; roles: `Same` (an object in `a`'s region),
/// `Cross` (one in another region), `Null`.
#[derive(Clone, Copy, Debug)]
enum Val {
    Same,
    Cross,
    Null,
}
const CASES: [(&str, &[(usize, Val)]); 5] = [
    ("same region", &[(0, Val::Same)]),
    ("null", &[(0, Val::Null)]),
    (
        "cross region, clean card: dirtied and enqueued",
        &[(0, Val::Cross)],
    ),
    ("cross region, dirty card", &[(0, Val::Cross), (1, Val::Cross)]),
    (
        "same region into a dirty card",
        &[(0, Val::Cross), (1, Val::Same)],
    ),
];

/// What each case must give (the Rust barrier's rule).
fn expected(case: usize) -> Outcome {
    let (cards, slow) = match case {
        0 | 1 => (vec![CLEAN], 0),
        2 => (vec![DIRTY], 1),
        _ => (vec![DIRTY, DIRTY], 1),
    };
    Outcome {
        cards,
        after_cycle: CLEAN,
        slow: Some(slow),
    }
}

/// Runs every case on a fresh heap, through `store` or (None) the Rust
/// barrier.
fn run(store: Option<Store>) -> Vec<Outcome> {
    let h = Heap::new(config()).unwrap();
    let mut m: Mutator<G1Barriers> = h.mutator().unwrap();
    // Enough 2-reference objects to fill a few regions.
    let region = config().region_bytes;
    let n = 4 * region / 32;
    let handles: Vec<_> = (0..n).map(|_| m.alloc(2, 0).unwrap()).collect();
    let mut out = Vec::new();
    for (name, stores) in CASES.iter() {
        // Objects move in a collection: choose the roles afresh. `a`: both
        // fields on one card; `same`, `cross`: by the field's region.
        let addr = |i: usize| m.get(handles[i]).unwrap().addr();
        let a = (0..n)
            .find(|&i| ref_field(addr(i), 0) >> 9 == ref_field(addr(i), 1) >> 9)
            .unwrap();
        let f0 = ref_field(addr(a), 0);
        let same = (0..n).find(|&i| i != a && (addr(i) ^ f0) < region).unwrap();
        let cross = (0..n).find(|&i| (addr(i) ^ f0) >= region).unwrap();
        assert_eq!(card_of(f0), CLEAN, "{name}: the card is clean before the case");
        let slow0 = slow_calls();
        let mut cards = Vec::new();
        for &(field, val) in stores.iter() {
            let v = match val {
                Val::Same => Some(same),
                Val::Cross => Some(cross),
                Val::Null => None,
            };
            match store {
                Some(f) => f(
                    thread::current().as_ptr(),
                    ref_field(addr(a), field),
                    v.map_or(0, addr),
                ),
                None => {
                    let o = m.get(handles[a]).unwrap();
                    let v = v.map(|i| m.get(handles[i]).unwrap());
                    m.store(o, field, v).unwrap();
                }
            }
            // The store itself, whichever path made it.
            let o = m.get(handles[a]).unwrap();
            assert_eq!(
                m.load(o, field).unwrap().map(|o| o.addr()),
                v.map(addr),
                "{name}: the stored value"
            );
            cards.push(card_of(f0));
        }
        let slow = store.map(|_| slow_calls() - slow0);
        m.collect().unwrap();
        out.push(Outcome {
            cards,
            after_cycle: card_of(f0),
            slow,
        });
    }
    drop(m);
    let stats = h.stats();
    assert_eq!(stats.verify_errors, Vec::<String>::new());
    assert!(
        stats.verified_cycles >= CASES.len() as u64,
        "the verifier after every collection"
    );
    out
}

/// Every case through `store` (generated code) and through the Rust
/// barrier, each on its own heap and thread: equal outcomes, and the
/// expected ones. Returns the cases run.
pub fn differential(store: Store) -> usize {
    let jit = std::thread::spawn(move || run(Some(store))).join().unwrap();
    let rust = std::thread::spawn(|| run(None)).join().unwrap();
    for (i, (name, _)) in CASES.iter().enumerate() {
        let want = expected(i);
        assert_eq!(jit[i], want, "{name}: generated code");
        assert_eq!(
            (&rust[i].cards, rust[i].after_cycle),
            (&jit[i].cards, jit[i].after_cycle),
            "{name}: generated code and the Rust barrier differ"
        );
    }
    println!(
        "{} G1 card cases equal to the Rust barrier (cards after each store and after the next verified cycle), \
         slow-path calls {:?}",
        CASES.len(),
        jit.iter().map(|o| o.slow.unwrap()).collect::<Vec<_>>()
    );
    CASES.len()
}
