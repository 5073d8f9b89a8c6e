//! Table 3 of `fastpath gc`: concurrent mode. Mutators churn a heap kept
//! half live while the collector thread runs cycles; per barrier set that
//! concurrent mode accepts, the mutators' throughput and every pause's
//! p50/p99/max.

use std::time::{Duration, Instant};

use fastpath::gc::{self, BarrierBits, BarrierSet, GcMode, Heap, HeapConfig};

use crate::harness::Stats;
use crate::report::table::num;
use crate::report::{BenchResult, Mode, Table};

/// The pause workload's node: 2 references, 4 data words (72 bytes).
const NODE_REFS: usize = 2;
const NODE_DATA: usize = 4;

/// One mutator of table 3: builds its share of the live set, then replaces
/// random nodes (making garbage at the allocation rate) for `seconds`.
/// Returns (operations, longest operation in ns, allocations that failed).
/// A failed allocation (the collector fell behind: there is no pacing) is
/// counted and the operation skipped, not a panic: the table reports it.
fn pause_mutator<B: BarrierSet>(
    heap: &Heap,
    live_nodes: usize,
    start: &Start,
    seconds: u64,
) -> (u64, u64, u64) {
    let mut m = heap.mutator::<B>().expect("the heap's barrier set");
    let chunk_len = (heap.max_object_words() - 3).min(4000);
    let chunks = live_nodes.div_ceil(chunk_len);
    let spine = m.alloc(chunks, 0).expect("spine");
    for c in 0..chunks {
        let d = m.roots_len();
        let chunk = m.alloc(chunk_len, 0).expect("chunk");
        for i in 0..chunk_len {
            let d2 = m.roots_len();
            let n = m
                .alloc(NODE_REFS, NODE_DATA)
                .expect("live set fits in half the heap");
            let (ch, o) = (m.get(chunk).unwrap(), m.get(n).unwrap());
            m.write(o, 0, i).unwrap();
            m.store(ch, i, Some(o)).unwrap();
            m.truncate_roots(d2);
        }
        let (sp, ch) = (m.get(spine).unwrap(), m.get(chunk).unwrap());
        m.store(sp, c, Some(ch)).unwrap();
        m.truncate_roots(d);
    }
    let deadline = m.safe_region(|| start.arrive_and_wait()) + Duration::from_secs(seconds);
    let mut x = 0x9E37_79B9_7F4A_7C15usize ^ (live_nodes << 3);
    let (mut ops, mut worst, mut failed) = (0u64, 0u64, 0u64);
    while Instant::now() < deadline {
        let t = Instant::now();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let d = m.roots_len();
        let n = match m.alloc(NODE_REFS, NODE_DATA) {
            Ok(n) => n,
            Err(fastpath::gc::GcError::OutOfMemory) => {
                failed += 1;
                m.truncate_roots(d);
                continue;
            }
            Err(e) => panic!("allocation: {e}"),
        };
        let sp = m.get(spine).unwrap();
        let ch = m.load(sp, x % chunks).unwrap().unwrap();
        let slot = (x >> 20) % chunk_len;
        let old = m.load(ch, slot).unwrap();
        let o = m.get(n).unwrap();
        if let Some(old) = old {
            m.write(o, 0, m.read(old, 0).unwrap().wrapping_add(1)).unwrap();
        }
        m.store(o, 0, old).unwrap();
        m.store(ch, slot, Some(o)).unwrap();
        // The new node links to the old one: drop that link next time, so
        // the live set stays the same size.
        m.store(o, 0, None).unwrap();
        m.truncate_roots(d);
        worst = worst.max(t.elapsed().as_nanos() as u64);
        ops += 1;
    }
    (ops, worst, failed)
}

/// What table 3 runs: heap size, churn time, mutator threads.
#[derive(Clone, Copy)]
struct PauseRun {
    heap_mib: usize,
    seconds: u64,
    mutators: usize,
}

