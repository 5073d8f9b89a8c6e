//! The load-reference barrier as a JIT emits it (the idle test, the
//! collection-set path resolving copies in the heap's cell format, its
//! stub calling the library's `lrb_slow_entry`, counted) on real
//! concurrent `shenandoah` heaps with aggressive cycles and the verifier,
//! in each cell format (`HeapConfig::cell_format`): compact (a copy
//! recorded in the original's layout word) and Brooks (the forwarding
//! word). Shared by every form's test binary (x86-64 and AArch64
//! templates, fastpath-cranelift's CLIF).
//!
//! While the thread block's state says forwarded objects exist (stable
//! until this mutator's next stop), each rooted holder's field is loaded
//! raw and passed through the generated barrier, as a JIT does after a
//! field load. The reference it returns must be the object's current
//! copy as the heap records it (read back in the heap's format), outside
//! the collection set unless evacuation failed and left it in place; the
//! target's data, counts and tag must read as written (half the targets
//! are allocated in the layout word's tagged form, with one reference
//! naming their holder: in a heap with 4-byte slots it lies in the high
//! half of the 8 bytes the compact format's test of a copy loads, whose
//! bit 31 only, clear in either form, tells a forwarded original; an
//! unscaled heap's reference above 2 GiB has its own bit 31 set there).
//! A from-space reference the
//! collector had already copied resolves inline (no call); one it had not
//! goes to the library, which copies it and heals the field. The run
//! ends after [`EVENTS`] inline resolutions and at least one evacuation
//! through the stub.
//!
//! [`lrb_resolves_real_copies_in`] runs the same on a heap whose reference
//! slots are of a given width, with a function that loads the field
//! itself (the data template's reference load, decoding a compressed
//! slot) before the barrier, as a JIT emits a field load: the slot the
//! library heals then holds the copy's encoding (`copy >> 3` in a
//! compressed one).
//!
//! The contract with the collector: as `data_world`'s (generated code
//! holds an address only inside one call; the test reads addresses only
//! between two of its mutator's stops).

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use fastpath::code::{CodeCache, Entry};
use fastpath::gc::layout::{self as gl, CellFormat, RefWidth};
use fastpath::gc::{BarrierBits, Dynamic, GcCellFormat, GcMode, Heap, HeapConfig, Obj};
use fastpath::thread::{self, ThreadBlock};
use fastpath_jit::{CsetMap, Forwardee, ObjectLayout, ThreadLayout};

/// `fn(block, obj, field) -> the reference to use`: the barrier of a
/// reference `obj` just loaded from `field`.
pub type LrbFn = extern "C" fn(*const ThreadBlock, usize, usize) -> usize;
/// Builds the barrier for the thread block's layout, the heap's
/// collection set and format, its stub calling `slow` (the library's
/// signature).
pub type BuildLrb = fn(&CodeCache, ThreadLayout, CsetMap, Forwardee, usize) -> Entry;

thread_local! {
    /// Calls of [`lrb_counted`] on this thread.
    static SLOW: Cell<usize> = const { Cell::new(0) };
}

/// The stub's slow path: the library's, counted.
pub extern "C" fn lrb_counted(t: *const ThreadBlock, obj: usize, field: usize) -> usize {
    SLOW.with(|c| c.set(c.get() + 1));
    fastpath_jit::slow::lrb(t, obj, field)
}

/// The configuration's choice that gives a heap cells of `format`.
pub fn cell_format_choice(format: CellFormat) -> GcCellFormat {
    match format {
        CellFormat::Brooks => GcCellFormat::Brooks,
        CellFormat::Compact => GcCellFormat::Compact,
    }
}

/// The word at `addr`.
///
/// # Safety
/// A word of the calling thread's mutator's heap, read from a root, a
/// field or generated code since the mutator's last stop.
unsafe fn word(addr: usize) -> usize {
    // SAFETY: per the contract; Acquire as the Rust `forwardee`.
    unsafe { (*(addr as *const AtomicUsize)).load(Ordering::Acquire) }
}

