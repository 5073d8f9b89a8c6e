//! `fastpath compare A.json B.json`: baseline, change and % per row, in the
//! shape of the seed 001 tables (DaCapo/Renaissance, stack-locking vs
//! fast-locking). Rows are matched by benchmark, threads and parameters; a
//! row present in only one file is listed as such, never dropped silently,
//! and [`Comparison::warnings`] says so in words (two unrelated files pair
//! nothing, which the CLI reports as an error).
//!
//! [`MatchBy::Workload`] matches on the workload name (the last component of
//! the benchmark name, case and punctuation folded, HotSpot peer names mapped
//! through [`PEER_WORKLOADS`]) and the thread count, which pairs a fastpath
//! run with its HotSpot peer (`fastpath.lock.cas-pair` with
//! `fastpath.peers.LockBench.casPair`, `fastpath.spin.latency` with
//! `fastpath.peers.SpinBench.onSpinWait`). Parameters then pair only where
//! both sides name them: each of the lab's `strategy=…` rows meets the one
//! JMH row, which has no such parameter, on a row of its own.
//!
//! Units are converted when they measure the same thing (`ops/s` against
//! JMH's `ops/us`, `ns/op` against `us/op`); the change's score is shown in
//! the baseline's unit.
//!
//! The verdict rule ([`judge`]). Each side is an estimate with a 99.9%
//! interval: the median of its raw samples with the distribution-free
//! interval of the median, widened by the samples' serial dependence
//! ([`crate::stats::serial_median_interval`]: a row whose samples
//! come in stretches of one level, as a row that starts threads does,
//! gets the interval its effective number of samples allows) when
//! both sides carry at least [`MEDIAN_SAMPLES`] samples, else JMH's score
//! (the mean) ± its error. A row has moved, and "better" names a side,
//! only when both hold:
//! 1. the two intervals do not overlap (the difference is not noise
//!    within either run), and
//! 2. the change is at least [`Rule::min_change_percent`] of the baseline
//!    (default [`DEFAULT_MIN_CHANGE_PERCENT`]): what two runs of one build
//!    differ by on a shared machine even when each run's own interval is
//!    tight, because some of a run's state is fixed for the whole process
//!    (where the allocator and the loader put things, the clock frequency
//!    and the neighbours' load while it ran), which no interval from inside
//!    one run can see.
//!
//! Otherwise the row says `same` and its % is marked `~`. A row without an
//! error estimate on either side (one sample, a derived ratio) cannot be
//! judged and says `no error`, whatever its %. When the intervals are so
//! wide that a change of a few percent would read `same` anyway (quick mode
//! on a busy machine), [`Comparison::warnings`] says so.
//!
//! Whole-run shifts. A process can run faster or slower as a whole: on a
//! shared 2-vCPU guest the lock table's CAS-pair row came out at two levels
//! about 16–21% apart from one process to the next (17.4 against 21.2 ns),
//! a state of the host that holds for seconds, and most rows of the run
//! moved with it (the lock rows and the std and parking_lot mutexes by
//! 14–23%). No interval from inside one run sees it, so a shift past the
//! least change moved every such row. A row that names the row it was
//! measured against in its own run, by a secondary metric
//! `ratio_to_<row>` ([`RATIO_PREFIX`]; the lock pairs table's
//! `ratio_to_cas_pair` names `cas-pair`), is judged by the rule on its
//! ratio to that baseline row ([`Estimate::ratio`]), and has moved only
//! when, besides, its own figure changed by at least the least change, the
//! same way ([`own_followed`], [`with_own_change`]). The ratio alone would
//! not do: not every row follows the baseline row in such a shift (in a
//! run 17.6% faster, `churn`, whose time is mostly allocation, and
//! `contended-2t`, two threads sharing the CPUs, changed by 2%, so their
//! ratios moved 17–21%; the rows of a few cycles moved twice as much as
//! the baseline). A shift that moves a row with its baseline leaves its
//! ratio; one that passes the row by leaves its own figure within the
//! least change; a change of the row's own code moves both. The own
//! figure is held to the least change, not to its intervals: those carry
//! the load's swings within the run, which the ratio cancels and which
//! would hide a 20% slowdown on a loaded machine. The price: a change
//! that a shift of the opposite sign offsets reads `same`, which
//! [`Comparison::warnings`] says whenever the baseline row itself moved.
//!
//! The ratio's interval pairs the two rows' samples where the run took
//! them side by side (the lab's interleaved tables take sample k of every
//! row in round k, milliseconds apart, so the ratio of the k-th samples
//! sees the machine in one state): the median of the per-round ratios with
//! its serially dependent interval, which counts what the two rows share
//! instead of adding their errors as if independent. Rows without samples
//! to pair get the interval of the quotient of the two intervals (both
//! rows' relative errors added: wider than the truth, never narrower).
//! The baseline row itself is the yardstick and says `reference`; its %
//! is the shift, which [`Comparison::header`] states above the table so
//! that a run that was 16% slower as a whole still says so. A row with no
//! baseline row in its run (another table, a JMH file) is judged on its
//! own figures, and the header counts them. [`Rule::raw`] judges every
//! row on its own figures alone (`compare --raw`).

use std::collections::BTreeMap;

use super::jmh::{BenchResult, Metric};
use super::table::{num, percent, score, Table};
use crate::stats::{serial_median_interval, CONFIDENCE};

/// The least samples on each side for [`judge`] to use medians: the
/// fewest for which a 99.9% interval of the median exists.
pub const MEDIAN_SAMPLES: usize = 11;

/// The default least change, in percent of the baseline, that a row must
/// show to be judged moved. Two quick runs of one build on a 2-vCPU guest
/// under load 2–10 kept every single-threaded row's median within 6% of
/// the other run's (README, "From a fresh clone to a first comparison"):
/// 10% leaves room for that and still reports a 20% regression.
pub const DEFAULT_MIN_CHANGE_PERCENT: f64 = 10.0;

/// What it takes for [`judge`] to call a row moved, beyond intervals that
/// do not overlap, and what it judges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rule {
    /// The least change, in percent of the baseline.
    pub min_change_percent: f64,
    /// Judge every row on its own figures, even a row with a baseline row
    /// in its run (see the module's docs, "Whole-run shifts").
    pub raw: bool,
}

impl Default for Rule {
    fn default() -> Rule {
        Rule {
            min_change_percent: DEFAULT_MIN_CHANGE_PERCENT,
            raw: false,
        }
    }
}

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

/// One side of a row: its centre and 99.9% interval, in the baseline's
/// unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The median (with enough raw samples) or the score.
    pub center: f64,
    /// The interval's ends; NaN when there is no error estimate.
    pub lo: f64,
    /// See `lo`.
    pub hi: f64,
    /// Whether `center` is a median of raw samples.
    pub median: bool,
}

impl Estimate {
    /// The estimate of `m` scaled by `factor` (a unit conversion): the
    /// median and its interval when `use_median`, else score ± error.
    fn of(m: &Metric, factor: f64, use_median: bool) -> Estimate {
        let samples: Vec<f64> = m.raw_data.iter().flatten().map(|x| x * factor).collect();
        if use_median {
            if let Some(e) = Estimate::median_of(&samples) {
                return e;
            }
        }
        let (s, e) = (m.score * factor, m.score_error * factor);
        Estimate {
            center: s,
            lo: s - e,
            hi: s + e,
            median: false,
        }
    }

    /// The median of `samples` (taken in this order) with its serially
    /// dependent interval; `None` when they are too few or one is not
    /// finite.
    fn median_of(samples: &[f64]) -> Option<Estimate> {
        let (lo, hi) = serial_median_interval(samples, CONFIDENCE)?;
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let center = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        Some(Estimate {
            center,
            lo,
            hi,
            median: true,
        })
    }

