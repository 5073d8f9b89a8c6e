//! Seed 001's comparison, reproduced: one row per workload, the locking
//! modes side by side (`legacy`, the baseline, against `lightweight` and
//! `monitor`), medians with errors, one run.
//!
//! Where it sits: `fastpath lock` calls [`run`] after its CAS-pair table.
//! Each workload × mode is a row of the harness's interleaved measurement
//! ([`measure_rows`]): a single-threaded workload is a function of `n`
//! operations timed on the measuring thread, switched to the row's mode
//! with [`sync::set_current_thread_locking_mode`] for each sample; a
//! threaded one starts its threads, each set to the mode, for each sample.
//! All 48 rows take one sample per round in a shuffled order, so the three
//! columns come from the same process and the same stretch of its run.
//!
//! The workloads mirror what the seed's argument rests on:
//! - HotSpot's `LockUnlock.java` (test/micro/org/openjdk/bench/vm/lang):
//!   basic (thin) and inflated objects × simple, recursive and serial
//!   lock+unlock, two inflated objects serially and nested, recursive-only
//!   inside one outer hold, `fact(10)` through a synchronized method, and
//!   three threads on one object. Its `innerCount` loop is the operation
//!   count here, so a row is ns per loop trip, as `@OperationsPerInvocation`
//!   makes the JMH peer.
//! - `MonitorBench.java`: every CPU's thread takes one shared lock 3 deep
//!   with some work at each level, and rarely (1 in 10 000) backs out to
//!   the outermost level and `wait`s (1 ms here; MonitorBench's 100 ms
//!   would leave the thread waiting for most of a short iteration).
//! - The churn the seed names: single-use locks on fresh objects
//!   (StringBuffer/Vector-style), once and nested.
//! - A wait/notify producer–consumer and dining philosophers (the seed's
//!   table lists Renaissance's Philosophers).
//!
//! An object is "inflated" the way `LockUnlock.setup` does it: a timed
//! `wait` while holding it. With asynchronous deflation an idle monitor may
//! go back to the header between rows; the lock is taken again at once in a
//! loop, so within one row it stays what it was made.
//!
//! With `--prof perfnorm`, each single-threaded workload in each mode is
//! counted too ([`region`]: its body on the calling thread switched to the
//! mode); the threaded ones carry the profiler's refusal.

use std::collections::VecDeque;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use fastpath::sync::LockingMode;
use fastpath::sync::{self, Header, Synchronized};

use crate::harness::black_box;
use crate::harness::interleave::{batched, measure_rows, Plan, Sampler};
use crate::harness::perfnorm::{ProfileTable, Profiler, Region};
use crate::report::table::{num, percent};
use crate::report::{BenchResult, Metric, Mode, Table};
use crate::stats::Stats;

use super::contended::work;
use super::profile::{self, ModeScope, RowRegion};
use super::NAME;

/// The columns, baseline first (the seed's "baseline" is stack-locking).
pub const MODES: [LockingMode; 3] = [
    LockingMode::Legacy,
    LockingMode::Lightweight,
    LockingMode::Monitor,
];

/// One workload: its name (folds to the JMH peer's method name), its
/// thread count, and how to run it.
struct Workload {
    name: &'static str,
    threads: u32,
    what: &'static str,
    run: Run,
}

/// A single-threaded body: `n` operations on two objects.
type Body = fn(Pin<&Header>, Pin<&Header>, &Dummies, u64);

/// How a workload runs.
enum Run {
    /// One thread, two objects never inflated before the loop.
    Thin(Body),
    /// One thread, two objects inflated first.
    Inflated(Body),
    /// Its own threads (see [`threaded`]): a sampler that starts them
    /// for each sample.
    Threaded(fn(LockingMode) -> Sampler<'static>),
}

impl Run {
    /// The row's sampler in `mode`.
    fn sampler(&self, mode: LockingMode) -> Sampler<'static> {
        match *self {
            Run::Thin(body) => single(mode, false, body),
            Run::Inflated(body) => single(mode, true, body),
            Run::Threaded(f) => f(mode),
        }
    }
}

