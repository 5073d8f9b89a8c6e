//! `fastpath icache`: seed 000 (JDK-8353558, HotSpot's `ICacheTest` gtest
//! and the X86ICacheSync modes), reproduced and extended.
//!
//! Part 1, the ICacheTest table: for each size from 256 B to 256 KiB and
//! each strategy this CPU supports, dirty the buffer (through the RW view of
//! real dual-mapped code memory), time the sync over the RX view ("flushed
//! in"), then time reading every byte back through the RX view ("read back
//! in"): a flush that evicts lines makes the read-back pay for it. Every
//! iteration runs every strategy once, in a freshly shuffled order, so that
//! machine noise (this is a shared 2-core guest) lands on all of them alike
//! and no strategy always inherits the cache state its neighbour leaves (with
//! a fixed order, CLFLUSHOPT's read-back at 512 B swung between 30 and 400 ns
//! depending on its predecessor). Reported:
//! mean and median of each, flush+read-back median, % against `none` (the
//! in-run baseline), a check that `auto` is within 1.1× of the fastest
//! explicit strategy at every size, and two SVG plots.
//!
//! Timing uses `Instant` around each call, as the seed's gtest does with its
//! clock; the `none` row's "flushed in" column is therefore the clock's own
//! cost and is the floor of every other row.
//!
//! Part 2, the install storm: install 10 000 stubs of 100–300 bytes into a
//! `CodeCache` per strategy, once with one sync per stub (`install`) and
//! once with one sync for all (`install_batch`); total time and ns per stub,
//! against `none` in the same mode.
//!
//! Part 3, the serializing primitives on their own: `cross_modify_fence()`
//! (what the running side of cross-modification pays), one CPUID (what
//! HotSpot's fallback pays), and `publish()` (membarrier SYNC_CORE, what the
//! writing side pays for every thread at once), against an empty call.

use std::time::Instant;

use clap::{value_parser, Arg, Command};
use fastpath::code::CodeCache;
use fastpath::code::CodeMemory;
use fastpath::code::ICacheStrategy;
use fastpath::code::ICacheSync;

use crate::experiment::{Context, Experiment};
use crate::harness::interleave::{rounds, Order};
use crate::harness::perfnorm::{ProfileTable, Profiler, Region, Source};
use crate::harness::rng::SplitMix64;
use crate::harness::{black_box, progress};
use crate::report::svg::{LinePlot, Scale};
use crate::report::table::{num, percent, ratio};
use crate::report::{BenchResult, Metric, Mode, Report, Table};
use crate::stats::Stats;

/// The experiment.
pub struct ICache;

/// Sizes of the ICacheTest table: 256 B … 256 KiB.
pub const SIZES: [usize; 11] = [
    256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144,
];

/// The done-criterion of the issue: `auto` within this factor of the fastest
/// explicit strategy other than `none`.
pub const AUTO_TOLERANCE: f64 = 1.10;

const EXPERIMENT: &str = "icache";

