//! Spin table 4, LRU: Caffeine's GetPutBenchmark `LinkedHashMap_Lru` shape
//! (a HashMap + linked-list LRU behind `spin::lock`) with 1, 2 and 4
//! threads, 75% get / 25% put over scrambled-Zipfian keys, per strategy and
//! spin budget, strategies interleaved.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fastpath::spin::{Budget, Calibration, PauseStrategy, SpinParkMutex};

use super::{budget_label, lru, Candidate, ContentionRun};
use crate::harness::zipf::{ScrambledZipfian, SplitMix64};
use crate::harness::{black_box, interleave};
use crate::report::table::{percent, score};
use crate::report::{BenchResult, Metric, Mode, Table};

/// Threads of the LRU table.
pub(super) const LRU_THREADS: [u32; 3] = [1, 2, 4];
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
pub(super) fn lru_budgets(threads: u32) -> Vec<Budget> {
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

pub(super) fn lru_table(run: &ContentionRun<'_>) -> (Table, Vec<BenchResult>) {
    let ContentionRun { cals, cpus, .. } = *run;
    let load_at_start = crate::report::run_info::load_average_line();
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
            run.bar.set_message(format!("lru x{threads} {budget_label}"));
            let measured = interleave::stats_with_mean(
                run.settings,
                run.strategies.len(),
                |i| with_strategy!(run.strategies[i], s => lru_sample(s, &cals[i], budget, &prefilled, threads, &keys, run.settings.iteration_time)),
            );
            let base = measured[0].0.median;
            for (c, (stats, parks)) in run.strategies.iter().zip(&measured) {
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
                run.bar.inc(1);
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
