//! fastpath-vm beside HotSpot on the same machine, in one run:
//!
//! - `startup`: `Hello` to exit, wall time and peak RSS (the child's
//!   `ru_maxrss` from `wait4`), fastpath-vm and `java -cp . Hello`
//!   interleaved round by round; medians and their ratio.
//! - `interp`: the benchmark programs of `bench/java` (the Are We Fast Yet
//!   kinds) through their `Harness`, `fastpath-vm -Xint` and `java -Xint`
//!   interleaved round by round; each run's figure is the median of its
//!   iterations after the first, each side's the median over rounds; the
//!   ratio per program and the geometric mean.
//! - `jit`: the same programs, peak time per iteration (the median of the
//!   iterations of a run's second half) under fastpath-vm's three tiers
//!   (`-Xint`, the default, `-Xcomp`) beside HotSpot `-Xint` and its
//!   default (C2), each VM with its default collector (fastpath-vm's
//!   passive one, without barriers, which it does not need:
//!   `runtime::vm::ergonomic_settings`; HotSpot's G1, with its store
//!   barriers), the five interleaved round by round; each side's figure
//!   the median over rounds; the default tiers' ratio to C2 per program
//!   and the geometric means; and each program's warm-up under the
//!   default tiers and C2: the time from the first iteration to the end of
//!   the first that runs within 90 % of the run's peak throughput.
//! - `gc`: the allocation-heavy programs (`GC_PROGRAMS`) with a concurrent
//!   collector on both sides at the same heap size (`--heap`, default
//!   64m, given to both VMs as `-Xmx` and `-Xms`: HotSpot's default `-Xms`
//!   at this size made explicit, so that Shenandoah neither grows nor
//!   uncommits it, and fastpath-vm's soft capacity starting at the whole
//!   heap, as Shenandoah's does):
//!   fastpath-vm's default tiers with `FASTPATH_GC_MODE=concurrent`
//!   (the library's default barriers, `shenandoah`) and
//!   `FASTPATH_VM_GC_STATS=1`, beside HotSpot's default tiers with
//!   `-XX:+UseShenandoahGC -Xlog:gc,safepoint:file=…`, interleaved round
//!   by round through `Harness --checksum` with two stop-the-world
//!   baselines (fastpath-vm `FASTPATH_GC_MODE=passive`, without barriers
//!   as the VM runs it by default, HotSpot `-XX:+UseParallelGC`, with its
//!   card-table barrier) that tell the collector's share of a gap, its
//!   barriers' included, from the compiled code's. Per program: the time per iteration, the mean
//!   of each run's second half (the median over rounds), and the ratios:
//!   a throughput, so every iteration counts. The iterations of these
//!   programs are bimodal under every collector (those a cycle's
//!   evacuation or a stop-the-world collection falls in take 1.4–2 × the
//!   others), and a median counts a collector's cost only where it slows
//!   more than half of them: one that does its work in fewer, longer
//!   stretches would look free. The median is printed beside it. Each
//!   side's collector pauses at the safepoint (fastpath's
//!   pauses' work; HotSpot's Shenandoah VM operations' "At safepoint",
//!   see `hotspot/gc_log.rs`): the median of the runs' p50, the largest of
//!   their p99 and max, and fastpath's pausing thread's CPU time at p99
//!   (below the wall time where that thread lost its CPU); pauses and cycles per run (medians) with the
//!   degenerated and full collections of all runs; and the iterations'
//!   checksums, which must agree across every run of both sides.
//!
//! `cargo bench -p fastpath-vm --bench hotspot -- [startup|interp|jit|gc|all]
//! [--rounds N] [--iterations N] [--only A,B] [--heap SIZE]`, with the release build of
//! the VM (`cargo bench` builds it). Prints Markdown tables (BENCHMARKS.md
//! keeps them with their machine, load and command). Needs JDK 25
//! (`FASTPATH_VM_JDK`, `JAVA_HOME`, or Temurin 25's Debian path);
//! `FASTPATH_VM_BENCH_SRC` names another directory of the programs.

#[path = "hotspot/gc_log.rs"]
mod gc_log;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const PROGRAMS: [&str; 14] = [
    "Bounce",
    "List",
    "Permute",
    "Queens",
    "Sieve",
    "Storage",
    "Towers",
    "Richards",
    "DeltaBlue",
    "Json",
    "NBody",
    "Mandelbrot",
    "CD",
    "Havlak",
];

