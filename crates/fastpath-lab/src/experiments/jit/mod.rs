//! `fastpath jit`: the fast paths as a JIT runs them. Each operation is
//! timed (and, with `--prof perfnorm`, counted) in up to four forms:
//!
//! - `template`: fastpath-jit's x86-64 template inlined in a loop generated
//!   with dynasm-rs and installed in fastpath's `CodeCache` ([`code`]);
//! - `cranelift`: the same loop as CLIF with fastpath-cranelift's emitter,
//!   compiled by cranelift-codegen and installed with its relocations
//!   ([`clif`]), where that crate has the fast path (locks, poll, SATB and
//!   LRB idle tests);
//! - `rust`: the library called from Rust (`sync::enter_on`/`exit_on`,
//!   `Synchronized::lock`, `Mutator::safepoint_poll`, the barrier probes of
//!   `fastpath::gc::probe`) ([`rust`]);
//! - `hotspot-c2`: the same shapes compiled by C2 (peers/jvm `JitBench`),
//!   read from its JMH JSON ([`hotspot`]), or a "not run" row saying how
//!   to produce it.
//!
//! Four tables (`--only locks|poll|barriers|graph` runs one): seed 001's
//! locking shapes (uncontended, recursive, churn) with the CAS pair and
//! parking_lot's uncontended pair as this run's baselines; the safepoint
//! poll against the empty loop; seed 003's barriers, idle as in passive
//! mode (the thread block's GC state is idle outside pauses), against the
//! same access without a barrier; and seed 003's whole-workload question
//! of JIT code: the graph workload's kernel generated with the barriers
//! inlined, per barrier set, passive ([`graph`]). Every generated loop trip is one
//! operation plus two loop instructions (`dec; jnz`), which the
//! `empty-loop` row measures.
//!
//! Goals (the issue's): the inlined lock+unlock pair at most 1.0× HotSpot
//! C2's on this machine, and at most 1.05× parking_lot's uncontended pair
//! called from Rust.

pub mod clif;
pub mod code;
mod fixture;
pub mod graph;
pub mod hotspot;
pub mod pair;
mod pair_table;
mod regions;
pub mod rust;
mod tables;

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use clap::{value_parser, Arg, ArgMatches, Command};

use crate::experiment::{Context, Experiment};
use crate::harness::perfnorm::{Profile, ProfileTable, Profiler, Region};
use crate::harness::{measure_ns_per_op, progress, Settings};
use crate::report::{BenchResult, Mode};
use crate::stats::Stats;
use regions::region;
use tables::{graph_table, table};

/// The experiment.
pub struct Jit;

const NAME: &str = "jit";

/// Operations a profiled run counts: a few milliseconds natively for the
/// slowest row (Rust churn), about a second under Callgrind.
const PROFILED_OPS: u64 = 100_000;

/// The tables, in order.
const GROUPS: [&str; 4] = ["locks", "poll", "barriers", "graph"];

/// The largest `--header-offset`/`--counter-offset`: the last word of a
/// 4 KiB page.
const MAX_OFFSET: u16 = (pair::PAGE - 8) as u16;

/// What `--only` takes: a table of [`GROUPS`], or `pair`, the lock pair's
/// forms ([`pair`]), which only `--only pair` runs.
const ONLY: [&str; 5] = ["locks", "poll", "barriers", "graph", "pair"];

