//! Which rows of two result files are the same row ([`MatchBy`]), which
//! row of its run a row was measured against ([`baseline_row`]), and how
//! a row is named in the table; units of one kind converted ([`Unit`]).

use std::collections::BTreeMap;

use crate::report::jmh::BenchResult;

/// The prefix of a secondary metric that names the row a row was measured
/// against in its own run: `ratio_to_cas_pair` on a row of
/// `fastpath.lock` names `fastpath.lock.cas-pair` (`_` read as `-`).
pub const RATIO_PREFIX: &str = "ratio_to_";

/// The row of `file` that `r` was measured against in its run, if `r`
/// names one by a [`RATIO_PREFIX`] secondary metric and that names exactly
/// one row of `file` with `r`'s unit (so that the ratio has none). The
/// name is a benchmark of `r`'s experiment (`ratio_to_cas_pair`: the
/// `cas-pair` row; `ratio_to_short_cs_parking_lot`: the
/// `short-cs-parking-lot` row), or else a parameter value of `r`'s own
/// benchmark (`ratio_to_legacy` on `monitor-bench mode=lightweight`: its
/// `mode=legacy` row). Where several rows carry the name, the one with
/// `r`'s thread count is meant, and among those the one with `r`'s
/// parameters. The baseline row names itself (its ratio to itself is 1):
/// the result is then `r`'s own row. Metrics that name no single row
/// (`ratio_to_best_peer`, a figure derived from several rows) are skipped.
pub fn baseline_row<'a>(file: &'a [BenchResult], r: &BenchResult) -> Option<&'a BenchResult> {
    let experiment = r.benchmark.rsplit_once('.').map_or("", |(e, _)| e);
    let unique = |rows: Vec<&'a BenchResult>| -> Option<&'a BenchResult> {
        if rows.len() == 1 {
            return Some(rows[0]);
        }
        let threads: Vec<&BenchResult> = rows.iter().copied().filter(|s| s.threads == r.threads).collect();
        if threads.len() == 1 {
            return Some(threads[0]);
        }
        let params: Vec<&BenchResult> = threads.into_iter().filter(|s| s.params == r.params).collect();
        (params.len() == 1).then(|| params[0])
    };
    r.secondary_metrics
        .keys()
        .filter_map(|k| k.strip_prefix(RATIO_PREFIX))
        .find_map(|name| {
            let target = format!("{experiment}.{}", name.replace('_', "-"));
            let named: Vec<&BenchResult> = file.iter().filter(|s| s.benchmark == target).collect();
            let rows = if named.is_empty() {
                file.iter()
                    .filter(|s| s.benchmark == r.benchmark && s.params.values().any(|v| v == name))
                    .collect()
            } else {
                named
            };
            unique(rows).filter(|s| s.primary_metric.score_unit == r.primary_metric.score_unit)
        })
}

/// HotSpot peer method names (folded) and the lab workload each one measures,
/// for [`MatchBy::Workload`]. Names that already fold alike (`casPair` and
/// `cas-pair`, the `handoff` group) need no entry.
pub const PEER_WORKLOADS: &[(&str, &str)] = &[
    // peers/jvm SpinBench.onSpinWait: the cost of one pause.
    ("onspinwait", "latency"),
    // peers/jvm SpinBench.lruGetPut: the shared LRU behind a lock.
    ("lrugetput", "lru"),
];

/// How rows of the two files are paired.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MatchBy {
    /// Benchmark name, threads and parameters, exactly.
    #[default]
    Exact,
    /// Folded workload name and threads; parameters only where both sides
    /// have them.
    Workload,
}

/// A benchmark's last dotted component: its workload as the file spells it.
pub(super) fn last_name(benchmark: &str) -> &str {
    benchmark.rsplit('.').next().unwrap_or(benchmark)
}

/// The folded workload name of a benchmark: its last dotted component,
/// lower case, letters and digits only, peer names mapped to the lab's.
pub(super) fn workload(benchmark: &str) -> String {
    let last = last_name(benchmark);
    let folded: String = last
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    match PEER_WORKLOADS.iter().find(|(peer, _)| *peer == folded) {
        Some((_, ours)) => ours.to_string(),
        None => folded,
    }
}

impl MatchBy {
    /// Whether `b` and `c` are the same row under this rule.
    pub(super) fn pairs(self, b: &BenchResult, c: &BenchResult) -> bool {
        match self {
            MatchBy::Exact => b.key() == c.key(),
            MatchBy::Workload => {
                b.threads == c.threads
                    && workload(&b.benchmark) == workload(&c.benchmark)
                    && b.params
                        .iter()
                        .all(|(k, v)| c.params.get(k).is_none_or(|cv| cv == v))
            }
        }
    }

    /// The row's label in the table. Paired by workload, it names the
    /// workload as each side spells it (`cas-pair / casPair`), never the
    /// folded name the rows were paired by.
    pub(super) fn label(self, b: &BenchResult, c: Option<&BenchResult>) -> String {
        match self {
            MatchBy::Exact => b.key(),
            MatchBy::Workload => {
                let mut params: BTreeMap<&str, &str> = BTreeMap::new();
                for r in std::iter::once(b).chain(c) {
                    for (k, v) in &r.params {
                        params.entry(k).or_insert(v);
                    }
                }
                let params: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let (ours, theirs) = (last_name(&b.benchmark), c.map(|c| last_name(&c.benchmark)));
                let name = match theirs {
                    Some(t) if t != ours => format!("{ours} / {t}"),
                    _ => ours.to_string(),
                };
                format!("{name} [threads={}] {}", b.threads, params.join(","))
                    .trim_end()
                    .to_string()
            }
        }
    }
}

/// A unit JMH writes: time per operation or operations per time, with the
/// time in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Unit {
    /// `<time>/op` (also a bare time such as `ns`: one operation).
    TimePerOp(f64),
    /// `ops/<time>`.
    OpsPerTime(f64),
}

fn seconds(time: &str) -> Option<f64> {
    Some(match time {
        "ns" => 1e-9,
        "us" | "µs" | "μs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "min" => 60.0,
        _ => return None,
    })
}

impl Unit {
    pub(super) fn parse(unit: &str) -> Option<Unit> {
        match unit.trim().split_once('/') {
            Some(("ops", t)) => seconds(t).map(Unit::OpsPerTime),
            Some((t, "op")) => seconds(t).map(Unit::TimePerOp),
            None => seconds(unit.trim()).map(Unit::TimePerOp),
            _ => None,
        }
    }

    /// The factor that turns a value in `self` into one in `to`, if both
    /// measure the same thing.
    pub(super) fn factor_to(self, to: Unit) -> Option<f64> {
        match (self, to) {
            (Unit::TimePerOp(a), Unit::TimePerOp(b)) => Some(a / b),
            (Unit::OpsPerTime(a), Unit::OpsPerTime(b)) => Some(b / a),
            _ => None,
        }
    }
}

/// `r`'s workload name (`cas-pair`), with its thread count and parameters
/// where other rows of `file` share the name (`short-cs-parking-lot
/// [threads=2] lock=parking_lot::Mutex`).
pub(super) fn short_label(file: &[BenchResult], r: &BenchResult) -> String {
    let name = last_name(&r.benchmark);
    if file.iter().filter(|s| s.benchmark == r.benchmark).count() <= 1 {
        return name.to_string();
    }
    let mut label = format!("{name} [threads={}]", r.threads);
    for (k, v) in &r.params {
        label.push_str(&format!(" {k}={v}"));
    }
    label
}
