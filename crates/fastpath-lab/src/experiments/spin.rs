//! `fastpath spin`: what a pause strategy costs by itself, and what it does
//! to handoff-heavy and lock-heavy code (seed 004: ISB instead of YIELD/NOP
//! for `Thread.onSpinWait` and `SpinPause` on AArch64).
//!
//! Where it sits: drives `fastpath::spin` through the harness and prints
//! three tables, each with the `none` strategy measured in the same run as
//! the baseline, and a check between the first and the second that every
//! strategy really spends the spin budgets the later tables give it:
//! 1. latency: ns per pause and hardware-counter ticks per pause, per
//!    strategy, plus `global` (the dispatched `spin::pause()`, to show what
//!    its one indirect call costs);
//! 2. handoff: a producer and a consumer pass a token through
//!    `spin::handoff` (the seed's SynchronousQueue microbenchmark), per
//!    strategy and per spin budget (from "park at once" to 100 µs), the two
//!    threads pinned to CPUs 0 and 1;
//! 3. LRU: a HashMap + linked-list LRU cache behind `spin::lock`
//!    (Caffeine's GetPutBenchmark `LinkedHashMap_Lru`), 1, 2 and 4 threads
//!    (4 oversubscribe a 2-CPU machine, and the table says so), 75% get /
//!    25% put over scrambled-Zipfian keys, per strategy and spin budget.
//!
//! In tables 2 and 3 the strategies take turns, one timed sample each per
//! round, so a change in the shared machine's load during the run lands on
//! every strategy alike instead of on whichever ran last.
//!
//! Every strategy is used through its own type (`S: PauseStrategy`), so one
//! process compares them without touching the process-wide choice. Spin
//! budgets are times, turned into pause counts with each strategy's own
//! calibration: a row differs from `none` by what the instruction does to
//! the waiting and the waited-for thread, not by spinning longer.

pub mod lru;

use std::num::NonZeroU32;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fastpath::spin::{
    self, handoff, lock::SpinParkMutex, Budget, Calibration, Global, NoPause, PauseStrategy, SpinWait, Step,
};

use crate::experiments::{Context, Experiment};
use crate::harness::zipf::{ScrambledZipfian, SplitMix64};
use crate::harness::{self, black_box, Settings, Stats};
use crate::report::table::{num, percent, ratio, score};
use crate::report::{BenchResult, Metric, Mode, Report, Table};

/// A strategy the experiment measures.
#[derive(Clone, Copy, Debug)]
enum Candidate {
    None,
    Global,
    #[cfg(target_arch = "x86_64")]
    Pause,
    #[cfg(target_arch = "x86_64")]
    Pause2,
    #[cfg(target_arch = "x86_64")]
    Pause4,
    #[cfg(target_arch = "x86_64")]
    Tpause(spin::Tpause),
    #[cfg(target_arch = "aarch64")]
    Isb,
    #[cfg(target_arch = "aarch64")]
    Isb2,
    #[cfg(target_arch = "aarch64")]
    Yield,
    #[cfg(target_arch = "aarch64")]
    Nop,
    #[cfg(target_arch = "aarch64")]
    Sb(spin::Sb),
}

