//! `fastpath gc`: seed 003 (Shipilev, "Shenandoah WB fastpath and
//! optimizations", shenandoah-dev, Dec 2017), on `fastpath::gc`.
//!
//! Where it sits: drives the `fastpath::gc` library. Three tables:
//!
//! 1. *Throughput per barrier set in passive mode* (the seed's setting: the
//!    barriers run, no cycle ever reaches a slow path), as a ratio to the
//!    `none` set measured in the same run. Rows are interleaved round-robin
//!    so a noisy, shared machine's drift spreads over all of them. Each row
//!    is one `#[inline(never)]` monomorphised function, [`workload`], so a
//!    profiler (issue 11's perfnorm) can attribute counters to it.
//! 2. *Fast-path instructions from the disassembly* of this very binary
//!    (`objdump -d`), probe by probe ([`fastpath::gc::probe`]), beside
//!    HotSpot's counts. `--check` fails if a count grows past its limit.
//! 3. *Concurrent-mode pauses*: 4 mutators on a heap kept half live, the
//!    collector running; p50/p99/max of every pause.

use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use clap::{value_parser, Arg, ArgAction, Command as ClapCommand};
use fastpath::gc::{
    self, probe, Barrier, BarrierBits, BarrierSet, GcMode, Heap, HeapConfig, Mutator, Obj, Static,
};

use super::{Context, Experiment};
use crate::harness::{black_box, progress, Stats};
use crate::report::table::{num, ratio};
use crate::report::{BenchResult, Mode, Report, Table};

/// The experiment.
pub struct Gc;

/// Nodes in the throughput workload's array (fits in L2, as the seed's
/// barrier costs are instruction costs, not misses).
const NODES: usize = 2048;

/// One throughput row: the measured operation, repeated `n` times:
/// pick a node, load its first reference, read a data word, write another,
/// store a reference: two reference loads, one reference store, one data
/// read and one data write, each through the set's barriers.
#[inline(never)]
pub fn workload<const B: u16>(m: &Mutator<Static<B>>, array: Obj<'_>, n: u64, seed: usize) -> usize {
    let mut x = seed | 1;
    let mut acc = 0usize;
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let node = m.load(array, x % NODES).unwrap().unwrap();
        let next = m.load(node, 0).unwrap();
        acc = acc.wrapping_add(m.read(node, 0).unwrap());
        m.write(node, 1, acc).unwrap();
        m.store(node, 1, next).unwrap();
    }
    acc
}

/// A row of table 1: its heap, its mutator, its array.
struct ThroughputRow {
    name: String,
    run: Box<dyn FnMut(u64) -> f64>,
}

fn throughput_row<const B: u16>(name: &str) -> anyhow::Result<ThroughputRow> {
    let heap = Heap::new(HeapConfig::new(64 << 20, BarrierBits(B), GcMode::Passive))?;
    let mut m = heap.mutator::<Static<B>>()?;
    let array = m.alloc(NODES, 0)?;
    for i in 0..NODES {
        let d = m.roots_len();
        let n = m.alloc(2, 2)?;
        let (a, o) = (m.get(array)?, m.get(n)?);
        m.write(o, 0, i)?;
        m.store(a, i, Some(o))?;
        m.truncate_roots(d);
    }
    // Wire each node's first reference to another node.
    for i in 0..NODES {
        let a = m.get(array)?;
        let (x, y) = (m.load(a, i)?.unwrap(), m.load(a, (i * 7 + 1) % NODES)?.unwrap());
        m.store(x, 0, Some(y))?;
    }
    let run = move |n: u64| {
        let _keep = &heap;
        let a = m.get(array).expect("the array's handle");
        let t = Instant::now();
        black_box(workload(&m, a, n, 0x2545_F491));
        t.elapsed().as_nanos() as f64 / n as f64
    };
    Ok(ThroughputRow {
        name: name.to_string(),
        run: Box::new(run),
    })
}

