//! `fastpath lock`: the cost of fast-locking (seed 001), against a bare
//! CAS pair and the locks a Rust user would otherwise pick, measured in the
//! same run; seed 001's workloads by locking mode; contention by thread
//! count. `--only pairs|workloads|contended` runs one table,
//! `--threads N` adds thread counts to the contended one.
//!
//! The first table's rows:
//! - `cas-pair` (baseline): CAS 01→00 then CAS 00→01 on a word, Acquire /
//!   Release, as the fast paths do, with no lock-stack and no checks.
//! - `uncontended`: `sync::enter` + `sync::exit` on one object.
//! - `guard`: `sync::lock` and the guard's drop (the safe API's pair).
//! - `cranelift-guessing`: the pair fastpath-cranelift's guessing emitters
//!   make, in a Cranelift-compiled loop ([`clif_pair`]).
//! - `after-deflation`: `uncontended` on an object that was inflated (a
//!   zero-timeout `wait`) and deflated again (`sync::deflate_idle_monitors`)
//!   before timing: the goal "after deflation an object locks at
//!   fast-lock cost again".
//! - `recursive`: the same pair while the object is already held (no CAS:
//!   the lock-stack's consecutive-run recursion). Goal ≤ 0.35× the baseline.
//! - `churn`: a fresh object per lock+unlock (HotSpot's reason to keep
//!   fast-locking at all: StringBuffer-style single-use locks).
//! - `synchronized`: `Synchronized<u64>` lock, increment through the guard,
//!   unlock (the convenience type's bookkeeping over the raw header).
//! - `monitor-mode`: `uncontended` on a thread in monitor-only mode (every
//!   lock an inflated monitor), for scale.
//! - `monitor-churn`: `churn` in monitor-only mode: a monitor allocated,
//!   registered and freed per object.
//! - `contended-2t`: two threads hammering one object (wall time per lock
//!   pair, both threads' pairs counted).
//! - The peers a Rust user would otherwise pick, same run:
//!   `parking-lot-mutex`, `parking-lot-reentrant`, `std-mutex` lock+unlock
//!   beside `uncontended`, `parking-lot-reentrant-recursive` beside
//!   `recursive`, and `parking-lot-mutex-u64`, `std-mutex-u64` (lock,
//!   increment, unlock) beside `synchronized`. The `× best peer` column sets each fastpath row against
//!   the best of them; the goal column says pass or FAIL, and the note
//!   under the table gives the measured ratios beside the goal's limits.
//!
//! The rows are measured interleaved ([`measure_rows`]): 60 short samples
//! each in quick mode, one per round, the rows shuffled every round, each
//! single-threaded sample on an object made for it at a random stack depth
//! ([`fresh`]); a row's figure is the median of its samples, which a
//! preempted sample does not move. Two runs of one build then agree within
//! a few percent on a loaded machine (README, the first comparison).
//!
//! Then two more tables, each in its own file: [`workloads`] (seed 001's
//! comparison by locking mode, workload by workload) and [`contended`]
//! (the thread-count sweep against the peers).
//! With `--prof perfnorm`, every row also gets its counters per operation
//! ([`profile`]): the single-threaded rows re-run their measured loop alone,
//! the multi-threaded ones say why they cannot be counted.
//! `lock/mca/` holds the fast paths' instruction sequences, copied from the
//! release binary, for `llvm-mca` (BENCHMARKS.md has the commands).

pub mod clif_pair;
pub mod contended;
pub mod profile;
pub mod workloads;

use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use fastpath::sync::LockingMode;
use fastpath::sync::{self, Header, Synchronized};

use clap::{Arg, ArgAction, Command};

use crate::experiment::{Context, Experiment};
use crate::harness::baseline::cas_pair;
use crate::harness::interleave::{batched, fresh, measure_rows, row, Plan, Sampler};
use crate::harness::perfnorm::{ProfileTable, Profiler, Region};
use crate::harness::{black_box, progress};
use crate::report::table::{num, ratio, score};
use crate::report::{BenchResult, Metric, Mode, Report, Table};
use crate::stats::Stats;

/// The experiment.
pub struct Lock;

const NAME: &str = "lock";

