//! How long one pause takes on this CPU, measured once.
//!
//! Where it sits: [`super::wait::SpinWait`] takes its budget in nanoseconds
//! and converts it to a pause count with a [`Calibration`]; the lab prints
//! it next to its own measurements. PAUSE costs about 10 cycles before
//! Skylake and about 140 after it, ISB differs from one Arm core to the
//! next, and `pause:4` is four of either, so "spin 4096 times" (HotSpot's
//! `SpinYield`) means 10 µs on one machine and 200 µs on another. .NET solved
//! the same problem by measuring its spin-wait once at start-up and
//! normalizing iteration counts (`Thread.OptimalMaxSpinWaitsPerSpinIteration`,
//! .NET Core 3.0); this is the same idea.
//!
//! Theory of operation: time batches of pauses with [`Instant`] (the
//! vDSO `CLOCK_MONOTONIC`), doubling the batch until one lasts at least
//! [`Calibration::MIN_BATCH`] so the clock's own cost (~20–30 ns) is noise,
//! then keep timing batches of that size and take the fastest: interference
//! (an interrupt, a preemption, a sibling hyperthread) only ever adds time.
//! Everything stops once [`Calibration::TIME_LIMIT`] (100 µs) would be
//! exceeded, so the first caller pays at most that (plus any preemption).
//! A batch that a preemption interrupted is timed again, not kept
//! (`fastest_batch`).
//!
//! The hardware counter (x86 TSC, AArch64 CNTVCT_EL0) is read alongside to
//! report ticks per pause. Its frequency is not trusted from CPUID leaf 0x15
//! (zero on AMD and on many KVM guests) nor read from /proc: it is measured
//! against `Instant` over the calibration window, which is accurate to about
//! the clock's resolution over 100 µs (well under 1%).

use std::hint::black_box;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::settings::SpinPause;
use super::strategy::{ConfiguredPause, PauseStrategy};

/// Nanoseconds per pause for one strategy on this CPU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibration {
    /// The strategy measured.
    pub strategy: SpinPause,
    /// Nanoseconds per pause (the fastest batch), always positive and
    /// finite.
    pub ns_per_pause: f64,
    /// Hardware-counter ticks per pause in that batch (TSC on x86-64,
    /// CNTVCT_EL0 on AArch64), if the architecture has one.
    pub ticks_per_pause: Option<f64>,
    /// The counter's frequency measured against `Instant`, in Hz.
    pub counter_hz: Option<f64>,
    /// Pauses executed in all.
    pub pauses_timed: u64,
    /// Wall time the calibration took.
    pub took: Duration,
}

impl Calibration {
    /// The most a calibration spends (unless the thread is preempted).
    pub const TIME_LIMIT: Duration = Duration::from_micros(100);
    /// The shortest batch whose time is trusted.
    pub const MIN_BATCH: Duration = Duration::from_micros(2);
    /// Floor of [`Calibration::ns_per_pause`]: a `none` pause costs a loop
    /// iteration, a fraction of a nanosecond; the floor only keeps the
    /// division in [`Calibration::pauses_for`] finite.
    pub const MIN_NS_PER_PAUSE: f64 = 0.01;

    /// Measures `strategy` now, in at most [`Calibration::TIME_LIMIT`] of
    /// batches that ran undisturbed.
    pub fn measure<S: PauseStrategy>(strategy: S) -> Calibration {
        // One untimed pause first: for `ConfiguredPause` the first call resolves the
        // configuration (CPUID exits under a hypervisor, tens of µs), which
        // would otherwise eat the time limit inside the first batch.
        strategy.pause();
        let (start, c_start) = instant_and_counter();
        let (ns, ticks, pauses_timed) = fastest_batch(|batch| {
            let t0 = Instant::now();
            let k0 = counter();
            for i in 0..batch {
                strategy.pause();
                // Keeps the loop (and so one iteration per pause) even when
                // the pause is empty.
                black_box(i);
            }
            let k1 = counter();
            (t0.elapsed(), k0.zip(k1).map(|(a, b)| b.wrapping_sub(a) as f64))
        });
        let (end, c_end) = instant_and_counter();
        let took = end - start;
        let counter_hz = c_start
            .zip(c_end)
            .map(|(a, b)| b.wrapping_sub(a) as f64 / took.as_secs_f64())
            .filter(|hz| hz.is_finite() && *hz > 0.0);
        Calibration {
            strategy: strategy.describe(),
            ns_per_pause: if ns.is_finite() {
                ns.max(Self::MIN_NS_PER_PAUSE)
            } else {
                Self::MIN_NS_PER_PAUSE
            },
            ticks_per_pause: ticks,
            counter_hz,
            pauses_timed,
            took,
        }
    }