/// The allocation-heavy programs of the `gc` table.
const GC_PROGRAMS: [&str; 4] = ["GcTrees", "GcListChurn", "GcLruCache", "GcStrings"];

fn jdk() -> PathBuf {
    [
        std::env::var_os("FASTPATH_VM_JDK").map(PathBuf::from),
        std::env::var_os("JAVA_HOME").map(PathBuf::from),
        Some(PathBuf::from("/usr/lib/jvm/temurin-25-jdk-amd64")),
    ]
    .into_iter()
    .flatten()
    .find(|d| d.join("bin/java").is_file() && d.join("bin/javac").is_file())
    .expect("JDK 25 (set FASTPATH_VM_JDK or JAVA_HOME)")
}

/// The release binary next to this bench's executable.
fn vm() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let p = dir.join("fastpath-vm");
    assert!(
        p.is_file(),
        "build the VM first: cargo build --release -p fastpath-vm ({})",
        p.display()
    );
    p
}

/// Runs `cmd` to completion; wall time, peak RSS in KiB, stdout.
// The child is reaped by `wait4` (for its `rusage`), not `Child::wait`.
#[allow(clippy::zombie_processes)]
fn timed(cmd: &mut Command) -> (Duration, i64, String) {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let start = Instant::now();
    let child = cmd.spawn().expect("start");
    let pid = child.id() as libc::pid_t;
    let mut out = child.stdout.expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut out, &mut s).ok();
        s
    });
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet reaped; both pointers are valid.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert_eq!(r, pid, "wait4");
    let stdout = reader.join().unwrap();
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{cmd:?} failed"
    );
    (wall, usage.ru_maxrss, stdout)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn compile(jdk: &Path, src: &Path, out: &Path) {
    let _ = std::fs::remove_dir_all(out);
    std::fs::create_dir_all(out).unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(src)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "java"))
        .collect();
    files.sort();
    let o = Command::new(jdk.join("bin/javac"))
        .args(["-nowarn", "--release", "17", "-d"])
        .arg(out)
        .args(&files)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "javac: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn startup(jdk: &Path, classes: &Path, rounds: usize) {
    let java = jdk.join("bin/java");
    let vm = vm();
    let (mut vt, mut ht, mut vr, mut hr) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let (t, rss, out) = timed(Command::new(&vm).arg("-cp").arg(classes).arg("Hello"));
        assert_eq!(out, "Hello, world!\n");
        vt.push(t.as_secs_f64() * 1e3);
        vr.push(rss as f64);
        let (t, rss, out) = timed(Command::new(&java).arg("-cp").arg(classes).arg("Hello"));
        assert_eq!(out, "Hello, world!\n");
        ht.push(t.as_secs_f64() * 1e3);
        hr.push(rss as f64);
    }
    let (vt, ht, vr, hr) = (median(&mut vt), median(&mut ht), median(&mut vr), median(&mut hr));
    println!("### Start-up: `Hello` to exit ({rounds} rounds, interleaved; medians)\n");
    println!("| VM | wall ms | peak RSS MiB |");
    println!("|---|---:|---:|");
    println!("| fastpath-vm | {vt:.1} | {:.1} |", vr / 1024.0);
    println!("| HotSpot `java -cp . Hello` | {ht:.1} | {:.1} |", hr / 1024.0);
    println!("| ratio | {:.3} | {:.3} |\n", vt / ht, vr / hr);
}

/// Median time per iteration (ms) of one Harness run, iterations after the first.
fn harness_run(cmd: &mut Command) -> f64 {
    let (_, _, out) = timed(cmd);
    let mut ns: Vec<f64> = out
        .lines()
        .filter_map(|l| l.split_whitespace().nth(3).and_then(|x| x.parse::<f64>().ok()))
        .skip(1)
        .collect();
    assert!(!ns.is_empty(), "no iterations: {out}");
    median(&mut ns) / 1e6
}

