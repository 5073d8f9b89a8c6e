//! Table 1 of `fastpath gc`: passive-mode throughput per barrier set, in
//! the seed's shape (ops/min, and the change against `none` as `-14%`),
//! with `--prof perfnorm` the counters per operation of every row, and
//! from those the per-execution table ([`super::per_execution`]).
//!
//! Where it sits: between [`super::workloads`] (what an operation is) and
//! the harness (interleaved rounds, the profiler). Every row is one heap
//! with one barrier set, in passive mode (the seed's setting: barriers
//! run, no cycle ever takes a slow path), running one `#[inline(never)]`
//! monomorphised workload loop; the rows of a workload are interleaved
//! round-robin so a shared machine's drift spreads over all of them. The
//! profiler re-runs the same loop on a fresh heap from the row's id alone
//! (`passive/<workload>/<set>`, see [`region`]).

use std::time::Instant;

use fastpath::gc::{
    with_barrier_set_for, Barrier, BarrierBits, BarrierSet, GcCellFormat, GcMode, Heap, HeapConfig,
    WithBarrierSet,
};

use super::per_execution::{executions, fast_path_of, per_execution, COUNTERS};
use super::workloads::{self, count_accesses, NoTally, Workload};
use crate::harness::interleave::{rounds, Order};
use crate::harness::perfnorm::{Profile, ProfileTable, Profiler, Region};
use crate::harness::{black_box, progress};
use crate::report::table::{num, num_pair, percent};
use crate::report::{BenchResult, Mode, Table};
use crate::stats::Stats;

/// Every row's barrier set: the presets, then each barrier alone, as
/// `FASTPATH_GC_BARRIERS` lists them. `none` first: the baseline of the
/// ratios and of the counter differences.
pub const SETS: &[&str] = BarrierBits::ACCEPTED;

/// A row's loop on its own heap: performs `n` operations.
pub type Instance = Box<dyn FnMut(u64)>;

/// Builds a row's loop for the barrier set's type ([`with_barrier_set`]).
struct Build(Workload);

impl WithBarrierSet for Build {
    type Output = anyhow::Result<Instance>;
    fn run<B: BarrierSet>(self, bits: BarrierBits) -> anyhow::Result<Instance> {
        instance::<B>(bits, self.0)
    }
}

fn instance<B: BarrierSet>(bits: BarrierBits, w: Workload) -> anyhow::Result<Instance> {
    let mut config = HeapConfig::new(w.heap_bytes(), bits, GcMode::Passive);
    // Every row on Brooks cells, as the seed's Shenandoah had them under
    // every barrier switch: the rows differ by their barriers only.
    config.cell_format = GcCellFormat::Brooks;
    let heap = Heap::new(config)?;
    let mut m = heap.mutator::<B>()?;
    Ok(match w {
        Workload::Xml => {
            let types = workloads::xml_setup(&mut m)?;
            Box::new(move |n| {
                let _heap = &heap;
                let r = workloads::xml_documents(&mut m, types, n, &NoTally);
                black_box(r.expect("the xml workload fits its heap"));
            })
        }
        Workload::Graph => {
            let array = workloads::graph_setup(&mut m)?;
            let mut seed = 0x9E37_79B9_7F4A_7C15u64;
            Box::new(move |n| {
                let _heap = &heap;
                let r = workloads::graph_rewires(&m, array, n, &mut seed, &NoTally);
                black_box(r.expect("the graph's handle"));
            })
        }
    })
}

/// The loop of workload `w` with barrier set `set` (one of [`SETS`], or any
/// set `FASTPATH_GC_BARRIERS` accepts); `None` for a name that is no set.
/// Presets and single barriers run monomorphised.
pub fn instance_for(set: &str, w: Workload) -> Option<anyhow::Result<Instance>> {
    let bits: BarrierBits = set.parse().ok()?;
    // The heap's reference width is the process's (`FASTPATH_GC_REFS`).
    let refs = HeapConfig::new(w.heap_bytes(), bits, GcMode::Passive).refs;
    Some(with_barrier_set_for(bits, refs, Build(w)))
}

/// The loop of `set` on `w` on a thread of its own: the timed rows' heaps
/// are alive together, and a thread is the mutator of one heap at a time.
/// Calling it hands `n` to that thread and waits (a channel round trip per
/// sample of 20 ms or more).
fn on_own_thread(set: &str, w: Workload) -> anyhow::Result<Instance> {
    let (go, runs) = std::sync::mpsc::channel::<u64>();
    let (done, finished) = std::sync::mpsc::channel::<anyhow::Result<()>>();
    let set = set.to_string();
    std::thread::spawn(move || {
        let mut run = match instance_for(&set, w) {
            Some(Ok(run)) => run,
            Some(Err(e)) => return drop(done.send(Err(e))),
            None => return drop(done.send(Err(anyhow::anyhow!("unknown barrier set {set}")))),
        };
        let _ = done.send(Ok(()));
        for n in runs {
            run(n);
            if done.send(Ok(())).is_err() {
                break;
            }
        }
    });
    finished.recv()??;
    Ok(Box::new(move |n| {
        go.send(n).expect("the row's thread runs");
        finished
            .recv()
            .expect("the row's thread runs")
            .expect("a row reports only success once set up");
    }))
}

