//! Humongous objects (larger than a region) through the public API: they
//! are allocated, kept, dropped and their regions reused; they refer to
//! small objects and back through concurrent cycles under every preset;
//! a fragmented heap is compacted before a humongous allocation fails, and
//! `OutOfMemory` is the answer only when no run can be made. The verifier
//! runs after every cycle. Each test is bounded in time.

// The heap is not built under `--cfg loom` (only the forwarding protocol is).
#![cfg(not(loom))]

use std::sync::mpsc;
use std::time::{Duration, Instant};

use fastpath::gc::{
    BarrierBits, Dynamic, GcError, GcMode, GcStats, Handle, Heap, HeapConfig, Mutator, Preset,
};

/// The longest a test may run before it fails as hung: generous, since
/// the stress tests run until they have seen a collection, however slow
/// the machine (a loaded CI machine, qemu, AddressSanitizer).
const CAP: Duration = Duration::from_secs(300);

/// Runs `f` on its own thread; fails the test if it has not returned
/// within `limit` (a hang), and returns what it returned.
fn within<T: Send + 'static>(limit: Duration, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(v) => v,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what}: still running after {limit:?} (hung)"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{what}: panicked"),
    }
}

/// How long the stress tests run (`FASTPATH_STRESS_MS`, default 400 ms
/// per configuration).
fn stress_time() -> Duration {
    let ms = std::env::var("FASTPATH_STRESS_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    Duration::from_millis(ms)
}

fn assert_verified(stats: &GcStats) {
    assert!(stats.verify_errors.is_empty(), "{:?}", stats.verify_errors);
}

/// A data word's expected value: a function of the object's tag and the
/// word's index, so any lost or misplaced word shows.
fn pattern(tag: usize, j: usize) -> usize {
    tag.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ j
}

/// Fills `h`'s data with `pattern(tag, _)` (first, last and a stride).
fn fill(m: &Mutator<Dynamic>, h: Handle, tag: usize) {
    let o = m.get(h).unwrap();
    let (_, ndata) = m.shape(o).unwrap();
    for j in (0..ndata).step_by(97).chain([ndata - 1]) {
        m.write(o, j, pattern(tag, j)).unwrap();
    }
}

fn check(m: &Mutator<Dynamic>, o: fastpath::gc::Obj<'_>, tag: usize) {
    let (_, ndata) = m.shape(o).unwrap();
    for j in (0..ndata).step_by(97).chain([ndata - 1]) {
        assert_eq!(
            m.read(o, j).unwrap(),
            pattern(tag, j),
            "data word {j} of object {tag}"
        );
    }
}

/// Allocate a humongous object, keep it across collections, drop it: its
/// regions come back whole and are reused, hundreds of times, with no
/// `OutOfMemory` in a heap that could hold few such objects at once.
#[test]
fn humongous_allocate_keep_drop_reuse() {
    for mode in [GcMode::Passive, GcMode::Concurrent] {
        let stats = within(CAP, "humongous reuse", move || {
            let mut c = HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, mode);
            c.verify = true;
            let heap = Heap::new(c).unwrap();
            let region = heap.config().region_bytes;
            let mut m = heap.mutator::<Dynamic>().unwrap();
            let free0 = heap.free_bytes();
            // Three and a half regions of data.
            let ndata = (7 * region / 2) / 8;
            let h = m.alloc(0, ndata).unwrap();
            fill(&m, h, 1);
            assert_eq!(heap.stats().humongous_allocated, 1);
            assert!(
                heap.free_bytes() <= free0 - 4 * region,
                "the run takes four regions"
            );
            m.collect().unwrap();
            m.collect().unwrap();
            check(&m, m.get(h).unwrap(), 1);
            m.truncate_roots(0);
            m.collect().unwrap();
            m.collect().unwrap();
            assert!(
                heap.stats().humongous_reclaimed >= 1,
                "the dead object's run is freed"
            );
            // Reuse: far more humongous allocation than the heap holds.
            for i in 0..300 {
                let d = m.roots_len();
                let h = m
                    .alloc(2, ndata)
                    .unwrap_or_else(|e| panic!("humongous allocation {i}: {e}"));
                fill(&m, h, i);
                check(&m, m.get(h).unwrap(), i);
                m.truncate_roots(d);
            }
            heap.stats()
        });
        println!(
            "{mode}: {} humongous allocated, {} reclaimed, {} cycles, {} objects verified",
            stats.humongous_allocated, stats.humongous_reclaimed, stats.cycles, stats.verified_objects
        );
        assert_verified(&stats);
        assert_eq!(stats.humongous_allocated, 301);
        assert!(stats.humongous_reclaimed >= 250, "{}", stats.humongous_reclaimed);
    }
}