#[inline(never)]
fn lock_pairs(h: std::pin::Pin<&Header>, n: u64) {
    for _ in 0..n {
        let h = black_box(h);
        sync::enter(h);
        let _ = sync::exit(h);
    }
}

/// `sync::lock` and the guard's drop: the safe API's pair, what a Rust
/// user of `Header` writes.
#[inline(never)]
fn guard_pairs(h: std::pin::Pin<&Header>, n: u64) {
    for _ in 0..n {
        drop(sync::lock(black_box(h)));
    }
}

#[inline(never)]
fn churn(n: u64) {
    for _ in 0..n {
        let h = pin!(Header::new());
        let h = black_box(h.as_ref());
        sync::enter(h);
        let _ = sync::exit(h);
    }
}

/// `Synchronized<u64>`: lock, increment through the guard, unlock. Beside
/// `uncontended`, the price of the convenience type (its guard bookkeeping
/// for thread exit) over the raw header.
#[inline(never)]
fn synchronized_pairs(v: std::pin::Pin<&Synchronized<u64>>, n: u64) {
    for _ in 0..n {
        if let Ok(mut g) = black_box(v).lock() {
            *g += 1;
        }
    }
}

/// An object that had a monitor and was deflated: inflate it (a `wait`
/// needs one), deflate every idle monitor, check it went back to the
/// header. Errors if it did not (a deflation that left the monitor would
/// time the monitor path under this row's name).
fn deflated_header() -> anyhow::Result<std::pin::Pin<Box<Header>>> {
    let h = Box::pin(Header::new());
    {
        let g = sync::lock(h.as_ref());
        match g.wait(Some(std::time::Duration::ZERO)) {
            Ok(()) | Err(sync::SyncError::TimedOut) => {}
            Err(e) => anyhow::bail!("after-deflation: wait to inflate: {e}"),
        }
    }
    anyhow::ensure!(h.is_inflated(), "after-deflation: the wait did not inflate");
    sync::deflate_idle_monitors();
    anyhow::ensure!(
        !h.is_inflated(),
        "after-deflation: the idle monitor was not deflated"
    );
    Ok(h)
}

#[inline(never)]
fn mutex_pairs<T>(m: &parking_lot::Mutex<T>, n: u64) {
    for _ in 0..n {
        drop(black_box(m).lock());
    }
}

#[inline(never)]
fn reentrant_pairs<T>(m: &parking_lot::ReentrantMutex<T>, n: u64) {
    for _ in 0..n {
        drop(black_box(m).lock());
    }
}

#[inline(never)]
fn std_pairs<T>(m: &std::sync::Mutex<T>, n: u64) {
    for _ in 0..n {
        drop(black_box(m).lock());
    }
}

/// `synchronized`'s loop on parking_lot's mutex: lock, increment through
/// the guard, unlock.
#[inline(never)]
fn mutex_bumps(m: &parking_lot::Mutex<u64>, n: u64) {
    for _ in 0..n {
        *black_box(m).lock() += 1;
    }
}

/// `synchronized`'s loop on std's mutex.
#[inline(never)]
fn std_bumps(m: &std::sync::Mutex<u64>, n: u64) {
    for _ in 0..n {
        // A poisoned lock still counts: poisoning marks a panic, not a race.
        *black_box(m).lock().unwrap_or_else(|e| e.into_inner()) += 1;
    }
}

/// A goal: at most `cas` × the CAS pair and, where given, at most `peer` ×
/// the best peer.
#[derive(Clone, Copy)]
struct Goal {
    cas: f64,
    peer: Option<f64>,
}

impl Goal {
    fn text(self) -> String {
        match self.peer {
            Some(p) => format!("≤ {:.2}× cas, ≤ {p:.2}× peer", self.cas),
            None => format!("≤ {:.2}× cas", self.cas),
        }
    }