impl Experiment for ICache {
    fn name(&self) -> &'static str {
        EXPERIMENT
    }

    fn about(&self) -> &'static str {
        "Seed 000: icache sync strategies (ICacheTest table, flush + read-back) and an install storm"
    }

    fn args(&self, cmd: Command) -> Command {
        cmd.arg(
            Arg::new("iterations")
                .long("iterations")
                .value_name("N")
                .value_parser(value_parser!(u32).range(2..=1_000_000))
                .help("Measured iterations per size and strategy, 2 to 1000000 (default 5000, 200 with --quick)"),
        )
        .arg(
            Arg::new("stubs")
                .long("stubs")
                .value_name("N")
                // Each stub takes up to 320 bytes of code memory, in one
                // cache per strategy: the bound keeps that under 32 MiB.
                .value_parser(value_parser!(u32).range(1..=100_000))
                .help("Stubs per install storm, 1 to 100000 (default 10000)"),
        )
    }

    /// `<strategy>/<bytes>`: dirty, sync and read back that many bytes.
    fn perfnorm_region(&self, id: &str) -> Option<Region<'static>> {
        let (name, size) = id.split_once('/')?;
        let size: usize = size.parse().ok().filter(|s| PROFILED_SIZES.contains(s))?;
        let st = ICacheStrategy::new(name.parse().ok()?).ok()?;
        let region = sync_region(st, size).ok()?;
        debug_assert_eq!(region_id(&st, size), id);
        Some(region)
    }

    fn run(&self, ctx: &Context) -> anyhow::Result<()> {
        let strategies: Vec<ICacheStrategy> = ICacheStrategy::supported()
            .into_iter()
            .map(ICacheStrategy::new)
            .collect::<Result<_, _>>()?;
        anyhow::ensure!(
            strategies.first().map(|s| s.requested()) == Some(ICacheSync::None),
            "the `none` baseline must be first"
        );
        let iterations = ctx
            .option::<u32>("iterations")
            .map(|n| n as usize)
            .unwrap_or(if ctx.quick { 200 } else { 5000 });
        let stubs = ctx.option::<u32>("stubs").map(|n| n as usize).unwrap_or(10_000);
        let prof = ctx.profiler(self.name())?;
        // Each part is kept as soon as it is measured (the ICacheTest
        // tables with the counters profiled into their rows).
        let mut part = Report::default();
        icache_table(&strategies, iterations, &mut part)?;
        if let Some(p) = &prof {
            let t = counters_table(p, &strategies, &mut part.results)?;
            part.tables.push(t);
        }
        ctx.keep(std::mem::take(&mut part))?;
        install_storm(&strategies, stubs, ctx.quick, &mut part)?;
        ctx.keep(std::mem::take(&mut part))?;
        fences(ctx, &mut part);
        ctx.keep(part)
    }
}

/// One strategy at one size: per-iteration samples.
#[derive(Clone, Default)]
struct Cell {
    flush: Vec<f64>,
    read: Vec<f64>,
}

impl Cell {
    fn total(&self) -> Vec<f64> {
        self.flush.iter().zip(&self.read).map(|(f, r)| f + r).collect()
    }
}

fn label(s: &ICacheStrategy) -> String {
    if s.requested() == ICacheSync::Auto {
        format!("auto ({})", s.describe())
    } else {
        s.requested().name().to_string()
    }
}

/// Reads every byte of `len` bytes at `p` (as words, so the loop is the
/// memory system's speed, not the adder's) and returns a checksum.
///
/// # Safety
/// `p` must be 8-byte aligned and `len` bytes readable.
#[inline(never)]
unsafe fn read_back(p: *const u8, len: usize) -> u64 {
    // SAFETY: the caller guarantees alignment and readability; nothing
    // writes the memory while the slice lives.
    let words = unsafe { std::slice::from_raw_parts(p.cast::<u64>(), len / 8) };
    words.iter().fold(0u64, |a, &w| a.wrapping_add(w))
}

/// Part 1: measures every (size, strategy) cell, then reports them.
fn icache_table(strategies: &[ICacheStrategy], iterations: usize, report: &mut Report) -> anyhow::Result<()> {
    let cells = measure_cells(strategies, iterations)?;
    for (k, st) in strategies.iter().enumerate() {
        report
            .tables
            .push(strategy_table(st, k, &cells, iterations, &mut report.results));
    }
    if let Some(t) = auto_check(strategies, &cells, &mut report.results) {
        report.tables.push(t);
    }
    if let Some(t) = report.tables.first_mut() {
        for note in unmeasured_strategies() {
            t.note(note);
        }
    }
    report.plots.extend(plots(strategies, &cells));
    Ok(())
}