/// `ObjectTooLarge` means larger than the heap allows: the largest object
/// is allocated in a fresh heap, one word more is refused.
#[test]
fn the_largest_object_is_the_heap_outside_the_reserve() {
    let heap = Heap::new(HeapConfig::new(4 << 20, BarrierBits::G1, GcMode::Passive)).unwrap();
    let max = heap.max_object_words();
    let region_words = heap.config().region_bytes / 8;
    assert!(max > region_words * 32, "far larger than a region: {max} words");
    assert!(max < (4 << 20) / 8, "but not the whole heap: the reserve stays");
    let mut m = heap.mutator::<Dynamic>().unwrap();
    assert_eq!(
        m.alloc(0, max - 2).unwrap_err(),
        GcError::ObjectTooLarge {
            words: max + 1,
            max_words: max
        }
    );
    let h = m.alloc(1, max - 4).unwrap();
    fill(&m, h, 7);
    m.collect().unwrap();
    check(&m, m.get(h).unwrap(), 7);
    // Dead, its run is reclaimed for the next one.
    m.truncate_roots(0);
    let h = m.alloc(0, max - 3).unwrap();
    fill(&m, h, 8);
    check(&m, m.get(h).unwrap(), 8);
}

/// One mutator's graph: a humongous "table" whose reference fields point
/// to small nodes, each pointing back to the table and holding its slot
/// and a version; nodes are replaced at random, garbage is allocated (some
/// of it humongous), and the whole graph is checked against the model.
fn graph_loop(heap: &Heap, seed: u64, deadline: Instant) -> u64 {
    let mut m = heap.mutator::<Dynamic>().unwrap();
    let region = heap.config().region_bytes;
    let slots = region / 8 + 100; // more reference fields than a region holds
    let table = m.alloc(slots, 1).unwrap();
    m.write(m.get(table).unwrap(), 0, seed as usize).unwrap();
    let mut version = vec![0usize; slots];
    let mut rng = seed | 1;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng as usize
    };
    let mut checked = 0u64;
    let mut round = 0usize;
    // Past the deadline until a collection has run and the graph was
    // checked once after it: a slow build (ASan) or a loaded machine may not
    // fill the heap in the time bound. The caller's `within` bounds the run.
    while Instant::now() < deadline || heap.stats().cycles == 0 || round % 8 != 0 {
        round += 1;
        for _ in 0..64 {
            let d = m.roots_len();
            let i = next() % slots;
            version[i] += 1;
            // A node: refs [table], data [slot, version, seed].
            let node = m.alloc(1, 3).unwrap();
            let (no, to) = (m.get(node).unwrap(), m.get(table).unwrap());
            m.store(no, 0, Some(to)).unwrap();
            m.write(no, 0, i).unwrap();
            m.write(no, 1, version[i]).unwrap();
            m.write(no, 2, seed as usize).unwrap();
            m.store(to, i, Some(no)).unwrap();
            m.truncate_roots(d);
            // Garbage, small and now and then humongous.
            let d = m.roots_len();
            if next() % 256 == 0 {
                let g = m.alloc(1, region / 8).unwrap();
                let (go, to) = (m.get(g).unwrap(), m.get(table).unwrap());
                m.store(go, 0, Some(to)).unwrap();
            } else {
                m.alloc(2, 8).unwrap();
            }
            m.truncate_roots(d);
        }
        if round % 8 == 0 {
            let t = m.get(table).unwrap();
            assert_eq!(m.read(t, 0).unwrap(), seed as usize, "the table's own data");
            for (i, &v) in version.iter().enumerate() {
                match m.load(t, i).unwrap() {
                    None => assert_eq!(v, 0, "slot {i} lost its node"),
                    Some(n) => {
                        assert_eq!(m.read(n, 0).unwrap(), i, "slot {i}: the node's slot");
                        assert_eq!(m.read(n, 1).unwrap(), v, "slot {i}: the node's version");
                        assert_eq!(m.read(n, 2).unwrap(), seed as usize);
                        let back = m.load(n, 0).unwrap();
                        assert!(m.same(back, Some(t)), "slot {i}: the back reference");
                        checked += 1;
                    }
                }
            }
        }
    }
    checked
}

/// Humongous objects referring to small ones and back, two mutators,
/// through cycles: every preset passive, the complete ones concurrent
/// (aggressive, so cycles run back to back), the verifier after each.
#[test]
fn humongous_and_small_objects_through_cycles() {
    let mut runs = Vec::new();
    for p in Preset::all() {
        runs.push((p, GcMode::Passive));
        if p.bits().missing_for_concurrent().is_empty() {
            runs.push((p, GcMode::Concurrent));
        }
    }
    for (preset, mode) in runs {
        let stats = within(CAP, "humongous graph", move || {
            let mut c = HeapConfig::new(8 << 20, preset.bits(), mode);
            c.verify = true;
            c.aggressive = true;
            let heap = Heap::new(c).unwrap();
            let deadline = Instant::now() + stress_time();
            let checked: u64 = std::thread::scope(|s| {
                let heap = &heap;
                let threads: Vec<_> = (1..=2u64)
                    .map(|seed| s.spawn(move || graph_loop(heap, seed * 0x1234_5677, deadline)))
                    .collect();
                threads.into_iter().map(|t| t.join().unwrap()).sum()
            });
            (heap.stats(), checked)
        });
        let (stats, checked) = stats;
        println!(
            "{preset:?} {mode}: {checked} nodes checked, {} cycles, {} humongous ({} reclaimed), {} objects verified",
            stats.cycles, stats.humongous_allocated, stats.humongous_reclaimed, stats.verified_objects
        );
        assert_verified(&stats);
        assert!(
            checked > 0 && stats.cycles > 0,
            "{preset:?} {mode}: work was done"
        );
        assert!(stats.humongous_allocated >= 2, "the tables at least");
    }
}

