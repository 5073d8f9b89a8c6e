//! The `extern "C"` slow paths generated code calls: the out-of-line stubs
//! of the SATB, load-reference, Brooks write, G1 card and reference-CAS
//! barrier templates (HotSpot's `ShenandoahRuntime::write_ref_field_pre`
//! and `load_reference_barrier_strong`, G1's `write_ref_field_post_entry`,
//! the retry of Shenandoah's `cmpxchg_oop`) land here with the thread
//! block and the object or field, and run the same slow path as the Rust
//! barriers (`barriers/satb.rs`'s `satb_enqueue`, `barriers/lrb.rs`'s
//! `lrb_resolve`, `brooks_wb.rs`, `g1_card.rs`, `cas.rs`) for the mutator
//! attached to that block.
//!
//! Where it sits: between generated code (which holds the block in its
//! thread register and tests its GC fields inline) and the barriers. A
//! block names no mutator (a `Mutator` is a value that moves), so each
//! thread keeps, while its mutator lives, what the slow paths need beyond
//! the block: the heap and the mutator's GCLAB (boxed, so its address is
//! fixed). [`crate::gc::Mutator`]'s constructor sets it, its drop clears it
//! (`heap/attached.rs`).
//!
//! The contract (for the JIT): call only from the thread that owns the
//! block, with the block of [`crate::thread::current`], while that
//! thread's mutator lives, between two of its stops (generated code holds
//! no object address across a stop: a pause may move the object). A
//! violated contract that the entry can see (another thread's block, no
//! mutator, a field outside the heap) aborts the process with a message:
//! a barrier has no error value to return, and going on would corrupt the
//! heap.

use std::sync::atomic::{fence, Ordering};

use crate::gc::heap::attached;
use crate::gc::heap::runtime::{HeapInner, EVACUATION};
use crate::gc::heap::space::{Lab, CARD_SHIFT, DIRTY_CARD};
use crate::thread::{self, ThreadBlock};

#[cold]
fn contract_violated(what: &str) -> ! {
    eprintln!(
        "fastpath: a GC barrier slow path was called {what}; aborting (see fastpath::gc::satb_slow_entry)"
    );
    std::process::abort()
}

/// The calling thread's block (which must be `block`) and its mutator's
/// heap and GCLAB.
#[inline]
fn entry<'a>(block: *const ThreadBlock) -> (&'a ThreadBlock, &'a HeapInner, &'a Lab) {
    let t = thread::current();
    if !core::ptr::eq(block, t) {
        contract_violated("with a block that is not the calling thread's");
    }
    match attached::get() {
        // SAFETY: recorded by this thread's live mutator (the block is
        // attached and the record is cleared before the mutator drops), which
        // keeps its heap (`Arc`) and its boxed GCLAB alive; `HeapInner` is
        // shared, and `Lab` is `Cell`s used only by this thread, which is
        // in no other `Lab` call now (it is running generated code).
        Some((h, l)) => unsafe { (t, h.as_ref(), l.as_ref()) },
        None => contract_violated("on a thread that is no heap's mutator"),
    }
}

/// The SATB barrier's slow path for generated code: `prev`, the value a
/// reference store is about to overwrite while marking (the SATB
/// template's queue was full, or the JIT calls it instead of enqueueing
/// inline), goes to the marker: pushed on the block's SATB queue after
/// flushing the full buffer to the heap's. Null is ignored.
///
/// `block` must be [`crate::thread::current`]'s block, of a thread whose
/// [`crate::gc::Mutator`] lives (the module contract); otherwise the process
/// aborts with a message.
pub extern "C" fn satb_slow_entry(block: *const ThreadBlock, prev: usize) {
    let (t, heap, _) = entry(block);
    if prev != 0 && !heap.space.contains(prev) {
        contract_violated("with a previous value outside the heap");
    }
    super::satb_enqueue(heap, t, prev);
}

/// The load-reference barrier's slow path for generated code: `obj` was
/// just loaded from the reference slot at `field` (decoded, in a heap with
/// compressed slots) while forwarded objects exist
/// (the LRB template found it in the collection set, not yet copied, or
/// the JIT calls it after the idle test). Returns the reference to use:
/// `obj` itself if null or outside the collection set; otherwise its copy,
/// evacuating it first while evacuation runs, and heals `field` to it.
///
/// `block` must be [`crate::thread::current`]'s block, of a thread whose
/// [`crate::gc::Mutator`] lives, and `field` a reference slot of its heap
/// (the module contract); otherwise the process aborts with a message.
pub extern "C" fn lrb_slow_entry(block: *const ThreadBlock, obj: usize, field: usize) -> usize {
    let (t, heap, lab) = entry(block);
    let s = &heap.space;
    if !s.is_slot_addr(field) {
        contract_violated("with a field that is not a reference slot of the mutator's heap");
    }
    if obj != 0 && !s.contains(obj) {
        contract_violated("with a reference outside the heap");
    }
    super::lrb_resolve(heap, lab, t, field, obj)
}

