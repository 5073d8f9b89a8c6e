//! Table 3 of `fastpath gc`: concurrent mode. Mutators churn a heap kept
//! half live while the collector thread runs cycles; per barrier set that
//! concurrent mode accepts and per collector configuration (how stopped
//! mutators wait, pacing on or off), every pause decomposed as HotSpot's
//! `-Xlog:safepoint` does (reaching, at safepoint, total) plus the
//! mutators' resume, each part's p50/p99/max; and the mutators' side:
//! throughput, the longest operation, pacing, failures.

use std::time::{Duration, Instant};

use fastpath::gc::{
    self, with_barrier_set, BarrierBits, BarrierSet, GcMode, Heap, HeapConfig, SafepointWait, WithBarrierSet,
};

use crate::harness::Stats;
use crate::report::table::num;
use crate::report::{BenchResult, Mode, Table};

/// The pause workload's node: 2 references, 4 data words (72 bytes).
const NODE_REFS: usize = 2;
const NODE_DATA: usize = 4;

/// One mutator of table 3: builds its share of the live set, then replaces
/// random nodes (making garbage at the allocation rate) for `seconds`.
/// Returns (operations, longest operation in ns, allocations that failed,
/// operations over 1 ms).
/// A failed allocation (the collector fell behind, even with pacing) is
/// counted and the operation skipped, not a panic: the table reports it.
fn pause_mutator<B: BarrierSet>(
    heap: &Heap,
    live_nodes: usize,
    start: &Start,
    seconds: u64,
) -> (u64, u64, u64, u64) {
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
    let (mut ops, mut worst, mut failed, mut stalls) = (0u64, 0u64, 0u64, 0u64);
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
        let took = t.elapsed().as_nanos() as u64;
        worst = worst.max(took);
        stalls += u64::from(took > 1_000_000);
        ops += 1;
    }
    (ops, worst, failed, stalls)
}

/// What table 3 runs: heap size, churn time, mutator threads.
#[derive(Clone, Copy)]
struct PauseRun {
    heap_mib: usize,
    seconds: u64,
    mutators: usize,
}

/// One configuration of the collector that table 3 compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// How stopped mutators wait for the release.
    pub wait: SafepointWait,
    /// Allocation pacing on or off.
    pub pacing: bool,
}

/// The names `--waits` accepts, with their [`SafepointWait`].
pub const WAITS: &[(&str, SafepointWait)] = &[
    ("futex", SafepointWait::Futex),
    ("spin", SafepointWait::SpinThenFutex),
    ("condvar", SafepointWait::Condvar),
];

fn wait_name(w: SafepointWait) -> &'static str {
    WAITS.iter().find(|(_, x)| *x == w).map_or("?", |(n, _)| n)
}

/// What one run of table 3 measured.
struct Measured {
    pauses: Vec<gc::GcPause>,
    stats: gc::GcStats,
    ops: u64,
    worst_op_ns: u64,
    failed: u64,
    /// Mutator operations that took over 1 ms.
    stalls: u64,
    /// The scheduler baseline's row (no GC work), not a collector's.
    baseline: bool,
    /// Seconds of churn measured.
    seconds: u64,
}

/// The scheduler baseline's churn: at most 2 s (without GC work the
/// mutators allocate ~5× faster than under a concurrent collector).
fn baseline_seconds(run: PauseRun) -> u64 {
    run.seconds.min(2)
}

/// The scheduler baseline's heap: the same live set, plus room for the
/// whole churn (256 MiB a second: 4 mutators on 2 vCPUs allocated ~210 on a
/// Zen 1 guest), so that passive mode never needs to collect.
fn baseline_heap_mib(run: PauseRun) -> usize {
    run.heap_mib / 2 + 256 * baseline_seconds(run) as usize + 64
}

