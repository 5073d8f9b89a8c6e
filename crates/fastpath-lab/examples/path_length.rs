//! Why the contended table's short critical section charges a lock by its
//! path length: the lock's instructions beside the lab's `work`.
//!
//! The short-cs workload of `fastpath lock --only contended` runs, per
//! operation, lock → `work(inside)` → unlock → `work(outside)`, where `work`
//! is a latency-bound chain of dependent multiply-adds (~5 ns and ~25 ns
//! here). Two such chains can overlap only as far as the reorder buffer
//! reaches from one into the next, and every instruction between them takes
//! a slot of it. So what a lock costs in that workload is set mostly by how
//! many instructions its lock + unlock execute, and little by their latency:
//! a locked instruction that takes ~20 cycles in a tight loop disappears in
//! the chains' shadow, while 200 cheap, independent ALU instructions do not.
//!
//! This example shows it in one process, each row timed against the bare
//! loop (the two `work` calls and nothing else) in the same round:
//! - `pad N`: N independent register `add`s (four interleaved chains of
//!   N/4), half where a lock's enter would run (before the inside work)
//!   and half where its exit would (after it): no lock, no memory access;
//! - a `lock cmpxchg` pair on one word, parking_lot's and std's Mutex,
//!   fastpath's raw enter/exit and `Synchronized<u64>`, thin and inflated.
//!
//! Columns: ns per operation over the bare loop with the work around each
//! pair (`with work`), and in a tight loop with none (`alone`): a row whose
//! `with work` is far below its `alone` overlaps with the chains. The
//! instructions per pair of each lock come from Callgrind
//! (`fastpath lock --only pairs --prof perfnorm`); BENCHMARKS.md sets them
//! beside this table.
//!
//! ```text
//! cargo run --release -p fastpath-lab --example path_length [rounds]
//! ```
//!
//! The padding is the one `asm!` outside the library's `arch` module: an
//! experiment about instruction count needs instructions the compiler can
//! neither fold nor schedule away.

use std::hint::black_box;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use fastpath::sync::{self, Header, Synchronized};
use fastpath_lab::experiments::lock::contended::{ns_per_unit, work};

/// Four independent register `add`s, one per scratch register.
#[cfg(not(target_arch = "aarch64"))]
macro_rules! add_quad {
    () => {
        "\n add {a}, 1\n add {b}, 1\n add {c}, 1\n add {d}, 1"
    };
}
#[cfg(target_arch = "aarch64")]
macro_rules! add_quad {
    () => {
        "\n add {a}, {a}, #1\n add {b}, {b}, #1\n add {c}, {c}, #1\n add {d}, {d}, #1"
    };
}

/// `4 × $quads` independent `add`s on four scratch registers.
macro_rules! pad {
    ($quads:literal) => {
        // SAFETY: register-only arithmetic on four compiler-chosen scratch
        // registers declared as outputs; no memory, no stack, no flags
        // anyone reads afterwards (the asm clobbers them by default).
        unsafe {
            std::arch::asm!(
                concat!(".rept ", $quads, add_quad!(), "\n.endr"),
                a = out(reg) _, b = out(reg) _, c = out(reg) _, d = out(reg) _,
                options(nomem, nostack)
            )
        }
    };
}

/// What one operation does: a row of the table.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Row {
    Bare,
    Pad16,
    Pad32,
    Pad64,
    Pad128,
    Pad256,
    CasPair,
    ParkingLot,
    Std,
    RawThin,
    RawInflated,
    SyncThin,
    SyncInflated,
}

const ROWS: [(Row, &str); 13] = [
    (Row::Bare, "bare (the two work calls)"),
    (Row::Pad16, "pad 16 instructions"),
    (Row::Pad32, "pad 32 instructions"),
    (Row::Pad64, "pad 64 instructions"),
    (Row::Pad128, "pad 128 instructions"),
    (Row::Pad256, "pad 256 instructions"),
    (Row::CasPair, "lock cmpxchg pair"),
    (Row::ParkingLot, "parking_lot::Mutex"),
    (Row::Std, "std::sync::Mutex"),
    (Row::RawThin, "fastpath enter/exit, thin"),
    (Row::RawInflated, "fastpath enter/exit, inflated"),
    (Row::SyncThin, "fastpath Synchronized, thin"),
    (Row::SyncInflated, "fastpath Synchronized, inflated"),
];

struct Locks<'a> {
    word: &'a AtomicUsize,
    parking_lot: &'a parking_lot::Mutex<u64>,
    std: &'a std::sync::Mutex<u64>,
    raw_thin: Pin<&'a Header>,
    raw_inflated: Pin<&'a Header>,
    sync_thin: Pin<&'a Synchronized<u64>>,
    sync_inflated: Pin<&'a Synchronized<u64>>,
}

