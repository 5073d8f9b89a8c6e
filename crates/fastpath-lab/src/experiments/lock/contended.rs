//! The contended table: fastpath against the locks a Rust user would
//! otherwise pick, at every thread count, in one process.
//!
//! Where it sits: `fastpath lock` calls [`run`] after the seed-001 suite.
//! Each cell is one workload on one lock: `threads` threads each take the
//! lock, bump a counter and do the critical section's work, release, then
//! do the work outside. Short: ~5 ns in, ~25 ns out. Long: ~1 µs in, ~25 ns
//! out. The locks (fastpath's `Synchronized<u64>`, `parking_lot::Mutex`,
//! `parking_lot::ReentrantMutex`, `std::sync::Mutex`) run round-robin,
//! one timed run each per round, the order rotated every round so that
//! none always runs first after a thread-count change.
//!
//! Beside throughput each run records what explains it:
//! - fairness: least / most operations completed by one thread;
//! - hand-overs per operation: how often the thread entering the critical
//!   section is not the one that left it last (1.0 = strict alternation,
//!   near 0 = one thread keeps re-taking the lock); the table shows them
//!   per 1000 operations (1000 = strict alternation), the JSON per one;
//! - voluntary and involuntary context switches of the measuring threads
//!   (getrusage `RUSAGE_THREAD`), per 1000 operations: voluntary ones are
//!   parks (futex waits), involuntary ones preemptions;
//! - lost updates: operations counted by the threads minus the protected
//!   counter's final value. Anything but 0 is a broken lock;
//! - fastpath's rows only: monitors installed and deflated during the run,
//!   the share of the run the lock was inflated (sampled by the timing
//!   thread, at most 40 looks a run, for every lock alike), and what the
//!   fast-lock spins before inflation did (`sync::fast_lock_spin`).
//!
//! `FASTPATH_LAB_DEFLATE_AFTER_CONTENTION_MS=N` runs the table with the
//! opt-in deflate-after-contention trigger at an N ms interval, and
//! `FASTPATH_LAB_DEFLATE_ON_EXIT=0` with deflation on exit off (HotSpot's
//! behaviour: a contention monitor stays until a pass); experiments, which
//! the table names in a note. The fast-lock spin's yields
//! are the library's setting (`FASTPATH_FAST_LOCKING_YIELDS`, 0: HotSpot's
//! behaviour); the table notes a value other than the default.
//!
//! `--prof perfnorm` counts none of these rows, and says why in its table:
//! above one thread the profiler refuses them; at one thread the row is a
//! worker timed for a fixed time, whose fast path the pairs table counts.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use fastpath::sync::fast_lock_spin::{self, fast_lock_spin_stats, FastLockSpinStats};
use fastpath::sync::{LockState, Synchronized};

use crate::harness::black_box;
use crate::harness::perfnorm::{ProfileTable, Profiler};
use crate::report::table::{num, ratio, score};
use crate::report::{BenchResult, Metric, Mode, Table};
use crate::stats::Stats;

use super::profile;
use super::NAME;

/// A lock protecting a `u64` counter, as the user sees it.
trait CountedLock: Send + Sync {
    /// Takes the lock, bumps the counter, runs `inside`, releases.
    fn bump(&self, inside: impl FnOnce());
    /// The counter (no thread holds the lock any more).
    fn count(&self) -> u64;
    /// Whether the lock is inflated now (`None`: a lock without the notion).
    fn inflated(&self) -> Option<bool> {
        None
    }
}

impl CountedLock for std::pin::Pin<Box<Synchronized<u64>>> {
    #[inline]
    fn bump(&self, inside: impl FnOnce()) {
        // `lock` fails only when this thread already holds it; it never does.
        if let Ok(mut g) = self.as_ref().lock() {
            *g += 1;
            inside();
        }
    }
    fn count(&self) -> u64 {
        self.as_ref().lock().map_or(0, |g| *g)
    }
    fn inflated(&self) -> Option<bool> {
        Some(self.header().lock_state() == LockState::Inflated)
    }
}

impl CountedLock for parking_lot::Mutex<u64> {
    #[inline]
    fn bump(&self, inside: impl FnOnce()) {
        let mut g = self.lock();
        *g += 1;
        inside();
    }
    fn count(&self) -> u64 {
        *self.lock()
    }
}

