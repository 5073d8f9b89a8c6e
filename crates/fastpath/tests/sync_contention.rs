//! Stress tests of the monitor's contention protocol: spinning
//! only while nobody is queued, parking, the successor wake-up and the
//! eventual-fairness hand-off, with short and long critical sections at 2,
//! 4 and 8 threads, and against deflation passes. Each run is bounded in
//! time and prints the operations it checked and least/most served (the
//! fairness ratio); nothing here asserts a timing or a ratio, only exact
//! counts. Run with `--nocapture` to see the figures.
//!
//! Orderings: every `stop` flag and side counter is Relaxed. A flag only
//! ends a loop (it publishes nothing), and per-thread counts come back
//! through `join`, which synchronizes; what a test checks is protected by
//! the lock under test, never by these atomics.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use fastpath::sync::{self, Synchronized};

mod sync_workloads;
use sync_workloads::{bump, header, Obj};

/// One configuration's run time: 3 thread counts × 2 sections per test.
const RUN: Duration = Duration::from_millis(200);

/// Busy work for about `d` (inside or outside the lock).
fn busy(d: Duration) {
    if d.is_zero() {
        return;
    }
    let t = Instant::now();
    while t.elapsed() < d {
        std::hint::spin_loop();
    }
}

/// The critical-section shapes: short (the counter only, then a little
/// work outside) and long (~20 µs inside, so that waiters queue and park
/// and the fair hand-off has somebody to serve).
const SECTIONS: [(&str, Duration, Duration); 2] = [
    ("short", Duration::ZERO, Duration::from_nanos(200)),
    ("long", Duration::from_micros(20), Duration::ZERO),
];

/// Runs `threads` threads for [`RUN`], each calling `op` (one locked
/// operation) then `outside` work, until told to stop. Returns each
/// thread's count.
fn hammer(threads: usize, outside: Duration, op: impl Fn() + Send + Sync + 'static) -> Vec<u64> {
    let op = Arc::new(op);
    let stop = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(threads + 1));
    let workers: Vec<_> = (0..threads)
        .map(|_| {
            let (op, stop, start) = (op.clone(), stop.clone(), start.clone());
            thread::spawn(move || {
                start.wait();
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    op();
                    n += 1;
                    busy(outside);
                }
                n
            })
        })
        .collect();
    start.wait();
    thread::sleep(RUN);
    stop.store(true, Ordering::Relaxed);
    workers.into_iter().map(|w| w.join().unwrap()).collect()
}

fn fairness(per: &[u64]) -> f64 {
    let least = per.iter().copied().min().unwrap_or(0);
    let most = per.iter().copied().max().unwrap_or(0);
    least as f64 / most.max(1) as f64
}

/// The raw API on a shared header: `sync::enter`, a plain load + store
/// that loses counts unless the lock excludes, `sync::exit`.
#[test]
fn stress_contended_header_counts_exactly() {
    let mut checked = 0;
    for threads in [2, 4, 8] {
        for (name, inside, outside) in SECTIONS {
            let o = Obj::new();
            let o2 = o.clone();
            let per = hammer(threads, outside, move || {
                let h = header(&o2);
                sync::enter(h);
                bump(&o2);
                busy(inside);
                sync::exit(h).unwrap();
            });
            let total: u64 = per.iter().sum();
            assert_eq!(
                o.count.load(Ordering::Relaxed),
                total,
                "{threads} threads, {name}: lost updates"
            );
            checked += total;
            println!(
                "contended header, {threads} threads, {name} section: {total} critical sections, least/most served {:.3}",
                fairness(&per)
            );
        }
    }
    println!("contended header: {checked} critical sections checked in all");
}

/// `Synchronized<u64>` (the guard API the lab's contended table measures),
/// the same shapes.
#[test]
fn stress_contended_synchronized_counts_exactly() {
    let mut checked = 0;
    for threads in [2, 4, 8] {
        for (name, inside, outside) in SECTIONS {
            let s = Arc::pin(Synchronized::new(0u64));
            let s2 = s.clone();
            let per = hammer(threads, outside, move || {
                let mut g = s2.as_ref().lock().unwrap();
                *g += 1;
                busy(inside);
            });
            let total: u64 = per.iter().sum();
            assert_eq!(
                *s.as_ref().lock().unwrap(),
                total,
                "{threads} threads, {name}: lost updates"
            );
            checked += total;
            println!(
                "contended Synchronized, {threads} threads, {name} section: {total} critical sections, least/most served {:.3}",
                fairness(&per)
            );
        }
    }
    println!("contended Synchronized: {checked} critical sections checked in all");
}

/// Contention (queued, handed-off and barging threads) while a deflation
/// pass runs every 200 µs and one thread in four waits briefly inside the
/// lock (so the monitor is also released and re-taken by `wait`): a
/// monitor with a queued or handed-off thread is never deflated under it,
/// and every count survives deflation and re-inflation.
#[test]
fn stress_contention_races_deflation_and_waits() {
    let o = Obj::new();
    let stop = Arc::new(AtomicBool::new(false));
    let deflater = {
        let stop = stop.clone();
        thread::spawn(move || {
            let mut passes = 0u64;
            let mut deflated = 0u64;
            while !stop.load(Ordering::Relaxed) {
                deflated += sync::deflate_idle_monitors().deflated as u64;
                passes += 1;
                thread::sleep(Duration::from_micros(200));
            }
            (passes, deflated)
        })
    };
    let threads = 6;
    let o2 = o.clone();
    let round = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let per = hammer(threads, Duration::from_nanos(500), move || {
        let h = header(&o2);
        sync::enter(h);
        bump(&o2);
        busy(Duration::from_micros(5));
        // Relaxed: which operation waits is arbitrary; only the lock orders.
        let n = round.fetch_add(1, Ordering::Relaxed);
        if n % 4 == 0 {
            // Nobody notifies: a timed wait that releases and re-takes.
            let r = sync::wait(h, Some(Duration::from_micros(50)));
            assert!(matches!(r, Ok(()) | Err(sync::SyncError::TimedOut)), "{r:?}");
        }
        sync::exit(h).unwrap();
        if n % 64 < 8 {
            // Bursts of sleep, so the monitor is sometimes idle and the
            // passes deflate it between bursts of contention.
            thread::sleep(Duration::from_micros(300));
        }
    });
    stop.store(true, Ordering::Relaxed);
    let (passes, deflated) = deflater.join().unwrap();
    let total: u64 = per.iter().sum();
    assert_eq!(o.count.load(Ordering::Relaxed), total, "lost updates");
    println!(
        "contention vs deflation: {total} critical sections checked, {threads} threads, {passes} passes deflated {deflated} monitors, least/most served {:.3}",
        fairness(&per)
    );
}