/// One Harness run's peak and warm-up (ms): the peak is the median of the
/// iterations of its second half (after warm-up and compilation); the
/// warm-up is the time from the first iteration's start to the end of the
/// first iteration that runs within 90 % of that peak's throughput
/// (`t <= peak / 0.9`), the whole run's if none does.
fn harness_peak(cmd: &mut Command) -> (f64, f64) {
    let (_, _, out) = timed(cmd);
    let ns: Vec<f64> = out
        .lines()
        .filter_map(|l| l.split_whitespace().nth(3).and_then(|x| x.parse::<f64>().ok()))
        .collect();
    assert!(ns.len() >= 2, "too few iterations: {out}");
    let mut tail = ns[ns.len() / 2..].to_vec();
    let peak = median(&mut tail);
    let reached = ns.iter().position(|&t| t <= peak / 0.9).unwrap_or(ns.len() - 1);
    (peak / 1e6, ns[..=reached].iter().sum::<f64>() / 1e6)
}

fn jit(jdk: &Path, classes: &Path, rounds: usize, iterations: usize, only: &[String]) {
    let java = jdk.join("bin/java");
    let vm = vm();
    println!(
        "### Tiers: peak time per iteration ({rounds} rounds of {iterations} iterations, the median of each run's second half; interleaved; medians over rounds)\n"
    );
    println!("| benchmark | fastpath-vm `-Xint` ms | fastpath-vm default ms | fastpath-vm `-Xcomp` ms | HotSpot `-Xint` ms | HotSpot C2 ms | default / C2 | `-Xcomp` / C2 | warm-up to 90 % of peak, default / C2 ms | warm-up ratio |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let sides: [(&Path, &[&str]); 5] = [
        (&vm, &["-Xint"]),
        (&vm, &[]),
        (&vm, &["-Xcomp"]),
        (&java, &["-Xint"]),
        (&java, &[]),
    ];
    let mut logs = [Vec::new(), Vec::new()];
    let mut warm_ups = Vec::new();
    for p in PROGRAMS
        .iter()
        .filter(|p| only.is_empty() || only.iter().any(|o| o == *p))
    {
        let mut t: [Vec<f64>; 5] = Default::default();
        let mut warm: [Vec<f64>; 5] = Default::default();
        let n = iterations.to_string();
        for _ in 0..rounds {
            for (i, (exe, opts)) in sides.iter().enumerate() {
                let (peak, warm_up) = harness_peak(
                    Command::new(exe)
                        .args(*opts)
                        .arg("-cp")
                        .arg(classes)
                        .args(["Harness", p, &n]),
                );
                t[i].push(peak);
                warm[i].push(warm_up);
            }
        }
        let m: Vec<f64> = t.iter_mut().map(|v| median(v)).collect();
        let (w_default, w_c2) = (median(&mut warm[1]), median(&mut warm[4]));
        logs[0].push((m[1] / m[4]).ln());
        logs[1].push((m[2] / m[4]).ln());
        warm_ups.push((w_default <= w_c2, w_default / w_c2));
        println!(
            "| {p} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2} | {:.2} | {w_default:.1} / {w_c2:.1} | {:.2} |",
            m[0],
            m[1],
            m[2],
            m[3],
            m[4],
            m[1] / m[4],
            m[2] / m[4],
            w_default / w_c2
        );
    }
    let geo = |l: &[f64]| (l.iter().sum::<f64>() / l.len() as f64).exp();
    let worst = |l: &[f64]| l.iter().cloned().fold(f64::MIN, f64::max).exp();
    println!(
        "| **geometric mean** | | | | | | **{:.2}** (worst {:.2}) | **{:.2}** (worst {:.2}) |\n",
        geo(&logs[0]),
        worst(&logs[0]),
        geo(&logs[1]),
        worst(&logs[1])
    );
    println!(
        "Warm-up (the default tiers against C2): at or below C2's on {} of {} programs (the goal: every one)\n",
        warm_ups.iter().filter(|(met, _)| *met).count(),
        warm_ups.len()
    );
}

/// One `gc` run of either VM: its peak (ms), checksums, and collector figures.
struct GcRun {
    /// The mean of the run's second half: the throughput figure.
    mean_ms: f64,
    /// The median of the run's second half.
    peak_ms: f64,
    checksums: Vec<i64>,
    cycles: u64,
    degenerated: u64,
    full: u64,
    pauses: u64,
    /// At safepoint, µs: p50, p99, max.
    at_safepoint_us: [f64; 3],
    /// The pausing thread's CPU time at the safepoint, µs: p99, max
    /// (fastpath-vm only; HotSpot's log has no such figure).
    cpu_us: Option<[f64; 2]>,
    /// Request to release, µs: p99, max.
    total_us: [f64; 2],
}

