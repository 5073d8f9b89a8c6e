//! The contended table's worker loop on one lock, for Callgrind: how many
//! instructions one operation of `fastpath lock --only contended` costs
//! each lock, the loop around it included (the pairs table counts a bare
//! pair; this counts the table's own loop: its closure, the hand-over
//! test, the stop flag, the two `work` calls).
//!
//! Each lock's loop is its own symbol (`contended::worker::<L>`); the
//! operations are half the calls of `work` inside it:
//!
//! ```text
//! cargo build --release -p fastpath-lab --example contended_loop
//! valgrind --tool=callgrind --toggle-collect='*contended::worker*' \
//!     target/release/examples/contended_loop 0 1 5 25 200
//! callgrind_annotate --inclusive=yes callgrind.out.* | grep -E 'worker|work$'
//! ```
//!
//! Arguments: the lock (index into `contended::LOCKS`: 0 fastpath,
//! 1 parking_lot::Mutex, 2 parking_lot::ReentrantMutex, 3 std::sync::Mutex,
//! 4 fastpath inflated beforehand), threads, units of `work` inside and
//! outside (the table's: its calibrated ~5 ns and ~25 ns; Callgrind's
//! counts depend on the units, not on the time), milliseconds. It prints
//! the operations and the process's CPU time per operation (the workers'
//! own time: on a loaded machine the wall clock also counts other
//! processes' turns), then the contended table's other columns for the
//! run (fairness, hand-overs, context switches, fastpath's monitor life).
//! The table's short section on this machine is `29 147` units (its note
//! gives the calibration: ~5 ns and ~25 ns).

use std::time::Duration;

use fastpath_lab::experiments::lock::contended::{one_run, LOCKS};

/// The process's CPU time (user + system, every thread), ns: the workers'
/// own time, which a loaded machine's time-sharing does not stretch as it
/// stretches the wall clock (the timing thread sleeps).
fn cpu_ns() -> u64 {
    // SAFETY: `rusage` is a C struct of integers: all-zero is a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is valid and writable for the call.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return 0;
    }
    let ns = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    ns(ru.ru_utime) + ns(ru.ru_stime)
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| {
            a.parse().unwrap_or_else(|_| {
                eprintln!(
                    "usage: contended_loop LOCK THREADS IN OUT MS (whole numbers; LOCK 0..{})",
                    LOCKS.len() - 1
                );
                std::process::exit(2)
            })
        })
        .collect();
    let arg = |i: usize, default: u64| args.get(i).copied().unwrap_or(default);
    let which = arg(0, 0) as usize;
    if which >= LOCKS.len() {
        eprintln!("lock {which}: 0..{} ({LOCKS:?})", LOCKS.len() - 1);
        std::process::exit(2);
    }
    let threads = arg(1, 1).clamp(1, 1024) as usize;
    let (inside, outside) = (arg(2, 5) as u32, arg(3, 25) as u32);
    let time = Duration::from_millis(arg(4, 200));
    let cpu0 = cpu_ns();
    let r = one_run(which, threads, inside, outside, time);
    let cpu = cpu_ns().saturating_sub(cpu0);
    println!(
        "{}: {threads} thread(s), {inside}/{outside} units in/out, {} ms: {} operations, {} lost, {:.2} CPU ns/operation, {:.2} Mops/s",
        LOCKS[which],
        time.as_millis(),
        r.ops,
        r.lost,
        cpu as f64 / r.ops.max(1) as f64,
        r.ops as f64 / time.as_secs_f64() / 1e6,
    );
    println!(
        "  min/max {:.3}; hand-overs/1k {:.2}; voluntary/involuntary cs {}/{}; inflations {}, fair hand-offs {}, spins won:gave up {}:{}, inflated {:.0} %",
        r.min_ops as f64 / r.max_ops.max(1) as f64,
        r.handovers as f64 * 1000.0 / r.ops.max(1) as f64,
        r.voluntary,
        r.involuntary,
        r.inflations,
        r.fair_hand_offs,
        r.spins_won,
        r.spins_gave_up,
        r.inflated_share * 100.0,
    );
    if r.lost != 0 {
        std::process::exit(1);
    }
}