impl CountedLock for parking_lot::ReentrantMutex<Cell<u64>> {
    #[inline]
    fn bump(&self, inside: impl FnOnce()) {
        let g = self.lock();
        g.set(g.get() + 1);
        inside();
    }
    fn count(&self) -> u64 {
        self.lock().get()
    }
}

impl CountedLock for std::sync::Mutex<u64> {
    #[inline]
    fn bump(&self, inside: impl FnOnce()) {
        // A poisoned lock still counts: poisoning marks a panic, not a race.
        let mut g = self.lock().unwrap_or_else(|e| e.into_inner());
        *g += 1;
        inside();
    }
    fn count(&self) -> u64 {
        *self.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The locks, in table order; the first is fastpath's, then its peers, then
/// a diagnostic row run at one thread only: fastpath on an object inflated
/// beforehand, the state an object of the contended rows is in once a
/// contention outlasted the fast-lock spin (HotSpot's deflation triggers
/// do not fire within a run: the `inflated` column shows how much of each
/// run that was), without contention.
pub const LOCKS: [&str; 5] = [
    "fastpath",
    "parking_lot::Mutex",
    "parking_lot::ReentrantMutex",
    "std::sync::Mutex",
    "fastpath, inflated",
];
/// [`LOCKS`] as the table's lock column names them (the JSON's `lock`
/// param keeps the full names), short enough for the table to fit 120
/// columns; a note under the table maps them back.
const SHORT_LOCKS: [&str; 5] = [
    "fastpath",
    "pl Mutex",
    "pl Reentrant",
    "std Mutex",
    "fastpath infl.",
];
/// The peers' indices in [`LOCKS`].
const PEERS: std::ops::Range<usize> = 1..4;
/// The index in [`LOCKS`] of the row `compare` judges the others'
/// changes against (their `ratio_to_…` metric): parking_lot's mutex, a
/// peer measured in the same rounds.
const YARDSTICK: usize = 1;
/// The diagnostic row's index.
const INFLATED: usize = 4;
/// The workload-name suffix per lock, so `compare --by-workload` pairs
/// fastpath with HotSpot's `synchronized` and the reentrant peers with
/// `ReentrantLock` (`LockContendedBench` names its methods the same).
const SUFFIX: [&str; 5] = ["", "-parking-lot", "-reentrant", "-std", "-inflated"];

/// A critical-section shape.
#[derive(Clone, Copy)]
struct Section {
    name: &'static str,
    inside_ns: f64,
    outside_ns: f64,
}

const SECTIONS: [Section; 2] = [
    Section {
        name: "short-cs",
        inside_ns: 5.0,
        outside_ns: 25.0,
    },
    Section {
        name: "long-cs",
        inside_ns: 1000.0,
        outside_ns: 25.0,
    },
];

/// A spin of `units` dependent steps: the work inside and outside the lock
/// (and the workload suite's stand-in for `Blackhole.consumeCPU`; the
/// `path_length` example's chains).
#[inline(never)]
pub fn work(units: u32) {
    let mut x = black_box(1u64);
    for _ in 0..units {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
    }
    black_box(x);
}

/// Nanoseconds per unit of [`work`] on this machine: the best of five
/// timed runs of 2^20 units.
pub fn ns_per_unit() -> f64 {
    let units = 1u32 << 20;
    let best = (0..5)
        .map(|_| {
            let t = Instant::now();
            work(units);
            t.elapsed().as_nanos() as f64
        })
        .fold(f64::INFINITY, f64::min);
    (best / f64::from(units)).max(0.01)
}

/// The current thread's (voluntary, involuntary) context switches; (0, 0)
/// if the kernel refuses (the columns then read 0, never garbage).
fn context_switches() -> (u64, u64) {
    // SAFETY: `rusage` is a C struct of integers and `timeval`s (integers):
    // all-zero is a valid value of it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable `rusage` that outlives the call;
    // RUSAGE_THREAD is defined on Linux, the only target of this lab.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    if rc != 0 {
        return (0, 0);
    }
    (ru.ru_nvcsw as u64, ru.ru_nivcsw as u64)
}

/// What one timed run of one lock measured.
#[derive(Clone, Copy, Debug, Default)]
struct Run {
    mops: f64,
    min_ops: u64,
    max_ops: u64,
    ops: u64,
    handovers: u64,
    voluntary: u64,
    involuntary: u64,
    /// The workers' own CPU time in their loops, ns, all threads.
    worker_cpu_ns: u64,
    /// The run's wall-clock length, s.
    wall: f64,
    lost: u64,
    /// Monitors installed and deflated (process-wide counters, taken
    /// around this run only: the other rows run before and after it).
    inflations: u64,
    deflations: u64,
    /// Fair hand-offs made by exiting owners (process-wide, this run).
    fair_hand_offs: u64,
    /// The fast-lock spins' outcomes during the run.
    spins: FastLockSpinStats,
    /// Samples of the lock's state during the run: (inflated, taken);
    /// (0, 0) for a lock without the notion.
    inflated_samples: (u32, u32),
}

/// One worker's loop until `stop`: (operations, hand-overs). A function
/// of its own per lock, out of line, so that Callgrind counts one lock's
/// loop alone (`examples/contended_loop.rs`).
#[inline(never)]
fn worker<L: CountedLock>(
    lock: &L,
    me: usize,
    last: &AtomicUsize,
    stop: &AtomicBool,
    inside: u32,
    outside: u32,
) -> (u64, u64) {
    let (mut ops, mut handovers) = (0u64, 0u64);
    // At least one operation per thread, even one descheduled for the
    // whole run: a row never reads 0 ops for a lock that works.
    loop {
        lock.bump(|| {
            // Relaxed: `last` is written only inside the lock, whose
            // acquire/release orders it.
            if last.load(Ordering::Relaxed) != me {
                last.store(me, Ordering::Relaxed);
                handovers += 1;
            }
            work(inside);
        });
        ops += 1;
        work(outside);
        // Relaxed: a stop flag that publishes nothing; the counts come
        // back through `join`.
        if stop.load(Ordering::Relaxed) {
            return (ops, handovers);
        }
    }
}

/// One timed run: `threads` threads on a fresh `lock` for `time`.
fn run_one<L: CountedLock + 'static>(
    lock: L,
    threads: usize,
    inside: u32,
    outside: u32,
    time: Duration,
) -> Run {
    let lock = Arc::new(lock);
    // Which thread last held the lock; written only inside it, so Relaxed
    // suffices (the lock's acquire/release orders it).
    let last = Arc::new(AtomicUsize::new(usize::MAX));
    let stop = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(threads + 1));
    let workers: Vec<_> = (0..threads)
        .map(|i| {
            let (lock, last, stop, start) = (lock.clone(), last.clone(), stop.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                let (cs0, cpu0) = (
                    context_switches(),
                    crate::harness::thread_cpu_time().as_nanos() as u64,
                );
                let (ops, handovers) = worker(&*lock, i, &last, &stop, inside, outside);
                let (cs1, cpu1) = (
                    context_switches(),
                    crate::harness::thread_cpu_time().as_nanos() as u64,
                );
                (
                    ops,
                    handovers,
                    cs1.0 - cs0.0,
                    cs1.1 - cs0.1,
                    cpu1.saturating_sub(cpu0),
                )
            })
        })
        .collect();
    let (sync0, spins0) = (fastpath::sync::stats(), fast_lock_spin_stats());
    start.wait();
    let t = Instant::now();
    // Sleep in slices and look at the lock's state after each (at most
    // 40 wake-ups a run, whatever the lock, so every row pays the same).
    let slice = (time / 40).max(Duration::from_millis(1));
    let mut inflated_samples = (0u32, 0u32);
    while t.elapsed() < time {
        std::thread::sleep(slice.min(time.saturating_sub(t.elapsed())));
        if let Some(inflated) = lock.inflated() {
            inflated_samples.0 += u32::from(inflated);
            inflated_samples.1 += 1;
        }
    }
    // Relaxed: see the workers' load.
    stop.store(true, Ordering::Relaxed);
    let per: Vec<(u64, u64, u64, u64, u64)> = workers
        .into_iter()
        .map(|w| w.join().unwrap_or_default())
        .collect();
    let wall = t.elapsed().as_secs_f64();
    let sync = fastpath::sync::stats().since(&sync0);
    let ops: u64 = per.iter().map(|p| p.0).sum();
    Run {
        mops: ops as f64 / wall / 1e6,
        min_ops: per.iter().map(|p| p.0).min().unwrap_or(0),
        max_ops: per.iter().map(|p| p.0).max().unwrap_or(0),
        ops,
        // The first entry of each thread is not a hand-over it caused, but
        // counting it is harmless: threads ≪ operations.
        handovers: per.iter().map(|p| p.1).sum(),
        voluntary: per.iter().map(|p| p.2).sum(),
        involuntary: per.iter().map(|p| p.3).sum(),
        worker_cpu_ns: per.iter().map(|p| p.4).sum(),
        wall,
        lost: ops.abs_diff(lock.count()),
        inflations: sync.monitors_installed(),
        deflations: sync.monitors_deflated,
        fair_hand_offs: sync.fair_hand_offs,
        spins: fast_lock_spin_stats().since(&spins0),
        inflated_samples,
    }
}

