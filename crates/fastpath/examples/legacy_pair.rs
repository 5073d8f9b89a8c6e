//! What one legacy stack-locking pair costs, per shape, on a legacy-mode
//! thread (HotSpot `LM_LEGACY`: the lock word points at a lock record
//! holding the displaced header).
//!
//! Each shape is its own `#[inline(never)]` loop so that Callgrind can count
//! it alone; `bare` is the loop with its work calls and no lock, to
//! subtract. The shapes:
//!
//! - `record`: `enter_with_record` + `exit_with_record`, in order, with a
//!   record on the caller's stack (what an interpreter frame does);
//! - `guard`: `sync::lock` and the guard's drop (a record from the
//!   thread's arena);
//! - `raw`: `sync::enter` + `sync::exit` (the raw API's record stack);
//! - `recursive`: a record pair on an object this thread already holds
//!   through an outer record (the inner record's word is 0);
//! - `fact`: `fact(10)` with a guard per level, 11 nested levels of one
//!   object (counted per call, not per pair).
//!
//! ```text
//! cargo build --release -p fastpath --example legacy_pair
//! for s in bare record guard raw recursive fact; do
//!   valgrind --tool=callgrind --callgrind-out-file=/tmp/lp.$s \
//!       --toggle-collect="legacy_pair::shape_$s" \
//!       target/release/examples/legacy_pair $s 100000 >/dev/null 2>&1
//!   echo "$s $(callgrind_annotate /tmp/lp.$s | awk '/PROGRAM TOTALS/ {gsub(",","",$1); print $1/100000}')"
//! done
//! ```
//!
//! Instructions per pair are a shape's figure minus `bare`'s. Without
//! Callgrind, `legacy_pair time` prints ns per pair for every shape (median
//! of 11 rounds), as ratios of `record`.

use std::pin::{pin, Pin};
use std::time::Instant;

use fastpath::sync::{self, Header, LockRecord, LockingMode};

/// A lab-style unit of work between pairs: a few dependent multiply-adds,
/// so that the loop is not only the lock.
#[inline(never)]
fn work() {
    let mut x = std::hint::black_box(1u64);
    for _ in 0..4 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
    }
    std::hint::black_box(x);
}

#[inline(never)]
fn shape_bare(_h: Pin<&Header>, n: u64) {
    for _ in 0..n {
        work();
    }
}

#[inline(never)]
fn shape_record(h: Pin<&Header>, n: u64) {
    for _ in 0..n {
        let h = std::hint::black_box(h);
        let rec = pin!(LockRecord::new());
        sync::enter_with_record(h, rec.as_ref()).expect("record idle");
        work();
        sync::exit_with_record(h, rec.as_ref()).expect("held");
    }
}

#[inline(never)]
fn shape_guard(h: Pin<&Header>, n: u64) {
    for _ in 0..n {
        let h = std::hint::black_box(h);
        let g = sync::lock(h);
        work();
        drop(g);
    }
}

#[inline(never)]
fn shape_raw(h: Pin<&Header>, n: u64) {
    for _ in 0..n {
        let h = std::hint::black_box(h);
        sync::enter(h);
        work();
        sync::exit(h).expect("held");
    }
}

/// Inner pairs under an outer record held for the whole loop.
#[inline(never)]
fn shape_recursive(h: Pin<&Header>, n: u64) {
    let outer = pin!(LockRecord::new());
    sync::enter_with_record(h, outer.as_ref()).expect("record idle");
    for _ in 0..n {
        let h = std::hint::black_box(h);
        let rec = pin!(LockRecord::new());
        sync::enter_with_record(h, rec.as_ref()).expect("record idle");
        work();
        sync::exit_with_record(h, rec.as_ref()).expect("held");
    }
    sync::exit_with_record(h, outer.as_ref()).expect("held");
}

/// `fact(k)` taking the lock once per level through a guard.
fn fact(h: Pin<&Header>, k: u64) -> u64 {
    let _g = sync::lock(h);
    if k <= 1 {
        1
    } else {
        k * fact(h, k - 1)
    }
}

#[inline(never)]
fn shape_fact(h: Pin<&Header>, n: u64) {
    for _ in 0..n {
        std::hint::black_box(fact(std::hint::black_box(h), 10));
    }
}

type Shape = fn(Pin<&Header>, u64);

const SHAPES: [(&str, Shape); 6] = [
    ("bare", shape_bare),
    ("record", shape_record),
    ("guard", shape_guard),
    ("raw", shape_raw),
    ("recursive", shape_recursive),
    ("fact", shape_fact),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let which = args.first().map(String::as_str).unwrap_or("time");
    let n: u64 = match args.get(1).map(|s| s.parse::<u64>()) {
        None => 100_000,
        Some(Ok(n)) if (1..=1_000_000_000).contains(&n) => n,
        _ => {
            eprintln!("legacy_pair: the count must be an integer in 1..=1000000000");
            std::process::exit(2);
        }
    };
    if let Err(e) = sync::set_current_thread_locking_mode(LockingMode::Legacy) {
        eprintln!("legacy_pair: cannot run this thread in legacy mode: {e}");
        std::process::exit(1);
    }
    assert_eq!(sync::current_thread_locking_mode(), LockingMode::Legacy);
    let h = pin!(Header::new());
    if which == "time" {
        let mut rows = Vec::new();
        for (name, shape) in SHAPES {
            let mut v: Vec<f64> = (0..11)
                .map(|_| {
                    let t = Instant::now();
                    shape(h.as_ref(), n);
                    t.elapsed().as_nanos() as f64 / n as f64
                })
                .collect();
            v.sort_by(f64::total_cmp);
            rows.push((name, v[v.len() / 2]));
        }
        let record = rows[1].1;
        for (name, ns) in rows {
            println!("{name:10} {ns:8.2} ns  {:.2}x record", ns / record);
        }
        return;
    }
    match SHAPES.iter().find(|(name, _)| *name == which) {
        Some((_, shape)) => shape(h.as_ref(), n),
        None => {
            let names: Vec<&str> = SHAPES.iter().map(|(n, _)| *n).collect();
            eprintln!(
                "legacy_pair: unknown shape {which:?}; one of: time, {}",
                names.join(", ")
            );
            std::process::exit(2);
        }
    }
    // The lock is free again after every shape: nothing leaked.
    assert!(sync::try_enter(h.as_ref()), "every shape releases what it takes");
    sync::exit(h.as_ref()).expect("held");
}