    /// "pass" or "FAIL" (marked `*`: the note under the table holds the
    /// ratios and limits).
    fn verdict(self, to_cas: f64, to_peer: f64) -> &'static str {
        if self.met(to_cas, to_peer) {
            "pass*"
        } else {
            "FAIL*"
        }
    }

    fn met(self, to_cas: f64, to_peer: f64) -> bool {
        to_cas <= self.cas && self.peer.is_none_or(|p| to_peer <= p)
    }

    /// "pass" or "FAIL", with the measured ratios beside the goal's
    /// limits: `FAIL (1.21× cas, 1.05× peer; goal ≤ 1.15× cas, ≤ 1.10× peer)`.
    fn mark(self, to_cas: f64, to_peer: f64) -> String {
        let ok = self.met(to_cas, to_peer);
        let measured = match self.peer {
            Some(_) => format!("{to_cas:.2}× cas, {to_peer:.2}× peer"),
            None => format!("{to_cas:.2}× cas"),
        };
        format!(
            "{} ({measured}; goal {})",
            if ok { "pass" } else { "FAIL" },
            self.text()
        )
    }
}

/// The uncontended goals: against the CAS pair and against the peers.
const UNCONTENDED_GOAL: Goal = Goal {
    cas: 1.15,
    peer: Some(1.10),
};
/// Seed 001's recursive goal; no regression against the peer.
const RECURSIVE_GOAL: Goal = Goal {
    cas: 0.35,
    peer: None,
};

/// The measured loop of pairs row `row` as a profiler region (id
/// `pairs/<row>`), on state it owns; `None` for an unknown row. Rows whose
/// timed loop runs inside an outer hold or a mode take it once per run
/// (spread over [`profile::PROFILED_OPS`] operations).
fn pair_region(row: &str) -> Option<profile::RowRegion> {
    use profile::PROFILED_OPS as OPS;
    let header = || Box::pin(Header::new());
    let monitor = || profile::ModeScope::enter(LockingMode::Monitor);
    Some(Ok(match row {
        "cas-pair" => {
            let word = AtomicUsize::new(1);
            Region::new(OPS, move |n| cas_pair(&word, n, || {}))
        }
        "uncontended" => {
            let h = header();
            Region::new(OPS, move |n| lock_pairs(h.as_ref(), n))
        }
        "guard" => {
            let h = header();
            Region::new(OPS, move |n| guard_pairs(h.as_ref(), n))
        }
        "cranelift-guessing" => {
            let pair = match clif_pair::ClifPair::compile() {
                Ok(p) => p,
                Err(e) => return Some(profile::not_profiled(e.to_string())),
            };
            let h = header();
            Region::new(OPS, move |n| pair.run(h.as_ref(), n))
        }
        "after-deflation" => match deflated_header() {
            Ok(h) => Region::new(OPS, move |n| lock_pairs(h.as_ref(), n)),
            Err(e) => return Some(profile::not_profiled(e.to_string())),
        },
        "recursive" => {
            let h = header();
            Region::new(OPS, move |n| {
                let _outer = sync::lock(h.as_ref());
                lock_pairs(h.as_ref(), n)
            })
        }
        "churn" => Region::new(OPS, churn),
        "synchronized" => {
            let v = Box::pin(Synchronized::new(0u64));
            Region::new(OPS, move |n| synchronized_pairs(v.as_ref(), n))
        }
        "monitor-mode" => {
            let (mode, h) = match monitor() {
                Ok(m) => (m, header()),
                Err(e) => return Some(Err(e)),
            };
            Region::new(OPS, move |n| {
                let _mode = &mode;
                lock_pairs(h.as_ref(), n)
            })
        }
        "monitor-churn" => {
            let mode = match monitor() {
                Ok(m) => m,
                Err(e) => return Some(Err(e)),
            };
            Region::new(OPS, move |n| {
                let _mode = &mode;
                churn(n)
            })
        }
        "contended-2t" => return Some(profile::multi_threaded(2)),
        "parking-lot-mutex" => {
            let m = parking_lot::Mutex::new(());
            Region::new(OPS, move |n| mutex_pairs(&m, n))
        }
        "parking-lot-reentrant" => {
            let m = parking_lot::ReentrantMutex::new(());
            Region::new(OPS, move |n| reentrant_pairs(&m, n))
        }
        "std-mutex" => {
            let m = std::sync::Mutex::new(());
            Region::new(OPS, move |n| std_pairs(&m, n))
        }
        "parking-lot-reentrant-recursive" => {
            let m = parking_lot::ReentrantMutex::new(());
            Region::new(OPS, move |n| {
                let _outer = m.lock();
                reentrant_pairs(&m, n)
            })
        }
        "parking-lot-mutex-u64" => {
            let m = parking_lot::Mutex::new(0u64);
            Region::new(OPS, move |n| mutex_bumps(&m, n))
        }
        "std-mutex-u64" => {
            let m = std::sync::Mutex::new(0u64);
            Region::new(OPS, move |n| std_bumps(&m, n))
        }
        _ => return profile::pair_region(row),
    }))
}

