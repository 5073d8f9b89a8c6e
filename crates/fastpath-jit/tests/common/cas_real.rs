//! The reference CAS template with its stub calling the library's retry
//! (`fastpath::gc::cas_ref_slow_entry`, counted) on a concurrent
//! `shenandoah` heap with aggressive cycles and the verifier, shared by
//! every form's test binary, in each reference width
//! ([`false_failures_succeed_through_the_slow_entry_in`]: the compressed
//! form CASes the 4-byte slot's encoded values and decodes the witness,
//! the unscaled one CASes the 4-byte slot's addresses themselves); and
//! [`cas_on_real_slots`], its outcomes on a passive heap of each width
//! (success, genuine failure with the decoded witness, null expected and
//! null stored, the slot's raw bits and its neighbours). While the thread block's state says forwarded
//! objects exist (stable until this mutator's next stop), each holder's
//! second field may still name the from-space copy of its target while the
//! Rust LRB, loading the first field, hands out the to-space one: a CAS of
//! the second field expecting the to-space copy then fails in hardware (a
//! false failure), and the slow entry must retry it and succeed. The CAS
//! stores the same object back (so the graph stays as it was); a CAS
//! expecting another object must fail with the field's value and change
//! nothing.
//!
//! The contract with the collector: as `data_world`'s.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use fastpath::code::CodeCache;
use fastpath::gc::layout::{self as gl, RefWidth};
use fastpath::gc::{BarrierBits, BarrierSet, Dynamic, GcMode, Heap, HeapConfig, ShenandoahBarriers};
use fastpath::thread::{self, ThreadBlock};

/// `fn(block, field, expected, new) -> expected on success, else the
/// witnessed value`: the template and its stub.
pub type CasFn = extern "C" fn(*const ThreadBlock, usize, usize, usize) -> usize;
/// Builds the function, its stub calling `slow`.
pub type BuildCas = fn(&CodeCache, usize) -> CasFn;
/// Builds the function for slots of the given width, its stub calling
/// `slow`.
pub type BuildCasIn = fn(&CodeCache, RefWidth, usize) -> CasFn;

