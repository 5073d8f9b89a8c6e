//! The parallel collector (`HeapConfig::workers`) under stress: at 1, 2
//! and 4 workers, two mutators rewire lists hanging off an array while
//! cycles run back to back (concurrent presets, passive, and evacuation
//! failure), with the verifier after every cycle and every list checked
//! against the mutator's model. One mutator holds thousands of handles,
//! so the pauses' root work goes parallel too. Bounded in time
//! (`FASTPATH_STRESS_MS` per configuration, default 400 ms), and past that
//! until a verified cycle (and, with more than one worker, a parallel
//! phase) has run, so a slow build or an emulator still tests something;
//! prints the objects checked.

// The heap is not built under `--cfg loom` (only the protocols are).
#![cfg(not(loom))]

mod common;

use std::time::Instant;

use common::{stress_time, ListModel, Lists, NO_PROGRESS_LIMIT};
use fastpath::gc::{BarrierBits, Dynamic, GcMode, GcStats, Heap, HeapConfig};

const SLOTS: usize = 256;
const LISTS: Lists = Lists {
    slots: SLOTS,
    len: 48,
};

/// Whether the heap has done what the assertions below need: a verified
/// cycle, and with more than one worker a phase run in parallel.
fn collector_progressed(heap: &Heap) -> bool {
    let s = heap.stats();
    s.verified_cycles > 0 && (s.workers == 1 || s.parallel_phases > 0)
}

fn mutator_loop(heap: &Heap, seed: u64, many_roots: bool, deadline: Instant) -> u64 {
    let mut m = heap.mutator::<Dynamic>().unwrap();
    let mut model = ListModel::new(LISTS, &mut m, seed);
    // Thousands of handles, each to a small object holding its index.
    let mut held = Vec::new();
    if many_roots {
        for i in 0..9000 {
            let h = m.alloc(0, 1).unwrap();
            m.write(m.get(h).unwrap(), 0, i).unwrap();
            held.push(h);
        }
    }
    let mut rounds = 0u64;
    let started = Instant::now();
    while Instant::now() < deadline || !collector_progressed(heap) {
        assert!(
            started.elapsed() < NO_PROGRESS_LIMIT,
            "no verified cycle (or parallel phase) in {NO_PROGRESS_LIMIT:?}"
        );
        for _ in 0..8 {
            model.churn(&mut m, 32, 2, 6);
        }
        model.check_some(&m, 16);
        rounds += 1;
        if heap.config().mode == GcMode::Passive && rounds % 16 == 0 {
            // Passive mode collects only when full: a collection now and
            // then, whatever the build's speed.
            m.collect().unwrap();
        }
        for (i, &h) in held.iter().enumerate().step_by(97) {
            assert_eq!(m.read(m.get(h).unwrap(), 0).unwrap(), i, "handle {i}");
            model.checked += 1;
        }
    }
    model.check_all(&m)
}

fn run(bits: BarrierBits, mode: GcMode, workers: usize, evac_lab_limit: Option<usize>) -> (GcStats, u64) {
    let mut c = HeapConfig::new(16 << 20, bits, mode);
    c.workers = workers;
    c.verify = true;
    c.aggressive = true;
    c.evac_lab_limit = evac_lab_limit;
    let heap = Heap::new(c).unwrap();
    let deadline = Instant::now() + stress_time();
    let checked = std::thread::scope(|s| {
        let heap = &heap;
        let a = s.spawn(move || mutator_loop(heap, 0x9e37_79b9, true, deadline));
        let b = s.spawn(move || mutator_loop(heap, 0x7f4a_7c15, false, deadline));
        a.join().unwrap() + b.join().unwrap()
    });
    (heap.stats(), checked)
}

fn stress(bits: BarrierBits, mode: GcMode, evac_lab_limit: Option<usize>) {
    for workers in [1, 2, 4] {
        let (stats, checked) = run(bits, mode, workers, evac_lab_limit);
        println!(
            "{bits} {mode} workers={workers} evac_lab_limit={evac_lab_limit:?}: {checked} objects checked, {} cycles, {} parallel phases on {} worker threads started, {} verified runs ({} objects), {} evacuation failures",
            stats.cycles,
            stats.parallel_phases,
            stats.worker_threads_started,
            stats.verified_cycles,
            stats.verified_objects,
            stats.evacuation_failures
        );
        assert!(stats.verify_errors.is_empty(), "{:?}", stats.verify_errors);
        assert!(stats.verified_cycles > 0 && checked > 0, "work was done");
        assert_eq!(stats.workers, workers);
        // The pool's threads are started once and reused, however many
        // phases ran.
        assert!(
            stats.worker_threads_started < workers as u64,
            "{} threads started for {workers} workers",
            stats.worker_threads_started
        );
        if workers == 1 {
            assert_eq!(stats.parallel_phases, 0, "one worker starts no thread");
        } else {
            assert!(stats.worker_threads_started > 0, "the pool started threads");
            assert!(
                stats.parallel_phases > 0,
                "{workers} workers ran phases in parallel"
            );
        }
    }
}

#[test]
fn workers_concurrent_shenandoah() {
    stress(BarrierBits::SHENANDOAH, GcMode::Concurrent, None);
}

#[test]
fn workers_concurrent_shenandoah_2017() {
    stress(BarrierBits::SHENANDOAH_2017, GcMode::Concurrent, None);
}

#[test]
fn workers_passive_g1() {
    stress(BarrierBits::G1, GcMode::Passive, None);
}

/// Evacuation failing under several copying workers (and the mutators'
/// barriers): the evac-OOM protocol with more than one collector thread.
#[test]
fn workers_evacuation_failure() {
    stress(BarrierBits::SHENANDOAH, GcMode::Concurrent, Some(3));
}

/// An out-of-range worker count is a configuration error.
#[test]
fn workers_out_of_range_is_refused() {
    for bad in [0, 65] {
        let mut c = HeapConfig::new(8 << 20, BarrierBits::G1, GcMode::Passive);
        c.workers = bad;
        let e = Heap::new(c).err().expect("refused");
        assert!(e.to_string().contains("FASTPATH_GC_WORKERS"), "{e}");
    }
}
