//! The Brooks write barrier template on a real heap, shared by every
//! architecture's test binary (x64_brooks_wb.rs, aarch64_brooks_wb.rs):
//! the template inline, its slow-path stub calling the library's
//! `fastpath::gc::brooks_wb_slow_entry` (counted), on a `shenandoah-2017`
//! heap in concurrent mode with aggressive back-to-back cycles and the
//! verifier after each. Rooted holders each reference a target; the
//! targets are written through the generated function with the reference
//! loaded raw from the holder's field just before each call, as generated
//! code loads it (a Brooks heap leaves a field naming the from-space
//! object until the cycle's update-references phase, while the roots are
//! the to-space ones from the evacuation's start), until the stub has
//! returned a different object — the copy it made or found — several
//! times; each time the original's forwarding word must name that copy,
//! the copy must name itself and hold the original's data, and the stored
//! value must be resolved to its forwardee.
//!
//! The contract with the collector: the test holds the addresses only
//! between two safepoint polls (generated code has none), so no pause can
//! free a region while the test reads through an address it loaded or was
//! handed.

use std::cell::Cell;
use std::time::{Duration, Instant};

use fastpath::gc::{BarrierBits, GcMode, Heap, HeapConfig, Shenandoah2017Barriers};
use fastpath::thread::{self, ThreadBlock};

/// `(block, obj, val, out)`: `out` = [object to write, value to store].
pub type Wb = extern "C" fn(*const ThreadBlock, usize, usize, *mut [usize; 2]);

thread_local! {
    /// Calls of [`slow_counted`] on this thread.
    static SLOW: Cell<usize> = const { Cell::new(0) };
}

/// The stub's slow path: the library's, counted.
pub extern "C" fn slow_counted(t: *const ThreadBlock, obj: usize) -> usize {
    SLOW.with(|c| c.set(c.get() + 1));
    fastpath_jit::slow::brooks_wb(t, obj)
}

/// Objects written round-robin.
const OBJECTS: usize = 64;
/// Stub results that changed the object, to see before stopping.
const CHANGES: usize = 8;
/// Bounds the run if the collector never copies a written object (a
/// failure: reached only if cycles stop or never pick these regions).
const HARD_CAP: Duration = Duration::from_secs(300);

/// The word at `addr`.
///
/// # Safety
/// `addr` is a word of the heap of the calling thread's mutator, which
/// has not polled since the address was read from its roots or returned
/// by generated code (so its region is not freed).
unsafe fn word(addr: usize) -> usize {
    // SAFETY: per the contract; Acquire as the Rust `forwardee` reads a
    // forwarding word (the copy's contents are published by the
    // evacuating CAS's release).
    unsafe { (*(addr as *const std::sync::atomic::AtomicUsize)).load(std::sync::atomic::Ordering::Acquire) }
}

/// Runs the scenario on this thread (spawn one: the heap's mutator binds
/// to it). Returns (writes, slow-path calls, changed objects).
pub fn copies_through_the_stub(wb: Wb) -> (usize, usize, usize) {
    let mut c = HeapConfig::new(8 << 20, BarrierBits::SHENANDOAH_2017, GcMode::Concurrent);
    c.aggressive = true;
    c.verify = true;
    let h = Heap::new(c).unwrap();
    let mut m = h.mutator::<Shenandoah2017Barriers>().unwrap();
    let holders = super::real_heap::rooted_holders(&mut m, OBJECTS, 1);
    // fastpath's object layout: forwarding word at -8, the first field
    // (reference or data) after the header and layout words.
    let field =
        |m: &fastpath::gc::Mutator<Shenandoah2017Barriers>, i: usize| m.get(holders[i]).unwrap().addr() + 16;
    // SAFETY: a live holder's field and its target, no poll since.
    let t0 = unsafe { word(field(&m, 0)) };
    // The layout as the test reads it: the target's forwarding word names
    // the target itself or, where the collector's workers have already
    // evacuated it (cycles run back to back, concurrently with this
    // thread), a copy that names itself and holds the same data.
    // SAFETY: as above; a copy's address comes from the heap's own word.
    let f0 = unsafe { word(t0 - 8) };
    // SAFETY: as above.
    assert_eq!(unsafe { (word(f0 - 8), word(f0 + 16)) }, (f0, 1000));
    let block = thread::current().as_ptr();
    let slow0 = SLOW.with(Cell::get);
    let (start, mut writes, mut changed) = (Instant::now(), 0, 0);
    while changed < CHANGES && start.elapsed() < HARD_CAP {
        for i in 0..OBJECTS {
            // SAFETY: the holders' fields, live words of the heap; no
            // poll since the holders' addresses were read.
            let (o, v) = unsafe { (word(field(&m, i)), word(field(&m, (i + 1) % OBJECTS))) };
            let mut out = [0usize; 2];
            wb(block, o, v, &mut out);
            writes += 1;
            // SAFETY: every `word` below reads `o`, `v` (just loaded from
            // the heap) or `out` (returned by the call); no poll since.
            unsafe {
                if out[0] != o {
                    changed += 1;
                    assert_eq!(
                        word(o - 8),
                        out[0],
                        "object {i}: the original forwards to the copy"
                    );
                    assert_eq!(
                        word(out[0] - 8),
                        out[0],
                        "object {i}: the copy is its own forwardee"
                    );
                    assert_eq!(word(out[0] + 16), 1000 + i, "object {i}: the copy holds its data");
                }
                if out[1] != v {
                    assert_eq!(word(v - 8), out[1], "value {i}: resolved to its forwardee");
                }
            }
        }
        // Garbage, so cycles have regions to reclaim and copy.
        let d = m.roots_len();
        for _ in 0..32 {
            m.alloc(2, 6).unwrap();
        }
        m.truncate_roots(d);
        m.safepoint_poll();
    }
    let slow = SLOW.with(Cell::get) - slow0;
    drop(m);
    let stats = h.stats();
    println!(
        "Brooks WB stub on a concurrent shenandoah-2017 heap: {writes} writes, {slow} through the library's slow path, \
         {changed} returned the copy; {} cycles, {} verified, {} copies by mutators, {} by the collector",
        stats.cycles, stats.verified_cycles, stats.evacuated_by_mutators, stats.evacuated_by_collector
    );
    assert_eq!(stats.verify_errors, Vec::<String>::new());
    assert!(
        changed >= CHANGES,
        "only {changed} writes found a copy in {HARD_CAP:?}"
    );
    assert!(slow >= changed, "a copy was returned without the slow path");
    (writes, slow, changed)
}