const WORKLOADS: &[Workload] = &[
    Workload {
        name: "basic-simple",
        threads: 1,
        what: "lock a thin object, 2 increments, unlock",
        run: Run::Thin(simple_body),
    },
    Workload {
        name: "basic-recursive",
        threads: 1,
        what: "the same, locked twice nested",
        run: Run::Thin(recursive_body),
    },
    Workload {
        name: "basic-serial",
        threads: 1,
        what: "two lock+unlock pairs in a row",
        run: Run::Thin(serial_body),
    },
    Workload {
        name: "inflated-simple",
        threads: 1,
        what: "basic-simple on an inflated object",
        run: Run::Inflated(simple_body),
    },
    Workload {
        name: "inflated-recursive",
        threads: 1,
        what: "basic-recursive on an inflated object",
        run: Run::Inflated(recursive_body),
    },
    Workload {
        name: "inflated-serial",
        threads: 1,
        what: "basic-serial on an inflated object",
        run: Run::Inflated(serial_body),
    },
    Workload {
        name: "inflated-multiple-serial",
        threads: 1,
        what: "two inflated objects, one after the other",
        run: Run::Inflated(multiple_serial_body),
    },
    Workload {
        name: "inflated-multiple-recursive",
        threads: 1,
        what: "two inflated objects, nested",
        run: Run::Inflated(multiple_recursive_body),
    },
    Workload {
        name: "inflated-recursive-only",
        threads: 1,
        what: "inner pairs while an outer hold of the same inflated object lasts",
        run: Run::Inflated(recursive_only_body),
    },
    Workload {
        name: "recursive-synchronization",
        threads: 1,
        what: "fact(10) through a synchronized method: 11 nested holds",
        run: Run::Thin(fact_body),
    },
    Workload {
        name: "contended-3t",
        threads: 3,
        what: "3 threads lock one object (JMH avgt: thread-time per op)",
        run: Run::Threaded(contended3),
    },
    Workload {
        name: "monitor-bench",
        threads: 0,
        what: "every CPU: 3-deep recursion on one shared lock, work at each level, rare waits",
        run: Run::Threaded(monitor_bench),
    },
    Workload {
        name: "single-use",
        threads: 1,
        what: "fresh object, lock+unlock (single-use StringBuffer)",
        run: Run::Thin(churn_body),
    },
    Workload {
        name: "single-use-recursive",
        threads: 1,
        what: "fresh object, locked twice nested (a synchronized method calling another)",
        run: Run::Thin(churn_recursive_body),
    },
    Workload {
        name: "producer-consumer",
        threads: 2,
        what: "wait/notify through a 16-slot buffer; per item",
        run: Run::Threaded(producer_consumer),
    },
    Workload {
        name: "philosophers",
        threads: 5,
        what: "5 diners, 5 forks taken in index order, some work while eating (thread-time per meal)",
        run: Run::Threaded(philosophers),
    },
];

/// Two counters bumped inside the locks, as LockUnlock's `dummyInt1/2`.
/// Relaxed load+store (not an atomic add): the lock orders them, and a
/// broken lock would lose updates rather than hide it.
struct Dummies(AtomicU64, AtomicU64);

// Relaxed: the counters are the critical sections' work, always touched
// under the lock being measured, which orders them; atomics only so that
// the shared struct needs no `unsafe`.
impl Dummies {
    const fn new() -> Dummies {
        Dummies(AtomicU64::new(0), AtomicU64::new(0))
    }
    #[inline]
    fn bump1(&self) {
        let v = self.0.load(Ordering::Relaxed);
        self.0.store(v + 1, Ordering::Relaxed);
    }
    #[inline]
    fn bump2(&self) {
        let v = self.1.load(Ordering::Relaxed);
        self.1.store(v + 1, Ordering::Relaxed);
    }
}