fn run_lock(which: usize, threads: usize, inside: u32, outside: u32, time: Duration) -> Run {
    match which {
        0 => run_one(Box::pin(Synchronized::new(0u64)), threads, inside, outside, time),
        INFLATED => {
            let s = Box::pin(Synchronized::new(0u64));
            // A timed wait inflates it, as LockUnlock.setup does.
            if let Ok(mut g) = s.as_ref().lock() {
                let _ = g.wait(Some(Duration::from_millis(1)));
            }
            run_one(s, threads, inside, outside, time)
        }
        1 => run_one(parking_lot::Mutex::new(0u64), threads, inside, outside, time),
        2 => run_one(
            parking_lot::ReentrantMutex::new(Cell::new(0u64)),
            threads,
            inside,
            outside,
            time,
        ),
        _ => run_one(std::sync::Mutex::new(0u64), threads, inside, outside, time),
    }
}

/// One timed run of the short or long section's loop (`inside`, `outside`:
/// units of [`work`]) on [`LOCKS`]`[which]` by `threads` threads: the
/// operations done and the lost updates. For `examples/contended_loop.rs`,
/// which counts one lock's loop per operation under Callgrind.
pub fn ops_of_one_run(which: usize, threads: usize, inside: u32, outside: u32, time: Duration) -> (u64, u64) {
    let r = one_run(which, threads, inside, outside, time);
    (r.ops, r.lost)
}