/// Runs `$body` with `$s` bound to the strategy value of `$c`
/// (monomorphised per strategy, so each runs its own instructions inline).
macro_rules! with_strategy {
    ($c:expr, $s:ident => $body:expr) => {
        match $c {
            Candidate::None => {
                let $s = NoPause;
                $body
            }
            Candidate::Global => {
                let $s = Global;
                $body
            }
            #[cfg(target_arch = "x86_64")]
            Candidate::Pause => {
                let $s = spin::Pause;
                $body
            }
            #[cfg(target_arch = "x86_64")]
            Candidate::Pause2 => {
                let $s = spin::Repeat::<spin::Pause, 2>(spin::Pause);
                $body
            }
            #[cfg(target_arch = "x86_64")]
            Candidate::Pause4 => {
                let $s = spin::Repeat::<spin::Pause, 4>(spin::Pause);
                $body
            }
            #[cfg(target_arch = "x86_64")]
            Candidate::Tpause(t) => {
                let $s = t;
                $body
            }
            #[cfg(target_arch = "aarch64")]
            Candidate::Isb => {
                let $s = spin::Isb;
                $body
            }
            #[cfg(target_arch = "aarch64")]
            Candidate::Isb2 => {
                let $s = spin::Repeat::<spin::Isb, 2>(spin::Isb);
                $body
            }
            #[cfg(target_arch = "aarch64")]
            Candidate::Yield => {
                let $s = spin::Yield;
                $body
            }
            #[cfg(target_arch = "aarch64")]
            Candidate::Nop => {
                let $s = spin::Nop;
                $body
            }
            #[cfg(target_arch = "aarch64")]
            Candidate::Sb(sb) => {
                let $s = sb;
                $body
            }
        }
    };
}
/// The `spin` experiment.
pub struct Spin;

impl Experiment for Spin {
    fn name(&self) -> &'static str {
        "spin"
    }

    fn about(&self) -> &'static str {
        "Spin pauses: latency per strategy, handoff throughput per strategy and budget, LRU under a spin-then-park lock"
    }

    fn run(&self, ctx: &Context) -> anyhow::Result<Report> {
        let settings = ctx.settings();
        let cpus = fastpath::cpu::info().logical_cpus;
        let (all, missing) = candidates();
        let contention: Vec<Candidate> = all.iter().copied().filter(|c| c.in_contention_tables()).collect();
        let lru_rows: usize = LRU_THREADS.iter().map(|&t| lru_budgets(t).len()).sum();
        let steps = all.len() + contention.len() * (HANDOFF_BUDGETS.len() + lru_rows);
        let bar = harness::progress(steps as u64, "spin");
        let mut report = Report::default();

        let (table, results) = latency_table(&settings, &all, &missing, &bar);
        report.tables.push(table);
        report.results.extend(results);

        let cals: Vec<Calibration> = contention
            .iter()
            .map(|c| with_strategy!(*c, s => Calibration::measure(s)))
            .collect();

        let (table, results) = budget_table(ctx.quick, &contention, &cals);
        report.tables.push(table);
        report.results.extend(results);

        let (table, results) = handoff_table(&settings, &contention, &cals, cpus, &bar);
        report.tables.push(table);
        report.results.extend(results);

        let (table, results) = lru_table(&settings, &contention, &cals, cpus, &bar);
        report.tables.push(table);
        report.results.extend(results);
        bar.finish_and_clear();
        Ok(report)
    }
}

impl Candidate {
    fn name(self) -> String {
        match self {
            Candidate::Global => format!("global ({})", spin::active()),
            c => with_strategy!(c, s => s.describe().to_string()),
        }
    }

    /// `global` is the same instructions as one of the others plus the
    /// dispatch; the contention tables compare instructions only. Repeat
    /// counts above 2 are only in the latency table.
    fn in_contention_tables(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        if matches!(self, Candidate::Pause4) {
            return false;
        }
        !matches!(self, Candidate::Global)
    }
}

