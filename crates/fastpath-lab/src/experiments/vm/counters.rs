//! Counters per iteration of a whole program (`--prof perfnorm`): the
//! seed 003 table's instructions, branches and loads per operation, for a
//! process the lab does not run in itself.
//!
//! Where it sits: under the barriers table. The lab's in-process profiler
//! (`harness::perfnorm`) counts a loop of its own binary; a JVM is another
//! process, counted whole. So each configuration runs twice, `w` and
//! `w + m` iterations, and the counters per iteration are the difference
//! divided by `m`: start-up, class loading, the program's setup and the
//! warm-up iterations cancel, as JMH perfnorm's discarded warm-up does.
//!
//! Two paths, as the lab's profiler chooses (`Profiler::sense`):
//! - hardware counters, where the CPU has them: `perf stat -x,` around
//!   the process (children and threads included), for both VMs;
//! - Callgrind's simulation otherwise (a KVM guest without a virtual PMU):
//!   `valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes`, every
//!   thread counted; fastpath-vm only, as HotSpot's JIT-generated code and
//!   signal-based safepoints under Valgrind are not a measurement of
//!   HotSpot. Simulated figures say so.
//!
//! fastpath-vm is not perfectly deterministic even so: its deflation and
//! collector threads wake on timers, so a count may move by a little from
//! run to run; the difference of two runs keeps what the extra
//! iterations did.

use std::path::PathBuf;
use std::time::Duration;

use super::launch::{tail, Launch};
use super::measure::Cell;
use super::vms::Engine;
use super::VmRun;
use crate::harness::perfnorm::callgrind::{parse_totals, to_perfnorm};
use crate::harness::perfnorm::{Profiler, Source};

/// The events the table shows, by JMH perfnorm's names.
pub const EVENTS: [&str; 4] = ["instructions", "branches", "L1-dcache-loads", "L1-dcache-stores"];

/// How this run counts.
pub enum Counting {
    /// `perf stat` at this path.
    Perf(PathBuf),
    /// `valgrind` at this path.
    Callgrind(PathBuf),
    /// Neither, and why.
    None(String),
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

impl Counting {
    /// The path the lab's profiler would take here, with the tool it needs.
    pub fn sense() -> Counting {
        match Profiler::sense(super::rows::EXPERIMENT).source() {
            Ok(Source::Hardware) => match on_path("perf") {
                Some(perf) => match Launch::new(&perf)
                    .args(["stat", "-x,", "-e", "instructions", "true"])
                    .deadline(Duration::from_secs(60))
                    .run()
                {
                    Ok(o) if o.status == Some(0) && !o.stderr.contains("<not") => Counting::Perf(perf),
                    Ok(o) => Counting::None(format!("perf stat cannot count here: {}", tail(&o.stderr))),
                    Err(e) => Counting::None(format!("perf stat: {e:#}")),
                },
                None => Counting::None(
                    "the CPU has counters but the perf tool is not installed (Debian: linux-perf); another process is counted through it".into(),
                ),
            },
            Ok(Source::Simulated) => match on_path("valgrind") {
                Some(v) => Counting::Callgrind(v),
                None => Counting::None("valgrind not found".into()),
            },
            Err(e) => Counting::None(e),
        }
    }

    /// The source, for the rows' perfnorm marker.
    pub fn source(&self) -> Option<Source> {
        match self {
            Counting::Perf(_) => Some(Source::Hardware),
            Counting::Callgrind(_) => Some(Source::Simulated),
            Counting::None(_) => None,
        }
    }

    /// What the table says about the path.
    pub fn label(&self) -> String {
        match self {
            Counting::Perf(_) => "counters per iteration from perf stat (hardware counters, every thread of the process)".into(),
            Counting::Callgrind(_) => "counters per iteration from callgrind (SIMULATED: Valgrind's model, every thread of the process; fastpath-vm only, HotSpot's JIT is not run under Valgrind)".into(),
            Counting::None(why) => format!("no counters: {why}"),
        }
    }

