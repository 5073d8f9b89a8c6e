//! `fastpath cpu [--json] [--timing] [--microcode] [--dump]`: what
//! `fastpath::cpu` identified, and (with `--timing`) what identifying cost.
//!
//! Where it sits: a diagnostic command beside the experiments, not one of
//! them (it has no baseline and nothing to compare across runs). Without
//! `--microcode` it must open no file under /proc, which the strace
//! integration test (`tests/commands/cpu_strace.rs`) checks from outside.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::{Arg, ArgAction, ArgMatches, Command};
use fastpath::cpu::{self, CpuInfo, MeasuredIdentification};
use serde_json::{json, Value};

use crate::harness::{self, Settings};

/// The subcommand's definition.
pub fn command() -> Command {
    Command::new("cpu")
        .about("Show the CPU identification (vendor, model, features, lines, hypervisor)")
        .arg(
            Arg::new("json")
                .long("json")
                .action(ArgAction::SetTrue)
                .help("Print JSON instead of text"),
        )
        .arg(
            Arg::new("timing")
                .long("timing")
                .action(ArgAction::SetTrue)
                .help("Measure the identification: ns and CPUID count of fresh runs, one CPUID, a cached lookup"),
        )
        .arg(
            Arg::new("microcode")
                .long("microcode")
                .action(ArgAction::SetTrue)
                .help("Also read the microcode revision (sysfs, else /proc/cpuinfo), with each source's cost"),
        )
        .arg(
            Arg::new("dump")
                .long("dump")
                .action(ArgAction::SetTrue)
                .conflicts_with_all(["json", "timing", "microcode"])
                .help("Print every CPUID leaf in the AIDA64/InstLatx64 format the test fixtures use (x86-64; a scan of ~100 CPUIDs)"),
        )
        .arg(
            Arg::new("from-dump")
                .long("from-dump")
                .value_name("FILE")
                .value_parser(clap::value_parser!(std::path::PathBuf))
                .conflicts_with_all(["timing", "microcode", "dump"])
                .help("Decode a recorded CPUID dump (AIDA64/InstLatx64 format, as --dump writes) instead of this CPU"),
        )
}

/// Fresh identifications run by `--timing`.
const FRESH_RUNS: usize = 200;
/// Single CPUIDs timed by `--timing`.
const CPUID_RUNS: usize = 1000;

/// What `--timing` measured.
struct Timing {
    first: Duration,
    first_cpuid: u32,
    fresh: crate::stats::Stats,
    fresh_cpuid: u32,
    files_opened: Vec<String>,
    one_cpuid_ns: Option<crate::stats::Stats>,
    cached_ns: f64,
}

fn measure() -> Timing {
    let first: &MeasuredIdentification = cpu::first_identification();
    let mut last = None;
    let fresh = harness::measure_single_shot(1, FRESH_RUNS, || {
        last = Some(harness::black_box(cpu::identify_fresh()));
    });
    let last = last.expect("at least one run");
    #[cfg(target_arch = "x86_64")]
    let one_cpuid_ns = Some(harness::measure_single_shot(10, CPUID_RUNS, || {
        harness::black_box(fastpath::arch::x86_64::cpuid(harness::black_box(0), 0));
    }));
    #[cfg(not(target_arch = "x86_64"))]
    let one_cpuid_ns = {
        let _ = CPUID_RUNS;
        None
    };
    let cached = harness::measure_ns_per_op(&Settings::QUICK, |n| {
        for _ in 0..n {
            harness::black_box(cpu::info());
        }
    });
    Timing {
        first: first.elapsed,
        first_cpuid: first.cpuid_instructions,
        fresh,
        fresh_cpuid: last.cpuid_instructions,
        files_opened: last.files_opened,
        one_cpuid_ns,
        cached_ns: cached.median,
    }
}

fn info_json(c: &CpuInfo) -> Value {
    json!({
        "vendor": format!("{:?}", c.vendor),
        "vendor_string": c.vendor_string,
        "brand": c.brand,
        "family": c.family,
        "model": c.model,
        "stepping": c.stepping,
        "features": c.features.iter().map(|f| f.name()).collect::<Vec<_>>(),
        "cache_line_size": c.cache_line_size,
        "icache_line_size": c.icache_line_size,
        "clflush_line_size": c.clflush_line_size,
        "logical_cpus": c.logical_cpus,
        "cores_per_package": c.cores_per_package,
        "threads_per_core": c.threads_per_core,
        "hypervisor": c.hypervisor,
        "midr": c.midr.map(|m| format!("{m:#x}")),
    })
}