thread_local! {
    /// (calls of [`cas_counted`], of which retried successes) on this thread.
    static SLOW: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// The stub's slow path: the library's, counted.
pub extern "C" fn cas_counted(t: *const ThreadBlock, field: usize, expected: usize, new: usize) -> usize {
    let r = fastpath_jit::slow::cas_ref(t, field, expected, new);
    SLOW.with(|c| {
        let (calls, won) = c.get();
        c.set((calls + 1, won + usize::from(r == expected)));
    });
    r
}

/// The reference in the slot at `addr` of a heap of width `refs`, decoded.
///
/// # Safety
/// A slot of the calling thread's mutator's heap, read from a root or a
/// field since the mutator's last stop.
unsafe fn word(refs: RefWidth, addr: usize) -> usize {
    match refs {
        // SAFETY: per the contract; Acquire as the Rust barriers' loads.
        RefWidth::Full => unsafe { (*(addr as *const AtomicUsize)).load(Ordering::Acquire) },
        // SAFETY: per the contract.
        RefWidth::Compressed | RefWidth::Unscaled => unsafe { super::ref_slots::slot(refs, addr) },
    }
}

const OBJECTS: usize = 64;
/// False failures to see retried before stopping.
const EVENTS: usize = 8;
/// Bounds a run whose cycles never copy these objects (a failure).
const HARD_CAP: Duration = Duration::from_secs(120);

/// See the module docs, on full-width slots; returns (CASes, slow-path
/// calls, false failures retried).
pub fn false_failures_succeed_through_the_slow_entry(build: BuildCas) -> (usize, usize, usize) {
    let cache = CodeCache::new(64 * 1024).unwrap();
    let cas = build(&cache, cas_counted as *const () as usize);
    false_failures::<ShenandoahBarriers>(cas, RefWidth::Full)
}

/// See the module docs, on slots of width `refs` (a compressed or
/// unscaled heap through `Dynamic`, whose width is read at run time).
pub fn false_failures_succeed_through_the_slow_entry_in(
    build: BuildCasIn,
    refs: RefWidth,
) -> (usize, usize, usize) {
    let cache = CodeCache::new(64 * 1024).unwrap();
    let cas = build(&cache, refs, cas_counted as *const () as usize);
    match refs {
        RefWidth::Full => false_failures::<ShenandoahBarriers>(cas, refs),
        RefWidth::Compressed | RefWidth::Unscaled => false_failures::<Dynamic>(cas, refs),
    }
}

fn false_failures<B: BarrierSet>(cas: CasFn, refs: RefWidth) -> (usize, usize, usize) {
    let mut c = HeapConfig::new(8 << 20, BarrierBits::SHENANDOAH, GcMode::Concurrent);
    c.aggressive = true;
    c.verify = true;
    c.refs = refs;
    let heap = Heap::new(c).unwrap();
    assert_eq!(heap.ref_width(), refs);
    let mut m = heap.mutator::<B>().unwrap();
    let holders: Vec<_> = (0..OBJECTS)
        .map(|_| {
            let d = m.roots_len();
            let holder = m.alloc(2, 0).unwrap();
            let target = m.alloc(0, 1).unwrap();
            let (h, t) = (m.get(holder).unwrap(), m.get(target).unwrap());
            m.store(h, 0, Some(t)).unwrap();
            m.store(h, 1, Some(t)).unwrap();
            m.truncate_roots(d + 1);
            holder
        })
        .collect();
    let block = thread::current().as_ptr();
    let slow0 = SLOW.with(Cell::get);
    let (start, mut cases, mut stale) = (Instant::now(), 0usize, 0usize);
    let retried = || SLOW.with(Cell::get).1 - slow0.1;
    while retried() < EVENTS && start.elapsed() < HARD_CAP {
        super::real_heap::until_state(&mut m, gl::GC_STATE_HAS_FORWARDED, start, HARD_CAP);
        for &h in &holders {
            let holder = m.get(h).unwrap();
            let field = holder.addr() + refs.ref_offset(1);
            // SAFETY: the holder's second field, no stop since `get`.
            let raw = unsafe { word(refs, field) };
            let to = m.load(holder, 0).unwrap().unwrap().addr();
            stale += usize::from(raw != to);
            // A genuine failure: the holder is not the field's object.
            let other = holder.addr();
            let w = cas(block, field, other, 0);
            assert_ne!(w, other, "a CAS expecting another object fails");
            // SAFETY: as above.
            let now = unsafe { word(refs, field) };
            assert!(w == raw || w == to, "the witness is a copy of the target: {w:#x}");
            assert!(now == raw || now == to, "nothing stored: {now:#x}");
            // The CAS expecting the to-space copy: a false failure when the
            // field still holds the from-space one.
            assert_eq!(
                cas(block, field, to, to),
                to,
                "the CAS of the target's copy succeeds"
            );
            // SAFETY: as above.
            assert_eq!(unsafe { word(refs, field) }, to);
            // SAFETY: as above.
            let bits = unsafe { super::ref_slots::raw_slot(refs, field) };
            assert_eq!(bits, refs.encode(to) as u64, "the slot holds the copy's encoding");
            cases += 2;
        }
        m.safepoint_poll();
    }
    let (calls, won) = SLOW.with(Cell::get);
    let (calls, won) = (calls - slow0.0, won - slow0.1);
    drop(m);
    let stats = heap.stats();
    println!(
        "reference CAS on a concurrent shenandoah heap ({refs:?} references): {cases} CASes while forwarded objects existed, \
         {stale} fields holding the from-space copy, {calls} slow-path calls, {won} false failures retried \
         to success; {} cycles, {} verified",
        stats.cycles, stats.verified_cycles
    );
    assert_eq!(stats.verify_errors, Vec::<String>::new());
    assert!(won >= EVENTS, "only {won} false failures in {HARD_CAP:?}");
    (cases, calls, won)
}

/// See the module docs: on a passive `shenandoah` heap of each width (no
/// forwarded objects: a failure falls through, the stub is never called),
/// the CAS of a holder's middle slot between two that must not change;
/// returns the CASes checked.
pub fn cas_on_real_slots(build: BuildCasIn) -> usize {
    use fastpath::gc::Obj;
    let cache = CodeCache::new(64 * 1024).unwrap();
    let block = thread::current().as_ptr();
    let mut checked = 0;
    for refs in [RefWidth::Full, RefWidth::Compressed, RefWidth::Unscaled] {
        let cas = build(&cache, refs, cas_counted as *const () as usize);
        let heap = super::ref_slots::heap_of(BarrierBits::SHENANDOAH, refs);
        let mut m = heap.mutator::<Dynamic>().unwrap();
        let h = m.alloc(3, 1).unwrap();
        let objs: Vec<_> = (0..3).map(|_| m.alloc(0, 1).unwrap()).collect();
        let holder = m.get(h).unwrap();
        let [a, b, c]: [Obj; 3] = std::array::from_fn(|k| m.get(objs[k]).unwrap());
        m.write(holder, 0, 0x5EED).unwrap();
        m.store(holder, 0, Some(c)).unwrap();
        m.store(holder, 1, Some(a)).unwrap();
        m.store(holder, 2, Some(c)).unwrap();
        let field = holder.addr() + refs.ref_offset(1);
        let slow0 = SLOW.with(Cell::get);
        let (a, b, c) = (a.addr(), b.addr(), c.addr());
        for (expected, new, witness, after, what) in [
            (a, b, a, b, "success"),
            (a, 0, b, b, "genuine failure: the decoded witness"),
            (c, a, b, b, "another object expected"),
            (b, 0, b, 0, "null stored"),
            (c, a, 0, 0, "a null field: the witness null"),
            (0, a, 0, a, "null expected"),
        ] {
            let what = format!("{refs:?}: {what}");
            assert_eq!(cas(block, field, expected, new), witness, "{what}");
            // SAFETY: the holder's slots, no stop since `get`.
            let bits = unsafe { super::ref_slots::raw_slot(refs, field) };
            assert_eq!(bits, refs.encode(after) as u64, "{what}: the slot's bits");
            let got = |k| m.load(holder, k).unwrap().map_or(0, |o| o.addr());
            assert_eq!([got(0), got(1), got(2)], [c, after, c], "{what}: the slots");
            assert_eq!(m.read(holder, 0).unwrap(), 0x5EED, "{what}: the data word");
            checked += 1;
        }
        assert_eq!(
            SLOW.with(Cell::get),
            slow0,
            "{refs:?}: no forwarded objects, no slow call"
        );
    }
    checked
}
