//! The data load and store templates against the Rust accessors on real
//! heaps, shared by every form's test binary (x86-64, AArch64 under qemu,
//! fastpath-cranelift's CLIF): each builds `LoadFn`s and `StoreFn`s for a
//! width, a barrier ([`DataBarrier::read`]/[`DataBarrier::write`] of the
//! heap's set), an offset and a field or element form, and these scenarios
//! run them.
//!
//! - [`every_form_agrees_with_the_rust_accessors`]: each preset in passive
//!   mode, every width, fields at both ends of a data word and elements
//!   across two words: a load returns the bytes the Rust `write` put there,
//!   extended; a store changes exactly its bytes, as the Rust `read` sees.
//! - [`brooks_stores_reach_the_copy_during_evacuation`]: a concurrent
//!   `shenandoah-2017` heap with aggressive cycles and the verifier: while
//!   the thread block's state says evacuation (stable until this mutator's
//!   next stop), the objects a field still names (from-space ones, as a
//!   Brooks heap leaves them until update-refs) are written through the
//!   store template, whose stub calls the library's slow path (counted):
//!   the write lands in the copy (the original keeps its old bytes), the
//!   Rust `read` through the stale address and the load template see it.
//! - [`lrb_accesses_need_no_barrier_during_evacuation`]: the same on
//!   `shenandoah` heaps of each cell format (compact: a copy recorded in
//!   the original's layout word; Brooks: in its forwarding word), the
//!   objects loaded through the Rust LRB (which copies and heals): the
//!   plain templates on what it returns agree with the Rust accessors, and
//!   each such object is the copy.
//!
//! Each heap's object layout is its cell format's
//! (`ObjectLayout::fastpath(heap.cell_format())`): only the Brooks preset's
//! objects have the forwarding word its data barriers read.
//!
//! The contract with the collector: generated code holds an address only
//! inside one call, and the test reads addresses only between two of its
//! mutator's stops, so no pause moves or frees what it reads.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use fastpath::code::CodeCache;
use fastpath::gc::layout::{self as gl, CellFormat};
use fastpath::gc::{BarrierBits, Dynamic, GcMode, Heap, HeapConfig, Mutator, Obj};
use fastpath::thread::{self, ThreadBlock};
use fastpath_jit::{DataBarrier, DataWidth, ObjectLayout, ThreadLayout};

/// `fn(block, obj, index) -> value`: a load template (the block unused).
pub type LoadFn = extern "C" fn(*const ThreadBlock, usize, usize) -> u64;
/// `fn(block, obj, index, value) -> the object written`: a store template.
pub type StoreFn = extern "C" fn(*const ThreadBlock, usize, usize, u64) -> usize;

/// What a builder emits: `width` bytes at `offset` from the object (plus
/// `index × width` when `indexed`), with `barrier`.
#[derive(Clone, Copy, Debug)]
pub struct Access {
    pub width: DataWidth,
    pub barrier: DataBarrier,
    pub offset: i32,
    pub indexed: bool,
}

/// A load builder: the function for `access`, installed in the cache.
pub type BuildLoad = fn(&CodeCache, Access) -> LoadFn;
/// A store builder: the function for `access`, its stub (under the Brooks
/// write barrier) calling `slow`.
pub type BuildStore = fn(&CodeCache, Access, usize) -> StoreFn;

thread_local! {
    /// Calls of [`brooks_wb_counted`] on this thread.
    static SLOW: Cell<usize> = const { Cell::new(0) };
}

/// The store stub's slow path: the library's Brooks write barrier entry,
/// counted.
pub extern "C" fn brooks_wb_counted(t: *const ThreadBlock, obj: usize) -> usize {
    SLOW.with(|c| c.set(c.get() + 1));
    fastpath_jit::slow::brooks_wb(t, obj)
}

/// The word at `addr` (atomic, as the heap's).
///
/// # Safety
/// `addr` is a word of the calling thread's mutator's heap, read from a
/// root, a field or generated code since the mutator's last stop.
unsafe fn word(addr: usize) -> usize {
    // SAFETY: per the contract; Acquire as the Rust `forwardee`.
    unsafe { (*(addr as *const AtomicUsize)).load(Ordering::Acquire) }
}

/// The forwardee of object `obj` of a heap of cell format `format`
/// (itself when not forwarded).
///
/// # Safety
/// As [`word`], for an object.
unsafe fn forwardee(format: CellFormat, obj: usize) -> usize {
    // SAFETY: per the contract.
    unsafe { super::lrb_real::forwardee(format, obj) }
}

const NREFS: usize = 2;
const NDATA: usize = 4;

/// A pattern every byte of which differs, with high bits set in each
/// narrow width (so sign and zero extension differ).
fn pattern(j: usize) -> u64 {
    0x8182_8384_f5f6_f7f8u64.rotate_left(8 * j as u32) ^ (j as u64 * 0x0101_0101_0101_0101)
}

