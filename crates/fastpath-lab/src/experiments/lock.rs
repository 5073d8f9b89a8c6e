//! `fastpath lock`: the cost of fast-locking (seed 001), against a bare
//! CAS pair measured in the same run.
//!
//! Rows:
//! - `cas-pair` (baseline): CAS 01→00 then CAS 00→01 on a word, Acquire /
//!   Release, as the fast paths do, with no lock-stack and no checks.
//! - `uncontended`: `sync::enter` + `sync::exit` on one object.
//! - `recursive`: the same pair while the object is already held (no CAS:
//!   the lock-stack's consecutive-run recursion). Goal ≤ 0.35× the baseline.
//! - `churn`: a fresh object per lock+unlock (HotSpot's reason to keep
//!   fast-locking at all: StringBuffer-style single-use locks).
//! - `monitor-mode`: `uncontended` on a thread in monitor-only mode (every
//!   lock an inflated monitor), for scale.
//! - `monitor-churn`: `churn` in monitor-only mode: a monitor allocated,
//!   registered and freed per object.
//! - `contended-2t`: two threads hammering one object (wall time per lock
//!   pair, both threads' pairs counted).

use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use fastpath::config::LockingMode;
use fastpath::sync::{self, Header, InflateCause, Synchronized};

use super::{Context, Experiment};
use crate::harness::{black_box, measure_ns_per_op, progress, Settings, Stats};
use crate::report::table::{num, ratio, score};
use crate::report::{BenchResult, Metric, Mode, Report, Table};

/// The experiment.
pub struct Lock;

const NAME: &str = "lock";

#[inline(never)]
fn cas_pair(word: &AtomicUsize, n: u64) {
    for _ in 0..n {
        let w = black_box(word);
        // The orderings of a lock's fast path, so the baseline pays what a
        // lock must: Acquire on taking, Release on giving back; the load and
        // the failure orderings are Relaxed because the CAS validates them.
        let v = w.load(Ordering::Relaxed);
        if w.compare_exchange(v, v & !3, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            let _ = w.compare_exchange(v & !3, v, Ordering::Release, Ordering::Relaxed);
        }
    }
}

#[inline(never)]
fn lock_pairs(h: std::pin::Pin<&Header>, n: u64) {
    for _ in 0..n {
        let h = black_box(h);
        sync::enter(h);
        let _ = sync::exit(h);
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

fn synchronized(s: &Settings) -> Stats {
    let v = pin!(Synchronized::new(0u64));
    measure_ns_per_op(s, |n| synchronized_pairs(v.as_ref(), n))
}

fn uncontended(s: &Settings) -> Stats {
    let h = pin!(Header::new());
    measure_ns_per_op(s, |n| lock_pairs(h.as_ref(), n))
}

fn recursive(s: &Settings) -> Stats {
    let h = pin!(Header::new());
    let _outer = sync::lock(h.as_ref());
    measure_ns_per_op(s, |n| lock_pairs(h.as_ref(), n))
}

/// Runs `f` on a fresh thread in monitor-only mode.
fn in_monitor_mode<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> anyhow::Result<R> {
    std::thread::spawn(move || {
        sync::set_current_thread_locking_mode(LockingMode::Monitor)
            .map_err(|e| anyhow::anyhow!("monitor mode: {e}"))?;
        Ok(f())
    })
    .join()
    .map_err(|_| anyhow::anyhow!("monitor-mode thread panicked"))?
}

fn contended(s: &Settings) -> Stats {
    let h = Arc::pin(Header::new());
    let samples = (0..s.iterations.max(2))
        .map(|_| {
            let stop = Arc::new(AtomicBool::new(false));
            let h2 = h.clone();
            let stop2 = stop.clone();
            let other = std::thread::spawn(move || {
                let mut n = 0u64;
                // Relaxed: the flag only ends the loop; join() publishes `n`.
                while !stop2.load(Ordering::Relaxed) {
                    lock_pairs(h2.as_ref(), 64);
                    n += 64;
                }
                n
            });
            let t = Instant::now();
            let mut mine = 0u64;
            while t.elapsed() < s.iteration_time {
                lock_pairs(h.as_ref(), 64);
                mine += 64;
            }
            stop.store(true, Ordering::Relaxed);
            let theirs = other.join().unwrap_or(0);
            t.elapsed().as_nanos() as f64 / (mine + theirs).max(1) as f64
        })
        .collect();
    Stats::from_samples(samples)
}

impl Experiment for Lock {
    fn name(&self) -> &'static str {
        NAME
    }

    fn about(&self) -> &'static str {
        "Fast-locking: uncontended, recursive, churn, monitor mode and contended lock+unlock vs a bare CAS pair"
    }

    fn run(&self, ctx: &Context) -> anyhow::Result<Report> {
        let s = ctx.settings();
        let stats0 = sync::stats();
        let word = AtomicUsize::new(1);
        let bar = progress(8, "lock");
        let base = measure_ns_per_op(&s, |n| cas_pair(&word, n));
        bar.inc(1);
        let mut rows: Vec<(&str, &str, Stats, &str)> = vec![("cas-pair", "baseline", base.clone(), "1.00×")];
        rows.push(("uncontended", "lightweight", uncontended(&s), "≤ 1.15×"));
        bar.inc(1);
        rows.push(("recursive", "lightweight", recursive(&s), "≤ 0.35×"));
        bar.inc(1);
        rows.push(("churn", "lightweight", measure_ns_per_op(&s, churn), "-"));
        bar.inc(1);
        rows.push(("synchronized", "lightweight", synchronized(&s), "-"));
        bar.inc(1);
        let s2 = s;
        rows.push((
            "monitor-mode",
            "monitor",
            in_monitor_mode(move || uncontended(&s2))?,
            "-",
        ));
        bar.inc(1);
        rows.push((
            "monitor-churn",
            "monitor",
            in_monitor_mode(move || measure_ns_per_op(&s2, churn))?,
            "-",
        ));
        bar.inc(1);
        rows.push(("contended-2t", "lightweight", contended(&s), "-"));
        bar.inc(1);
        bar.finish_and_clear();
        let inflations = sync::stats().since(&stats0);

        let mut t = Table::new(
            "Lock + unlock pair, ns/op (lower is better); ratio against the CAS pair of this run",
            &["workload", "mode", "ns/op", "median", "ratio", "goal"],
        );
        let mut results = Vec::new();
        for (name, mode, st, goal) in &rows {
            t.row(vec![
                name.to_string(),
                mode.to_string(),
                score(st.mean, st.error),
                num(st.median),
                ratio(st.median, base.median),
                goal.to_string(),
            ]);
            results.push(
                BenchResult::new(NAME, name, Mode::AverageTime, st, "ns/op")
                    .param("mode", mode)
                    .threads(if *name == "contended-2t" { 2 } else { 1 })
                    .secondary("ratio_to_cas_pair", Metric::single(st.median / base.median, "x")),
            );
        }
        t.note("ratio = median / median of cas-pair, both measured in this run");
        t.note(format!(
            "monitors installed during the run: {} (lightweight rows add only the one contended object; monitor-mode rows one per fresh object); by cause: {}",
            inflations.monitors_installed(),
            InflateCause::ALL
                .iter()
                .map(|c| format!("{}={}", c.name(), inflations.inflations_by(*c)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        t.note("contended-2t: 2 threads on 2 shared vCPUs; noisy, for scale only");
        Ok(Report {
            tables: vec![t],
            results,
            plots: vec![],
        })
    }
}