/// (table, operation, form) of every row, in table order. The first row
/// of each table is its baseline.
const ROWS: &[(&str, &str, &str)] = &[
    ("locks", "cas-pair", "rust"),
    ("locks", "cas-pair", "hotspot-c2"),
    ("locks", "parking-lot", "rust"),
    ("locks", "uncontended", "template"),
    ("locks", "uncontended", "template-guessing"),
    ("locks", "uncontended", "cranelift"),
    ("locks", "uncontended", "cranelift-guessing"),
    ("locks", "uncontended", "rust"),
    ("locks", "uncontended", "rust-synchronized"),
    ("locks", "uncontended", "hotspot-c2"),
    ("locks", "recursive", "template"),
    ("locks", "recursive", "cranelift"),
    ("locks", "recursive", "rust"),
    ("locks", "recursive", "hotspot-c2"),
    ("locks", "churn", "template"),
    ("locks", "churn", "cranelift"),
    ("locks", "churn", "rust"),
    ("locks", "churn", "hotspot-c2"),
    ("poll", "empty-loop", "template"),
    ("poll", "poll", "template"),
    ("poll", "poll", "cranelift"),
    ("poll", "poll", "rust"),
    ("poll", "poll", "hotspot-c2"),
    ("barriers", "store", "template"),
    ("barriers", "store", "rust"),
    ("barriers", "store", "hotspot-c2"),
    ("barriers", "satb-store", "template"),
    ("barriers", "satb-store", "cranelift"),
    ("barriers", "satb-store", "rust"),
    ("barriers", "satb-store", "hotspot-c2"),
    ("barriers", "card-store", "template"),
    ("barriers", "card-store", "rust"),
    ("barriers", "card-store", "hotspot-c2"),
    ("barriers", "load", "template"),
    ("barriers", "load", "rust"),
    ("barriers", "load", "hotspot-c2"),
    ("barriers", "lrb-load", "template"),
    ("barriers", "lrb-load", "cranelift"),
    ("barriers", "lrb-load", "rust"),
    ("barriers", "lrb-load", "hotspot-c2"),
    ("barriers", "brooks-load", "template"),
    ("barriers", "brooks-load", "rust"),
    ("barriers", "brooks-load", "hotspot-c2"),
    ("graph", "graph", "none"),
    ("graph", "graph", "card"),
    ("graph", "graph", "card-cond"),
    ("graph", "graph", "g1-card"),
    ("graph", "graph", "satb"),
    ("graph", "graph", "brooks-rb"),
    ("graph", "graph", "brooks-wb"),
    ("graph", "graph", "lrb"),
    ("graph", "graph", "cas"),
    ("graph", "graph", "shenandoah"),
    ("graph", "graph", "shenandoah-2017"),
    ("graph", "graph", "g1"),
];

/// The most measured iterations `--iterations` takes.
pub const MAX_ITERATIONS: u32 = 1000;

/// One measured (or read) row.
struct Row {
    op: &'static str,
    form: &'static str,
    /// ns/op, or why none.
    ns: Result<Stats, String>,
    /// Instructions per operation, or why none.
    insns: Result<f64, String>,
}

impl Row {
    /// A row neither timed nor counted, and why.
    fn missing(op: &'static str, form: &'static str, why: String) -> Row {
        Row {
            op,
            form,
            ns: Err(why.clone()),
            insns: Err(why),
        }
    }
}