/// A heap fragmented by survivors that cannot be copied
/// (`evac_lab_limit = Some(0)`: every region keeps a small survivor) has
/// free space but no run: the humongous allocation is met by a full
/// compaction (passive: in the collecting pause; concurrent: the
/// degenerated cycle's), which slides the survivors together, then fits.
#[test]
fn fragmentation_is_compacted_before_a_humongous_allocation_fails() {
    for mode in [GcMode::Passive, GcMode::Concurrent] {
        let stats = within(CAP, "fragmented heap", move || {
            let mut c = HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, mode);
            c.verify = true;
            c.evac_lab_limit = Some(0);
            let heap = Heap::new(c).unwrap();
            let region = heap.config().region_bytes;
            let mut m = heap.mutator::<Dynamic>().unwrap();
            // Objects of ~4 KiB over most of the heap; keep one in eight.
            let mut kept = Vec::new();
            let n = (heap.free_bytes() - 12 * region) / 4096;
            for i in 0..n {
                let d = m.roots_len();
                let h = m.alloc(0, 500).unwrap();
                m.write(m.get(h).unwrap(), 0, i).unwrap();
                if i % 8 == 0 {
                    kept.push((i, m.make_global(m.get(h).unwrap()).unwrap()));
                }
                m.truncate_roots(d);
            }
            // Half the heap's worth of data in one object.
            let words = heap.free_bytes().max(8 * region) / 8;
            let h = m
                .alloc(0, words.min(heap.max_object_words() / 2))
                .unwrap_or_else(|e| panic!("{e}; stats {:?}", heap.stats()));
            fill(&m, h, 3);
            check(&m, m.get(h).unwrap(), 3);
            for &(i, g) in &kept {
                assert_eq!(m.read(m.global(g).unwrap(), 0).unwrap(), i, "survivor {i}");
            }
            heap.stats()
        });
        println!(
            "{mode}: {} full compactions, {} degenerated cycles, {} verified runs",
            stats.full_compactions, stats.degenerated_cycles, stats.verified_cycles
        );
        assert_verified(&stats);
        assert!(
            stats.full_compactions >= 1,
            "{mode}: the run came from a compaction"
        );
        assert_eq!(stats.humongous_allocated, 1);
    }
}

/// Free space in runs too short, between humongous objects that never
/// move: a full compaction cannot make a run, and `OutOfMemory` is the
/// honest answer, given only after that compaction was tried.
#[test]
fn no_run_between_humongous_objects_is_out_of_memory() {
    for mode in [GcMode::Passive, GcMode::Concurrent] {
        let (err, stats, free, region) = within(CAP, "no run", move || {
            let mut c = HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, mode);
            c.verify = true;
            let heap = Heap::new(c).unwrap();
            let region = heap.config().region_bytes;
            let mut m = heap.mutator::<Dynamic>().unwrap();
            // Two-region objects until the heap holds no more.
            let mut objs = Vec::new();
            loop {
                match m.alloc(0, region / 8 + 16) {
                    Ok(h) => objs.push(h),
                    Err(GcError::OutOfMemory) => break,
                    Err(e) => panic!("{e}"),
                }
            }
            assert!(objs.len() >= 20, "{} objects", objs.len());
            // Every other one dies: free two-region gaps between live ones
            // (and the reserve's few regions at the bottom).
            let keep: Vec<_> = objs
                .iter()
                .step_by(2)
                .map(|&h| m.make_global(m.get(h).unwrap()).unwrap())
                .collect();
            m.truncate_roots(0);
            m.collect().unwrap();
            m.collect().unwrap();
            let before = heap.stats().full_compactions;
            // Seven regions: longer than any gap (the longest, at the
            // bottom, is the reserve's four and one dead object's two).
            let err = m.alloc(0, 6 * region / 8 + 16).unwrap_err();
            let stats = heap.stats();
            assert!(stats.full_compactions > before, "a compaction was tried first");
            // The survivors are intact.
            for g in keep {
                m.global(g).unwrap();
            }
            (err, stats, heap.free_bytes(), region)
        });
        println!(
            "{mode}: {err} with {free} bytes free in two-region gaps; {} full compactions",
            stats.full_compactions
        );
        assert_eq!(err, GcError::OutOfMemory);
        assert!(
            free >= 10 * 2 * region,
            "{mode}: the space was there, in short runs"
        );
        assert_verified(&stats);
    }
}