/// `cells[size][strategy]`: at each size, `iterations` rounds in which
/// every strategy dirties the buffer, syncs it and reads it back once, in a
/// fresh random order per round (see the module comment for why).
fn measure_cells(strategies: &[ICacheStrategy], iterations: usize) -> anyhow::Result<Vec<Vec<Cell>>> {
    let max = *SIZES.last().expect("sizes");
    let mem = CodeMemory::new(max)?;
    let warmup = (iterations / 10).max(1);
    let bar = progress(
        (SIZES.len() * (warmup + iterations) * strategies.len()) as u64,
        "icache sync",
    );
    let mut rng = SplitMix64::new(0x2545_F491_4F6C_DD1D);
    let mut cells = Vec::with_capacity(SIZES.len());
    for &size in &SIZES {
        let order = Order::Shuffled(SplitMix64::new(rng.next_u64()));
        let samples =
            rounds::<_, std::convert::Infallible>(strategies.len(), warmup, iterations, order, |round, k| {
                bar.inc(1);
                Ok(sync_and_read_back(
                    &mem,
                    &strategies[k],
                    size,
                    (round.index + k) as u8,
                ))
            });
        let Ok(samples) = samples;
        cells.push(
            samples
                .into_iter()
                .map(|v| Cell {
                    flush: v.iter().map(|s| s.0).collect(),
                    read: v.iter().map(|s| s.1).collect(),
                })
                .collect(),
        );
    }
    bar.finish_and_clear();
    Ok(cells)
}

/// One sample: dirty `size` bytes through the RW view with `fill` (every
/// line modified in this core's cache, as freshly written code is), sync
/// them with `st`, read them back through the RX view: (sync ns, read ns).
fn sync_and_read_back(mem: &CodeMemory, st: &ICacheStrategy, size: usize, fill: u8) -> (f64, f64) {
    // SAFETY: `size ≤ mem.len()` (SIZES' largest is the mapping's size);
    // the RW view is writable and no reference to it exists.
    unsafe { mem.rw().write_bytes(fill, size) };
    let t0 = Instant::now();
    // SAFETY: the range lies inside the RX view, mapped readable.
    unsafe { st.sync_range(mem.rx(), size) };
    let t1 = Instant::now();
    // SAFETY: the RX view is page-aligned and `size` bytes of it are
    // readable; no write happens during the read.
    black_box(unsafe { read_back(black_box(mem.rx()), size) });
    let t2 = Instant::now();
    ((t1 - t0).as_nanos() as f64, (t2 - t1).as_nanos() as f64)
}

/// Sizes whose sync + read-back `--prof perfnorm` counts.
const PROFILED_SIZES: [usize; 3] = [256, 4096, 65536];

/// `--prof perfnorm` over the ICacheTest rows at [`PROFILED_SIZES`]: per
/// operation, one dirty + sync + read-back of the size (with the two clock
/// reads the timed loop makes). Attaches the counters to the matching JSON
/// rows.
fn counters_table(
    prof: &Profiler,
    strategies: &[ICacheStrategy],
    results: &mut [BenchResult],
) -> anyhow::Result<Table> {
    let mut table = ProfileTable::new("ICacheTest sync + read-back");
    for st in strategies {
        for size in PROFILED_SIZES {
            let p = prof.profile(&region_id(st, size), sync_region(*st, size)?);
            if let Some(r) = results.iter_mut().find(|r| {
                r.benchmark.ends_with(".sync_and_read_back")
                    && r.params.get("strategy").map(String::as_str) == Some(st.requested().name())
                    && r.params.get("bytes") == Some(&size.to_string())
            }) {
                *r = p.attach(r.clone());
            }
            table.push(p);
        }
    }
    let mut t = table.finish(prof);
    if matches!(prof.source(), Ok(Source::Simulated)) {
        t.note("Callgrind models no cache flush: CLFLUSH/CLFLUSHOPT rows show the instructions a sync executes, not the misses it causes (the timed table's read-back does); Valgrind also replaces memset with its own byte loop, so the dirtying step counts one store per byte");
    }
    Ok(t)
}

/// `<strategy>/<bytes>`, e.g. `clflushopt/4096`.
fn region_id(st: &ICacheStrategy, size: usize) -> String {
    format!("{}/{size}", st.requested().name())
}

/// The profiled loop of one ICacheTest cell, owning its code memory.
fn sync_region(st: ICacheStrategy, size: usize) -> std::io::Result<Region<'static>> {
    let mem = CodeMemory::new(size)?;
    Ok(Region::new(2_000, move |n| {
        for i in 0..n {
            black_box(sync_and_read_back(&mem, &st, size, i as u8));
        }
    }))
}

