//! Waiting with a budget in nanoseconds: pause, then yield, then park.
//!
//! Where it sits: a spin loop that can also block (the [`super::handoff`]
//! slot and the [`super::lock`] mutex) asks a [`SpinWait`] what to do each
//! time its condition is still false. (The object monitors of `sync` do not:
//! they spin their own HotSpot-shaped loops, calling [`super::pause`]
//! directly, and park on their own queue.) The answer is a [`Step`]: it paused ([`Step::Spun`]), it yielded
//! the CPU ([`Step::Yielded`]), or the budget is spent and the caller should
//! park ([`Step::Park`]). The budget is a time ([`Budget`]), turned into a
//! pause count once per CPU with a [`Calibration`], so the same budget means
//! the same wait on a 10-cycle PAUSE and a 140-cycle one.
//!
//! Theory of operation: the pause phase backs off exponentially, 1, 2, 4 …
//! pauses per step, so the first re-checks come quickly for a short wait and
//! later ones touch the contended line less often; the steps stop when the
//! calibrated count is reached. A step is capped at
//! [`SpinWait::MAX_PAUSES_PER_STEP`] pauses (2⁶, crossbeam's `SPIN_LIMIT`)
//! *and* at [`Budget::MAX_STEP_NS`] of pausing: with a 40 ns PAUSE, 64
//! pauses would leave 2.5 µs between two looks at the condition, more than
//! the whole handoff it is waiting for, while with a 0.4 ns `none` the same
//! cap is 25 ns. Then come up
//! to `yields` `sched_yield`s, which on an oversubscribed machine let the
//! thread the caller waits for run. Then [`Step::Park`] until [`SpinWait::reset`].
//!
//! ```
//! use std::sync::atomic::{AtomicBool, Ordering};
//! use fastpath::spin::{SpinWait, Step};
//! let ready = AtomicBool::new(false);
//! std::thread::scope(|s| {
//!     s.spawn(|| ready.store(true, Ordering::Release));
//!     let mut wait = SpinWait::new();
//!     while !ready.load(Ordering::Acquire) {
//!         if wait.spin() == Step::Park {
//!             // A real caller blocks here (futex, condition variable) until
//!             // woken, as `spin::handoff` and `spin::lock` do.
//!             std::thread::sleep(std::time::Duration::from_micros(50));
//!             wait.reset();
//!         }
//!     }
//! });
//! ```
//!
//! How the default compares with the others (what each spends before it
//! blocks; the pause cost is a 2-vCPU Zen 5 KVM guest's 26 ns PAUSE):
//!
//! | | pauses | yields | then |
//! |---|---|---|---|
//! | HotSpot `SpinYield` (`utilities/spinYield.hpp`) | 4096, one per `wait()` | 64 | sleeps 1 µs (`naked_short_nanosleep`) per call, forever |
//! | crossbeam `Backoff::snooze` | 1+2+…+64 = 127 (`SPIN_LIMIT` 6) | 4 (steps 7–10, `YIELD_LIMIT` 10) | `is_completed()`: caller parks |
//! | parking_lot_core `SpinWait` | 2+4+8 = 14 (3 doubling rounds) | 7 (counter 4–10) | `spin()` returns false: caller parks |
//! | this [`Budget::DEFAULT`] | as many as fit in 30 µs (≈ 1150 × 26 ns PAUSE here), doubling per step up to 256 ns' worth | 2 | [`Step::Park`] |
//!
//! The counts of the first three are fixed, so their spin time moves with
//! the PAUSE latency by up to 14×; this one's is fixed in time. With this
//! machine's 26 ns PAUSE, HotSpot's 4096 pauses are ~107 µs, crossbeam's 127
//! are ~3.3 µs and parking_lot's 14 are ~0.4 µs (each then yields).

use super::calibration::{calibration, Calibration};
use super::strategy::{ConfiguredPause, PauseStrategy};

/// How long to spin, and how many yields to try, before parking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Budget {
    /// Nanoseconds of pausing.
    pub spin_ns: u64,
    /// `sched_yield` calls after the pauses.
    pub yields: u32,
}