/// Runs `cmd` to completion, stdout and stderr kept; panics on a failure.
fn run_output(cmd: &mut Command) -> (String, String) {
    let o = cmd.stdin(Stdio::null()).output().expect("start");
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "{cmd:?} failed ({}): {err}", o.status);
    (out, err)
}

/// The mean and the median of the second half's iterations, ms, and the
/// checksums of a `Harness --checksum` run's stdout.
fn gc_iterations(out: &str) -> (f64, f64, Vec<i64>) {
    let it = gc_log::iterations(out).unwrap_or_else(|e| panic!("{e}"));
    assert!(it.len() >= 2, "too few iterations: {out}");
    let mut tail: Vec<f64> = it[it.len() / 2..].iter().map(|&(ns, _)| ns).collect();
    let mean = tail.iter().sum::<f64>() / tail.len() as f64;
    (
        mean / 1e6,
        median(&mut tail) / 1e6,
        it.iter().map(|&(_, c)| c).collect(),
    )
}

/// fastpath-vm's run, `mode` the library's `FASTPATH_GC_MODE`.
fn gc_fastpath(vm: &Path, classes: &Path, heap: &str, program: &str, n: &str, mode: &str) -> GcRun {
    let (out, err) = run_output(
        Command::new(vm)
            .env("FASTPATH_GC_MODE", mode)
            .env("FASTPATH_VM_GC_STATS", "1")
            .args([format!("-Xmx{heap}"), format!("-Xms{heap}")])
            .arg("-cp")
            .arg(classes)
            .args(["Harness", "--checksum", program, n]),
    );
    let (mean_ms, peak_ms, checksums) = gc_iterations(&out);
    let g = gc_log::FastpathGc::parse(&err).unwrap_or_else(|e| panic!("{e}"));
    GcRun {
        mean_ms,
        peak_ms,
        checksums,
        cycles: g.cycles,
        degenerated: g.degenerated,
        full: g.full,
        pauses: g.pauses,
        at_safepoint_us: g.at_safepoint_us,
        cpu_us: Some(g.cpu_us),
        total_us: g.total_us,
    }
}

/// HotSpot's run, `collector` its `-XX:+Use…GC` flag (the log's pauses
/// are Shenandoah's only: another collector's read as none).
fn gc_hotspot(java: &Path, classes: &Path, heap: &str, program: &str, n: &str, collector: &str) -> GcRun {
    let log = classes.join("hotspot-gc.log");
    let _ = std::fs::remove_file(&log);
    let (out, _) = run_output(
        Command::new(java)
            .args([collector, &format!("-Xmx{heap}"), &format!("-Xms{heap}")])
            .arg(format!("-Xlog:gc,safepoint:file={}", log.display()))
            .arg("-cp")
            .arg(classes)
            .args(["Harness", "--checksum", program, n]),
    );
    let (mean_ms, peak_ms, checksums) = gc_iterations(&out);
    let text = std::fs::read_to_string(&log).expect("HotSpot's -Xlog file");
    let g = gc_log::HotspotGc::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let sorted = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v
    };
    let (at, total) = (sorted(&g.at_safepoint_us), sorted(&g.total_us));
    GcRun {
        mean_ms,
        peak_ms,
        checksums,
        cycles: g.cycles,
        degenerated: g.degenerated,
        full: g.full,
        pauses: at.len() as u64,
        at_safepoint_us: [
            gc_log::nearest_rank(&at, 0.5),
            gc_log::nearest_rank(&at, 0.99),
            gc_log::nearest_rank(&at, 1.0),
        ],
        cpu_us: None,
        total_us: [
            gc_log::nearest_rank(&total, 0.99),
            gc_log::nearest_rank(&total, 1.0),
        ],
    }
}

/// One side's figures over its rounds: peak ms (median), at-safepoint
/// p50 (median of the runs'), p99 and max (the largest), total p99 (the
/// largest), the pausing thread's CPU time p99 (the largest), pauses and
/// cycles per run (medians), degenerated and full collections (sums over
/// the runs).
struct GcSide {
    mean_ms: f64,
    peak_ms: f64,
    at_safepoint_us: [f64; 3],
    cpu_p99_us: Option<f64>,
    total_p99_us: f64,
    pauses: f64,
    cycles: f64,
    degenerated: u64,
    full: u64,
}

