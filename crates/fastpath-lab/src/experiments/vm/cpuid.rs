//! Table 5, seed 002's measurement (JDK-8283199): cold and warm starts of
//! `Hello`, per CPU-identification source, on fastpath-vm beside HotSpot.
//!
//! Where it sits: the fifth table of `fastpath vm`, on
//! [`startup`](super::startup).
//!
//! fastpath-vm has one source: `fastpath::cpu::info()`, CPUID only, no
//! file, asked lazily (the first `Runtime.availableProcessors()` or `auto`
//! spin pause); it has no switch that makes it read the microcode from
//! /proc/cpuinfo or sysfs at boot, as HotSpot's features string does. Its
//! row is that one source; the per-source rows of the seed on a whole VM
//! need such a switch (the table says so), and `fastpath startup` times
//! the library's sources in a minimal process meanwhile. HotSpot reads
//! the microcode from sysfs since the seed's fix (falling back to
//! /proc/cpuinfo): its row is that. Besides the times, one untimed start
//! of each VM under `strace` lists the files it opens under /proc and
//! /sys, which is what the seed's stall is about.

use std::time::Duration;

use super::launch::Launch;
use super::startup::{time_starts, Starts};
use super::vms::{Engine, RunConfig, Tier};
use super::{Part, VmRun};
use crate::report::table::num;
use crate::report::{BenchResult, Metric, Mode, Table};