impl Experiment for Jit {
    fn name(&self) -> &'static str {
        NAME
    }

    fn about(&self) -> &'static str {
        "JIT-inlined fast paths: templates in generated loops, Cranelift, Rust calls and HotSpot C2 (locks, poll, barriers)"
    }

    fn args(&self, cmd: Command) -> Command {
        cmd.arg(
            Arg::new("only")
                .long("only")
                .value_name("TABLE")
                .value_parser(ONLY)
                .help("Run one table: locks (seed 001's shapes), poll, barriers (seed 003's, idle as in passive mode), graph (the graph workload as JIT code, per barrier set) or pair (the template's uncontended pair in its three forms against the Rust baselines, interleaved; not part of the default run)"),
        )
        .arg(
            Arg::new("iterations")
                .long("iterations")
                .value_name("N")
                .value_parser(value_parser!(u32).range(2..=MAX_ITERATIONS as i64))
                .help("Measured iterations per row, 2 to 1000 (default 10, 5 with --quick)"),
        )
        .arg(
            Arg::new("hotspot")
                .long("hotspot")
                .action(clap::ArgAction::SetTrue)
                .help("Run HotSpot's JitBench lock shapes first (peers/jvm's benchmarks jar, built with Maven if missing; a JDK 21-25), 2 ms iterations summarised by their median as the lab's rows, into jit-locks.json in the --jvm folder, so the hotspot-c2 lock rows are timed in this invocation beside the template's"),
        )
        .arg(
            Arg::new("header-offset")
                .long("header-offset")
                .value_name("BYTES")
                .value_parser(value_parser!(u16).range(0..=MAX_OFFSET as i64))
                .help("With --only pair: put the lock rows' header (the generated pairs' and the Rust fast path's) this many bytes past the thread block modulo 4096, a multiple of 8 from 0 to 4088 (the table's notes give the lock-stack's offsets), to time the pair with its header load aliasing a store's 4 KiB offset or not"),
        )
        .arg(
            Arg::new("counter-offset")
                .long("counter-offset")
                .value_name("BYTES")
                .value_parser(value_parser!(u16).range(0..=MAX_OFFSET as i64))
                .help("With --only pair: put the lock rows' counter this many bytes past the thread block modulo 4096, a multiple of 8 from 0 to 4088"),
        )
        .arg(
            Arg::new("prof-rows")
                .long("prof-rows")
                .value_name("IDS")
                .value_delimiter(',')
                .requires("prof")
                .help("With --prof: count only these rows (comma list of the counter table's row ids, <operation>/<form>, e.g. uncontended/template,graph/satb); the others are timed, not counted"),
        )
        .arg(
            Arg::new("jvm")
                .long("jvm")
                .value_name("DIR")
                .value_parser(value_parser!(PathBuf))
                .help("Folder of peers/jvm's results holding jit.json (default fastpath-report/jvm, where `ONLY=jit peers/jvm/run.sh` writes)"),
        )
    }

    fn check(&self, matches: &ArgMatches, _quick: bool) -> Result<(), String> {
        let pair = matches
            .try_get_one::<String>("only")
            .ok()
            .flatten()
            .map(String::as_str)
            == Some("pair");
        for name in ["header-offset", "counter-offset"] {
            match matches.try_get_one::<u16>(name).ok().flatten() {
                Some(_) if !pair => {
                    return Err(format!(
                        "--{name} places the pair table's rows: it needs --only pair"
                    ))
                }
                Some(n) if n % 8 != 0 => {
                    return Err(format!(
                        "--{name} {n}: not a multiple of 8 (the header and the counter are words)"
                    ))
                }
                _ => {}
            }
        }
        for id in matches
            .try_get_many::<String>("prof-rows")
            .ok()
            .flatten()
            .into_iter()
            .flatten()
        {
            if id
                .split_once('/')
                .and_then(|(op, form)| region(op, form))
                .is_none()
            {
                return Err(format!(
                    "--prof-rows {id}: no such row (an id of the counter table: <operation>/<form>, e.g. uncontended/template, poll/cranelift, graph/satb)"
                ));
            }
        }
        // With --hotspot the folder is made (run.sh writes into it).
        let made_here = matches.try_get_one::<bool>("hotspot").ok().flatten() == Some(&true);
        match matches.try_get_one::<PathBuf>("jvm").ok().flatten() {
            Some(dir) if !made_here && !dir.is_dir() => Err(format!(
                "--jvm {}: not a folder (it holds peers/jvm's jit.json: {})",
                dir.display(),
                hotspot::HOW
            )),
            _ => Ok(()),
        }
    }

    fn perfnorm_region(&self, id: &str) -> Option<Region<'static>> {
        let (op, form) = id.split_once('/')?;
        region(op, form)?.ok()
    }

    fn run(&self, ctx: &Context) -> anyhow::Result<()> {
        let rows = ctx.matches.try_get_many::<String>("prof-rows").ok().flatten();
        let rows: Option<Vec<String>> = rows.map(|r| r.cloned().collect());
        let prof = ctx.profiler(self.name())?.map(|p| match rows {
            Some(r) => p.only_rows(r),
            None => p,
        });
        let only = ctx.option::<String>("only");
        let mut s = ctx.settings();
        if let Some(i) = ctx.option::<u32>("iterations") {
            s.iterations = i as usize;
        }
        let dir = ctx
            .option::<PathBuf>("jvm")
            .unwrap_or_else(|| PathBuf::from(hotspot::DEFAULT_DIR));
        if ctx.option::<bool>("hotspot").unwrap_or(false) {
            hotspot::run_jitbench(&dir, ctx.quick)?;
        }
        let jvm = hotspot::HotSpot::read(&dir);
        // Each table is kept as soon as it is measured; the counters of
        // every profiled row come last, in one table.
        let mut counters = ProfileTable::new("JIT fast paths");
        if only.as_deref() == Some("pair") {
            let place = pair::Placement {
                header: ctx.option::<u16>("header-offset"),
                counter: ctx.option::<u16>("counter-offset"),
            };
            let t = pair_table::pair_table(ctx.quick, place, prof.as_ref(), &mut counters)?;
            ctx.keep_table(t, Vec::new())?;
        }
        for group in GROUPS {
            if only.as_deref().is_some_and(|o| o != group) {
                continue;
            }
            code::SLOW_CALLS.store(0, Ordering::Relaxed);
            let (mut t, results) = match group {
                "locks" => {
                    let (measured, results) =
                        measure_locks(ctx.quick, &s, &jvm, prof.as_ref(), &mut counters)?;
                    (table(group, &measured, &jvm), results)
                }
                "graph" => {
                    let (measured, results) = measure_graph(ctx.quick, prof.as_ref(), &mut counters)?;
                    (graph_table(&measured), results)
                }
                _ => {
                    let rows: Vec<_> = ROWS.iter().filter(|r| r.0 == group).collect();
                    let bar = progress(rows.len() as u64, &format!("jit {group}"));
                    let mut measured = Vec::new();
                    let mut results = Vec::new();
                    for &&(_, op, form) in &rows {
                        bar.set_message(format!("{op} {form}"));
                        let (row, result) = measure(op, form, &s, &jvm, prof.as_ref(), &mut counters);
                        measured.push(row);
                        results.extend(result);
                        bar.inc(1);
                    }
                    bar.finish_and_clear();
                    (table(group, &measured, &jvm), results)
                }
            };
            if group != "locks" {
                // Relaxed: written by this thread's loops (and the graph
                // kernels' threads, joined) only.
                let slow = code::SLOW_CALLS.load(Ordering::Relaxed);
                t.note(format!(
                    "slow paths of this table's generated loops taken: {slow} (0 expected: nothing armed the poll or started a GC cycle)"
                ));
            }
            ctx.keep_table(t, results)?;
        }
        if let Some(p) = prof {
            ctx.keep_table(counters.finish(&p), Vec::new())?;
        }
        Ok(())
    }
}