/// What [`one_run`] measured, for `examples/contended_loop.rs`.
#[derive(Clone, Copy, Debug)]
pub struct OneRun {
    /// Operations done, all threads.
    pub ops: u64,
    /// Lost updates (must be 0).
    pub lost: u64,
    /// Least and most operations one thread did (fairness: their ratio).
    pub min_ops: u64,
    /// See `min_ops`.
    pub max_ops: u64,
    /// Entries by a thread other than the last holder.
    pub handovers: u64,
    /// Voluntary (parks) and involuntary (preemptions) context switches of
    /// the workers.
    pub voluntary: u64,
    /// See `voluntary`.
    pub involuntary: u64,
    /// The workers' own CPU time in their loops, ns, all threads.
    pub worker_cpu_ns: u64,
    /// The run's wall-clock length, s (the table's Mops/s is `ops / wall`).
    pub wall: f64,
    /// fastpath only: monitors installed, fair hand-offs, fast-lock spins
    /// that won and that gave up during the run; the share of the run's
    /// samples that found the lock inflated (0 for the peers).
    pub inflations: u64,
    /// See `inflations`.
    pub fair_hand_offs: u64,
    /// See `inflations`.
    pub spins_won: u64,
    /// See `inflations`.
    pub spins_gave_up: u64,
    /// See `inflations`.
    pub inflated_share: f64,
}