/// The strategies this CPU can run (baseline first), and notes on those it
/// cannot.
fn candidates() -> (Vec<Candidate>, Vec<String>) {
    #[allow(unused_variables, unused_mut)]
    let cpu = fastpath::cpu::info();
    #[allow(unused_mut)]
    let mut missing = Vec::new();
    let mut list = vec![Candidate::None];
    #[cfg(target_arch = "x86_64")]
    {
        list.extend([Candidate::Pause, Candidate::Pause2, Candidate::Pause4]);
        match spin::Tpause::new(cpu) {
            Ok(t) => list.push(Candidate::Tpause(t)),
            Err(e) => missing.push(format!("tpause not measured: {e} (a configuration error here)")),
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        list.extend([Candidate::Nop, Candidate::Yield, Candidate::Isb, Candidate::Isb2]);
        match spin::Sb::new(cpu) {
            Ok(s) => list.push(Candidate::Sb(s)),
            Err(e) => missing.push(format!("sb not measured: {e}")),
        }
    }
    list.push(Candidate::Global);
    (list, missing)
}

/// Budgets whose spin time the budget table checks.
const CHECKED_BUDGETS_NS: [u64; 3] = [1_000, 10_000, 100_000];

/// How long draining a [`SpinWait`] of `budget_ns` (no yields) really takes
/// with strategy `s`: the wall time from the first step to `Step::Park`.
fn drain_ns<S: PauseStrategy>(s: S, cal: &Calibration, budget_ns: u64) -> f64 {
    let mut wait = SpinWait::with_limits(s, Budget::new(budget_ns, 0).limits(cal));
    let t = Instant::now();
    while black_box(wait.spin()) != Step::Park {}
    t.elapsed().as_nanos() as f64
}

/// The budget check: a budget in nanoseconds is only a promise if the pause
/// loop really spins that long. A release build once let the optimiser
/// delete the `none` loop, so `none` spun 1/16 of its budget and every
/// comparison against it was wrong; this table makes such a bug visible.
fn budget_table(quick: bool, contention: &[Candidate], cals: &[Calibration]) -> (Table, Vec<BenchResult>) {
    let samples = if quick { 11 } else { 51 };
    let mut table = Table::new(
        "SpinWait budget check: time to spend a budget (no yields), median",
        &[
            "strategy",
            "budget",
            "spent ns",
            "spent / budget",
            "% vs none",
            "check",
        ],
    );
    let mut none_spent = [f64::NAN; CHECKED_BUDGETS_NS.len()];
    let mut results = Vec::new();
    let mut failures = 0;
    for (c, cal) in contention.iter().zip(cals) {
        for (i, &budget) in CHECKED_BUDGETS_NS.iter().enumerate() {
            let drains: Vec<f64> = (0..samples)
                .map(|_| with_strategy!(*c, s => drain_ns(s, cal, budget)))
                .collect();
            let stats = Stats::from_samples(drains);
            let share = stats.median / budget as f64;
            // A step may overshoot by up to one capped step (256 ns) and
            // preemption only adds time; spending under half the budget
            // means the loop does not do what the calibration measured.
            let ok = share >= 0.5;
            failures += usize::from(!ok);
            if matches!(c, Candidate::None) {
                none_spent[i] = stats.median;
            }
            table.row(vec![
                c.name(),
                format!("{} µs", budget / 1000),
                num(stats.median),
                format!("{share:.2}"),
                percent(stats.median, none_spent[i]),
                if ok { "ok" } else { "SPENT TOO LITTLE" }.to_string(),
            ]);
            results.push(
                BenchResult::new("spin", "budget", Mode::SingleShot, &stats, "ns")
                    .param("strategy", c.name())
                    .param("budget_ns", budget)
                    .secondary("spent_over_budget", Metric::single(share, "x")),
            );
        }
    }
    table.note("each strategy's budget becomes a pause count through its own calibration (spin::Calibration::measure)");
    table.note(
        "spent / budget should be about 1 (more under preemption); the handoff and LRU tables rely on it",
    );
    if failures > 0 {
        table.note(format!(
            "{failures} row(s) spent under half their budget: the comparisons below are suspect"
        ));
    }
    (table, results)
}

/// The hardware counter (TSC on x86-64, CNTVCT_EL0 on AArch64).
#[inline(always)]
fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        fastpath::arch::x86_64::lfence();
        fastpath::arch::x86_64::rdtsc()
    }
    #[cfg(target_arch = "aarch64")]
    {
        fastpath::arch::aarch64::isb();
        fastpath::arch::aarch64::cntvct_el0()
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        0
    }
}