    /// A calibration with a known cost per pause (tests, simulations, a
    /// runtime that measured elsewhere).
    pub fn assumed(strategy: SpinPause, ns_per_pause: f64) -> Calibration {
        Calibration {
            strategy,
            ns_per_pause: if ns_per_pause.is_finite() {
                ns_per_pause.max(Self::MIN_NS_PER_PAUSE)
            } else {
                Self::MIN_NS_PER_PAUSE
            },
            ticks_per_pause: None,
            counter_hz: None,
            pauses_timed: 0,
            took: Duration::ZERO,
        }
    }

    /// How many pauses fill `ns` nanoseconds (rounded up, so any positive
    /// budget spins at least once; saturating at `u32::MAX`). Monotonic in
    /// `ns`.
    pub fn pauses_for(&self, ns: u64) -> u32 {
        let n = (ns as f64 / self.ns_per_pause).ceil();
        if n >= u32::MAX as f64 {
            u32::MAX
        } else {
            n as u32
        }
    }
}

/// A batch this long was interrupted (preempted, or its vCPU descheduled):
/// batches only grow while shorter than [`Calibration::MIN_BATCH`], so an
/// undisturbed one lasts a few microseconds.
const INTERRUPTED_BATCH: Duration = Duration::from_micros(25);

/// Interrupted batches timed again, at most, before one is kept anyway (a
/// strategy whose eight pauses truly take that long).
const MAX_RETIMED: u32 = 16;

/// The batch policy of [`Calibration::measure`]: `time(n)` runs `n`
/// pauses and returns their wall time and counter ticks. Doubles the batch
/// until it lasts [`Calibration::MIN_BATCH`], then keeps the fastest batch
/// of that size, until 16 were timed or the next would cross
/// [`Calibration::TIME_LIMIT`]. An interrupted batch is timed again rather
/// than kept: one that counted would end the calibration (its length alone
/// crosses the limit) with a cost per pause a thousand times too high, and
/// every spin budget after it a thousand times too short. Returns the
/// fastest batch's nanoseconds and ticks per pause, and the pauses timed.
fn fastest_batch(mut time: impl FnMut(u64) -> (Duration, Option<f64>)) -> (f64, Option<f64>, u64) {
    let mut batch: u64 = 8;
    let mut best: Option<(f64, Option<f64>)> = None;
    let mut good_batches = 0;
    let mut pauses_timed = 0u64;
    // Time spent in batches that were not interrupted.
    let mut spent = Duration::ZERO;
    let mut retimed = 0;
    loop {
        let (dt, ticks) = time(batch);
        pauses_timed += batch;
        if dt >= INTERRUPTED_BATCH && retimed < MAX_RETIMED {
            retimed += 1;
            continue;
        }
        spent += dt;
        let per = dt.as_nanos() as f64 / batch as f64;
        let ticks = ticks.map(|t| t / batch as f64);
        if dt >= Calibration::MIN_BATCH {
            good_batches += 1;
            if best.is_none_or(|(b, _)| per < b) {
                best = Some((per, ticks));
            }
        } else {
            // Too short to trust; the last (longest) one stands in if
            // nothing longer fits in the time limit.
            if good_batches == 0 {
                best = Some((per, ticks));
            }
            batch = batch.saturating_mul(2);
        }
        // Stop before a next batch (at most twice this one) would cross
        // the limit.
        if good_batches >= 16 || spent + dt * 2 >= Calibration::TIME_LIMIT {
            break;
        }
    }
    let (ns, ticks) = best.expect("the loop times at least one batch");
    (ns, ticks, pauses_timed)
}

/// The calibration of the process-wide strategy ([`super::pause`], dispatch
/// included), measured on first call (≤ 100 µs) and cached.
pub fn calibration() -> &'static Calibration {
    static CAL: OnceLock<Calibration> = OnceLock::new();
    CAL.get_or_init(|| Calibration::measure(ConfiguredPause))
}