/// The interleaved tables' plan: samples of 0.5 ms whatever the mode (a
/// short sample is mostly not preempted on a loaded machine, so the median
/// is the unpreempted cost; 10 ms samples there are mostly preempted), 60
/// rounds (`--quick`) or 200.
fn short_plan(quick: bool) -> crate::harness::interleave::Plan {
    let sample = std::time::Duration::from_micros(500);
    crate::harness::interleave::Plan {
        warmup_rounds: if quick { 5 } else { 10 },
        rounds: if quick { 60 } else { 200 },
        sample_time: sample,
        threaded_sample_time: sample,
    }
}

/// The lock table's rows, interleaved ([`measure_rows`]): every timed row
/// one short sample per round, in a fresh order each round, so the ratios
/// (against the CAS pair and parking_lot's pair) are of samples taken side
/// by side; HotSpot's rows are read (`measure`), and each timed row is
/// profiled afterwards if asked.
///
/// [`measure_rows`]: crate::harness::interleave::measure_rows
fn measure_locks(
    quick: bool,
    s: &Settings,
    jvm: &hotspot::HotSpot,
    prof: Option<&Profiler>,
    counters: &mut ProfileTable,
) -> anyhow::Result<(Vec<Row>, Vec<BenchResult>)> {
    use crate::harness::interleave::{measure_rows, row, Sampler};
    let plan = short_plan(quick);
    let rows: Vec<(&'static str, &'static str)> = ROWS
        .iter()
        .filter(|r| r.0 == "locks")
        .map(|r| (r.1, r.2))
        .collect();
    // The timed rows' samplers, and why the others have none.
    let mut timed = Vec::new();
    let mut samplers: Vec<Sampler<'_>> = Vec::new();
    let mut why: Vec<Option<String>> = Vec::new();
    for &(op, form) in &rows {
        if form == "hotspot-c2" {
            why.push(None);
            continue;
        }
        match region(op, form) {
            Some(Ok(mut r)) => {
                timed.push(why.len());
                why.push(None);
                samplers.push(row(move |n| (r.run)(n)));
            }
            Some(Err(e)) => why.push(Some(e)),
            None => why.push(Some("no loop for this row".into())),
        }
    }
    let stats = measure_rows(&plan, 0x10C5, &mut samplers, "jit locks").map_err(|e| anyhow::anyhow!(e))?;
    drop(samplers);
    let mut out = Vec::new();
    let mut results = Vec::new();
    for (i, &(op, form)) in rows.iter().enumerate() {
        if form == "hotspot-c2" {
            let (r, res) = measure(op, form, s, jvm, None, counters);
            out.push(r);
            results.extend(res);
            continue;
        }
        let Some(k) = timed.iter().position(|&t| t == i) else {
            out.push(Row::missing(op, form, why[i].clone().unwrap_or_default()));
            continue;
        };
        let (row, result) = timed_row(op, form, stats[k].clone(), prof, counters);
        out.push(row);
        results.push(result);
    }
    Ok((out, results))
}