/// The files under /proc and /sys a start of `config` opens, from one run
/// under `strace -f`, or why there is no answer.
fn files_opened(run: &VmRun, config: &RunConfig) -> Result<Vec<String>, String> {
    let trace = std::env::temp_dir().join(format!("fastpath-lab-vm-strace-{}", std::process::id()));
    let inner = config.launch(run.setup, &[], "Hello", &[], run.deadline());
    let mut l = Launch::new("strace")
        .args(["-f", "-qq", "-e", "trace=open,openat,openat2", "-o"])
        .args([trace.as_os_str()])
        .args([inner.program.as_os_str()])
        .args(inner.args.iter().cloned())
        .deadline(Duration::from_secs(300));
    l.env = inner.env.clone();
    let o = l.run().map_err(|e| format!("strace: {e:#}"))?;
    let text = std::fs::read_to_string(&trace).unwrap_or_default();
    let _ = std::fs::remove_file(&trace);
    if o.status != Some(0) {
        return Err(format!(
            "strace exited {:?}: {}",
            o.status,
            super::launch::tail(&o.stderr)
        ));
    }
    let mut files: Vec<String> = text
        .lines()
        .filter_map(|l| l.split('"').nth(1))
        .filter(|p| p.starts_with("/proc/") || p.starts_with("/sys/"))
        .map(|p| {
            // One entry per kind of file, not per thread or pid.
            p.split('/')
                .map(|w| {
                    if w.chars().all(|c| c.is_ascii_digit()) && !w.is_empty() {
                        "N"
                    } else {
                        w
                    }
                })
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect();
    files.sort();
    files.dedup();
    Ok(files)
}

/// Measures and builds the table.
pub fn run(run: &VmRun) -> anyhow::Result<Part> {
    // The VM as a user starts it: its default tiers (the interpreter alone
    // without a JIT, which is what `-Xint` asks of such a build).
    let fastpath_tier = if run.setup.jit.is_ok() {
        Tier::Jit
    } else {
        Tier::Interpreter
    };
    let mut configs = vec![run.fastpath(fastpath_tier, "cpuid-only (its one source, lazily)")];
    if run.setup.hotspot.is_ok() {
        configs.push(run.hotspot(Tier::Jit, "sysfs microcode, /proc/cpuinfo fallback (JDK-8283199)"));
    }
    let plan = run.start_plan((2, 5), (10, 30));
    let bar = crate::harness::progress(plan.processes(configs.len()) as u64, "vm cpuid");
    let starts = time_starts(run.setup, &configs, &plan, &bar, 0x51_0005);
    bar.finish_and_clear();

    let mut table = Table::new(
        format!(
            "fastpath vm: seed 002, `Hello` cold ({} starts, {} ms idle before each) and warm ({} back to back), per CPU-identification source",
            plan.cold,
            plan.idle.as_millis(),
            plan.warm
        ),
        &[
            "VM",
            "source",
            "phase",
            "mean ± σ [ms]",
            "median [ms]",
            "min … max [ms]",
            "user [ms]",
            "sys [ms]",
            "cold ÷ warm",
        ],
    );
    let mut results = Vec::new();
    for (c, [cold, warm]) in configs.iter().zip(&starts) {
        for (phase, s) in [("cold", cold), ("warm", warm)] {
            let st = s.stats();
            table.row(vec![
                c.engine.name().to_string(),
                c.label.clone(),
                phase.to_string(),
                st.as_ref().map_or_else(
                    || "failed".into(),
                    |s| format!("{} ± {}", num(s.mean), num(s.stddev)),
                ),
                num(s.median()),
                st.as_ref()
                    .map_or_else(String::new, |s| format!("{} … {}", num(s.min), num(s.max))),
                num(Starts::mean(&s.user_ms)),
                num(Starts::mean(&s.sys_ms)),
                if phase == "cold" {
                    super::rows::times(cold.median(), warm.median())
                } else {
                    String::new()
                },
            ]);
            let Some(st) = st else { continue };
            let source = match c.engine {
                Engine::Fastpath => "cpuid-only",
                Engine::HotSpot => "hotspot-default",
            };
            let mut r = BenchResult::new(
                super::rows::EXPERIMENT,
                "cpuid.Hello",
                Mode::SingleShot,
                &st,
                "ms/op",
            )
            .param("vm", c.engine.name())
            .param("source", source)
            .param("phase", phase)
            .param("idle_ms", plan.idle.as_millis())
            .secondary("user", Metric::single(Starts::mean(&s.user_ms), "ms/op"))
            .secondary("sys", Metric::single(Starts::mean(&s.sys_ms), "ms/op"));
            if phase == "cold" && warm.median().is_finite() {
                r = r.secondary(
                    "median_ratio_cold_over_warm",
                    Metric::single(st.median / warm.median(), "ratio"),
                );
            }
            results.push(r);
        }
    }
    for c in &configs {
        match files_opened(run, c) {
            Ok(f) if f.is_empty() => table.note(format!(
                "{} opens no file under /proc or /sys at start (strace -f)",
                c.engine.name()
            )),
            Ok(f) => table.note(format!(
                "{} opens {} files under /proc and /sys at start (strace -f; digits as N): {}",
                c.engine.name(),
                f.len(),
                f.join(", ")
            )),
            Err(e) => table.note(format!("{}: files opened not listed ({e})", c.engine.name())),
        };
    }
    table.note("fastpath-vm has no CPU-identification switch: it identifies the CPU with CPUID only, lazily, and never reads the microcode, so its one row is that source; the seed's per-source rows on the VM need a switch it does not have (a boot-time read of the features string with the microcode from /proc/cpuinfo or sysfs, selected by a setting); `fastpath startup` times each source of the library in a minimal process");
    table.note("the seed: java -version 45 ms cold (sleep 1 before each) against 25 ms warm while HotSpot read /proc/cpuinfo, 25 ms either way once it read sysfs; a stall shows as cold ÷ warm well above 1");
    if run.quick && plan.idle < Duration::from_millis(1050) {
        table.note(format!(
            "--quick: {} ms idle before a cold start is NOT seed-faithful (the seed sleeps 1 s); run without --quick for that",
            plan.idle.as_millis()
        ));
    }
    for n in run.setup.origin_notes() {
        table.note(n);
    }
    let failed: Vec<&str> = starts
        .iter()
        .flatten()
        .filter_map(|s| s.error.as_deref())
        .collect();
    if !failed.is_empty() {
        table.note(format!("runs that failed: {}", failed.join(" | ")));
    }
    table.note(run.load_note());
    Ok(Part::new(table, results))
}
