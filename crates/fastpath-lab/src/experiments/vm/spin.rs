//! Table 6, seed 004's measurement (JDK-8258604, and JDK-8267502's
//! SynchronousQueue benchmark): the `HandOff` program (a SynchronousQueue
//! hand-off, whose taker spins with `Thread.onSpinWait()` before it
//! parks) and `LruCache` (an access-ordered LinkedHashMap LRU under
//! `synchronized`, Caffeine's `LinkedHashMap_Lru`, whose contended locks
//! spin before they inflate), per `FASTPATH_SPIN_PAUSE` strategy on
//! fastpath-vm, beside HotSpot's `Thread.onSpinWait()`.
//!
//! Where it sits: the last table of `fastpath vm`, on
//! [`measure`](super::measure). Every strategy this CPU can run is a row
//! (`auto`, `none`, `pause`, `tpause` where WAITPKG exists; `isb`, `yield`,
//! `nop`, `sb` on AArch64); `none` is the baseline. HotSpot has no switch
//! for the instruction on x86-64 (`-XX:OnSpinWaitInst` is AArch64's):
//! its rows are its one choice, PAUSE from C2's intrinsic; under `-Xint`
//! `Thread.onSpinWait()` is an empty method, no pause at all.
//!
//! The goal: `auto` at least as fast as every other strategy on the
//! hand-off (within 5%: on x86-64 `auto` is `pause`, the same
//! instruction, so the band is the noise).

use fastpath::spin::SpinPause;

use super::bars::BarChart;
use super::measure::{measure, Cell};
use super::programs::{by_name, Program};
use super::rows::{cell_result, clearly_above, failures_note, ms, times, with_ratio};
use super::vms::{values_here, Engine, RunConfig, Tier};
use super::{Part, VmRun};
use crate::report::{timing_verdict, Table};

/// The goal's band.
const AUTO_BAND: f64 = 1.05;

/// Without a median interval (fewer than 11 samples), a difference counts
/// only beyond this.
const NO_INTERVAL_BAND: f64 = 1.10;

/// The (program, threads) rows.
fn rows(run: &VmRun) -> Vec<(&'static Program, u32)> {
    let hand = by_name("HandOff").expect("in the catalogue");
    let lru = by_name("LruCache").expect("in the catalogue");
    if run.quick {
        vec![(hand, 1), (lru, 2)]
    } else {
        vec![(hand, 1), (hand, 2), (lru, 1), (lru, 2), (lru, 4)]
    }
}