fn throughput_rows() -> anyhow::Result<Vec<ThroughputRow>> {
    const SATB: u16 = Barrier::Satb.bit();
    const CARD: u16 = Barrier::Card.bit();
    const CARD_COND: u16 = Barrier::CardCond.bit();
    const G1_CARD: u16 = Barrier::G1Card.bit();
    const BROOKS_RB: u16 = Barrier::BrooksRb.bit();
    const BROOKS_WB: u16 = Barrier::BrooksWb.bit();
    const LRB: u16 = Barrier::Lrb.bit();
    const CAS: u16 = Barrier::Cas.bit();
    Ok(vec![
        throughput_row::<{ BarrierBits::NONE.0 }>("none")?,
        throughput_row::<{ BarrierBits::SERIAL.0 }>("serial")?,
        throughput_row::<{ BarrierBits::G1.0 }>("g1")?,
        throughput_row::<{ BarrierBits::SHENANDOAH_2017.0 }>("shenandoah-2017")?,
        throughput_row::<{ BarrierBits::SHENANDOAH.0 }>("shenandoah")?,
        throughput_row::<SATB>("satb")?,
        throughput_row::<CARD>("card")?,
        throughput_row::<CARD_COND>("card-cond")?,
        throughput_row::<G1_CARD>("g1-card")?,
        throughput_row::<BROOKS_RB>("brooks-rb")?,
        throughput_row::<BROOKS_WB>("brooks-wb")?,
        throughput_row::<LRB>("lrb")?,
        throughput_row::<CAS>("cas")?,
    ])
}

