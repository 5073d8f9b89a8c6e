//! Reading what Callgrind counted, and naming it as JMH's perfnorm does.
//!
//! Where it sits: the simulated path of the profiler runs a region under
//! `valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes`, which
//! writes a profile whose header names the events (`events: Ir Dr Dw …`)
//! and whose `totals:` (or, in older versions, `summary:`) line sums them
//! over everything collected. With collection toggled on only inside the
//! measured region, those totals are the region's.
//!
//! The mapping to perf's generic events follows the simulator's model (the
//! Valgrind manual, "Cachegrind: cache and branch-prediction profiler"): a
//! first-level data cache and a last-level cache; a load that misses D1
//! goes to LL (so `LLC-loads` are D1 read misses); conditional branches
//! (`Bc`) and indirect branches (`Bi`) with their simulated mispredictions.
//! perf's `branches` also counts unconditional jumps and calls, which the
//! simulator does not: a simulated `:branches` is lower than a real one.
//! Cycles and CPI have no simulated counterpart and are never reported here.

use std::collections::BTreeMap;

/// Event totals from a Callgrind or Cachegrind output file, by the
/// tool's event names (`Ir`, `Dr`, `D1mr`, `Bc`, …).
pub fn parse_totals(text: &str) -> Result<BTreeMap<String, u64>, String> {
    let mut events: Option<Vec<&str>> = None;
    let mut totals: Option<Vec<u64>> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("events:") {
            events = Some(rest.split_whitespace().collect());
        } else if let Some(rest) = line
            .strip_prefix("totals:")
            .or_else(|| line.strip_prefix("summary:"))
        {
            let parsed: Result<Vec<u64>, _> = rest.split_whitespace().map(str::parse).collect();
            totals = Some(parsed.map_err(|e| format!("unreadable totals line `{line}`: {e}"))?);
        }
    }
    let events = events.ok_or("no `events:` line (not a Callgrind/Cachegrind profile)")?;
    // A profile in which nothing was collected has no totals line, or a
    // shorter one: missing trailing events are zero by the format's rule.
    let totals = totals.ok_or("no `totals:` or `summary:` line: nothing was collected")?;
    if totals.len() > events.len() {
        return Err(format!("{} totals for {} events", totals.len(), events.len()));
    }
    Ok(events
        .iter()
        .enumerate()
        .map(|(i, e)| (e.to_string(), totals.get(i).copied().unwrap_or(0)))
        .collect())
}

/// The simulated counterparts of perf's events, in JMH perfnorm's names:
/// (name, total). Only events the profile has are returned; an empty
/// result is an error, never a row of zeros.
pub fn to_perfnorm(totals: &BTreeMap<String, u64>) -> Result<Vec<(&'static str, u64)>, String> {
    let get = |k: &str| totals.get(k).copied();
    let sum = |a: &str, b: &str| match (get(a), get(b)) {
        (None, None) => None,
        (x, y) => Some(x.unwrap_or(0) + y.unwrap_or(0)),
    };
    let out: Vec<(&'static str, u64)> = [
        ("instructions", get("Ir")),
        ("L1-dcache-loads", get("Dr")),
        ("L1-dcache-stores", get("Dw")),
        ("L1-dcache-load-misses", get("D1mr")),
        ("LLC-loads", get("D1mr")),
        ("LLC-load-misses", get("DLmr")),
        ("branches", sum("Bc", "Bi")),
        ("branch-misses", sum("Bcm", "Bim")),
    ]
    .into_iter()
    .filter_map(|(n, v)| v.map(|v| (n, v)))
    .collect();
    if get("Ir").is_none() {
        return Err("the profile has no `Ir` event".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header and totals of a real `callgrind --cache-sim=yes
    /// --branch-sim=yes` profile (valgrind 3.19, trimmed).
    const CALLGRIND: &str = "# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  target/release/fastpath __perfnorm spin latency/pause 20000
part: 1

desc: I1 cache: 32768 B, 64 B, 8-way associative
desc: D1 cache: 32768 B, 64 B, 8-way associative
desc: LL cache: 33554432 B, 64 B, 16-way associative

desc: Timerange: Basic block 0 - 1234567
desc: Trigger: Program termination

positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim
summary: 120040 20008 20004 3 2 1 3 1 0 20002 5 2 1
totals: 120040 20008 20004 3 2 1 3 1 0 20002 5 2 1

fl=(1) ???
fn=(1) fastpath_perfnorm_measured_region
0 8 2 1
";

    /// Cachegrind writes `summary:` and no `totals:`, and may stop the
    /// line early (trailing zeros omitted).
    const CACHEGRIND: &str = "desc: I1 cache: 32768 B, 64 B, 8-way associative
cmd: ./a.out
events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim
fl=a.c
fn=main
3 1 1 1
summary: 5000 1 1 900 40 2 300 7
";

    #[test]
    fn parses_callgrind_totals_by_event_name() {
        let t = parse_totals(CALLGRIND).unwrap();
        assert_eq!(t["Ir"], 120040);
        assert_eq!(t["Dw"], 20004);
        assert_eq!(t["Bcm"], 5);
        assert_eq!(t["Bim"], 1);
        assert_eq!(t.len(), 13);
    }

    #[test]
    fn parses_cachegrind_summary_with_trailing_zeros_omitted() {
        let t = parse_totals(CACHEGRIND).unwrap();
        assert_eq!(t["Dr"], 900);
        assert_eq!(t["D1mw"], 7);
        assert_eq!(t["Bc"], 0);
        assert_eq!(t["Bim"], 0);
    }

    #[test]
    fn maps_events_to_perfnorm_names() {
        let m: BTreeMap<_, _> = to_perfnorm(&parse_totals(CALLGRIND).unwrap())
            .unwrap()
            .into_iter()
            .collect();
        assert_eq!(m["instructions"], 120040);
        assert_eq!(m["L1-dcache-loads"], 20008);
        assert_eq!(m["L1-dcache-stores"], 20004);
        assert_eq!(m["L1-dcache-load-misses"], 2);
        assert_eq!(m["LLC-loads"], 2);
        assert_eq!(m["LLC-load-misses"], 1);
        assert_eq!(m["branches"], 20004);
        assert_eq!(m["branch-misses"], 6);
        assert!(!m.contains_key("cycles") && !m.contains_key("CPI"));
    }

    #[test]
    fn without_cache_or_branch_simulation_only_what_exists_is_named() {
        let t = parse_totals("events: Ir\nsummary: 77\n").unwrap();
        let m = to_perfnorm(&t).unwrap();
        assert_eq!(m, vec![("instructions", 77)]);
    }

    #[test]
    fn garbage_is_an_error_not_zeros() {
        assert!(parse_totals("hello").is_err());
        assert!(parse_totals("events: Ir Dr\n").is_err());
        assert!(parse_totals("events: Ir\ntotals: 1 2\n").is_err());
        assert!(parse_totals("events: Ir\ntotals: x\n").is_err());
        assert!(to_perfnorm(&parse_totals("events: Dr\ntotals: 1\n").unwrap()).is_err());
    }
}