/// Measures and builds the table.
pub fn run(run: &VmRun) -> anyhow::Result<Part> {
    let (strategies, refused) = values_here(SpinPause::VAR, SpinPause::ACCEPTED);
    let mut configs: Vec<RunConfig> = Vec::new();
    for (engine, tier) in run.seed_tiers() {
        match engine {
            Engine::Fastpath => configs.extend(
                strategies
                    .iter()
                    .map(|s| run.fastpath(tier, s).env(SpinPause::VAR, s)),
            ),
            Engine::HotSpot => {
                let label = match tier {
                    Tier::Interpreter => "onSpinWait (an empty method under -Xint)",
                    _ => "onSpinWait (C2: PAUSE)",
                };
                configs.push(run.hotspot(tier, label));
            }
        }
    }
    let rows = rows(run);
    let groups: Vec<Vec<Cell>> = rows
        .iter()
        .map(|&(p, t)| {
            configs
                .iter()
                .map(|c| run.cell(p, p.inner(run.quick), t, c.clone()))
                .collect()
        })
        .collect();
    let plan = run.plan(0);
    let bar = run.progress(&groups, &plan, "vm spin");
    let measured = measure(run.setup, &groups, &plan, &bar, 0x51_0006);
    bar.finish_and_clear();

    let mut table = Table::new(
        format!(
            "fastpath vm: seed 004 on programs, per spin-pause strategy (time per iteration; × none of the same VM and tier; {})",
            run.size_words(&plan)
        ),
        &["program", "threads", "VM", "strategy", "ms/iteration", "× none"],
    );
    let mut results = Vec::new();
    let mut misses = Vec::new();
    let mut checked = Vec::new();
    // Rows where auto is past the band but its interval overlaps the
    // other's: the verdict passes them, and says that it is only the
    // noise that lets them pass.
    let mut within_noise_only = Vec::new();
    let fp_tiers: Vec<Tier> = run
        .seed_tiers()
        .into_iter()
        .filter(|(e, _)| *e == Engine::Fastpath)
        .map(|(_, t)| t)
        .collect();
    let mut chart = BarChart::new(
        "Seed 004 on programs: time per iteration against `none` (fastpath-vm)",
        "× none (below 1: faster than a bare busy loop)",
        1.0,
    );
    let chart_series: Vec<String> = fp_tiers
        .iter()
        .flat_map(|t| {
            strategies
                .iter()
                .filter(|s| **s != "none")
                .map(move |s| format!("{} {s}", t.heading(Engine::Fastpath)))
        })
        .collect();
    for (r, (&(p, t), row)) in rows.iter().zip(&measured).enumerate() {
        let none_of = |tier: Tier| {
            configs
                .iter()
                .position(|c| c.engine == Engine::Fastpath && c.tier == tier && c.label == "none")
        };
        let mut chart_values = Vec::new();
        for (i, c) in configs.iter().enumerate() {
            // HotSpot's rows against fastpath-vm's `none` of the same tier.
            let base = none_of(c.tier).map_or(f64::NAN, |b| row[b].median());
            table.row(vec![
                p.name.to_string(),
                p.threads_label(t),
                c.tier.heading(c.engine).to_string(),
                c.label.clone(),
                ms(&row[i]),
                times(row[i].median(), base),
            ]);
            if c.engine == Engine::Fastpath && c.label != "none" {
                chart_values.push(row[i].median() / base);
            }
            if let Some(stats) = row[i].stats() {
                results.push(with_ratio(
                    cell_result("spin", &groups[r][i], &stats),
                    "ratio_vs_none",
                    stats.median / base,
                ));
            }
        }
        chart.category(format!("{} ×{}", p.name, p.threads_label(t)), chart_values);
        if p.name != "HandOff" {
            continue;
        }
        for &tier in &fp_tiers {
            let of = |s: &str| {
                configs
                    .iter()
                    .position(|c| c.engine == Engine::Fastpath && c.tier == tier && c.label == s)
                    .filter(|&i| row[i].median().is_finite())
            };
            let Some(auto) = of("auto") else { continue };
            let best = strategies
                .iter()
                .filter(|s| **s != "auto")
                .filter_map(|s| of(s).map(|i| (*s, i)))
                .min_by(|a, b| row[a.1].median().total_cmp(&row[b.1].median()));
            if let Some((name, b)) = best {
                let ratio = row[auto].median() / row[b].median();
                let what = format!(
                    "{} ×{} {}: auto {ratio:.3}× the fastest other ({name})",
                    p.name,
                    p.threads_label(t),
                    tier.heading(Engine::Fastpath),
                );
                let intervals = row[auto].stats().and_then(|s| s.median_interval()).is_some();
                let beyond_noise = if intervals {
                    clearly_above(&row[auto], &row[b])
                } else {
                    ratio > NO_INTERVAL_BAND
                };
                if ratio > AUTO_BAND && !beyond_noise {
                    within_noise_only.push(format!("{} ×{}", p.name, p.threads_label(t)));
                }
                if ratio > AUTO_BAND && beyond_noise {
                    misses.push(what.clone());
                }
                checked.push(what);
            }
        }
    }
    if !checked.is_empty() {
        table.note(timing_verdict(
            misses.is_empty(),
            &format!(
                "auto at least as fast as every other strategy on the hand-off (within {:.0}% and the noise: its median interval not above the other's; {:.0}% without intervals): {}",
                (AUTO_BAND - 1.0) * 100.0,
                (NO_INTERVAL_BAND - 1.0) * 100.0,
                checked.join("; ")
            ),
        ));
        if !within_noise_only.is_empty() {
            table.note(format!(
                "that PASS is the noise's on {}: auto was past the band there, and the intervals, wider than the difference, cannot tell it from the fastest (on x86-64 auto and pause are the same instruction); a quieter machine or more rounds decide it",
                within_noise_only.join(", ")
            ));
        }
    }
    table.note(format!(
        "strategies: every FASTPATH_SPIN_PAUSE value this CPU runs ({}){}; auto is HotSpot's choice for the CPU (PAUSE on x86-64)",
        strategies.join(", "),
        if refused.is_empty() { String::new() } else { format!("; not here: {}", refused.join("; ")) }
    ));
    table.note("HotSpot has no onSpinWait switch on x86-64 (-XX:OnSpinWaitInst is AArch64's): its row is its one choice; its × none is against fastpath-vm's none of the same tier, a ratio between two VMs");
    table.note("HandOff: threads are producer/consumer pairs passing items through a SynchronousQueue (the taker spins with Thread.onSpinWait() before it parks); LruCache: threads sharing one synchronized LinkedHashMap (contended locks spin before they inflate); the seed found ISB +14-29% on the LRU and 2.9× on the hand-off on Graviton 2 against NOP/YIELD, where x86's PAUSE has no such alternative");
    run.close_notes(
        &mut table,
        failures_note(measured.iter().flatten().map(|m| m.error.as_deref())),
    );
    let mut part = Part::new(table, results);
    let chart = {
        let mut c = chart;
        c.series = chart_series;
        c
    };
    if chart.has_values() {
        part.plot("vm-spin.svg", chart.to_svg());
    }
    Ok(part)
}