/// One timed run of [`LOCKS`]`[which]`, as [`ops_of_one_run`], with the
/// table's other columns.
pub fn one_run(which: usize, threads: usize, inside: u32, outside: u32, time: Duration) -> OneRun {
    let r = run_lock(which.min(LOCKS.len() - 1), threads, inside, outside, time);
    OneRun {
        ops: r.ops,
        lost: r.lost,
        min_ops: r.min_ops,
        max_ops: r.max_ops,
        handovers: r.handovers,
        voluntary: r.voluntary,
        involuntary: r.involuntary,
        worker_cpu_ns: r.worker_cpu_ns,
        wall: r.wall,
        inflations: r.inflations,
        fair_hand_offs: r.fair_hand_offs,
        spins_won: r.spins.acquired,
        spins_gave_up: r.spins.gave_up,
        inflated_share: f64::from(r.inflated_samples.0) / f64::from(r.inflated_samples.1.max(1)),
    }
}

/// A fastpath row's monitor life over its runs (means per run), `None` for
/// the peers, which have no monitors.
struct Lifecycle(Option<LifecycleMeans>);

#[derive(Clone, Copy)]
struct LifecycleMeans {
    inflations: f64,
    deflations: f64,
    fair_hand_offs: f64,
    /// Share of the in-run samples that found the lock inflated.
    inflated_share: f64,
    spins_won: f64,
    spins_gave_up: f64,
}

impl Lifecycle {
    fn of(rs: &[Run]) -> Lifecycle {
        let (inflated, taken) = rs.iter().fold((0u64, 0u64), |(i, t), r| {
            (
                i + u64::from(r.inflated_samples.0),
                t + u64::from(r.inflated_samples.1),
            )
        });
        if taken == 0 {
            return Lifecycle(None);
        }
        let mean = |f: fn(&Run) -> u64| rs.iter().map(f).sum::<u64>() as f64 / rs.len().max(1) as f64;
        Lifecycle(Some(LifecycleMeans {
            inflations: mean(|r| r.inflations),
            deflations: mean(|r| r.deflations),
            fair_hand_offs: mean(|r| r.fair_hand_offs),
            inflated_share: inflated as f64 / taken as f64,
            spins_won: mean(|r| r.spins.acquired),
            spins_gave_up: mean(|r| r.spins.gave_up),
        }))
    }

    fn cell(&self, f: impl FnOnce(&LifecycleMeans) -> String) -> String {
        self.0.as_ref().map_or_else(|| "–".to_string(), f)
    }
}

/// The thread counts: 1, 2, 4, … up to 2× the CPUs, plus any asked for.
pub fn thread_counts(cpus: usize, extra: &[usize]) -> Vec<usize> {
    let mut v: Vec<usize> = std::iter::successors(Some(1usize), |t| Some(t * 2))
        .take_while(|&t| t <= 2 * cpus.max(1))
        .collect();
    v.extend(extra.iter().copied().filter(|&t| t > 0));
    v.sort_unstable();
    v.dedup();
    v
}

/// Three significant digits, whatever the magnitude (hand-overs per
/// operation range from 1e-5 to 1).
fn sig3(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return num(v);
    }
    let decimals = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    format!("{v:.decimals$}")
}

/// How long and how often.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Rounds (each lock runs once per round).
    pub rounds: usize,
    /// Length of one timed run.
    pub run_time: Duration,
}

impl Plan {
    /// `fastpath all` / `--quick`: about half a second per thread count;
    /// 15 short runs per lock rather than 3 long ones, for an interval of
    /// the median (which needs 11) that a preempted run does not widen.
    pub const QUICK: Plan = Plan {
        rounds: 15,
        run_time: Duration::from_millis(4),
    };
    /// The default: 200 ms runs (the fairness bound is over 200 ms).
    pub const FULL: Plan = Plan {
        rounds: 5,
        run_time: Duration::from_millis(200),
    };
}

/// The environment variable that turns on fastpath's deflate-after-
/// contention trigger for this table, with its interval in ms (an
/// experiment: the default is HotSpot's triggers only).
pub const DEFLATE_AFTER_CONTENTION_VAR: &str = "FASTPATH_LAB_DEFLATE_AFTER_CONTENTION_MS";

/// The environment variable that turns deflation on exit off for this
/// table (`0`; an experiment: the library's default is on).
pub const DEFLATE_ON_EXIT_VAR: &str = "FASTPATH_LAB_DEFLATE_ON_EXIT";

/// The settings an experiment changed, put back when the table is done.
#[derive(Default)]
struct Restore {
    policy: Option<fastpath::sync::DeflationPolicy>,
    on_exit: Option<bool>,
}