/// The ICacheTest table of strategy `k` (and its JSON rows), `%` against
/// `none` (strategy 0) at each size.
fn strategy_table(
    st: &ICacheStrategy,
    k: usize,
    cells: &[Vec<Cell>],
    iterations: usize,
    results: &mut Vec<BenchResult>,
) -> Table {
    let mut t = Table::new(
        format!("ICacheTest: {} ({iterations} iterations per size)", label(st)),
        &[
            "bytes",
            "flushed in, mean ns",
            "median",
            "read back in, mean ns",
            "median",
            "flush+read median",
            "vs none",
        ],
    );
    for (row, &size) in cells.iter().zip(&SIZES) {
        let c = &row[k];
        let f = Stats::from_samples(c.flush.clone());
        let r = Stats::from_samples(c.read.clone());
        let total = Stats::from_samples(c.total());
        t.row(vec![
            size.to_string(),
            num(f.mean),
            num(f.median),
            num(r.mean),
            num(r.median),
            num(total.median),
            if k == 0 {
                "baseline".to_string()
            } else {
                percent(total.median, Stats::from_samples(row[0].total()).median)
            },
        ]);
        results.push(
            BenchResult::new(
                EXPERIMENT,
                "sync_and_read_back",
                Mode::AverageTime,
                &grouped(&c.total()),
                "ns/op",
            )
            .param("strategy", st.requested().name())
            .param("bytes", size)
            .param("method", st.describe())
            .secondary("flush", Metric::from_stats(&grouped(&c.flush), "ns/op"))
            .secondary("read_back", Metric::from_stats(&grouped(&c.read), "ns/op"))
            .secondary("flush_median", Metric::single(f.median, "ns/op"))
            .secondary("read_back_median", Metric::single(r.median, "ns/op"))
            .secondary("total_median", Metric::single(total.median, "ns/op")),
        );
    }
    if k == 0 {
        t.note("`none` flushes nothing: its \"flushed in\" column is the cost of reading the clock, the floor of every row");
    }
    t
}

/// Why each strategy this architecture knows is missing from the tables
/// (the CPU lacks its instruction), so a row never disappears without a
/// word.
fn unmeasured_strategies() -> Vec<String> {
    ICacheSync::ACCEPTED
        .iter()
        .filter_map(|name| name.parse::<ICacheSync>().ok())
        .filter_map(|s| {
            ICacheStrategy::new(s)
                .err()
                .map(|e| format!("{} not measured: {}", s.name(), why_not(&e.to_string())))
        })
        .collect()
}

/// The reason in a strategy's configuration error ("this CPU lacks
/// Serialize"), without the variable and the accepted list: the user set
/// nothing, the lab simply tried every strategy.
fn why_not(error: &str) -> &str {
    error
        .find("this CPU")
        .map(|i| error[i..].split(';').next().unwrap_or(&error[i..]))
        .unwrap_or(error)
}

/// The done-criterion: `auto` against the fastest explicit strategy other
/// than `none`, on flush + read-back medians of this very run (`None` when
/// there is no `auto` row). Adds `auto_vs_fastest` to auto's JSON rows.
fn auto_check(
    strategies: &[ICacheStrategy],
    cells: &[Vec<Cell>],
    results: &mut [BenchResult],
) -> Option<Table> {
    let a = strategies
        .iter()
        .position(|s| s.requested() == ICacheSync::Auto)?;
    let mut t = Table::new(
        format!(
            "auto check: auto ({}) vs the fastest explicit strategy other than none, flush+read-back medians",
            strategies[a].describe()
        ),
        &[
            "bytes",
            "auto ns",
            "fastest",
            "its ns",
            "auto / fastest",
            "within 1.1×",
        ],
    );
    let mut failures = Vec::new();
    for (row, &size) in cells.iter().zip(&SIZES) {
        let med = |k: usize| Stats::from_samples(row[k].total()).median;
        let (best, best_ns) = strategies
            .iter()
            .enumerate()
            .filter(|(_, s)| !matches!(s.requested(), ICacheSync::None | ICacheSync::Auto))
            .map(|(k, s)| (s.requested().name(), med(k)))
            .min_by(|x, y| x.1.total_cmp(&y.1))
            .unwrap_or(("none", med(0)));
        let auto_ns = med(a);
        let ok = auto_ns <= AUTO_TOLERANCE * best_ns;
        if !ok {
            failures.push(format!("{:.2}× at {size} B", auto_ns / best_ns));
        }
        t.row(vec![
            size.to_string(),
            num(auto_ns),
            best.to_string(),
            num(best_ns),
            ratio(auto_ns, best_ns),
            if ok { "yes" } else { "NO" }.to_string(),
        ]);
        if let Some(r) = results.iter_mut().find(|r| {
            r.params.get("strategy").map(String::as_str) == Some("auto")
                && r.params.get("bytes") == Some(&size.to_string())
        }) {
            r.secondary_metrics.insert(
                "auto_vs_fastest".into(),
                Metric::single(auto_ns / best_ns, "ratio"),
            );
        }
    }
    t.note(crate::report::timing_verdict(
        failures.is_empty(),
        &if failures.is_empty() {
            format!(
                "auto within {AUTO_TOLERANCE}× of the fastest explicit strategy at all {} sizes",
                SIZES.len()
            )
        } else {
            format!(
                "auto {} of the fastest explicit strategy (goal ≤ {AUTO_TOLERANCE}×; rerun with more --iterations)",
                failures.join(", ")
            )
        },
    ));
    Some(t)
}