impl Budget {
    /// The default: 30 µs of pauses, then 2 yields: about what a park/wake
    /// cycle costs on a 2-vCPU KVM guest (23–31 µs, the "park at once"
    /// handoff row of `fastpath spin`), as the 2-competitive rule spins as
    /// long as blocking costs (Karlin, Li, Manasse, Owicki, "Empirical
    /// studies of competitive spinning for a shared-memory multiprocessor",
    /// SOSP 1991), and near the best budget of both the handoff and the
    /// LRU tables (BENCHMARKS.md, "Spin pauses").
    pub const DEFAULT: Budget = Budget {
        spin_ns: 30_000,
        yields: 2,
    };
    /// The most pausing between two checks of the condition (see the
    /// module docs): 256 ns, about two cross-core cache-line transfers on
    /// this machine, so a waiter notices a change within about what the
    /// change took to reach it.
    pub const MAX_STEP_NS: u64 = 256;
    /// Park at once: no pauses, no yields.
    pub const PARK_AT_ONCE: Budget = Budget {
        spin_ns: 0,
        yields: 0,
    };

    /// A budget of `spin_ns` nanoseconds of pauses and `yields` yields.
    pub const fn new(spin_ns: u64, yields: u32) -> Budget {
        Budget { spin_ns, yields }
    }

    /// The budget as counts for a strategy with calibration `cal`.
    pub fn limits(self, cal: &Calibration) -> SpinLimits {
        SpinLimits {
            pauses: cal.pauses_for(self.spin_ns),
            yields: self.yields,
            max_step: cal
                .pauses_for(Self::MAX_STEP_NS)
                .clamp(1, SpinWait::<ConfiguredPause>::MAX_PAUSES_PER_STEP),
        }
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget::DEFAULT
    }
}

/// A [`Budget`] turned into counts for one strategy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SpinLimits {
    /// Pauses before yielding.
    pub pauses: u32,
    /// Yields before parking.
    pub yields: u32,
    /// Most pauses per [`SpinWait::spin`] step (0 is taken as 1; capped at
    /// [`SpinWait::MAX_PAUSES_PER_STEP`]).
    pub max_step: u32,
}

impl SpinLimits {
    /// `pauses` pauses (backing off up to 64 per step), then `yields` yields.
    pub const fn new(pauses: u32, yields: u32) -> SpinLimits {
        SpinLimits {
            pauses,
            yields,
            max_step: 64,
        }
    }
}

/// What [`SpinWait::spin`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// It paused; re-check the condition.
    Spun,
    /// It yielded the CPU; re-check the condition.
    Yielded,
    /// The budget is spent: park (and [`SpinWait::reset`] after waking, if
    /// the wait goes on).
    Park,
}

/// The state of one wait: how much of its budget is spent.
#[derive(Clone, Copy, Debug)]
pub struct SpinWait<S: PauseStrategy = ConfiguredPause> {
    strategy: S,
    limits: SpinLimits,
    pauses: u32,
    yields: u32,
    step: u32,
}

impl SpinWait<ConfiguredPause> {
    /// A wait with [`Budget::DEFAULT`] and the process-wide strategy.
    pub fn new() -> Self {
        Self::with_budget(Budget::DEFAULT)
    }

    /// A wait with `budget` and the process-wide strategy, using
    /// [`calibration`] (measured on first use, ≤ 100 µs).
    pub fn with_budget(budget: Budget) -> Self {
        SpinWait::with_limits(ConfiguredPause, budget.limits(calibration()))
    }
}

impl Default for SpinWait<ConfiguredPause> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: PauseStrategy> SpinWait<S> {
    /// Most pauses one [`SpinWait::spin`] executes (2⁶, crossbeam's cap).
    pub const MAX_PAUSES_PER_STEP: u32 = 64;

    /// A wait with explicit counts for `strategy`.
    pub fn with_limits(strategy: S, limits: SpinLimits) -> Self {
        SpinWait {
            strategy,
            limits,
            pauses: 0,
            yields: 0,
            step: 0,
        }
    }