fn latency<S: PauseStrategy>(s: S, settings: &Settings) -> (Stats, f64) {
    let mut total_ticks = 0u64;
    let mut total_pauses = 0u64;
    let stats = harness::measure_ns_per_op(settings, |n| {
        let t0 = ticks();
        for i in 0..n {
            s.pause();
            // One loop iteration per pause even for `none` (as in
            // `Calibration::measure`).
            black_box(i);
        }
        total_ticks += ticks().wrapping_sub(t0);
        total_pauses += n;
    });
    (stats, total_ticks as f64 / total_pauses.max(1) as f64)
}

fn latency_table(
    settings: &Settings,
    all: &[Candidate],
    missing: &[String],
    bar: &indicatif::ProgressBar,
) -> (Table, Vec<BenchResult>) {
    let mut rows = Vec::new();
    for c in all {
        bar.set_message(format!("latency {}", c.name()));
        let (stats, t) = with_strategy!(*c, s => latency(s, settings));
        rows.push((*c, stats, t));
        bar.inc(1);
    }
    let base = rows[0].1.median;
    let mut table = Table::new(
        "spin pause latency (one thread; a loop of pauses)",
        &["strategy", "ns/pause", "ticks/pause", "vs none", "% vs none"],
    );
    let mut results = Vec::new();
    for (c, stats, t) in &rows {
        table.row(vec![
            c.name(),
            score(stats.median, stats.error),
            num(*t),
            ratio(stats.median, base),
            percent(stats.median, base),
        ]);
        results.push(
            BenchResult::new("spin", "latency", Mode::AverageTime, stats, "ns/op")
                .param("strategy", c.name())
                .secondary("ticks_per_pause", Metric::single(*t, "ticks/op")),
        );
    }
    let cal = spin::calibration();
    table
        .note("ns/pause: median of iterations ± 99.9% CI half-width; `none` is the bare loop (the baseline)");
    table.note(format!(
        "ticks: {} counter; its rate measured against CLOCK_MONOTONIC by spin::calibration(): {}",
        if cfg!(target_arch = "aarch64") {
            "CNTVCT_EL0"
        } else {
            "TSC"
        },
        cal.counter_hz
            .map_or("n/a".to_string(), |hz| format!("{:.3} GHz", hz / 1e9))
    ));
    table.note(format!(
        "spin::calibration() for the active strategy {}: {} ns/pause, measured in {:.1} µs ({} pauses)",
        cal.strategy,
        num(cal.ns_per_pause),
        cal.took.as_secs_f64() * 1e6,
        cal.pauses_timed
    ));
    table.note("global: spin::pause(), the configured strategy behind one indirect call");
    for m in missing {
        table.note(m.clone());
    }
    (table, results)
}

/// The system's load averages, to read a noisy row by (a shared machine:
/// other processes' threads compete with the measured ones). Read once per
/// table, outside the timed region.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".to_string())
}

/// Spin budgets of the handoff table: (label, budget).
const HANDOFF_BUDGETS: [Budget; 6] = [
    Budget::PARK_AT_ONCE,
    Budget::new(1_000, Budget::DEFAULT.yields),
    Budget::new(3_000, Budget::DEFAULT.yields),
    Budget::new(10_000, Budget::DEFAULT.yields),
    Budget::new(30_000, Budget::DEFAULT.yields),
    Budget::new(100_000, Budget::DEFAULT.yields),
];

/// "park at once", "10 µs", "30 µs (default)".
fn budget_label(b: Budget) -> String {
    if b == Budget::PARK_AT_ONCE {
        return "park at once".to_string();
    }
    let mut s = format!("{} µs", b.spin_ns as f64 / 1000.0);
    if b == Budget::DEFAULT {
        s.push_str(" (default)");
    }
    s
}

/// Pins the calling thread to logical CPU `cpu` (best effort: a failure,
/// say under a restrictive cgroup, leaves it unpinned, and the table says
/// whether pinning held).
fn pin_to(cpu: usize) -> bool {
    let mut set = rustix::thread::CpuSet::new();
    set.set(cpu);
    rustix::thread::sched_setaffinity(None, &set).is_ok()
}

