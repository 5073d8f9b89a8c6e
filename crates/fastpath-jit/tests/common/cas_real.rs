//! The reference CAS template with its stub calling the library's retry
//! (`fastpath::gc::cas_ref_slow_entry`, counted) on a concurrent
//! `shenandoah` heap with aggressive cycles and the verifier, shared by
//! every form's test binary. While the thread block's state says forwarded
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
use fastpath::gc::layout as gl;
use fastpath::gc::{BarrierBits, GcMode, Heap, HeapConfig, ShenandoahBarriers};
use fastpath::thread::{self, ThreadBlock};

/// `fn(block, field, expected, new) -> expected on success, else the
/// witnessed value`: the template and its stub.
pub type CasFn = extern "C" fn(*const ThreadBlock, usize, usize, usize) -> usize;
/// Builds the function, its stub calling `slow`.
pub type BuildCas = fn(&CodeCache, usize) -> CasFn;

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

/// The word at `addr`.
///
/// # Safety
/// A word of the calling thread's mutator's heap, read from a root or a
/// field since the mutator's last stop.
unsafe fn word(addr: usize) -> usize {
    // SAFETY: per the contract; Acquire as the Rust barriers' loads.
    unsafe { (*(addr as *const AtomicUsize)).load(Ordering::Acquire) }
}

const OBJECTS: usize = 64;
/// False failures to see retried before stopping.
const EVENTS: usize = 8;
/// Bounds a run whose cycles never copy these objects (a failure).
const HARD_CAP: Duration = Duration::from_secs(120);

/// See the module docs; returns (CASes, slow-path calls, false failures
/// retried).
pub fn false_failures_succeed_through_the_slow_entry(build: BuildCas) -> (usize, usize, usize) {
    let cache = CodeCache::new(64 * 1024).unwrap();
    let cas = build(&cache, cas_counted as *const () as usize);
    let mut c = HeapConfig::new(8 << 20, BarrierBits::SHENANDOAH, GcMode::Concurrent);
    c.aggressive = true;
    c.verify = true;
    let heap = Heap::new(c).unwrap();
    let mut m = heap.mutator::<ShenandoahBarriers>().unwrap();
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
            let field = holder.addr() + gl::ref_offset(1);
            // SAFETY: the holder's second field, no stop since `get`.
            let raw = unsafe { word(field) };
            let to = m.load(holder, 0).unwrap().unwrap().addr();
            stale += usize::from(raw != to);
            // A genuine failure: the holder is not the field's object.
            let other = holder.addr();
            let w = cas(block, field, other, 0);
            assert_ne!(w, other, "a CAS expecting another object fails");
            // SAFETY: as above.
            let now = unsafe { word(field) };
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
            assert_eq!(unsafe { word(field) }, to);
            cases += 2;
        }
        m.safepoint_poll();
    }
    let (calls, won) = SLOW.with(Cell::get);
    let (calls, won) = (calls - slow0.0, won - slow0.1);
    drop(m);
    let stats = heap.stats();
    println!(
        "reference CAS on a concurrent shenandoah heap: {cases} CASes while forwarded objects existed, \
         {stale} fields holding the from-space copy, {calls} slow-path calls, {won} false failures retried \
         to success; {} cycles, {} verified",
        stats.cycles, stats.verified_cycles
    );
    assert_eq!(stats.verify_errors, Vec::<String>::new());
    assert!(won >= EVENTS, "only {won} false failures in {HARD_CAP:?}");
    (cases, calls, won)
}
