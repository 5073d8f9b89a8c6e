//! Pairing the rows of two runs and judging each pair: [`pair_with`]'s
//! walk over the baseline's rows, one table row per pair.
//!
//! A pair is judged on its own figures, or, where both runs have the row
//! it was measured against ([`baseline_row`]), on its ratio to that row
//! too (the [module's docs](super), "Whole-run shifts"); that baseline
//! row itself is the run's yardstick, a [`Shift`].

use super::comparison::{Comparison, Shift};
use super::estimate::{judge, own_followed, relative_change, with_own_change, Estimate};
use super::matching::{baseline_row, short_label, MatchBy, Unit};
use super::{strip_common_prefix, Rule, RATIO_COLUMN, RATIO_INDEX};
use crate::report::jmh::BenchResult;
use crate::report::table::{num, percent};
use crate::report::Table;

/// Pairs the rows of `baseline` and `change` by `by` and judges each pair
/// by `rule`: on its ratio to its run's baseline row where both runs have
/// one (unless [`Rule::raw`]), else on its own figures. Rows with no
/// partner are listed as `(missing)`, except when paired by workload (most
/// of the lab's rows have no HotSpot peer) or when nothing paired at all:
/// then the table holds the pairs only and [`Comparison::warnings`] names
/// the others.
pub fn pair_with(baseline: &[BenchResult], change: &[BenchResult], by: MatchBy, rule: &Rule) -> Comparison {
    let mut p = Pairing::new(baseline, change, by, rule);
    for b in baseline {
        let partners = p.partners(b);
        if partners.is_empty() {
            p.unpaired(b, true);
        }
        for i in partners {
            p.compare(b, i);
        }
    }
    for (i, c) in change.iter().enumerate() {
        if !p.change_paired[i] {
            p.unpaired(c, false);
        }
    }
    p.finish()
}

/// [`pair_with`]'s state while it walks the rows.
struct Pairing<'a> {
    baseline: &'a [BenchResult],
    change: &'a [BenchResult],
    by: MatchBy,
    rule: &'a Rule,
    table: Table,
    cmp: Comparison,
    /// Rows with no partner, as table rows, listed after the pairs if at
    /// all ([`Comparison::unpaired_left_out`]).
    unpaired_rows: Vec<Vec<String>>,
    /// Per judged row, the width of its two intervals in % of its centre.
    resolutions: Vec<f64>,
    /// Which change rows found a partner.
    change_paired: Vec<bool>,
    /// The key (in the baseline run) of each shift's baseline row.
    shift_keys: Vec<String>,
    /// The key of the baseline row each ratio-judged row was judged
    /// against.
    ratio_keys: Vec<String>,
}

impl<'a> Pairing<'a> {
    fn new(
        baseline: &'a [BenchResult],
        change: &'a [BenchResult],
        by: MatchBy,
        rule: &'a Rule,
    ) -> Pairing<'a> {
        let mut table = Table::new(
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
        // A row is one line, read by whitespace (`name [threads=N] mode=M
        // unit a ± e  b ± e  %  [ratio %]  verdict`), however long its name.
        table.keep_rows_whole();
        Pairing {
            baseline,
            change,
            by,
            rule,
            table,
            cmp: Comparison {
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
                unpaired: Vec::new(),
                unpaired_left_out: false,
            },
            unpaired_rows: Vec::new(),
            resolutions: Vec::new(),
            change_paired: vec![false; change.len()],
            shift_keys: Vec::new(),
            ratio_keys: Vec::new(),
        }
    }

