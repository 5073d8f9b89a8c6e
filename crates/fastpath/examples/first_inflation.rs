//! The "first inflation thread" effect (sync-2's report), reduced to one
//! loop: a monitor-only thread enters and exits one object (an inflated
//! monitor) and prints ns per pair, round by round. The variant decides who
//! performs the process's first inflation, which starts the deflation
//! thread and registers `membarrier` (`thread/critical.rs`, `sync/deflate.rs`):
//!
//! - `first`: the measuring thread itself.
//! - `warm`: the main thread, before the measuring thread starts.
//!
//! It prints how long the very first lock + unlock took, the batch the
//! lab's calibration settles on, and ns per pair in each 20 ms iteration.
//! The mechanism it shows: a `membarrier` registration on the inflating
//! thread makes the first pair take milliseconds (a scheduler grace period
//! in the kernel), over the 1 ms calibration target, so the batch would be
//! 1 and every sample would time one pair plus a clock read. The deflation
//! thread registers itself, so the first pair costs the thread spawn.
//!
//! `cargo run --release -p fastpath --example first_inflation -- first`
//! (the benchmarks notebook, `docs/benchmarks-log-2026.md`, "Locking,
//! sync-churn", has the figures and the cause).

use std::pin::pin;
use std::time::Instant;

use fastpath::sync::LockingMode;
use fastpath::sync::{self, Header};

#[inline(never)]
fn pairs(h: std::pin::Pin<&Header>, n: u64) {
    for _ in 0..n {
        let h = std::hint::black_box(h);
        sync::enter(h);
        let _ = sync::exit(h);
    }
}

/// Inflates, then frees, one monitor on the calling thread.
fn inflate_once() {
    let h = pin!(Header::new());
    sync::enter(h.as_ref());
    let _ = sync::wait(h.as_ref(), Some(std::time::Duration::ZERO));
    let _ = sync::exit(h.as_ref());
}

fn main() {
    let variant = std::env::args().nth(1).unwrap_or_else(|| "first".into());
    let rounds: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(8);
    match variant.as_str() {
        "first" => {}
        "warm" => inflate_once(),
        other => {
            eprintln!("unknown variant {other:?}: first | warm");
            std::process::exit(2);
        }
    }
    let t = std::thread::spawn(move || {
        if let Err(e) = sync::set_current_thread_locking_mode(LockingMode::Monitor) {
            eprintln!("monitor mode: {e}");
            std::process::exit(1);
        }
        let h = pin!(Header::new());
        // The lab's calibration (`harness::measure_ns_per_op`, `--quick`):
        // the smallest power-of-two batch that takes ≥ 1 ms, then 20 ms
        // iterations of whole batches with a clock read after each.
        let mut batch = 1u64;
        let mut first_call_ns = 0;
        loop {
            let t0 = Instant::now();
            pairs(h.as_ref(), batch);
            let e = t0.elapsed();
            if batch == 1 {
                first_call_ns = e.as_nanos();
            }
            if e.as_millis() >= 1 {
                break;
            }
            batch *= 2;
        }
        let mut out = Vec::new();
        for _ in 0..rounds {
            let t0 = Instant::now();
            let mut ops = 0u64;
            while t0.elapsed().as_millis() < 20 {
                pairs(h.as_ref(), batch);
                ops += batch;
            }
            out.push(t0.elapsed().as_nanos() as f64 / ops as f64);
        }
        (first_call_ns, batch, out)
    });
    let (first_call_ns, batch, ns) = t.join().expect("measuring thread");
    let line: Vec<String> = ns.iter().map(|x| format!("{x:.1}")).collect();
    println!(
        "{variant}: first pair {first_call_ns} ns, batch {batch}, ns/pair by 20 ms iteration: {}",
        line.join(" ")
    );
}
