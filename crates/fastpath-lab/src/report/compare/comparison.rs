//! What pairing two result files found ([`Comparison`]): the table, the
//! counts behind it, the whole-run shifts the baseline rows saw, and what
//! the user is told above the table ([`Comparison::header`]) and on
//! stderr ([`Comparison::warnings`]).

use crate::report::Table;

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
    /// baseline row for them (0 under [`Rule::raw`](super::Rule::raw)).
    pub without_baseline: usize,
    /// Whether the rule judged every row on its own figures ([`Rule::raw`](super::Rule::raw)).
    pub raw: bool,
    /// The rows with no partner, as labelled (baseline rows first).
    pub unpaired: Vec<String>,
    /// Whether the rows with no partner are left out of the table (paired
    /// by workload, where most rows of the lab have no HotSpot peer, or
    /// when nothing paired at all) rather than listed as `(missing)`.
    pub unpaired_left_out: bool,
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
    /// Rows judged on their ratio to it (0 under [`Rule::raw`](super::Rule::raw)).
    pub judged_on_ratio: usize,
}

/// The most names of unpaired rows [`Comparison::warnings`] gives.
pub const UNPAIRED_NAMES: usize = 8;

/// `names` joined, the first `most` of them, then how many more.
fn names_cut(names: &[String], most: usize) -> String {
    let mut s = names.iter().take(most).cloned().collect::<Vec<_>>().join("; ");
    if names.len() > most {
        s.push_str(&format!("; and {} more", names.len() - most));
    }
    s
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
            let listed = if self.unpaired_left_out {
                format!(
                    "left out of the table: {}",
                    names_cut(&self.unpaired, UNPAIRED_NAMES)
                )
            } else {
                "listed as \"(missing)\"".to_string()
            };
            w.push(format!(
                "{} baseline row(s) and {} change row(s) have no partner ({listed})",
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