    /// The estimate of `row / base`, two rows of one run (the module's
    /// docs, "Whole-run shifts"). Where both carry as many samples, at
    /// least [`MEDIAN_SAMPLES`], all finite and the baseline's positive,
    /// the k-th samples are taken to be one round's (the lab's
    /// interleaved tables sample every row once per round, in round
    /// order): the median of the per-round ratios with its serially
    /// dependent interval. A shift of the machine within the run moves
    /// both samples of a round alike and leaves their ratio, so the
    /// interval is that of the ratio itself, not of two figures that share
    /// their noise. Otherwise, the quotient of the two rows' intervals
    /// (their extreme quotients: both relative errors added), which holds
    /// the ratio whenever both intervals hold their figures; NaN ends (no
    /// error) when the baseline's interval reaches zero or either has none.
    pub fn ratio(row: &Metric, base: &Metric) -> Estimate {
        let xs: Vec<f64> = row.raw_data.iter().flatten().copied().collect();
        let bs: Vec<f64> = base.raw_data.iter().flatten().copied().collect();
        let pairable = xs.len() == bs.len()
            && xs.len() >= MEDIAN_SAMPLES
            && xs.iter().all(|x| x.is_finite())
            && bs.iter().all(|b| b.is_finite() && *b > 0.0);
        if pairable {
            let ratios: Vec<f64> = xs.iter().zip(&bs).map(|(x, b)| x / b).collect();
            if let Some(e) = Estimate::median_of(&ratios) {
                return e;
            }
        }
        let medians = Estimate::medians_apply(row, base);
        let (x, b) = (Estimate::of(row, 1.0, medians), Estimate::of(base, 1.0, medians));
        let center = x.center / b.center;
        let ends = [x.lo / b.lo, x.lo / b.hi, x.hi / b.lo, x.hi / b.hi];
        let (lo, hi) = if b.lo > 0.0 && ends.iter().all(|e| e.is_finite()) {
            (
                ends.iter().copied().fold(f64::INFINITY, f64::min),
                ends.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            )
        } else {
            (f64::NAN, f64::NAN)
        };
        Estimate {
            center,
            lo,
            hi,
            median: false,
        }
    }

    /// Whether both sides have enough finite raw samples for medians.
    fn medians_apply(b: &Metric, c: &Metric) -> bool {
        let enough = |m: &Metric| {
            let v: Vec<f64> = m.raw_data.iter().flatten().copied().collect();
            v.len() >= MEDIAN_SAMPLES && v.iter().all(|x| x.is_finite())
        };
        enough(b) && enough(c)
    }

    /// The larger distance from the centre to an end of the interval.
    fn half_width(&self) -> f64 {
        (self.center - self.lo).max(self.hi - self.center)
    }

    /// `centre ± half-width` for the table.
    fn cell(&self) -> String {
        score(self.center, self.half_width())
    }
}

/// The verdict on one row, by the rule in the module's docs: `n/a` (a
/// score that is not a number), `no error` (a side without an interval),
/// `same`, or which side is better: `change` or `baseline`.
pub fn judge(b: &Estimate, c: &Estimate, higher_is_better: bool, rule: &Rule) -> &'static str {
    if !b.center.is_finite() || !c.center.is_finite() {
        // JMH writes a score it could not compute as "NaN": nothing to rank.
        return "n/a";
    }
    // An error JMH could not compute (one iteration, a derived figure):
    // the difference cannot be told from noise.
    if [b.lo, b.hi, c.lo, c.hi].iter().any(|x| !x.is_finite()) {
        return "no error";
    }
    let overlap = b.lo <= c.hi && c.lo <= b.hi;
    let relative = if b.center != 0.0 {
        ((c.center - b.center) / b.center).abs() * 100.0
    } else {
        f64::INFINITY
    };
    if overlap || relative < rule.min_change_percent {
        "same"
    } else if (c.center > b.center) == higher_is_better {
        "change"
    } else {
        "baseline"
    }
}

/// `(c − b) / b` of two estimates' centres, in percent (NaN when `b`'s
/// is 0 or either is not a number).
fn relative_change(b: &Estimate, c: &Estimate) -> f64 {
    if b.center != 0.0 && b.center.is_finite() && c.center.is_finite() {
        (c.center / b.center - 1.0) * 100.0
    } else {
        f64::NAN
    }
}

/// Whether a row's own figure changed with its ratio to its baseline row:
/// by at least [`Rule::min_change_percent`] of it, the way the ratio
/// changed. A shift of the whole run that moved the baseline row and
/// passed this row by changes its ratio, not its figure.
pub fn own_followed(own_change_percent: f64, ratio_change_percent: f64, rule: &Rule) -> bool {
    own_change_percent.abs() >= rule.min_change_percent
        && own_change_percent.signum() == ratio_change_percent.signum()
}

/// The verdict on a row with a baseline row (the module's docs,
/// "Whole-run shifts"): [`judge`]'s verdict on its ratios (`against`),
/// kept only when the row's own figure moved with it ([`own_followed`]),
/// else `same`. A shift that moves the row with its baseline leaves the
/// ratio `same`; one that passes the row by leaves its own figure; a
/// change of the row itself moves both.
pub fn with_own_change(against: &'static str, own_followed: bool) -> &'static str {
    match against {
        "change" | "baseline" if !own_followed => "same",
        v => v,
    }
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

/// The folded workload name of a benchmark: its last dotted component,
/// lower case, letters and digits only, peer names mapped to the lab's.
fn workload(benchmark: &str) -> String {
    let last = benchmark.rsplit('.').next().unwrap_or(benchmark);
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
    fn pairs(self, b: &BenchResult, c: &BenchResult) -> bool {
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

    /// The row's label in the table.
    fn label(self, b: &BenchResult, c: Option<&BenchResult>) -> String {
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
                format!(
                    "{} [threads={}] {}",
                    workload(&b.benchmark),
                    b.threads,
                    params.join(",")
                )
                .trim_end()
                .to_string()
            }
        }
    }
}

/// A unit JMH writes: time per operation or operations per time, with the
/// time in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Unit {
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
    fn parse(unit: &str) -> Option<Unit> {
        match unit.trim().split_once('/') {
            Some(("ops", t)) => seconds(t).map(Unit::OpsPerTime),
            Some((t, "op")) => seconds(t).map(Unit::TimePerOp),
            None => seconds(unit.trim()).map(Unit::TimePerOp),
            _ => None,
        }
    }

    /// The factor that turns a value in `self` into one in `to`, if both
    /// measure the same thing.
    fn factor_to(self, to: Unit) -> Option<f64> {
        match (self, to) {
            (Unit::TimePerOp(a), Unit::TimePerOp(b)) => Some(a / b),
            (Unit::OpsPerTime(a), Unit::OpsPerTime(b)) => Some(b / a),
            _ => None,
        }
    }
}

/// The result of pairing two files: the table, and what the user should be
/// told about rows that did not pair.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// baseline, change, % and "better" per row.
    pub table: Table,
    /// Rows compared (paired, units compatible).
    pub compared: usize,
    /// Baseline rows with no partner in the change file.
    pub only_baseline: usize,
    /// Change rows with no partner in the baseline file.
    pub only_change: usize,
    /// Paired rows whose units measure different things (time against
    /// throughput, or a unit this reader does not know).
    pub incompatible_units: usize,
    /// Median over the compared rows (with errors) of the two intervals'
    /// half-widths added, as a percentage of the baseline score: the
    /// smallest change the comparison can tell from noise. NaN when no row
    /// has errors.
    pub resolution_percent: f64,
    /// Paired rows with no error estimate on a side, not judged.
    pub unjudged: usize,
    /// Rows judged moved (`change` or `baseline`).
    pub moved: usize,
    /// Of the moved rows, those on which the baseline is better.
    pub moved_to_baseline: usize,
    /// The baseline rows found in both runs (see the module's docs,
    /// "Whole-run shifts"), one per yardstick.
    pub shifts: Vec<Shift>,
    /// Compared rows judged on their own figures because their run has no
    /// baseline row for them (0 under [`Rule::raw`]).
    pub without_baseline: usize,
    /// Whether the rule judged every row on its own figures ([`Rule::raw`]).
    pub raw: bool,
}

/// A baseline row present in both runs: how much the whole second run
/// moved against the first, as that row saw it.
#[derive(Clone, Debug, PartialEq)]
pub struct Shift {
    /// The row's workload name (`cas-pair`).
    pub row: String,
    /// The row's change in % of its baseline figure (NaN when not a
    /// number).
    pub percent: f64,
    /// Whether the row itself moved by the rule (its intervals disjoint and
    /// the change at least the least change).
    pub moved: bool,
    /// Rows judged on their ratio to it (0 under [`Rule::raw`]).
    pub judged_on_ratio: usize,
}

