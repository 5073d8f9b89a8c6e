//! Table 2, seed 001's table on programs (JDK-8291555): each program
//! under the three locking modes of each VM, % against legacy
//! stack-locking, at 1, 2 and 4 threads where the program takes a thread
//! count, and the monitors inflated and deflated per run.
//!
//! Where it sits: the second table of `fastpath vm`, on
//! [`measure`](super::measure). fastpath-vm's modes are
//! `FASTPATH_LOCKING_MODE=legacy|lightweight|monitor`, HotSpot's
//! `-XX:LockingMode=1|2|0` (deprecated in JDK 24, accepted with a warning
//! by 25), HotSpot with the seed's `-XX:+UseParallelGC`. Every program is
//! in the full run, not only the lock-heavy ones: the class library
//! synchronizes too (`PrintStream`, `StringBuffer`, `Hashtable`).
//!
//! % as the seed wrote it: `legacy ÷ mode − 1`, positive when the mode is
//! faster than stack-locking. Monitors are counted in the warm-up run of
//! each configuration: HotSpot's `-Xlog:monitorinflation=trace` lines
//! (`inflate:` and `deflate_monitor:`) in a run of its own, so the timed
//! runs log nothing; fastpath-vm's from a `fastpath-vm sync:` line on
//! stderr at exit (`FASTPATH_VM_SYNC_STATS=1`, the library's
//! `sync::stats` as its `Display` writes them), where the VM prints one.
//!
//! The goal: lightweight locking at least as fast as legacy on every
//! program, as the seed found it (within its ±3%): a program misses it
//! when lightweight is more than 3% slower and that is beyond the noise.

use fastpath::sync::LockingMode;

use super::bars::BarChart;
use super::measure::{Cell, Measured};
use super::programs::Program;
use super::rows::{cell_result, clearly_above, failures_note, faster_pct, ms, pct, with_ratio};
use super::vms::{Engine, RunConfig, Tier};
use super::{Part, VmRun};
use crate::report::{timing_verdict, Metric, Table};

/// The variable the VM prints its monitor counts for (a request to the
/// VM: see the table's note when it prints none).
pub const SYNC_STATS_VAR: &str = "FASTPATH_VM_SYNC_STATS";

/// The seed's band: differences within ±3% were noise on its metal.
const SEED_BAND_PCT: f64 = 3.0;

/// Without a median interval (fewer than 11 samples), a slowdown counts
/// only beyond this.
const NO_INTERVAL_BAND_PCT: f64 = 10.0;

/// A locking mode of both VMs, legacy (the baseline) first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Legacy,
    Lightweight,
    Monitor,
}

const MODES: [Mode; 3] = [Mode::Legacy, Mode::Lightweight, Mode::Monitor];

impl Mode {
    fn fastpath(self) -> LockingMode {
        match self {
            Mode::Legacy => LockingMode::Legacy,
            Mode::Lightweight => LockingMode::Lightweight,
            Mode::Monitor => LockingMode::Monitor,
        }
    }

    /// HotSpot's `-XX:LockingMode` value.
    fn hotspot(self) -> u32 {
        match self {
            Mode::Monitor => 0,
            Mode::Legacy => 1,
            Mode::Lightweight => 2,
        }
    }

    fn label(self, engine: Engine) -> String {
        match engine {
            Engine::Fastpath => self.fastpath().name().to_string(),
            Engine::HotSpot => format!("LockingMode={}", self.hotspot()),
        }
    }
}

/// Monitors a run inflated and deflated, if its VM said.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MonitorCounts {
    /// Monitors installed.
    pub inflated: u64,
    /// Monitors deflated back into their headers.
    pub deflated: u64,
}

/// HotSpot's counts from a `-Xlog:monitorinflation=trace` log. JDK 25
/// writes an installation two ways: `inflate: object=…` from the
/// lightweight synchronizer (`LockingMode=2`), and `inflate(<mark's
/// state>): object=…` (`unlocked`, `has_locker`, `neutral`, …) from
/// `ObjectSynchronizer::inflate`, which legacy and monitor modes use; a
/// deflation is `deflate_monitor: object=…` in every mode.
pub fn hotspot_counts(log: &str) -> MonitorCounts {
    let message = |l: &str| -> Option<String> {
        let m = &l[l.find("[monitorinflation]")? + "[monitorinflation]".len()..];
        Some(m.trim_start().to_string())
    };
    let mut counts = MonitorCounts::default();
    for m in log.lines().filter_map(message) {
        if !m.contains("object=") {
            continue;
        }
        if m.starts_with("inflate:") || m.starts_with("inflate(") {
            counts.inflated += 1;
        } else if m.starts_with("deflate_monitor:") {
            counts.deflated += 1;
        }
    }
    counts
}