/// `n` operations of `row`, with `inside`/`outside` units of work; ns/op.
/// Each row is its own monomorphic loop (`row` is matched once, outside).
fn run(row: Row, l: &Locks<'_>, n: u64, inside: u32, outside: u32) -> f64 {
    macro_rules! timed {
        (|| $pair:block) => {{
            let t = Instant::now();
            for _ in 0..n {
                $pair
                work(outside);
            }
            t.elapsed().as_nanos() as f64 / n as f64
        }};
    }
    // `4 × quads` instructions where a lock's enter runs, as many where its
    // exit runs.
    macro_rules! padded {
        ($quads:literal) => {
            timed!(|| {
                pad!($quads);
                work(inside);
                pad!($quads);
            })
        };
    }
    match row {
        Row::Bare => timed!(|| { work(inside) }),
        Row::Pad16 => padded!(2),
        Row::Pad32 => padded!(4),
        Row::Pad64 => padded!(8),
        Row::Pad128 => padded!(16),
        Row::Pad256 => padded!(32),
        Row::CasPair => timed!(|| {
            let w = black_box(l.word);
            let _ = w.compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed);
            work(inside);
            let _ = w.compare_exchange(1, 0, Ordering::Release, Ordering::Relaxed);
        }),
        Row::ParkingLot => timed!(|| {
            let mut g = black_box(l.parking_lot).lock();
            *g += 1;
            work(inside);
        }),
        Row::Std => timed!(|| {
            let mut g = black_box(l.std).lock().unwrap_or_else(|e| e.into_inner());
            *g += 1;
            work(inside);
        }),
        Row::RawThin | Row::RawInflated => {
            let h = if row == Row::RawThin {
                l.raw_thin
            } else {
                l.raw_inflated
            };
            timed!(|| {
                let h = black_box(h);
                sync::enter(h);
                work(inside);
                let _ = sync::exit(h);
            })
        }
        Row::SyncThin | Row::SyncInflated => {
            let s = if row == Row::SyncThin {
                l.sync_thin
            } else {
                l.sync_inflated
            };
            timed!(|| {
                if let Ok(mut g) = black_box(s).lock() {
                    *g += 1;
                    work(inside);
                }
            })
        }
    }
}

/// Units of [`work`] for about `ns` nanoseconds, calibrated as the lab does.
fn units_for(ns: f64) -> u32 {
    (ns / ns_per_unit()).round().max(1.0) as u32
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Inflates the object behind `h` and leaves it unowned: a zero wait
/// inflates (the monitor stays until a deflation pass finds it idle).
fn inflate(h: Pin<&Header>) {
    sync::enter(h);
    let _ = sync::wait(h, Some(Duration::ZERO));
    let _ = sync::exit(h);
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(9)
        .max(1);
    let (inside, outside) = (units_for(5.0), units_for(25.0));
    let word = AtomicUsize::new(0);
    let parking_lot = parking_lot::Mutex::new(0u64);
    let std = std::sync::Mutex::new(0u64);
    let raw_thin = pin!(Header::new());
    let raw_inflated = pin!(Header::new());
    let sync_thin = pin!(Synchronized::new(0u64));
    let sync_inflated = pin!(Synchronized::new(0u64));
    let l = Locks {
        word: &word,
        parking_lot: &parking_lot,
        std: &std,
        raw_thin: raw_thin.as_ref(),
        raw_inflated: raw_inflated.as_ref(),
        sync_thin: sync_thin.as_ref(),
        sync_inflated: sync_inflated.as_ref(),
    };
    let n = 100_000;
    // Per row: (with work, alone) excess over the bare loop, per round.
    let mut excess = vec![(Vec::new(), Vec::new()); ROWS.len()];
    for _ in 0..rounds {
        for (io, (inn, out)) in [(inside, outside), (0, 0)].into_iter().enumerate() {
            // Re-inflated every round: a deflation pass may have found them idle.
            if !l.raw_inflated.get_ref().is_inflated() {
                inflate(l.raw_inflated);
            }
            if !l.sync_inflated.header().is_inflated() {
                if let Ok(mut g) = l.sync_inflated.lock() {
                    let _ = g.wait(Some(Duration::ZERO));
                }
            }
            let bare = run(Row::Bare, &l, n, inn, out);
            for (i, &(row, _)) in ROWS.iter().enumerate() {
                let t = run(row, &l, n, inn, out) - bare;
                if io == 0 {
                    excess[i].0.push(t);
                } else {
                    excess[i].1.push(t);
                }
            }
        }
    }
    println!(
        "{rounds} rounds × {n} operations; work: {inside} units inside, {outside} outside (≈5 and 25 ns);"
    );
    println!("ns per operation over the bare loop, median over rounds\n");
    println!("| row | with work | alone |");
    println!("|---|---:|---:|");
    for (i, (_, name)) in ROWS.iter().enumerate().skip(1) {
        let (w, a) = &mut excess[i];
        println!("| {name} | {:+.1} | {:+.1} |", median(w), median(a));
    }
}
