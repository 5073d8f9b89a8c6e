//! Humongous objects (larger than a region) and the full compaction
//! through the public API: they are allocated, kept, dropped and their
//! regions reused; they refer to small objects and back through concurrent
//! cycles under every preset; a heap fragmented by a few survivors anywhere
//! (bottom, middle, top, scattered, in 1 to 4 mutators) or by live
//! humongous objects is compacted into one run before a request fails, so
//! the largest request the live data leaves room for always succeeds, and
//! one region more is `OutOfMemory` naming the request and the run; requests
//! that can never fit fail beside ones that fit without costing them
//! anything. The verifier runs after every cycle. Each test is bounded in
//! time. Under emulation (`FASTPATH_EMULATION_SCALE`, set by
//! `.ci/aarch64`) the costliest tests do a fraction of their work: fewer
//! reuses and requests, a smaller graph heap checked less often, a
//! shorter stress time, a Latin square of the survivor placements' 32
//! combinations; each asserts what it asserts natively.

// The heap is not built under `--cfg loom` (only the forwarding protocol is).
#![cfg(not(loom))]

use std::sync::{mpsc, Barrier, Mutex};
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
/// per configuration), divided by [`emulation_scale`].
fn stress_time() -> Duration {
    let ms = std::env::var("FASTPATH_STRESS_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    Duration::from_millis(ms) / emulation_scale() as u32
}

/// The factor the costliest tests divide their work by:
/// `FASTPATH_EMULATION_SCALE`, 1 to 16, default 1 (native). `.ci/aarch64`
/// sets it under qemu-user, where this code runs about ten times slower
/// than natively; the tests' assertions do not change with it.
fn emulation_scale() -> usize {
    const VAR: &str = "FASTPATH_EMULATION_SCALE";
    match std::env::var(VAR) {
        Err(std::env::VarError::NotPresent) => 1,
        Ok(v) => match v.parse::<usize>() {
            Ok(n) if (1..=16).contains(&n) => n,
            _ => panic!("{VAR}={v:?}: expected a whole number from 1 to 16"),
        },
        Err(e) => panic!("{VAR}: {e}"),
    }
}

/// `n` divided by [`emulation_scale`], at least `floor`.
fn scaled(n: usize, floor: usize) -> usize {
    (n / emulation_scale()).max(floor)
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
/// regions come back whole and are reused, hundreds of times (tens under
/// emulation), with no `OutOfMemory` in a heap that could hold few such
/// objects at once.
#[test]
fn humongous_allocate_keep_drop_reuse() {
    let reuses = scaled(300, 60);
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
            let fit = heap.free_bytes() / (4 * region);
            assert!(reuses > 3 * fit, "{reuses} reuses of a heap that holds {fit}");
            for i in 0..reuses {
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
        assert_eq!(stats.humongous_allocated, 1 + reuses as u64);
        // At most 51 runs not yet reclaimed when the test ends.
        assert!(
            stats.humongous_reclaimed + 51 >= stats.humongous_allocated,
            "{} of {}",
            stats.humongous_reclaimed,
            stats.humongous_allocated
        );
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
    let hw = header_words(&heap);
    assert_eq!(
        m.alloc(0, max - hw + 1).unwrap_err(),
        GcError::ObjectTooLarge {
            words: max + 1,
            max_words: max
        }
    );
    let h = m.alloc(1, max - hw - 1).unwrap();
    fill(&m, h, 7);
    m.collect().unwrap();
    check(&m, m.get(h).unwrap(), 7);
    // Dead, its run is reclaimed for the next one.
    m.truncate_roots(0);
    let h = m.alloc(0, max - hw).unwrap();
    fill(&m, h, 8);
    check(&m, m.get(h).unwrap(), 8);
}

/// One mutator's graph: a humongous "table" whose reference fields point
/// to small nodes, each pointing back to the table and holding its slot
/// and a version; nodes are replaced at random, garbage is allocated (some
/// of it humongous), and the whole graph is checked against the model
/// every `check_every` rounds of 64 replacements.
fn graph_loop(heap: &Heap, seed: u64, deadline: Instant, check_every: usize) -> u64 {
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
    while Instant::now() < deadline || heap.stats().cycles == 0 || round % check_every != 0 {
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
        if round % check_every == 0 {
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
/// Under emulation the heap is halved (a passive heap's first cycle comes
/// after half the allocation) and the graph checked less often, each
/// check still whole.
#[test]
fn humongous_and_small_objects_through_cycles() {
    let scale = emulation_scale();
    let heap_bytes = (8 << 20) / scale.min(2);
    let check_every = 8 * scale.min(4);
    let mut runs = Vec::new();
    for p in Preset::all() {
        runs.push((p, GcMode::Passive));
        if p.bits().missing_for_concurrent().is_empty() {
            runs.push((p, GcMode::Concurrent));
        }
    }
    for (preset, mode) in runs {
        let stats = within(CAP, "humongous graph", move || {
            let mut c = HeapConfig::new(heap_bytes, preset.bits(), mode);
            c.verify = true;
            c.aggressive = true;
            let heap = Heap::new(c).unwrap();
            let deadline = Instant::now() + stress_time();
            let checked: u64 = std::thread::scope(|s| {
                let heap = &heap;
                let threads: Vec<_> = (1..=2u64)
                    .map(|seed| s.spawn(move || graph_loop(heap, seed * 0x1234_5677, deadline, check_every)))
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

/// The heap's shape in regions: (regions, the mutators' reserve, words
/// per region).
fn shape(heap: &Heap) -> (usize, usize, usize) {
    let region_words = heap.config().region_bytes / 8;
    let regions = heap.config().heap_bytes / heap.config().region_bytes;
    (
        regions,
        regions - heap.max_object_words() / region_words,
        region_words,
    )
}

/// Data words of an object whose cell spans exactly `regions` regions (a
/// cell is its fields and three header words).
fn ndata_for(heap: &Heap, regions: usize) -> usize {
    regions * shape(heap).2 - header_words(heap)
}

/// Words of a cell before its fields, in `heap`'s format.
fn header_words(heap: &Heap) -> usize {
    heap.cell_format().header_words()
}

/// A request that cannot fit is `OutOfMemory` naming it and the longest
/// run left; anything else is a failure of the test.
fn assert_no_room(err: GcError, requested_regions: usize, run_regions: usize, region_words: usize) {
    assert_eq!(
        err,
        GcError::OutOfMemory {
            requested_words: requested_regions * region_words,
            largest_run_words: run_regions * region_words,
        }
    );
}

/// The case, in every barrier set and mode (the five presets
/// passive, the two complete sets concurrent): eight small survivors, a
/// dead humongous object of 40 regions, then requests of 56 regions and of
/// the largest the survivors leave room for: both fit once the compaction
/// has slid the survivors to the bottom; one region more is `OutOfMemory`
/// naming the request and the run.
#[test]
fn a_dead_humongous_object_and_a_few_survivors_leave_one_run() {
    let mut runs = Vec::new();
    for p in Preset::all() {
        runs.push((p, GcMode::Passive));
        if p.bits().missing_for_concurrent().is_empty() {
            runs.push((p, GcMode::Concurrent));
        }
    }
    assert_eq!(runs.len(), 7);
    for (preset, mode) in runs {
        let stats = within(CAP, "one run", move || {
            let mut c = HeapConfig::new(4 << 20, preset.bits(), mode);
            c.verify = true;
            let heap = Heap::new(c).unwrap();
            let (regions, reserve, region_words) = shape(&heap);
            let mut m = heap.mutator::<Dynamic>().unwrap();
            let survivors: Vec<Handle> = (0..8)
                .map(|i| {
                    let h = m.alloc(1, 6).unwrap();
                    fill(&m, h, i);
                    h
                })
                .collect();
            let d = m.roots_len();
            let big = m.alloc(0, ndata_for(&heap, 40)).unwrap();
            fill(&m, big, 40);
            m.truncate_roots(d);
            // A collection copies the survivors somewhere in the heap: the
            // free space is split around them.
            m.collect().unwrap();
            let largest = regions - reserve - 1;
            for want in [56, largest] {
                let h = m
                    .alloc(0, ndata_for(&heap, want))
                    .unwrap_or_else(|e| panic!("{preset:?} {mode}: {want} regions: {e}; {:?}", heap.stats()));
                fill(&m, h, want);
                check(&m, m.get(h).unwrap(), want);
                m.truncate_roots(d);
            }
            let err = m.alloc(0, ndata_for(&heap, largest + 1)).unwrap_err();
            assert_no_room(err, largest + 1, largest, region_words);
            for (i, &h) in survivors.iter().enumerate() {
                check(&m, m.get(h).unwrap(), i);
            }
            heap.stats()
        });
        println!(
            "{preset:?} {mode}: {} full compactions, {} degenerated cycles, {} verified runs",
            stats.full_compactions, stats.degenerated_cycles, stats.verified_cycles
        );
        assert_verified(&stats);
        assert!(
            stats.full_compactions >= 1,
            "{preset:?} {mode}: the run came from a compaction"
        );
    }
}

/// Where a test leaves its few survivors before asking for the largest
/// request: after this share of the free space has been allocated (and
/// dropped) in small objects, or spread over the whole heap.
#[derive(Clone, Copy, Debug)]
enum Place {
    Bottom,
    Middle,
    Top,
    Scattered,
}

/// A few survivors anywhere in the heap, in 1 to 4 mutators, in each mode:
/// every mutator in turn gets the largest request the survivors leave room
/// for (one region holds them all after a compaction), and one region more
/// is `OutOfMemory` naming the request and that run. The mutators not
/// asking wait in a safe region; every survivor is checked at the end.
///
/// Natively every combination runs; under emulation one in
/// `emulation_scale()` (at most 4) of them, chosen so that each mode still
/// has every place and every mutator count (a Latin square at 4).
#[test]
fn the_largest_request_fits_wherever_a_few_survivors_lie() {
    let mut runs = 0;
    let one_in = emulation_scale().min(4);
    for (mode_index, mode) in [GcMode::Passive, GcMode::Concurrent].into_iter().enumerate() {
        for mutators in 1..=4usize {
            let places = [Place::Bottom, Place::Middle, Place::Top, Place::Scattered];
            for (place_index, place) in places.into_iter().enumerate() {
                if (mutators - 1 + place_index + 2 * mode_index) % one_in != 0 {
                    continue;
                }
                let stats = within(CAP, "largest request", move || {
                    largest_request_run(mode, mutators, place)
                });
                assert_verified(&stats);
                runs += 1;
            }
        }
    }
    println!("{runs} configurations: each mutator got the largest run, then OutOfMemory for one region more");
}

fn largest_request_run(mode: GcMode, mutators: usize, place: Place) -> GcStats {
    let mut c = HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, mode);
    c.verify = true;
    let heap = Heap::new(c).unwrap();
    let (regions, reserve, region_words) = shape(&heap);
    let largest = regions - reserve - 1;
    // Turns: mutator `t` places its survivors in turn `t`, then asks for
    // the largest run in turn `mutators + t`; the others wait in a safe
    // region (a collection needs every mutator stopped).
    let turn = Mutex::new(0usize);
    let start = Barrier::new(mutators);
    let garbage_bytes = heap.free_bytes() - (reserve + 4) * heap.config().region_bytes;
    std::thread::scope(|s| {
        for t in 0..mutators {
            let (heap, turn, start) = (&heap, &turn, &start);
            s.spawn(move || {
                let mut m = heap.mutator::<Dynamic>().unwrap();
                start.wait();
                let wait_turn = |m: &mut Mutator<Dynamic>, mine: usize| loop {
                    if *turn.lock().unwrap() == mine {
                        return;
                    }
                    m.safe_region(|| std::thread::sleep(Duration::from_micros(200)));
                };
                wait_turn(&mut m, t);
                // Garbage of ~4 KiB objects, then the survivors: two per
                // mutator, the first placed by `place`.
                let share = garbage_bytes / mutators;
                let before = match place {
                    Place::Bottom => 0,
                    Place::Middle => share / 2,
                    Place::Top | Place::Scattered => share,
                };
                let mut survivors = Vec::new();
                let mut done = 0;
                for k in 0..2 {
                    let until = if matches!(place, Place::Scattered) {
                        share * (k + 1) / 2
                    } else {
                        before
                    };
                    while done < until {
                        let d = m.roots_len();
                        m.alloc(0, 500).unwrap();
                        m.truncate_roots(d);
                        done += 4024;
                    }
                    let h = m.alloc(1, 12).unwrap();
                    fill(&m, h, t * 2 + k);
                    survivors.push(h);
                }
                *turn.lock().unwrap() += 1;
                wait_turn(&mut m, mutators + t);
                let d = m.roots_len();
                let h = m.alloc(0, ndata_for(heap, largest)).unwrap_or_else(|e| {
                    panic!("{mode} {mutators} mutators {place:?}: mutator {t}, {largest} regions: {e}")
                });
                fill(&m, h, 1000 + t);
                check(&m, m.get(h).unwrap(), 1000 + t);
                m.truncate_roots(d);
                let err = m.alloc(0, ndata_for(heap, largest + 1)).unwrap_err();
                assert_no_room(err, largest + 1, largest, region_words);
                for (k, &h) in survivors.iter().enumerate() {
                    check(&m, m.get(h).unwrap(), t * 2 + k);
                }
                *turn.lock().unwrap() += 1;
                // Stay registered (stopping in a safe region) until every
                // mutator has had its turn.
                wait_turn(&mut m, 2 * mutators);
            });
        }
    });
    heap.stats()
}

/// Requests that can never fit (the largest object the heap allows, with
/// survivors in it) from two mutators, beside two whose requests always
/// fit (even all at once), concurrent mode: the first two get
/// `OutOfMemory` naming the request, every time, and the other two never
/// do. The heap's "full" judgement is each request's own, not the largest
/// waiting one's.
#[test]
fn requests_that_never_fit_fail_beside_ones_that_fit() {
    let (stats, refused, served) = within(CAP, "never fit", move || {
        let mut c = HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, GcMode::Concurrent);
        c.verify = true;
        let heap = Heap::new(c).unwrap();
        let (_, _, region_words) = shape(&heap);
        let never = heap.max_object_words();
        let rounds = 12;
        let (refused, served) = std::thread::scope(|s| {
            let heap = &heap;
            let threads: Vec<_> = (0..4usize)
                .map(|t| {
                    s.spawn(move || {
                        let mut m = heap.mutator::<Dynamic>().unwrap();
                        let keep = m.alloc(1, 12).unwrap();
                        fill(&m, keep, t);
                        let (mut refused, mut served) = (0, 0);
                        for round in 0..rounds {
                            let d = m.roots_len();
                            if t < 2 {
                                match m.alloc(0, never - header_words(heap)) {
                                    Err(GcError::OutOfMemory {
                                        requested_words,
                                        largest_run_words,
                                    }) => {
                                        assert_eq!(requested_words, never);
                                        assert!(largest_run_words < never);
                                        assert_eq!(largest_run_words % region_words, 0);
                                        refused += 1;
                                    }
                                    other => panic!("mutator {t}: {other:?} for a request that cannot fit"),
                                }
                            } else {
                                // 24 regions each: both at once, the
                                // survivors and the reserve fit in 64.
                                let h =
                                    m.alloc(0, 24 * region_words - header_words(heap))
                                        .unwrap_or_else(|e| {
                                            panic!("mutator {t}, round {round}: {e}; {:?}", heap.stats())
                                        });
                                fill(&m, h, round);
                                for _ in 0..64 {
                                    let d = m.roots_len();
                                    m.alloc(2, 8).unwrap();
                                    m.truncate_roots(d);
                                }
                                check(&m, m.get(h).unwrap(), round);
                                served += 1;
                            }
                            m.truncate_roots(d);
                        }
                        check(&m, m.get(keep).unwrap(), t);
                        (refused, served)
                    })
                })
                .collect();
            threads
                .into_iter()
                .map(|t| t.join().unwrap())
                .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
        });
        (heap.stats(), refused, served)
    });
    println!(
        "{refused} requests refused, {served} served; {} degenerated cycles, {} full compactions",
        stats.degenerated_cycles, stats.full_compactions
    );
    assert_verified(&stats);
    assert_eq!((refused, served), (24, 24));
}

/// Live humongous objects slide too: objects of two regions, every other
/// one dead, leave two-region gaps between live ones; a request longer
/// than any gap fits after the compaction slides the live ones together,
/// and the survivors are intact.
#[test]
fn live_humongous_objects_are_slid_together() {
    for mode in [GcMode::Passive, GcMode::Concurrent] {
        let (stats, objects) = within(CAP, "humongous slide", move || {
            let mut c = HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, mode);
            c.verify = true;
            let heap = Heap::new(c).unwrap();
            let (regions, reserve, _) = shape(&heap);
            let mut m = heap.mutator::<Dynamic>().unwrap();
            // Two-region objects over the heap outside the reserve.
            let mut objs = Vec::new();
            for i in 0..(regions - reserve) / 2 {
                let h = m.alloc(0, ndata_for(&heap, 2)).unwrap();
                fill(&m, h, i);
                objs.push(h);
            }
            let keep: Vec<_> = objs
                .iter()
                .enumerate()
                .step_by(2)
                .map(|(i, &h)| (i, m.make_global(m.get(h).unwrap()).unwrap()))
                .collect();
            m.truncate_roots(0);
            // Every region the live ones leave, in one run.
            let want = regions - reserve - 2 * keep.len();
            let h = m
                .alloc(0, ndata_for(&heap, want))
                .unwrap_or_else(|e| panic!("{mode}: {want} regions: {e}; {:?}", heap.stats()));
            fill(&m, h, 99);
            check(&m, m.get(h).unwrap(), 99);
            for &(i, g) in &keep {
                check(&m, m.global(g).unwrap(), i);
            }
            (heap.stats(), keep.len())
        });
        println!(
            "{mode}: {objects} live two-region objects slid together; {} full compactions",
            stats.full_compactions
        );
        assert_verified(&stats);
        assert!(stats.full_compactions >= 1);
    }
}

/// Garbage of random sizes up to what the mutators leave each other (the
/// whole heap outside the reserve, shared among 1, 2 or 4 mutators), in
/// each mode: no request is ever refused (20 requests per mutator, fewer
/// under emulation).
#[test]
fn random_garbage_up_to_the_largest_is_never_refused() {
    let requests = scaled(20, 5);
    for mode in [GcMode::Passive, GcMode::Concurrent] {
        for mutators in [1usize, 2, 4] {
            let (stats, served) = within(CAP, "random garbage", move || {
                let mut c = HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, mode);
                c.verify = true;
                let heap = Heap::new(c).unwrap();
                let (regions, reserve, region_words) = shape(&heap);
                // Each mutator's object at most its share, less a region
                // for the small objects and the tails.
                let most = (regions - reserve) / mutators - 1;
                let served: usize = std::thread::scope(|s| {
                    let heap = &heap;
                    let threads: Vec<_> = (0..mutators)
                        .map(|t| {
                            s.spawn(move || {
                                let mut m = heap.mutator::<Dynamic>().unwrap();
                                let mut rng = (t as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
                                let mut served = 0;
                                for i in 0..requests {
                                    rng ^= rng << 13;
                                    rng ^= rng >> 7;
                                    rng ^= rng << 17;
                                    let words = 1 + (rng as usize) % (most * region_words - 3);
                                    let d = m.roots_len();
                                    let h = m.alloc(0, words).unwrap_or_else(|e| {
                                        panic!("{mode}, {mutators} mutators: mutator {t}, request {i} of {words} words: {e}")
                                    });
                                    fill(&m, h, i);
                                    check(&m, m.get(h).unwrap(), i);
                                    m.truncate_roots(d);
                                    served += 1;
                                }
                                served
                            })
                        })
                        .collect();
                    threads.into_iter().map(|t| t.join().unwrap()).sum()
                });
                (heap.stats(), served)
            });
            println!(
                "{mode}, {mutators} mutators: {served} requests served; {} full compactions",
                stats.full_compactions
            );
            assert_verified(&stats);
            assert_eq!(served, requests * mutators);
        }
    }
}

/// A locked object may not move: its region stays, and the compaction
/// slides everything else (small survivors and a live humongous object)
/// to the bottom around it. The free space is then two runs, below and
/// above the locked object's region: the longer is the largest request
/// that fits, one region more is `OutOfMemory` naming that run, and the
/// locked object kept its address.
#[test]
fn a_locked_object_stays_and_the_rest_slides_around_it() {
    let (stats, fixed) = within(CAP, "locked object", move || {
        let mut c = HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, GcMode::Passive);
        c.verify = true;
        let heap = Heap::new(c).unwrap();
        let (regions, reserve, region_words) = shape(&heap);
        let region_bytes = heap.config().region_bytes;
        let mut m = heap.mutator::<Dynamic>().unwrap();
        // A fresh heap carves its first TLAB at the bottom of region 0.
        let first = m.alloc(1, 12).unwrap();
        let base = m.get(first).unwrap().addr() - heap.cell_format().cell_to_object();
        assert_eq!(base % region_bytes, 0, "the first object opens the heap");
        fill(&m, first, 1);
        let big = m.alloc(0, ndata_for(&heap, 3)).unwrap();
        fill(&m, big, 3);
        // Garbage up to region 30, where the locked object goes.
        let region_of = |addr: usize| (addr - base) / region_bytes;
        loop {
            let g = m.alloc(0, 500).unwrap();
            if region_of(m.get(g).unwrap().addr()) >= 30 {
                break;
            }
        }
        m.truncate_roots(2);
        let x = m.alloc(1, 12).unwrap();
        fill(&m, x, 2);
        let at = m.get(x).unwrap().addr();
        let fixed = region_of(at);
        let lock = m.lock(x).unwrap();
        // Movable live data after the compaction: the small survivor's
        // region and the humongous run, regions 0..=3; the locked
        // object's region stays.
        let (below, above) = (fixed - 4, regions - 1 - fixed);
        let free = regions - 4 - 1;
        let largest = below.max(above).min(free - reserve);
        let d = m.roots_len();
        let h = m
            .alloc(0, ndata_for(&heap, largest))
            .unwrap_or_else(|e| panic!("{largest} regions beside region {fixed}: {e}; {:?}", heap.stats()));
        fill(&m, h, 4);
        check(&m, m.get(h).unwrap(), 4);
        m.truncate_roots(d);
        let err = m.alloc(0, ndata_for(&heap, largest + 1)).unwrap_err();
        assert_no_room(err, largest + 1, largest, region_words);
        assert_eq!(m.get(x).unwrap().addr(), at, "the locked object did not move");
        drop(lock);
        check(&m, m.get(first).unwrap(), 1);
        check(&m, m.get(big).unwrap(), 3);
        check(&m, m.get(x).unwrap(), 2);
        (heap.stats(), fixed)
    });
    println!(
        "region {fixed} locked: {} full compactions, the rest slid around it",
        stats.full_compactions
    );
    assert_verified(&stats);
    assert!(stats.full_compactions >= 1);
}