/// Runs `f` on a fresh thread that runs `mode`.
fn on_thread<R: Send + 'static>(mode: LockingMode, f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::spawn(move || {
        set_mode(mode);
        f()
    })
    .join()
    .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// Sets the current thread's mode. A fresh thread holds nothing, so the
/// only refusal (locks held) cannot happen here.
fn set_mode(mode: LockingMode) {
    sync::set_current_thread_locking_mode(mode).expect("a fresh thread holds no lock");
}

/// Inflates `h` as LockUnlock's setup does: a timed wait while holding it.
fn inflate(h: Pin<&Header>) {
    let g = sync::lock(h);
    let _ = g.wait(Some(Duration::from_millis(1)));
}

/// A single-threaded workload's sampler: `body(h1, h2, n)` on two objects
/// it owns, inflated or not, run on the measuring thread switched to
/// `mode` for each sample (outside the timing). An inflated row re-inflates
/// an object the deflater took back to its header between samples, so
/// that every sample times what the row names.
fn single(mode: LockingMode, inflated: bool, body: Body) -> Sampler<'static> {
    let (h1, h2) = (Box::pin(Header::new()), Box::pin(Header::new()));
    let d = Dummies::new();
    let heads = std::rc::Rc::new((h1, h2));
    let timed = heads.clone();
    let mut sample = batched(move |n| body(black_box(timed.0.as_ref()), black_box(timed.1.as_ref()), &d, n));
    Box::new(move |plan| {
        let _mode = ModeScope::enter(mode)?;
        if inflated {
            for h in [heads.0.as_ref(), heads.1.as_ref()] {
                if !h.is_inflated() {
                    inflate(h);
                }
            }
        }
        Ok(sample(plan))
    })
}

#[inline(never)]
fn simple_body(h: Pin<&Header>, _: Pin<&Header>, d: &Dummies, n: u64) {
    for _ in 0..n {
        let _g = sync::lock(h);
        d.bump1();
        d.bump2();
    }
}

#[inline(never)]
fn recursive_body(h: Pin<&Header>, _: Pin<&Header>, d: &Dummies, n: u64) {
    for _ in 0..n {
        let _g = sync::lock(h);
        let _g2 = sync::lock(h);
        d.bump1();
        d.bump2();
    }
}

/// Two pairs in a row on one object (LockUnlock's `*SerialLockUnlock`).
fn serial_body(h: Pin<&Header>, _: Pin<&Header>, d: &Dummies, n: u64) {
    multiple_serial_body(h, h, d, n)
}

#[inline(never)]
fn multiple_serial_body(h1: Pin<&Header>, h2: Pin<&Header>, d: &Dummies, n: u64) {
    for _ in 0..n {
        {
            let _g = sync::lock(h1);
            d.bump1();
        }
        let _g = sync::lock(h2);
        d.bump2();
    }
}

#[inline(never)]
fn multiple_recursive_body(h1: Pin<&Header>, h2: Pin<&Header>, d: &Dummies, n: u64) {
    for _ in 0..n {
        let _g = sync::lock(h1);
        d.bump1();
        let _g2 = sync::lock(h2);
        d.bump2();
    }
}

#[inline(never)]
fn recursive_only_body(h: Pin<&Header>, _: Pin<&Header>, d: &Dummies, n: u64) {
    let _outer = sync::lock(h);
    for _ in 0..n {
        let _g = sync::lock(h);
        d.bump1();
        d.bump2();
    }
}

/// LockUnlock's `synchronized int fact(int n)`.
#[inline(never)]
fn fact(h: Pin<&Header>, n: u32) -> u32 {
    let _g = sync::lock(h);
    if n == 0 {
        1
    } else {
        fact(h, n - 1) * n
    }
}

#[inline(never)]
fn fact_body(h: Pin<&Header>, _: Pin<&Header>, d: &Dummies, n: u64) {
    for _ in 0..n {
        // Relaxed: a sink that keeps the result alive; nobody reads it.
        d.0.store(u64::from(fact(h, black_box(10))), Ordering::Relaxed);
    }
}