/// One timed handoff run: transfers per second and parks per transfer.
fn handoff_once<S: PauseStrategy>(
    s: S,
    budget: Budget,
    cal: &Calibration,
    time: Duration,
    pin: bool,
) -> (f64, f64) {
    let (mut tx, mut rx) = handoff::channel(s, budget.limits(cal));
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let stop = &stop;
        let start = Instant::now();
        scope.spawn(move || {
            if pin {
                pin_to(0);
            }
            let mut token = 0u32;
            // Relaxed: a stop request; the handoff itself orders the tokens.
            while !stop.load(Ordering::Relaxed) {
                for _ in 0..16 {
                    token = token.wrapping_add(1).max(1);
                    if tx.put(NonZeroU32::new(token).expect("nonzero")).is_err() {
                        return;
                    }
                }
            }
        });
        let consumer = scope.spawn(move || {
            if pin {
                pin_to(1);
            }
            let mut n = 0u64;
            while rx.take().is_some() {
                n += 1;
            }
            (n, rx.parks(), Instant::now())
        });
        std::thread::sleep(time);
        // Relaxed: a stop request (see the loads).
        stop.store(true, Ordering::Relaxed);
        let (n, parks, end) = consumer.join().expect("consumer");
        let secs = (end - start).as_secs_f64();
        (n as f64 / secs, parks as f64 / n.max(1) as f64)
    })
}

/// Runs `sample(i)` for candidates `0..n` in turns, `warmup + iterations`
/// rounds, and returns each candidate's statistics and the mean of its
/// secondary figure. Interleaving, rather than running one candidate's
/// iterations after another's, spreads the shared machine's slow drifts in
/// load over every candidate alike, so their medians stay comparable.
fn interleaved(
    settings: &Settings,
    n: usize,
    mut sample: impl FnMut(usize) -> (f64, f64),
) -> Vec<(Stats, f64)> {
    let mut scores = vec![Vec::with_capacity(settings.iterations); n];
    let mut extra = vec![0.0; n];
    for round in 0..settings.warmup_iterations + settings.iterations {
        for i in 0..n {
            let (score, x) = sample(i);
            if round >= settings.warmup_iterations {
                scores[i].push(score);
                extra[i] += x;
            }
        }
    }
    scores
        .into_iter()
        .zip(extra)
        .map(|(s, x)| {
            let k = s.len().max(1) as f64;
            (Stats::from_samples(s), x / k)
        })
        .collect()
}

fn handoff_table(
    settings: &Settings,
    strategies: &[Candidate],
    cals: &[Calibration],
    cpus: u32,
    bar: &indicatif::ProgressBar,
) -> (Table, Vec<BenchResult>) {
    let load_at_start = load_average();
    // Producer on CPU 0, consumer on CPU 1, so the scheduler's placement
    // (both on one CPU or not) is not a hidden variable of the table.
    let pin = cpus >= 2
        && std::thread::spawn(|| pin_to(0) && pin_to(1))
            .join()
            .unwrap_or(false);
    let mut table = Table::new(
        "spin handoff (producer → one-slot exchange → consumer, 2 threads; spin then park)",
        &[
            "spin budget",
            "strategy",
            "pauses",
            "Mtransfers/s",
            "parks/transfer",
            "% vs none",
        ],
    );
    let mut results = Vec::new();
    for budget in HANDOFF_BUDGETS {
        let label = budget_label(budget);
        bar.set_message(format!("handoff {label}"));
        let measured = interleaved(
            settings,
            strategies.len(),
            |i| with_strategy!(strategies[i], s => handoff_once(s, budget, &cals[i], settings.iteration_time, pin)),
        );
        let base = measured[0].0.median;
        for ((c, cal), (stats, parks)) in strategies.iter().zip(cals).zip(&measured) {
            let median = stats.median;
            table.row(vec![
                label.clone(),
                c.name(),
                budget.limits(cal).pauses.to_string(),
                score(median / 1e6, stats.error / 1e6),
                format!("{parks:.3}"),
                percent(median, base),
            ]);
            results.push(
                BenchResult::new("spin", "handoff", Mode::Throughput, stats, "ops/s")
                    .threads(2)
                    .param("strategy", c.name())
                    .param("spin_ns", budget.spin_ns)
                    .secondary("parks_per_transfer", Metric::single(*parks, "parks/op")),
            );
            bar.inc(1);
        }
    }
    table.note("Mtransfers/s: median of iterations ± 99.9% CI; % against `none` with the same budget");
    table.note("pauses: the budget as a pause count, from each strategy's own Calibration::measure");
    table.note(format!(
        "load average (1, 5, 15 min) when the table started: {load_at_start}"
    ));
    table.note(if pin {
        "producer pinned to CPU 0, consumer to CPU 1".to_string()
    } else {
        "threads not pinned (one CPU, or sched_setaffinity refused)".to_string()
    });
    if cpus < 3 {
        table.note(format!(
            "{cpus} logical CPUs: producer and consumer each need one, so anything else running (the machine is shared) preempts them; a sample is fast when both run at once and ~100× slower when one waits for the other to be scheduled, so read medians, not means"
        ));
    }
    (table, results)
}