/// Runs one row. `baseline`: the scheduler baseline instead, the same
/// mutators and live set with no collector work (passive mode on a heap
/// with room for the whole churn, [`baseline_heap_mib`]).
fn measure<B: BarrierSet>(
    bits: BarrierBits,
    run: PauseRun,
    v: Variant,
    baseline: bool,
) -> anyhow::Result<Measured> {
    let PauseRun {
        heap_mib,
        seconds,
        mutators,
    } = run;
    let seconds = if baseline { baseline_seconds(run) } else { seconds };
    let mut config = if baseline {
        HeapConfig::new(baseline_heap_mib(run) << 20, bits, GcMode::Passive)
    } else {
        HeapConfig::new(heap_mib << 20, bits, GcMode::Concurrent)
    };
    config.safepoint_wait = v.wait;
    config.pacing = v.pacing;
    let heap = Heap::new(config)?;
    let live_bytes = (heap_mib << 20) / 2;
    let per_mutator = live_bytes / ((3 + NODE_REFS + NODE_DATA) * 8) / mutators;
    let start = Start::default();
    let (before, before_stats, stats, ops, worst, failed, stalls) = std::thread::scope(|s| {
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
        let before_stats = heap.stats();
        let before = before_stats.pauses.len();
        start.go();
        let results: Vec<_> = handles.into_iter().map(|h| h.join().expect("mutator")).collect();
        let ops: u64 = results.iter().map(|r| r.0).sum();
        let worst = results.iter().map(|r| r.1).max().unwrap_or(0);
        let failed: u64 = results.iter().map(|r| r.2).sum();
        let stalls: u64 = results.iter().map(|r| r.3).sum();
        (before, before_stats, heap.stats(), ops, worst, failed, stalls)
    });
    let mut stats = stats;
    // Count only the churn: the build of the live set is not measured.
    stats.cycles -= before_stats.cycles;
    stats.paced_refills -= before_stats.paced_refills;
    stats.evacuation_failures -= before_stats.evacuation_failures;
    Ok(Measured {
        pauses: stats.pauses[before..].to_vec(),
        stats,
        ops,
        worst_op_ns: worst,
        failed,
        stalls,
        baseline,
        seconds,
    })
}

/// Reads one part of a pause.
type Part = fn(&gc::GcPause) -> Duration;

/// The parts of a pause, as `-Xlog:safepoint` names them (plus the resume).
const PARTS: &[(&str, Part)] = &[
    ("reaching safepoint (TTSP)", |p| p.time_to_safepoint),
    ("at safepoint", |p| p.work),
    ("leaving (the release)", |p| {
        p.duration.saturating_sub(p.time_to_safepoint + p.work)
    }),
    ("total (request to release)", |p| p.duration),
    ("resume after release", |p| p.resume),
    ("total + resume", |p| p.duration + p.resume),
];

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn stats_of(v: Vec<f64>) -> Stats {
    Stats::from_samples(if v.is_empty() { vec![f64::NAN] } else { v })
}