fn pauses_for<B: BarrierSet>(
    name: &str,
    run: PauseRun,
    results: &mut Vec<BenchResult>,
    t: &mut Table,
) -> anyhow::Result<()> {
    let PauseRun {
        heap_mib,
        seconds,
        mutators,
    } = run;
    let bits: BarrierBits = name.parse()?;
    let heap = Heap::new(HeapConfig::new(heap_mib << 20, bits, GcMode::Concurrent))?;
    let live_bytes = (heap_mib << 20) / 2;
    let per_mutator = live_bytes / ((3 + NODE_REFS + NODE_DATA) * 8) / mutators;
    let start = Start::default();
    let (before, stats, ops, worst, failed) = std::thread::scope(|s| {
        let handles: Vec<_> = (0..mutators)
            .map(|_| {
                let (heap, start) = (&heap, &start);
                s.spawn(move || pause_mutator::<B>(heap, per_mutator, start, seconds))
            })
            .collect();
        // Wait for every mutator's live set (or for a mutator's failure).
        while start.ready() < mutators && !handles.iter().any(|h| h.is_finished()) {
            std::thread::sleep(Duration::from_millis(1));
        }
        let before = heap.stats().pauses.len();
        start.go();
        let results: Vec<(u64, u64, u64)> = handles.into_iter().map(|h| h.join().expect("mutator")).collect();
        let ops: u64 = results.iter().map(|r| r.0).sum();
        let worst = results.iter().map(|r| r.1).max().unwrap_or(0);
        let failed: u64 = results.iter().map(|r| r.2).sum();
        (before, heap.stats(), ops, worst, failed)
    });
    let measured = &stats.pauses[before..];
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let pauses: Vec<f64> = measured.iter().map(|p| ms(p.duration)).collect();
    let work: Vec<f64> = measured.iter().map(|p| ms(p.work)).collect();
    let cpu: Vec<f64> = measured.iter().map(|p| ms(p.work_cpu_time)).collect();
    let ttsp: Vec<f64> = measured.iter().map(|p| ms(p.time_to_safepoint)).collect();
    let max = |v: &[f64]| v.iter().cloned().fold(0.0, f64::max);
    let worst_kind = measured
        .iter()
        .max_by(|a, b| a.duration.cmp(&b.duration))
        .map_or("-".to_string(), |p| format!("{:?}", p.kind));
    let s = Stats::from_samples(if pauses.is_empty() {
        vec![f64::NAN]
    } else {
        pauses.clone()
    });
    let w = Stats::from_samples(if work.is_empty() {
        vec![f64::NAN]
    } else {
        work.clone()
    });
    t.row(vec![
        name.into(),
        pauses.len().to_string(),
        format!("{:.3}", s.percentile(50.0)),
        format!("{:.3}", s.percentile(99.0)),
        format!("{:.3}", max(&pauses)),
        format!("{:.3}", w.percentile(99.0)),
        format!("{:.3}", max(&work)),
        format!("{:.3}", max(&cpu)),
        format!("{:.3}", max(&ttsp)),
        worst_kind,
        stats.cycles.to_string(),
        ops.to_string(),
        num(ops as f64 / seconds as f64),
        format!("{:.2}", worst as f64 / 1e6),
        failed.to_string(),
    ]);
    if pauses.is_empty() {
        return Ok(());
    }
    results.push(
        BenchResult::new("gc", "concurrent-pause", Mode::SampleTime, &s, "ms")
            .param("barriers", name)
            .threads(mutators as u32),
    );
    Ok(())
}

/// The start line of table 3: mutators build their live sets, arrive, and
/// wait (in a safe region, so cycles go on) for the measured churn to start.
#[derive(Default)]
struct Start {
    ready: std::sync::atomic::AtomicUsize,
    go: std::sync::Mutex<Option<Instant>>,
    cv: std::sync::Condvar,
}

impl Start {
    fn arrive_and_wait(&self) -> Instant {
        // Relaxed: a count polled by the coordinator; the start time is
        // handed over under the mutex.
        self.ready.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut go = self.go.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(t) = *go {
                return t;
            }
            go = self.cv.wait(go).unwrap_or_else(|e| e.into_inner());
        }
    }
    fn ready(&self) -> usize {
        // Relaxed: a count polled for progress; the start itself is ordered
        // by the mutex and condvar of `go`.
        self.ready.load(std::sync::atomic::Ordering::Relaxed)
    }
    fn go(&self) {
        *self.go.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
        self.cv.notify_all();
    }
}

/// Table 3: concurrent-mode throughput and pauses for each set concurrent mode accepts.
pub fn pauses(
    quick: bool,
    heap_mib: Option<usize>,
    mutators: Option<usize>,
    results: &mut Vec<BenchResult>,
) -> anyhow::Result<Table> {
    let heap_mib = heap_mib.unwrap_or(if quick { 32 } else { 256 });
    let seconds = if quick { 1 } else { 10 };
    // Quick mode: no more mutators than CPUs, so the collector keeps up on
    // a small machine (`all`'s run must not fail for want of pacing).
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mutators = mutators.unwrap_or(if quick { cpus.min(4) } else { 4 }).max(1);
    let run = PauseRun {
        heap_mib,
        seconds,
        mutators,
    };
    let mut t = Table::new(
        format!("Concurrent mode: pauses (ms, from request to release, time-to-safepoint included), {mutators} mutators, {heap_mib} MiB heap, half live"),
        &[
            "set",
            "pauses",
            "p50",
            "p99",
            "max",
            "p99 work",
            "max work",
            "max work CPU",
            "max TTSP",
            "longest",
            "cycles",
            "mutator ops",
            "ops/s",
            "longest op (ms)",
            "alloc failures",
        ],
    );
    pauses_for::<gc::ShenandoahBarriers>("shenandoah", run, results, &mut t)?;
    pauses_for::<gc::Shenandoah2017Barriers>("shenandoah-2017", run, results, &mut t)?;
    t.note(format!(
        "{seconds} s of churn per set after building the live set; {} CPUs here, shared with the collector thread (and anything else running).",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    ));
    t.note("work: the pause's own work, wall time, without the time-to-safepoint (waiting for the last mutator to stop) and the release;");
    t.note("work CPU: the CPU time of that work on the collector thread (less than its wall time when the thread was descheduled).");
    t.note("alloc failures: allocations that found no memory after waiting for three cycles (the collector fell behind; no pacing), each skipped;");
    t.note("longest op: the slowest single mutator operation (allocation included), which also catches allocation stalls outside pauses.");
    Ok(t)
}