    /// The change rows `b` pairs with: those with exactly its parameters
    /// if any, else every one the rule pairs it with.
    fn partners(&self, b: &BenchResult) -> Vec<usize> {
        let candidates: Vec<usize> = (0..self.change.len())
            .filter(|&i| self.by.pairs(b, &self.change[i]))
            .collect();
        let exact: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&i| self.change[i].params == b.params)
            .collect();
        if exact.is_empty() {
            candidates
        } else {
            exact
        }
    }

    /// A row of one run only (`in_baseline`: of the baseline's).
    fn unpaired(&mut self, r: &BenchResult, in_baseline: bool) {
        let label = self.by.label(r, None);
        let (score, missing) = (num(r.primary_metric.score), "(missing)".to_string());
        let (b, c) = if in_baseline {
            self.cmp.only_baseline += 1;
            (score, missing)
        } else {
            self.cmp.only_change += 1;
            (missing, score)
        };
        self.cmp.unpaired.push(label.clone());
        self.unpaired_rows.push(vec![
            label,
            r.primary_metric.score_unit.clone(),
            b,
            c,
            "n/a".into(),
            "-".into(),
            String::new(),
        ]);
    }

    /// Compares `b` with its partner, change row `i`.
    fn compare(&mut self, b: &'a BenchResult, i: usize) {
        self.change_paired[i] = true;
        let c = &self.change[i];
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
            self.cmp.incompatible_units += 1;
            self.table.row(vec![
                self.by.label(b, Some(c)),
                format!("{bu} vs {cu}"),
                num(b.primary_metric.score),
                num(c.primary_metric.score),
                "n/a".into(),
                "-".into(),
                "units differ".into(),
            ]);
            return;
        };
        self.cmp.compared += 1;
        let be = Estimate::of(&b.primary_metric, 1.0);
        let ce = Estimate::of(&c.primary_metric, factor);
        let unit = if bu == cu {
            bu.clone()
        } else {
            format!("{bu} (change from {cu})")
        };
        let yardstick = self.yardsticks(b, c);
        // The baseline row itself: the yardstick, whose change is the
        // whole run's shift (the header states it).
        if yardstick.is_some_and(|(sb, sc)| sb.key() == b.key() && sc.key() == c.key()) {
            self.reference(b, c, unit, &be, &ce);
            return;
        }
        let higher = b.mode.higher_is_better();
        let own = judge(&be, &ce, higher, self.rule);
        let pct = percent(ce.center, be.center);
        let width = |x: &Estimate, y: &Estimate| (x.half_width() + y.half_width()) / x.center.abs() * 100.0;
        // The row's ratios to its baseline row in each run, where it has
        // one and the rule looks at them.
        let (verdict, resolution, pct, ratio_pct) = match yardstick {
            Some((sb, sc)) if !self.rule.raw => {
                let (rb, rc) = (
                    Estimate::ratio(&b.primary_metric, &sb.primary_metric),
                    Estimate::ratio(&c.primary_metric, &sc.primary_metric),
                );
                self.ratio_keys.push(sb.key());
                let own_change = relative_change(&be, &ce);
                let against = judge(&rb, &rc, higher, self.rule);
                let followed = own_followed(own_change, relative_change(&rb, &rc), self.rule);
                (
                    with_own_change(against, followed),
                    width(&rb, &rc),
                    // Here ~ on % marks an own change under the least
                    // change, too small for the row to have moved.
                    if own_change.abs() >= self.rule.min_change_percent || pct == "n/a" {
                        pct
                    } else {
                        format!("~{pct}")
                    },
                    marked(against, percent(rc.center, rb.center)),
                )
            }
            _ => {
                if !self.rule.raw {
                    self.cmp.without_baseline += 1;
                }
                (own, width(&be, &ce), marked(own, pct), "-".into())
            }
        };
        match verdict {
            "no error" => self.cmp.unjudged += 1,
            "change" => self.cmp.moved += 1,
            "baseline" => {
                self.cmp.moved += 1;
                self.cmp.moved_to_baseline += 1;
            }
            _ => {}
        }
        if verdict != "no error" && be.center != 0.0 && resolution.is_finite() {
            self.resolutions.push(resolution);
        }
        self.table.row(vec![
            self.by.label(b, Some(c)),
            unit,
            be.cell(),
            ce.cell(),
            pct,
            ratio_pct,
            verdict.to_string(),
        ]);
    }

    /// The baseline rows of `b` and `c` in their runs, where both have one
    /// and the two pair with each other.
    fn yardsticks(&self, b: &BenchResult, c: &BenchResult) -> Option<(&'a BenchResult, &'a BenchResult)> {
        let sb = baseline_row(self.baseline, b)?;
        let sc = baseline_row(self.change, c)?;
        self.by.pairs(sb, sc).then_some((sb, sc))
    }

    /// The table row of a baseline row (`reference`), and its shift.
    fn reference(&mut self, b: &BenchResult, c: &BenchResult, unit: String, be: &Estimate, ce: &Estimate) {
        let own = judge(be, ce, b.mode.higher_is_better(), self.rule);
        self.shift_keys.push(b.key());
        self.cmp.shifts.push(Shift {
            row: short_label(self.baseline, b),
            percent: if be.center != 0.0 {
                (ce.center / be.center - 1.0) * 100.0
            } else {
                f64::NAN
            },
            moved: own == "change" || own == "baseline",
            judged_on_ratio: 0,
        });
        self.table.row(vec![
            self.by.label(b, Some(c)),
            unit,
            be.cell(),
            ce.cell(),
            marked(own, percent(ce.center, be.center)),
            "-".into(),
            "reference".into(),
        ]);
    }

    /// The comparison, its table finished: the unpaired rows listed or
    /// left out, the counts, the notes.
    fn finish(mut self) -> Comparison {
        let (cmp, t) = (&mut self.cmp, &mut self.table);
        cmp.unpaired_left_out = self.by == MatchBy::Workload || cmp.compared == 0;
        if !cmp.unpaired_left_out {
            for r in self.unpaired_rows {
                t.row(r);
            }
        }
        for (shift, key) in cmp.shifts.iter_mut().zip(&self.shift_keys) {
            shift.judged_on_ratio = self.ratio_keys.iter().filter(|k| *k == key).count();
        }
        if !self.resolutions.is_empty() {
            self.resolutions.sort_by(f64::total_cmp);
            cmp.resolution_percent = self.resolutions[self.resolutions.len() / 2];
        }
        let min = self.rule.min_change_percent;
        t.note("% is change against baseline; \"better\" follows the mode (lower time, higher throughput)");
        t.note("baseline, change: each side's median ± the larger side of its 99.9% interval where it has 11 samples or more (the lab's rows), else its score ± its 99.9% error (JMH's mean of a few iterations)");
        if self.ratio_keys.is_empty() {
            // No row judged on a ratio: the column would say `-` throughout.
            t.headers.remove(RATIO_INDEX);
            for r in &mut t.rows {
                r.remove(RATIO_INDEX);
            }
            t.note(format!("moved (\"better\" names a side) only when the two intervals do not overlap and the change is at least {min}% of the baseline; otherwise \"same\", its % marked ~; \"no error\": a side has no error estimate, not judged"));
        } else {
            t.note(format!("{RATIO_COLUMN}: the change of the row's ratio to its run's baseline row (the header names it), from the median of the per-round ratios of the two rows' samples; -: no baseline row; \"reference\": the baseline row itself"));
            t.note(format!("a row with a figure in {RATIO_COLUMN} moved (\"better\" names a side) when the intervals of its ratios do not overlap and the ratio changed by at least {min}%, and its own figure (%) changed by at least {min}% the same way; any other row when its own intervals do not overlap and it changed by at least {min}%; a ratio or a row's own figure that does not meet its part is marked ~ and the row says \"same\" (as does a row whose % and ratio % moved opposite ways); a shift of a whole run moves a row with its baseline row or passes it by, and moves no row; \"no error\": a side has no error estimate, not judged"));
        }
        let by = self.by;
        crate::report::perfnorm_diff::append(t, self.baseline, self.change, |b, c| by.pairs(b, c));
        strip_common_prefix(t);
        self.cmp.table = self.table;
        self.cmp
    }
}

/// A % inside the errors is noise: flagged with `~`, not hidden.
fn marked(verdict: &str, pct: String) -> String {
    if verdict == "same" && pct != "n/a" {
        format!("~{pct}")
    } else {
        pct
    }
}