/// Threads of the LRU table.
const LRU_THREADS: [u32; 3] = [1, 2, 4];
/// Spin budgets of the LRU table (with one thread nobody waits, so only the
/// default runs there).
const LRU_BUDGETS: [Budget; 3] = [
    Budget::new(10_000, Budget::DEFAULT.yields),
    Budget::DEFAULT,
    Budget::new(100_000, Budget::DEFAULT.yields),
];
/// Caffeine GetPutBenchmark: SIZE = 2 << 14 keys in the access array,
/// drawn from ITEMS = SIZE / 3 distinct keys, cache capacity 2 × SIZE (so it
/// never evicts: the benchmark measures the lock and the list relinking).
const LRU_SIZE: usize = 2 << 14;
const LRU_ITEMS: u64 = (LRU_SIZE / 3) as u64;

/// The budgets a row count of `threads` runs with.
fn lru_budgets(threads: u32) -> Vec<Budget> {
    if threads == 1 {
        vec![LRU_BUDGETS[1]]
    } else {
        LRU_BUDGETS.to_vec()
    }
}

fn zipf_keys() -> Vec<u64> {
    let gen = ScrambledZipfian::new(LRU_ITEMS);
    let mut rng = SplitMix64::new(0x5eed_0004);
    (0..LRU_SIZE).map(|_| gen.next(&mut rng)).collect()
}

/// One timed run on `cache`: operations per second (all threads) and
/// parks per million operations.
fn lru_once<S: PauseStrategy>(
    cache: &SpinParkMutex<lru::Lru, S>,
    keys: &[u64],
    threads: u32,
    time: Duration,
) -> (f64, f64) {
    let stop = AtomicBool::new(false);
    let parks_before = cache.parks();
    let (ops, secs) = std::thread::scope(|scope| {
        let start = Instant::now();
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let stop = &stop;
                scope.spawn(move || {
                    // Caffeine starts each thread at a random index.
                    let mut i = SplitMix64::new(u64::from(t) + 1).next_u64() as usize;
                    let mut ops = 0u64;
                    // Relaxed: a stop request, checked every 64 operations.
                    while !stop.load(Ordering::Relaxed) {
                        for _ in 0..64 {
                            let key = keys[i & (LRU_SIZE - 1)];
                            // 3 gets to 1 put: Caffeine's readwrite group
                            // runs 6 get threads and 2 put threads.
                            if i & 3 == 3 {
                                cache.lock().put(key, i as u64);
                            } else {
                                black_box(cache.lock().get(key));
                            }
                            i = i.wrapping_add(1);
                        }
                        ops += 64;
                    }
                    ops
                })
            })
            .collect();
        std::thread::sleep(time);
        // Relaxed: a stop request (see the loads).
        stop.store(true, Ordering::Relaxed);
        let ops: u64 = handles.into_iter().map(|h| h.join().expect("lru thread")).sum();
        (ops, start.elapsed().as_secs_f64())
    });
    let parks = cache.parks() - parks_before;
    (ops as f64 / secs, parks as f64 / (ops.max(1) as f64 / 1e6))
}