    /// The counters per iteration of `cell` (its `iterations` ignored:
    /// `w` and `w + m` are chosen here), by [`EVENTS`] name.
    pub fn per_iteration(&self, run: &VmRun, cell: &Cell) -> Result<Vec<(&'static str, f64)>, String> {
        let (w, m) = if cell.config.tier.compiles() {
            (10, 10)
        } else {
            (1, 2)
        };
        let count = |iterations: usize| -> Result<Vec<(&'static str, u64)>, String> {
            let args = [
                cell.program.name.to_string(),
                iterations.to_string(),
                cell.inner.to_string(),
                cell.threads.to_string(),
            ];
            let inner = cell
                .config
                .launch(run.setup, &[], "Harness", &args, Duration::from_secs(3600));
            let out = std::env::temp_dir().join(format!("fastpath-lab-vm-counters-{}", std::process::id()));
            let tool = match self {
                Counting::Perf(perf) => Launch::new(perf)
                    .args(["stat", "-x,", "-e", &EVENTS.join(","), "-o"])
                    .args([out.as_os_str()])
                    .args(["--".into(), inner.program.clone().into_os_string()]),
                Counting::Callgrind(valgrind) => {
                    if cell.config.engine == Engine::HotSpot {
                        return Err("HotSpot is not counted under Valgrind".into());
                    }
                    Launch::new(valgrind)
                        .args(["--tool=callgrind", "--cache-sim=yes", "--branch-sim=yes"])
                        .args([format!("--callgrind-out-file={}", out.display())])
                        .args([inner.program.clone().into_os_string()])
                }
                Counting::None(why) => return Err(why.clone()),
            };
            let mut tool = tool.args(inner.args.iter().cloned()).deadline(inner.deadline);
            tool.env = inner.env.clone();
            let o = tool.run().map_err(|e| format!("{e:#}"))?;
            let text = std::fs::read_to_string(&out).unwrap_or_default();
            let _ = std::fs::remove_file(&out);
            if o.status != Some(0) {
                return Err(format!("{} failed: {}", tool.display(), tail(&o.stderr)));
            }
            match self {
                Counting::Perf(_) => parse_perf_stat(&text),
                _ => {
                    let totals = parse_totals(&text)?;
                    Ok(to_perfnorm(&totals)?
                        .into_iter()
                        .filter(|(n, _)| EVENTS.contains(n))
                        .collect())
                }
            }
        };
        let a = count(w)?;
        let b = count(w + m)?;
        Ok(EVENTS
            .iter()
            .filter_map(|e| {
                let x = a.iter().find(|(n, _)| n == e)?.1 as f64;
                let y = b.iter().find(|(n, _)| n == e)?.1 as f64;
                Some((*e, (y - x) / m as f64))
            })
            .collect())
    }
}

/// `perf stat -x,` output: `value,unit,event,…` per line; events that
/// were not counted are left out, and none at all is an error.
pub fn parse_perf_stat(text: &str) -> Result<Vec<(&'static str, u64)>, String> {
    let mut out = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split(',').collect();
        let (Some(value), Some(event)) = (f.first(), f.get(2)) else {
            continue;
        };
        let Ok(v) = value.trim().parse::<f64>() else {
            continue;
        };
        // `instructions`, `instructions:u`, `cpu_core/instructions/`.
        let name = event.trim().trim_start_matches("cpu_core/").trim_end_matches('/');
        let name = name.split(':').next().unwrap_or(name);
        if let Some(e) = EVENTS.iter().find(|e| **e == name) {
            out.push((*e, v as u64));
        }
    }
    if out.is_empty() {
        Err(format!(
            "perf stat counted none of {}: {}",
            EVENTS.join(", "),
            tail(text)
        ))
    } else {
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perf_stat_csv_parses_and_uncounted_events_are_left_out() {
        let text = "# started on Sat\n\n123456,,instructions:u,1000,100.00,,\n<not counted>,,branches,0,0.00,,\n99,,cpu_core/L1-dcache-loads/,1000,100.00,,\n";
        let v = parse_perf_stat(text).unwrap();
        assert_eq!(v, vec![("instructions", 123456), ("L1-dcache-loads", 99)]);
        assert!(parse_perf_stat("<not supported>,,instructions,0,0,,\n").is_err());
    }
}