/// More baseline rows than this are summarised in one header line
/// ([`Comparison::header`]).
pub const MAX_SHIFT_LINES: usize = 2;

/// At least this many moved rows, all favouring one side, get
/// [`Comparison::warnings`]' note that the machine may have moved them.
pub const ONE_WAY_ROWS: usize = 3;

/// A comparison whose median row cannot see a change below this (in %) is
/// too coarse for the few-percent effects most changes have.
pub const COARSE_PERCENT: f64 = 5.0;

impl Comparison {
    /// The lines printed above the table: per baseline row, the whole
    /// run's shift as it saw it and what the verdicts were judged on
    /// (`whole-run shift: baseline row cas-pair +16.1% (beyond its
    /// intervals and the least change); verdicts on ratios to it too: 13
    /// row(s) moved only if both % and `ratio %` moved`), then how many
    /// rows had no baseline row; more than [`MAX_SHIFT_LINES`] baseline
    /// rows in one summary line. Empty when no row of either run names a
    /// baseline row.
    pub fn header(&self) -> Vec<String> {
        let mut h = Vec::new();
        if self.shifts.len() > MAX_SHIFT_LINES {
            h.push(self.shifts_summary());
        }
        for s in self
            .shifts
            .iter()
            .filter(|_| self.shifts.len() <= MAX_SHIFT_LINES)
        {
            let pct = if s.percent.is_finite() {
                // -0.04% reads +0.0%, as the table's % does for equal figures.
                format!("{:+.1}%", s.percent).replace("-0.0%", "+0.0%")
            } else {
                "n/a".into()
            };
            let noise = if s.moved {
                "beyond its intervals and the least change"
            } else {
                "within the noise"
            };
            let verdicts = if self.raw {
                "verdicts on each row's own figures (--raw), this shift included".to_string()
            } else {
                format!(
                    "verdicts on ratios to it too: {} row(s) moved only if both % and `ratio %` moved",
                    s.judged_on_ratio
                )
            };
            h.push(format!(
                "whole-run shift: baseline row {} {pct} ({noise}); {verdicts}",
                s.row
            ));
        }
        if !self.shifts.is_empty() && !self.raw && self.without_baseline > 0 {
            h.push(format!(
                "{} row(s) have no baseline row in their run and are judged on their own figures (`ratio %` is -), which a whole-run shift moves too",
                self.without_baseline
            ));
        }
        h
    }

    /// One line for many baseline rows: how far the runs moved as they saw
    /// it (the median and the range of their changes) and what the
    /// verdicts were judged on.
    fn shifts_summary(&self) -> String {
        let mut pcts: Vec<f64> = self
            .shifts
            .iter()
            .map(|s| s.percent)
            .filter(|p| p.is_finite())
            .collect();
        pcts.sort_by(f64::total_cmp);
        let span = match (pcts.first(), pcts.last()) {
            (Some(lo), Some(hi)) => format!(
                "median {:+.1}% (from {lo:+.1}% to {hi:+.1}%)",
                pcts[pcts.len() / 2]
            ),
            _ => "n/a".into(),
        };
        let moved = self.shifts.iter().filter(|s| s.moved).count();
        let verdicts = if self.raw {
            "verdicts on each row's own figures (--raw), these shifts included".to_string()
        } else {
            format!(
                "verdicts on ratios to them too: {} row(s) moved only if both % and `ratio %` moved",
                self.shifts.iter().map(|s| s.judged_on_ratio).sum::<usize>()
            )
        };
        format!(
            "whole-run shifts seen by {} baseline rows (each `reference` row below): {span}, {moved} beyond their noise; {verdicts}",
            self.shifts.len()
        )
    }

    /// What went unpaired, in sentences for stderr; empty when every row
    /// paired.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if self.only_baseline + self.only_change > 0 {
            w.push(format!(
                "{} baseline row(s) and {} change row(s) have no partner (listed as \"(missing)\")",
                self.only_baseline, self.only_change
            ));
        }
        if self.incompatible_units > 0 {
            w.push(format!(
                "{} paired row(s) have units that measure different things (\"units differ\")",
                self.incompatible_units
            ));
        }
        if self.resolution_percent > COARSE_PERCENT {
            w.push(format!(
                "the intervals are wide: the median row can only tell a change of more than {:.0}% from noise, so a change of a few percent reads `same`; compare full runs (no --quick), on a quiet machine",
                self.resolution_percent
            ));
        }
        let one_way = self.moved_to_baseline == self.moved || self.moved_to_baseline == 0;
        if self.moved >= ONE_WAY_ROWS && one_way {
            let side = if self.moved_to_baseline > 0 {
                "baseline"
            } else {
                "change"
            };
            w.push(format!(
                "all {} moved rows favour the {side}: a change that affects every path, or one run on a busier machine (a neighbour's load that held for a whole run, which no interval from inside a run can see); repeat both runs, alternating them, before trusting these verdicts",
                self.moved
            ));
        }
        let moved_shifts: Vec<&Shift> = self
            .shifts
            .iter()
            .filter(|s| s.moved && !self.raw && s.judged_on_ratio > 0)
            .collect();
        if moved_shifts.len() > MAX_SHIFT_LINES {
            w.push(format!(
                "{} baseline rows moved beyond their noise (from {} to {}): parts of the run ran at another speed; a row is called moved only if its ratio to its baseline row moved and its own figure changed by the least change too, so a change of a row that such a shift offsets reads `same`; repeat both runs before trusting a `same`",
                moved_shifts.len(),
                moved_shifts[0].row,
                moved_shifts[moved_shifts.len() - 1].row
            ));
        }
        for s in moved_shifts
            .iter()
            .filter(|_| moved_shifts.len() <= MAX_SHIFT_LINES)
        {
            w.push(format!(
                "the baseline row {} moved {:+.1}%, beyond the noise: the whole run ran at another speed; a row is called moved only if its ratio to {} moved and its own figure changed by the least change too, so a change of a row that this shift offsets reads `same`; repeat both runs before trusting a `same`",
                s.row, s.percent, s.row
            ));
        }
        if self.unjudged > 0 {
            w.push(format!(
                "{} paired row(s) have no error estimate and are not judged (\"no error\")",
                self.unjudged
            ));
        }
        if self.compared == 0 {
            w.push(
                "no row was compared: are these results of the same experiment? \
                 (--by-workload pairs a fastpath run with its HotSpot peer from peers/jvm)"
                    .to_string(),
            );
        }
        w
    }
}

/// Builds the comparison table of `baseline` against `change`, rows matched
/// exactly.
pub fn compare(baseline: &[BenchResult], change: &[BenchResult]) -> Table {
    compare_by(baseline, change, MatchBy::Exact)
}

/// Builds the comparison table of `baseline` against `change`, rows matched
/// by `by` (see [`pair`] for the counts behind it).
pub fn compare_by(baseline: &[BenchResult], change: &[BenchResult], by: MatchBy) -> Table {
    pair(baseline, change, by).table
}

/// Pairs the rows of `baseline` and `change` by `by` and compares each pair
/// under the default [`Rule`].
pub fn pair(baseline: &[BenchResult], change: &[BenchResult], by: MatchBy) -> Comparison {
    pair_with(baseline, change, by, &Rule::default())
}

