//! `fastpath jit --only pair`: the table of [`super::pair`]'s loops beside
//! the Rust baselines of the same run (parking_lot's pair, the Rust fast
//! path, the CAS pair), interleaved, with each lock row's placement from
//! the thread block.
//!
//! Where it sits: above [`super::pair`] (the loops and their placement)
//! and [`super::regions`] (the baselines' loops); the experiment keeps the
//! table it returns.

use super::pair::{
    aliased_store, lock_stack_top, placed_pair, PairFixture, Placement, PAGE, UNALIASED_HEADER, VARIANTS,
};
use super::regions::region;
use super::{rust, short_plan};
use crate::harness::perfnorm::{ProfileTable, Profiler};
use crate::report::table::{num, ratio};
use crate::report::Table;

/// `--only pair`: the template pair's forms and the Rust baselines,
/// interleaved (every row one short sample per round, in a fresh order
/// each round), each against parking_lot's pair and the Rust fast path of
/// the same run.
///
/// The lock rows (the generated pairs and the Rust fast path) put their
/// header and counter at `place` from the thread block (else where the
/// allocator does), and the table gives each one's offsets modulo 4096.
pub(super) fn pair_table(
    quick: bool,
    place: Placement,
    prof: Option<&Profiler>,
    counters: &mut ProfileTable,
) -> anyhow::Result<Table> {
    use crate::harness::interleave::{measure_rows, row, Sampler};
    let baselines: [(&str, &str, &str); 3] = [
        (
            "parking-lot",
            "rust",
            "parking_lot::Mutex<u64> lock, += 1, unlock, from Rust",
        ),
        (
            "uncontended",
            "rust",
            "sync::enter_on / exit_on around += 1 (the Rust fast path)",
        ),
        ("cas-pair", "rust", "the header's two CASes around += 1 in Rust"),
    ];
    let mut ids: Vec<(String, String, String)> = baselines
        .iter()
        .map(|(o, f, w)| (o.to_string(), f.to_string(), w.to_string()))
        .collect();
    ids.extend(
        VARIANTS
            .iter()
            .map(|v| ("pair".to_string(), v.name.to_string(), v.what.to_string())),
    );
    let mut counted = Vec::new();
    let mut samplers: Vec<Sampler<'_>> = Vec::new();
    let thread = fastpath::thread::current().as_ptr() as usize;
    // Per row, the header's and the counter's offsets past the thread
    // block modulo 4096, where the row places them.
    let mut offsets: Vec<Option<(usize, usize)>> = Vec::new();
    for (op, form, _) in &ids {
        if op == "pair" {
            let v = VARIANTS
                .iter()
                .find(|v| v.name == form.as_str())
                .ok_or_else(|| anyhow::anyhow!("pair/{form}: no such variant"))?;
            let mut f = PairFixture::new(v, place)?;
            offsets.push(Some(f.offsets()));
            samplers.push(row(move |n| f.run(n)));
            continue;
        }
        if (op.as_str(), form.as_str()) == ("uncontended", "rust") {
            let (h, mut c) = placed_pair(place);
            offsets.push(Some((h.offset_from(thread), c.offset_from(thread))));
            samplers.push(row(move |n| {
                rust::enter_exit_on(fastpath::thread::current(), h.pinned(), c.get_mut(), n)
            }));
            continue;
        }
        offsets.push(None);
        let mut region = match region(op, form) {
            Some(Ok(r)) => r,
            Some(Err(why)) => anyhow::bail!("{op}/{form}: {why}"),
            None => anyhow::bail!("{op}/{form}: no such row"),
        };
        samplers.push(row(move |n| (region.run)(n)));
    }
    let plan = short_plan(quick);
    let stats = measure_rows(&plan, 0x9A1E, &mut samplers, "jit pair").map_err(|e| anyhow::anyhow!(e))?;
    drop(samplers);
    for (op, form, _) in &ids {
        counted.push(match (prof, region(op, form)) {
            (Some(p), Some(Ok(r))) => {
                let profile = p.profile(&format!("{op}/{form}"), r);
                let v = super::instructions(&profile).map_or_else(|e| e, num);
                counters.push(profile);
                v
            }
            _ => "-".into(),
        });
    }
    let median = |i: usize| stats[i].median;
    let (pl, rust) = (median(0), median(1));
    let top = lock_stack_top(fastpath::thread::current()) as usize;
    let mut t = Table::new(
        "The uncontended lock + unlock pair: the template's forms and the Rust baselines, interleaved; ns/op (median of short samples)",
        &[
            "row",
            "form",
            "ns/op (median)",
            "× parking-lot",
            "× rust fast path",
            "instr/op",
            "header, counter at",
            "what",
        ],
    );
    for (i, (op, form, what)) in ids.iter().enumerate() {
        t.row(vec![
            op.clone(),
            form.clone(),
            num(median(i)),
            ratio(median(i), pl),
            ratio(median(i), rust),
            counted[i].clone(),
            offsets[i].map_or_else(
                || "-".into(),
                |(h, c)| match aliased_store(h, top, c) {
                    Some(store) => format!("+{h:#x}, +{c:#x} (aliases {store})"),
                    None => format!("+{h:#x}, +{c:#x}"),
                },
            ),
            what.clone(),
        ]);
    }
    t.note(format!(
        "header, counter at: their offsets past the thread block modulo 4096 ({}; the block itself at {:#x} modulo 4096; instruction counts are of unplaced copies); the pair stores to the block's lock-stack top (+{:#x}) and the entry it pushes (+{:#x}) and to the counter, and loads the header after them: an offset equal to one of those is 4 KiB aliasing (a load held behind a store whose address bits 11:0 match; a header at the top field's offset times about 15 % slower in template-expecting on the Intel guest): a row the allocator put there is moved to +{:#x}",
        match (place.header, place.counter) {
            (None, None) => "where the allocator put them".to_string(),
            (h, c) => format!(
                "placed: --header-offset {}, --counter-offset {}",
                h.map_or_else(|| "none".into(), |h| h.to_string()),
                c.map_or_else(|| "none".into(), |c| c.to_string())
            ),
        },
        thread % PAGE,
        fastpath::thread::LOCK_STACK_TOP_OFFSET,
        top,
        UNALIASED_HEADER,
    ));
    t.note(format!(
        "{} rounds after {} warm-up, samples of {:?}, each round's rows in a fresh random order; every generated row is a loop of `dec rcx; jnz` trips (2 instructions per pair)",
        plan.rounds, plan.warmup_rounds, plan.sample_time
    ));
    Ok(t)
}
