//! Stress: mutators rewiring a graph, building and tearing down trees and
//! CASing shared slots while aggressive concurrent cycles run back to back.
//! Every step checks the mutator's graph against its model (a checksum
//! read through the barriers); the verifier runs after every cycle. Bounded
//! in time (`SECONDS`), and past that until the cycles the assertions need
//! have run (three, with copies, and with evacuation failures where those
//! are provoked), so a loaded machine, an emulator or AddressSanitizer
//! still tests something; a hard cap fails a collector that makes no
//! progress. Prints the operations and cycles it checked.

// The heap is not built under `--cfg loom` (only the forwarding protocol is).
#![cfg(not(loom))]

use std::time::{Duration, Instant};

use fastpath::gc::layout::RefWidth;
use fastpath::gc::{BarrierBits, Dynamic, GcMode, GcStats, GlobalHandle, Heap, HeapConfig, Mutator};

#[path = "common/graph.rs"]
mod graph;
use graph::{Graph, Node};

const SLOTS: usize = 48;
const SHARED: usize = 8;
const MUTATORS: usize = 3;
const SECONDS: u64 = 2;

/// The longest a run may take to see the cycles it needs: past it the test
/// fails instead of running on.
const NO_PROGRESS_LIMIT: Duration = Duration::from_secs(300);

/// Whether the heap has done what the assertions below need: three cycles,
/// an object copied, and where evacuation is starved (`evac_lab_limit`)
/// an evacuation that failed and kept its region.
fn collector_progressed(s: &GcStats, evac_lab_limit: Option<usize>) -> bool {
    s.cycles >= 3
        && s.evacuated_by_collector + s.evacuated_by_mutators > 0
        && (evac_lab_limit.is_none() || (s.evacuation_failures > 0 && s.regions_kept > 0))
}

/// Node layout: refs [edge0, edge1], data [id, value].
fn new_node(m: &mut Mutator<Dynamic>, id: usize, value: usize) -> fastpath::gc::Handle {
    let h = m.alloc(2, 2).unwrap();
    let o = m.get(h).unwrap();
    m.write(o, 0, id).unwrap();
    m.write(o, 1, value).unwrap();
    h
}

/// Reads the graph through the barriers and compares it with the model.
fn check(m: &Mutator<Dynamic>, array: fastpath::gc::Handle, model: &[Node]) {
    let a = m.get(array).unwrap();
    for (i, want) in model.iter().enumerate() {
        let node = m.load(a, i).unwrap().expect("slot filled");
        assert_eq!(m.read(node, 0).unwrap(), want.id, "slot {i} id");
        assert_eq!(m.read(node, 1).unwrap(), want.value, "slot {i} value");
        for e in 0..2 {
            let got = m.load(node, e).unwrap().map_or(0, |t| m.read(t, 0).unwrap());
            assert_eq!(got, want.edges[e], "slot {i} edge {e}");
        }
    }
}

fn build_tree(m: &mut Mutator<Dynamic>, depth: u32, g: &mut Graph) -> fastpath::gc::Handle {
    let h = new_node(m, g.next_id(), 1);
    if depth > 0 {
        for e in 0..2 {
            let d = m.roots_len();
            let child = build_tree(m, depth - 1, g);
            let (p, c) = (m.get(h).unwrap(), m.get(child).unwrap());
            m.store(p, e, Some(c)).unwrap();
            m.truncate_roots(d);
        }
    }
    h
}

fn tree_sum(m: &Mutator<Dynamic>, node: Option<fastpath::gc::Obj<'_>>) -> usize {
    match node {
        None => 0,
        Some(o) => {
            m.read(o, 1).unwrap() + tree_sum(m, m.load(o, 0).unwrap()) + tree_sum(m, m.load(o, 1).unwrap())
        }
    }
}

