//! Table 3, seed 003's table on programs (the Shenandoah write-barrier
//! thread): in passive mode (no concurrent cycle, so every barrier runs
//! its fast path only), each barrier set's % time against no barriers,
//! and with `--prof perfnorm` its instructions, branches and loads per
//! iteration ([`counters`](super::counters)); beside HotSpot's Shenandoah
//! in passive mode with the same barriers switched on.
//!
//! Where it sits: the third table of `fastpath vm`, on
//! [`measure`](super::measure).
//!
//! fastpath-vm: `FASTPATH_GC_MODE=passive` and `FASTPATH_GC_BARRIERS` a
//! preset (`none`, `serial`, `g1`, `shenandoah-2017` the seed's set,
//! `shenandoah`), each of which the VM's interpreter is monomorphised for,
//! and, in a full run, single barriers (`satb`, `lrb`, `cas`), which the
//! VM runs through its run-time-checked `Dynamic` set: their % holds that
//! set's checks beside the barrier's own cost, and says so. HotSpot
//! (JDK 25): `-XX:+UseShenandoahGC -XX:ShenandoahGCMode=passive`, which
//! turns every barrier off, then `-XX:+ShenandoahSATBBarrier`,
//! `+ShenandoahLoadRefBarrier`, `+ShenandoahCASBarrier` each alone and the
//! three together, the same set as fastpath's `shenandoah` preset
//! (`+ShenandoahCardBarrier` is refused in passive mode; the clone
//! barrier has no fastpath counterpart and stays off).
//!
//! How a % is taken: every process runs its warm-up iterations (dropped)
//! then its steady-state ones ([`steady_plan`]: more on a compiling tier,
//! whose medians spread most); each round runs one VM tier's
//! configurations back to back ([`Cell::block`]), so a barrier set and
//! the same tier's `none` run minutes apart at most, under the same load.
//! Per round, the ratio of the two processes' medians is one paired
//! ratio; a set's % is the median of its paired ratios − 1, shown with
//! their range (min..max) as its spread ([`Paired`]). A ratio of medians
//! taken over all rounds would let a load change between rounds land on
//! one side only.
//!
//! The goal: the `shenandoah` preset's % on each program no more than
//! HotSpot's with SATB + LRB + CAS on the like tier (interpreter against
//! `-Xint`, JIT against C2), within 3 points, judged on the spreads
//! ([`goal_verdict`]): met when fastpath's whole spread lies at or below
//! HotSpot's lowest ratio + 3 points, not met when its lowest lies above
//! HotSpot's highest + 3 points; where the spreads overlap, a sign test
//! over the rounds both VMs ran decides (each round's fastpath % minus
//! HotSpot's %, the two measured minutes apart under the same load: met
//! when that difference is ≤ 3 points in so many rounds that chance
//! would give as many with probability ≤ 5 %, not met likewise the other
//! way), and with neither, undecided.

use fastpath::gc::{BarrierBits, GcMode};

use std::collections::BTreeMap;

use super::bars::BarChart;
use super::counters::{Counting, EVENTS};
use super::measure::{Cell, Measured};
use super::rows::{cell_result, failures_note, ms, pct, slower_pct, with_ratio};
use super::vms::{Engine, RunConfig, Tier};
use super::{Part, VmRun};
use crate::harness::perfnorm::Profile;
use crate::report::table::num;
use crate::report::{timing_verdict, Metric, Table};
use crate::stats::Stats;

/// The goal's allowance in percentage points.
const GOAL_SLACK_POINTS: f64 = 3.0;

/// fastpath-vm's barrier sets: (label, `FASTPATH_GC_BARRIERS`, a preset
/// (monomorphised) or not, run in quick mode).
const FASTPATH_SETS: [(&str, &str, bool, bool); 8] = [
    ("none", "none", true, true),
    ("serial", "serial", true, false),
    ("g1", "g1", true, true),
    ("shenandoah-2017", "shenandoah-2017", true, false),
    ("shenandoah", "shenandoah", true, true),
    ("satb (Dynamic)", "satb", false, false),
    ("lrb (Dynamic)", "lrb", false, false),
    ("cas (Dynamic)", "cas", false, false),
];

/// HotSpot's: (label, the barriers switched on, run in quick mode).
const HOTSPOT_SETS: [(&str, &[&str], bool); 5] = [
    ("passive", &[], true),
    ("passive +SATB", &["SATB"], false),
    ("passive +LRB", &["LoadRef"], false),
    ("passive +CAS", &["CAS"], false),
    ("passive +SATB+LRB+CAS", &["SATB", "LoadRef", "CAS"], true),
];

/// The label of HotSpot's set that matches fastpath's `shenandoah`.
const HOTSPOT_SAME_SET: &str = "passive +SATB+LRB+CAS";