/// Two SVG plots, flush and read-back medians against size, a series per
/// strategy.
fn plots(strategies: &[ICacheStrategy], cells: &[Vec<Cell>]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (file, what, pick) in [
        ("icache-flush.svg", "flushed in", 0usize),
        ("icache-readback.svg", "read back in", 1usize),
    ] {
        let mut plot = LinePlot::new(
            format!("ICacheTest: {what} (median ns) against size"),
            "bytes",
            format!("{what}, median ns (log scale)"),
        )
        .y_scale(Scale::Log10);
        for (k, st) in strategies.iter().enumerate() {
            let points = cells
                .iter()
                .zip(&SIZES)
                .map(|(row, &size)| {
                    let c = &row[k];
                    let v = if pick == 0 { &c.flush } else { &c.read };
                    (size as f64, Stats::from_samples(v.clone()).median)
                })
                .collect();
            plot = plot.series(st.requested().name(), points);
        }
        out.push((file.to_string(), plot.to_svg()));
    }
    out
}

/// JMH-style iterations for the JSON: the per-call samples averaged in 20
/// consecutive groups (thousands of raw samples per row would bloat the file;
/// the medians are kept as secondary metrics).
fn grouped(samples: &[f64]) -> Stats {
    let groups = 20.min(samples.len()).max(1);
    let per = samples.len().div_ceil(groups).max(1);
    Stats::from_samples(
        samples
            .chunks(per)
            .map(|c| c.iter().sum::<f64>() / c.len() as f64)
            .collect(),
    )
}

/// Stubs of 100–300 bytes: `mov eax, i; ret` followed by filler, from a
/// fixed-seed generator so every run installs the same bytes.
fn make_stubs(n: usize) -> Vec<Vec<u8>> {
    let mut rng = SplitMix64::new(0x9E37_79B9_7F4A_7C15);
    let mut next = || rng.next_u64();
    (0..n)
        .map(|i| {
            let len = 100 + (next() % 201) as usize;
            let mut s = Vec::with_capacity(len);
            s.push(0xB8);
            s.extend_from_slice(&(i as u32).to_le_bytes());
            s.push(0xC3);
            while s.len() < len {
                s.push(next() as u8);
            }
            s
        })
        .collect()
}