/// fastpath-vm's counts from its `fastpath-vm sync: monitors installed: N
/// (…); … deflated: M in …` line, if it printed one.
pub fn fastpath_counts(stderr: &str) -> Option<MonitorCounts> {
    let line = stderr.lines().find_map(|l| l.strip_prefix("fastpath-vm sync:"))?;
    let after = |key: &str| -> Option<u64> {
        let rest = &line[line.find(key)? + key.len()..];
        rest.split(|c: char| !c.is_ascii_digit())
            .find(|w| !w.is_empty())?
            .parse()
            .ok()
    };
    Some(MonitorCounts {
        inflated: after("monitors installed:")?,
        deflated: after("deflated:")?,
    })
}

/// The configuration of `mode` on `engine` at `tier`.
fn config(run: &VmRun, engine: Engine, tier: Tier, mode: Mode) -> RunConfig {
    match engine {
        Engine::Fastpath => run
            .fastpath(tier, &mode.label(engine))
            .env(LockingMode::VAR, mode.fastpath().name())
            .env(SYNC_STATS_VAR, "1"),
        Engine::HotSpot => run.hotspot(tier, &mode.label(engine)).flags([
            "-XX:+UseParallelGC".to_string(),
            format!("-XX:LockingMode={}", mode.hotspot()),
        ]),
    }
}

/// The (program, threads) rows of the table.
fn rows(run: &VmRun) -> Vec<(&'static Program, u32)> {
    let programs = run.programs(&["SyncCounter", "LruCache"], None);
    let mut rows = Vec::new();
    for p in programs {
        let threads: &[u32] = match (p.threaded(), run.quick) {
            (false, _) => &[1],
            (true, true) => &[2],
            (true, false) => &[1, 2, 4],
        };
        rows.extend(threads.iter().map(|&t| (p, t)));
    }
    rows
}