/// One sample of `contended-2t`: a second thread hammers `h` while this
/// one does for `time`; wall nanoseconds per pair, both threads' pairs
/// counted.
fn contended_sample(h: &std::pin::Pin<Arc<Header>>, time: std::time::Duration) -> Result<f64, String> {
    let stop = Arc::new(AtomicBool::new(false));
    let (h2, stop2) = (h.clone(), stop.clone());
    let other = std::thread::Builder::new()
        .name("contended-2t".into())
        .spawn(move || {
            let mut n = 0u64;
            // Relaxed: the flag only ends the loop; join() publishes `n`.
            while !stop2.load(Ordering::Relaxed) {
                lock_pairs(h2.as_ref(), 64);
                n += 64;
            }
            n
        })
        .map_err(|e| format!("contended-2t: starting its second thread: {e}"))?;
    let t = Instant::now();
    let mut mine = 0u64;
    while t.elapsed() < time {
        lock_pairs(h.as_ref(), 64);
        mine += 64;
    }
    stop.store(true, Ordering::Relaxed);
    let theirs = other
        .join()
        .map_err(|_| "contended-2t: its second thread panicked".to_string())?;
    Ok(t.elapsed().as_nanos() as f64 / (mine + theirs).max(1) as f64)
}

/// A sampler that runs `inner` on this thread switched to `mode` for the
/// sample (the switch is outside the timing).
fn in_mode<'a>(mode: LockingMode, mut inner: impl FnMut(&Plan) -> f64 + 'a) -> Sampler<'a> {
    Box::new(move |plan| {
        let _mode = profile::ModeScope::enter(mode)?;
        Ok(inner(plan))
    })
}

/// The most threads `--threads` takes: far past any contention curve worth
/// plotting, and far below the thousands at which spawning fails (each
/// thread maps a stack and its guard page).
pub const MAX_THREADS: usize = 1024;

impl Experiment for Lock {
    fn name(&self) -> &'static str {
        NAME
    }

    fn about(&self) -> &'static str {
        "Locking: fast paths vs a CAS pair and parking_lot/std, seed 001's workloads by mode, contention by thread count"
    }

    fn args(&self, cmd: Command) -> Command {
        cmd.arg(
            Arg::new("threads")
                .long("threads")
                .value_name("N")
                .value_parser(clap::builder::RangedI64ValueParser::<usize>::new().range(1..=MAX_THREADS as i64))
                .action(ArgAction::Append)
                .help("Also run the contended table at N threads, 1 to 1024 (repeatable); default 1, 2, 4, … up to 2× the CPUs"),
        )
        .arg(
            Arg::new("only")
                .long("only")
                .value_name("TABLE")
                .value_parser(["pairs", "workloads", "contended"])
                .help("Run one table: pairs (against the CAS pair and the peers), workloads (seed 001 by locking mode) or contended (by thread count)"),
        )
    }

    fn perfnorm_region(&self, id: &str) -> Option<Region<'static>> {
        let region = match id.split_once('/')? {
            ("pairs", row) => pair_region(row),
            ("workloads", rest) => workloads::region(rest),
            _ => None,
        };
        region?.ok()
    }

    fn run(&self, ctx: &Context) -> anyhow::Result<()> {
        let prof = ctx.profiler(self.name())?;
        let only = ctx.option::<String>("only");
        let wanted = |table: &str| only.as_deref().is_none_or(|o| o == table);
        // Each table (with its counters table, when profiled) is kept as
        // soon as it is measured, with the inflations it caused.
        let keep = |(mut tables, results): (Vec<Table>, Vec<BenchResult>), before: sync::SyncStats| {
            let inflations = sync::stats().since(&before);
            if let Some(t) = tables.first_mut() {
                // `SyncStats`' Display labels each cause.
                t.note(format!("during this table: {inflations}"));
            }
            ctx.keep(Report {
                tables,
                results,
                plots: Vec::new(),
            })
        };
        if wanted("pairs") {
            let before = sync::stats();
            keep(pairs(ctx, prof.as_ref())?, before)?;
        }
        if wanted("workloads") {
            let before = sync::stats();
            keep(workloads::run(&Plan::new(ctx.quick), prof.as_ref())?, before)?;
        }
        if wanted("contended") {
            let before = sync::stats();
            let extra: Vec<usize> = ctx
                .matches
                .try_get_many::<usize>("threads")
                .ok()
                .flatten()
                .map(|v| v.copied().collect())
                .unwrap_or_default();
            let counts = contended::thread_counts(workloads::cpus(), &extra);
            let plan = if ctx.quick {
                contended::Plan::QUICK
            } else {
                contended::Plan::FULL
            };
            let (t, r, lost) = contended::run(&counts, plan, prof.as_ref());
            anyhow::ensure!(
                lost == 0,
                "a lock lost {lost} updates in the contended table: mutual exclusion is broken"
            );
            keep((t, r), before)?;
        }
        Ok(())
    }
}

