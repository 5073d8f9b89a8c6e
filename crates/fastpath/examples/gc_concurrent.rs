//! Two mutators on one heap while the concurrent collector runs cycles:
//! each builds a linked list it keeps, and churns garbage; a third thread's
//! worth of sharing goes through a global root that both rewire with CAS.
//! At the end each list is walked and checked, and the collector's
//! statistics printed.
//!
//! `cargo run --release -p fastpath --example gc_concurrent`

use std::time::{Duration, Instant};

use fastpath::gc::{BarrierBits, GcMode, Heap, HeapConfig, ShenandoahBarriers};

/// Node layout: refs [next], data [value].
const NODES: usize = 2000;

fn main() {
    let mut config = HeapConfig::new(16 << 20, BarrierBits::SHENANDOAH, GcMode::Concurrent);
    config.verify = true; // the heap verifier after every cycle
    let heap = Heap::new(config).expect("heap");
    let shared = {
        let mut m = heap.mutator::<ShenandoahBarriers>().expect("mutator");
        let cell = m.alloc(1, 0).expect("alloc");
        m.make_global(m.get(cell).unwrap()).unwrap()
    };
    let run_for = Duration::from_secs(1);
    let totals: Vec<(usize, u64, u64)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|t| {
                let heap = &heap;
                s.spawn(move || {
                    let mut m = heap.mutator::<ShenandoahBarriers>().expect("mutator");
                    // The list this mutator keeps: its head is a handle.
                    let head = m.alloc(1, 1).unwrap();
                    for i in 0..NODES {
                        let d = m.roots_len();
                        let n = m.alloc(1, 1).unwrap();
                        let (no, ho) = (m.get(n).unwrap(), m.get(head).unwrap());
                        m.write(no, 0, t * 1_000_000 + i).unwrap();
                        m.store(no, 0, m.load(ho, 0).unwrap()).unwrap();
                        m.store(ho, 0, Some(no)).unwrap();
                        m.truncate_roots(d);
                    }
                    // Garbage, and swaps of the shared slot, for a while.
                    let (mut garbage, mut swaps) = (0u64, 0u64);
                    let start = Instant::now();
                    while start.elapsed() < run_for {
                        let d = m.roots_len();
                        let g = m.alloc(2, 8).unwrap();
                        garbage += 1;
                        let (go, cell) = (m.get(g).unwrap(), m.global(shared).unwrap());
                        let old = m.load(cell, 0).unwrap();
                        if m.cas(cell, 0, old, Some(go)).unwrap() {
                            swaps += 1;
                        }
                        m.truncate_roots(d);
                    }
                    // Walk the list: every node, in order.
                    let mut seen = 0;
                    let mut cur = m.load(m.get(head).unwrap(), 0).unwrap();
                    while let Some(n) = cur {
                        assert_eq!(m.read(n, 0).unwrap(), t * 1_000_000 + NODES - 1 - seen);
                        seen += 1;
                        cur = m.load(n, 0).unwrap();
                    }
                    (seen, garbage, swaps)
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("mutator")).collect()
    });
    let stats = heap.stats();
    for (t, (seen, garbage, swaps)) in totals.iter().enumerate() {
        println!("mutator {t}: list of {seen} nodes intact; {garbage} garbage objects, {swaps} swaps");
        assert_eq!(*seen, NODES);
    }
    let longest = stats.pauses.iter().map(|p| p.duration).max().unwrap_or_default();
    println!(
        "{} cycles, {} pauses (longest {longest:?}), {} objects copied, {} verified after every cycle",
        stats.cycles,
        stats.pauses.len(),
        stats.evacuated_by_collector + stats.evacuated_by_mutators,
        stats.verified_objects,
    );
    assert!(stats.verify_errors.is_empty(), "{:?}", stats.verify_errors);
}
