//! Table 1, the programs: time per iteration of each program on
//! fastpath-vm's interpreter (and, when it has a JIT, its default tiers
//! and, in a full run, `-Xcomp`) beside HotSpot's `-Xint` and C2, with the ratios per program and their geometric mean,
//! the shape of the Are We Fast Yet report (Marr et al., DLS 2016).
//!
//! Where it sits: the first table of `fastpath vm`; its figures are the
//! denominators a reader needs for every later table (a barrier's 3% on
//! an interpreter that is itself 2× slower is not a 3% on C2).

use super::bars::BarChart;
use super::rows::{cell_result, failures_note, geomean, ms, times, with_ratio};
use super::vms::{Engine, RunConfig, Tier};
use super::{Part, VmRun};
use crate::report::table::num;
use crate::report::Table;

/// The configurations: each VM at each tier it has (fastpath-vm's
/// `-Xcomp`, every method compiled before its first call, in a full run).
fn configs(run: &VmRun) -> Vec<RunConfig> {
    let mut c = vec![run.fastpath(Tier::Interpreter, "default")];
    if run.setup.jit.is_ok() {
        c.push(run.fastpath(Tier::Jit, "default"));
        if !run.quick {
            c.push(run.fastpath(Tier::Xcomp, "default"));
        }
    }
    if run.setup.hotspot.is_ok() {
        c.push(run.hotspot(Tier::Interpreter, "default"));
        c.push(run.hotspot(Tier::Jit, "default"));
    }
    c
}

/// Measures and builds the table, its rows and its plot.
pub fn run(run: &VmRun) -> anyhow::Result<Part> {
    let programs = run.programs(&["Bounce", "Richards", "DeltaBlue", "Json"], None);
    let configs = configs(run);
    let groups = run.cells(&programs, &configs);
    let (plan, measured) = run.measure(&groups, 0, "vm programs", 0x51_0001);

    let find = |engine: Engine, tier: Tier| configs.iter().position(|c| c.engine == engine && c.tier == tier);
    let fi = find(Engine::Fastpath, Tier::Interpreter);
    let fj = find(Engine::Fastpath, Tier::Jit);
    let fc = find(Engine::Fastpath, Tier::Xcomp);
    let hi = find(Engine::HotSpot, Tier::Interpreter);
    let hj = find(Engine::HotSpot, Tier::Jit);

    let mut headers: Vec<String> = vec!["program".into(), "kind".into(), "inner".into()];
    headers.extend(
        configs
            .iter()
            .map(|c| format!("{} [ms]", c.tier.heading(c.engine))),
    );
    let ratio_cols: Vec<(&str, Option<usize>, Option<usize>)> = [
        ("fastpath-vm interpreter ÷ HotSpot -Xint", fi, hi),
        ("fastpath-vm JIT ÷ HotSpot C2", fj, hj),
        ("fastpath-vm -Xcomp ÷ HotSpot C2", fc, hj),
        ("fastpath-vm interpreter ÷ JIT", fi, fj),
        ("HotSpot -Xint ÷ C2", hi, hj),
    ]
    .into_iter()
    .filter(|(_, a, b)| a.is_some() && b.is_some())
    .collect();
    headers.extend(ratio_cols.iter().map(|(h, _, _)| h.to_string()));
    let header_refs: Vec<&str> = headers.iter().map(String::as_str).collect();
    let mut table = Table::new(
        format!(
            "fastpath vm: time per iteration of each program, fastpath-vm beside HotSpot (Are We Fast Yet's shape; {})",
            run.size_words(&plan)
        ),
        &header_refs,
    );
    let mut results = Vec::new();
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); ratio_cols.len()];
    let mut chart = BarChart::new(
        "fastpath-vm ÷ HotSpot, time per iteration (lower is faster)",
        "ratio of medians (1 = as fast as HotSpot)",
        1.0,
    )
    .series(
        ratio_cols
            .iter()
            .filter(|(h, _, _)| h.ends_with("HotSpot -Xint") || h.ends_with("HotSpot C2"))
            .map(|(h, _, _)| h.to_string()),
    );
    for ((p, cells), row) in programs.iter().zip(&groups).zip(&measured) {
        let mut cells_text = vec![p.name.to_string(), p.kind.to_string(), cells[0].inner.to_string()];
        cells_text.extend(row.iter().map(ms));
        let mut chart_values = Vec::new();
        for (k, (h, a, b)) in ratio_cols.iter().enumerate() {
            let (a, b) = (
                row[a.expect("filtered")].median(),
                row[b.expect("filtered")].median(),
            );
            cells_text.push(times(a, b));
            ratios[k].push(a / b);
            if h.ends_with("HotSpot -Xint") || h.ends_with("HotSpot C2") {
                chart_values.push(a / b);
            }
        }
        chart.category(p.name, chart_values);
        table.row(cells_text);
        for (cell, m) in cells.iter().zip(row) {
            let Some(stats) = m.stats() else { continue };
            let mut r = cell_result("programs", cell, &stats);
            if cell.config.engine == Engine::Fastpath {
                let peer = match cell.config.tier {
                    Tier::Interpreter => hi,
                    _ => hj,
                };
                if let Some(peer) = peer {
                    r = with_ratio(r, "ratio_vs_hotspot", stats.median / row[peer].median());
                }
            }
            results.push(r);
        }
    }
    let mut geo = vec!["geometric mean".to_string(), String::new(), String::new()];
    geo.extend(configs.iter().map(|_| String::new()));
    for r in &ratios {
        let (g, n) = geomean(r.iter().copied());
        geo.push(if n == r.len() {
            format!("{}×", num(g))
        } else {
            format!("{}× ({n} of {})", num(g), r.len())
        });
    }
    table.row(geo);
    table.note("each figure: the median time per iteration ± its 99.9% interval over the second half of every process's iterations (the first half warms up: class loading, decoding, compilation), in interleaved rounds of whole processes; ratios are of medians, their geometric mean over the programs as Are We Fast Yet reports it");
    table.note("HotSpot C2 is java's default tiers (C1, then C2); -Xint its template interpreter; both VMs with the same -Xmx, each with its default collector");
    run.close_notes(
        &mut table,
        failures_note(measured.iter().flatten().map(|m| m.error.as_deref())),
    );
    let mut part = Part::new(table, results);
    if chart.has_values() {
        part.plot("vm-programs.svg", chart.to_svg());
    }
    Ok(part)
}
