//! Table 3 of `fastpath gc`: concurrent mode. Mutators churn a heap kept
//! half live while the collector thread runs cycles; per barrier set that
//! concurrent mode accepts and per collector configuration (how stopped
//! mutators wait, pacing on or off), every pause decomposed as HotSpot's
//! `-Xlog:safepoint` does (reaching, at safepoint, total) plus the
//! mutators' resume, each part's p50/p99/max; and the mutators' side:
//! throughput, the longest operation, pacing, failures.

use std::time::{Duration, Instant};

use fastpath::gc::{
    self, with_barrier_set_for, BarrierBits, BarrierSet, GcMode, Heap, HeapConfig, SafepointWait,
    WithBarrierSet,
};

use crate::report::table::num;
use crate::report::{BenchResult, Mode, Table};
use crate::stats::Stats;

/// The pause workload's node: 2 references, 4 data words (72 bytes).
const NODE_REFS: usize = 2;
const NODE_DATA: usize = 4;

/// Operations at least this long are broken down ([`Delays`]).
const SLOW_OP: Duration = Duration::from_millis(1);

/// How often (at most) a mutator reads its thread's CPU clock: at the start
/// of an operation when the last reading is older than this. The reading
/// is a system call; one per 100 us costs a fraction of a percent.
const CPU_CHECK: Duration = Duration::from_micros(100);

/// Where one operation's wall time went: waiting for the collector (the
/// mutator's [`fastpath::gc::MutatorWaits`] across the operation, exact),
/// descheduled (off its CPU outside those waits: the thread CPU clock,
/// read at most [`CPU_CHECK`] before the operation began, so this part is
/// within that of exact), and the rest: on the CPU (the operation's own
/// work, any spinning).
#[derive(Clone, Copy, Default, Debug)]
struct Split {
    wall: Duration,
    /// Stopped for pauses.
    safepoint: Duration,
    /// Of `safepoint`: the pauses' own work (the collector thread's CPU
    /// time in them); the rest is the collector descheduled in the pause,
    /// or other mutators reaching it.
    pause_cpu: Duration,
    /// Held by the pacer.
    paced: Duration,
    /// Waiting for memory (a collection).
    stalled: Duration,
    /// Assisting: the collector's work done on the mutator's thread.
    assist: Duration,
    descheduled: Duration,
}

impl Split {
    fn collector(&self) -> Duration {
        self.safepoint + self.paced + self.stalled + self.assist
    }
    fn on_cpu(&self) -> Duration {
        self.wall.saturating_sub(self.collector() + self.descheduled)
    }
    fn add(&mut self, o: &Split) {
        self.wall += o.wall;
        self.safepoint += o.safepoint;
        self.pause_cpu += o.pause_cpu;
        self.paced += o.paced;
        self.stalled += o.stalled;
        self.assist += o.assist;
        self.descheduled += o.descheduled;
    }
}

/// One mutator's slow operations (at least [`SLOW_OP`]), broken down.
#[derive(Clone, Copy, Default, Debug)]
struct Delays {
    /// The longest operation.
    longest: Split,
    /// The operation with the longest collector part.
    worst_collector: Split,
    /// The operation with the longest descheduled part.
    worst_descheduled: Split,
    /// Every slow operation's parts, summed.
    slow: Split,
    slow_ops: u64,
}

impl Delays {
    fn merge(&mut self, o: &Delays) {
        if o.longest.wall > self.longest.wall {
            self.longest = o.longest;
        }
        if o.worst_collector.collector() > self.worst_collector.collector() {
            self.worst_collector = o.worst_collector;
        }
        if o.worst_descheduled.descheduled > self.worst_descheduled.descheduled {
            self.worst_descheduled = o.worst_descheduled;
        }
        self.slow.add(&o.slow);
        self.slow_ops += o.slow_ops;
    }
}

/// What one mutator of table 3 measured.
#[derive(Default)]
struct MutatorRun {
    ops: u64,
    failed: u64,
    delays: Delays,
    /// Its waits for the collector during the churn, every operation's.
    waits: gc::MutatorWaits,
}