/// The hardware counter, read after prior instructions completed.
#[inline(always)]
/// An `Instant` and the counter read together, for the counter's rate: a
/// pair whose reads a preemption separated would charge the counter with
/// the time the thread was away (9 ms against a 1 ms calibration: an
/// eightfold rate), so the pair is read between two `Instant`s and kept
/// when they lie within [`Calibration::MIN_BATCH`] of each other (the
/// closest of a few tries otherwise).
fn instant_and_counter() -> (Instant, Option<u64>) {
    let mut best: Option<(Duration, Instant, Option<u64>)> = None;
    for _ in 0..4 {
        let before = Instant::now();
        let k = counter();
        let after = Instant::now();
        let gap = after - before;
        if best.as_ref().is_none_or(|b| gap < b.0) {
            best = Some((gap, before + gap / 2, k));
        }
        if gap < Calibration::MIN_BATCH {
            break;
        }
    }
    let (_, at, k) = best.expect("at least one try");
    (at, k)
}

fn counter() -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        crate::arch::x86_64::lfence();
        Some(crate::arch::x86_64::rdtsc())
    }
    #[cfg(target_arch = "aarch64")]
    {
        crate::arch::aarch64::isb();
        Some(crate::arch::aarch64::cntvct_el0())
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spin::NoPause;

    #[test]
    fn global_calibration_is_sane_and_cached() {
        let c = calibration();
        assert!(c.ns_per_pause.is_finite() && c.ns_per_pause > 0.0, "{c:?}");
        assert!(c.pauses_timed > 0);
        assert!(std::ptr::eq(c, calibration()));
        assert_eq!(c.strategy, crate::spin::active());
        // Calibration takes about a millisecond of wall time; the bound is
        // for an order-of-magnitude regression, with room for a preempted
        // thread on a shared machine, emulation and AddressSanitizer.
        assert!(c.took < Duration::from_millis(500), "{c:?}");
        if cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
            let hz = c.counter_hz.expect("a counter");
            assert!(hz > 1e6 && hz < 1e11, "{hz}");
            // Ticks and nanoseconds come from the same batch, so the counter
            // rate links them; a loose band absorbs the rate's own noise.
            let ticks = c.ticks_per_pause.expect("ticks with a counter");
            let expected = c.ns_per_pause * hz / 1e9;
            assert!(
                ticks.is_finite() && ticks > 0.0 && (0.25..4.0).contains(&(ticks / expected)),
                "{ticks} ticks per pause against {expected} from ns and Hz: {c:?}"
            );
        }
    }

    /// A batch interrupted by a preemption is timed again, not kept: kept,
    /// it ends the calibration at once with a cost per pause far too high.
    #[test]
    fn an_interrupted_batch_is_timed_again() {
        // 1 ns a pause, except the first batch of 16, which a 5 ms
        // preemption interrupts.
        let mut calls = 0;
        let (ns, ticks, timed) = fastest_batch(|n| {
            calls += 1;
            let ns = if n == 16 && calls == 2 { 5_000_000 } else { n };
            (Duration::from_nanos(ns), Some(ns as f64 * 3.0))
        });
        assert_eq!(ns, 1.0, "the undisturbed batches' cost");
        assert_eq!(ticks, Some(3.0));
        assert!(
            timed > 16 * 2048,
            "batches of 2048 pauses (2 µs) timed after: {timed}"
        );
        // A strategy whose every batch is that slow still gets its measure.
        let (ns, _, timed) = fastest_batch(|n| (Duration::from_micros(30 * n), None));
        assert_eq!(ns, 30_000.0);
        assert_eq!(
            timed,
            8 * (u64::from(MAX_RETIMED) + 1),
            "retimed at most MAX_RETIMED times"
        );
    }

    #[test]
    fn none_is_positive_and_finite() {
        let c = Calibration::measure(NoPause);
        assert!(c.ns_per_pause.is_finite() && c.ns_per_pause > 0.0, "{c:?}");
        assert_eq!(c.strategy.to_string(), "none");
    }

    #[test]
    fn pauses_for_is_monotonic_and_rounds_up() {
        for cal in [
            *calibration(),
            Calibration::measure(NoPause),
            Calibration::assumed(crate::spin::active(), 37.5),
            Calibration::assumed(crate::spin::active(), f64::NAN),
        ] {
            let mut last = 0;
            for ns in (0..2_000_000u64).step_by(997).chain([u64::MAX / 2, u64::MAX]) {
                let n = cal.pauses_for(ns);
                assert!(n >= last, "{ns} ns: {n} < {last} ({cal:?})");
                last = n;
            }
            assert_eq!(cal.pauses_for(0), 0);
            assert!(cal.pauses_for(1) >= 1);
        }
        let c = Calibration::assumed(crate::spin::active(), 40.0);
        assert_eq!(c.pauses_for(400), 10);
        assert_eq!(c.pauses_for(401), 11);
    }
}
