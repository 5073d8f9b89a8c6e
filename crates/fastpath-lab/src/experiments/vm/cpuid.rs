//! Table 5, seed 002's measurement (JDK-8283199): cold and warm starts of
//! `Hello`, per CPU-identification source, on fastpath-vm beside HotSpot.
//!
//! Where it sits: the fifth table of `fastpath vm`, on
//! [`startup`](super::startup).
//!
//! fastpath-vm's source is `FASTPATH_VM_CPU_SOURCE` (the VM's
//! `runtime::launch::cpu_source`): `lazy` (its default: nothing at start,
//! CPUID when first asked), `cpuid-only`, `proc-cpuinfo` (the microcode
//! from /proc/cpuinfo: HotSpot before the seed's fix), `sysfs-microcode`
//! and `features-string-with-microcode` (sysfs, falling back to
//! /proc/cpuinfo: HotSpot after it), the names of `fastpath startup`, which
//! times the same library calls in a minimal process. Every source is a row,
//! cold and warm, with its median against `lazy` in the same phase. HotSpot
//! has no such switch: its row is its own source since the fix (sysfs, then
//! /proc/cpuinfo). A VM given with `--vm` that lacks the variable (it would
//! ignore it, and every row would be the same start) is asked first, and
//! then runs its one row. Besides the times, one untimed start of each row
//! under `strace` lists the files it opens under /proc and /sys, which is
//! what the seed's stall is about, and one with `FASTPATH_VM_CPU_LOG=1`
//! gives each source's own cost inside the process.

use std::time::Duration;

use super::launch::Launch;
use super::rows::failures_note;
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

/// fastpath-vm's variable and its values (`runtime::launch::cpu_source`).
const SOURCE_VAR: &str = "FASTPATH_VM_CPU_SOURCE";
const SOURCES: [&str; 5] = [
    "lazy",
    "cpuid-only",
    "proc-cpuinfo",
    "sysfs-microcode",
    "features-string-with-microcode",
];

/// Whether `run`'s fastpath-vm refuses a value of [`SOURCE_VAR`] that is
/// not a source (so it reads the variable), or what it did instead.
fn has_source_switch(run: &VmRun, base: &RunConfig) -> Result<(), String> {
    let probe = base.clone().env(SOURCE_VAR, "no-such-source");
    let o = probe
        .launch(run.setup, &[], "Hello", &[], run.deadline())
        .run()
        .map_err(|e| format!("{e:#}"))?;
    if o.status == Some(1) && o.stderr.contains(SOURCE_VAR) {
        Ok(())
    } else {
        Err(format!(
            "{SOURCE_VAR}=no-such-source: exit {:?}, stderr {:?}: this VM does not read the variable",
            o.status,
            super::launch::tail(&o.stderr)
        ))
    }
}

/// The identification line a start of `config` prints under
/// `FASTPATH_VM_CPU_LOG=1`, shortened to the source, its cost and its
/// microcode answer (the features string left out).
fn identification_line(run: &VmRun, config: &RunConfig) -> Result<String, String> {
    let o = config
        .clone()
        .env("FASTPATH_VM_CPU_LOG", "1")
        .launch(run.setup, &[], "Hello", &[], run.deadline())
        .run_ok()
        .map_err(|e| format!("{e:#}"))?;
    let line = o
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("fastpath-vm cpu: source "))
        .ok_or_else(|| "no identification line".to_string())?;
    // Up to the features string, which starts with its "(N cores" prefix.
    let short = line.split("; (").next().unwrap_or(line);
    Ok(short.to_string())
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
    let base = run.fastpath(fastpath_tier, "lazy");
    let switch = has_source_switch(run, &base);
    let mut configs: Vec<RunConfig> = match &switch {
        Ok(()) => SOURCES
            .iter()
            .map(|s| run.fastpath(fastpath_tier, s).env(SOURCE_VAR, s))
            .collect(),
        Err(_) => vec![run.fastpath(fastpath_tier, "cpuid-only (its one source, lazily)")],
    };
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
            "× lazy (same phase)",
            "cold ÷ warm",
        ],
    );
    let lazy = configs
        .iter()
        .position(|c| c.engine == Engine::Fastpath && c.label == "lazy");
    let mut results = Vec::new();
    for (c, [cold, warm]) in configs.iter().zip(&starts) {
        for (k, (phase, s)) in [("cold", cold), ("warm", warm)].into_iter().enumerate() {
            let st = s.stats();
            let lazy_median = lazy.map_or(f64::NAN, |l| starts[l][k].median());
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
                if c.engine == Engine::Fastpath {
                    super::rows::times(s.median(), lazy_median)
                } else {
                    String::new()
                },
                if phase == "cold" {
                    super::rows::times(cold.median(), warm.median())
                } else {
                    String::new()
                },
            ]);
            let Some(st) = st else { continue };
            let source = match (c.engine, &switch) {
                (Engine::Fastpath, Ok(())) => c.label.as_str(),
                (Engine::Fastpath, Err(_)) => "cpuid-only",
                (Engine::HotSpot, _) => "hotspot-default",
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
            if c.engine == Engine::Fastpath && lazy_median.is_finite() {
                r = r.secondary(
                    "median_ratio_vs_lazy",
                    Metric::single(st.median / lazy_median, "ratio"),
                );
            }
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
        let who = match c.engine {
            Engine::Fastpath => format!("fastpath-vm {}", c.label),
            Engine::HotSpot => "HotSpot".to_string(),
        };
        match files_opened(run, c) {
            Ok(f) if f.is_empty() => table.note(format!(
                "{who} opens no file under /proc or /sys at start (strace -f)"
            )),
            Ok(f) => table.note(format!(
                "{who} opens {} files under /proc and /sys at start (strace -f; digits as N): {}",
                f.len(),
                f.join(", ")
            )),
            Err(e) => table.note(format!("{who}: files opened not listed ({e})")),
        };
    }
    match &switch {
        Ok(()) => {
            let lines: Vec<String> = configs
                .iter()
                .filter(|c| c.engine == Engine::Fastpath)
                .map(|c| identification_line(run, c).unwrap_or_else(|e| format!("{}: {e}", c.label)))
                .collect();
            table.note(format!(
                "each source's own cost inside fastpath-vm (one warm start each, FASTPATH_VM_CPU_LOG=1): {}",
                lines.join(" | ")
            ));
            table.note(format!("fastpath-vm's rows: {SOURCE_VAR}=<source>; × lazy: the row's median over lazy's (nothing identified at start) in the same phase"));
        }
        Err(why) => {
            table.note(format!(
                "fastpath-vm has no CPU-identification switch ({why}): its one row is its default (CPUID only, lazily, no microcode); `fastpath startup` times each source of the library in a minimal process"
            ));
        }
    }
    table.note("the seed: java -version 45 ms cold (sleep 1 before each) against 25 ms warm while HotSpot read /proc/cpuinfo, 25 ms either way once it read sysfs; a stall shows as cold ÷ warm well above 1");
    if run.quick && plan.idle < Duration::from_millis(1050) {
        table.note(format!(
            "--quick: {} ms idle before a cold start is NOT seed-faithful (the seed sleeps 1 s); run without --quick for that",
            plan.idle.as_millis()
        ));
    }
    run.close_notes(
        &mut table,
        failures_note(starts.iter().flatten().map(|s| s.error.as_deref())),
    );
    Ok(Part::new(table, results))
}