/// One sample: a fresh copy of the prefilled cache behind a lock spinning
/// with `s` for `budget`, timed once.
fn lru_sample<S: PauseStrategy>(
    s: S,
    cal: &Calibration,
    budget: Budget,
    prefilled: &lru::Lru,
    threads: u32,
    keys: &[u64],
    time: Duration,
) -> (f64, f64) {
    let cache = SpinParkMutex::new(prefilled.clone(), s, budget.limits(cal));
    lru_once(&cache, keys, threads, time)
}

fn lru_table(
    settings: &Settings,
    strategies: &[Candidate],
    cals: &[Calibration],
    cpus: u32,
    bar: &indicatif::ProgressBar,
) -> (Table, Vec<BenchResult>) {
    let load_at_start = load_average();
    let keys = zipf_keys();
    // Caffeine's @Setup: put every drawn key once.
    let mut prefilled = lru::Lru::new(2 * LRU_SIZE);
    for (i, &k) in keys.iter().enumerate() {
        prefilled.put(k, i as u64);
    }
    let mut table = Table::new(
        "spin LRU (HashMap + linked list in access order behind spin::lock; 75% get / 25% put, scrambled Zipfian keys)",
        &["threads", "spin budget", "strategy", "Mops/s", "parks/Mop", "% vs none"],
    );
    let mut results = Vec::new();
    for threads in LRU_THREADS {
        let label = if threads > cpus {
            format!("{threads} (oversubscribed)")
        } else {
            threads.to_string()
        };
        for budget in lru_budgets(threads) {
            let budget_label = budget_label(budget);
            bar.set_message(format!("lru x{threads} {budget_label}"));
            let measured = interleaved(
                settings,
                strategies.len(),
                |i| with_strategy!(strategies[i], s => lru_sample(s, &cals[i], budget, &prefilled, threads, &keys, settings.iteration_time)),
            );
            let base = measured[0].0.median;
            for (c, (stats, parks)) in strategies.iter().zip(&measured) {
                let median = stats.median;
                table.row(vec![
                    label.clone(),
                    budget_label.clone(),
                    c.name(),
                    score(median / 1e6, stats.error / 1e6),
                    format!("{parks:.1}"),
                    percent(median, base),
                ]);
                results.push(
                    BenchResult::new("spin", "lru", Mode::Throughput, stats, "ops/s")
                        .threads(threads)
                        .param("strategy", c.name())
                        .param("spin_ns", budget.spin_ns)
                        .secondary("parks_per_mop", Metric::single(*parks, "parks/Mop")),
                );
                bar.inc(1);
            }
        }
    }
    table.note(format!(
        "Caffeine GetPutBenchmark shape: {LRU_SIZE} pre-drawn keys over {LRU_ITEMS} items (YCSB ScrambledZipfian, θ = 0.99), capacity {} (no evictions)",
        2 * LRU_SIZE
    ));
    table.note(format!(
        "lock waiters spin for the budget (then {} yields) before parking; % against `none` with the same threads and budget",
        Budget::DEFAULT.yields
    ));
    table.note(format!(
        "load average (1, 5, 15 min) when the table started: {load_at_start}"
    ));
    let over: Vec<String> = LRU_THREADS
        .iter()
        .filter(|&&t| t > cpus)
        .map(|t| t.to_string())
        .collect();
    if !over.is_empty() {
        table.note(format!(
            "OVERSUBSCRIBED: this machine has {cpus} logical CPUs, so the {} thread rows run more threads than CPUs: a spinning waiter can hold the CPU the lock holder needs, which is where spinning budgets and parking matter most",
            over.join(", ")
        ));
    }
    (table, results)
}