/// Iterations per process on `tier`: (warm-up, dropped; steady state,
/// kept). A compiling tier keeps `--steady-iterations` (default 36, 6
/// with `--quick`) after 12 (6) warm-up iterations: its medians spread
/// most, and C2 and the JIT compile during the first ones. The
/// interpreter keeps a quarter as many (at least 2) after 4 (2). Quick
/// mode's processes are as long as the other tables' (4 and 12
/// iterations).
pub fn steady_plan(quick: bool, steady_iterations: Option<usize>, tier: Tier) -> (usize, usize) {
    let compiled = steady_iterations.unwrap_or(if quick { 6 } else { 36 });
    match (tier.compiles(), quick) {
        (true, true) => (6, compiled),
        (true, false) => (12, compiled),
        (false, true) => (2, (compiled / 4).max(2)),
        (false, false) => (4, (compiled / 4).max(2)),
    }
}

/// A barrier set's cost against no barriers on one program and tier,
/// paired round by round: each round's ratio of the set's process median
/// to the baseline's (the same round's, run back to back with it).
#[derive(Clone, Debug, PartialEq)]
pub struct Paired {
    /// The per-round ratios, in round order.
    pub ratios: Vec<f64>,
    /// The timed round of each ratio (`ratios[i]` is round `rounds[i]`'s).
    pub rounds: Vec<usize>,
    /// Their median.
    pub median: f64,
    /// Their least: the spread's low end.
    pub lo: f64,
    /// Their greatest: the spread's high end.
    pub hi: f64,
}

impl Paired {
    /// The ratios of the rounds both `set` and `base` ran (each a list of
    /// (timed round, median)); `None` when no round has both.
    pub fn from_rounds(base: &[(usize, f64)], set: &[(usize, f64)]) -> Option<Paired> {
        let (rounds, ratios): (Vec<usize>, Vec<f64>) = set
            .iter()
            .filter_map(|&(round, s)| {
                let &(_, b) = base.iter().find(|(r, _)| *r == round)?;
                (s.is_finite() && b.is_finite() && b > 0.0).then_some((round, s / b))
            })
            .unzip();
        if ratios.is_empty() {
            return None;
        }
        let stats = Stats::from_samples(ratios.clone());
        Some(Paired {
            median: stats.median,
            lo: stats.min,
            hi: stats.max,
            ratios,
            rounds,
        })
    }

    /// Of two measured cells (`None` when either failed or they share no
    /// round).
    pub fn of(base: &Measured, set: &Measured) -> Option<Paired> {
        if base.error.is_some() || set.error.is_some() {
            return None;
        }
        Paired::from_rounds(&base.round_medians, &set.round_medians)
    }

    /// The % time against the baseline (positive: slower), and its spread.
    pub fn pct(&self) -> (f64, f64, f64) {
        let p = |r: f64| (r - 1.0) * 100.0;
        (p(self.median), p(self.lo), p(self.hi))
    }

    /// `+22.6% (+18.0..+27.1)` (no range for one round).
    pub fn text(&self) -> String {
        let (m, lo, hi) = self.pct();
        if self.ratios.len() < 2 {
            pct(m)
        } else {
            format!("{} ({lo:+.1}..{hi:+.1})", pct(m))
        }
    }

    /// As a JMH metric: score the median ratio, confidence the spread,
    /// percentiles 0/50/100, the ratios as raw data.
    pub fn metric(&self) -> Metric {
        let mut percentiles = BTreeMap::new();
        percentiles.insert("0.0".to_string(), self.lo);
        percentiles.insert("50.0".to_string(), self.median);
        percentiles.insert("100.0".to_string(), self.hi);
        Metric {
            score: self.median,
            score_error: (self.median - self.lo).max(self.hi - self.median),
            score_confidence: vec![self.lo, self.hi],
            score_percentiles: percentiles,
            score_unit: "ratio".to_string(),
            raw_data: vec![self.ratios.clone()],
        }
    }
}

/// The fewest paired rounds a side needs for a verdict: the range of two
/// ratios says little about a third.
pub const ROUNDS_TO_DECIDE: usize = 3;

/// Whether a goal row is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Decided in the goal's favour.
    Met,
    /// Decided against it.
    NotMet,
    /// The spreads overlap (or a side has fewer than
    /// [`ROUNDS_TO_DECIDE`] paired rounds).
    Undecided,
}

impl Verdict {
    /// As the table says it.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Met => "met",
            Verdict::NotMet => "not met",
            Verdict::Undecided => "undecided",
        }
    }

    /// For the JSON rows: 1 met, 0 undecided, −1 not met.
    pub fn score(self) -> f64 {
        match self {
            Verdict::Met => 1.0,
            Verdict::NotMet => -1.0,
            Verdict::Undecided => 0.0,
        }
    }
}

/// The one-sided level at which the sign test decides a goal row.
pub const SIGN_TEST_ALPHA: f64 = 0.05;

/// The goal on one program and tier: fastpath's overhead no more than
/// HotSpot's + `slack` points. First on the spreads: met when fastpath's
/// highest paired % is at most HotSpot's lowest + `slack`; not met when
/// fastpath's lowest is above HotSpot's highest + `slack`. Where they
/// overlap, by a sign test over the rounds both ran ([`sign_test`]). With
/// fewer than [`ROUNDS_TO_DECIDE`] rounds on either side, undecided.
pub fn goal_verdict(fastpath: &Paired, hotspot: &Paired, slack: f64) -> Verdict {
    if fastpath.ratios.len() < ROUNDS_TO_DECIDE || hotspot.ratios.len() < ROUNDS_TO_DECIDE {
        return Verdict::Undecided;
    }
    let (_, f_lo, f_hi) = fastpath.pct();
    let (_, h_lo, h_hi) = hotspot.pct();
    if f_hi <= h_lo + slack {
        Verdict::Met
    } else if f_lo > h_hi + slack {
        Verdict::NotMet
    } else {
        sign_test(fastpath, hotspot, slack).verdict
    }
}