impl Drop for Restore {
    fn drop(&mut self) {
        if let Some(policy) = self.policy {
            fastpath::sync::set_deflate_after_contention(false);
            fastpath::sync::set_deflation_policy(policy);
        }
        if let Some(on) = self.on_exit {
            fastpath::sync::set_deflate_on_exit(on);
        }
    }
}

/// A whole number above 0 from `var`, or the table's note saying why not.
fn positive(var: &str) -> Option<Result<u32, String>> {
    let v = std::env::var(var).ok()?;
    Some(match v.trim().parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{var}={v:?} ignored: not a whole number above 0")),
    })
}

/// Applies [`DEFLATE_AFTER_CONTENTION_VAR`] if set, and notes a fast-lock
/// yield count other than the default; returns the table's notes and what
/// to restore.
fn experiments() -> (Vec<String>, Restore) {
    let (mut notes, mut restore) = (Vec::new(), Restore::default());
    match positive(DEFLATE_AFTER_CONTENTION_VAR) {
        Some(Ok(ms)) => {
            let before = fastpath::sync::deflation_policy();
            fastpath::sync::set_deflation_policy(fastpath::sync::DeflationPolicy {
                interval: Duration::from_millis(u64::from(ms)),
                ..before
            });
            fastpath::sync::set_deflate_after_contention(true);
            restore.policy = Some(before);
            notes.push(format!("{DEFLATE_AFTER_CONTENTION_VAR}={ms}: a deflation pass every {ms} ms after any contention inflation (not the default)"));
        }
        Some(Err(note)) => notes.push(note),
        None => {}
    }
    match std::env::var(DEFLATE_ON_EXIT_VAR).ok().as_deref().map(str::trim) {
        Some("0") => {
            restore.on_exit = Some(fastpath::sync::deflates_on_exit());
            fastpath::sync::set_deflate_on_exit(false);
            notes.push(format!("{DEFLATE_ON_EXIT_VAR}=0: contention monitors stay until a deflation pass (HotSpot's behaviour; not the default)"));
        }
        Some("1") | None => {}
        Some(v) => notes.push(format!("{DEFLATE_ON_EXIT_VAR}={v:?} ignored: 0 or 1")),
    }
    let yields = fast_lock_spin::fast_locking_yields();
    if yields != fast_lock_spin::DEFAULT_FAST_LOCKING_YIELDS {
        notes.push(format!("FASTPATH_FAST_LOCKING_YIELDS={yields}: the fast-lock spin yields up to {yields} times after its pauses (default {}; 0: HotSpot's behaviour)", fast_lock_spin::DEFAULT_FAST_LOCKING_YIELDS));
    }
    (notes, restore)
}

