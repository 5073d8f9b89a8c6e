//! The `gc` table's readers: what each VM says about one run of an
//! allocation-heavy program, turned into the same figures on both sides.
//!
//! - fastpath-vm, `FASTPATH_VM_GC_STATS=1`: the one line it prints on
//!   stderr at exit (`runtime/launch.rs`), with its cycle counts and its
//!   pauses' at-safepoint percentiles, wall and CPU time
//!   ([`FastpathGc::parse`]).
//! - HotSpot, `-Xlog:gc,safepoint:file=…`: every `[safepoint]` line of a
//!   Shenandoah VM operation (`Safepoint "ShenandoahInitMark", …, At
//!   safepoint: N ns, …, Total: N ns, …`) is one pause, its "At safepoint"
//!   the work with every Java thread stopped, which is what fastpath's
//!   at-safepoint figure measures; the `[gc]` lines give the cycles (the
//!   distinct `GC(N)` ids) and the degenerated and full collections
//!   ([`HotspotGc::parse`]). The safepoint log is read rather than the GC
//!   log's `Pause Init Mark 0.043ms` lines because it splits the time to
//!   reach the safepoint from the time at it, as fastpath's `Pause` does.
//! - Both: the Harness's `--checksum` iteration lines ([`iterations`]).
//!
//! Percentiles are nearest rank on both sides ([`nearest_rank`]), as the
//! VM's line computes them.

/// fastpath-vm's `FASTPATH_VM_GC_STATS` line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FastpathGc {
    pub cycles: u64,
    pub degenerated: u64,
    pub full: u64,
    pub pauses: u64,
    /// At-safepoint p50, p99, max, µs.
    pub at_safepoint_us: [f64; 3],
    /// The pausing thread's CPU time at the safepoint, p99 and max, µs.
    pub cpu_us: [f64; 2],
    /// Request to release, p99 and max, µs.
    pub total_us: [f64; 2],
}

impl FastpathGc {
    /// Reads the last `fastpath-vm gc: …` line of `stderr`.
    pub fn parse(stderr: &str) -> Result<FastpathGc, String> {
        let line = stderr
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("fastpath-vm gc: "))
            .ok_or_else(|| format!("no `fastpath-vm gc:` line in: {stderr}"))?;
        let words: Vec<&str> = line.split([' ', ',']).filter(|w| !w.is_empty()).collect();
        // The number just before the words `before` (`22 cycles`), or just
        // after `after` (`p99 215.9`), starting at the first match of the
        // word sequence.
        let before = |what: &[&str]| -> Result<f64, String> {
            let i = words
                .windows(what.len())
                .position(|w| w == what)
                .filter(|&i| i > 0)
                .ok_or_else(|| format!("no `{}` in `{line}`", what.join(" ")))?;
            words[i - 1]
                .parse()
                .map_err(|_| format!("`{}` before `{}` in `{line}`", words[i - 1], what.join(" ")))
        };
        let after = |what: &[&str]| -> Result<f64, String> {
            let i = words
                .windows(what.len())
                .position(|w| w == what)
                .ok_or_else(|| format!("no `{}` in `{line}`", what.join(" ")))?;
            let w = words.get(i + what.len()).copied().unwrap_or("");
            w.parse()
                .map_err(|_| format!("`{w}` after `{}` in `{line}`", what.join(" ")))
        };
        // The `max` of the section that starts with the word `section`.
        let max_after = |section: &str| -> Result<f64, String> {
            let i = words
                .iter()
                .position(|w| *w == section)
                .ok_or_else(|| format!("no `{section}` in `{line}`"))?;
            let rest = &words[i..];
            let j = rest
                .windows(2)
                .position(|w| w == ["us", "max"])
                .ok_or_else(|| format!("no `{section}` max in `{line}`"))?;
            let w = rest.get(j + 2).copied().unwrap_or("");
            w.parse()
                .map_err(|_| format!("`{w}` as the {section} max in `{line}`"))
        };
        Ok(FastpathGc {
            cycles: before(&["cycles"])? as u64,
            degenerated: before(&["degenerated"])? as u64,
            full: before(&["full", "compactions"])? as u64,
            pauses: before(&["pauses"])? as u64,
            at_safepoint_us: [
                after(&["at", "safepoint", "p50"])?,
                after(&["us", "p99"])?,
                after(&["us", "max"])?,
            ],
            cpu_us: [after(&["cpu", "p99"])?, max_after("cpu")?],
            total_us: [after(&["total", "p99"])?, max_after("total")?],
        })
    }
}