/// A sign test of fastpath's overhead against HotSpot's + `slack`
/// points, round by round: how many of the rounds both ran had
/// fastpath's % at most HotSpot's + `slack` (`at_or_below`) and how many
/// above, and the chance of as lopsided a count were each round a coin
/// toss (the one-sided binomial tail, `p`). Pairing by round cancels what
/// a round's load does to both VMs; counting signs ignores how far, so
/// one wild round weighs as one. Decides at [`SIGN_TEST_ALPHA`]: five of
/// five rounds, seven of eight, nine of ten.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SignTest {
    /// Rounds both sides ran.
    pub rounds: usize,
    /// Of those, rounds with fastpath's % ≤ HotSpot's + slack.
    pub at_or_below: usize,
    /// The one-sided tail of the larger side's count.
    pub p: f64,
    /// Met when `at_or_below` is significant, not met when the other side is.
    pub verdict: Verdict,
}

/// The sign test over the rounds `fastpath` and `hotspot` share.
pub fn sign_test(fastpath: &Paired, hotspot: &Paired, slack: f64) -> SignTest {
    let differences: Vec<f64> = fastpath
        .rounds
        .iter()
        .zip(&fastpath.ratios)
        .filter_map(|(round, f)| {
            let i = hotspot.rounds.iter().position(|r| r == round)?;
            Some((f - hotspot.ratios[i]) * 100.0)
        })
        .collect();
    let rounds = differences.len();
    let at_or_below = differences.iter().filter(|&&d| d <= slack).count();
    let above = rounds - at_or_below;
    let p = binomial_half_upper_tail(rounds, at_or_below.max(above));
    let verdict = if rounds == 0 || p > SIGN_TEST_ALPHA {
        Verdict::Undecided
    } else if at_or_below > above {
        Verdict::Met
    } else {
        Verdict::NotMet
    };
    SignTest {
        rounds,
        at_or_below,
        p,
        verdict,
    }
}

/// P(X ≥ k) for X ~ Binomial(n, 1/2): the sum of C(n, i) for i ≥ k over 2^n.
fn binomial_half_upper_tail(n: usize, k: usize) -> f64 {
    let mut term = 1.0_f64; // C(n, 0)
    let mut tail = 0.0;
    for i in 0..=n {
        if i >= k {
            tail += term;
        }
        term = term * (n - i) as f64 / (i + 1) as f64;
    }
    tail / 2f64.powi(n as i32)
}

fn configs(run: &VmRun) -> (Vec<RunConfig>, Vec<String>) {
    let mut c = Vec::new();
    let mut skipped = Vec::new();
    for (engine, tier) in run.seed_tiers() {
        match engine {
            Engine::Fastpath => {
                for (label, value, _, quick) in FASTPATH_SETS {
                    if run.quick && !quick {
                        continue;
                    }
                    c.push(
                        run.fastpath(tier, label)
                            .env(BarrierBits::VAR, value)
                            .env(GcMode::VAR, "passive"),
                    );
                }
            }
            Engine::HotSpot => {
                for (label, on, quick) in HOTSPOT_SETS {
                    if run.quick && !quick {
                        continue;
                    }
                    let mut flags = vec![
                        "-XX:+UseShenandoahGC".to_string(),
                        "-XX:+UnlockDiagnosticVMOptions".to_string(),
                        "-XX:ShenandoahGCMode=passive".to_string(),
                    ];
                    flags.extend(on.iter().map(|b| format!("-XX:+Shenandoah{b}Barrier")));
                    let cfg = run.hotspot(tier, label).flags(flags);
                    match cfg.runnable(run.setup) {
                        Ok(()) => c.push(cfg),
                        Err(e) => skipped.push(format!("{} not run: {e}", cfg.describe())),
                    }
                }
            }
        }
    }
    (c, skipped)
}