#[inline(never)]
fn churn_body(_: Pin<&Header>, _: Pin<&Header>, d: &Dummies, n: u64) {
    for _ in 0..n {
        let h = pin!(Header::new());
        let _g = sync::lock(black_box(h.as_ref()));
        d.bump1();
    }
}

#[inline(never)]
fn churn_recursive_body(_: Pin<&Header>, _: Pin<&Header>, d: &Dummies, n: u64) {
    for _ in 0..n {
        let h = pin!(Header::new());
        let h = black_box(h.as_ref());
        let _g = sync::lock(h);
        let _g2 = sync::lock(h);
        d.bump1();
    }
}

/// A sampler of `threads` threads, each running `mode`, each calling
/// `step(i, rng)` until the sample's time ([`Plan::threaded_sample_time`])
/// is up; the sample is `scale(wall ns, threads, total steps)`. The harness
/// shape of JMH with `@Threads`, one sample per iteration.
fn threaded<S: Send + Sync + 'static>(
    mode: LockingMode,
    threads: usize,
    shared: Arc<S>,
    step: fn(&S, usize, &mut u64),
    scale: fn(f64, usize, u64) -> f64,
) -> Sampler<'static> {
    let per_iteration = move |time: Duration| {
        let stop = Arc::new(AtomicBool::new(false));
        let start = Arc::new(Barrier::new(threads + 1));
        let workers: Vec<_> = (0..threads)
            .map(|i| {
                let (stop, start, shared) = (stop.clone(), start.clone(), shared.clone());
                std::thread::spawn(move || {
                    set_mode(mode);
                    let mut rng = 0x9E37_79B9_7F4A_7C15u64 ^ (i as u64 + 1);
                    start.wait();
                    let mut n = 0u64;
                    // One batch at least, even on a thread descheduled for
                    // the whole iteration. Relaxed: the flag only ends the
                    // loop; join() publishes `n`.
                    loop {
                        for _ in 0..16 {
                            step(&shared, i, &mut rng);
                        }
                        n += 16;
                        if stop.load(Ordering::Relaxed) {
                            break;
                        }
                    }
                    n
                })
            })
            .collect();
        start.wait();
        let t = Instant::now();
        std::thread::sleep(time);
        // Relaxed: a stop flag; the totals come back through `join`.
        stop.store(true, Ordering::Relaxed);
        let total: u64 = workers.into_iter().map(|w| w.join().unwrap_or(0)).sum();
        scale(t.elapsed().as_nanos() as f64, threads, total.max(1))
    };
    Box::new(move |plan| Ok(per_iteration(plan.threaded_sample_time)))
}

/// JMH's AverageTime with N threads: each thread's time per operation.
fn thread_time_per_op(wall: f64, threads: usize, ops: u64) -> f64 {
    wall * threads as f64 / ops as f64
}

/// Pins a shared `T` on the heap.
struct Shared<T>(Pin<Box<T>>);

impl<T> Shared<T> {
    fn get(&self) -> Pin<&T> {
        self.0.as_ref()
    }
}

fn contended3(mode: LockingMode) -> Sampler<'static> {
    let shared = Arc::new((Shared(Box::pin(Header::new())), Dummies::new()));
    threaded(
        mode,
        3,
        shared,
        |(h, d), _, _| {
            let _g = sync::lock(h.get());
            d.bump1();
        },
        thread_time_per_op,
    )
}

/// One step of a 64-bit LCG (Knuth's MMIX constants): the per-thread
/// randomness of MonitorBench's rare waits.
#[inline]
fn next_random(rng: &mut u64) -> u64 {
    *rng = rng
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *rng >> 33
}

/// MonitorBench's `consumeTime`, in steps of the contended table's [`work`]
/// (Blackhole's tokens are not the same unit: the shape, not the time, is
/// what is mirrored).
const CONSUME: u32 = 50;
/// MonitorBench's `range` with `throwThreshold` 1: a wait in 10 000.
const WAIT_ONE_IN: u64 = 10_000;

