//! Spin table 1, pause latency: ns and counter ticks per pause for each
//! strategy alone in a loop on one thread, plus `global` (the dispatched
//! `spin::pause()`), against the bare loop `none`.

use fastpath::spin::{self, PauseStrategy};

use super::Candidate;
use crate::harness::perfnorm::{ProfileTable, Profiler, Region};
use crate::harness::{self, black_box, ticks, Settings};
use crate::report::table::{num, percent, ratio, score};
use crate::report::{BenchResult, Metric, Mode, Table};
use crate::stats::Stats;

/// The measured loop: `n` pauses, one loop iteration per pause even for
/// `none` (as in `Calibration::measure`). Timed by the table, counted by
/// `--prof perfnorm`.
#[inline(always)]
fn pauses<S: PauseStrategy>(s: S, n: u64) {
    for i in 0..n {
        s.pause();
        black_box(i);
    }
}

/// Pauses one profiled run counts: a fraction of a millisecond natively
/// for most strategies, seconds under Valgrind.
const PROFILED_PAUSES: u64 = 20_000;

/// The latency row of `c` as a profiler region (`latency/<id>`).
pub(super) fn region(c: Candidate) -> Region<'static> {
    with_strategy!(c, s => Region::new(PROFILED_PAUSES, move |n| pauses(s, n)))
}

fn latency<S: PauseStrategy>(s: S, settings: &Settings) -> (Stats, f64) {
    let mut total_ticks = 0u64;
    let mut total_pauses = 0u64;
    let stats = harness::measure_ns_per_op(settings, |n| {
        let t0 = ticks::read();
        pauses(s, n);
        total_ticks += ticks::read().wrapping_sub(t0);
        total_pauses += n;
    });
    (stats, total_ticks as f64 / total_pauses.max(1) as f64)
}

pub(super) fn latency_table(
    settings: &Settings,
    all: &[Candidate],
    missing: &[String],
    prof: Option<&Profiler>,
    bar: &indicatif::ProgressBar,
) -> (Vec<Table>, Vec<BenchResult>) {
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
    let mut counters = ProfileTable::new("spin pause latency");
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
        if let Some(p) = prof {
            bar.set_message(format!("perfnorm {}", c.name()));
            let profile = p.profile(&format!("latency/{}", c.id()), region(*c));
            let last = results.pop().expect("just pushed");
            results.push(profile.attach(last));
            counters.push(profile);
        }
    }
    let cal = spin::calibration();
    table
        .note("ns/pause: median of iterations ± 99.9% CI half-width; `none` is the bare loop (the baseline)");
    table.note(format!(
        "ticks: {} counter; its rate measured against CLOCK_MONOTONIC by spin::calibration(): {}",
        ticks::NAME,
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
    let mut tables = vec![table];
    if let Some(p) = prof {
        tables.push(counters.finish(p));
    }
    (tables, results)
}