/// Measures and builds the tables (one per VM tier, then the counters).
pub fn run(run: &VmRun) -> anyhow::Result<Part> {
    let programs = run.programs(
        &["GcTrees", "GcListChurn"],
        Some(&[
            "GcTrees",
            "GcListChurn",
            "Richards",
            "DeltaBlue",
            "Havlak",
            "Json",
            "CD",
            "Storage",
        ]),
    );
    let (configs, skipped) = configs(run);
    let tiers = run.seed_tiers();
    let mut groups = run.cells(&programs, &configs);
    for cell in groups.iter_mut().flatten() {
        let (warmup, steady) = steady_plan(run.quick, run.steady_iterations, cell.config.tier);
        cell.iterations = warmup + steady;
        cell.warmup_iterations = Some(warmup);
        cell.block = tiers
            .iter()
            .position(|&(e, t)| e == cell.config.engine && t == cell.config.tier);
    }
    let (plan, measured) = run.measure(&groups, 0, "vm barriers", 0x51_0003);
    let (int_plan, jit_plan) = (
        steady_plan(run.quick, run.steady_iterations, Tier::Interpreter),
        steady_plan(run.quick, run.steady_iterations, Tier::Jit),
    );
    let sizes = format!(
        "{} {} of one process per configuration, each tier's configurations back to back in a round; {} + {} iterations per process, {} + {} on a compiling tier, the warm-up ones dropped",
        plan.rounds,
        if plan.rounds == 1 { "round" } else { "rounds" },
        int_plan.0,
        int_plan.1,
        jit_plan.0,
        jit_plan.1
    );

    let mut part: Option<Part> = None;
    let mut results = Vec::new();
    let mut chart_series = Vec::new();
    let mut chart_rows: Vec<Vec<f64>> = vec![Vec::new(); programs.len()];
    // paired[r][i]: config i against its tier's baseline on program r.
    let mut paired: Vec<Vec<Option<Paired>>> = vec![vec![None; configs.len()]; programs.len()];
    for &(engine, tier) in &tiers {
        let idx: Vec<usize> = configs
            .iter()
            .enumerate()
            .filter(|(_, c)| c.engine == engine && c.tier == tier)
            .map(|(i, _)| i)
            .collect();
        let Some(&base) = idx.first() else { continue };
        let heading = tier.heading(engine);
        let mut headers = vec!["program".to_string(), format!("{} [ms]", configs[base].label)];
        headers.extend(idx[1..].iter().map(|&i| format!("{} %", configs[i].label)));
        let hrefs: Vec<&str> = headers.iter().map(String::as_str).collect();
        let mut table = Table::new(
            format!(
                "fastpath vm: seed 003 on programs, {heading}, passive mode: % time against no barriers, median of per-round paired ratios (min..max) (positive: slower; {sizes})"
            ),
            &hrefs,
        );
        let same_set = match engine {
            Engine::Fastpath => "shenandoah",
            Engine::HotSpot => HOTSPOT_SAME_SET,
        };
        for (r, row) in measured.iter().enumerate() {
            for &i in &idx[1..] {
                paired[r][i] = Paired::of(&row[base], &row[i]);
            }
        }
        if let Some(&s) = idx.iter().find(|&&i| configs[i].label == same_set) {
            chart_series.push(format!("{heading} {same_set}"));
            for r in 0..programs.len() {
                chart_rows[r].push(paired[r][s].as_ref().map_or(f64::NAN, |p| p.pct().0));
            }
        }
        for (r, (p, row)) in programs.iter().zip(&measured).enumerate() {
            let b = row[base].median();
            let mut cells = vec![p.name.to_string(), ms(&row[base])];
            cells.extend(idx[1..].iter().map(|&i| match (&row[i].error, &paired[r][i]) {
                (Some(_), _) => "failed".to_string(),
                (None, Some(pr)) => pr.text(),
                (None, None) => "-".to_string(),
            }));
            table.row(cells);
            for &i in &idx {
                let Some(stats) = row[i].stats() else { continue };
                let mut res = with_ratio(
                    cell_result("barriers", &groups[r][i], &stats),
                    "ratio_vs_no_barriers",
                    stats.median / b,
                );
                res.warmup_iterations = groups[r][i].warmup_iterations.unwrap_or(0) as u32;
                res.forks = row[i].round_medians.len() as u32;
                if let Some(pr) = &paired[r][i] {
                    res = res.secondary("paired_ratio_vs_no_barriers", pr.metric());
                }
                results.push(res);
            }
        }
        match engine {
            Engine::Fastpath => {
                table.note("fastpath-vm: FASTPATH_GC_MODE=passive (collections stop the world when a TLAB cannot be refilled; no barrier's slow path runs), FASTPATH_GC_BARRIERS per column; presets are monomorphised in the VM's interpreter, (Dynamic) columns run the run-time-checked set, so they also pay its checks");
                table.note("cells: shenandoah-2017 runs on Brooks cells (a forwarding word before every object), every other set on compact ones (FASTPATH_GC_CELL_FORMAT=auto), so shenandoah-2017's % holds the word's footprint, as Shenandoah 2017's cost did; HotSpot 25's Shenandoah has no such word under any switch");
            }
            Engine::HotSpot => {
                table.note("HotSpot: -XX:+UseShenandoahGC -XX:+UnlockDiagnosticVMOptions -XX:ShenandoahGCMode=passive (JDK 25: every barrier off), then -XX:+Shenandoah<X>Barrier per column; +SATB+LRB+CAS is fastpath's shenandoah preset; -XX:+ShenandoahCardBarrier is refused in passive mode and the clone barrier (no fastpath counterpart) stays off");
            }
        }
        table.note("none [ms]: the median time per iteration of every round's kept iterations ± its interval; each % = the median over rounds of (the set's process median ÷ the same round's none process median) − 1, in brackets the least and greatest of those paired ratios (the seed's -14% throughput on XmlValidation is +16% time)");
        match &mut part {
            None => part = Some(Part::new(table, Vec::new())),
            Some(p) => p.table(table),
        }
    }
    let mut part = part.ok_or_else(|| anyhow::anyhow!("no barrier configuration could run"))?;

    // The goal: fastpath's shenandoah against HotSpot's same set, like tiers.
    let position = |engine: Engine, tier: Tier, label: &str| {
        configs
            .iter()
            .position(|c| c.engine == engine && c.tier == tier && c.label == label)
    };
    let mut goal = Table::new(
        format!("fastpath vm: seed 003's goal, shenandoah's overhead ≤ HotSpot passive +SATB+LRB+CAS's + {GOAL_SLACK_POINTS} points on the like tier, per program ({sizes})"),
        &["program", "tiers", "fastpath-vm shenandoah %", "HotSpot +SATB+LRB+CAS %", "rounds at or below (sign test p)", "verdict"],
    );
    let mut verdicts = Vec::new();
    for (fp_tier, hs_tier) in [(Tier::Interpreter, Tier::Interpreter), (Tier::Jit, Tier::Jit)] {
        let (Some(f), Some(h)) = (
            position(Engine::Fastpath, fp_tier, "shenandoah"),
            position(Engine::HotSpot, hs_tier, HOTSPOT_SAME_SET),
        ) else {
            continue;
        };
        let tiers_text = format!(
            "{} / {}",
            fp_tier.heading(Engine::Fastpath),
            hs_tier.heading(Engine::HotSpot)
        );
        for (r, p) in programs.iter().enumerate() {
            let (Some(fp), Some(hs)) = (&paired[r][f], &paired[r][h]) else {
                goal.row(vec![
                    p.name.to_string(),
                    tiers_text.clone(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    "not measured".into(),
                ]);
                continue;
            };
            let v = goal_verdict(fp, hs, GOAL_SLACK_POINTS);
            let signs = sign_test(fp, hs, GOAL_SLACK_POINTS);
            goal.row(vec![
                p.name.to_string(),
                tiers_text.clone(),
                fp.text(),
                hs.text(),
                format!("{} of {} (p {:.3})", signs.at_or_below, signs.rounds, signs.p),
                v.text().to_string(),
            ]);
            verdicts.push((format!("{} {}", p.name, fp_tier.heading(Engine::Fastpath)), v));
            // The verdict and the margin on fastpath's row of this program and tier.
            let (fm, f_lo, f_hi) = fp.pct();
            let (hm, h_lo, h_hi) = hs.pct();
            if let Some(res) = results.iter_mut().find(|res| {
                res.benchmark.ends_with(&format!(".{}", p.name))
                    && res.params.get("config") == Some(&configs[f].label)
                    && res.params.get("vm").map(String::as_str) == Some(Engine::Fastpath.name())
                    && res.params.get("tier").map(String::as_str) == Some(fp_tier.name())
            }) {
                let mut margin = Metric::single(fm - hm, "points");
                margin.score_confidence = vec![f_lo - h_hi, f_hi - h_lo];
                margin.score_error = (fm - hm - (f_lo - h_hi)).max(f_hi - h_lo - (fm - hm));
                res.secondary_metrics
                    .insert("goal_points_over_hotspot".to_string(), margin);
                res.secondary_metrics.insert(
                    "goal_verdict".to_string(),
                    Metric::single(v.score(), "met=1 undecided=0 not-met=-1"),
                );
            }
        }
    }
    goal.note(format!("verdict: met when fastpath-vm's greatest paired % ≤ HotSpot's least + {GOAL_SLACK_POINTS} points, not met when fastpath-vm's least > HotSpot's greatest + {GOAL_SLACK_POINTS} points, and where the two spreads overlap, a sign test over the rounds both ran: met when fastpath-vm's % ≤ HotSpot's + {GOAL_SLACK_POINTS} points in so many of them that coin tosses would give as many with p ≤ {SIGN_TEST_ALPHA} (5 of 5 rounds, 7 of 8, 9 of 10), not met likewise the other way; undecided otherwise or when a side has fewer than {ROUNDS_TO_DECIDE} paired rounds (a quick run's 2: it decides nothing); more rounds (--rounds) give the sign test its power"));
    if verdicts.is_empty() {
        goal.note("goal (barrier overhead ≤ HotSpot's with the same barriers) not checked: no HotSpot run on a tier fastpath-vm has");
    } else {
        let of = |want: Verdict| -> Vec<&str> {
            verdicts
                .iter()
                .filter(|(_, v)| *v == want)
                .map(|(w, _)| w.as_str())
                .collect()
        };
        let (met, not_met, undecided) = (of(Verdict::Met), of(Verdict::NotMet), of(Verdict::Undecided));
        let counts = format!(
            "{} met, {} not met, {} undecided of {} (program, tier) rows",
            met.len(),
            not_met.len(),
            undecided.len(),
            verdicts.len()
        );
        let goal_text = format!("shenandoah's overhead ≤ HotSpot passive +SATB+LRB+CAS's + {GOAL_SLACK_POINTS} points on the like tier, on the paired spreads, else a sign test over the rounds");
        if !not_met.is_empty() {
            goal.note(timing_verdict(
                false,
                &format!("{goal_text}: {counts} (not met: {})", not_met.join(", ")),
            ));
        } else if undecided.is_empty() {
            goal.note(timing_verdict(true, &format!("{goal_text}: {counts}")));
        } else {
            goal.note(format!("UNDECIDED: {goal_text}: {counts} (undecided: {}); more rounds or a quieter machine may decide them", undecided.join(", ")));
        }
    }
    for s in &skipped {
        goal.note(s.clone());
    }
    run.close_notes(
        &mut goal,
        failures_note(measured.iter().flatten().map(|m| m.error.as_deref())),
    );
    part.table(goal);

    if run.prof {
        let (t, counted) = counters_table(run, &programs, &groups);
        part.table(t);
        for (r, i, profile) in counted {
            if let Some(pos) = results.iter().position(|res| {
                res.benchmark.ends_with(&format!(".{}", programs[r].name))
                    && res.params.get("config") == Some(&groups[r][i].config.label)
                    && res.params.get("vm").map(String::as_str) == Some(groups[r][i].config.engine.name())
                    && res.params.get("tier").map(String::as_str) == Some(groups[r][i].config.tier.name())
            }) {
                let r = results.remove(pos);
                results.insert(pos, profile.attach(r));
            }
        }
    }
    let mut chart = BarChart::new(
        "Seed 003 on programs: Shenandoah's barriers (SATB + LRB + CAS) in passive mode",
        "% time against no barriers (positive: slower)",
        0.0,
    )
    .series(chart_series);
    for (p, v) in programs.iter().zip(chart_rows) {
        chart.category(p.name, v);
    }
    if chart.has_values() {
        part.plot("vm-barriers.svg", chart.to_svg());
    }
    part.results = results;
    Ok(part)
}

/// The counters table: per program and configuration of one tier each
/// (the interpreter; HotSpot's too where it is counted), instructions,
/// branches and loads per iteration and their change against no barriers.
/// Returns the profiles to attach to the result rows.
fn counters_table(
    run: &VmRun,
    programs: &[&'static super::programs::Program],
    groups: &[Vec<Cell>],
) -> (Table, Vec<(usize, usize, Profile)>) {
    let counting = Counting::sense();
    let mut table = Table::new(
        "perfnorm: fastpath vm barriers, counters per iteration (w and w+m iterations, differenced) against no barriers",
        &[
            "program",
            "VM",
            "config",
            ":instructions",
            "Δ",
            ":branches",
            "Δ",
            ":L1-dcache-loads",
            "Δ",
            ":L1-dcache-stores",
            "Δ",
        ],
    );
    let mut profiles = Vec::new();
    let mut errors = Vec::new();
    // Counting is slow under Valgrind: the interpreter tiers, each
    // program's quick size.
    let total: usize = groups
        .iter()
        .map(|g| g.iter().filter(|c| c.config.tier == Tier::Interpreter).count())
        .sum();
    let bar = crate::harness::progress(total as u64, "vm counters");
    for (r, (p, cells)) in programs.iter().zip(groups).enumerate() {
        let mut base: Vec<(Engine, Vec<(&'static str, f64)>)> = Vec::new();
        for (i, cell) in cells.iter().enumerate() {
            if cell.config.tier != Tier::Interpreter {
                continue;
            }
            bar.inc(1);
            let mut cell = cell.clone();
            cell.inner = p.quick_inner;
            match counting.per_iteration(run, &cell) {
                Ok(v) => {
                    let b = base
                        .iter()
                        .find(|(e, _)| *e == cell.config.engine)
                        .map(|(_, b)| b.clone());
                    let mut row = vec![
                        p.name.to_string(),
                        cell.config.tier.heading(cell.config.engine).to_string(),
                        cell.config.label.clone(),
                    ];
                    for e in EVENTS {
                        let x = v.iter().find(|(n, _)| *n == e).map_or(f64::NAN, |(_, x)| *x);
                        let bx = b
                            .as_ref()
                            .and_then(|b| b.iter().find(|(n, _)| *n == e))
                            .map_or(f64::NAN, |(_, x)| *x);
                        row.push(num(x));
                        row.push(if b.is_some() && bx > 0.0 {
                            format!("{:+.0} ({})", x - bx, pct(slower_pct(x, bx)))
                        } else {
                            String::new()
                        });
                    }
                    table.row(row);
                    profiles.push((
                        r,
                        i,
                        Profile {
                            id: format!("barriers/{}/{}", p.name, cell.config.label),
                            per_op: Ok(v
                                .iter()
                                .map(|(n, x)| (*n, Stats::from_samples(vec![*x])))
                                .collect()),
                            source: counting.source(),
                            ops: cell.inner as u64,
                            multiplexed: false,
                        },
                    ));
                    if b.is_none() {
                        base.push((cell.config.engine, v));
                    }
                }
                Err(e) => errors.push(format!("{} {}: {e}", p.name, cell.config.describe())),
            }
        }
    }
    bar.finish_and_clear();
    table.note(counting.label());
    table.note(
        "each program at its quick size (inner as in `fastpath vm --quick`); a count per iteration is (count of w+m iterations − count of w) ÷ m, w = 1 and m = 2 on an interpreter; Δ against the same VM's no-barrier run: the seed's +220..257M instructions (+14%) for ~40M barrier executions"
    );
    if !errors.is_empty() {
        table.note(format!("not counted: {}", errors.join(" | ")));
    }
    table.note(run.load_note());
    (table, profiles)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paired(base: &[f64], set: &[f64]) -> Paired {
        let rounds = |v: &[f64]| v.iter().copied().enumerate().collect::<Vec<_>>();
        Paired::from_rounds(&rounds(base), &rounds(set)).unwrap()
    }

    #[test]
    fn the_overhead_is_the_median_of_paired_ratios_not_a_ratio_of_medians() {
        // The load doubles the third round for both: the pairs stay 1.10,
        // the medians' ratio does not see the pairing.
        let p = paired(&[100.0, 100.0, 200.0], &[110.0, 110.0, 220.0]);
        assert!((p.median - 1.10).abs() < 1e-12);
        assert!((p.lo - 1.10).abs() < 1e-12 && (p.hi - 1.10).abs() < 1e-12);
        let (m, lo, hi) = p.pct();
        assert!((m - 10.0).abs() < 1e-9 && (lo - 10.0).abs() < 1e-9 && (hi - 10.0).abs() < 1e-9);
        // Spread: the least and greatest paired ratio.
        let p = paired(&[100.0, 100.0, 100.0, 100.0], &[90.0, 130.0, 110.0, 120.0]);
        assert!((p.median - 1.15).abs() < 1e-12, "{p:?}");
        assert!((p.lo - 0.90).abs() < 1e-12 && (p.hi - 1.30).abs() < 1e-12);
        assert_eq!(p.text(), "+15.0% (-10.0..+30.0)");
        assert_eq!(p.ratios.len(), 4);
    }

    #[test]
    fn only_rounds_both_ran_are_paired() {
        // The set's round 1 failed; the baseline's round 2 is missing.
        let base = [(0, 100.0), (1, 100.0), (3, 50.0)];
        let set = [(0, 120.0), (2, 400.0), (3, 60.0)];
        let p = Paired::from_rounds(&base, &set).unwrap();
        assert_eq!(p.ratios, vec![1.2, 1.2]);
        assert!(Paired::from_rounds(&base, &[(2, 1.0)]).is_none());
        assert!(
            Paired::from_rounds(&[(0, 0.0)], &[(0, 1.0)]).is_none(),
            "a zero baseline"
        );
        assert_eq!(
            paired(&[100.0], &[105.0]).text(),
            "+5.0%",
            "one round: no spread shown"
        );
    }

    #[test]
    fn with_three_rounds_only_separate_spreads_decide() {
        let hotspot = paired(&[100.0; 3], &[120.0, 124.0, 128.0]); // +20..+28 %
                                                                   // Wholly at or below HotSpot's least + 3 points: met.
        let low = paired(&[100.0; 3], &[110.0, 118.0, 122.0]);
        assert_eq!(goal_verdict(&low, &hotspot, 3.0), Verdict::Met);
        // Least above HotSpot's greatest + 3: not met.
        let high = paired(&[100.0; 3], &[131.5, 135.0, 140.0]);
        assert_eq!(goal_verdict(&high, &hotspot, 3.0), Verdict::NotMet);
        // Overlapping (the seed table's Richards, +22.6 against +24.0): undecided.
        let close = paired(&[100.0; 3], &[118.0, 122.6, 127.0]);
        assert_eq!(goal_verdict(&close, &hotspot, 3.0), Verdict::Undecided);
        // The slack decides the edge, both ways.
        assert_eq!(goal_verdict(&low, &hotspot, 1.9), Verdict::Undecided);
        assert_eq!(goal_verdict(&high, &hotspot, 3.6), Verdict::Undecided);
        // Fewer than three rounds: never decided (a quick run's two).
        let one = paired(&[100.0], &[50.0]);
        assert_eq!(goal_verdict(&one, &hotspot, 3.0), Verdict::Undecided);
        let two = paired(&[100.0; 2], &[50.0, 51.0]);
        assert_eq!(goal_verdict(&two, &hotspot, 3.0), Verdict::Undecided);
        let three = paired(&[100.0; 3], &[50.0, 51.0, 52.0]);
        assert_eq!(goal_verdict(&three, &hotspot, 3.0), Verdict::Met);
        assert_eq!(
            [Verdict::Met, Verdict::NotMet, Verdict::Undecided].map(Verdict::score),
            [1.0, -1.0, 0.0]
        );
    }

    #[test]
    fn overlapping_spreads_are_decided_by_the_sign_test_over_shared_rounds() {
        // HotSpot's rounds spread wide (+10..+50 %); fastpath's lie inside
        // that spread (+12..+30 %) but under HotSpot's in every round.
        let hs = [1.40, 1.10, 1.50, 1.30, 1.20];
        let fp = [1.30, 1.00 + 0.12 - 0.05, 1.22, 1.18, 1.12];
        let base = [100.0; 5];
        let hotspot = paired(&base, &hs.map(|r| r * 100.0));
        let under = paired(&base, &fp.map(|r| r * 100.0));
        assert!(
            under.hi * 100.0 - 100.0 > hotspot.lo * 100.0 - 100.0 + 3.0,
            "spreads overlap"
        );
        let t = sign_test(&under, &hotspot, 3.0);
        assert_eq!((t.rounds, t.at_or_below), (5, 5));
        assert!((t.p - 1.0 / 32.0).abs() < 1e-12, "p = {}", t.p);
        assert_eq!(goal_verdict(&under, &hotspot, 3.0), Verdict::Met);
        // The mirror image: above HotSpot's + 3 points in every round.
        let over = paired(&base, &hs.map(|r| (r + 0.05) * 100.0));
        assert_eq!(goal_verdict(&over, &hotspot, 3.0), Verdict::NotMet);
        // Four of five: p = 6/32 > 0.05, undecided.
        let mut mixed = fp;
        mixed[2] = 1.60;
        let mixed = paired(&base, &mixed.map(|r| r * 100.0));
        let t = sign_test(&mixed, &hotspot, 3.0);
        assert_eq!(t.at_or_below, 4);
        assert!((t.p - 6.0 / 32.0).abs() < 1e-12);
        assert_eq!(goal_verdict(&mixed, &hotspot, 3.0), Verdict::Undecided);
        // Only rounds both sides ran are compared: HotSpot lacks round 2.
        let hs_gap = Paired::from_rounds(
            &[(0, 100.0), (1, 100.0), (3, 100.0), (4, 100.0)],
            &[(0, 140.0), (1, 110.0), (3, 130.0), (4, 120.0)],
        )
        .unwrap();
        assert_eq!(hs_gap.rounds, vec![0, 1, 3, 4]);
        let t = sign_test(&mixed, &hs_gap, 3.0);
        assert_eq!((t.rounds, t.at_or_below), (4, 4));
        assert_eq!(t.verdict, Verdict::Undecided, "4 of 4: p = 1/16");
    }

    #[test]
    fn the_binomial_tail_is_exact() {
        assert_eq!(binomial_half_upper_tail(5, 5), 1.0 / 32.0);
        assert_eq!(binomial_half_upper_tail(5, 0), 1.0);
        assert!((binomial_half_upper_tail(8, 7) - 9.0 / 256.0).abs() < 1e-15);
        assert!((binomial_half_upper_tail(10, 9) - 11.0 / 1024.0).abs() < 1e-15);
        assert!(binomial_half_upper_tail(10, 8) > SIGN_TEST_ALPHA);
        assert_eq!(binomial_half_upper_tail(3, 4), 0.0);
    }

    #[test]
    fn the_paired_metric_carries_the_spread_and_the_ratios_in_json() {
        let p = paired(&[100.0, 100.0, 100.0], &[110.0, 125.0, 118.0]);
        let cell = Cell {
            program: super::super::programs::by_name("Richards").unwrap(),
            inner: 1,
            threads: 1,
            iterations: 48,
            config: RunConfig::new(Engine::Fastpath, Tier::Jit, "shenandoah"),
            warmup_extra: Vec::new(),
            warmup_iterations: Some(12),
            block: Some(1),
        };
        let stats = Stats::from_samples(vec![1.0, 2.0, 3.0]);
        let mut r =
            cell_result("barriers", &cell, &stats).secondary("paired_ratio_vs_no_barriers", p.metric());
        r.warmup_iterations = 12;
        r.forks = 3;
        let json = crate::report::jmh::to_json(&[r]);
        let back = crate::report::jmh::from_json(&json).unwrap();
        let m = &back[0].secondary_metrics["paired_ratio_vs_no_barriers"];
        assert!((m.score - 1.18).abs() < 1e-12);
        assert_eq!(m.score_confidence, vec![1.10, 1.25]);
        assert_eq!(m.raw_data, vec![vec![1.10, 1.25, 1.18]]);
        assert_eq!(m.score_percentiles["0.0"], 1.10);
        assert_eq!((back[0].warmup_iterations, back[0].forks), (12, 3));
        for key in [
            "\"paired_ratio_vs_no_barriers\"",
            "\"warmupIterations\" : 12",
            "\"forks\" : 3",
        ] {
            assert!(
                json.contains(key) || json.contains(&key.replace(" : ", ": ")),
                "{key} in {json}"
            );
        }
    }

    #[test]
    fn quick_processes_stay_as_long_and_full_ones_keep_more_steady_iterations() {
        assert_eq!(steady_plan(true, None, Tier::Interpreter), (2, 2));
        assert_eq!(steady_plan(true, None, Tier::Jit), (6, 6));
        assert_eq!(steady_plan(false, None, Tier::Interpreter), (4, 9));
        assert_eq!(steady_plan(false, None, Tier::Jit), (12, 36));
        assert_eq!(steady_plan(false, Some(100), Tier::Jit), (12, 100));
        assert_eq!(steady_plan(false, Some(100), Tier::Interpreter), (4, 25));
        assert_eq!(steady_plan(true, Some(2), Tier::Interpreter), (2, 2));
    }

    #[test]
    fn presets_are_presets_and_single_barriers_are_not() {
        for (label, value, preset, _) in FASTPATH_SETS {
            let bits: BarrierBits = value.parse().unwrap();
            assert_eq!(bits.preset().is_some(), preset, "{label}");
        }
        let same: BarrierBits = "shenandoah".parse().unwrap();
        assert_eq!(
            same,
            "satb,lrb,cas".parse::<BarrierBits>().unwrap(),
            "HotSpot's +SATB+LRB+CAS is the preset"
        );
    }
}