fn us(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

/// Runs `fastpath cpu`.
pub fn run(m: &ArgMatches) -> anyhow::Result<()> {
    if m.get_flag("dump") {
        return dump();
    }
    let recorded;
    let c = match m.get_one::<std::path::PathBuf>("from-dump") {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
            let src = cpu::testing::RecordedCpuid::parse(&text)
                .with_context(|| format!("{} is not a CPUID dump", path.display()))?;
            let id = cpu::testing::identify_x86_with(&src, &cpu::testing::RecordedFiles::new());
            eprintln!(
                "fastpath: decoded {} ({} records) with {} CPUIDs; logical CPUs are this machine's",
                path.display(),
                src.len(),
                id.cpuid_instructions
            );
            recorded = id.info;
            &recorded
        }
        None => cpu::info(),
    };
    let timing = m.get_flag("timing").then(measure);
    let microcode = m.get_flag("microcode").then(|| {
        let t = Instant::now();
        let r = cpu::microcode();
        (r, t.elapsed())
    });
    let fstring = c.features_string(microcode.as_ref().map(|(r, _)| r));

    if m.get_flag("json") {
        let mut v = info_json(c);
        v["features_string"] = json!(fstring);
        if let Some(t) = &timing {
            v["timing"] = json!({
                "first_identification_ns": t.first.as_nanos() as u64,
                "first_identification_cpuid": t.first_cpuid,
                "fresh_identification_ns": {
                    "median": t.fresh.median, "min": t.fresh.min, "max": t.fresh.max,
                    "mean": t.fresh.mean, "runs": t.fresh.samples.len(),
                },
                "fresh_identification_cpuid": t.fresh_cpuid,
                "files_opened": t.files_opened,
                "one_cpuid_ns_median": t.one_cpuid_ns.as_ref().map(|s| s.median),
                "cached_info_ns": t.cached_ns,
            });
        }
        if let Some((r, total)) = &microcode {
            let attempts = match r {
                Ok(m) => &m.attempts,
                Err(e) => &e.attempts,
            };
            v["microcode"] = json!({
                "revision": r.as_ref().ok().map(|m| format!("{:#x}", m.revision)),
                "source": r.as_ref().ok().map(|m| m.source.name()),
                "error": r.as_ref().err().map(|e| e.to_string()),
                "total_ns": total.as_nanos() as u64,
                "attempts": attempts.iter().map(|a| json!({
                    "source": a.source.name(),
                    "path": a.source.path(),
                    "ns": a.elapsed.as_nanos() as u64,
                    "outcome": match &a.outcome {
                        Ok(v) => format!("{v:#x}"),
                        Err(e) => e.to_string(),
                    },
                })).collect::<Vec<_>>(),
            });
        }
        crate::outln!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }

    let name = if c.brand.is_empty() {
        c.vendor_string.clone()
    } else {
        format!("{} ({})", c.brand, c.vendor_string)
    };
    crate::outln!("CPU:             {name}");
    crate::outln!(
        "Signature:       family {} model {} stepping {}{}",
        c.family,
        c.model,
        c.stepping,
        c.midr.map(|m| format!(", MIDR {m:#x}")).unwrap_or_default()
    );
    crate::outln!(
        "Topology:        {} logical CPUs available; {} cores per package, {} threads per core",
        c.logical_cpus,
        c.cores_per_package,
        c.threads_per_core
    );
    crate::outln!(
        "Cache lines:     L1d {} B, L1i {} B, CLFLUSH {} B",
        c.cache_line_size,
        c.icache_line_size,
        c.clflush_line_size
    );
    crate::outln!(
        "Hypervisor:      {}",
        match (&c.hypervisor, c.hypervisor_name()) {
            (Some(sig), Some(name)) if name != sig => format!("{name} (signature {sig:?})"),
            (Some(sig), _) => format!("{sig:?}"),
            (None, _) => "none".to_string(),
        }
    );
    crate::outln!("Features string: {fstring}");
    if let Some((r, total)) = &microcode {
        match r {
            Ok(m) => crate::outln!(
                "Microcode:       {:#x} from {} ({} in all)",
                m.revision,
                m.source,
                us(*total)
            ),
            Err(_) => crate::outln!("Microcode:       unavailable ({} in all)", us(*total)),
        }
        let attempts = match r {
            Ok(m) => &m.attempts,
            Err(e) => &e.attempts,
        };
        for a in attempts {
            crate::outln!("  tried {a}");
        }
    }
    if let Some(t) = &timing {
        crate::outln!("Identification cost (in this process, default path):");
        crate::outln!(
            "  first cpu::info() at startup:  {}, {} CPUID",
            us(t.first),
            t.first_cpuid
        );
        crate::outln!(
            "  fresh cpu::identify_fresh() x{}:    median {}, min {}, max {}; {} CPUID each, files opened: {}",
            t.fresh.samples.len(),
            us(Duration::from_nanos(t.fresh.median as u64)),
            us(Duration::from_nanos(t.fresh.min as u64)),
            us(Duration::from_nanos(t.fresh.max as u64)),
            t.fresh_cpuid,
            if t.files_opened.is_empty() {
                "none".to_string()
            } else {
                t.files_opened.join(", ")
            }
        );
        if let Some(s) = &t.one_cpuid_ns {
            crate::outln!(
                "  one CPUID (leaf 0) x{}:       median {:.0} ns  → {} CPUID ≈ {} of the median",
                s.samples.len(),
                s.median,
                t.fresh_cpuid,
                us(Duration::from_nanos((s.median * t.fresh_cpuid as f64) as u64))
            );
        }
        crate::outln!("  cached cpu::info():            {:.2} ns per call", t.cached_ns);
    }
    Ok(())
}

#[cfg(target_arch = "x86_64")]
fn dump() -> anyhow::Result<()> {
    crate::out!("{}", cpu::testing::dump_cpuid(&cpu::testing::NativeCpuid::new()));
    Ok(())
}

#[cfg(not(target_arch = "x86_64"))]
fn dump() -> anyhow::Result<()> {
    anyhow::bail!("--dump reads CPUID, which exists only on x86-64")
}
