//! Mutator assists (`HeapConfig::assists`) under stress: mutators that
//! allocate faster than the collector works do slices of its marking,
//! evacuation and update-refs themselves. Two mutators rebuild lists
//! hanging off an array (each node carrying a checksum of its slot, index
//! and generation) and make garbage between the rebuilds, on a small heap
//! so the pacer's budget runs out; the verifier runs after every cycle and
//! every list is checked against the mutator's model. Configurations: one
//! and two collector workers, both concurrent presets, and evacuation
//! failure (a copy budget that runs out while assists copy too). Bounded by
//! progress: each runs `FASTPATH_STRESS_MS` (default 400 ms) and past that
//! until a verified cycle has run and an assist slice has done work (300 s
//! at most, then it fails); prints the objects checked.

// The heap is not built under `--cfg loom` (only the protocols are).
#![cfg(not(loom))]

use std::time::{Duration, Instant};

use fastpath::gc::{BarrierBits, Dynamic, GcMode, GcStats, Handle, Heap, HeapConfig, Mutator};

fn stress_time() -> Duration {
    let ms = std::env::var("FASTPATH_STRESS_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    Duration::from_millis(ms)
}

const SLOTS: usize = 128;
const LIST: usize = 32;

/// The longest a configuration may run without the progress it needs.
const NO_PROGRESS_LIMIT: Duration = Duration::from_secs(300);

/// A node's checksum word: a mix of its slot, index and generation.
fn checksum(s: usize, i: usize, generation: usize) -> usize {
    let x = (s as u64) << 40 ^ (i as u64) << 20 ^ generation as u64;
    (x.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 7) as usize
}

/// Builds slot `s`'s list of `LIST + 1` nodes (refs [next], data [slot,
/// index, generation, checksum]) and stores it in the array.
fn build(m: &mut Mutator<Dynamic>, array: Handle, s: usize, generation: usize) {
    let d = m.roots_len();
    let mut head: Option<Handle> = None;
    for i in (0..=LIST).rev() {
        let node = m.alloc(1, 4).unwrap();
        let n = m.get(node).unwrap();
        for (j, v) in [s, i, generation, checksum(s, i, generation)]
            .into_iter()
            .enumerate()
        {
            m.write(n, j, v).unwrap();
        }
        if let Some(h) = head {
            let (n, h) = (m.get(node).unwrap(), m.get(h).unwrap());
            m.store(n, 0, Some(h)).unwrap();
        }
        head = Some(node);
    }
    let h = m.get(head.unwrap()).unwrap();
    m.store(m.get(array).unwrap(), s, Some(h)).unwrap();
    m.truncate_roots(d);
}

/// Walks slot `s`'s list against the model; returns the nodes checked.
fn check(m: &Mutator<Dynamic>, array: Handle, s: usize, generation: usize) -> u64 {
    let mut cur = m.load(m.get(array).unwrap(), s).unwrap();
    let mut i = 0;
    let mut sum = 0usize;
    while let Some(n) = cur {
        assert_eq!(m.read(n, 0).unwrap(), s, "slot {s}: node {i}'s slot");
        assert_eq!(m.read(n, 1).unwrap(), i, "slot {s}: node {i}'s index");
        assert_eq!(
            m.read(n, 2).unwrap(),
            generation,
            "slot {s}: node {i}'s generation"
        );
        sum = sum.wrapping_add(m.read(n, 3).unwrap());
        cur = m.load(n, 0).unwrap();
        i += 1;
    }
    assert_eq!(i, LIST + 1, "slot {s}: nodes missing");
    let want = (0..=LIST).fold(0usize, |a, k| a.wrapping_add(checksum(s, k, generation)));
    assert_eq!(sum, want, "slot {s}: the list's checksum");
    i as u64
}

/// A verified cycle ran and assists did work.
fn progressed(heap: &Heap) -> bool {
    let s = heap.stats();
    s.verified_cycles > 0 && s.assist_slices > 0
}

/// Returns (objects checked, this mutator's assist slices).
fn mutator_loop(heap: &Heap, seed: u64, deadline: Instant) -> (u64, u64) {
    let mut m = heap.mutator::<Dynamic>().unwrap();
    let array = m.alloc(SLOTS, 0).unwrap();
    let mut generation = vec![0usize; SLOTS];
    for s in 0..SLOTS {
        build(&mut m, array, s, 0);
    }
    let mut rng = seed | 1;
    let mut checked = 0u64;
    let started = Instant::now();
    while Instant::now() < deadline || !progressed(heap) {
        assert!(
            started.elapsed() < NO_PROGRESS_LIMIT,
            "no verified cycle with an assist in {NO_PROGRESS_LIMIT:?}: {:?}",
            heap.stats()
        );
        for _ in 0..8 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let s = rng as usize % SLOTS;
            generation[s] += 1;
            build(&mut m, array, s, generation[s]);
            // Garbage, fast: what runs the pacer's budget out.
            let d = m.roots_len();
            for _ in 0..64 {
                m.alloc(2, 14).unwrap();
            }
            m.truncate_roots(d);
        }
        for s in (rng as usize % 16..SLOTS).step_by(16) {
            checked += check(&m, array, s, generation[s]);
        }
    }
    for (s, &g) in generation.iter().enumerate() {
        checked += check(&m, array, s, g);
    }
    (checked, m.waits().assist_slices)
}