/// The mode column of the pairs rows that run in the measuring thread's
/// own locking mode (`FASTPATH_LOCKING_MODE`, or what the thread was set
/// to): [`mode_label`] replaces it with the mode the library reports.
const THREAD_MODE: &str = "thread";

/// The pairs table's rows: name, mode column, goal.
const PAIR_ROWS: [(&str, &str, Option<Goal>); 18] = [
    ("cas-pair", "baseline", None),
    ("uncontended", THREAD_MODE, Some(UNCONTENDED_GOAL)),
    (profile::ON_ROW, THREAD_MODE, None),
    ("guard", THREAD_MODE, None),
    ("cranelift-guessing", THREAD_MODE, None),
    ("after-deflation", THREAD_MODE, None),
    ("recursive", THREAD_MODE, Some(RECURSIVE_GOAL)),
    ("churn", THREAD_MODE, None),
    ("synchronized", THREAD_MODE, None),
    ("monitor-mode", "monitor", None),
    ("monitor-churn", "monitor", None),
    // Its second thread registers with the process-wide mode, which is
    // the measuring thread's own (the lab never switches it for long).
    ("contended-2t", THREAD_MODE, None),
    ("parking-lot-mutex", "peer", None),
    ("parking-lot-reentrant", "peer", None),
    ("std-mutex", "peer", None),
    ("parking-lot-reentrant-recursive", "peer", None),
    ("parking-lot-mutex-u64", "peer", None),
    ("std-mutex-u64", "peer", None),
];

