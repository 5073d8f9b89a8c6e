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

mod comparison;
mod estimate;
mod matching;
mod pairing;

pub use comparison::{Comparison, Shift, COARSE_PERCENT, MAX_SHIFT_LINES, ONE_WAY_ROWS, UNPAIRED_NAMES};
pub use estimate::{judge, own_followed, with_own_change, Estimate, MEDIAN_SAMPLES};
pub use matching::{baseline_row, MatchBy, PEER_WORKLOADS, RATIO_PREFIX};
pub use pairing::pair_with;

use super::jmh::BenchResult;
use super::table::Table;

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
mod tests;