/// Calls a few installed stubs and checks they return their index: the
/// storm installs real, runnable code.
fn verify(entries: &[fastpath::code::Entry]) -> anyhow::Result<()> {
    #[cfg(target_arch = "x86_64")]
    for i in [0, entries.len() / 2, entries.len() - 1] {
        // SAFETY: every stub starts with `mov eax, i; ret`, a complete
        // `extern "C" fn() -> u32`, and stays installed during the call.
        let f: extern "C" fn() -> u32 = unsafe { entries[i].as_fn() };
        anyhow::ensure!(f() == i as u32, "stub {i} returned {}", f());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = entries;
    Ok(())
}

fn install_storm(
    strategies: &[ICacheStrategy],
    n: usize,
    quick: bool,
    report: &mut Report,
) -> anyhow::Result<()> {
    let stubs = make_stubs(n);
    let refs: Vec<&[u8]> = stubs.iter().map(Vec::as_slice).collect();
    let bytes: usize = stubs.iter().map(Vec::len).sum();
    let capacity = (bytes + n * 64).next_power_of_two();
    let caches: Vec<CodeCache> = strategies
        .iter()
        .map(|s| CodeCache::with_strategy(capacity, *s))
        .collect::<Result<_, _>>()?;
    let (warmup, samples) = if quick { (1, 3) } else { (2, 15) };
    let bar = progress(((warmup + samples) * caches.len()) as u64, "install storm");
    // runs[strategy]: (sync each, batched) total ns per run, strategies
    // taking turns run by run.
    let runs = rounds(caches.len(), warmup, samples, Order::RoundRobin, |_, k| {
        let cache = &caches[k];
        let t = Instant::now();
        let entries = refs
            .iter()
            .map(|b| cache.install(b))
            .collect::<Result<Vec<_>, _>>()?;
        let e_ns = t.elapsed().as_nanos() as f64;
        verify(&entries)?;
        for e in entries {
            cache.free(e)?;
        }
        let t = Instant::now();
        let entries = cache.install_batch(&refs)?;
        let b_ns = t.elapsed().as_nanos() as f64;
        verify(&entries)?;
        for e in entries {
            cache.free(e)?;
        }
        bar.inc(1);
        anyhow::Ok((e_ns, b_ns))
    })?;
    let each: Vec<Vec<f64>> = runs.iter().map(|v| v.iter().map(|r| r.0).collect()).collect();
    let batch: Vec<Vec<f64>> = runs.iter().map(|v| v.iter().map(|r| r.1).collect()).collect();
    bar.finish_and_clear();

    let per_stub = |v: &[f64]| Stats::from_samples(v.iter().map(|t| t / n as f64).collect());
    let none_each = per_stub(&each[0]).median;
    let none_batch = per_stub(&batch[0]).median;
    let mut t = Table::new(
        format!("Install storm: {n} stubs of 100–300 bytes ({bytes} bytes), {samples} runs, medians"),
        &[
            "strategy",
            "sync each: total ms",
            "ns/stub",
            "vs none",
            "batched: total ms",
            "ns/stub",
            "vs none",
            "each / batched",
        ],
    );
    for (k, st) in strategies.iter().enumerate() {
        let e = per_stub(&each[k]);
        let b = per_stub(&batch[k]);
        let vs_none = |v: f64, none: f64| {
            if k == 0 {
                "baseline".into()
            } else {
                percent(v, none)
            }
        };
        t.row(vec![
            label(st),
            num(e.median * n as f64 / 1e6),
            num(e.median),
            vs_none(e.median, none_each),
            num(b.median * n as f64 / 1e6),
            num(b.median),
            vs_none(b.median, none_batch),
            ratio(e.median, b.median),
        ]);
        for (mode, stats) in [("each", &e), ("batch", &b)] {
            report.results.push(
                BenchResult::new(EXPERIMENT, "install_storm", Mode::SingleShot, stats, "ns/op")
                    .param("strategy", st.requested().name())
                    .param("mode", mode)
                    .param("stubs", n)
                    .param("method", st.describe()),
            );
        }
    }
    t.note("ns/stub includes allocation, the copy and INT3 padding; `none` is the baseline within each mode");
    t.note("batched: one install_batch call, one sync over every stub (auto: one serializing instruction)");
    report.tables.push(t);
    Ok(())
}

fn fences(ctx: &Context, report: &mut Report) {
    let settings = ctx.settings();
    let guarantee = fastpath::code::publish_guarantee();
    #[allow(clippy::type_complexity)]
    let mut ops: Vec<(&str, String, Box<dyn FnMut()>)> = vec![
        (
            "empty",
            "an empty closure, same boxed call: the baseline".into(),
            Box::new(|| black_box(())),
        ),
        (
            "cross_modify_fence",
            format!("cross_modify_fence(): {}", cross_modify_name()),
            Box::new(fastpath::code::cross_modify_fence),
        ),
        (
            "publish",
            format!("publish(): membarrier, guarantee {guarantee:?}"),
            Box::new(|| {
                black_box(fastpath::code::publish());
            }),
        ),
    ];
    #[cfg(target_arch = "x86_64")]
    ops.insert(
        2,
        (
            "cpuid",
            "CPUID leaf 0 (X86ICacheSync=4, HotSpot's cross_modify_fence fallback)".into(),
            Box::new(|| {
                black_box(fastpath::arch::x86_64::cpuid(0, 0));
            }),
        ),
    );
    // publish() again while another thread of this process spins on the
    // other CPU, so that membarrier has a core to interrupt.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let spinner = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            // Relaxed: the flag only ends the loop; it publishes no data.
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        })
    };
    let bar = progress(ops.len() as u64 + 1, "serializing");
    bar.set_message("publish (peer spinning)");
    let with_peer = crate::harness::measure_ns_per_op(&settings, |n| {
        for _ in 0..n {
            black_box(fastpath::code::publish());
        }
    });
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = spinner.join();
    bar.inc(1);

    let mut t = Table::new(
        "Serializing primitives (ns per call)",
        &["operation", "what", "ns/op", "median", "vs empty"],
    );
    let mut base = f64::NAN;
    for (name, what, op) in ops.iter_mut() {
        bar.set_message(name.to_string());
        let stats = crate::harness::measure_ns_per_op(&settings, |n| {
            for _ in 0..n {
                op();
            }
        });
        if *name == "empty" {
            base = stats.median;
        }
        t.row(vec![
            name.to_string(),
            what.clone(),
            crate::report::table::score(stats.mean, stats.error),
            num(stats.median),
            if *name == "empty" {
                "baseline".into()
            } else {
                ratio(stats.median, base)
            },
        ]);
        report.results.push(
            BenchResult::new(EXPERIMENT, "serializing", Mode::AverageTime, &stats, "ns/op")
                .param("operation", *name),
        );
        bar.inc(1);
    }
    bar.finish_and_clear();
    t.row(vec![
        "publish (peer spinning)".into(),
        "publish() while a second thread of this process spins: one IPI to interrupt".into(),
        crate::report::table::score(with_peer.mean, with_peer.error),
        num(with_peer.median),
        ratio(with_peer.median, base),
    ]);
    report.results.push(
        BenchResult::new(EXPERIMENT, "serializing", Mode::AverageTime, &with_peer, "ns/op")
            .param("operation", "publish_with_peer"),
    );
    t.note("publish() interrupts only CPUs currently running another thread of this process: alone, it is mostly the syscall");
    t.note("the peer shares 2 vCPUs with the measuring thread and with other load: when it is descheduled there is no IPI to send");
    report.tables.push(t);
}

