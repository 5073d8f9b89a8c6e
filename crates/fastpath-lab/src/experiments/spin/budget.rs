//! Spin table 2, the budget check: a spin budget in nanoseconds is only a
//! promise if the pause loop really spins that long. Each strategy drains a
//! `SpinWait` of 1, 10 and 100 µs (no yields) and the table shows the time
//! it really took; the handoff and LRU tables rely on it.

use std::time::Instant;

use fastpath::spin::{Budget, Calibration, PauseStrategy, SpinWait, Step};

use super::Candidate;
use crate::harness::black_box;
use crate::report::table::{num, percent};
use crate::report::{BenchResult, Metric, Mode, Table};
use crate::stats::Stats;

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
pub(super) fn budget_table(
    quick: bool,
    contention: &[Candidate],
    cals: &[Calibration],
) -> (Table, Vec<BenchResult>) {
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
