//! Table 4, seed 000's start-up measurement (JDK-8353558): whole-process
//! starts of `Hello` with `-Xcomp` (every method compiled and installed
//! before it runs, so the code cache syncs the instruction cache once per
//! method) and with the default tiers, per icache-sync strategy, cold and
//! warm; fastpath-vm per `FASTPATH_ICACHE_SYNC` beside HotSpot per
//! `-XX:X86ICacheSync=0..5`.
//!
//! Where it sits: the fourth table of `fastpath vm`, on
//! [`startup`](super::startup). Baselines: `none` and mode 0 (no sync at
//! all, the seed's "lowest overhead baseline"). The goal: fastpath-vm's
//! `auto` within 1.1× of its fastest strategy (warm `-Xcomp` starts, the
//! seed's hyperfine runs).
//!
//! fastpath-vm installs code only through a JIT: without one (the VM
//! refuses `-Xcomp`) its starts would time the interpreter under every
//! strategy alike, so its rows are left out and the table says so;
//! HotSpot's are measured either way.

use std::time::Duration;

use fastpath::code::ICacheSync;

use super::bars::BarChart;
use super::rows::{failures_note, slower_pct, times};
use super::startup::{time_starts, Starts};
use super::vms::{values_here, Engine, RunConfig, Tier};
use super::{Part, VmRun};
use crate::report::table::num;
use crate::report::{timing_verdict, BenchResult, Metric, Mode, Table};

/// HotSpot's modes (`src/hotspot/cpu/x86/globals_x86.hpp`, JDK 25).
const HOTSPOT_MODES: [(u32, &str); 6] = [
    (0, "no sync"),
    (1, "CLFLUSH loop"),
    (2, "CLFLUSHOPT loop"),
    (3, "CLWB loop"),
    (4, "CPUID"),
    (5, "SERIALIZE"),
];

/// The goal's limit: `auto` within this factor of the fastest strategy.
const AUTO_LIMIT: f64 = 1.1;

/// HotSpot's own choice of mode on this CPU (`-XX:+PrintFlagsFinal`).
fn hotspot_default_mode(run: &VmRun) -> Option<u32> {
    let h = run.setup.hotspot.as_ref().ok()?;
    let o = super::launch::Launch::new(&h.java)
        .args([
            "-XX:+UnlockDiagnosticVMOptions",
            "-XX:+PrintFlagsFinal",
            "-version",
        ])
        .deadline(Duration::from_secs(120))
        .run_ok()
        .ok()?;
    o.stdout
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("X86ICacheSync"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|v| v.parse().ok())
}

/// How much code one `-Xcomp` start of `Hello` installs on each VM (each
/// installed method is one icache sync): fastpath-vm's
/// `FASTPATH_VM_JIT_LOG` summary, HotSpot's `-XX:+PrintCompilation` lines.
fn installed_note(run: &VmRun) -> String {
    let mut parts = Vec::new();
    if run.setup.jit.is_ok() {
        let o = run
            .fastpath(Tier::Xcomp, "auto")
            .env("FASTPATH_VM_JIT_LOG", "1")
            .launch(run.setup, &[], "Hello", &[], run.deadline())
            .run_ok();
        parts.push(match o {
            Ok(o) => o
                .stderr
                .lines()
                .find_map(|l| l.strip_prefix("fastpath-vm jit: "))
                .map_or_else(
                    || "fastpath-vm: no JIT summary".to_string(),
                    |l| format!("fastpath-vm {l}"),
                ),
            Err(e) => format!("fastpath-vm: {e:#}"),
        });
    }
    if run.setup.hotspot.is_ok() {
        let o = run
            .hotspot(Tier::Xcomp, "default")
            .launch(
                run.setup,
                &["-XX:+PrintCompilation".to_string()],
                "Hello",
                &[],
                run.deadline(),
            )
            .run_ok();
        parts.push(match o {
            Ok(o) => {
                let compiled = o
                    .stdout
                    .lines()
                    .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
                    .count();
                format!("HotSpot {compiled} compilations (-XX:+PrintCompilation lines, C1 and C2)")
            }
            Err(e) => format!("HotSpot: {e:#}"),
        });
    }
    format!(
        "code one -Xcomp start of Hello installs (one icache sync each): {}",
        parts.join("; ")
    )
}