/// The label of a pairs row's mode column: [`THREAD_MODE`] becomes the
/// mode the measuring thread ran (`thread_mode`, as
/// [`sync::current_thread_locking_mode`] reports it), so that runs in
/// different modes never pair as one row in `compare`; other columns
/// (`baseline`, `peer`, `monitor`) name themselves.
fn mode_label(column: &'static str, thread_mode: LockingMode) -> &'static str {
    if column == THREAD_MODE {
        thread_mode.name()
    } else {
        column
    }
}

/// The seed of the pairs table's sampling order (fixed: two runs sample
/// in the same order).
const PAIRS_SEED: u64 = 0x0010_C4ED;

/// Measures the pairs table's rows, interleaved ([`measure_rows`]): every
/// row holds its state (a header, a mutex) for the whole table and takes
/// one short sample per round; rows that need an outer hold or a mode take
/// it around each sample, outside the timing, so that the thread holds
/// nothing between samples.
fn measure_pairs(plan: &Plan) -> anyhow::Result<Vec<Stats>> {
    let deflated = deflated_header()?;
    let clif = clif_pair::ClifPair::compile()?;
    let ok = |mut f: Box<dyn FnMut(&Plan) -> f64>| -> Sampler<'_> { Box::new(move |p| Ok(f(p))) };
    let mut rows: Vec<Sampler<'_>> = vec![
        ok(Box::new(fresh(
            || AtomicUsize::new(1),
            |w, n| cas_pair(&w, n, || {}),
        ))),
        ok(Box::new(fresh(Header::new, lock_pairs))),
        ok(Box::new(fresh(Header::new, |h, n| {
            profile::lock_pairs_on(fastpath::thread::current(), h, n)
        }))),
        ok(Box::new(fresh(Header::new, guard_pairs))),
        ok(Box::new(fresh(Header::new, |h, n| clif.run(h, n)))),
        row(|n| lock_pairs(deflated.as_ref(), n)),
        ok(Box::new(fresh(Header::new, |h, n| {
            let _outer = sync::lock(h);
            lock_pairs(h, n)
        }))),
        row(churn),
        ok(Box::new(fresh(|| Synchronized::new(0u64), synchronized_pairs))),
        in_mode(LockingMode::Monitor, fresh(Header::new, lock_pairs)),
        in_mode(LockingMode::Monitor, batched(churn)),
        // A fresh object per sample here too: the line the two threads
        // pass between them sits elsewhere in every sample.
        Box::new(|p| contended_sample(&Arc::pin(Header::new()), p.threaded_sample_time)),
        ok(Box::new(fresh(
            || parking_lot::Mutex::new(()),
            |m, n| mutex_pairs(&m, n),
        ))),
        ok(Box::new(fresh(
            || parking_lot::ReentrantMutex::new(()),
            |m, n| reentrant_pairs(&m, n),
        ))),
        ok(Box::new(fresh(
            || std::sync::Mutex::new(()),
            |m, n| std_pairs(&m, n),
        ))),
        ok(Box::new(fresh(
            || parking_lot::ReentrantMutex::new(()),
            |m, n| {
                let _outer = m.lock();
                reentrant_pairs(&m, n)
            },
        ))),
        ok(Box::new(fresh(
            || parking_lot::Mutex::new(0u64),
            |m, n| mutex_bumps(&m, n),
        ))),
        ok(Box::new(fresh(
            || std::sync::Mutex::new(0u64),
            |m, n| std_bumps(&m, n),
        ))),
    ];
    debug_assert_eq!(rows.len(), PAIR_ROWS.len());
    measure_rows(plan, PAIRS_SEED, &mut rows, "lock pairs").map_err(|e| anyhow::anyhow!(e))
}