fn gc_side(runs: &[GcRun]) -> GcSide {
    let med = |f: &dyn Fn(&GcRun) -> f64| median(&mut runs.iter().map(f).collect::<Vec<_>>());
    let most = |f: &dyn Fn(&GcRun) -> f64| runs.iter().map(f).fold(0.0, f64::max);
    GcSide {
        mean_ms: med(&|r| r.mean_ms),
        peak_ms: med(&|r| r.peak_ms),
        at_safepoint_us: [
            med(&|r| r.at_safepoint_us[0]),
            most(&|r| r.at_safepoint_us[1]),
            most(&|r| r.at_safepoint_us[2]),
        ],
        cpu_p99_us: runs
            .iter()
            .map(|r| r.cpu_us.map(|c| c[0]))
            .collect::<Option<Vec<f64>>>()
            .map(|v| v.into_iter().fold(0.0, f64::max)),
        total_p99_us: most(&|r| r.total_us[0]),
        pauses: med(&|r| r.pauses as f64),
        cycles: med(&|r| r.cycles as f64),
        degenerated: runs.iter().map(|r| r.degenerated).sum(),
        full: runs.iter().map(|r| r.full).sum(),
    }
}

fn gc(jdk: &Path, classes: &Path, rounds: usize, iterations: usize, heap: &str, only: &[String]) {
    let java = jdk.join("bin/java");
    let vm = vm();
    let n = iterations.to_string();
    let mut rows = Vec::new();
    for p in GC_PROGRAMS
        .iter()
        .filter(|p| only.is_empty() || only.iter().any(|o| o == *p))
    {
        // Concurrent fastpath-vm, Shenandoah, and the stop-the-world
        // baselines: fastpath-vm passive (same barriers, collections in
        // pauses) and HotSpot's Parallel GC.
        let mut runs: [Vec<GcRun>; 4] = Default::default();
        for _ in 0..rounds {
            runs[0].push(gc_fastpath(&vm, classes, heap, p, &n, "concurrent"));
            runs[1].push(gc_hotspot(&java, classes, heap, p, &n, "-XX:+UseShenandoahGC"));
            runs[2].push(gc_fastpath(&vm, classes, heap, p, &n, "passive"));
            runs[3].push(gc_hotspot(&java, classes, heap, p, &n, "-XX:+UseParallelGC"));
        }
        // Every run of both VMs computes the same results, iteration by iteration.
        let reference = runs[1][0].checksums.clone();
        for r in runs.iter().flatten() {
            assert_eq!(r.checksums, reference, "{p}: checksums differ between runs");
        }
        let sides = runs.each_ref().map(|r| gc_side(r));
        rows.push((p, sides, *reference.last().unwrap()));
    }
    println!(
        "### Allocation-heavy programs, concurrent collectors at `-Xmx{heap} -Xms{heap}` ({rounds} rounds of {iterations} iterations, interleaved; time per iteration: the mean of each run's second half, then the median over rounds; the median of the iterations beside it; at safepoint: p50 the median of the runs', p99 and max the largest; per run: medians; degenerated + full: all runs)\n"
    );
    println!("| program | fastpath-vm concurrent ms | HotSpot Shenandoah ms | concurrent ÷ Shenandoah | passive ÷ Parallel (ms) | fastpath concurrent ÷ passive, Shenandoah ÷ Parallel | median iteration ms, fastpath / Shenandoah | at safepoint p50 / p99 / max µs (CPU p99), fastpath | at safepoint p50 / p99 / max µs, Shenandoah | total p99 µs, fastpath / Shenandoah | per run pauses, cycles (degenerated + full), fastpath | the same, Shenandoah | checksums |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    let (mut throughput_met, mut pauses_met) = (0, 0);
    let us3 = |s: &GcSide| {
        let a = s.at_safepoint_us;
        let cpu = s.cpu_p99_us.map_or(String::new(), |c| format!(" ({c:.0})"));
        format!("{:.0} / {:.0} / {:.0}{cpu}", a[0], a[1], a[2])
    };
    let collections = |s: &GcSide| {
        format!(
            "{:.0}, {:.0} ({} + {})",
            s.pauses, s.cycles, s.degenerated, s.full
        )
    };
    for (p, s, last) in &rows {
        let ratio = s[0].mean_ms / s[1].mean_ms;
        throughput_met += usize::from(ratio <= 1.0);
        pauses_met += usize::from(s[0].at_safepoint_us[1] < 1000.0);
        println!(
            "| {p} | {:.2} | {:.2} | **{ratio:.2}** | {:.2} ({:.2} / {:.2}) | {:.2}, {:.2} | {:.2} / {:.2} | {} | {} | {:.0} / {:.0} | {} | {} | agree in {} runs (last: {last}) |",
            s[0].mean_ms,
            s[1].mean_ms,
            s[2].mean_ms / s[3].mean_ms,
            s[2].mean_ms,
            s[3].mean_ms,
            s[0].mean_ms / s[2].mean_ms,
            s[1].mean_ms / s[3].mean_ms,
            s[0].peak_ms,
            s[1].peak_ms,
            us3(&s[0]),
            us3(&s[1]),
            s[0].total_p99_us,
            s[1].total_p99_us,
            collections(&s[0]),
            collections(&s[1]),
            4 * rounds
        );
    }
    println!(
        "\nGoal (issue 38): throughput ≥ HotSpot Shenandoah's (concurrent ÷ Shenandoah ≤ 1.00) on {throughput_met} of {}; fastpath at-safepoint p99 < 1 ms on {pauses_met} of {}\n",
        rows.len(),
        rows.len()
    );
}

fn interp(jdk: &Path, classes: &Path, rounds: usize, iterations: usize, only: &[String]) {
    let java = jdk.join("bin/java");
    let vm = vm();
    println!("### Interpreter: time per iteration ({rounds} rounds of {iterations} iterations, interleaved; medians)\n");
    println!("| benchmark | fastpath-vm `-Xint` ms | HotSpot `-Xint` ms | ratio |");
    println!("|---|---:|---:|---:|");
    let mut logs = Vec::new();
    for p in PROGRAMS
        .iter()
        .filter(|p| only.is_empty() || only.iter().any(|o| o == *p))
    {
        let (mut v, mut h) = (Vec::new(), Vec::new());
        let n = iterations.to_string();
        for _ in 0..rounds {
            // `-Xint`: the default tiers compile.
            v.push(harness_run(
                Command::new(&vm)
                    .arg("-Xint")
                    .arg("-cp")
                    .arg(classes)
                    .args(["Harness", p, &n]),
            ));
            h.push(harness_run(
                Command::new(&java)
                    .arg("-Xint")
                    .arg("-cp")
                    .arg(classes)
                    .args(["Harness", p, &n]),
            ));
        }
        let (v, h) = (median(&mut v), median(&mut h));
        logs.push((v / h).ln());
        println!("| {p} | {v:.1} | {h:.1} | {:.2} |", v / h);
    }
    let geo = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
    let worst = logs.iter().cloned().fold(f64::MIN, f64::max).exp();
    println!("| **geometric mean** | | | **{geo:.2}** (worst {worst:.2}) |\n");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let what = args.first().cloned().unwrap_or_else(|| "all".into());
    let opt = |name: &str, default: usize| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let only: Vec<String> = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .map(|v| v.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    let jdk = jdk();
    let src = std::env::var_os("FASTPATH_VM_BENCH_SRC")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/java"));
    let classes = std::env::temp_dir().join(format!("fastpath-vm-bench-{}", std::process::id()));
    compile(&jdk, &src, &classes);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "load average at start: {}",
        load.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    );
    if what == "startup" || what == "all" {
        startup(&jdk, &classes, opt("--rounds", 21));
    }
    if what == "interp" || what == "all" {
        interp(&jdk, &classes, opt("--rounds", 3), opt("--iterations", 4), &only);
    }
    if what == "jit" || what == "all" {
        jit(&jdk, &classes, opt("--rounds", 3), opt("--iterations", 10), &only);
    }
    if what == "gc" || what == "all" {
        let heap = args
            .iter()
            .position(|a| a == "--heap")
            .and_then(|i| args.get(i + 1))
            .cloned()
            .unwrap_or_else(|| "64m".into());
        gc(
            &jdk,
            &classes,
            opt("--rounds", 3),
            opt("--iterations", 20),
            &heap,
            &only,
        );
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "load average at end: {}",
        load.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    );
    let _ = std::fs::remove_dir_all(&classes);
}