/// The fields and elements each width is exercised at: `(offset, index)`
/// pairs of the access, the element form's index in 0..(16 / width).
fn places(width: DataWidth) -> Vec<(Access, usize)> {
    // The data offsets are the same in both formats.
    let o = ObjectLayout::fastpath(CellFormat::Compact).unwrap();
    let w = width.bytes() as i32;
    let word0 = o.data_offset(NREFS as u32, 0).unwrap();
    let word1 = o.data_offset(NREFS as u32, 1).unwrap();
    let field = |offset| Access {
        width,
        barrier: DataBarrier::None,
        offset,
        indexed: false,
    };
    let mut v = vec![(field(word0), 0), (field(word1 + 8 - w), 0)];
    let last = (16 / w - 1) as usize;
    for index in [0, last / 2 + 1, last] {
        v.push((
            Access {
                indexed: true,
                ..field(word1)
            },
            index,
        ));
    }
    v
}

/// The data words' bytes as a model: byte `b` of the data area.
fn bytes_of(words: &[u64]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// `width` bytes at byte `at` of the model, little-endian.
fn model_load(bytes: &[u8], at: usize, width: DataWidth) -> u64 {
    let mut raw = [0u8; 8];
    raw[..width.bytes() as usize].copy_from_slice(&bytes[at..at + width.bytes() as usize]);
    width.extend(u64::from_le_bytes(raw))
}

/// The function built for `access`, built once (presets share barriers).
fn built<F: Copy>(done: &mut Vec<(Access, F)>, access: Access, build: impl FnOnce() -> F) -> F {
    let same = |a: &Access| {
        (a.width, a.barrier, a.offset, a.indexed)
            == (access.width, access.barrier, access.offset, access.indexed)
    };
    if let Some((_, f)) = done.iter().find(|(a, _)| same(a)) {
        return *f;
    }
    let f = build();
    done.push((access, f));
    f
}

/// Each preset in passive mode (see the module docs); returns the accesses
/// checked.
pub fn every_form_agrees_with_the_rust_accessors(load: BuildLoad, store: BuildStore) -> usize {
    let cache = CodeCache::new(1 << 20).unwrap();
    let tl = ThreadLayout::fastpath().unwrap();
    let data0 = gl::data_offset(NREFS, 0);
    let (mut loads, mut stores) = (Vec::new(), Vec::new());
    let mut checked = 0;
    for set in [
        BarrierBits::NONE,
        BarrierBits::SERIAL,
        BarrierBits::G1,
        BarrierBits::SHENANDOAH,
        BarrierBits::SHENANDOAH_2017,
    ] {
        let heap = Heap::new(HeapConfig::new(4 << 20, set, GcMode::Passive)).unwrap();
        let ol = ObjectLayout::fastpath(heap.cell_format()).unwrap();
        let mut m = heap.mutator::<Dynamic>().unwrap();
        let h = m.alloc(NREFS, NDATA).unwrap();
        let block = thread::current().as_ptr();
        for width in DataWidth::ALL {
            for (place, index) in places(width) {
                let read = Access {
                    barrier: DataBarrier::read(set, &ol).unwrap(),
                    ..place
                };
                let write = Access {
                    barrier: DataBarrier::write(set, &tl, &ol).unwrap(),
                    ..place
                };
                let lf = built(&mut loads, read, || load(&cache, read));
                let sf = built(&mut stores, write, || {
                    store(&cache, write, brooks_wb_counted as *const () as usize)
                });
                let o = m.get(h).unwrap();
                let mut words: Vec<u64> = (0..NDATA).map(pattern).collect();
                for (j, &w) in words.iter().enumerate() {
                    m.write(o, j, w as usize).unwrap();
                }
                let at = (place.offset as usize - data0) + index * width.bytes() as usize;
                let what = format!("{set:?} {width:?} at data byte {at} (index {index}, {place:?})");
                assert_eq!(
                    lf(block, o.addr(), index),
                    model_load(&bytes_of(&words), at, width),
                    "load {what}"
                );
                let value = 0x1122_3344_5566_7788u64 ^ at as u64;
                assert_eq!(
                    sf(block, o.addr(), index, value),
                    o.addr(),
                    "store {what}: no copy"
                );
                let mut bytes = bytes_of(&words);
                bytes[at..at + width.bytes() as usize]
                    .copy_from_slice(&value.to_le_bytes()[..width.bytes() as usize]);
                for (j, w) in words.iter_mut().enumerate() {
                    *w = u64::from_le_bytes(bytes[8 * j..8 * j + 8].try_into().unwrap());
                    assert_eq!(m.read(o, j).unwrap() as u64, *w, "store {what}: data word {j}");
                }
                assert_eq!(lf(block, o.addr(), index), width.extend(value), "reload {what}");
                checked += 2;
            }
        }
        drop(m);
    }
    println!("data templates: {checked} loads and stores, each against the Rust accessors");
    checked
}

/// Objects written per round.
const OBJECTS: usize = 64;
/// Accesses to see through an evacuated object before stopping.
const EVENTS: usize = 8;
/// Bounds a run whose cycles never copy these objects (a failure).
const HARD_CAP: Duration = Duration::from_secs(120);

/// A concurrent, aggressive heap of `set` (cells in `format`, or the
/// configuration's default) with the verifier on, and `OBJECTS` rooted
/// holders each naming a target with 2 data words (word 0: `1000 + i`).
fn holders(
    set: BarrierBits,
    format: Option<CellFormat>,
) -> (Heap, Mutator<Dynamic>, Vec<fastpath::gc::Handle>) {
    let mut c = HeapConfig::new(8 << 20, set, GcMode::Concurrent);
    c.aggressive = true;
    c.verify = true;
    if let Some(f) = format {
        c.cell_format = super::lrb_real::cell_format_choice(f);
    }
    let heap = Heap::new(c).unwrap();
    let mut m = heap.mutator::<Dynamic>().unwrap();
    let hs = super::real_heap::rooted_holders(&mut m, OBJECTS, 2);
    (heap, m, hs)
}

/// See the module docs; returns (stores, slow-path calls, stores that
/// found a copy).
pub fn brooks_stores_reach_the_copy_during_evacuation(
    load: BuildLoad,
    store: BuildStore,
) -> (usize, usize, usize) {
    let set = BarrierBits::SHENANDOAH_2017;
    let format = CellFormat::for_barriers(set);
    assert_eq!(format, CellFormat::Brooks);
    let (tl, ol) = (
        ThreadLayout::fastpath().unwrap(),
        ObjectLayout::fastpath(format).unwrap(),
    );
    let cache = CodeCache::new(256 * 1024).unwrap();
    let word1 = ol.data_offset(0, 1).unwrap();
    let forms: Vec<(LoadFn, StoreFn, DataWidth, usize)> = [(DataWidth::U64, 0usize), (DataWidth::U16, 3)]
        .into_iter()
        .map(|(width, index)| {
            let at = Access {
                width,
                barrier: DataBarrier::read(set, &ol).unwrap(),
                offset: word1,
                indexed: index != 0,
            };
            let w = Access {
                barrier: DataBarrier::write(set, &tl, &ol).unwrap(),
                ..at
            };
            (
                load(&cache, at),
                store(&cache, w, brooks_wb_counted as *const () as usize),
                width,
                index,
            )
        })
        .collect();
    let (heap, mut m, hs) = holders(set, None);
    assert_eq!(heap.cell_format(), format);
    let block = thread::current().as_ptr();
    let slow0 = SLOW.with(Cell::get);
    let (start, mut stores, mut copied) = (Instant::now(), 0usize, 0usize);
    while copied < EVENTS && start.elapsed() < HARD_CAP {
        super::real_heap::until_state(&mut m, gl::GC_STATE_EVACUATION, start, HARD_CAP);
        for (i, &h) in hs.iter().enumerate() {
            let holder = m.get(h).unwrap();
            // SAFETY: the holder's reference field, no stop since `get`;
            // then the target it names.
            let x = unsafe { word(holder.addr() + gl::ref_offset(0)) };
            // SAFETY: as above.
            let raw_before = unsafe { word(x + gl::data_offset(0, 1)) };
            // SAFETY: `x` was read from a field since the last stop.
            let stale = unsafe { Obj::from_addr(x) };
            // Through the forwarding word: the copy's, if there is one (a
            // copy made now snapshots the original, which nobody writes
            // during evacuation).
            let before = m.read(stale, 1).unwrap();
            let (lf, sf, width, index) = forms[i % forms.len()];
            let value = 0xabcd_0000_0000_0000u64 | (stores as u64);
            let written = sf(block, x, index, value);
            stores += 1;
            // SAFETY: `x` and what the call returned, no stop since.
            let (fx, fw) = unsafe { (forwardee(format, x), forwardee(format, written)) };
            assert_eq!(
                fw, written,
                "object {i}: written to a copy that is its own forwardee"
            );
            assert_eq!(fx, written, "object {i}: written to the object's current copy");
            let seen = m.read(stale, 1).unwrap() as u64;
            let at = 2 * index;
            let want = (before as u64 & !(width_mask(width) << (8 * at)))
                | ((value & width_mask(width)) << (8 * at));
            assert_eq!(seen, want, "object {i}: the Rust read through the stale address");
            assert_eq!(
                lf(block, x, index),
                width.extend(value),
                "object {i}: the load template"
            );
            assert_eq!(
                m.read(stale, 0).unwrap(),
                1000 + i,
                "object {i}: the copy kept word 0"
            );
            if x != written {
                copied += 1;
                // SAFETY: the from-space original, not freed before the
                // cycle's end (no stop since).
                let original = unsafe { word(x + gl::data_offset(0, 1)) };
                assert_eq!(original, raw_before, "the original is not written");
            }
        }
        m.safepoint_poll();
    }
    let slow = SLOW.with(Cell::get) - slow0;
    drop(m);
    let stats = heap.stats();
    println!(
        "data stores on a concurrent shenandoah-2017 heap: {stores} during evacuation, {slow} through the library's \
         slow path, {copied} to a copy; {} cycles, {} verified",
        stats.cycles, stats.verified_cycles
    );
    assert_eq!(stats.verify_errors, Vec::<String>::new());
    assert!(
        copied >= EVENTS,
        "only {copied} stores met a copied object in {HARD_CAP:?}"
    );
    assert!(slow > 0, "evacuation never took the slow path");
    (stores, slow, copied)
}

/// The bits of a `width` value in a word.
fn width_mask(width: DataWidth) -> u64 {
    u64::MAX >> (64 - 8 * width.bytes())
}

/// See the module docs, in each cell format; returns (accesses, objects
/// the LRB had copied).
pub fn lrb_accesses_need_no_barrier_during_evacuation(load: BuildLoad, store: BuildStore) -> (usize, usize) {
    let mut total = (0, 0);
    for format in [CellFormat::Compact, CellFormat::Brooks] {
        let (accesses, healed) = lrb_accesses_in(format, load, store);
        total = (total.0 + accesses, total.1 + healed);
    }
    total
}

/// [`lrb_accesses_need_no_barrier_during_evacuation`] on cells of `format`.
fn lrb_accesses_in(format: CellFormat, load: BuildLoad, store: BuildStore) -> (usize, usize) {
    let set = BarrierBits::SHENANDOAH;
    let (heap, mut m, hs) = holders(set, Some(format));
    assert_eq!(heap.cell_format(), format);
    let (tl, ol) = (ThreadLayout::fastpath().unwrap(), ObjectLayout::of(&m).unwrap());
    let cache = CodeCache::new(64 * 1024).unwrap();
    let at = Access {
        width: DataWidth::I32,
        barrier: DataBarrier::read(set, &ol).unwrap(),
        offset: ol.data_offset(0, 1).unwrap() + 4,
        indexed: false,
    };
    assert_eq!(at.barrier, DataBarrier::None);
    assert_eq!(DataBarrier::write(set, &tl, &ol), Ok(DataBarrier::None));
    let (lf, sf) = (load(&cache, at), store(&cache, at, 0));
    let block = thread::current().as_ptr();
    let (start, mut accesses, mut healed) = (Instant::now(), 0usize, 0usize);
    while healed < EVENTS && start.elapsed() < HARD_CAP {
        super::real_heap::until_state(&mut m, gl::GC_STATE_EVACUATION, start, HARD_CAP);
        for (i, &h) in hs.iter().enumerate() {
            let holder = m.get(h).unwrap();
            // SAFETY: the holder's reference field, no stop since `get`.
            let raw = unsafe { word(holder.addr() + gl::ref_offset(0)) };
            let t = m.load(holder, 0).unwrap().unwrap();
            let y = t.addr();
            if y != raw {
                healed += 1;
                // SAFETY: the from-space original and its copy, no stop.
                let forwarded = unsafe { forwardee(format, raw) };
                assert_eq!(forwarded, y, "object {i}: the LRB returned the copy");
            }
            let value = -(accesses as i64) - 1;
            assert_eq!(
                sf(block, y, 0, value as u64),
                y,
                "object {i}: no barrier moves it"
            );
            assert_eq!(
                m.read(t, 1).unwrap() as u64 >> 32,
                value as u32 as u64,
                "object {i}: Rust read"
            );
            assert_eq!(lf(block, y, 0), value as u64, "object {i}: sign-extended load");
            assert_eq!(m.read(t, 0).unwrap(), 1000 + i);
            accesses += 1;
        }
        m.safepoint_poll();
    }
    drop(m);
    let stats = heap.stats();
    println!(
        "data accesses on a concurrent shenandoah heap ({format:?} cells): {accesses} during evacuation, {healed} \
         on objects the LRB had copied; {} cycles, {} verified",
        stats.cycles, stats.verified_cycles
    );
    assert_eq!(stats.verify_errors, Vec::<String>::new());
    assert!(
        healed >= EVENTS,
        "only {healed} loads met a copied object in {HARD_CAP:?}"
    );
    (accesses, healed)
}