/// The first table: lock+unlock pairs against the CAS pair and the peers.
/// With a profiler, the table of the rows' counters follows it.
fn pairs(ctx: &Context, prof: Option<&Profiler>) -> anyhow::Result<(Vec<Table>, Vec<BenchResult>)> {
    let plan = Plan::new(ctx.quick);
    let measured = measure_pairs(&plan)?;
    // The rows' loops counted one by one, when profiled.
    let bar = match prof {
        Some(_) => progress(PAIR_ROWS.len() as u64, "lock perfnorm"),
        None => indicatif::ProgressBar::hidden(),
    };
    let stats_of = |name: &str| {
        let i = PAIR_ROWS
            .iter()
            .position(|r| r.0 == name)
            .expect("a row of PAIR_ROWS");
        measured[i].clone()
    };
    let base = stats_of("cas-pair");
    let (pl, st, re_rec) = (
        stats_of("parking-lot-mutex"),
        stats_of("std-mutex"),
        stats_of("parking-lot-reentrant-recursive"),
    );
    // The rows measured on this thread ran in its mode (measure_rows
    // samples on the calling thread; in_mode restores it after each).
    let thread_mode = sync::current_thread_locking_mode();
    let rows: Vec<(&str, &str, Stats, Option<Goal>)> = PAIR_ROWS
        .iter()
        .zip(&measured)
        .map(|(&(name, mode, goal), st)| (name, mode_label(mode, thread_mode), st.clone(), goal))
        .collect();
    let best_uncontended = pl.median.min(st.median);
    let best_recursive = re_rec.median;
    let best_bump = stats_of("parking-lot-mutex-u64")
        .median
        .min(stats_of("std-mutex-u64").median);
    let peer_base = move |name: &str| match name {
        "recursive" => best_recursive,
        "synchronized" => best_bump,
        "contended-2t" => f64::NAN,
        _ => best_uncontended,
    };

    let mut t = Table::new(
            "Lock + unlock pair, ns/op (lower is better); ratio against the CAS pair and the best peer of this run",
            &["workload", "mode", "ns/op (median)", "mean", "ratio", "× best peer", "goal"],
        );
    let mut results = Vec::new();
    let mut verdicts = Vec::new();
    let mut counters = ProfileTable::new("lock + unlock pairs");
    for (name, mode, st, goal) in &rows {
        let to_cas = st.median / base.median;
        let to_peer = st.median / peer_base(name);
        let fastpath_row = *mode != "peer" && *mode != "baseline";
        if let Some(g) = goal {
            verdicts.push(format!("{name} {}", g.mark(to_cas, to_peer)));
        }
        t.row(vec![
            name.to_string(),
            mode.to_string(),
            score(st.median, st.median_error()),
            num(st.mean),
            ratio(st.median, base.median),
            if fastpath_row {
                ratio(st.median, peer_base(name))
            } else {
                "-".into()
            },
            // The verdict alone; the measured ratios and the limits are in
            // the PASS/FAIL note under the table (a column as wide as
            // them would take the table past 120 columns).
            goal.map_or_else(|| "-".into(), |g| g.verdict(to_cas, to_peer).into()),
        ]);
        let mut r = BenchResult::new(NAME, name, Mode::AverageTime, st, "ns/op")
            .param("mode", mode)
            .threads(if *name == "contended-2t" { 2 } else { 1 })
            .secondary("ratio_to_cas_pair", Metric::single(to_cas, "x"));
        if fastpath_row && to_peer.is_finite() {
            r = r.secondary("ratio_to_best_peer", Metric::single(to_peer, "x"));
        }
        if let Some(p) = prof {
            bar.set_message(format!("perfnorm {name}"));
            let region = pair_region(name).unwrap_or_else(|| profile::not_profiled("no region"));
            r = profile::profile_row(p, &mut counters, &format!("pairs/{name}"), region, r);
            bar.inc(1);
        }
        results.push(r);
    }
    // The report's summary reads a goal's verdict from a note that starts
    // with PASS or FAIL.
    if !verdicts.is_empty() {
        let all_pass = verdicts.iter().all(|v| !v.contains("FAIL"));
        t.note(crate::report::timing_verdict(
            all_pass,
            &format!("{} (* in the goal column)", verdicts.join("; ")),
        ));
    }
    t.note("ratio = median / median of cas-pair, both measured in this run");
    t.note("× best peer: uncontended rows against the faster of parking-lot-mutex and std-mutex, recursive against parking-lot-reentrant-recursive (the outer hold taken once), synchronized against the faster of parking-lot-mutex-u64 and std-mutex-u64 (the same increment under the lock); the other peers' rows are lock+unlock of an empty Mutex<()> / ReentrantMutex<()>");
    t.note("contended-2t: 2 threads on 2 shared vCPUs; noisy, for scale only");
    t.note(format!(
        "rows interleaved: {} rounds (after {} warm-up), each row one sample per round in a shuffled order, {} µs per sample ({} ms for contended-2t), each on an object made for the sample at a random stack depth",
        plan.rounds,
        plan.warmup_rounds,
        plan.sample_time.as_micros(),
        plan.threaded_sample_time.as_millis()
    ));
    t.note("ns/op: the median of the samples ± the larger side of its 99.9% interval; mean: the mean of the samples, which a loaded machine's preempted samples pull up (the JSON's score, as JMH's)");

    bar.finish_and_clear();
    let mut tables = vec![t];
    if let Some(p) = prof {
        tables.push(counters.finish(p));
    }
    Ok((tables, results))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_mode_rows_are_labelled_with_the_threads_mode() {
        for m in [
            LockingMode::Lightweight,
            LockingMode::Monitor,
            LockingMode::Legacy,
        ] {
            assert_eq!(mode_label(THREAD_MODE, m), m.name());
            assert_eq!(mode_label("peer", m), "peer");
            assert_eq!(mode_label("monitor", m), "monitor");
        }
        let labels: Vec<_> = PAIR_ROWS
            .iter()
            .map(|r| mode_label(r.1, LockingMode::Monitor))
            .collect();
        assert!(!labels.contains(&"lightweight"), "{labels:?}");
    }
}