/// Operations one profiled run counts: a few million instructions, a
/// second or so under Callgrind (a tenth of that in a debug build, whose
/// operations take ten times the instructions).
pub fn profiled_ops(w: Workload) -> u64 {
    let ops = match w {
        Workload::Xml => 300,
        Workload::Graph => 30_000,
    };
    if cfg!(debug_assertions) {
        ops / 10
    } else {
        ops
    }
}

/// Row `passive/<workload>/<set>` as a profiler region.
pub fn region(id: &str) -> Option<Region<'static>> {
    let mut parts = id.split('/');
    let (Some("passive"), Some(w), Some(set), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    let w = Workload::from_name(w)?;
    let run = instance_for(set, w)?.ok()?;
    Some(Region::new(profiled_ops(w), run))
}

/// What the passive tables run.
pub struct Plan {
    /// Measured rounds (one warm-up round more).
    pub rounds: usize,
    /// The barrier sets, `none` first.
    pub sets: Vec<String>,
}

impl Plan {
    /// Operations per sample of `w`: about 20 ms (quick) or 100 ms in a
    /// release build (a debug build, ten times slower, does a tenth: its
    /// timings mean nothing, only that the rows run).
    fn ops(&self, w: Workload, quick: bool) -> u64 {
        let base = match w {
            Workload::Xml => 1_000,
            Workload::Graph => 200_000,
        };
        let base = if cfg!(debug_assertions) { base / 10 } else { base };
        if quick {
            base
        } else {
            base * 5
        }
    }
}