fn throughput(quick: bool, results: &mut Vec<BenchResult>) -> anyhow::Result<Table> {
    let mut rows = throughput_rows()?;
    let (rounds, n) = if quick { (5, 200_000) } else { (21, 2_000_000) };
    let mut samples = vec![Vec::new(); rows.len()];
    for row in rows.iter_mut() {
        (row.run)(n / 4); // warm-up
    }
    let bar = progress(rounds as u64, "gc throughput");
    for _ in 0..rounds {
        for (i, row) in rows.iter_mut().enumerate() {
            samples[i].push((row.run)(n));
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let stats: Vec<Stats> = samples.into_iter().map(Stats::from_samples).collect();
    let base = stats[0].percentile(50.0);
    let mut t = Table::new(
        "Passive mode: ns per operation (2 ref loads, 1 ref store, 1 data read, 1 data write), ratio to `none` of this run",
        &["set", "barriers", "ns/op (median)", "ratio"],
    );
    for (row, s) in rows.iter().zip(&stats) {
        let bits: BarrierBits = row.name.parse().expect("row names are barrier sets");
        let barriers: Vec<&str> = bits.barriers().map(Barrier::name).collect();
        let median = s.percentile(50.0);
        t.row(vec![
            row.name.clone(),
            if barriers.is_empty() {
                "-".into()
            } else {
                barriers.join("+")
            },
            num(median),
            ratio(median, base),
        ]);
        results.push(
            BenchResult::new("gc", "passive-throughput", Mode::AverageTime, s, "ns/op")
                .param("barriers", &row.name),
        );
    }
    t.note(format!(
        "{rounds} rounds of {n} operations, rows interleaved; checked accesses (bounds, heap) in every row alike."
    ));
    Ok(t)
}

/// A probe's fast path: the instructions from its entry to its first `ret`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FastPath {
    /// The probe's name.
    pub probe: String,
    /// Its instructions, as objdump prints them (mnemonic and operands).
    pub instructions: Vec<String>,
}

/// Extracts every `fastpath::gc::probe::probe_*` fast path from the text of
/// `objdump -d --no-show-raw-insn -C`.
pub fn parse_fast_paths(objdump: &str) -> Vec<FastPath> {
    let mut out = Vec::new();
    let mut current: Option<FastPath> = None;
    let mut done = false;
    for line in objdump.lines() {
        if let Some(start) = line.find("<fastpath::gc::probe::probe_") {
            if line.trim_end().ends_with(">:") {
                out.extend(current.take());
                let name = &line[start + "<fastpath::gc::probe::".len()..line.trim_end().len() - 2];
                current = Some(FastPath {
                    probe: name.to_string(),
                    instructions: Vec::new(),
                });
                done = false;
                continue;
            }
        }
        let Some(fp) = current.as_mut() else { continue };
        if done {
            continue;
        }
        if line.trim().is_empty() {
            done = true;
            continue;
        }
        // "  1c:\tmov    %rdx,0x10(%rsi)"
        let Some((_, insn)) = line.split_once(":\t") else {
            continue;
        };
        let insn = insn
            .split('#')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if insn.is_empty() {
            continue;
        }
        let is_ret = insn == "ret" || insn.starts_with("ret ");
        fp.instructions.push(insn);
        if is_ret {
            done = true;
        }
    }
    out.extend(current);
    out
}

/// (barrier, probe, baseline probe, HotSpot's count, our limit).
const FAST_PATH_ROWS: &[(&str, &str, &str, &str, usize)] = &[
    ("satb (idle)", "probe_store_satb", "probe_store_none", "2", 3),
    ("lrb (idle)", "probe_load_lrb", "probe_load_none", "2", 3),
    ("brooks-rb", "probe_load_brooks_rb", "probe_load_none", "1", 1),
    (
        "brooks-wb (data write: the seed's)",
        "probe_write_brooks_wb",
        "probe_write_none",
        "4",
        4,
    ),
    (
        "brooks-wb (ref store)",
        "probe_store_brooks_wb",
        "probe_store_none",
        "4",
        4,
    ),
    ("card", "probe_store_card", "probe_store_none", "2-3", 3),
    ("card-cond", "probe_store_card_cond", "probe_store_none", "4-5", 6),
    (
        "g1-card (filters, clean card)",
        "probe_store_g1_card",
        "probe_store_none",
        "~11",
        15,
    ),
    ("cas (success)", "probe_cas_cas", "probe_cas_none", "0", 1),
];

fn fast_paths(check: bool) -> anyhow::Result<Table> {
    black_box(probe::addresses()); // keeps every probe linked in
    let exe = std::env::current_exe().context("locating this binary")?;
    let mut t = Table::new(
        "Barrier fast paths, x86-64 instructions from objdump of this binary (release build)",
        &[
            "barrier",
            "probe",
            "fast path",
            "baseline",
            "barrier insns",
            "HotSpot",
            "limit",
            "instructions",
        ],
    );
    let out = Command::new("objdump")
        .args(["-d", "--no-show-raw-insn", "-C"])
        .arg(&exe)
        .output();
    let text = match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).into_owned(),
        _ => {
            if check {
                bail!("objdump (binutils) is needed for --check");
            }
            t.note("objdump not found: install binutils");
            return Ok(t);
        }
    };
    let paths = parse_fast_paths(&text);
    let find = |name: &str| paths.iter().find(|p| p.probe == name);
    let mut failures = Vec::new();
    for &(barrier, probe_name, base_name, hotspot, limit) in FAST_PATH_ROWS {
        let (Some(p), Some(b)) = (find(probe_name), find(base_name)) else {
            failures.push(format!(
                "{probe_name} or {base_name} not found in the disassembly"
            ));
            continue;
        };
        let extra = p.instructions.len().saturating_sub(b.instructions.len());
        if extra > limit {
            failures.push(format!("{barrier}: {extra} instructions > limit {limit}"));
        }
        // The barrier's own instructions, jump targets shortened to "slow".
        let body: Vec<String> = p
            .instructions
            .iter()
            .filter(|i| !b.instructions.contains(i))
            .map(|i| match i.split_once(' ') {
                Some((op, _)) if op.starts_with('j') => format!("{op} slow"),
                _ => i.clone(),
            })
            .collect();
        t.row(vec![
            barrier.into(),
            probe_name.into(),
            p.instructions.len().to_string(),
            b.instructions.len().to_string(),
            extra.to_string(),
            hotspot.into(),
            limit.to_string(),
            body.join(" ; "),
        ]);
    }
    t.note(
        "barrier insns = the probe's fast path (entry to first ret) minus the same access's with no barrier;",
    );
    t.note("the state byte is read through the Mutator's pointer: one load HotSpot does not need (it tests the byte at a fixed offset from r15).");
    if cfg!(debug_assertions) {
        t.note("DEBUG BUILD: counts are meaningless; run with --release");
        if check {
            bail!("--check needs a release build");
        }
    }
    if check && !failures.is_empty() {
        bail!("fast paths over their limits: {}", failures.join("; "));
    }
    Ok(t)
}