/// Runs the table. Returns it (with `prof`, the counter table after it),
/// its JMH rows, and the largest number of lost updates seen (which must
/// be 0).
pub fn run(threads: &[usize], plan: Plan, prof: Option<&Profiler>) -> (Vec<Table>, Vec<BenchResult>, u64) {
    let unit = ns_per_unit();
    let units = |ns: f64| (ns / unit).round().max(1.0) as u32;
    let (experiment_notes, _restore) = experiments();
    let mut t = Table::new(
        "Contended lock, total Mops/s (higher is better), median ± error (the larger side of its 99.9% interval); × best of the peers in this run",
        &[
            "cs",
            "thr",
            "lock",
            "Mops/s",
            "× best peer",
            "min /max",
            "hand-overs /1k",
            "vol cs/1k",
            "invol cs/1k",
            "lost",
            "infl /run",
            "defl /run",
            "fair h-o /run",
            "infl. share",
            "spin won:gave up",
        ],
    );
    let mut results = Vec::new();
    let mut worst_lost = 0;
    let mut round_robin = 0usize;
    let mut counters = ProfileTable::new("contended table");
    let kinds_of = |n: usize| if n == 1 { LOCKS.len() } else { INFLATED };
    let all_runs: usize = threads.iter().map(|&n| kinds_of(n)).sum::<usize>() * SECTIONS.len() * plan.rounds;
    let bar = crate::harness::progress(all_runs as u64, "lock contended");
    for sec in SECTIONS {
        for &n in threads {
            let kinds = kinds_of(n);
            let mut runs: Vec<Vec<Run>> = vec![Vec::new(); kinds];
            bar.set_message(format!("{n} threads"));
            for _ in 0..plan.rounds {
                for k in 0..kinds {
                    bar.inc(1);
                    let which = (k + round_robin) % kinds;
                    runs[which].push(run_lock(
                        which,
                        n,
                        units(sec.inside_ns),
                        units(sec.outside_ns),
                        plan.run_time,
                    ));
                }
                round_robin += 1;
            }
            let stats: Vec<Stats> = runs
                .iter()
                .map(|r| Stats::from_samples(r.iter().map(|x| x.mops).collect()))
                .collect();
            let best_peer = stats[PEERS].iter().map(|s| s.median).fold(0.0, f64::max);
            for (k, rs) in runs.iter().enumerate() {
                let st = &stats[k];
                let ops: u64 = rs.iter().map(|r| r.ops).sum::<u64>().max(1);
                let per_k = |f: fn(&Run) -> u64| rs.iter().map(f).sum::<u64>() as f64 * 1000.0 / ops as f64;
                let fairness = median_run(
                    rs.iter()
                        .map(|r| r.min_ops as f64 / r.max_ops.max(1) as f64)
                        .collect(),
                );
                let handovers = rs.iter().map(|r| r.handovers).sum::<u64>() as f64 / ops as f64;
                let cpu_per_op = median_run(
                    rs.iter()
                        .map(|r| r.worker_cpu_ns as f64 / r.ops.max(1) as f64)
                        .collect(),
                );
                let lost = rs.iter().map(|r| r.lost).max().unwrap_or(0);
                worst_lost = worst_lost.max(lost);
                let life = Lifecycle::of(rs);
                t.row(vec![
                    sec.name.to_string(),
                    n.to_string(),
                    SHORT_LOCKS[k].to_string(),
                    score(st.median, st.median_error()),
                    ratio(st.median, best_peer),
                    format!("{fairness:.3}"),
                    sig3(handovers * 1000.0),
                    num(per_k(|r| r.voluntary)),
                    num(per_k(|r| r.involuntary)),
                    lost.to_string(),
                    life.cell(|l| sig3(l.inflations)),
                    life.cell(|l| sig3(l.deflations)),
                    life.cell(|l| sig3(l.fair_hand_offs)),
                    life.cell(|l| format!("{:.0} %", l.inflated_share * 100.0)),
                    life.cell(|l| format!("{}:{}", sig3(l.spins_won), sig3(l.spins_gave_up))),
                ]);
                let row = format!("{}{}", sec.name, SUFFIX[k]);
                let mut r = BenchResult::new(NAME, &row, Mode::Throughput, st, "ops/us")
                    .param("lock", LOCKS[k])
                    .threads(n as u32)
                    .secondary("ratio_to_best_peer", Metric::single(st.median / best_peer, "x"))
                    // The yardstick `compare` judges the row against: the
                    // parking_lot::Mutex row of the same section and thread
                    // count, sampled in the same rounds.
                    .secondary(
                        &format!("ratio_to_{}{}", sec.name, SUFFIX[YARDSTICK]),
                        Metric::single(st.median / stats[YARDSTICK].median, "x"),
                    )
                    .secondary("fairness_min_over_max", Metric::single(fairness, "ratio"))
                    .secondary("handovers_per_op", Metric::single(handovers, "ratio"))
                    // The workers' own CPU time per operation (median run):
                    // what a loaded machine's time-sharing does not
                    // stretch, unlike the wall clock behind Mops/s.
                    .secondary("worker_cpu_ns_per_op", Metric::single(cpu_per_op, "ns"))
                    .secondary(
                        "voluntary_cs_per_1k_ops",
                        Metric::single(per_k(|r| r.voluntary), "#"),
                    )
                    .secondary(
                        "involuntary_cs_per_1k_ops",
                        Metric::single(per_k(|r| r.involuntary), "#"),
                    )
                    .secondary("lost_updates", Metric::single(lost as f64, "#"));
                if let Some(l) = life.0 {
                    r = r
                        .secondary("inflations_per_run", Metric::single(l.inflations, "#"))
                        .secondary("deflations_per_run", Metric::single(l.deflations, "#"))
                        .secondary("fair_hand_offs_per_run", Metric::single(l.fair_hand_offs, "#"))
                        .secondary("inflated_share", Metric::single(l.inflated_share, "ratio"))
                        .secondary("fast_lock_spins_won_per_run", Metric::single(l.spins_won, "#"))
                        .secondary(
                            "fast_lock_spins_gave_up_per_run",
                            Metric::single(l.spins_gave_up, "#"),
                        );
                }
                if let Some(p) = prof {
                    let region = if n > 1 {
                        profile::multi_threaded(n as u32)
                    } else {
                        profile::not_profiled("one worker thread timed for a fixed time, not a count of operations: its lock's single-threaded fast path is counted in the pairs table")
                    };
                    r = profile::profile_row(p, &mut counters, &format!("contended/{row}/{n}t"), region, r);
                }
                results.push(r);
            }
        }
    }
    bar.finish_and_clear();
    t.note(format!(
        "short-cs: ~5 ns inside (counter + work), ~25 ns outside; long-cs: ~1 µs inside; work calibrated at {:.2} ns/unit; {} rounds × {} ms per lock, round-robin",
        unit,
        plan.rounds,
        plan.run_time.as_millis()
    ));
    t.note("thr = threads; lock: pl = parking_lot (pl Mutex = parking_lot::Mutex, pl Reentrant = parking_lot::ReentrantMutex), std Mutex = std::sync::Mutex, fastpath infl. = fastpath, inflated");
    t.note("fastpath, inflated (1 thread only): the fastpath row's lock inflated beforehand by a timed wait, i.e. the per-operation cost every later operation pays once a contention outlasted the fast-lock spin and inflated the object");
    t.note("× best peer = median / best median of parking_lot::Mutex, parking_lot::ReentrantMutex and std::sync::Mutex at the same row; fastpath = Synchronized<u64>");
    t.note("infl/run, defl/run = monitors installed and deflated during a run (means; process-wide counters read around each run only); fair h-o/run = exits that handed the monitor straight to a waiter passed over for 0.5 ms (eventual fairness, means per run); infl. share = share of the samples (every run/40, ≥ 1 ms) that found the lock inflated; spin won:gave up = fast-lock spins before inflation that took the lock : that used their whole budget and inflated (means per run); – = not a fastpath lock");
    t.note("min/max = fairness: least / most operations one thread completed (median run); hand-overs/1k = entries by a thread other than the last holder per 1000 operations; cs/1k = getrusage(RUSAGE_THREAD) context switches of the measuring threads per 1000 operations; lost = counted − counter (must be 0)");
    for note in experiment_notes {
        t.note(note);
    }
    let mut tables = vec![t];
    if let Some(p) = prof {
        tables.push(counters.finish(p));
    }
    (tables, results, worst_lost)
}

