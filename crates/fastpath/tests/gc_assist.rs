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

mod common;

use std::time::{Duration, Instant};

use common::{stress_time, ListModel, Lists, NO_PROGRESS_LIMIT};
use fastpath::gc::{BarrierBits, Dynamic, GcMode, GcStats, Heap, HeapConfig};

const SLOTS: usize = 128;
const LISTS: Lists = Lists {
    slots: SLOTS,
    len: 32,
};

/// A verified cycle ran and assists did work.
fn progressed(heap: &Heap) -> bool {
    let s = heap.stats();
    s.verified_cycles > 0 && s.assist_slices > 0
}

/// Returns (objects checked, this mutator's assist slices).
fn mutator_loop(heap: &Heap, seed: u64, deadline: Instant) -> (u64, u64) {
    let mut m = heap.mutator::<Dynamic>().unwrap();
    let mut model = ListModel::new(LISTS, &mut m, seed);
    let started = Instant::now();
    while Instant::now() < deadline || !progressed(heap) {
        assert!(
            started.elapsed() < NO_PROGRESS_LIMIT,
            "no verified cycle with an assist in {NO_PROGRESS_LIMIT:?}: {:?}",
            heap.stats()
        );
        for _ in 0..8 {
            // Garbage, fast: what runs the pacer's budget out.
            model.churn(&mut m, 64, 2, 14);
        }
        model.check_some(&m, 16);
    }
    let checked = model.check_all(&m);
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