/// The pause workload's node: 2 references, 4 data words (72 bytes).
const NODE_REFS: usize = 2;
const NODE_DATA: usize = 4;

/// One mutator of table 3: builds its share of the live set, then replaces
/// random nodes (making garbage at the allocation rate) for `seconds`.
/// Returns (operations, longest operation in ns).
fn pause_mutator<B: BarrierSet>(heap: &Heap, live_nodes: usize, start: &Start, seconds: u64) -> (u64, u64) {
    let mut m = heap.mutator::<B>().expect("the heap's barrier set");
    let chunk_len = (heap.max_object_words() - 3).min(4000);
    let chunks = live_nodes.div_ceil(chunk_len);
    let spine = m.alloc(chunks, 0).expect("spine");
    for c in 0..chunks {
        let d = m.roots_len();
        let chunk = m.alloc(chunk_len, 0).expect("chunk");
        for i in 0..chunk_len {
            let d2 = m.roots_len();
            let n = m
                .alloc(NODE_REFS, NODE_DATA)
                .expect("live set fits in half the heap");
            let (ch, o) = (m.get(chunk).unwrap(), m.get(n).unwrap());
            m.write(o, 0, i).unwrap();
            m.store(ch, i, Some(o)).unwrap();
            m.truncate_roots(d2);
        }
        let (sp, ch) = (m.get(spine).unwrap(), m.get(chunk).unwrap());
        m.store(sp, c, Some(ch)).unwrap();
        m.truncate_roots(d);
    }
    let deadline = m.safe_region(|| start.arrive_and_wait()) + Duration::from_secs(seconds);
    let mut x = 0x9E37_79B9_7F4A_7C15usize ^ (live_nodes << 3);
    let (mut ops, mut worst) = (0u64, 0u64);
    while Instant::now() < deadline {
        let t = Instant::now();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let d = m.roots_len();
        let n = m.alloc(NODE_REFS, NODE_DATA).expect("allocation");
        let sp = m.get(spine).unwrap();
        let ch = m.load(sp, x % chunks).unwrap().unwrap();
        let slot = (x >> 20) % chunk_len;
        let old = m.load(ch, slot).unwrap();
        let o = m.get(n).unwrap();
        if let Some(old) = old {
            m.write(o, 0, m.read(old, 0).unwrap().wrapping_add(1)).unwrap();
        }
        m.store(o, 0, old).unwrap();
        m.store(ch, slot, Some(o)).unwrap();
        // The new node links to the old one: drop that link next time, so
        // the live set stays the same size.
        m.store(o, 0, None).unwrap();
        m.truncate_roots(d);
        worst = worst.max(t.elapsed().as_nanos() as u64);
        ops += 1;
    }
    (ops, worst)
}

/// What table 3 runs: heap size, churn time, mutator threads.
#[derive(Clone, Copy)]
struct PauseRun {
    heap_mib: usize,
    seconds: u64,
    mutators: usize,
}