/// The Brooks write barrier's slow path for generated code: a write to
/// `obj` found evacuation or forwarded objects in the GC state (the
/// template's state test). Returns the object the write must go to: while
/// evacuation runs and `obj` is in the collection set, its copy (evacuating
/// it first, into the mutator's GCLAB); otherwise its forwardee. This is
/// the object half of the Rust Brooks write barrier's slow path
/// (`barriers/brooks_wb.rs`); the stored value's half is one load of its
/// forwarding word, which the template does inline.
///
/// `block` must be [`crate::thread::current`]'s block, of a thread whose
/// [`crate::gc::Mutator`] lives, and `obj` an object of its heap (the module
/// contract); otherwise the process aborts with a message.
pub extern "C" fn brooks_wb_slow_entry(block: *const ThreadBlock, obj: usize) -> usize {
    let (t, heap, lab) = entry(block);
    let s = &heap.space;
    if obj == 0 || !s.contains(obj) {
        contract_violated("with an object outside the heap");
    }
    if t.gc_state.get() & EVACUATION != 0 && s.in_cset(obj) {
        let (to, won) = s.evacuate(obj, lab);
        if won {
            heap.stats_evacuated_by_mutators();
        }
        to
    } else {
        s.forwardee(obj)
    }
}

/// G1's post-write barrier slow path for generated code: the G1 card
/// template found a store of a non-null reference at `field` across regions
/// into a card that was not dirty. Runs the Rust `g1-card` barrier's slow
/// path (`barriers/g1_card.rs`): G1's StoreLoad fence, the card re-read,
/// then, if still not dirty, dirty it and enqueue it for refinement. The
/// card goes straight to the heap's card queue (the Rust barrier first
/// buffers it in its mutator, which the block does not reach); a card
/// takes this path at most once per cycle per thread, so the queue's lock
/// is off the common path.
///
/// `block` must be [`crate::thread::current`]'s block, of a thread whose
/// [`crate::gc::Mutator`] lives, and `field` a reference slot of its heap
/// (the module contract); otherwise the process aborts with a message.
pub extern "C" fn g1_card_slow_entry(block: *const ThreadBlock, field: usize) {
    let (_, heap, _) = entry(block);
    let s = &heap.space;
    if !s.is_slot_addr(field) {
        contract_violated("with a field that is not a reference slot of the mutator's heap");
    }
    // SeqCst fence: G1's StoreLoad between the reference store and the
    // card re-read, as the Rust slow path's.
    fence(Ordering::SeqCst);
    let card = s.card(field);
    // Relaxed: a card is a hint, read by the collector in pauses (as the
    // Rust barrier's).
    if card.load(Ordering::Relaxed) != DIRTY_CARD {
        card.store(DIRTY_CARD, Ordering::Relaxed);
        heap.card_queue().push((field - s.base) >> CARD_SHIFT);
    }
}

/// The reference CAS barrier's slow path for generated code: the
/// template's CAS of `expected` → `new` on the reference field at `field`
/// failed while forwarded objects exist, so the failure may be a false one
/// (the field holds the other copy of the expected object: Shenandoah's
/// CAS barrier). Retries as the Rust `cas` barrier does (`barriers/cas.rs`):
/// while the field's value is `expected` or another copy of the same object
/// (both resolve through their forwarding words to one object), CAS the
/// field from that value to `new`. Returns `expected` when a CAS succeeded,
/// else the value the field held (a genuine failure: null, or another
/// object; never `expected`), so generated code tests the result against
/// `expected` after either path. Each CAS is the Rust barrier's
/// (`AcqRel`, an `Acquire` failure).
///
/// The set's other barriers around a reference CAS stay the generated
/// code's, as on the template's fast path: the SATB pre-barrier before it
/// (fastpath's collector never marks while forwarded objects exist), the
/// card post-barrier after a success, and under `brooks-wb` the object and
/// `new` resolved before it.
///
/// `block` must be [`crate::thread::current`]'s block, of a thread whose
/// [`crate::gc::Mutator`] lives, `field` a reference slot of its heap and `expected`
/// null or an object of it (the module contract); otherwise the process
/// aborts with a message.
pub extern "C" fn cas_ref_slow_entry(
    block: *const ThreadBlock,
    field: usize,
    expected: usize,
    new: usize,
) -> usize {
    let (_, heap, _) = entry(block);
    let s = &heap.space;
    if !s.is_slot_addr(field) {
        contract_violated("with a field that is not a reference slot of the mutator's heap");
    }
    if expected != 0 && !s.contains(expected) {
        contract_violated("with an expected reference outside the heap");
    }
    let target = |x: usize| {
        if x == 0 {
            0
        } else {
            s.forwardee(x)
        }
    };
    // Acquire: as the failed CAS's witness (the referenced object's
    // contents, or its copy's, are read through it below).
    let mut actual = s.load_ref(field, Ordering::Acquire);
    loop {
        let same = actual == expected || actual != 0 && expected != 0 && target(actual) == target(expected);
        if !same {
            return actual;
        }
        // AcqRel: as the Rust barrier's (`cas_raw`): Release publishes
        // `new`, Acquire reads what it replaces.
        match s.cas_ref_in(s.refs, field, actual, new, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return expected,
            Err(now) => actual = now,
        }
    }
}
