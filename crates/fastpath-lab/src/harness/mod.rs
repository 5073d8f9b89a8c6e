//! Measurement: warm-up, timed iterations of auto-sized batches, statistics,
//! progress.
//!
//! Where it sits: an experiment hands the harness a closure that performs an
//! operation `n` times; the harness sizes `n` so that one batch is long
//! against the clock's resolution, warms up, times a number of iterations,
//! and returns [`Stats`] of nanoseconds per operation, which `report` turns
//! into tables and JMH JSON. Multi-threaded experiments time themselves and
//! use [`Stats::from_samples`] directly.
//!
//! The shape follows JMH's average-time mode: each iteration runs batches
//! until its time is up and scores total time / total operations; the error
//! is the 99.9% confidence half-width over iterations.

pub mod baseline;
pub mod interleave;
pub mod perfnorm;
pub mod process;
pub mod rng;
pub mod ticks;
pub mod zipf;

/// This thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`): what a thread spent
/// running, which time-sharing on a loaded machine does not stretch as it
/// stretches the wall clock.
pub fn thread_cpu_time() -> std::time::Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    std::time::Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::stats::Stats;

/// How long to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Warm-up iterations, discarded.
    pub warmup_iterations: usize,
    /// Measured iterations (samples).
    pub iterations: usize,
    /// Target duration of one iteration.
    pub iteration_time: Duration,
}

impl Settings {
    /// Seconds in all, for CI and `fastpath all`.
    pub const QUICK: Settings = Settings {
        warmup_iterations: 2,
        iterations: 5,
        iteration_time: Duration::from_millis(20),
    };
    /// The default for a single experiment.
    pub const FULL: Settings = Settings {
        warmup_iterations: 5,
        iterations: 10,
        iteration_time: Duration::from_millis(200),
    };

    /// [`Settings::QUICK`] or [`Settings::FULL`].
    pub fn new(quick: bool) -> Settings {
        if quick {
            Self::QUICK
        } else {
            Self::FULL
        }
    }
}

/// Runs `op(n)` (which must perform the measured operation `n` times) and
/// returns nanoseconds per operation over the measured iterations.
pub fn measure_ns_per_op(settings: &Settings, mut op: impl FnMut(u64)) -> Stats {
    let batch = calibrate_batch(settings.iteration_time, &mut op);
    for _ in 0..settings.warmup_iterations {
        run_for(settings.iteration_time, batch, &mut op);
    }
    let samples = (0..settings.iterations)
        .map(|_| run_for(settings.iteration_time, batch, &mut op))
        .collect();
    Stats::from_samples(samples)
}

/// The batch size: the smallest power of two whose run takes at least a
/// twentieth of a sample of length `sample` (so that the clock read is
/// noise, and a sample still holds many batches).
///
/// A size is accepted only when a second run of it also takes a quarter of
/// the target: one slow call (a first call that registers with the kernel,
/// faults pages in or spawns a thread) must not fix the batch at 1 and turn
/// every sample into one operation plus a clock read (a first inflation
/// that registers `membarrier` takes milliseconds: the benchmarks notebook,
/// `docs/benchmarks-log-2026.md`, "Locking, sync-churn").
pub(crate) fn calibrate_batch(sample: Duration, op: &mut impl FnMut(u64)) -> u64 {
    let target = sample / 20;
    let mut n = 1u64;
    loop {
        if n >= 1 << 40 {
            return n;
        }
        let t = Instant::now();
        op(n);
        if t.elapsed() >= target {
            let t = Instant::now();
            op(n);
            if t.elapsed() >= target / 4 {
                return n;
            }
        }
        n *= 2;
    }
}

/// One sample: batches of `batch` operations until `time` is up; nanoseconds
/// per operation.
pub(crate) fn run_for(time: Duration, batch: u64, op: &mut impl FnMut(u64)) -> f64 {
    let start = Instant::now();
    let mut ops = 0u64;
    loop {
        op(batch);
        ops += batch;
        let elapsed = start.elapsed();
        if elapsed >= time {
            return elapsed.as_nanos() as f64 / ops as f64;
        }
    }
}

/// Runs `op` once per sample, `samples` times after `warmup` discarded runs,
/// and returns each run's duration in nanoseconds (for operations too long
/// to batch, such as a whole install storm or a process start).
pub fn measure_single_shot(warmup: usize, samples: usize, mut op: impl FnMut()) -> Stats {
    for _ in 0..warmup {
        op();
    }
    let samples = (0..samples.max(1))
        .map(|_| {
            let t = Instant::now();
            op();
            t.elapsed().as_nanos() as f64
        })
        .collect();
    Stats::from_samples(samples)
}

/// A progress bar on stderr when stderr is a terminal, hidden otherwise.
pub fn progress(len: u64, what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{prefix:>12} [{bar:30}] {pos}/{len} {msg}")
            .expect("static template")
            .progress_chars("=> "),
    );
    bar.set_prefix(what.to_string());
    bar
}

/// Prevents the optimizer from deleting a computation whose result is unused.
#[inline(always)]
pub fn black_box<T>(x: T) -> T {
    std::hint::black_box(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_a_known_delay_in_the_right_order_of_magnitude() {
        let s = Settings {
            warmup_iterations: 1,
            iterations: 3,
            iteration_time: Duration::from_millis(5),
        };
        let stats = measure_ns_per_op(&s, |n| {
            for _ in 0..n {
                std::thread::sleep(Duration::from_micros(100));
            }
        });
        assert_eq!(stats.samples.len(), 3);
        // A 100 µs sleep can only take longer, never shorter.
        assert!(stats.min >= 100_000.0, "{stats:?}");
    }

    #[test]
    fn one_slow_first_call_does_not_fix_the_batch_at_one() {
        let s = Settings {
            warmup_iterations: 0,
            iterations: 1,
            iteration_time: Duration::from_millis(20),
        };
        let mut first = true;
        let batch = calibrate_batch(s.iteration_time, &mut |n| {
            if std::mem::take(&mut first) {
                std::thread::sleep(Duration::from_millis(5));
            }
            for i in 0..n {
                black_box(i);
            }
        });
        // Without the confirming run the 5 ms first call (over the 1 ms
        // target) would return 1; a batch of `black_box` calls never takes
        // 0.25 ms until it is large.
        assert!((1024..1 << 40).contains(&batch), "batch {batch}");
    }

    #[test]
    fn single_shot_counts_samples() {
        let mut runs = 0;
        let stats = measure_single_shot(2, 4, || runs += 1);
        assert_eq!(runs, 6);
        assert_eq!(stats.samples.len(), 4);
    }
}