fn monitor_bench(mode: LockingMode) -> Sampler<'static> {
    let shared = Arc::new(Shared(Box::pin(Header::new())));
    threaded(
        mode,
        cpus(),
        shared,
        |h, _, rng| {
            work(CONSUME);
            let h = h.get();
            let g = sync::lock(h);
            loop {
                // update1 + update2: two more levels, work at each; the
                // rare "exception" unwinds them and the outer level waits.
                let failed = {
                    let _g1 = sync::lock(h);
                    work(CONSUME);
                    let _g2 = sync::lock(h);
                    work(CONSUME);
                    let failed = next_random(rng) % WAIT_ONE_IN == 0;
                    if !failed {
                        work(CONSUME);
                    }
                    failed
                };
                if !failed {
                    break;
                }
                let _ = g.wait(Some(Duration::from_millis(1)));
            }
        },
        thread_time_per_op,
    )
}

/// The CPUs this process may run on (JMH's `Threads.MAX`).
pub fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A bounded buffer guarded by its own monitor.
const SLOTS: usize = 16;

fn producer_consumer(mode: LockingMode) -> Sampler<'static> {
    let shared = Arc::new(Shared(Box::pin(Synchronized::new(
        VecDeque::<u64>::with_capacity(SLOTS),
    ))));
    threaded(
        mode,
        2,
        shared,
        |q, i, rng| {
            let Ok(mut g) = q.get().lock() else { return };
            if i == 0 {
                // Producer: wait for room. The timeout lets the last item
                // of an iteration end when the consumer has stopped.
                let _ = g.wait_while(|q| q.len() >= SLOTS, Some(Duration::from_millis(1)));
                if g.len() < SLOTS {
                    g.push_back(*rng);
                    *rng = rng.wrapping_add(1);
                    let _ = g.notify();
                }
            } else {
                let _ = g.wait_while(|q| q.is_empty(), Some(Duration::from_millis(1)));
                if let Some(v) = g.pop_front() {
                    black_box(v);
                    let _ = g.notify();
                }
            }
        },
        // Both threads count a step; an item is one put and one take.
        |wall, _, ops| wall * 2.0 / ops as f64,
    )
}

const DINERS: usize = 5;

fn philosophers(mode: LockingMode) -> Sampler<'static> {
    let forks: Vec<Shared<Header>> = (0..DINERS).map(|_| Shared(Box::pin(Header::new()))).collect();
    let shared = Arc::new((forks, Dummies::new()));
    threaded(
        mode,
        DINERS,
        shared,
        |(forks, d), i, _| {
            // The lower-numbered fork first: no cycle, no deadlock.
            let (a, b) = (i.min((i + 1) % DINERS), i.max((i + 1) % DINERS));
            let _left = sync::lock(forks[a].get());
            let _right = sync::lock(forks[b].get());
            d.bump1();
            work(CONSUME);
        },
        thread_time_per_op,
    )
}

/// Workload `name` in `mode` as a profiler region: its body on two objects
/// the region owns (inflated first where the row inflates them), on the
/// calling thread switched to `mode`. A threaded workload's region is
/// marked with its threads, for the profiler to refuse.
fn workload_region(w: &Workload, mode: LockingMode) -> RowRegion {
    let (body, inflated) = match w.run {
        Run::Thin(b) => (b, false),
        Run::Inflated(b) => (b, true),
        Run::Threaded(_) => {
            let threads = if w.threads == 0 { cpus() as u32 } else { w.threads };
            return profile::multi_threaded(threads);
        }
    };
    let scope = ModeScope::enter(mode)?;
    let (h1, h2) = (Box::pin(Header::new()), Box::pin(Header::new()));
    if inflated {
        inflate(h1.as_ref());
        inflate(h2.as_ref());
    }
    let d = Dummies::new();
    Ok(Region::new(profile::PROFILED_OPS, move |n| {
        let _mode = &scope;
        body(black_box(h1.as_ref()), black_box(h2.as_ref()), &d, n)
    }))
}