/// The copy of `obj` the heap records in format `format` (itself when
/// not copied).
///
/// # Safety
/// As [`word`], for an object.
pub unsafe fn forwardee(format: CellFormat, obj: usize) -> usize {
    match format {
        // SAFETY: per the contract: the object's forwarding word.
        CellFormat::Brooks => unsafe { word(obj.wrapping_add_signed(gl::FORWARDING_OFFSET)) },
        CellFormat::Compact => {
            // SAFETY: per the contract: the object's layout word.
            let w = unsafe { word(obj + gl::LAYOUT_WORD_OFFSET) };
            if gl::is_forwarded_layout_word(w) {
                gl::forwardee_of_layout_word(w)
            } else {
                obj
            }
        }
    }
}

/// Whether `addr` is in the collection set (the heap's map, as the
/// barrier reads it).
fn in_cset(cset: CsetMap, addr: usize) -> bool {
    // SAFETY: the map's byte of a heap address (the documented lookup),
    // live while the heap is.
    let byte = unsafe { *(cset.biased.wrapping_add(addr >> cset.region_shift) as *const u8) };
    byte == gl::CSET_IN
}

const OBJECTS: usize = 64;
/// The references of each tagged target ([`super::real_heap::rooted_holders_with`]).
const TAGGED_REFS: usize = 1;
/// Inline resolutions to see before stopping.
const EVENTS: usize = 8;
/// Bounds a run whose cycles never copy these objects (a failure).
const HARD_CAP: Duration = Duration::from_secs(120);

/// What a run saw.
#[derive(Debug, Default)]
pub struct Seen {
    /// Barriers run while forwarded objects existed.
    pub loads: usize,
    /// From-space references resolved inline (no call).
    pub inline: usize,
    /// From-space references sent to the library, which copied or
    /// resolved them.
    pub slow: usize,
    /// Of `inline`, the tagged objects' ([`super::real_heap::target_tag`]).
    pub inline_tagged: usize,
}

/// See the module docs, on a concurrent `shenandoah` heap of cell format
/// `format`; runs on the calling thread, which must have no mutator.
pub fn lrb_resolves_real_copies(build: BuildLrb, format: CellFormat) -> Seen {
    lrb_resolves(build, format, RefWidth::Full)
}

/// See the module docs, on a concurrent `shenandoah` heap of cell format
/// `format` whose reference slots are `refs` wide, with `build`'s function
/// loading the field (its `obj` argument ignored; a closure may carry the
/// width); runs on the calling thread, which must have no mutator.
pub fn lrb_resolves_real_copies_in(
    build: impl Fn(&CodeCache, ThreadLayout, CsetMap, Forwardee, usize) -> Entry,
    format: CellFormat,
    refs: RefWidth,
) -> Seen {
    lrb_resolves(build, format, refs)
}