fn mutator_loop(
    heap: &Heap,
    shared: GlobalHandle,
    seed: u64,
    deadline: Instant,
    evac_lab_limit: Option<usize>,
) -> (usize, usize) {
    let mut m = heap.mutator::<Dynamic>().unwrap();
    let mut g = Graph::new(SLOTS, (seed as usize) << 40, seed);
    let array = m.alloc(SLOTS, 0).unwrap();
    for i in 0..SLOTS {
        let d = m.roots_len();
        let n = new_node(&mut m, g.replace(i, i), i);
        let (a, o) = (m.get(array).unwrap(), m.get(n).unwrap());
        m.store(a, i, Some(o)).unwrap();
        m.truncate_roots(d);
    }
    let (mut ops, mut cas_wins) = (0, 0);
    let started = Instant::now();
    while Instant::now() < deadline || !collector_progressed(&heap.stats(), evac_lab_limit) {
        assert!(
            started.elapsed() < NO_PROGRESS_LIMIT,
            "the cycles needed did not run in {NO_PROGRESS_LIMIT:?}: {} cycles, {} copies, {} evacuation failures, {} regions kept",
            heap.stats().cycles,
            heap.stats().evacuated_by_collector + heap.stats().evacuated_by_mutators,
            heap.stats().evacuation_failures,
            heap.stats().regions_kept
        );
        let d = m.roots_len();
        match g.rng.next() % 8 {
            0..=2 => {
                // Rewire: slot i's edge e := slot k's node.
                let (i, e, k) = g.pick_rewire();
                let a = m.get(array).unwrap();
                let (ni, nk) = (m.load(a, i).unwrap().unwrap(), m.load(a, k).unwrap().unwrap());
                m.store(ni, e, Some(nk)).unwrap();
                g.rewire(i, e, k);
            }
            3 => {
                // Replace slot i with a new node (the old one stays reachable
                // through edges, or becomes garbage).
                let (i, value) = g.pick_replace();
                let n = new_node(&mut m, g.replace(i, value), value);
                let (a, o) = (m.get(array).unwrap(), m.get(n).unwrap());
                m.store(a, i, Some(o)).unwrap();
            }
            4 => {
                // Bump a value.
                let i = g.rng.next() % SLOTS;
                let a = m.get(array).unwrap();
                let n = m.load(a, i).unwrap().unwrap();
                g.slots[i].value += 1;
                m.write(n, 1, g.slots[i].value).unwrap();
            }
            5 => {
                // Build a tree, check it, tear it down.
                let t = build_tree(&mut m, 5, &mut g);
                assert_eq!(tree_sum(&m, Some(m.get(t).unwrap())), 63);
            }
            _ => {
                // CAS a shared slot to a new node; check what we replaced.
                let s = g.rng.next() % SHARED;
                let id = g.next_id();
                let n = m.alloc(0, 2).unwrap();
                let o = m.get(n).unwrap();
                m.write(o, 0, id).unwrap();
                m.write(o, 1, !id).unwrap();
                let g = m.global(shared).unwrap();
                let old = m.load(g, s).unwrap();
                if let Some(old) = old {
                    assert_eq!(
                        m.read(old, 1).unwrap(),
                        !m.read(old, 0).unwrap(),
                        "shared node intact"
                    );
                }
                if m.cas(g, s, old, Some(o)).unwrap() {
                    cas_wins += 1;
                }
            }
        }
        m.truncate_roots(d);
        check(&m, array, &g.slots);
        ops += 1;
    }
    (ops, cas_wins)
}

/// `evac_lab_limit`: `Some(n)` hands out only `n` evacuation LABs per
/// cycle, so evacuation fails (objects stay in place, regions are kept)
/// while mutators and the collector race for what copies fit.
fn stress(bits: BarrierBits, evac_lab_limit: Option<usize>, refs: RefWidth) {
    let mut c = HeapConfig::new(16 << 20, bits, GcMode::Concurrent);
    c.refs = refs;
    c.aggressive = true;
    c.verify = true;
    c.evac_lab_limit = evac_lab_limit;
    let heap = Heap::new(c).unwrap();
    let shared = {
        let mut m = heap.mutator::<Dynamic>().unwrap();
        let h = m.alloc(SHARED, 0).unwrap();
        m.make_global(m.get(h).unwrap()).unwrap()
    };
    let deadline = Instant::now() + Duration::from_secs(SECONDS);
    let results: Vec<(usize, usize)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..MUTATORS)
            .map(|t| {
                let heap = &heap;
                s.spawn(move || mutator_loop(heap, shared, 0x9E37_79B9 + t as u64, deadline, evac_lab_limit))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let stats = heap.stats();
    let ops: usize = results.iter().map(|r| r.0).sum();
    let wins: usize = results.iter().map(|r| r.1).sum();
    println!(
        "gc_stress {bits} ({refs:?} references): {ops} operations checked ({wins} shared CAS wins) by {MUTATORS} mutators; \
         {} cycles, {} verified ({} objects), {} copies by the collector, {} by mutators; \
         evacuation failed in {} cycles ({} regions kept)",
        stats.cycles,
        stats.verified_cycles,
        stats.verified_objects,
        stats.evacuated_by_collector,
        stats.evacuated_by_mutators,
        stats.evacuation_failures,
        stats.regions_kept
    );
    assert_eq!(stats.verify_errors, Vec::<String>::new());
    assert!(stats.cycles >= 3, "only {} cycles ran", stats.cycles);
    assert!(stats.evacuated_by_collector + stats.evacuated_by_mutators > 0);
    assert!(ops > 0);
    if evac_lab_limit.is_some() {
        assert!(stats.evacuation_failures > 0, "evacuation never failed");
        assert!(stats.regions_kept > 0, "no region was kept");
    }
}

#[test]
fn gc_stress_shenandoah() {
    stress(BarrierBits::SHENANDOAH, None, RefWidth::Full);
}

#[test]
fn gc_stress_shenandoah_2017() {
    stress(BarrierBits::SHENANDOAH_2017, None, RefWidth::Full);
}

#[test]
fn gc_stress_evacuation_failure_shenandoah() {
    stress(BarrierBits::SHENANDOAH, Some(1), RefWidth::Full);
}

#[test]
fn gc_stress_evacuation_failure_shenandoah_2017() {
    stress(BarrierBits::SHENANDOAH_2017, Some(1), RefWidth::Full);
}

/// Compressed (4-byte) reference slots: the shared CAS, the LRB's heal and
/// update-refs work on 32-bit slots, with the Brooks format's forwarding
/// word (a full address) beside them in the second.
#[test]
fn gc_stress_shenandoah_compressed() {
    stress(BarrierBits::SHENANDOAH, None, RefWidth::Compressed);
}

#[test]
fn gc_stress_evacuation_failure_shenandoah_2017_compressed() {
    stress(BarrierBits::SHENANDOAH_2017, Some(1), RefWidth::Compressed);
}