/// Measures and builds the table.
pub fn run(run: &VmRun) -> anyhow::Result<Part> {
    let tiers: &[Tier] = if run.quick {
        &[Tier::Jit]
    } else {
        &[Tier::Xcomp, Tier::Jit]
    };
    let mut configs: Vec<RunConfig> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let (strategies, refused) = values_here(ICacheSync::VAR, ICacheSync::ACCEPTED);
    match &run.setup.jit {
        Ok(()) => {
            for &tier in tiers {
                for s in &strategies {
                    configs.push(run.fastpath(tier, s).env(ICacheSync::VAR, s));
                }
            }
            if !refused.is_empty() {
                notes.push(format!("fastpath-vm strategies this CPU cannot run: {}", refused.join("; ")));
            }
        }
        Err(why) => notes.push(format!(
            "fastpath-vm JIT: not in this build ({why}): its interpreter installs no code, so its starts would be the same under every strategy; its rows are left out and the auto goal is not checked"
        )),
    }
    let hotspot_default = hotspot_default_mode(run);
    if run.setup.hotspot.is_ok() {
        for &tier in tiers {
            for (mode, what) in HOTSPOT_MODES {
                let c = run.hotspot(tier, &format!("X86ICacheSync={mode}")).flags([
                    "-XX:+UnlockDiagnosticVMOptions".to_string(),
                    format!("-XX:X86ICacheSync={mode}"),
                ]);
                match c.runnable(run.setup) {
                    Ok(()) => configs.push(c),
                    Err(e) => notes.push(format!("HotSpot X86ICacheSync={mode} ({what}) not run: {e}")),
                }
            }
        }
    }
    if run.quick {
        notes.push("--quick: the default tiers only and few starts; -Xcomp (every method installed, the seed's point) runs without --quick".into());
    }
    let plan = run.start_plan((1, 3), (5, 15));
    let bar = crate::harness::progress(plan.processes(configs.len()) as u64, "vm icache");
    let starts = time_starts(run.setup, &configs, &plan, &bar, 0x51_0004);
    bar.finish_and_clear();

    let mut table = Table::new(
        format!(
            "fastpath vm: seed 000 on start-up, `Hello` per icache-sync strategy ({} cold starts after {} ms idle, {} warm; medians)",
            plan.cold,
            plan.idle.as_millis(),
            plan.warm
        ),
        &[
            "VM",
            "tier",
            "strategy",
            "warm mean ± σ [ms]",
            "warm median [ms]",
            "user [ms]",
            "sys [ms]",
            "× baseline",
            "cold median [ms]",
            "cold × baseline",
        ],
    );
    let mut results = Vec::new();
    let mut chart = BarChart::new(
        "Start-up per icache strategy, warm (% against no sync)",
        "% wall time against none / X86ICacheSync=0 (same VM and tier)",
        0.0,
    )
    .series(["warm"]);
    let baseline_of = |c: &RunConfig| -> Option<usize> {
        let base = match c.engine {
            Engine::Fastpath => "none",
            Engine::HotSpot => "X86ICacheSync=0",
        };
        configs
            .iter()
            .position(|b| b.engine == c.engine && b.tier == c.tier && b.label == base)
    };
    for (i, c) in configs.iter().enumerate() {
        let [cold, warm] = &starts[i];
        let base = baseline_of(c);
        let (bw, bc) = base.map_or((f64::NAN, f64::NAN), |b| {
            (starts[b][1].median(), starts[b][0].median())
        });
        let label = match (c.engine, hotspot_default) {
            (Engine::HotSpot, Some(d)) if c.label == format!("X86ICacheSync={d}") => {
                format!("{} (HotSpot's default here)", c.label)
            }
            _ => c.label.clone(),
        };
        table.row(vec![
            c.engine.name().to_string(),
            c.tier.heading(c.engine).to_string(),
            label,
            warm.stats().map_or_else(
                || "failed".into(),
                |s| format!("{} ± {}", num(s.mean), num(s.stddev)),
            ),
            num(warm.median()),
            num(Starts::mean(&warm.user_ms)),
            num(Starts::mean(&warm.sys_ms)),
            times(warm.median(), bw),
            num(cold.median()),
            times(cold.median(), bc),
        ]);
        chart.category(
            format!("{} {} {}", c.engine.name(), c.tier.name(), c.label),
            vec![slower_pct(warm.median(), bw)],
        );
        for (phase, s) in [("cold", cold), ("warm", warm)] {
            let Some(st) = s.stats() else { continue };
            let mut r = BenchResult::new(
                super::rows::EXPERIMENT,
                "icache.Hello",
                Mode::SingleShot,
                &st,
                "ms/op",
            )
            .param("vm", c.engine.name())
            .param("tier", c.tier.name())
            .param("config", &c.label)
            .param("phase", phase)
            .secondary("user", Metric::single(Starts::mean(&s.user_ms), "ms/op"))
            .secondary("sys", Metric::single(Starts::mean(&s.sys_ms), "ms/op"));
            let b = if phase == "cold" { bc } else { bw };
            if b.is_finite() {
                r = r.secondary("median_ratio_vs_no_sync", Metric::single(st.median / b, "ratio"));
            }
            results.push(r);
        }
    }
    // The goal, on fastpath-vm's -Xcomp warm starts (the seed's); the
    // default tiers' verdict beside it.
    if run.setup.jit.is_ok() {
        for &tier in tiers {
            let of = |label: &str| {
                configs
                    .iter()
                    .position(|c| c.engine == Engine::Fastpath && c.tier == tier && c.label == label)
                    .map(|i| starts[i][1].median())
            };
            let auto = of("auto").unwrap_or(f64::NAN);
            let fastest = strategies
                .iter()
                .filter(|s| **s != "auto")
                .filter_map(|s| of(s).map(|m| (*s, m)))
                .filter(|(_, m)| m.is_finite())
                .min_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((name, best)) = fastest {
                let r = auto / best;
                table.note(timing_verdict(
                    r <= AUTO_LIMIT,
                    &format!(
                        "auto's start-up {:.3}× the fastest explicit strategy ({name}, {} ms) on {} warm starts (goal ≤ {AUTO_LIMIT}×{})",
                        r,
                        num(best),
                        tier.heading(Engine::Fastpath),
                        if tier == Tier::Xcomp { ", the seed's -Xcomp" } else { "" }
                    ),
                ));
            }
        }
    }
    if !run.quick {
        table.note(installed_note(run));
    }
    for n in notes {
        table.note(n);
    }
    table.note("wall time spans spawn to exit (fork, exec, loading, the VM's start, Hello, the exit); user/sys: the child's CPU time from wait4; × baseline: ratio of medians against no sync (fastpath-vm none, HotSpot X86ICacheSync=0) of the same VM and tier");
    table.note("the seed timed -XX:X86ICacheSync=0..4 on a Ryzen 5950X: JavacBenchApp with an AOT cache 362 ms (no sync) to 384 ms (CLFLUSH), HelloStream 30.9 to 31.7 ms; peers/jvm/startup.py runs HotSpot alone with an AOT cache");
    run.close_notes(
        &mut table,
        failures_note(starts.iter().flatten().map(|s| s.error.as_deref())),
    );
    let mut part = Part::new(table, results);
    if chart.has_values() {
        part.plot("vm-icache.svg", chart.to_svg());
    }
    Ok(part)
}
