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
//! Arguments: the locks (indices into `contended::LOCKS`: 0 fastpath,
//! 1 parking_lot::Mutex, 2 parking_lot::ReentrantMutex, 3 std::sync::Mutex,
//! 4 fastpath inflated beforehand; one, or several comma-separated),
//! threads, units of `work` inside and outside (the table's: its
//! calibrated ~5 ns and ~25 ns; Callgrind's counts depend on the units,
//! not on the time), milliseconds, and rounds (default 1).
//!
//! One lock, one round: it prints the operations and the process's CPU
//! time per operation (the workers' own time: on a loaded machine the wall
//! clock also counts other processes' turns), then the contended table's
//! other columns for the run (fairness, hand-overs, context switches,
//! fastpath's monitor life).
//!
//! Several locks or rounds: the locks run round-robin in one process, the
//! order rotated every round, as the table runs them (so the fastpath rows
//! run in a process whose inflated row started the deflation thread, as in
//! the table). Per lock: the median and best Mops/s by the wall clock (the
//! table's measure), × the first lock's median, and the workers' own CPU
//! time per operation (`CLOCK_THREAD_CPUTIME_ID` around their loops), median
//! and best, then each round's. On a shared machine the wall clock times
//! the scheduler; the workers' CPU time does not, though a loaded host
//! still slows the core under it (loaded, the 2-vCPU Xeon guest's rounds
//! fall into a ~21 ns and a ~30 ns mode, for every lock alike: compare
//! rounds of one mode). `contended_loop 0,1,3,4 1 29 147 200 5`
//! is the table's 1-thread short-section rows.
//!
//! The table's short section on this machine is `29 147` units (its note
//! gives the calibration: ~5 ns and ~25 ns).

use std::time::Duration;

use fastpath_lab::experiments::lock::contended::{one_run, OneRun, LOCKS};

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
    let usage = || -> ! {
        eprintln!(
            "usage: contended_loop LOCKS THREADS IN OUT MS [ROUNDS] (whole numbers; LOCKS one of 0..{} or several, comma-separated)",
            LOCKS.len() - 1
        );
        std::process::exit(2)
    };
    let mut argv = std::env::args().skip(1);
    let locks: Vec<usize> = match argv.next() {
        None => vec![0],
        Some(l) => l
            .split(',')
            .map(|x| x.trim().parse().unwrap_or_else(|_| usage()))
            .collect(),
    };
    if let Some(&bad) = locks.iter().find(|&&w| w >= LOCKS.len()) {
        eprintln!("lock {bad}: 0..{} ({LOCKS:?})", LOCKS.len() - 1);
        std::process::exit(2);
    }
    let args: Vec<u64> = argv.map(|a| a.parse().unwrap_or_else(|_| usage())).collect();
    let arg = |i: usize, default: u64| args.get(i).copied().unwrap_or(default);
    let threads = arg(0, 1).clamp(1, 1024) as usize;
    let (inside, outside) = (arg(1, 5) as u32, arg(2, 25) as u32);
    let time = Duration::from_millis(arg(3, 200));
    let rounds = arg(4, 1).clamp(1, 1000) as usize;
    if locks.len() == 1 && rounds == 1 {
        one_lock_once(locks[0], threads, inside, outside, time);
        return;
    }
    // Round-robin, the order rotated every round, as the table runs them.
    let mut per: Vec<Vec<OneRun>> = vec![Vec::new(); locks.len()];
    for round in 0..rounds {
        for k in 0..locks.len() {
            let i = (k + round) % locks.len();
            let r = one_run(locks[i], threads, inside, outside, time);
            if r.lost != 0 {
                eprintln!("{}: {} lost updates", LOCKS[locks[i]], r.lost);
                std::process::exit(1);
            }
            per[i].push(r);
        }
    }
    println!(
        "{threads} thread(s), {inside}/{outside} units in/out, {rounds} rounds × {} ms, round-robin; medians (best):",
        time.as_millis()
    );
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v[0], v[v.len() - 1])
    };
    let mops: Vec<f64> = per
        .iter()
        .map(|rs| median(rs.iter().map(|r| r.ops as f64 / r.wall / 1e6).collect()).0)
        .collect();
    for (i, rs) in per.iter().enumerate() {
        let (wall, _, best_wall) = median(rs.iter().map(|r| r.ops as f64 / r.wall / 1e6).collect());
        let (cpu, best_cpu, _) = median(
            rs.iter()
                .map(|r| r.worker_cpu_ns as f64 / r.ops.max(1) as f64)
                .collect(),
        );
        println!(
            "  {:<28} {wall:6.2} Mops/s ({best_wall:6.2}), × first {:.3}; worker CPU {cpu:6.2} ns/op ({best_cpu:6.2})",
            LOCKS[locks[i]],
            wall / mops[0],
        );
        let each: Vec<String> = rs
            .iter()
            .map(|r| format!("{:.1}", r.worker_cpu_ns as f64 / r.ops.max(1) as f64))
            .collect();
        println!("    worker CPU ns/op by round: {}", each.join(" "));
    }
}

/// One run of one lock, every column.
fn one_lock_once(which: usize, threads: usize, inside: u32, outside: u32, time: Duration) {
    let cpu0 = cpu_ns();
    let r = one_run(which, threads, inside, outside, time);
    let cpu = cpu_ns().saturating_sub(cpu0);
    println!(
        "{}: {threads} thread(s), {inside}/{outside} units in/out, {} ms: {} operations, {} lost, {:.2} CPU ns/operation ({:.2} in the workers), {:.2} Mops/s",
        LOCKS[which],
        time.as_millis(),
        r.ops,
        r.lost,
        cpu as f64 / r.ops.max(1) as f64,
        r.worker_cpu_ns as f64 / r.ops.max(1) as f64,
        r.ops as f64 / r.wall / 1e6,
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