/// `a - b`, field by field (waits only grow).
fn waits_since(a: gc::MutatorWaits, b: gc::MutatorWaits) -> gc::MutatorWaits {
    gc::MutatorWaits {
        safepoint: a.safepoint.saturating_sub(b.safepoint),
        pause_cpu: a.pause_cpu.saturating_sub(b.pause_cpu),
        paced: a.paced.saturating_sub(b.paced),
        stalled: a.stalled.saturating_sub(b.stalled),
        resume: a.resume.saturating_sub(b.resume),
        assist: a.assist.saturating_sub(b.assist),
        assist_slices: a.assist_slices.saturating_sub(b.assist_slices),
    }
}

/// `a + b`, field by field.
fn waits_sum(a: gc::MutatorWaits, b: gc::MutatorWaits) -> gc::MutatorWaits {
    gc::MutatorWaits {
        safepoint: a.safepoint + b.safepoint,
        pause_cpu: a.pause_cpu + b.pause_cpu,
        paced: a.paced + b.paced,
        stalled: a.stalled + b.stalled,
        resume: a.resume + b.resume,
        assist: a.assist + b.assist,
        assist_slices: a.assist_slices + b.assist_slices,
    }
}

/// This process's CPU time, every thread's (getrusage, user + system).
fn process_cpu() -> Duration {
    // SAFETY: an all-zero rusage is a valid value of the plain C struct.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `u` is a valid, writable rusage; RUSAGE_SELF exists on every
    // Linux the lab builds for.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } != 0 {
        return Duration::ZERO;
    }
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// One mutator of table 3: builds its share of the live set, then replaces
/// random nodes (making garbage at the allocation rate) until `start`
/// says the churn is over.
/// A failed allocation (the collector fell behind, even with pacing) is
/// counted and the operation skipped, not a panic: the table reports it.
/// Each operation of at least [`SLOW_OP`] is broken down ([`Split`]).
fn pause_mutator<B: BarrierSet>(heap: &Heap, live_nodes: usize, start: &Start) -> MutatorRun {
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
    m.safe_region(|| start.arrive_and_wait());
    let mut x = 0x9E37_79B9_7F4A_7C15usize ^ (live_nodes << 3);
    let mut run = MutatorRun::default();
    let waits_before = m.waits();
    let d = &mut run.delays;
    // The last CPU clock reading, and the wall clock then.
    let (mut ck_wall, mut ck_cpu) = (Instant::now(), crate::harness::thread_cpu_time());
    while !start.over() {
        let t = Instant::now();
        if t - ck_wall > CPU_CHECK {
            (ck_wall, ck_cpu) = (t, crate::harness::thread_cpu_time());
        }
        let waits = m.waits();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let depth = m.roots_len();
        let n = match m.alloc(NODE_REFS, NODE_DATA) {
            Ok(n) => n,
            Err(fastpath::gc::GcError::OutOfMemory { .. }) => {
                run.failed += 1;
                m.truncate_roots(depth);
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
        m.truncate_roots(depth);
        let took = t.elapsed();
        run.ops += 1;
        if took >= SLOW_OP {
            let (now, cpu) = (Instant::now(), crate::harness::thread_cpu_time());
            let w = m.waits();
            let mut split = Split {
                wall: took,
                safepoint: w.safepoint - waits.safepoint,
                pause_cpu: w.pause_cpu - waits.pause_cpu,
                paced: w.paced - waits.paced,
                stalled: w.stalled - waits.stalled,
                assist: w.assist - waits.assist,
                descheduled: Duration::ZERO,
            };
            // Off the CPU since the reading, less the collector's waits
            // (blocked, so off the CPU too), within this operation. An
            // assist is not blocked: its wall time, any descheduling inside
            // it included, is the collector's part, and the rest of the
            // operation holds the descheduled part.
            let off = (now - ck_wall).saturating_sub(cpu - ck_cpu);
            let blocked = (split.collector() - split.assist).min(took);
            split.descheduled = off
                .saturating_sub(blocked)
                .min(took.saturating_sub(split.collector()));
            (ck_wall, ck_cpu) = (now, cpu);
            if split.wall > d.longest.wall {
                d.longest = split;
            }
            if split.collector() > d.worst_collector.collector() {
                d.worst_collector = split;
            }
            if split.descheduled > d.worst_descheduled.descheduled {
                d.worst_descheduled = split;
            }
            d.slow.add(&split);
            d.slow_ops += 1;
        }
    }
    run.waits = waits_since(m.waits(), waits_before);
    run
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
    /// Mutator assists on or off (`HeapConfig::assists`; with pacing).
    pub assists: bool,
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
    failed: u64,
    /// The mutators' slow operations, broken down.
    delays: Delays,
    /// The scheduler baseline's row (no GC work), not a collector's.
    baseline: bool,
    /// Seconds of churn measured (from the start signal to the end
    /// signal).
    seconds: f64,
    /// The mutators' waits for the collector during the churn, summed.
    waits: gc::MutatorWaits,
    /// The process's CPU time during the churn (every thread's).
    process_cpu: Duration,
}

/// The scheduler baseline's churn: at most 2 s (without GC work the
/// mutators allocate ~5× faster than under a concurrent collector).
fn baseline_seconds(run: PauseRun) -> u64 {
    run.seconds.min(2)
}

/// The scheduler baseline's heap: the same live set, plus room for the
/// whole churn (512 MiB a second: 2 mutators on an idle 2-vCPU Emerald
/// Rapids guest made 5.0 M nodes a second, about 240 MiB), so that passive
/// mode never needs to collect. The heap's memory is touched only as it is
/// allocated.
fn baseline_heap_mib(run: PauseRun) -> usize {
    run.heap_mib / 2 + 512 * baseline_seconds(run) as usize + 64
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
    config.assists = v.assists;
    let heap = Heap::new(config).map_err(|e| {
        if baseline {
            anyhow::anyhow!(
                "the no-GC baseline's heap of {} MiB (half of --heap-mib {heap_mib} for the live set, and 512 MiB per second of churn so that it never collects): {e}",
                baseline_heap_mib(run)
            )
        } else {
            anyhow::anyhow!("the {heap_mib} MiB heap (--heap-mib): {e}")
        }
    })?;
    let live_bytes = (heap_mib << 20) / 2;
    let per_mutator = live_bytes / ((3 + NODE_REFS + NODE_DATA) * 8) / mutators;
    let start = Start::default();
    let (before, before_stats, stats, ops, failed, delays, churned, waits, cpu) = std::thread::scope(|s| {
        let handles: Vec<_> = (0..mutators)
            .map(|_| {
                let (heap, start) = (&heap, &start);
                s.spawn(move || pause_mutator::<B>(heap, per_mutator, start))
            })
            .collect();
        // Wait for every mutator's live set (or for a mutator's failure).
        while start.ready() < mutators && !handles.iter().any(|h| h.is_finished()) {
            std::thread::sleep(Duration::from_millis(1));
        }
        let before_stats = heap.stats();
        let before = before_stats.pauses.len();
        let cpu_before = process_cpu();
        let went = start.go();
        // The churn lasts `seconds`, and in concurrent mode past that
        // until a pause of the churn's own has happened (a row decomposes
        // pauses: on a loaded machine a short churn can see none), under
        // a cap that only a hung collector reaches.
        std::thread::sleep(Duration::from_secs(seconds));
        while !baseline
            && heap.stats().pauses.len() == before
            && went.elapsed() < CHURN_CAP
            && !handles.iter().any(|h| h.is_finished())
        {
            std::thread::sleep(Duration::from_millis(10));
        }
        start.end();
        let churned = went.elapsed().as_secs_f64();
        let cpu = process_cpu().saturating_sub(cpu_before);
        let results: Vec<_> = handles.into_iter().map(|h| h.join().expect("mutator")).collect();
        let ops: u64 = results.iter().map(|r| r.ops).sum();
        let failed: u64 = results.iter().map(|r| r.failed).sum();
        let mut delays = Delays::default();
        let mut waits = gc::MutatorWaits::default();
        for r in &results {
            delays.merge(&r.delays);
            waits = waits_sum(waits, r.waits);
        }
        (
            before,
            before_stats,
            heap.stats(),
            ops,
            failed,
            delays,
            churned,
            waits,
            cpu,
        )
    });
    let mut stats = stats;
    // Count only the churn: the build of the live set is not measured.
    stats.cycles -= before_stats.cycles;
    stats.paced_refills -= before_stats.paced_refills;
    stats.paced_time = stats.paced_time.saturating_sub(before_stats.paced_time);
    stats.assist_slices -= before_stats.assist_slices;
    stats.assist_time = stats.assist_time.saturating_sub(before_stats.assist_time);
    stats.assist_words -= before_stats.assist_words;
    stats.collector_cpu_time = stats
        .collector_cpu_time
        .saturating_sub(before_stats.collector_cpu_time);
    stats.evacuation_failures -= before_stats.evacuation_failures;
    stats.degenerated_cycles -= before_stats.degenerated_cycles;
    stats.full_compactions -= before_stats.full_compactions;
    stats.parallel_phases -= before_stats.parallel_phases;
    stats.worker_threads_started -= before_stats.worker_threads_started;
    stats.regions_freed -= before_stats.regions_freed;
    stats.free_regions_at_start -= before_stats.free_regions_at_start;
    stats.cset_regions -= before_stats.cset_regions;
    for (p, b) in phases_mut(&mut stats.phases)
        .into_iter()
        .zip(phases(&before_stats.phases))
    {
        p.wall = p.wall.saturating_sub(b.wall);
        p.cpu = p.cpu.saturating_sub(b.cpu);
        p.regions_taken -= b.regions_taken;
        p.ran_dry -= b.ran_dry;
    }
    Ok(Measured {
        pauses: stats.pauses[before..].to_vec(),
        stats,
        ops,
        failed,
        delays,
        baseline,
        seconds: churned,
        waits,
        process_cpu: cpu,
    })
}

/// The concurrent phases' names, in a cycle's order.
const PHASES: [&str; 4] = ["reset", "mark", "evacuation", "update-refs"];

/// The phases of [`PHASES`], in its order.
fn phases(p: &gc::CyclePhases) -> [gc::PhaseTime; 4] {
    [p.reset, p.mark, p.evacuation, p.update_refs]
}

fn phases_mut(p: &mut gc::CyclePhases) -> [&mut gc::PhaseTime; 4] {
    [&mut p.reset, &mut p.mark, &mut p.evacuation, &mut p.update_refs]
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

/// The CPUs this process may run on.
fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn stats_of(v: Vec<f64>) -> Stats {
    Stats::from_samples(if v.is_empty() { vec![f64::NAN] } else { v })
}

/// An operation's parts: collector / descheduled / on the CPU, in ms.
fn split(s: &Split) -> String {
    format!(
        "{:.2}/{:.2}/{:.2}",
        ms(s.collector()),
        ms(s.descheduled),
        ms(s.on_cpu())
    )
}

/// Which collector waits an operation's collector part holds: pause
/// (pauses, with the pauses' own work CPU in ms: "pause 2.1cpu"), pace
/// (pacing), mem (allocation stall), or - for none.
fn waited_for(s: &Split) -> String {
    let pause = format!("pause {:.1}cpu", ms(s.pause_cpu));
    let parts: Vec<&str> = [
        (pause.as_str(), s.safepoint),
        ("pace", s.paced),
        ("mem", s.stalled),
        ("assist", s.assist),
    ]
    .into_iter()
    .filter(|(_, d)| !d.is_zero())
    .map(|(n, _)| n)
    .collect();
    if parts.is_empty() {
        "-".into()
    } else {
        parts.join("+")
    }
}

/// Adds one configuration's rows to the three tables: the pauses' parts,
/// the mutators' side, where the time goes.
fn report(
    name: &str,
    run: PauseRun,
    v: Variant,
    m: &Measured,
    results: &mut Vec<BenchResult>,
    tables: &mut [Table; 3],
) {
    let [parts, mutators, breakdown] = tables;
    let baseline = m.baseline;
    let label = if baseline {
        [
            format!("{name}, no GC work (baseline)"),
            run.mutators.to_string(),
            "-".into(),
            "-".into(),
            "-".into(),
        ]
    } else {
        [
            name.to_string(),
            run.mutators.to_string(),
            wait_name(v.wait).into(),
            if v.pacing { "on" } else { "off" }.into(),
            if v.assists { "on" } else { "off" }.into(),
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
                    .param("assists", v.assists)
                    .threads(run.mutators as u32),
            );
        }
    }
    let worst_cpu = m.pauses.iter().map(|p| p.work_cpu_time).max().unwrap_or_default();
    let mut row = label.to_vec();
    row.extend([
        m.stats.cycles.to_string(),
        num(m.ops as f64 / m.seconds),
        format!("{:.3}", ms(worst_cpu)),
        format!("{:.2}", ms(m.delays.longest.wall)),
        split(&m.delays.longest),
        split(&m.delays.worst_collector),
        format!(
            "{} ({})",
            format_args!("{:.2}", ms(m.delays.worst_collector.collector())),
            waited_for(&m.delays.worst_collector)
        ),
        format!("{:.2}", ms(m.delays.worst_descheduled.descheduled)),
        format!("{:.1}", m.delays.slow_ops as f64 / m.seconds),
        format!(
            "{:.1}/{:.1}/{:.1}",
            ms(m.delays.slow.collector()) / m.seconds,
            ms(m.delays.slow.descheduled) / m.seconds,
            ms(m.delays.slow.on_cpu()) / m.seconds
        ),
        m.stats.paced_refills.to_string(),
        format!("{:.2}", ms(m.stats.longest_paced_wait)),
        // Where the mutators' time went, per second of churn: waiting for
        // the pacer (summed over mutators), stopped in pauses (wall), and
        // the collector threads' share of the machine's CPUs.
        format!("{:.1}", ms(m.stats.paced_time) / m.seconds),
        m.stats.assist_slices.to_string(),
        format!("{:.1}", ms(m.stats.assist_time) / m.seconds),
        format!(
            "{:.1}",
            // `+ 0.0`: an empty f64 sum is -0.0, printed "-0.0".
            (m.pauses.iter().map(|p| ms(p.duration)).sum::<f64>() + 0.0) / m.seconds
        ),
        format!(
            "{:.0}",
            100.0 * m.stats.collector_cpu_time.as_secs_f64() / (m.seconds * cpus() as f64)
        ),
        m.failed.to_string(),
        m.stats.evacuation_failures.to_string(),
        format!("{}/{}", m.stats.degenerated_cycles, m.stats.full_compactions),
        format!("{}/{}", m.stats.parallel_phases, m.stats.worker_threads_started),
    ]);
    mutators.row(row);
    let per_s = |d: Duration| ms(d) / m.seconds;
    let cycles = m.stats.cycles.max(1) as f64;
    let w = &m.waits;
    let ph = phases(&m.stats.phases);
    let mut row = label.to_vec();
    row.extend([
        format!(
            "{:.0}",
            100.0 * m.process_cpu.as_secs_f64() / (m.seconds * cpus() as f64)
        ),
        format!(
            "{:.0}",
            100.0 * m.stats.collector_cpu_time.as_secs_f64() / (m.seconds * cpus() as f64)
        ),
        format!(
            "{:.0}/{:.0}/{:.0}/{:.0}",
            per_s(w.safepoint),
            per_s(w.paced),
            per_s(w.stalled),
            per_s(w.resume)
        ),
        format!("{:.1}", m.stats.cycles as f64 / m.seconds),
        format!("{}/{}", m.stats.degenerated_cycles, m.stats.full_compactions),
        format!(
            "{:.1}/{:.1}/{:.1}",
            m.stats.free_regions_at_start as f64 / cycles,
            m.stats.cset_regions as f64 / cycles,
            m.stats.regions_freed as f64 / cycles
        ),
        ph.iter()
            .map(|p| format!("{:.0}", per_s(p.wall)))
            .collect::<Vec<_>>()
            .join("/"),
        ph.iter()
            .map(|p| format!("{:.0}", per_s(p.cpu)))
            .collect::<Vec<_>>()
            .join("/"),
        ph.iter()
            .map(|p| format!("{:.1}", p.regions_taken as f64 / cycles))
            .collect::<Vec<_>>()
            .join("/"),
        ph.iter()
            .map(|p| p.ran_dry.to_string())
            .collect::<Vec<_>>()
            .join("/"),
    ]);
    breakdown.row(row);
}

/// The start line of table 3: mutators build their live sets, arrive, and
/// wait (in a safe region, so cycles go on) for the measured churn to start.
#[derive(Default)]
struct Start {
    ready: std::sync::atomic::AtomicUsize,
    go: std::sync::Mutex<Option<Instant>>,
    cv: std::sync::Condvar,
    /// Set when the churn is over.
    over: std::sync::atomic::AtomicBool,
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
    /// Starts the churn; returns when.
    fn go(&self) -> Instant {
        let now = Instant::now();
        *self.go.lock().unwrap_or_else(|e| e.into_inner()) = Some(now);
        self.cv.notify_all();
        now
    }
    /// Ends the churn: each mutator stops after its current operation.
    fn end(&self) {
        // Relaxed: a stop flag with no data behind it; the results are
        // handed over by the threads' join.
        self.over.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    fn over(&self) -> bool {
        // Relaxed: see `end`.
        self.over.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// The longest a concurrent row's churn runs while waiting for its first
/// pause: reached only by a collector that no longer runs.
const CHURN_CAP: Duration = Duration::from_secs(300);

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
    let keys = ["set", "mutators", "wait", "pacing", "assists"];
    let parts = Table::new(
        format!("Concurrent mode: pauses decomposed as -Xlog:safepoint does (ms), {mutators} mutators, {heap_mib} MiB heap, half live"),
        &[&keys[..], &["part", "pauses", "p50", "p99", "max"]].concat(),
    );
    let side = Table::new(
        format!("Concurrent mode: the mutators' side, {mutators} mutators, {heap_mib} MiB heap"),
        &[
            &keys[..],
            &[
                "cycles",
                "ops/s",
                "max at-safepoint CPU (ms)",
                "longest op (ms)",
                "longest op: GC/desched/CPU (ms)",
                "op with most GC: GC/desched/CPU (ms)",
                "most GC in an op (ms, what)",
                "most desched in an op (ms)",
                "ops > 1 ms per s",
                "ops > 1 ms: GC/desched/CPU (ms/s)",
                "paced refills",
                "longest paced wait (ms)",
                "paced (ms/s)",
                "assists",
                "assisting (ms/s)",
                "paused (ms/s)",
                "GC CPU (%)",
                "alloc failures",
                "evac failures",
                "degen/full",
                "parallel phases/threads started",
            ],
        ]
        .concat(),
    );
    let breakdown = Table::new(
        format!("Concurrent mode: where the time goes, {mutators} mutators, {heap_mib} MiB heap"),
        &[
            &keys[..],
            &[
                "process CPU (%)",
                "GC CPU (%)",
                "mutator waits (ms/s): pause/paced/stalled/resume",
                "cycles/s",
                "degen/full",
                "per cycle: free at start/cset/freed (regions)",
                &format!("phases wall (ms/s): {}", PHASES.join("/")),
                "phases collector-thread CPU (ms/s)",
                "regions taken per cycle, by phase",
                "cycles a mutator ran dry in, by phase",
            ],
        ]
        .concat(),
    );
    let mut tables = [parts, side, breakdown];
    let row_count =
        plan.sets.len() * plan.variants.len() + usize::from(plan.baseline && !plan.sets.is_empty());
    let bar = crate::harness::progress(row_count as u64, "gc pauses");
    for set in &plan.sets {
        // The first set's rows open with the scheduler baseline.
        let baseline = (plan.baseline && set == &plan.sets[0]).then_some(true);
        for (v, baseline) in baseline
            .map(|b| (plan.variants[0], b))
            .into_iter()
            .chain(plan.variants.iter().map(|&v| (v, false)))
        {
            bar.set_message(set.clone());
            let bits: BarrierBits = set.parse()?;
            gc::check_barriers_for_mode(bits, GcMode::Concurrent)?;
            // The heaps' reference width is the process's (`FASTPATH_GC_REFS`).
            let refs = HeapConfig::new(16 << 20, bits, GcMode::Concurrent).refs;
            let m = with_barrier_set_for(bits, refs, Measure { run, v, baseline })?;
            report(set, run, v, &m, results, &mut tables);
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    let [mut parts, mut side, mut breakdown] = tables;
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
        parts.note(crate::report::timing_verdict(
            false,
            &format!(
                "at safepoint (HotSpot's pause) p99 < 1 ms and max < 5 ms: {}",
                misses.join("; ")
            ),
        ));
    }
    parts.note(format!(
        "{seconds} s of churn per row after building the live set (a concurrent row runs on until its first pause; rates are per second of the churn it ran); {cpus} CPUs here, shared with the collector thread (and anything else running)."
    ));
    parts.note("reaching: request until the last mutator stopped (HotSpot's \"Reaching safepoint\", TTSP); at safepoint: the pause's work (HotSpot's \"At safepoint\", what a GC log's \"Pause Init Mark\" reports);");
    parts.note("leaving: from the work's end to the release (HotSpot's \"Leaving safepoint\"); total: request to release (HotSpot's \"Total\"); resume: after the release, the longest any stopped mutator took to run again (not in HotSpot's log).");
    parts.note("wait: how stopped mutators wait for the release (futex: one broadcast; spin: 50 us, then futex; condvar: each re-takes the safepoint mutex).");
    side.note("pacing: a TLAB refill over the cycle's budget waits for the collector in proportion to the debt, 1 ms at most per refill (Shenandoah's pacer); longest op: the slowest mutator operation, allocation stalls included;");
    side.note("each op over 1 ms is split: GC: the mutator's waits for the collector during it (Mutator::waits: stopped in a pause, held by the pacer, stalled for memory; exact); desched: off its CPU outside those waits (thread CPU clock vs wall, read at most 0.1 ms before the op: the scheduler's doing, not the collector's; it includes the wake-up after a pause's release or the pacer's deadline, Mutator::waits' resume); CPU: the rest (on the CPU). A pause's own length includes the collector thread's descheduling: \"pause Ncpu\" in the most-GC column is the pauses' own work (Mutator::waits' pause_cpu), the rest of their hold the collector off its CPU or other mutators reaching the safepoint.");
    if plan.baseline {
        side.note(format!("no GC work (baseline): the same mutators and live set in passive mode, {} s of churn on a {} MiB heap that never fills (cycles 0: no pause, no pacing); its longest op and ops > 1 ms per s are what the scheduler alone does to {mutators} mutators on {cpus} CPUs.", baseline_seconds(run), baseline_heap_mib(run)));
    }
    side.note("assists: a refill over the pacer's budget (or one that finds no memory during a cycle) first does a slice of the running phase's work itself (marking, evacuation or update-refs; HeapConfig::assists, after Go's GC assists) and waits in the pacer only when the phase has too little work to hand out; an op's GC part includes its assists (\"assist\" in the most-GC column).");
    side.note(format!("where the time goes, per second of churn: paced: the mutators' summed waits for the pacer; assisting: the mutators' summed assist slices (their count in assists); paused: the pauses' total (request to release), which stops every mutator; GC CPU: the collector threads' CPU time (its thread, and the worker threads of its parallel phases: FASTPATH_GC_WORKERS, default half the CPUs) as a share of the {cpus} CPUs."));
    side.note("alloc failures: allocations that got OutOfMemory (skipped; only when a full compaction left no room); evac failures: cycles whose evacuation ran out of space (objects left in place); degen/full: cycles finished stop-the-world because a mutator found no memory (Shenandoah's degenerated GC) / full compactions; parallel phases/threads started: phases run on more than one worker thread, and worker threads started for them (the pool's threads are started once and parked between phases: a thread per phase would be one per phase and worker).");
    breakdown.note(format!("process CPU: every thread of this process (mutators, collector, workers) as a share of the {cpus} CPUs, during the churn: below 100, CPUs stood idle (or ran something else); GC CPU: the collector's threads alone."));
    breakdown.note("mutator waits: Mutator::waits over the churn, summed over the mutators, per second: stopped in pauses / held by the pacer / stalled for memory (a refill that found none, waiting for a cycle or a degenerated one) / the scheduler's wake-up after a pause or a pacer wait.");
    breakdown.note("per cycle: free regions when the cycle started (the trigger's choice), collection-set regions, regions freed (the set and immediate garbage); phases: the collector thread's concurrent phases (between the pauses), wall and its own CPU time per second of churn, and the regions the mutators took for new objects during each, per cycle (GcStats::phases).");
    Ok(vec![parts, side, breakdown])
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
                    assists: true,
                },
                Variant {
                    wait: SafepointWait::Condvar,
                    pacing: false,
                    assists: false,
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