/// A timed row of the interleaved tables, its result, and, if asked, its
/// loop profiled on this thread (instructions per operation from the
/// profile, its counters added to the result and to `counters`).
fn timed_row(
    op: &'static str,
    form: &'static str,
    stats: Stats,
    prof: Option<&Profiler>,
    counters: &mut ProfileTable,
) -> (Row, BenchResult) {
    let mut result = BenchResult::new(NAME, op, Mode::AverageTime, &stats, "ns/op").param("form", form);
    let mut insns = Err("-".to_string());
    if let Some(p) = prof {
        if let Some(Ok(r)) = region(op, form) {
            let profile = p.profile(&format!("{op}/{form}"), r);
            insns = instructions(&profile);
            result = profile.attach(result);
            counters.push(profile);
        }
    }
    let row = Row {
        op,
        form,
        ns: Ok(stats),
        insns,
    };
    (row, result)
}

/// A profiled row's instructions per operation, or why none.
fn instructions(profile: &Profile) -> Result<f64, String> {
    match &profile.per_op {
        Ok(v) => v
            .iter()
            .find(|(n, _)| *n == "instructions")
            .map(|(_, s)| s.mean)
            .ok_or_else(|| "n/a".to_string()),
        Err(e) => Err(e.clone()),
    }
}