fn run(bits: BarrierBits, workers: usize, evac_lab_limit: Option<usize>) -> (GcStats, u64, u64) {
    let mut c = HeapConfig::new(8 << 20, bits, GcMode::Concurrent);
    c.workers = workers;
    c.verify = true;
    c.evac_lab_limit = evac_lab_limit;
    assert!(c.pacing && !c.assists, "pacing on and assists off by default");
    c.assists = true;
    let heap = Heap::new(c).unwrap();
    let deadline = Instant::now() + stress_time();
    let (checked, slices) = std::thread::scope(|s| {
        let heap = &heap;
        let a = s.spawn(move || mutator_loop(heap, 0x9e37_79b9, deadline));
        let b = s.spawn(move || mutator_loop(heap, 0x7f4a_7c15, deadline));
        let (a, b) = (a.join().unwrap(), b.join().unwrap());
        (a.0 + b.0, a.1 + b.1)
    });
    (heap.stats(), checked, slices)
}

fn stress(bits: BarrierBits, evac_lab_limit: Option<usize>) {
    for workers in [1, 2] {
        let (stats, checked, slices) = run(bits, workers, evac_lab_limit);
        println!(
            "{bits} workers={workers} evac_lab_limit={evac_lab_limit:?}: {checked} objects checked, {} cycles ({} degenerated), {} assist slices ({} words, {:?}), {} verified runs ({} objects), {} evacuation failures",
            stats.cycles,
            stats.degenerated_cycles,
            stats.assist_slices,
            stats.assist_words,
            stats.assist_time,
            stats.verified_cycles,
            stats.verified_objects,
            stats.evacuation_failures
        );
        assert!(stats.verify_errors.is_empty(), "{:?}", stats.verify_errors);
        assert!(stats.verified_cycles > 0 && checked > 0, "work was done");
        assert!(
            stats.assist_slices > 0 && stats.assist_words > 0,
            "assists did work"
        );
        assert_eq!(
            slices, stats.assist_slices,
            "every slice is counted in its mutator's waits and the heap's statistics"
        );
        assert!(stats.assist_time > Duration::ZERO);
    }
}

#[test]
fn assists_concurrent_shenandoah() {
    stress(BarrierBits::SHENANDOAH, None);
}

#[test]
fn assists_concurrent_shenandoah_2017() {
    stress(BarrierBits::SHENANDOAH_2017, None);
}

#[test]
fn assists_with_evacuation_failure() {
    stress(BarrierBits::SHENANDOAH, Some(4));
}