/// Pairs the rows of `baseline` and `change` by `by` and judges each pair
/// by `rule`: on its ratio to its run's baseline row where both runs have
/// one (unless [`Rule::raw`]), else on its own figures.
pub fn pair_with(baseline: &[BenchResult], change: &[BenchResult], by: MatchBy, rule: &Rule) -> Comparison {
    let mut t = Table::new(
        "compare: baseline vs change",
        &[
            "benchmark",
            "unit",
            "baseline",
            "change",
            "%",
            RATIO_COLUMN,
            "better",
        ],
    );
    // A row is one line, read by whitespace (`name [threads=N] mode=M  unit
    // a ± e  b ± e  %  [ratio %]  verdict`), however long its name.
    t.keep_rows_whole();
    let mut cmp = Comparison {
        table: Table::default(),
        compared: 0,
        only_baseline: 0,
        only_change: 0,
        incompatible_units: 0,
        resolution_percent: f64::NAN,
        unjudged: 0,
        moved: 0,
        moved_to_baseline: 0,
        shifts: Vec::new(),
        without_baseline: 0,
        raw: rule.raw,
    };
    let mut resolutions = Vec::new();
    let mut change_paired = vec![false; change.len()];
    // Per paired row: its baseline rows in the two runs, where both have
    // one and they pair with each other.
    let yardsticks = |b: &BenchResult, c: &BenchResult| {
        let sb = baseline_row(baseline, b)?;
        let sc = baseline_row(change, c)?;
        by.pairs(sb, sc).then_some((sb, sc))
    };
    // The key (in the baseline run) of each shift's baseline row, and of
    // the baseline row each ratio-judged row was judged against.
    let mut shift_keys: Vec<String> = Vec::new();
    let mut ratio_keys: Vec<String> = Vec::new();
    for b in baseline {
        let candidates: Vec<usize> = (0..change.len()).filter(|&i| by.pairs(b, &change[i])).collect();
        // A partner with exactly the same parameters beats one that merely
        // lacks some.
        let exact: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&i| change[i].params == b.params)
            .collect();
        let partners = if exact.is_empty() { candidates } else { exact };
        if partners.is_empty() {
            cmp.only_baseline += 1;
            t.row(vec![
                by.label(b, None),
                b.primary_metric.score_unit.clone(),
                num(b.primary_metric.score),
                "(missing)".into(),
                "n/a".into(),
                "-".into(),
                String::new(),
            ]);
        }
        for i in partners {
            change_paired[i] = true;
            let c = &change[i];
            let (bu, cu) = (&b.primary_metric.score_unit, &c.primary_metric.score_unit);
            let factor = if bu == cu {
                Some(1.0)
            } else {
                Unit::parse(cu)
                    .zip(Unit::parse(bu))
                    .and_then(|(c, b)| c.factor_to(b))
            };
            let Some(factor) = factor else {
                // Time against throughput, or a unit not known here: a ratio
                // of the raw scores would be meaningless.
                cmp.incompatible_units += 1;
                t.row(vec![
                    by.label(b, Some(c)),
                    format!("{bu} vs {cu}"),
                    num(b.primary_metric.score),
                    num(c.primary_metric.score),
                    "n/a".into(),
                    "-".into(),
                    "units differ".into(),
                ]);
                continue;
            };
            cmp.compared += 1;
            let medians = Estimate::medians_apply(&b.primary_metric, &c.primary_metric);
            let be = Estimate::of(&b.primary_metric, 1.0, medians);
            let ce = Estimate::of(&c.primary_metric, factor, medians);
            let unit = if bu == cu {
                bu.clone()
            } else {
                format!("{bu} (change from {cu})")
            };
            let higher = b.mode.higher_is_better();
            let own = judge(&be, &ce, higher, rule);
            let pct = percent(ce.center, be.center);
            let marked = |verdict: &str, pct: String| {
                // A % inside the errors is noise: flagged, not hidden.
                if verdict == "same" && pct != "n/a" {
                    format!("~{pct}")
                } else {
                    pct
                }
            };
            let yardstick = yardsticks(b, c);
            // The baseline row itself: the yardstick, whose change is the
            // whole run's shift (the header states it).
            if yardstick.is_some_and(|(sb, sc)| sb.key() == b.key() && sc.key() == c.key()) {
                shift_keys.push(b.key());
                cmp.shifts.push(Shift {
                    row: short_label(baseline, b),
                    percent: if be.center != 0.0 {
                        (ce.center / be.center - 1.0) * 100.0
                    } else {
                        f64::NAN
                    },
                    moved: own == "change" || own == "baseline",
                    judged_on_ratio: 0,
                });
                t.row(vec![
                    by.label(b, Some(c)),
                    unit,
                    be.cell(),
                    ce.cell(),
                    marked(own, pct),
                    "-".into(),
                    "reference".into(),
                ]);
                continue;
            }
            // The row's ratios to its baseline row in each run, where it
            // has one and the rule looks at them.
            let ratios = match yardstick {
                Some((sb, sc)) if !rule.raw => Some((
                    Estimate::ratio(&b.primary_metric, &sb.primary_metric),
                    Estimate::ratio(&c.primary_metric, &sc.primary_metric),
                    sb.key(),
                )),
                _ => None,
            };
            let width =
                |x: &Estimate, y: &Estimate| (x.half_width() + y.half_width()) / x.center.abs() * 100.0;
            let own_change = relative_change(&be, &ce);
            let (verdict, resolution, pct, ratio_pct) = match &ratios {
                Some((rb, rc, key)) => {
                    ratio_keys.push(key.clone());
                    let against = judge(rb, rc, higher, rule);
                    let ratio_change = relative_change(rb, rc);
                    let followed = own_followed(own_change, ratio_change, rule);
                    (
                        with_own_change(against, followed),
                        width(rb, rc),
                        // Here ~ on % marks an own change under the least
                        // change, too small for the row to have moved.
                        if own_change.abs() >= rule.min_change_percent || pct == "n/a" {
                            pct
                        } else {
                            format!("~{pct}")
                        },
                        marked(against, percent(rc.center, rb.center)),
                    )
                }
                None => {
                    if !rule.raw {
                        cmp.without_baseline += 1;
                    }
                    (own, width(&be, &ce), marked(own, pct), "-".into())
                }
            };
            match verdict {
                "no error" => cmp.unjudged += 1,
                "change" => cmp.moved += 1,
                "baseline" => {
                    cmp.moved += 1;
                    cmp.moved_to_baseline += 1;
                }
                _ => {}
            }
            if verdict != "no error" && be.center != 0.0 && resolution.is_finite() {
                resolutions.push(resolution);
            }
            t.row(vec![
                by.label(b, Some(c)),
                unit,
                be.cell(),
                ce.cell(),
                pct,
                ratio_pct,
                verdict.to_string(),
            ]);
        }
    }
    for (c, paired) in change.iter().zip(change_paired) {
        if !paired {
            cmp.only_change += 1;
            t.row(vec![
                by.label(c, None),
                c.primary_metric.score_unit.clone(),
                "(missing)".into(),
                num(c.primary_metric.score),
                "n/a".into(),
                "-".into(),
                String::new(),
            ]);
        }
    }
    for (shift, key) in cmp.shifts.iter_mut().zip(&shift_keys) {
        shift.judged_on_ratio = ratio_keys.iter().filter(|k| *k == key).count();
    }
    if !resolutions.is_empty() {
        resolutions.sort_by(f64::total_cmp);
        cmp.resolution_percent = resolutions[resolutions.len() / 2];
    }
    t.note("% is change against baseline; \"better\" follows the mode (lower time, higher throughput)");
    t.note("baseline, change: the median of the samples ± the larger side of its 99.9% interval (rows with 11 samples or more on both sides), else the score ± its 99.9% error");
    if ratio_keys.is_empty() {
        // No row judged on a ratio: the column would say `-` throughout.
        t.headers.remove(RATIO_INDEX);
        for r in &mut t.rows {
            r.remove(RATIO_INDEX);
        }
        t.note(format!("moved (\"better\" names a side) only when the two intervals do not overlap and the change is at least {}% of the baseline; otherwise \"same\", its % marked ~; \"no error\": a side has no error estimate, not judged", rule.min_change_percent));
    } else {
        t.note(format!("{RATIO_COLUMN}: the change of the row's ratio to its run's baseline row (the header names it), from the median of the per-round ratios of the two rows' samples; -: no baseline row; \"reference\": the baseline row itself"));
        t.note(format!("a row with a figure in {RATIO_COLUMN} moved (\"better\" names a side) when the intervals of its ratios do not overlap and the ratio changed by at least {}%, and its own figure (%) changed by at least {}% the same way; any other row when its own intervals do not overlap and it changed by at least {}%; a ratio or a row's own figure that does not meet its part is marked ~ and the row says \"same\" (as does a row whose % and ratio % moved opposite ways); a shift of a whole run moves a row with its baseline row or passes it by, and moves no row; \"no error\": a side has no error estimate, not judged", rule.min_change_percent, rule.min_change_percent, rule.min_change_percent));
    }
    super::perfnorm_diff::append(&mut t, baseline, change, |b, c| by.pairs(b, c));
    strip_common_prefix(&mut t);
    cmp.table = t;
    cmp
}