/// Adds one configuration's rows to both tables.
fn report(
    name: &str,
    run: PauseRun,
    v: Variant,
    m: &Measured,
    results: &mut Vec<BenchResult>,
    parts: &mut Table,
    mutators: &mut Table,
) {
    let baseline = m.baseline;
    let label = if baseline {
        [
            format!("{name}, no GC work (baseline)"),
            run.mutators.to_string(),
            "-".into(),
            "-".into(),
        ]
    } else {
        [
            name.to_string(),
            run.mutators.to_string(),
            wait_name(v.wait).into(),
            if v.pacing { "on" } else { "off" }.into(),
        ]
    };
    for (part, get) in PARTS.iter().filter(|_| !baseline) {
        let samples: Vec<f64> = m.pauses.iter().map(|p| ms(get(p))).collect();
        let max = samples.iter().cloned().fold(f64::NAN, f64::max);
        let s = stats_of(samples);
        let mut row = label.to_vec();
        row.extend([
            part.to_string(),
            m.pauses.len().to_string(),
            format!("{:.3}", s.percentile(50.0)),
            format!("{:.3}", s.percentile(99.0)),
            format!("{max:.3}"),
        ]);
        parts.row(row);
        if !m.pauses.is_empty() {
            results.push(
                BenchResult::new("gc", "concurrent-pause", Mode::SampleTime, &s, "ms")
                    .param("barriers", name)
                    .param("part", part)
                    .param("wait", wait_name(v.wait))
                    .param("pacing", v.pacing)
                    .threads(run.mutators as u32),
            );
        }
    }
    let worst_cpu = m.pauses.iter().map(|p| p.work_cpu_time).max().unwrap_or_default();
    let mut row = label.to_vec();
    row.extend([
        m.stats.cycles.to_string(),
        num(m.ops as f64 / m.seconds as f64),
        format!("{:.3}", ms(worst_cpu)),
        format!("{:.2}", m.worst_op_ns as f64 / 1e6),
        format!("{:.1}", m.stalls as f64 / m.seconds as f64),
        m.stats.paced_refills.to_string(),
        format!("{:.2}", ms(m.stats.longest_paced_wait)),
        m.failed.to_string(),
        m.stats.evacuation_failures.to_string(),
    ]);
    mutators.row(row);
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

/// What to run in table 3.
pub struct Plan {
    /// Heap size (default 256 MiB, quick 32).
    pub heap_mib: Option<usize>,
    /// Mutator threads (default 4; quick: at most the CPUs).
    pub mutators: Option<usize>,
    /// Seconds of churn per configuration (default 10, quick 1).
    pub seconds: Option<u64>,
    /// The sets (default: both concurrent presets).
    pub sets: Vec<String>,
    /// The configurations, run one after the other per set.
    pub variants: Vec<Variant>,
    /// Open with the scheduler baseline row (the first set, no GC work).
    pub baseline: bool,
}

/// The barrier sets measured unless `--sets` names others: both presets
/// concurrent mode accepts.
pub const SETS: &[&str] = &["shenandoah", "shenandoah-2017"];

/// One row of table 3 for the barrier set's type ([`with_barrier_set`]).
struct Measure {
    run: PauseRun,
    v: Variant,
    baseline: bool,
}

impl WithBarrierSet for Measure {
    type Output = anyhow::Result<Measured>;
    fn run<B: BarrierSet>(self, bits: BarrierBits) -> anyhow::Result<Measured> {
        measure::<B>(bits, self.run, self.v, self.baseline)
    }
}

/// Table 3: concurrent-mode pauses decomposed, and the mutators' side.
pub fn pauses(quick: bool, plan: &Plan, results: &mut Vec<BenchResult>) -> anyhow::Result<Vec<Table>> {
    let heap_mib = plan.heap_mib.unwrap_or(if quick { 32 } else { 256 });
    let seconds = plan.seconds.unwrap_or(if quick { 1 } else { 10 }).max(1);
    // Quick mode: no more mutators than CPUs, so the collector keeps up on
    // a small machine (`all`'s run must not fail for want of CPU).
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mutators = plan
        .mutators
        .unwrap_or(if quick { cpus.min(4) } else { 4 })
        .max(1);
    let run = PauseRun {
        heap_mib,
        seconds,
        mutators,
    };
    let keys = ["set", "mutators", "wait", "pacing"];
    let mut parts = Table::new(
        format!("Concurrent mode: pauses decomposed as -Xlog:safepoint does (ms), {mutators} mutators, {heap_mib} MiB heap, half live"),
        &[&keys[..], &["part", "pauses", "p50", "p99", "max"]].concat(),
    );
    let mut side = Table::new(
        format!("Concurrent mode: the mutators' side, {mutators} mutators, {heap_mib} MiB heap"),
        &[
            &keys[..],
            &[
                "cycles",
                "ops/s",
                "max at-safepoint CPU (ms)",
                "longest op (ms)",
                "ops > 1 ms per s",
                "paced refills",
                "longest paced wait (ms)",
                "alloc failures",
                "evac failures",
            ],
        ]
        .concat(),
    );
    for set in &plan.sets {
        // The first set's rows open with the scheduler baseline.
        let baseline = (plan.baseline && set == &plan.sets[0]).then_some(true);
        for (v, baseline) in baseline
            .map(|b| (plan.variants[0], b))
            .into_iter()
            .chain(plan.variants.iter().map(|&v| (v, false)))
        {
            let bits: BarrierBits = set.parse()?;
            gc::settings::check_pair(bits, GcMode::Concurrent)?;
            let m = with_barrier_set(bits, Measure { run, v, baseline })?;
            report(set, run, v, &m, results, &mut parts, &mut side);
        }
    }
    // The goal (at-safepoint p99 under 1 ms, max under 5 ms), read as
    // HotSpot reads a GC pause (at safepoint): a note starting with PASS or
    // FAIL, which report.md's summary lists.
    let col = |name: &str| parts.headers.iter().position(|h| h == name).expect("column");
    let (part, p99, max) = (col("part"), col("p99"), col("max"));
    let misses: Vec<String> = parts
        .rows
        .iter()
        .filter(|r| r[part] == "at safepoint")
        .filter(|r| {
            let v = |c: usize| r[c].parse::<f64>().unwrap_or(f64::INFINITY);
            !(v(p99) < 1.0 && v(max) < 5.0)
        })
        .map(|r| format!("{} p99 {} max {} ms", r[0], r[p99], r[max]))
        .collect();
    if misses.is_empty() {
        parts.note(format!("PASS: at safepoint (HotSpot's pause) p99 < 1 ms and max < 5 ms in every row, {mutators} mutators on {heap_mib} MiB"));
    } else {
        parts.note(format!(
            "FAIL: at safepoint (HotSpot's pause) p99 < 1 ms and max < 5 ms: {}",
            misses.join("; ")
        ));
    }
    parts.note(format!(
        "{seconds} s of churn per row after building the live set; {cpus} CPUs here, shared with the collector thread (and anything else running)."
    ));
    parts.note("reaching: request until the last mutator stopped (HotSpot's \"Reaching safepoint\", TTSP); at safepoint: the pause's work (HotSpot's \"At safepoint\", what a GC log's \"Pause Init Mark\" reports);");
    parts.note("leaving: from the work's end to the release (HotSpot's \"Leaving safepoint\"); total: request to release (HotSpot's \"Total\"); resume: after the release, the longest any stopped mutator took to run again (not in HotSpot's log).");
    parts.note("wait: how stopped mutators wait for the release (futex: one broadcast; spin: 50 us, then futex; condvar: each re-takes the safepoint mutex).");
    side.note("pacing: a TLAB refill over the cycle's budget waits up to 10 ms for the collector (Shenandoah's pacer); longest op: the slowest mutator operation, allocation stalls included;");
    if plan.baseline {
        side.note(format!("no GC work (baseline): the same mutators and live set in passive mode, {} s of churn on a {} MiB heap that never fills (cycles 0: no pause, no pacing); its longest op and ops > 1 ms per s are what the scheduler alone does to {mutators} mutators on {cpus} CPUs.", baseline_seconds(run), baseline_heap_mib(run)));
    }
    side.note("alloc failures: allocations that found no memory after three cycles (skipped); evac failures: cycles whose evacuation ran out of space (objects left in place).");
    Ok(vec![parts, side])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A short run of two variants: every part of every variant gets a row
    /// of finite numbers whose total covers reaching + at safepoint, and the
    /// mutators' side one row per variant.
    #[test]
    fn every_variant_reports_every_part() {
        let plan = Plan {
            heap_mib: Some(16),
            mutators: Some(1),
            seconds: Some(1),
            sets: vec!["shenandoah".into()],
            variants: vec![
                Variant {
                    wait: SafepointWait::Futex,
                    pacing: true,
                },
                Variant {
                    wait: SafepointWait::Condvar,
                    pacing: false,
                },
            ],
            baseline: true,
        };
        let mut results = Vec::new();
        let tables = pauses(true, &plan, &mut results).unwrap();
        let (parts, side) = (&tables[0], &tables[1]);
        assert_eq!(parts.rows.len(), 2 * PARTS.len());
        assert_eq!(side.rows.len(), 3, "the baseline and two variants");
        let cycles = side.headers.iter().position(|h| h == "cycles").unwrap();
        assert_eq!(
            side.rows[0][cycles], "0",
            "the baseline never collects: {:?}",
            side.rows[0]
        );
        let col = |name: &str| parts.headers.iter().position(|h| h == name).unwrap();
        for row in &parts.rows {
            let n: usize = row[col("pauses")].parse().unwrap();
            assert!(n > 0, "a cycle ran in a second: {row:?}");
            for c in ["p50", "p99", "max"] {
                let v: f64 = row[col(c)].parse().unwrap();
                assert!(v.is_finite() && v >= 0.0, "{row:?}");
            }
        }
        let max_of = |variant: &str, part: &str| -> f64 {
            parts
                .rows
                .iter()
                .find(|r| r[2] == variant && r[col("part")] == part)
                .map(|r| r[col("max")].parse().unwrap())
                .unwrap()
        };
        for w in ["futex", "condvar"] {
            assert!(max_of(w, "total (request to release)") + 1e-3 >= max_of(w, "at safepoint"));
        }
        assert_eq!(results.len(), 2 * PARTS.len());
    }
}