    /// One step of waiting; see [`Step`].
    #[inline]
    pub fn spin(&mut self) -> Step {
        if self.pauses < self.limits.pauses {
            let cap = self.limits.max_step.clamp(1, Self::MAX_PAUSES_PER_STEP);
            let n = (1u32 << self.step.min(6))
                .min(cap)
                .min(self.limits.pauses - self.pauses);
            for i in 0..n {
                self.strategy.pause();
                // The same loop `Calibration::measure` timed, so `n` pauses
                // take the time the calibration says. Without it, the loop
                // of an empty strategy (`none`) is deleted by the optimiser
                // and its "1 µs" budget spun for ~80 ns.
                core::hint::black_box(i);
            }
            self.pauses += n;
            self.step += 1;
            // A loom model must be told that this thread is spinning, or it
            // would explore the loop forever.
            #[cfg(loom)]
            loom::thread::yield_now();
            Step::Spun
        } else if self.yields < self.limits.yields {
            self.yields += 1;
            super::primitives::yield_now();
            Step::Yielded
        } else {
            Step::Park
        }
    }

    /// Starts the budget over (after a park, or for a new wait).
    #[inline]
    pub fn reset(&mut self) {
        self.pauses = 0;
        self.yields = 0;
        self.step = 0;
    }

    /// Pauses executed since the last reset.
    pub fn pauses(&self) -> u32 {
        self.pauses
    }

    /// Yields executed since the last reset.
    pub fn yields(&self) -> u32 {
        self.yields
    }

    /// The counts this wait was built with.
    pub fn limits(&self) -> SpinLimits {
        self.limits
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::spin::NoPause;

    /// Runs a wait to exhaustion; returns (steps that spun, pauses, yields).
    fn drain<S: PauseStrategy>(w: &mut SpinWait<S>) -> (u32, u32, u32) {
        let mut spun = 0;
        let mut yielded = 0;
        loop {
            match w.spin() {
                Step::Spun => spun += 1,
                Step::Yielded => {
                    // Yields come only after every pause.
                    assert_eq!(w.pauses(), w.limits().pauses);
                    yielded += 1
                }
                Step::Park => return (spun, w.pauses(), yielded),
            }
            assert!(spun + yielded < 1_000_000, "a wait must end");
        }
    }

    #[test]
    fn state_machine_pauses_then_yields_then_parks() {
        let mut w = SpinWait::with_limits(NoPause, SpinLimits::new(200, 3));
        let (steps, pauses, yields) = drain(&mut w);
        assert_eq!((pauses, yields), (200, 3));
        // 1+2+4+8+16+32+64 = 127, then 64 (191), then the remaining 9.
        assert_eq!(steps, 9);
        // Park is sticky until reset.
        assert_eq!(w.spin(), Step::Park);
        assert_eq!(w.spin(), Step::Park);
        w.reset();
        assert_eq!(w.spin(), Step::Spun);
        assert_eq!(w.pauses(), 1);

        // A per-step cap of 5: 1, 2, 4, 5, 5, ... pauses per step.
        let mut capped = SpinWait::with_limits(
            NoPause,
            SpinLimits {
                max_step: 5,
                ..SpinLimits::new(27, 0)
            },
        );
        let mut per_step = Vec::new();
        while capped.spin() == Step::Spun {
            per_step.push(capped.pauses());
        }
        assert_eq!(per_step, [1, 3, 7, 12, 17, 22, 27]);

        let mut at_once = SpinWait::with_limits(NoPause, Budget::PARK_AT_ONCE.limits(calibration()));
        assert_eq!(at_once.spin(), Step::Park);
        let mut yields_only = SpinWait::with_limits(NoPause, SpinLimits::new(0, 1));
        assert_eq!(yields_only.spin(), Step::Yielded);
        assert_eq!(yields_only.spin(), Step::Park);
    }

    #[test]
    fn pause_count_is_monotonic_in_the_budget() {
        let cal = calibration();
        let mut last = 0;
        for ns in [0, 1, 10, 100, 1_000, 5_000, 10_000, 50_000, 1_000_000] {
            let mut w = SpinWait::with_limits(ConfiguredPause, Budget::new(ns, 0).limits(cal));
            let (_, pauses, _) = drain(&mut w);
            assert!(pauses >= last, "{ns} ns -> {pauses} pauses < {last}");
            assert_eq!(pauses, cal.pauses_for(ns));
            last = pauses;
        }
        assert!(last > 0);
    }

    #[test]
    fn default_wait_uses_the_global_calibration() {
        let w = SpinWait::new();
        assert_eq!(w.limits(), Budget::DEFAULT.limits(calibration()));
        assert!(w.limits().pauses > 0);
    }
}