/// Measures and builds the tables (one per VM tier) and the plot.
pub fn run(run: &VmRun) -> anyhow::Result<Part> {
    let tiers = run.seed_tiers();
    let rows = rows(run);
    let mut skipped = Vec::new();
    let configs: Vec<RunConfig> = tiers
        .iter()
        .flat_map(|&(e, t)| MODES.map(|m| config(run, e, t, m)))
        .filter(|c| match c.runnable(run.setup) {
            Ok(()) => true,
            Err(e) => {
                skipped.push(format!("{} not run: {e}", c.describe()));
                false
            }
        })
        .collect();
    let groups: Vec<Vec<Cell>> = rows
        .iter()
        .map(|&(p, t)| {
            configs
                .iter()
                .map(|c| {
                    let mut cell = run.cell(p, p.inner(run.quick), t, c.clone());
                    if c.engine == Engine::HotSpot {
                        cell.warmup_extra = vec!["-Xlog:monitorinflation=trace:stderr".into()];
                    }
                    cell
                })
                .collect()
        })
        .collect();
    let (plan, measured) = run.measure(&groups, 1, "vm locking", 0x51_0002);

    let mut part: Option<Part> = None;
    let mut results = Vec::new();
    let mut chart = BarChart::new(
        "Seed 001 on programs: lightweight locking against legacy stack-locking",
        "% faster than legacy (legacy ÷ lightweight − 1; positive: lightweight is faster)",
        0.0,
    );
    let mut chart_rows: Vec<(String, Vec<f64>)> = rows
        .iter()
        .map(|(p, t)| (format!("{} ×{}", p.name, p.threads_label(*t)), Vec::new()))
        .collect();
    let mut series = Vec::new();
    let mut misses = Vec::new();
    // Rows past the seed's band that pass only because their interval
    // overlaps legacy's: the verdict says so.
    let mut within_noise_only = Vec::new();
    let mut checked = 0;
    let mut fastpath_counted = false;
    for &(engine, tier) in &tiers {
        let idx: Vec<Option<usize>> = MODES
            .iter()
            .map(|m| {
                configs
                    .iter()
                    .position(|c| c.engine == engine && c.tier == tier && c.label == m.label(engine))
            })
            .collect();
        let Some(legacy) = idx[0] else { continue };
        let heading = tier.heading(engine);
        series.push(heading.to_string());
        let mut table = Table::new(
            format!(
                "fastpath vm: seed 001 on programs, {heading} per locking mode (% = legacy ÷ mode − 1: positive, faster than stack-locking; {})",
                run.size_words(&plan)
            ),
            &[
                "program",
                "threads",
                "legacy [ms]",
                "lightweight [ms]",
                "lightweight %",
                "monitor [ms]",
                "monitor %",
                "inflated (legacy / lightweight / monitor)",
                "deflated",
            ],
        );
        for (r, (&(p, t), row)) in rows.iter().zip(&measured).enumerate() {
            let get = |k: usize| -> Option<&Measured> { idx[k].map(|i| &row[i]) };
            let base = row[legacy].median();
            let m_pct = |k: usize| get(k).map_or(f64::NAN, |m| faster_pct(m.median(), base));
            let counts: Vec<Option<MonitorCounts>> = (0..3)
                .map(|k| {
                    let w = get(k)?.warmup.as_ref()?;
                    match engine {
                        Engine::HotSpot => Some(hotspot_counts(&w.stderr)),
                        Engine::Fastpath => fastpath_counts(&w.stderr),
                    }
                })
                .collect();
            fastpath_counted |= engine == Engine::Fastpath && counts.iter().any(Option::is_some);
            let show = |f: fn(&MonitorCounts) -> u64| {
                counts
                    .iter()
                    .map(|c| c.as_ref().map_or_else(|| "?".to_string(), |c| f(c).to_string()))
                    .collect::<Vec<_>>()
                    .join(" / ")
            };
            table.row(vec![
                p.name.to_string(),
                p.threads_label(t),
                ms(&row[legacy]),
                get(1).map_or_else(|| "-".into(), ms),
                pct(m_pct(1)),
                get(2).map_or_else(|| "-".into(), ms),
                pct(m_pct(2)),
                show(|c| c.inflated),
                show(|c| c.deflated),
            ]);
            chart_rows[r].1.push(m_pct(1));
            // The goal, on fastpath-vm's tiers.
            if let (Engine::Fastpath, Some(lw)) = (engine, get(1)) {
                let slower = -faster_pct(lw.median(), base);
                if slower.is_finite() {
                    checked += 1;
                    let intervals = lw.stats().and_then(|s| s.median_interval()).is_some();
                    let beyond_noise = if intervals {
                        clearly_above(lw, &row[legacy])
                    } else {
                        slower > NO_INTERVAL_BAND_PCT
                    };
                    if slower > SEED_BAND_PCT && !beyond_noise {
                        within_noise_only.push(format!(
                            "{} ×{} ({})",
                            p.name,
                            p.threads_label(t),
                            pct(-slower)
                        ));
                    }
                    if slower > SEED_BAND_PCT && beyond_noise {
                        misses.push(format!(
                            "{} ×{} on the {heading}: {}",
                            p.name,
                            p.threads_label(t),
                            pct(-slower)
                        ));
                    }
                }
            }
            for (k, &i) in idx.iter().enumerate() {
                let Some(i) = i else { continue };
                let cell = &groups[r][i];
                let Some(stats) = row[i].stats() else { continue };
                let mut res = with_ratio(
                    cell_result("locking", cell, &stats),
                    "ratio_vs_legacy",
                    stats.median / base,
                )
                .param("mode", MODES[k].fastpath().name());
                if let Some(c) = counts[k] {
                    res = res
                        .secondary("monitors_inflated", Metric::single(c.inflated as f64, "#/run"))
                        .secondary("monitors_deflated", Metric::single(c.deflated as f64, "#/run"));
                }
                results.push(res);
            }
        }
        if engine == Engine::Fastpath && !fastpath_counted {
            table.note(format!(
                "inflated/deflated ?: fastpath-vm prints no monitor counts (it would print a `fastpath-vm sync: <fastpath::sync::stats()>` line on stderr at exit under {SYNC_STATS_VAR}=1; not in this build)"
            ));
        }
        if engine == Engine::HotSpot {
            table.note("HotSpot: -XX:+UseParallelGC as the seed; monitors counted from -Xlog:monitorinflation=trace (its inflate: and inflate(<mark state>): lines, and deflate_monitor:) in an untimed run of the same configuration; -XX:LockingMode is deprecated in JDK 24+ and HotSpot says so once per run; JDK 25 deflates when the monitors in use pass MonitorUsedDeflationThreshold (90% of its ceiling) or every GuaranteedAsyncDeflationInterval (60 s), so runs of seconds deflate nothing");
        }
        table.note("each figure: the median time per iteration ± its 99.9% interval, the second half of every process's iterations, configurations interleaved in rounds of whole processes; threads: the Harness's thread count (pairs: producer/consumer pairs)");
        match &mut part {
            None => part = Some(Part::new(table, Vec::new())),
            Some(p) => p.table(table),
        }
    }
    let mut part = part.ok_or_else(|| anyhow::anyhow!("no locking configuration could run"))?;
    let verdict = if misses.is_empty() {
        timing_verdict(
            true,
            &format!("lightweight locking at least as fast as legacy (within the seed's ±{SEED_BAND_PCT}%) on all {checked} program rows of fastpath-vm"),
        )
    } else {
        timing_verdict(
            false,
            &format!(
                "lightweight locking slower than legacy beyond ±{SEED_BAND_PCT}% and the noise on {} of {checked} fastpath-vm rows: {}",
                misses.len(),
                misses.join(", ")
            ),
        )
    };
    let last = part.tables.last_mut().expect("one table");
    last.note(verdict);
    if !within_noise_only.is_empty() {
        last.note(format!(
            "lightweight was slower than legacy beyond ±{SEED_BAND_PCT}% on {}, and passes only because the intervals overlap: this run cannot tell those rows from legacy either way",
            within_noise_only.join(", ")
        ));
    }
    last.note(format!("the goal's rule: a row misses when lightweight is more than {SEED_BAND_PCT}% slower than legacy and its 99.9% median interval lies above legacy's (rows with fewer than 11 samples: more than {NO_INTERVAL_BAND_PCT}% slower)"));
    for s in &skipped {
        last.note(s.clone());
    }
    run.close_notes(
        last,
        failures_note(measured.iter().flatten().map(|m| m.error.as_deref())),
    );
    chart = chart.series(series);
    for (name, v) in chart_rows {
        chart.category(name, v);
    }
    if chart.has_values() {
        part.plot("vm-locking.svg", chart.to_svg());
    }
    part.results = results;
    Ok(part)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hotspot_counts_come_from_its_trace_lines() {
        let log = "[0.1s][trace][monitorinflation] inflate: object=0x1, mark=0x2, type='java.lang.Object'\n\
                   [0.2s][trace][monitorinflation] inflate: object=0x3, mark=0x2, type='SyncCounter'\n\
                   [0.3s][trace][monitorinflation] deflate_monitor: object=0x1, mark=0x2, type='java.lang.Object'\n\
                   [0.3s][info][monitorinflation] deflated_count=1, {unlinked,deleted}_count=1 monitors in 0.0 secs\n";
        assert_eq!(
            hotspot_counts(log),
            MonitorCounts {
                inflated: 2,
                deflated: 1
            }
        );
        // Legacy and monitor modes name the mark's state.
        let legacy = "[0.1s][trace][monitorinflation] inflate(unlocked): object=0x1, mark=0x1, type='[I'\n\
                      [0.2s][trace][monitorinflation] inflate(has_locker): object=0x3, mark=0x7f, type='SyncCounter'\n\
                      [0.2s][info ][monitorinflation] In-use monitor info (eliding idle monitors):\n";
        assert_eq!(
            hotspot_counts(legacy),
            MonitorCounts {
                inflated: 2,
                deflated: 0
            }
        );
    }

    #[test]
    fn fastpath_counts_read_the_sync_stats_display() {
        // `fastpath::sync::stats::SyncStats`'s Display, after the prefix.
        let line = "fastpath-vm sync: monitors installed: 7 (contention=5, wait=2); notifies on an inflated object: 0; freed with their object: 1; released at thread exit: 0; deflated: 3 in 2 passes (15 µs); fair hand-offs: 0";
        assert_eq!(
            fastpath_counts(&format!("warning\n{line}\n")),
            Some(MonitorCounts {
                inflated: 7,
                deflated: 3
            })
        );
        assert_eq!(fastpath_counts("fastpath-vm gc: 0 cycles"), None);
        // And the library's own line, whatever its counts are now.
        let s = fastpath::sync::stats();
        assert_eq!(
            fastpath_counts(&format!("fastpath-vm sync: {s}")),
            Some(MonitorCounts {
                inflated: s.monitors_installed(),
                deflated: s.monitors_deflated
            })
        );
    }

    #[test]
    fn modes_map_to_hotspots_numbers() {
        assert_eq!(MODES.map(Mode::hotspot), [1, 2, 0]);
        assert_eq!(Mode::Legacy.label(Engine::Fastpath), "legacy");
        assert_eq!(Mode::Monitor.label(Engine::HotSpot), "LockingMode=0");
    }
}