/// `r`'s workload name (`cas-pair`), with its thread count and parameters
/// where other rows of `file` share the name (`short-cs-parking-lot
/// [threads=2] lock=parking_lot::Mutex`).
fn short_label(file: &[BenchResult], r: &BenchResult) -> String {
    let name = r.benchmark.rsplit('.').next().unwrap_or(&r.benchmark);
    if file.iter().filter(|s| s.benchmark == r.benchmark).count() <= 1 {
        return name.to_string();
    }
    let mut label = format!("{name} [threads={}]", r.threads);
    for (k, v) in &r.params {
        label.push_str(&format!(" {k}={v}"));
    }
    label
}

/// The header of the column of changes of the rows' ratios to their
/// run's baseline row, and its place (before "better").
pub const RATIO_COLUMN: &str = "ratio %";
const RATIO_INDEX: usize = 5;

/// Moves the dotted prefix every row's label shares (`fastpath.lock.`)
/// into the title, so that the table is that much narrower.
fn strip_common_prefix(t: &mut Table) {
    let Some(first) = t.rows.first().map(|r| r[0].clone()) else {
        return;
    };
    let mut len = first.len();
    for r in &t.rows {
        len = len.min(
            first
                .bytes()
                .zip(r[0].bytes())
                .take_while(|(a, b)| a == b)
                .count(),
        );
    }
    // Back to the last dot inside the shared part, and only before the
    // first space (the benchmark name, not its parameters).
    let head = &first[..len];
    let head = &head[..head.find(' ').unwrap_or(head.len())];
    let Some(dot) = head.rfind('.') else {
        return;
    };
    let prefix = first[..=dot].to_string();
    for r in &mut t.rows {
        r[0] = r[0][prefix.len()..].to_string();
    }
    t.title = format!("{} ({prefix}…)", t.title);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::jmh::Mode;
    use crate::stats::median_interval;
    use crate::stats::Stats;

    fn r(name: &str, v: f64, mode: Mode) -> BenchResult {
        BenchResult::new("x", name, mode, &Stats::from_samples(vec![v, v]), "ns/op")
    }

    #[test]
    fn matches_rows_and_reports_missing_ones() {
        let a = vec![
            r("a", 100.0, Mode::AverageTime),
            r("only_a", 1.0, Mode::AverageTime),
        ];
        let b = vec![
            r("a", 80.0, Mode::AverageTime),
            r("only_b", 1.0, Mode::AverageTime),
        ];
        let t = compare(&a, &b);
        assert_eq!(t.rows.len(), 3);
        assert_eq!(t.rows[0][4], "-20.0%");
        assert_eq!(t.rows[0][5], "change");
        assert_eq!(t.rows[1][3], "(missing)");
        assert_eq!(t.rows[2][2], "(missing)");
        let tp = compare(
            &[r("t", 100.0, Mode::Throughput)],
            &[r("t", 80.0, Mode::Throughput)],
        );
        assert_eq!(tp.rows[0][5], "baseline");
    }

    #[test]
    fn workload_matching_pairs_a_jmh_peer_and_refuses_unit_mismatches() {
        let mut peer = r("casPair", 12.0, Mode::AverageTime);
        peer.benchmark = "fastpath.peers.LockBench.casPair".into();
        let ours = r("cas-pair", 10.0, Mode::AverageTime).param("mode", "baseline");
        assert_eq!(
            compare(std::slice::from_ref(&ours), std::slice::from_ref(&peer))
                .rows
                .len(),
            2
        );
        let t = compare_by(
            std::slice::from_ref(&ours),
            std::slice::from_ref(&peer),
            MatchBy::Workload,
        );
        assert_eq!(t.rows.len(), 1);
        assert_eq!(t.rows[0][4], "+20.0%");
        peer.primary_metric.score_unit = "ops/s".into();
        let c = pair(&[ours], &[peer], MatchBy::Workload);
        assert_eq!(c.table.rows[0][5], "units differ");
        assert_eq!(c.incompatible_units, 1);
        assert_eq!(c.compared, 0);
    }

    fn with_error(mut r: BenchResult, error: f64) -> BenchResult {
        r.primary_metric.score_error = error;
        r
    }

    #[test]
    fn a_difference_inside_the_error_bars_is_same() {
        let a = with_error(r("a", 100.0, Mode::AverageTime), 1.0);
        let b = with_error(r("a", 99.9, Mode::AverageTime), 1.0);
        let t = compare(std::slice::from_ref(&a), &[b]);
        assert_eq!(t.rows[0][4], "~-0.1%", "a % within the noise is flagged");
        assert_eq!(t.rows[0][5], "same");
        // Outside both intervals but under the least change: same.
        let near = with_error(r("a", 97.0, Mode::AverageTime), 1.0);
        let c = pair(
            std::slice::from_ref(&a),
            std::slice::from_ref(&near),
            MatchBy::Exact,
        );
        assert_eq!(c.table.rows[0][5], "same");
        assert_eq!(c.table.rows[0][4], "~-3.0%");
        // With no least change it names a winner again.
        let any = Rule {
            min_change_percent: 0.0,
            ..Rule::default()
        };
        let c = pair_with(&[a], &[near], MatchBy::Exact, &any);
        assert_eq!(c.table.rows[0][5], "change");
        assert_eq!(c.moved, 1);
    }

    fn est(center: f64, lo: f64, hi: f64) -> Estimate {
        Estimate {
            center,
            lo,
            hi,
            median: false,
        }
    }

    /// The rule, case by case: moved only outside both intervals and by at
    /// least the least change; the side named follows the mode.
    #[test]
    fn the_verdict_needs_disjoint_intervals_and_the_least_change() {
        let rule = Rule::default();
        let b = est(100.0, 99.0, 101.0);
        // 20% slower, tight intervals: moved, the baseline was better.
        assert_eq!(judge(&b, &est(120.0, 119.0, 121.0), false, &rule), "baseline");
        // The same figures as throughput: the change is better.
        assert_eq!(judge(&b, &est(120.0, 119.0, 121.0), true, &rule), "change");
        // 20% faster in time: the change is better.
        assert_eq!(judge(&b, &est(80.0, 79.0, 81.0), false, &rule), "change");
        // 20% apart but the intervals touch: same.
        assert_eq!(judge(&b, &est(120.0, 101.0, 140.0), false, &rule), "same");
        // Disjoint, but 9.9% < 10%: same; exactly 10%: moved.
        assert_eq!(judge(&b, &est(109.9, 109.0, 110.0), false, &rule), "same");
        assert_eq!(judge(&b, &est(110.0, 109.5, 110.5), false, &rule), "baseline");
        // The least change is relative to the baseline, either way.
        assert_eq!(judge(&b, &est(91.0, 90.5, 91.5), false, &rule), "same");
        assert_eq!(judge(&b, &est(89.0, 88.5, 89.5), false, &rule), "change");
        // A side without an interval is not judged, a NaN score ranks nothing.
        assert_eq!(
            judge(&b, &est(200.0, f64::NAN, f64::NAN), false, &rule),
            "no error"
        );
        assert_eq!(judge(&est(f64::NAN, 0.0, 1.0), &b, false, &rule), "n/a");
        // A zero baseline: any disjoint change is moved.
        assert_eq!(
            judge(&est(0.0, 0.0, 0.0), &est(1.0, 1.0, 1.0), false, &rule),
            "baseline"
        );
    }

    /// A result with raw samples `xs` (one fork).
    fn raw(name: &str, xs: Vec<f64>) -> BenchResult {
        BenchResult::new("x", name, Mode::AverageTime, &Stats::from_samples(xs), "ns/op")
    }

    /// With 11 samples or more a side the medians and their intervals
    /// judge, so a few preempted samples (a long tail that drags the mean
    /// and its error) change nothing; with fewer, the means do.
    #[test]
    fn medians_judge_rows_with_enough_samples() {
        let steady: Vec<f64> = (0..60).map(|i| 10.0 + f64::from(i % 5) * 0.01).collect();
        let mut tail = steady.clone();
        for x in tail.iter_mut().step_by(10) {
            *x = 300.0;
        }
        let c = pair(&[raw("r", steady.clone())], &[raw("r", tail)], MatchBy::Exact);
        assert_eq!(c.table.rows[0][5], "same", "{:?}", c.table.rows[0]);
        assert_eq!(
            c.table.rows[0][2], "10.02 ± 0.010",
            "the median ± its interval's larger side"
        );
        // The same runs 20% slower: moved, though the tail is on the
        // baseline's side.
        let mut slow_tail: Vec<f64> = steady.iter().map(|x| x * 1.2).collect();
        slow_tail[3] = 1.0;
        let c = pair(&[raw("r", steady)], &[raw("r", slow_tail)], MatchBy::Exact);
        assert_eq!(c.table.rows[0][5], "baseline", "{:?}", c.table.rows[0]);
        assert_eq!(c.moved, 1);
        // Ten samples a side: the means (with their t intervals) judge.
        let few = pair(
            &[raw("r", vec![10.0; 10])],
            &[raw("r", vec![10.5; 10])],
            MatchBy::Exact,
        );
        assert_eq!(few.table.rows[0][2], "10.00 ± 0.000");
    }

    /// A row that spends stretches of its run at one level and stretches
    /// at another (threads sharing CPUs with a neighbour for a while) and
    /// a second run of it that spent more of its time at the other level:
    /// independent-sample intervals would call the two 100% apart, but
    /// the stretches leave few effective samples, the intervals span both
    /// levels, and the row is `same`. A steady row 20% slower is still
    /// moved.
    #[test]
    fn samples_in_stretches_are_judged_by_their_effective_number() {
        let stretches = |at_20: &[usize]| -> Vec<f64> {
            (0..10)
                .flat_map(|b| {
                    let level = if at_20.contains(&b) { 20.0 } else { 10.0 };
                    (0..6).map(move |i| level + 0.01 * f64::from(i))
                })
                .collect()
        };
        let mostly_10 = stretches(&[3, 7]);
        let mostly_20 = stretches(&[0, 1, 2, 4, 5, 6, 8, 9]);
        let sign_test = |xs: &[f64]| median_interval(xs, CONFIDENCE).unwrap();
        assert!(
            sign_test(&mostly_10).1 < sign_test(&mostly_20).0,
            "independent-sample intervals are disjoint"
        );
        let c = pair(
            &[raw("r", mostly_10.clone())],
            &[raw("r", mostly_20)],
            MatchBy::Exact,
        );
        assert_eq!(c.table.rows[0][5], "same", "{:?}", c.table.rows[0]);
        assert_eq!(c.moved, 0);

        let steady: Vec<f64> = (0..60).map(|i| 10.0 + f64::from(i % 7) * 0.01).collect();
        let slower: Vec<f64> = steady.iter().map(|x| x * 1.2).collect();
        let c = pair(&[raw("r", steady)], &[raw("r", slower)], MatchBy::Exact);
        assert_eq!(c.table.rows[0][5], "baseline", "{:?}", c.table.rows[0]);
    }

    /// Three rows slower together are named as possibly the machine's
    /// doing; rows that moved both ways are not.
    #[test]
    fn rows_that_all_moved_one_way_are_named() {
        let steady = |k: f64| -> Vec<f64> { (0..60).map(|i| k * (10.0 + f64::from(i % 7) * 0.01)).collect() };
        let names = ["a", "b", "c"];
        let base: Vec<BenchResult> = names.iter().map(|n| raw(n, steady(1.0))).collect();
        let slow: Vec<BenchResult> = names.iter().map(|n| raw(n, steady(1.3))).collect();
        let c = pair(&base, &slow, MatchBy::Exact);
        assert_eq!((c.moved, c.moved_to_baseline), (3, 3));
        assert!(
            c.warnings()
                .iter()
                .any(|w| w.starts_with("all 3 moved rows favour the baseline")),
            "{:?}",
            c.warnings()
        );
        let mut mixed = slow.clone();
        mixed[1] = raw("b", steady(0.7));
        let c = pair(&base, &mixed, MatchBy::Exact);
        assert_eq!((c.moved, c.moved_to_baseline), (3, 2));
        assert!(
            !c.warnings().iter().any(|w| w.contains("moved rows favour")),
            "{:?}",
            c.warnings()
        );
    }

    /// One run of an interleaved table: per row (name, level), 60
    /// samples, sample k taken in round k when the machine ran at
    /// `machine(k)` times its speed, with a little noise of the row's own;
    /// every row names `cas-pair` as its baseline row, as the lock pairs
    /// table's do.
    fn interleaved(rows: &[(&str, f64)], machine: impl Fn(usize) -> f64) -> Vec<BenchResult> {
        rows.iter()
            .enumerate()
            .map(|(j, (name, level))| {
                let xs: Vec<f64> = (0..60)
                    .map(|k| level * machine(k) * (1.0 + 0.002 * ((k * 7 + j * 3) % 11) as f64))
                    .collect();
                let ratio = Metric::single(1.0, "x");
                BenchResult::new("lock", name, Mode::AverageTime, &Stats::from_samples(xs), "ns/op")
                    .param(
                        "mode",
                        if *name == "cas-pair" {
                            "baseline"
                        } else {
                            "lightweight"
                        },
                    )
                    .secondary("ratio_to_cas_pair", ratio.clone())
                    .secondary("ratio_to_best_peer", ratio)
            })
            .collect()
    }

    const PAIRS: [(&str, f64); 4] = [
        ("cas-pair", 20.0),
        ("uncontended", 26.0),
        ("churn", 32.0),
        ("std-mutex", 40.0),
    ];

    fn verdicts(c: &Comparison) -> Vec<(&str, &str)> {
        c.table
            .rows
            .iter()
            .map(|r| (r[0].split(' ').next().unwrap(), r[r.len() - 1].as_str()))
            .collect()
    }

    /// A second run 16% slower as a whole, every row alike: on their
    /// own figures every row has moved; on their ratios to the CAS pair
    /// none has, and the header states the shift.
    #[test]
    fn a_whole_run_shift_moves_no_row_judged_on_its_ratio() {
        let first = interleaved(&PAIRS, |_| 1.0);
        let slower = interleaved(&PAIRS, |_| 1.16);
        let c = pair(&first, &slower, MatchBy::Exact);
        assert_eq!(
            verdicts(&c),
            [
                ("cas-pair", "reference"),
                ("uncontended", "same"),
                ("churn", "same"),
                ("std-mutex", "same")
            ],
            "{}",
            c.table.to_text()
        );
        assert_eq!((c.moved, c.compared, c.unjudged), (0, 4, 0));
        assert_eq!(
            c.table.headers,
            [
                "benchmark",
                "unit",
                "baseline",
                "change",
                "%",
                "ratio %",
                "better"
            ]
        );
        // The row's own change stays in %, unmarked; the judged ratio's in
        // `ratio %`, marked as noise.
        let churn = &c.table.rows[2];
        assert_eq!(churn[4], "+16.0%");
        assert!(
            churn[5].starts_with('~') && churn[5].ends_with("0.0%"),
            "{churn:?}"
        );
        assert_eq!(c.table.rows[0][5], "-");
        assert_eq!(
            c.header(),
            ["whole-run shift: baseline row cas-pair +16.0% (beyond its intervals and the least change); verdicts on ratios to it too: 3 row(s) moved only if both % and `ratio %` moved"]
        );
        assert_eq!(
            c.warnings(),
            ["the baseline row cas-pair moved +16.0%, beyond the noise: the whole run ran at another speed; a row is called moved only if its ratio to cas-pair moved and its own figure changed by the least change too, so a change of a row that this shift offsets reads `same`; repeat both runs before trusting a `same`"]
        );
        // --raw: the old verdicts, every row moved, and the header says so.
        let raw = Rule {
            raw: true,
            ..Rule::default()
        };
        let r = pair_with(&first, &slower, MatchBy::Exact, &raw);
        assert_eq!(r.table.headers.len(), 6, "no ratio column under --raw");
        assert_eq!((r.moved, r.moved_to_baseline), (3, 3));
        assert_eq!(verdicts(&r)[0], ("cas-pair", "reference"));
        assert_eq!(
            r.header(),
            ["whole-run shift: baseline row cas-pair +16.0% (beyond its intervals and the least change); verdicts on each row's own figures (--raw), this shift included"]
        );
        // No shift at all: the header says it is within the noise.
        let again = pair(&first, &first, MatchBy::Exact);
        assert!(again.header()[0].contains("cas-pair +0.0% (within the noise)"));
        assert!(again.warnings().is_empty(), "{:?}", again.warnings());
    }

    /// A row 30% slower against its baseline row, in a run that is also
    /// 16% slower as a whole, is moved (to the baseline's side), and a row
    /// 30% faster in a run without a shift is moved the other way; a row
    /// that the shift passed by (its own figure unchanged, its ratio 14%
    /// lower: churn and contended-2t in a real shift) is `same`, as are
    /// the rows that followed the shift.
    #[test]
    fn a_row_that_moves_against_its_baseline_row_is_moved() {
        let first = interleaved(&PAIRS, |_| 1.0);
        let mut rows = PAIRS;
        rows[1].1 *= 1.3;
        rows[3].1 /= 1.16;
        let changed = interleaved(&rows, |_| 1.16);
        let c = pair(&first, &changed, MatchBy::Exact);
        assert_eq!(
            verdicts(&c),
            [
                ("cas-pair", "reference"),
                ("uncontended", "baseline"),
                ("churn", "same"),
                ("std-mutex", "same")
            ],
            "{}",
            c.table.to_text()
        );
        assert_eq!(
            (c.table.rows[1][4].as_str(), c.table.rows[1][5].as_str()),
            ("+50.8%", "+30.0%")
        );
        // std-mutex: its own figure ~0%, its ratio -13.8%, moved alone.
        let std = &c.table.rows[3];
        assert!(std[4].starts_with('~') && std[4].ends_with("0.0%"), "{std:?}");
        assert_eq!(std[5], "-13.8%");
        assert_eq!((c.moved, c.moved_to_baseline), (1, 1));

        let mut rows = PAIRS;
        rows[2].1 *= 0.7;
        let c = pair(&first, &interleaved(&rows, |_| 1.0), MatchBy::Exact);
        assert_eq!(verdicts(&c)[2], ("churn", "change"), "{}", c.table.to_text());
        assert_eq!(
            (c.table.rows[2][4].as_str(), c.table.rows[2][5].as_str()),
            ("-30.0%", "-30.0%")
        );
        assert_eq!((c.moved, c.moved_to_baseline), (1, 0));
    }

    /// Moved only when the ratio moved and the row's own figure moved by
    /// the least change, the same way; other verdicts carry over.
    #[test]
    fn a_ratio_that_moved_needs_the_rows_own_change() {
        let rule = Rule::default();
        assert!(own_followed(30.0, 30.0, &rule));
        assert!(own_followed(-10.0, -25.0, &rule));
        assert!(!own_followed(9.9, 30.0, &rule), "under the least change");
        assert!(!own_followed(-15.0, 15.0, &rule), "the other way");
        assert!(!own_followed(f64::NAN, 15.0, &rule));
        assert_eq!(with_own_change("baseline", true), "baseline");
        assert_eq!(with_own_change("change", true), "change");
        assert_eq!(with_own_change("baseline", false), "same");
        assert_eq!(with_own_change("change", false), "same");
        assert_eq!(with_own_change("same", true), "same");
        assert_eq!(with_own_change("no error", false), "no error");
        assert_eq!(with_own_change("n/a", true), "n/a");
    }

    /// Samples taken side by side share the machine's state: a run whose
    /// machine ran at two speeds in stretches (rounds 20-39 20% slower)
    /// leaves each row's own interval wide, the per-round ratios' narrow.
    /// Without samples to pair, the ratio's interval is the quotient of
    /// the two intervals, wider than either.
    #[test]
    fn the_ratios_interval_pairs_samples_of_one_round() {
        let run = interleaved(&PAIRS[..2], |k| if (20..40).contains(&k) { 1.2 } else { 1.0 });
        let (base, row) = (&run[0].primary_metric, &run[1].primary_metric);
        let own = Estimate::of(row, 1.0, true);
        let paired = Estimate::ratio(row, base);
        assert!(paired.median);
        let rel = |e: &Estimate| (e.hi - e.lo) / e.center;
        assert!(
            rel(&paired) < rel(&own) / 5.0,
            "paired {paired:?} against the row's own {own:?}"
        );
        assert!((paired.center - 1.3).abs() < 0.01, "{paired:?}");
        // Unequal sample counts: nothing to pair.
        let mut short = run[1].primary_metric.clone();
        short.raw_data[0].truncate(50);
        let q = Estimate::ratio(&short, base);
        assert!(!q.median);
        let (x, b) = (Estimate::of(&short, 1.0, true), Estimate::of(base, 1.0, true));
        assert_eq!((q.lo, q.hi), (x.lo / b.hi, x.hi / b.lo));
        assert!(rel(&q) > rel(&x) && rel(&q) > rel(&b), "{q:?}");
        // A baseline without an error estimate: the ratio has none.
        let one = Metric::single(20.0, "ns/op");
        let single = Metric::single(26.0, "ns/op");
        assert!(Estimate::ratio(&single, &one).lo.is_nan());
    }

    /// Rows with no baseline row in their run are judged on their own
    /// figures: in a file without one, exactly as before (no ratio column,
    /// no header); beside rows that have one, with `-` for a ratio and a
    /// header line that counts them. A run whose baseline row is missing
    /// from the other run judges every row on its own figures.
    #[test]
    fn a_baseline_row_is_named_by_workload_and_thread_count_or_by_a_parameter_value() {
        // The contended table: one peer row per thread count.
        let sample = |name: &str, threads: u32, lock: &str, level: f64, ratio_to: &str| {
            let xs: Vec<f64> = (0..20).map(|k| level * (1.0 + 0.001 * (k % 5) as f64)).collect();
            BenchResult::new("lock", name, Mode::Throughput, &Stats::from_samples(xs), "ops/us")
                .param("lock", lock)
                .threads(threads)
                .secondary(ratio_to, Metric::single(1.0, "x"))
        };
        let run = |level: f64| {
            let mut rows = Vec::new();
            for t in [1, 2, 4] {
                let peer = "ratio_to_short-cs-parking-lot";
                rows.push(sample("short-cs", t, "fastpath", level * 30.0 / t as f64, peer));
                rows.push(sample(
                    "short-cs-parking-lot",
                    t,
                    "parking_lot::Mutex",
                    level * 28.0 / t as f64,
                    peer,
                ));
            }
            rows
        };
        let rows = run(1.0);
        for r in &rows {
            let base = baseline_row(&rows, r).expect("a baseline row");
            assert_eq!(base.benchmark, "fastpath.lock.short-cs-parking-lot");
            assert_eq!(base.threads, r.threads);
        }
        // Each thread count's peer moved alike with its own rows: no row moved,
        // three baseline rows summarised in one line.
        let c = pair(&rows, &run(1.3), MatchBy::Exact);
        assert_eq!(c.moved, 0, "{}", c.table.to_text());
        assert_eq!(c.shifts.len(), 3);
        assert_eq!(c.header().len(), 1, "{:?}", c.header());
        assert!(
            c.header()[0].starts_with("whole-run shifts seen by 3 baseline rows"),
            "{:?}",
            c.header()
        );
        assert!(c.shifts[1].row.contains("[threads=2]"), "{:?}", c.shifts);

        // The workloads table: `ratio_to_legacy` names the row of the same
        // workload whose mode is `legacy`.
        let mode_row = |mode: &str| {
            BenchResult::new(
                "lock",
                "monitor-bench",
                Mode::AverageTime,
                &Stats::from_samples(vec![5.0; 20]),
                "ns/op",
            )
            .param("mode", mode)
            .threads(2)
            .secondary("ratio_to_legacy", Metric::single(1.0, "x"))
        };
        let rows = vec![mode_row("legacy"), mode_row("lightweight"), mode_row("monitor")];
        for r in &rows {
            assert_eq!(baseline_row(&rows, r).unwrap().params["mode"], "legacy");
        }
        // A name that is neither a row nor a value names nothing.
        let r = rows[1]
            .clone()
            .secondary("ratio_to_best_peer", Metric::single(1.0, "x"));
        let mut only_peer = r.clone();
        only_peer
            .secondary_metrics
            .retain(|k, _| k == "ratio_to_best_peer");
        assert!(baseline_row(&rows, &only_peer).is_none());
    }

    #[test]
    fn rows_without_a_baseline_row_are_judged_on_their_own_figures() {
        let strip = |mut rows: Vec<BenchResult>| {
            for r in &mut rows {
                r.secondary_metrics.clear();
            }
            rows
        };
        let first = strip(interleaved(&PAIRS, |_| 1.0));
        let slower = strip(interleaved(&PAIRS, |_| 1.16));
        let c = pair(&first, &slower, MatchBy::Exact);
        assert!(c.header().is_empty());
        assert_eq!(c.table.headers.len(), 6);
        assert_eq!(c.moved, 4, "{}", c.table.to_text());

        // One row of a table that has a baseline row does not name it.
        let mut first = interleaved(&PAIRS, |_| 1.0);
        let mut slower = interleaved(&PAIRS, |_| 1.16);
        for run in [&mut first, &mut slower] {
            run[3].secondary_metrics.clear();
        }
        let c = pair(&first, &slower, MatchBy::Exact);
        assert_eq!(c.table.rows[3][5], "-");
        assert_eq!(c.table.rows[3][6], "baseline", "{}", c.table.to_text());
        assert_eq!(c.without_baseline, 1);
        assert_eq!(
            c.header()[1],
            "1 row(s) have no baseline row in their run and are judged on their own figures (`ratio %` is -), which a whole-run shift moves too"
        );
        assert!(c.header()[0].contains("verdicts on ratios to it too: 2 row(s)"));

        // The change run lacks the baseline row: nothing to take ratios to.
        let first = interleaved(&PAIRS, |_| 1.0);
        let slower = interleaved(&PAIRS[1..], |_| 1.16);
        let c = pair(&first, &slower, MatchBy::Exact);
        assert!(c.header().is_empty());
        assert_eq!(c.table.headers.len(), 6);
        assert_eq!((c.moved, c.only_baseline), (3, 1));
    }

    #[test]
    fn units_of_the_same_kind_are_converted() {
        // The lab writes throughput in ops/s, JMH's SpinBench in ops/us.
        let ours = BenchResult::new(
            "spin",
            "handoff",
            Mode::Throughput,
            &Stats::from_samples(vec![2.0e6, 2.0e6]),
            "ops/s",
        )
        .threads(2);
        let mut peer = BenchResult::new(
            "x",
            "handoff",
            Mode::Throughput,
            &Stats::from_samples(vec![3.0, 3.0]),
            "ops/us",
        )
        .threads(2);
        peer.benchmark = "fastpath.peers.SpinBench.handoff".into();
        let c = pair(&[ours], &[peer], MatchBy::Workload);
        assert_eq!(c.compared, 1, "{:?}", c.table);
        let row = &c.table.rows[0];
        assert_eq!(row[1], "ops/s (change from ops/us)");
        assert!(row[3].starts_with("3.00M"), "{row:?}");
        assert_eq!(row[4], "+50.0%");
        assert_eq!(row[5], "change");
        // Time per op: 1.5 us/op is 1500 ns/op.
        let a = r("t", 1000.0, Mode::AverageTime);
        let mut b = r("t", 1.5, Mode::AverageTime);
        b.primary_metric.score_unit = "us/op".into();
        assert_eq!(compare(&[a], &[b]).rows[0][4], "+50.0%");
    }

    #[test]
    fn workload_matching_pairs_spin_rows_with_spinbench_and_keeps_params_apart() {
        let ours: Vec<BenchResult> = ["none", "pause"]
            .iter()
            .map(|s| {
                BenchResult::new(
                    "spin",
                    "latency",
                    Mode::AverageTime,
                    &Stats::from_samples(vec![5.0, 5.0]),
                    "ns/op",
                )
                .param("strategy", s)
            })
            .collect();
        let mut peer = r("onSpinWait", 40.0, Mode::AverageTime);
        peer.benchmark = "fastpath.peers.SpinBench.onSpinWait".into();
        let mut lru = BenchResult::new(
            "x",
            "lruGetPut",
            Mode::Throughput,
            &Stats::from_samples(vec![1.0]),
            "ops/us",
        )
        .threads(4);
        lru.benchmark = "fastpath.peers.SpinBench.lruGetPut".into();
        let our_lru = BenchResult::new(
            "spin",
            "lru",
            Mode::Throughput,
            &Stats::from_samples(vec![1e6]),
            "ops/s",
        )
        .threads(4)
        .param("strategy", "pause");
        let mut all_ours = ours.clone();
        all_ours.push(our_lru);
        let c = pair(&all_ours, &[peer, lru], MatchBy::Workload);
        assert_eq!(
            (c.compared, c.only_baseline, c.only_change),
            (3, 0, 0),
            "{:?}",
            c.table
        );
        let labels: Vec<&str> = c.table.rows.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(
            labels,
            [
                "latency [threads=1] strategy=none",
                "latency [threads=1] strategy=pause",
                "lru [threads=4] strategy=pause"
            ]
        );
        // The LRU rows have one sample each: no error estimate, not judged.
        assert_eq!(c.table.rows[2][5], "no error");
        assert_eq!(
            c.warnings(),
            ["1 paired row(s) have no error estimate and are not judged (\"no error\")"]
        );
    }

    /// A row with no error estimate is neutral whatever its %, and a
    /// comparison whose intervals are wider than a few percent says so.
    #[test]
    fn rows_without_errors_are_neutral_and_wide_intervals_are_named() {
        let a = BenchResult::new(
            "x",
            "r",
            Mode::AverageTime,
            &Stats::from_samples(vec![1.0]),
            "ns/op",
        );
        let b = BenchResult::new(
            "x",
            "r",
            Mode::AverageTime,
            &Stats::from_samples(vec![1.2]),
            "ns/op",
        );
        let c = pair(&[a], &[b], MatchBy::Exact);
        assert_eq!(c.table.rows[0][5], "no error");
        assert_eq!(c.unjudged, 1);
        assert!(c.resolution_percent.is_nan());
        // ±10% on each side: a 3% change cannot be seen.
        let a = with_error(r("w", 100.0, Mode::AverageTime), 10.0);
        let b = with_error(r("w", 103.0, Mode::AverageTime), 10.0);
        let c = pair(&[a], &[b], MatchBy::Exact);
        assert_eq!(c.table.rows[0][5], "same");
        assert!(
            (c.resolution_percent - 20.0).abs() < 1e-9,
            "{}",
            c.resolution_percent
        );
        assert!(
            c.warnings().iter().any(|w| w.contains("more than 20%")),
            "{:?}",
            c.warnings()
        );
        // ±0.5%: fine-grained enough, no warning.
        let a = with_error(r("w", 100.0, Mode::AverageTime), 0.5);
        let b = with_error(r("w", 103.0, Mode::AverageTime), 0.5);
        assert!(pair(&[a], &[b], MatchBy::Exact).warnings().is_empty());
    }

    #[test]
    fn unrelated_files_are_said_to_be_unrelated() {
        let c = pair(
            &[r("a", 1.0, Mode::AverageTime)],
            &[r("b", 1.0, Mode::AverageTime), r("c", 1.0, Mode::AverageTime)],
            MatchBy::Exact,
        );
        assert_eq!((c.compared, c.only_baseline, c.only_change), (0, 1, 2));
        let w = c.warnings().join("\n");
        assert!(w.contains("1 baseline row(s) and 2 change row(s)"), "{w}");
        assert!(w.contains("no row was compared"), "{w}");
    }

    #[test]
    fn a_non_finite_score_ranks_nothing() {
        let t = compare(
            &[r("a", f64::NAN, Mode::AverageTime)],
            &[r("a", 1.0, Mode::AverageTime)],
        );
        assert_eq!(t.rows[0][5], "n/a");
        let t = compare(
            &[r("a", 1.0, Mode::AverageTime)],
            &[r("a", f64::NAN, Mode::AverageTime)],
        );
        assert_eq!(t.rows[0][5], "n/a");
    }

    #[test]
    fn different_units_are_not_compared() {
        let a = r("a", 100.0, Mode::AverageTime);
        let b = BenchResult::new(
            "x",
            "a",
            Mode::AverageTime,
            &Stats::from_samples(vec![0.1, 0.1]),
            "ops/s",
        );
        let t = compare(&[a], &[b]);
        assert_eq!(t.rows.len(), 1);
        assert_eq!(t.rows[0][1], "ns/op vs ops/s");
        assert_eq!(t.rows[0][4], "n/a");
        assert_eq!(t.rows[0][5], "units differ");
    }
}
