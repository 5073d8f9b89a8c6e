//! The full compaction's pause per MiB of live data, beside HotSpot's full
//! GC on the same heap shape (`peers/jvm/src/main/java/fastpath/peers/GcFullCompaction.java`).
//!
//! The shape, on both sides: a heap filled to three quarters with the lab's
//! nodes (2 references, 4 data words), allocated in pairs of which the
//! first is kept (in chunk arrays of 4000 under one spine) and the second
//! dropped, so every region holds about half live data, interleaved with
//! garbage. Here the heap is passive with the `shenandoah` barriers and
//! evacuation disabled (`HeapConfig::evac_lab_limit = Some(0)`), so the
//! collection that a failed allocation runs first moves nothing; a
//! humongous request of three eighths of the heap then finds no run (a
//! quarter is free), and the same pause slides the heap together. Each run
//! builds a fresh heap and prints the live data (what the compaction left
//! in use), the compaction's wall time (`GcStats::full_compaction_time`: its
//! own mark, plan, adjust and move) and the whole pause (the collection
//! before it included); the last line is the median.
//!
//! `cargo run --release -p fastpath --example gc_full_compaction [heap MiB] [runs]`
//! (default 256 and 5; `FASTPATH_GC_WORKERS` sets the marking and adjust
//! workers, as for every heap).

use std::time::Duration;

use fastpath::gc::{BarrierBits, GcMode, Heap, HeapConfig, ShenandoahBarriers};

const CHUNK: usize = 4000;
/// A node's cell: 3 header words, 2 references, 4 data words.
const NODE_BYTES: usize = 9 * 8;

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .map(|a| a.parse::<usize>().expect("a number"));
    let heap_mib = args.next().unwrap_or(256);
    let runs = args.next().unwrap_or(5);
    let mut per_mib = Vec::new();
    for run in 1..=runs {
        let (live_mib, compaction, pause) = one_run(heap_mib);
        let ms = compaction.as_secs_f64() * 1e3;
        println!(
            "run {run}: heap {heap_mib} MiB, live {live_mib:.1} MiB, compaction {ms:.2} ms ({:.3} ms/MiB live), whole pause {:.2} ms",
            ms / live_mib,
            pause.as_secs_f64() * 1e3
        );
        per_mib.push(ms / live_mib);
    }
    per_mib.sort_by(f64::total_cmp);
    println!(
        "median over {runs} runs: {:.3} ms per MiB live (workers: {})",
        per_mib[runs / 2],
        HeapConfig::new(heap_mib << 20, BarrierBits::SHENANDOAH, GcMode::Passive).workers
    );
}

/// One heap: (live MiB after the compaction, the compaction's time, the
/// pause that ran it).
fn one_run(heap_mib: usize) -> (f64, Duration, Duration) {
    let mut config = HeapConfig::new(heap_mib << 20, BarrierBits::SHENANDOAH, GcMode::Passive);
    config.evac_lab_limit = Some(0);
    let heap = Heap::new(config).expect("heap");
    let mut m = heap.mutator::<ShenandoahBarriers>().expect("mutator");
    let pairs = (heap_mib << 20) * 3 / 4 / (2 * NODE_BYTES + 8);
    let chunks = pairs.div_ceil(CHUNK);
    let spine = m.alloc(chunks, 0).expect("spine");
    for c in 0..chunks {
        let d = m.roots_len();
        let chunk = m.alloc(CHUNK, 0).expect("chunk");
        m.store(m.get(spine).unwrap(), c, Some(m.get(chunk).unwrap()))
            .unwrap();
        for i in 0..CHUNK.min(pairs - c * CHUNK) {
            let d = m.roots_len();
            let kept = m.alloc(2, 4).expect("the heap holds three quarters");
            m.write(m.get(kept).unwrap(), 0, i).unwrap();
            m.store(m.get(chunk).unwrap(), i, Some(m.get(kept).unwrap()))
                .unwrap();
            // The dropped half, between the kept ones.
            let dropped = m.alloc(2, 4).expect("the heap holds three quarters");
            m.write(m.get(dropped).unwrap(), 0, i).unwrap();
            m.truncate_roots(d);
        }
        m.truncate_roots(d);
    }
    let before = heap.stats();
    assert_eq!(before.full_compactions, 0, "no compaction while filling");
    let region = heap.config().region_bytes;
    // Three eighths of the heap: more than the quarter left free by the
    // fill, less than the compaction frees (live data is about two fifths).
    let request = (heap_mib << 20) * 3 / 8 / 8;
    let d = m.roots_len();
    m.alloc(0, request).expect("the compacted heap holds the request");
    let after = heap.stats();
    assert_eq!(after.full_compactions, 1, "one compaction");
    m.truncate_roots(d);
    let request_bytes = (request + 3) * 8;
    let used = (heap_mib << 20) - heap.free_bytes() - request_bytes.div_ceil(region) * region;
    let pause = after.pauses.last().expect("the pause").duration;
    (used as f64 / (1 << 20) as f64, after.full_compaction_time, pause)
}
