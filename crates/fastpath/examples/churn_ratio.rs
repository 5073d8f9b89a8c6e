//! Monitor churn against the CAS pair, measured in alternating short
//! chunks on one thread, so that both see the same machine load (the lab's
//! `fastpath lock` times its rows one after another, seconds apart, which a
//! guest shared with other builds turns into noise). Reports the median of
//! the per-round ratios and the ratio of the per-row minima.
//!
//! `cargo run --release -p fastpath --example churn_ratio -- [rounds]`
//! (the benchmarks notebook, `docs/benchmarks-log-2026.md`, "Locking,
//! sync-churn", has its figures).

use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use fastpath::sync::LockingMode;
use fastpath::sync::{self, Header};

/// The lab's baseline: CAS 01→00 then 00→01, Acquire / Release.
#[inline(never)]
fn cas_pair(word: &AtomicUsize, n: u64) {
    for _ in 0..n {
        let w = std::hint::black_box(word);
        let v = w.load(Ordering::Relaxed);
        if w.compare_exchange(v, v & !3, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            let _ = w.compare_exchange(v & !3, v, Ordering::Release, Ordering::Relaxed);
        }
    }
}

/// The lab's `churn`: a fresh object per lock + unlock.
#[inline(never)]
fn churn(n: u64) {
    for _ in 0..n {
        let h = pin!(Header::new());
        let h = std::hint::black_box(h.as_ref());
        sync::enter(h);
        let _ = sync::exit(h);
    }
}

fn ns_per_op(n: u64, f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_nanos() as f64 / n as f64
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let t = std::thread::spawn(move || {
        sync::set_current_thread_locking_mode(LockingMode::Monitor).expect("monitor mode");
        const N: u64 = 20_000;
        let word = AtomicUsize::new(1);
        // Warm-up: the process's first inflation, the allocator, the caches.
        churn(N);
        cas_pair(&word, N);
        let (mut cas, mut mon, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            let c = ns_per_op(N, || cas_pair(&word, N));
            let m = ns_per_op(N, || churn(N));
            cas.push(c);
            mon.push(m);
            ratio.push(m / c);
        }
        let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        let (cmin, mmin) = (min(&cas), min(&mon));
        println!(
            "monitor-churn / cas-pair: median of {rounds} paired rounds {:.2}x; minima {mmin:.1} / {cmin:.1} ns = {:.2}x; medians {:.1} / {:.1} ns",
            median(&mut ratio),
            mmin / cmin,
            median(&mut mon),
            median(&mut cas),
        );
    });
    t.join().expect("measuring thread");
}