/// The region `<workload>/<mode>` (the part of a `workloads/…` id after the
/// table), `None` for an unknown workload or mode.
pub fn region(id: &str) -> Option<RowRegion> {
    let (name, mode) = id.split_once('/')?;
    let mode: LockingMode = mode.parse().ok()?;
    let w = WORKLOADS.iter().find(|w| w.name == name)?;
    Some(workload_region(w, mode))
}

/// Runs every workload in every mode and returns the seed-shaped table and
/// one JMH row per workload and mode (with `prof`, their counters too, and
/// the counter table after the seed's).
pub fn run(plan: &Plan, prof: Option<&Profiler>) -> anyhow::Result<(Vec<Table>, Vec<BenchResult>)> {
    let legacy_is_real =
        on_thread(LockingMode::Legacy, sync::current_thread_locking_mode) == LockingMode::Legacy;
    let mut t = Table::new(
        "Seed 001's comparison: ns/op by locking mode, median ± error (lower is better); % against legacy",
        &[
            "workload",
            "threads",
            "legacy",
            "lightweight",
            "%",
            "monitor",
            "%",
        ],
    );
    let mut results = Vec::new();
    let mut counters = ProfileTable::new("seed 001's workloads by locking mode");
    let mut rows: Vec<Sampler<'static>> = WORKLOADS
        .iter()
        .flat_map(|w| MODES.iter().map(|&m| w.run.sampler(m)))
        .collect();
    let measured =
        measure_rows(plan, WORKLOADS_SEED, &mut rows, "lock workloads").map_err(|e| anyhow::anyhow!(e))?;
    drop(rows);
    for (w, st) in WORKLOADS.iter().zip(measured.chunks(MODES.len())) {
        let threads = if w.threads == 0 { cpus() as u32 } else { w.threads };
        let cell = |x: &Stats| format!("{} ± {}", num(x.median), num(x.median_error()));
        t.row(vec![
            w.name.to_string(),
            threads.to_string(),
            cell(&st[0]),
            cell(&st[1]),
            percent(st[1].median, st[0].median),
            cell(&st[2]),
            percent(st[2].median, st[0].median),
        ]);
        for (m, x) in MODES.iter().zip(st) {
            let mut r = BenchResult::new(NAME, w.name, Mode::AverageTime, x, "ns/op")
                .param("mode", m.name())
                .threads(threads)
                .secondary("ratio_to_legacy", Metric::single(x.median / st[0].median, "x"));
            if let Some(p) = prof {
                let id = format!("workloads/{}/{}", w.name, m.name());
                r = profile::profile_row(p, &mut counters, &id, workload_region(w, *m), r);
            }
            results.push(r);
        }
    }
    for w in WORKLOADS {
        t.note(format!("{}: {}", w.name, w.what));
    }
    t.note(
        "% = median / median of legacy − 1, same run; error = the larger side of the median's 99.9% interval",
    );
    t.note(format!(
        "rows interleaved: {} rounds (after {} warm-up), each row (workload × mode) one sample per round in a shuffled order, on the measuring thread switched to the row's mode ({} µs per sample; the threaded workloads start their threads for each {} ms sample)",
        plan.rounds,
        plan.warmup_rounds,
        plan.sample_time.as_micros(),
        plan.threaded_sample_time.as_millis()
    ));
    if !legacy_is_real {
        t.note("NOTE: legacy stack-locking is not implemented in this build; current_thread_locking_mode() reports lightweight on a legacy thread, so the legacy column ran as lightweight and its % is lightweight against itself");
    }
    let mut tables = vec![t];
    if let Some(p) = prof {
        tables.push(counters.finish(p));
    }
    Ok((tables, results))
}

/// The seed of the workloads table's sampling order.
const WORKLOADS_SEED: u64 = 0x5EED_0001;