fn pauses_for<B: BarrierSet>(
    name: &str,
    run: PauseRun,
    results: &mut Vec<BenchResult>,
    t: &mut Table,
) -> anyhow::Result<()> {
    let PauseRun {
        heap_mib,
        seconds,
        mutators,
    } = run;
    let bits: BarrierBits = name.parse()?;
    let heap = Heap::new(HeapConfig::new(heap_mib << 20, bits, GcMode::Concurrent))?;
    let live_bytes = (heap_mib << 20) / 2;
    let per_mutator = live_bytes / ((3 + NODE_REFS + NODE_DATA) * 8) / mutators;
    let start = Start::default();
    let (before, stats, ops, worst) = std::thread::scope(|s| {
        let handles: Vec<_> = (0..mutators)
            .map(|_| {
                let (heap, start) = (&heap, &start);
                s.spawn(move || pause_mutator::<B>(heap, per_mutator, start, seconds))
            })
            .collect();
        // Wait for every mutator's live set (or for a mutator's failure).
        while start.ready() < mutators && !handles.iter().any(|h| h.is_finished()) {
            std::thread::sleep(Duration::from_millis(1));
        }
        let before = heap.stats().pauses.len();
        start.go();
        let results: Vec<(u64, u64)> = handles.into_iter().map(|h| h.join().expect("mutator")).collect();
        let ops: u64 = results.iter().map(|r| r.0).sum();
        let worst = results.iter().map(|r| r.1).max().unwrap_or(0);
        (before, heap.stats(), ops, worst)
    });
    let measured = &stats.pauses[before..];
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let pauses: Vec<f64> = measured.iter().map(|p| ms(p.duration)).collect();
    let work: Vec<f64> = measured.iter().map(|p| ms(p.work)).collect();
    let cpu: Vec<f64> = measured.iter().map(|p| ms(p.work_cpu_time)).collect();
    let ttsp: Vec<f64> = measured.iter().map(|p| ms(p.time_to_safepoint)).collect();
    let max = |v: &[f64]| v.iter().cloned().fold(0.0, f64::max);
    let worst_kind = measured
        .iter()
        .max_by(|a, b| a.duration.cmp(&b.duration))
        .map_or("-".to_string(), |p| format!("{:?}", p.kind));
    let s = Stats::from_samples(if pauses.is_empty() {
        vec![f64::NAN]
    } else {
        pauses.clone()
    });
    let w = Stats::from_samples(if work.is_empty() {
        vec![f64::NAN]
    } else {
        work.clone()
    });
    t.row(vec![
        name.into(),
        pauses.len().to_string(),
        format!("{:.3}", s.percentile(50.0)),
        format!("{:.3}", s.percentile(99.0)),
        format!("{:.3}", max(&pauses)),
        format!("{:.3}", w.percentile(99.0)),
        format!("{:.3}", max(&work)),
        format!("{:.3}", max(&cpu)),
        format!("{:.3}", max(&ttsp)),
        worst_kind,
        stats.cycles.to_string(),
        ops.to_string(),
        format!("{:.2}", worst as f64 / 1e6),
    ]);
    if pauses.is_empty() {
        return Ok(());
    }
    results.push(
        BenchResult::new("gc", "concurrent-pause", Mode::SampleTime, &s, "ms")
            .param("barriers", name)
            .threads(mutators as u32),
    );
    Ok(())
}

/// The start line of table 3: mutators build their live sets, arrive, and
/// wait (in a safe region, so cycles go on) for the measured churn to start.
#[derive(Default)]
struct Start {
    ready: std::sync::atomic::AtomicUsize,
    go: std::sync::Mutex<Option<Instant>>,
    cv: std::sync::Condvar,
}

impl Start {
    fn arrive_and_wait(&self) -> Instant {
        // Relaxed: a count polled by the coordinator; the start time is
        // handed over under the mutex.
        self.ready.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut go = self.go.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(t) = *go {
                return t;
            }
            go = self.cv.wait(go).unwrap_or_else(|e| e.into_inner());
        }
    }
    fn ready(&self) -> usize {
        self.ready.load(std::sync::atomic::Ordering::Relaxed)
    }
    fn go(&self) {
        *self.go.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
        self.cv.notify_all();
    }
}