fn cross_modify_name() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    return match fastpath::code::testing::cross_modify_serializer() {
        fastpath::code::testing::Serializer::Cpuid => "CPUID",
        fastpath::code::testing::Serializer::Serialize => "SERIALIZE",
        fastpath::code::testing::Serializer::IretToSelf => "IRET-to-self",
    };
    #[cfg(target_arch = "aarch64")]
    return "ISB";
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    return "fence";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stubs_are_deterministic_and_in_range() {
        let a = make_stubs(500);
        assert_eq!(a, make_stubs(500));
        assert!(a.iter().all(|s| (100..=300).contains(&s.len())));
        assert_eq!(&a[7][..6], &[0xB8, 7, 0, 0, 0, 0xC3]);
    }

    #[test]
    fn the_reason_a_strategy_is_missing_is_cut_from_the_config_error() {
        let e = "FASTPATH_ICACHE_SYNC=\"serialize\": this CPU lacks Serialize; accepted: auto, none";
        assert_eq!(why_not(e), "this CPU lacks Serialize");
        assert_eq!(why_not("something else"), "something else");
    }

    #[test]
    fn grouping_keeps_the_mean() {
        let s: Vec<f64> = (0..1000).map(f64::from).collect();
        let g = grouped(&s);
        assert_eq!(g.samples.len(), 20);
        assert!((g.mean - 499.5).abs() < 1e-9);
    }
}