/// The passive tables of every workload: throughput; with a profiler, the
/// counters per op and the per-execution table.
pub fn run(
    plan: &Plan,
    quick: bool,
    prof: Option<&Profiler>,
    fast_path_counts: &[(&'static str, usize)],
    results: &mut Vec<BenchResult>,
) -> anyhow::Result<Vec<Table>> {
    let mut tables = Vec::new();
    let mut per_exec: Vec<(Workload, workloads::PerOp, Vec<Profile>)> = Vec::new();
    for w in Workload::ALL {
        let accesses = count_accesses(w, 2)?;
        let mut rows: Vec<Instance> = Vec::new();
        for set in &plan.sets {
            rows.push(on_own_thread(set, w)?);
        }
        let n = plan.ops(w, quick);
        let bar = progress((plan.rounds + 1) as u64, &format!("gc passive {}", w.name()));
        let samples =
            rounds::<f64, std::convert::Infallible>(rows.len(), 1, plan.rounds, Order::RoundRobin, |r, i| {
                if i == 0 {
                    bar.inc(1);
                }
                let _ = r;
                let t = Instant::now();
                (rows[i])(n);
                Ok(60e9 * n as f64 / t.elapsed().as_nanos().max(1) as f64)
            });
        let Ok(samples) = samples;
        bar.finish_and_clear();
        drop(rows);
        let paired: Vec<f64> = samples.iter().map(|v| paired_ratio(v, &samples[0])).collect();
        let stats: Vec<Stats> = samples.into_iter().map(Stats::from_samples).collect();
        let mut t = Table::new(
            format!(
                "Passive mode, {}: {} — throughput per barrier set",
                w.name(),
                w.about()
            ),
            &["set", "barriers", "executions/op", "ops/min", "±", "vs none"],
        );
        let mut counters = ProfileTable::new(match w {
            Workload::Xml => "passive xml",
            Workload::Graph => "passive graph",
        });
        let mut profiles = Vec::new();
        for ((set, s), ratio) in plan.sets.iter().zip(&stats).zip(&paired) {
            let bits: BarrierBits = set.parse()?;
            let barriers: Vec<&str> = bits.barriers().map(Barrier::name).collect();
            let (mean, error) = num_pair(s.mean, s.error);
            t.row(vec![
                set.clone(),
                if barriers.is_empty() {
                    "-".into()
                } else {
                    barriers.join("+")
                },
                num(executions(bits, &accesses)),
                mean,
                error,
                if set == "none" {
                    String::new()
                } else {
                    percent(*ratio, 1.0)
                },
            ]);
            let mut r = BenchResult::new(
                "gc",
                &format!("passive-{}", w.name()),
                Mode::Throughput,
                s,
                "ops/min",
            )
            .param("barriers", set);
            if let Some(p) = prof {
                let id = format!("passive/{}/{set}", w.name());
                let profile = match region(&id) {
                    Some(region) => p.profile(&id, region),
                    None => anyhow::bail!("row {id} has no region"),
                };
                r = profile.attach(r);
                profiles.push(profile.clone());
                counters.push(profile);
            }
            results.push(r);
        }
        t.note("every row's heap has Brooks cells (FASTPATH_GC_CELL_FORMAT=brooks: a forwarding word before each object, as the seed's Shenandoah had under every barrier switch), so rows differ by their barriers only.");
        t.note(format!(
            "{} measured rounds of {n} operations after a warm-up round, rows interleaved; ± is the 99.9% error of the mean; vs none: the median over rounds of the row's ops/min over `none`'s in the same round (paired, so a change in the machine's load cancels).",
            plan.rounds
        ));
        t.note(format!(
            "accesses per op (counted): {} ref loads, {} ref stores, {} ref CAS, {} data reads, {} data writes; executions/op: the set's barrier executions they imply.",
            num(accesses.loads),
            num(accesses.stores),
            num(accesses.cas),
            num(accesses.reads),
            num(accesses.writes)
        ));
        tables.push(t);
        if let Some(p) = prof {
            tables.push(counters.finish(p));
            per_exec.push((w, accesses, profiles));
        }
    }
    if let Some(p) = prof {
        tables.push(per_execution_table(&per_exec, fast_path_counts, p));
    }
    Ok(tables)
}

/// The median over rounds of `row[k] / base[k]`: a ratio taken within
/// each round, so that load common to a round cancels out.
pub fn paired_ratio(row: &[f64], base: &[f64]) -> f64 {
    let mut r: Vec<f64> = row
        .iter()
        .zip(base)
        .map(|(a, b)| a / b)
        .filter(|x| x.is_finite())
        .collect();
    if r.is_empty() {
        return f64::NAN;
    }
    r.sort_by(f64::total_cmp);
    let mid = r.len() / 2;
    if r.len() % 2 == 1 {
        r[mid]
    } else {
        (r[mid - 1] + r[mid]) / 2.0
    }
}

/// The seed's analysis per barrier execution, every workload's rows in one
/// table.
fn per_execution_table(
    rows: &[(Workload, workloads::PerOp, Vec<Profile>)],
    fast_path_counts: &[(&'static str, usize)],
    prof: &Profiler,
) -> Table {
    let mut headers = vec!["workload", "set", "executions/op"];
    let per_exec_headers: Vec<String> = COUNTERS.iter().map(|(_, h)| format!("{h}/exec")).collect();
    headers.extend(per_exec_headers.iter().map(String::as_str));
    headers.push("fast path insns (objdump)");
    let simulated = matches!(prof.source(), Ok(crate::harness::perfnorm::Source::Simulated));
    let mut t = Table::new(
        format!(
            "Passive mode: counters per barrier execution, against `none`{}",
            if simulated {
                " — SIMULATED by callgrind"
            } else {
                ""
            }
        ),
        &headers,
    );
    let mut skipped = Vec::new();
    for (w, accesses, profiles) in rows {
        let Some(none) = profiles.iter().find(|p| p.id.ends_with("/none")) else {
            continue;
        };
        let Ok(none_per_op) = &none.per_op else {
            skipped.push(format!("{}: the none row has no counters", w.name()));
            continue;
        };
        for p in profiles.iter().filter(|p| !p.id.ends_with("/none")) {
            let set = p.id.rsplit('/').next().unwrap_or("");
            let Ok(bits) = set.parse::<BarrierBits>() else {
                continue;
            };
            let Ok(per_op) = &p.per_op else {
                skipped.push(p.id.clone());
                continue;
            };
            let ex = executions(bits, accesses);
            let mut cells = vec![w.name().to_string(), set.to_string(), num(ex)];
            match per_execution(per_op, none_per_op, ex) {
                Some(v) => cells.extend(v.iter().map(|x| x.map_or("n/a".into(), num))),
                None => cells.extend(COUNTERS.iter().map(|_| "-".to_string())),
            }
            cells.push(fast_path_of(bits, fast_path_counts).unwrap_or_else(|| "-".into()));
            t.row(cells);
        }
    }
    t.note("executions/op: counted (the workload counts the accesses it issues; each barrier runs on the accesses the mutator's barrier table gives it), not inferred from the branch delta as the seed did;");
    t.note("Δx/exec = (x per op of the row - x per op of `none`) / executions per op; fast path insns: the barrier's instructions in this binary's disassembly (table 2), both probes of brooks-wb as a/b;");
    t.note("a Δinsns/exec above the fast path is code the barrier costs beyond itself (the seed: ~6 per 4-instruction write barrier). Presets sum their barriers' executions.");
    if !skipped.is_empty() {
        t.note(format!("no counters for: {}", skipped.join(", ")));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paired_ratios_cancel_a_rounds_load() {
        // Round 2 ran at half speed for every row: the ratio is unchanged.
        assert_eq!(paired_ratio(&[90.0, 45.0, 90.0], &[100.0, 50.0, 100.0]), 0.9);
        assert_eq!(paired_ratio(&[1.0, 3.0], &[1.0, 1.0]), 2.0);
        assert!(paired_ratio(&[1.0], &[0.0]).is_nan());
    }
}