/// The figure of the median run (the upper middle one for an even count):
/// one run's own value, as the table's other per-run columns.
fn median_run(mut per_run: Vec<f64>) -> f64 {
    per_run.sort_by(f64::total_cmp);
    per_run[per_run.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sig3_keeps_three_significant_digits() {
        assert_eq!(sig3(0.000_423_4), "0.000423");
        assert_eq!(sig3(0.5), "0.500");
        assert_eq!(sig3(12.34), "12.3");
        assert_eq!(sig3(0.0), "0.000");
    }

    #[test]
    fn thread_counts_double_up_to_twice_the_cpus_and_add_extras() {
        assert_eq!(thread_counts(2, &[]), vec![1, 2, 4]);
        assert_eq!(thread_counts(3, &[3, 0]), vec![1, 2, 3, 4]);
        assert_eq!(thread_counts(8, &[16]), vec![1, 2, 4, 8, 16]);
    }

    #[test]
    fn every_lock_counts_every_update_under_contention() {
        for (which, name) in LOCKS.iter().enumerate() {
            // Three threads even on the diagnostic row: it must count too.
            let r = run_lock(which, 3, 1, 1, Duration::from_millis(20));
            assert!(r.ops > 0, "{name}");
            assert_eq!(r.lost, 0, "{name} lost updates");
            assert!(r.min_ops <= r.max_ops);
            assert!(r.handovers <= r.ops);
        }
    }
}