/// The graph table's rows, interleaved ([`measure_rows`]): each set's
/// kernel on a thread of its own (a thread is the mutator of one heap at a
/// time), every round one short sample of each in a fresh order, so the
/// machine's load lands on every set alike; then each profiled, if asked,
/// on this thread.
///
/// [`measure_rows`]: crate::harness::interleave::measure_rows
fn measure_graph(
    quick: bool,
    prof: Option<&Profiler>,
    counters: &mut ProfileTable,
) -> anyhow::Result<(Vec<Row>, Vec<BenchResult>)> {
    use crate::harness::interleave::{batched, measure_rows, Plan, Sampler};
    use std::sync::mpsc;
    let plan = short_plan(quick);
    let sets: Vec<&'static str> = ROWS.iter().filter(|r| r.0 == "graph").map(|r| r.2).collect();
    let mut threads = Vec::new();
    let mut samplers: Vec<Sampler<'_>> = Vec::new();
    for &name in &sets {
        let set = *graph::SETS
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| anyhow::anyhow!("no graph set {name}"))?;
        let (ask, asked) = mpsc::channel::<Plan>();
        let (tell, told) = mpsc::channel::<Result<f64, String>>();
        threads.push(std::thread::spawn(move || {
            let mut k = match graph::Kernel::new(set) {
                Ok(k) => k,
                Err(e) => {
                    let _ = tell.send(Err(format!("{e:#}")));
                    return;
                }
            };
            let mut sample = batched(move |n| k.run(n));
            while let Ok(plan) = asked.recv() {
                if tell.send(Ok(sample(&plan))).is_err() {
                    return;
                }
            }
        }));
        samplers.push(Box::new(move |plan: &Plan| {
            ask.send(*plan)
                .map_err(|_| "the kernel's thread ended".to_string())?;
            told.recv().map_err(|_| "the kernel's thread ended".to_string())?
        }));
    }
    let stats = measure_rows(&plan, 0x6EA9, &mut samplers, "jit graph").map_err(|e| anyhow::anyhow!(e));
    drop(samplers);
    for t in threads {
        let _ = t.join();
    }
    let stats = stats?;
    let mut rows = Vec::new();
    let mut results = Vec::new();
    for (&form, stats) in sets.iter().zip(stats) {
        let (row, result) = timed_row("graph", form, stats, prof, counters);
        rows.push(row);
        results.push(result);
    }
    Ok((rows, results))
}

/// Times (or reads) one row, and profiles it if asked.
fn measure(
    op: &'static str,
    form: &'static str,
    s: &Settings,
    jvm: &hotspot::HotSpot,
    prof: Option<&Profiler>,
    counters: &mut ProfileTable,
) -> (Row, Option<BenchResult>) {
    if form == "hotspot-c2" {
        let Some((method, gc)) = hotspot::method_of(op) else {
            let why = format!("not run: {}", hotspot::why_none(op));
            return (Row::missing(op, form, why), None);
        };
        return match jvm.row(method, gc) {
            Ok(r) => {
                let m = &r.primary_metric;
                // The median of JMH's iterations where it wrote them
                // (`--hotspot`'s short ones: the lab's own statistic),
                // else the mean.
                let median = m.score_percentiles.get("50.0").copied().unwrap_or(m.score);
                let stats = Stats {
                    mean: m.score,
                    error: m.score_error,
                    median,
                    ..Stats::from_samples(vec![median])
                };
                let insns = r
                    .secondary_metrics
                    .get("instructions")
                    .map(|m| m.score)
                    .ok_or_else(|| "n/a (JMH ran without -prof perfnorm: no PMU here)".to_string());
                (
                    Row {
                        op,
                        form,
                        ns: Ok(stats),
                        insns,
                    },
                    None,
                )
            }
            Err(why) => (
                Row {
                    op,
                    form,
                    ns: Err(why.clone()),
                    insns: Err("-".into()),
                },
                None,
            ),
        };
    }
    let mut region = match region(op, form) {
        Some(Ok(r)) => r,
        other => {
            let why = match other {
                Some(Err(why)) => why,
                _ => "no loop for this row".to_string(),
            };
            return (Row::missing(op, form, why), None);
        }
    };
    let stats = measure_ns_per_op(s, |n| (region.run)(n));
    // The profiled run builds its own region: this one (its heap and
    // mutator, its code) goes first, as a thread has one mutator at a time.
    drop(region);
    let (row, result) = timed_row(op, form, stats, prof, counters);
    (row, Some(result))
}