fn lrb_resolves(
    build: impl Fn(&CodeCache, ThreadLayout, CsetMap, Forwardee, usize) -> Entry,
    format: CellFormat,
    refs: RefWidth,
) -> Seen {
    let set = BarrierBits::SHENANDOAH;
    let mut c = HeapConfig::new(8 << 20, set, GcMode::Concurrent);
    c.aggressive = true;
    c.verify = true;
    c.cell_format = cell_format_choice(format);
    c.refs = refs;
    let heap = Heap::new(c).unwrap();
    assert_eq!((heap.cell_format(), heap.ref_width()), (format, refs));
    let mut m = heap.mutator::<Dynamic>().unwrap();
    let cset = CsetMap::of(&m);
    let forwardee_word = ObjectLayout::of(&m).unwrap().forwardee;
    assert_eq!(forwardee_word, Forwardee::fastpath(format));
    let cache = CodeCache::new(64 * 1024).unwrap();
    let layout = ThreadLayout::fastpath().unwrap();
    let entry = build(
        &cache,
        layout,
        cset,
        forwardee_word,
        lrb_counted as *const () as usize,
    );
    // SAFETY: the builder's function is a complete `extern "C" fn(block,
    // obj, field) -> reference`, called on this thread with its block, on
    // fields of its mutator's heap, between its stops.
    let lrb: LrbFn = unsafe { entry.as_fn() };
    let holders = super::real_heap::rooted_holders_with(&mut m, OBJECTS, TAGGED_REFS, 2);
    let block = thread::current().as_ptr();
    let mut seen = Seen::default();
    let start = Instant::now();
    while (seen.inline < EVENTS || seen.slow == 0 || seen.inline_tagged == 0) && start.elapsed() < HARD_CAP {
        super::real_heap::until_state(&mut m, gl::GC_STATE_HAS_FORWARDED, start, HARD_CAP);
        for (i, &h) in holders.iter().enumerate() {
            let holder = m.get(h).unwrap();
            let field = holder.addr() + refs.ref_offset(0);
            // SAFETY: the holder's reference field, no stop since `get`.
            let raw = unsafe { super::ref_slots::slot(refs, field) };
            let calls = SLOW.with(Cell::get);
            let got = lrb(block, raw, field);
            let called = SLOW.with(Cell::get) != calls;
            seen.loads += 1;
            let what = format!("{set} ({format:?}) object {i}");
            // SAFETY: `raw` was read from a field since the last stop.
            let now = unsafe { forwardee(format, raw) };
            assert_eq!(got, now, "{what}: the barrier's reference is the heap's copy");
            assert!(
                !in_cset(cset, got) || got == raw,
                "{what}: a from-space reference {got:#x} handed out"
            );
            // SAFETY: `got` is the object the barrier handed out, no stop since.
            let target = unsafe { Obj::from_addr(got) };
            assert_eq!(m.read(target, 0).unwrap(), 1000 + i, "{what}: the target's data");
            let tag = super::real_heap::target_tag(i);
            assert_eq!(m.tag(target).unwrap(), tag, "{what}: the target's tag");
            let nrefs = if tag.is_some() { TAGGED_REFS } else { 0 };
            assert_eq!(
                m.shape(target).unwrap(),
                (nrefs, 2),
                "{what}: the target's counts"
            );
            if tag.is_some() && refs.is_compressed() {
                // SAFETY: as `got`: the 8 bytes at its layout word.
                let w = unsafe { word(got + gl::LAYOUT_WORD_OFFSET) };
                if !gl::is_forwarded_layout_word(w) {
                    assert_eq!(
                        gl::layout_tag(w & 0xffff_ffff),
                        tag,
                        "{what}: the 4-byte tagged word"
                    );
                    assert_ne!(
                        w >> 32,
                        0,
                        "{what}: reference 0 (its holder) after the tagged word"
                    );
                }
            }
            match (in_cset(cset, raw), called) {
                (false, false) => assert_eq!(got, raw, "{what}: outside the collection set"),
                (false, true) => panic!("{what}: the stub was called outside the collection set"),
                (true, false) => {
                    assert_ne!(got, raw, "{what}: resolved inline to a copy");
                    seen.inline += 1;
                    seen.inline_tagged += usize::from(tag.is_some());
                }
                (true, true) => {
                    // SAFETY: as `raw`.
                    let healed = unsafe { super::ref_slots::raw_slot(refs, field) };
                    assert_eq!(
                        healed,
                        refs.encode(got) as u64,
                        "{what}: the library healed the field with the copy's encoding"
                    );
                    seen.slow += 1;
                }
            }
        }
        m.safepoint_poll();
    }
    drop(m);
    let stats = heap.stats();
    println!(
        "LRB on a concurrent {set} heap ({format:?} cells, {refs:?} references): {} barriers while forwarded objects existed, {} copies \
         resolved inline ({} tagged), {} through the library; {} cycles, {} verified, {} copies by mutators",
        seen.loads,
        seen.inline,
        seen.inline_tagged,
        seen.slow,
        stats.cycles,
        stats.verified_cycles,
        stats.evacuated_by_mutators
    );
    assert_eq!(stats.verify_errors, Vec::<String>::new());
    assert!(
        seen.inline >= EVENTS,
        "only {} inline resolutions in {HARD_CAP:?}",
        seen.inline
    );
    assert!(seen.slow > 0, "no load reached the library in {HARD_CAP:?}");
    assert!(
        seen.inline_tagged > 0,
        "no tagged object resolved inline in {HARD_CAP:?}"
    );
    seen
}
