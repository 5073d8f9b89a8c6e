//! Spin table 3, handoff: a producer and a consumer pass a token through
//! `spin::handoff` (the seed's SynchronousQueue microbenchmark) per
//! strategy and spin budget, pinned to CPUs 0 and 1, strategies interleaved.

use std::num::NonZeroU32;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fastpath::spin::{handoff_channel, Budget, Calibration, PauseStrategy};

use super::{budget_label, Candidate, ContentionRun};
use crate::harness::interleave;
use crate::report::table::{percent, score};
use crate::report::{BenchResult, Metric, Mode, Table};

/// Spin budgets of the handoff table: (label, budget).
pub(super) const HANDOFF_BUDGETS: [Budget; 6] = [
    Budget::PARK_AT_ONCE,
    Budget::new(1_000, Budget::DEFAULT.yields),
    Budget::new(3_000, Budget::DEFAULT.yields),
    Budget::new(10_000, Budget::DEFAULT.yields),
    Budget::new(30_000, Budget::DEFAULT.yields),
    Budget::new(100_000, Budget::DEFAULT.yields),
];

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
    let (mut tx, mut rx) = handoff_channel(s, budget.limits(cal));
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

pub(super) fn handoff_table(run: &ContentionRun<'_>) -> (Table, Vec<BenchResult>) {
    let ContentionRun {
        settings,
        strategies,
        cals,
        cpus,
        bar,
    } = *run;
    let load_at_start = crate::report::run_info::load_average_line();
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
        let measured = interleave::stats_with_mean(
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