/// One HotSpot run's Shenandoah pauses and cycles, from its
/// `-Xlog:gc,safepoint` file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HotspotGc {
    /// Distinct `GC(N)` ids in `[gc]` lines: cycles started.
    pub cycles: u64,
    /// `Pause Degenerated GC` lines.
    pub degenerated: u64,
    /// `Pause Full` lines.
    pub full: u64,
    /// Each Shenandoah safepoint's "At safepoint", µs, in log order.
    pub at_safepoint_us: Vec<f64>,
    /// Each Shenandoah safepoint's "Total", µs, in log order.
    pub total_us: Vec<f64>,
}

impl HotspotGc {
    pub fn parse(log: &str) -> Result<HotspotGc, String> {
        let mut g = HotspotGc::default();
        let mut ids = std::collections::BTreeSet::new();
        for line in log.lines() {
            // `[0.541s][info][gc       ] GC(0) Pause …`: the tags padded.
            let Some((tags, message)) = tags_and_message(line) else {
                continue;
            };
            if tags == "gc" {
                if let Some(id) = message
                    .strip_prefix("GC(")
                    .and_then(|m| m.split_once(')'))
                    .and_then(|(id, _)| id.parse::<u64>().ok())
                {
                    ids.insert(id);
                    let m = message.split_once(") ").map_or("", |(_, m)| m);
                    if m.starts_with("Pause Degenerated GC") {
                        g.degenerated += 1;
                    } else if m.starts_with("Pause Full") {
                        g.full += 1;
                    }
                }
            } else if tags == "safepoint" {
                let Some(op) = message
                    .strip_prefix("Safepoint \"")
                    .and_then(|m| m.split_once('"'))
                    .map(|(op, _)| op)
                else {
                    continue;
                };
                if !op.starts_with("Shenandoah") {
                    continue;
                }
                let ns = |field: &str| -> Result<f64, String> {
                    let at = message
                        .find(field)
                        .ok_or_else(|| format!("no `{field}` in `{line}`"))?;
                    let rest = &message[at + field.len()..];
                    let n = rest.split_whitespace().next().unwrap_or("");
                    n.parse::<f64>()
                        .map_err(|_| format!("`{n}` after `{field}` in `{line}`"))
                };
                g.at_safepoint_us.push(ns("At safepoint: ")? / 1e3);
                g.total_us.push(ns("Total: ")? / 1e3);
            }
        }
        g.cycles = ids.len() as u64;
        Ok(g)
    }
}

/// `[uptime][level][tags] message` → (tags without padding, message).
fn tags_and_message(line: &str) -> Option<(&str, &str)> {
    let mut rest = line;
    let mut fields = Vec::new();
    while let Some(r) = rest.strip_prefix('[') {
        let (field, r) = r.split_once(']')?;
        fields.push(field.trim());
        rest = r;
    }
    let tags = *fields.last()?;
    Some((tags, rest.trim_start()))
}

/// The smallest value with at least `q` of `sorted` at or below it; 0 for
/// none.
pub fn nearest_rank(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// The Harness's `--checksum` lines: (nanoseconds, checksum) per iteration,
/// in order; an error for any other line or an iteration out of order.
pub fn iterations(stdout: &str) -> Result<Vec<(f64, i64)>, String> {
    let mut v = Vec::new();
    for line in stdout.lines() {
        match line.split_whitespace().collect::<Vec<_>>().as_slice() {
            [_, "iteration", i, ns, sum] => {
                let (i, ns, sum) = (i.parse::<usize>(), ns.parse::<f64>(), sum.parse::<i64>());
                match (i, ns, sum) {
                    (Ok(i), Ok(ns), Ok(sum)) if i == v.len() => v.push((ns, sum)),
                    _ => return Err(format!("bad iteration line `{line}`")),
                }
            }
            _ => return Err(format!("not a `Harness --checksum` line: `{line}`")),
        }
    }
    Ok(v)
}