fn pauses(
    quick: bool,
    heap_mib: Option<usize>,
    mutators: Option<usize>,
    results: &mut Vec<BenchResult>,
) -> anyhow::Result<Table> {
    let heap_mib = heap_mib.unwrap_or(if quick { 32 } else { 256 });
    let seconds = if quick { 1 } else { 10 };
    let mutators = mutators.unwrap_or(4).max(1);
    let run = PauseRun {
        heap_mib,
        seconds,
        mutators,
    };
    let mut t = Table::new(
        format!("Concurrent mode: pauses (ms, from request to release, time-to-safepoint included), {mutators} mutators, {heap_mib} MiB heap, half live"),
        &[
            "set",
            "pauses",
            "p50",
            "p99",
            "max",
            "p99 work",
            "max work",
            "max work CPU",
            "max TTSP",
            "longest",
            "cycles",
            "mutator ops",
            "longest op (ms)",
        ],
    );
    pauses_for::<gc::ShenandoahBarriers>("shenandoah", run, results, &mut t)?;
    pauses_for::<gc::Shenandoah2017Barriers>("shenandoah-2017", run, results, &mut t)?;
    t.note(format!(
        "{seconds} s of churn per set after building the live set; {} CPUs here, shared with the collector thread (and anything else running).",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    ));
    t.note("work: the pause's own work, wall time, without the time-to-safepoint (waiting for the last mutator to stop) and the release;");
    t.note("work CPU: the CPU time of that work on the collector thread (less than its wall time when the thread was descheduled).");
    t.note("longest op: the slowest single mutator operation (allocation included), which also catches allocation stalls outside pauses.");
    Ok(t)
}

impl Experiment for Gc {
    fn name(&self) -> &'static str {
        "gc"
    }

    fn about(&self) -> &'static str {
        "GC barrier sets (seed 003): passive throughput per set, fast-path instructions, concurrent pauses"
    }

    fn args(&self, cmd: ClapCommand) -> ClapCommand {
        cmd.arg(
            Arg::new("only")
                .long("only")
                .value_parser(["throughput", "fast-paths", "pauses"])
                .help("Run one table only"),
        )
        .arg(
            Arg::new("check")
                .long("check")
                .action(ArgAction::SetTrue)
                .help("Fail if a fast path exceeds its instruction limit"),
        )
        .arg(
            Arg::new("heap-mib")
                .long("heap-mib")
                .value_parser(value_parser!(usize))
                .help("Heap size of the pause table (default 256, quick 32)"),
        )
        .arg(
            Arg::new("mutators")
                .long("mutators")
                .value_parser(value_parser!(usize))
                .help("Mutator threads of the pause table (default 4)"),
        )
    }

    fn run(&self, ctx: &Context) -> anyhow::Result<Report> {
        let only: Option<String> = ctx.option("only");
        let check = ctx.option::<bool>("check").unwrap_or(false);
        let want = |t: &str| only.as_deref().map_or(true, |o| o == t);
        let mut report = Report::default();
        if want("fast-paths") {
            report.tables.push(fast_paths(check)?);
        }
        if want("throughput") {
            let t = throughput(ctx.quick, &mut report.results)?;
            report.tables.push(t);
        }
        if want("pauses") {
            let t = pauses(
                ctx.quick,
                ctx.option("heap-mib"),
                ctx.option("mutators"),
                &mut report.results,
            )?;
            report.tables.push(t);
        }
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_objdump_fast_paths() {
        let text = "\
0000000000001000 <fastpath::gc::probe::probe_load_lrb>:
    1000:\tmov    0x10(%rsi),%rax
    1004:\tmov    0x10(%rdi),%rcx
    1008:\ttestb  $0x4,(%rcx)
    100b:\tjne    100e <fastpath::gc::probe::probe_load_lrb+0xe>
    100d:\tret
    100e:\tjmp    *0x0(%rip)        # 1014 <x>

0000000000002000 <fastpath::gc::probe::probe_load_none>:
    2000:\tmov    0x10(%rsi),%rax
    2004:\tret
";
        let p = parse_fast_paths(text);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].probe, "probe_load_lrb");
        assert_eq!(p[0].instructions.len(), 5);
        assert_eq!(p[0].instructions[2], "testb $0x4,(%rcx)");
        assert_eq!(p[1].instructions, vec!["mov 0x10(%rsi),%rax", "ret"]);
    }

    #[test]
    fn throughput_rows_run_and_agree_on_names() {
        let mut rows = throughput_rows().unwrap();
        for r in rows.iter_mut() {
            assert!((r.run)(1000) > 0.0, "{}", r.name);
            assert!(r.name.parse::<BarrierBits>().is_ok());
        }
    }
}
