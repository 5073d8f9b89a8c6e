//! Spin pauses (seed 004: "AArch64: implementing spin pauses with ISB"),
//! time-calibrated, and the spin-then-yield-then-park waiting built on them.
//!
//! Where it sits: `settings.rs` owns and parses `FASTPATH_SPIN_PAUSE`
//! ([`SpinPause`]) and resolves `auto` for the CPU ([`SpinPause::auto_for`],
//! HotSpot's ergonomics); this module emits the instructions through [`crate::arch`], and offers
//! them to every spin loop of the runtime: [`pause`] for code that spins
//! with the process-wide choice (the object monitors of `sync` call it),
//! the [`PauseStrategy`] types for code generic over a strategy (the lab
//! compares them in one process), and on top:
//!
//! | file (private; the API is re-exported here) | what |
//! |---|---|
//! | `settings.rs` | the setting: [`SpinPause`], [`PauseInstruction`], resolution of `auto` |
//! | `strategy.rs` | [`PauseStrategy`]: one zero-sized type per instruction, [`Repeat<S, N>`](Repeat), [`ConfiguredPause`] |
//! | `calibration.rs` | [`Calibration`]: nanoseconds per pause on this CPU, measured once in ≤ 100 µs |
//! | `wait.rs` | [`SpinWait`]: a [`Budget`] in nanoseconds → pauses, then yields, then "park" |
//! | `park.rs` | the parking half: a mutex + condition variable keyed by a state word |
//! | `handoff.rs` | [`handoff_channel`]: a one-slot producer/consumer exchange (the seed's SynchronousQueue) |
//! | `lock.rs` | [`SpinParkMutex`], [`SpinParkLock`]: spin-then-park locks (the seed's `synchronized` LinkedHashMap) |
//!
//! # The cost of [`pause`]
//! The configured strategy is only known at run time, so [`pause`] is one
//! load of a function pointer (a relaxed load of a line that is never
//! written after start-up, so always an L1 hit) and one indirect call to a
//! function that is exactly the configured sequence (`pause`; `isb; isb`;
//! nothing). The indirect call is the one branch: its target never changes
//! after the first call, so the indirect-branch predictor gets it right every
//! time after the first iteration of a spin loop, and the call and return
//! cost a few cycles, against ~10–140 cycles for PAUSE itself and a
//! coherence miss for the condition the loop is waiting on. The
//! `fastpath spin` latency table measures it (`global` row against `pause`).
//! Before the first call the pointer names a `#[cold]` resolver, which reads
//! the process-wide `FASTPATH_SPIN_PAUSE`, resolves `auto`, stores the real target and
//! runs it; so no initialisation call is needed and nothing is checked on
//! the fast path.

mod calibration;
mod handoff;
mod lock;
mod park;
mod primitives;
mod settings;
mod strategy;
mod wait;

use core::sync::atomic::{AtomicPtr, AtomicU8, Ordering};
use std::sync::OnceLock;

pub use calibration::{calibration, Calibration};
pub use handoff::{handoff_channel, HandoffClosed, HandoffConsumer, HandoffProducer};
pub use lock::{SpinParkLock, SpinParkLockGuard, SpinParkMutex, SpinParkMutexGuard};
pub use settings::{PauseInstruction, SpinPause};
pub use strategy::{ConfiguredPause, NoPause, PauseStrategy, Repeat};
#[cfg(target_arch = "aarch64")]
pub use strategy::{Isb, Nop, Sb, Yield};
#[cfg(target_arch = "x86_64")]
pub use strategy::{Pause, Tpause};
pub use wait::{Budget, SpinLimits, SpinWait, Step};

pub(crate) use settings::SPIN_PAUSE;

/// The `auto` rule's AArch64 half as a pure function of a MIDR, for the
/// fixture tests that check it per core on any build machine.
pub mod testing {
    pub use super::settings::aarch64_auto_for_midr;
}

/// The function [`pause`] calls: always an `fn()` (stored as a data pointer
/// because there is no atomic function pointer). Starts at the resolver.
static TARGET: AtomicPtr<()> = AtomicPtr::new(resolve_then_pause as *mut ());

/// The repeat count for targets that loop (counts other than 1 and 2).
static REPEAT: AtomicU8 = AtomicU8::new(1);

/// The resolved process-wide strategy, for [`active`] and the calibration.
static ACTIVE: OnceLock<SpinPause> = OnceLock::new();

/// One spin-wait pause with the process-wide strategy: `FASTPATH_SPIN_PAUSE`
/// (or what the runtime passed to `fastpath::config::set`), `auto` resolved
/// for this CPU. See the module docs for what it costs.
///
/// ```
/// use std::sync::atomic::{AtomicBool, Ordering};
/// let ready = AtomicBool::new(true);
/// while !ready.load(Ordering::Acquire) {
///     fastpath::spin::pause();
/// }
/// ```
#[inline]
pub fn pause() {
    // Relaxed suffices: the pointer carries no data, only code that exists
    // for the whole process; every value ever stored is a valid `fn()`, and a
    // thread that still sees the resolver merely resolves again (the same
    // answer, from the same `OnceLock`).
    let target = TARGET.load(Ordering::Relaxed);
    // SAFETY: TARGET only ever holds `fn()` pointers cast to `*mut ()` (its
    // initialiser and `install`), and function and data pointers have the
    // same size on every target this crate builds for.
    let target: fn() = unsafe { core::mem::transmute::<*mut (), fn()>(target) };
    target()
}

/// The strategy [`pause`] executes, `auto` resolved.
pub fn active() -> SpinPause {
    *ACTIVE.get_or_init(|| {
        let cpu = crate::cpu::info();
        // The setting was validated against this CPU when it was read or
        // installed, so `resolve` fails only if the two disagree; fall back
        // to `auto` rather than trust it then.
        SPIN_PAUSE
            .get()
            .resolve(cpu)
            .unwrap_or_else(|_| SpinPause::auto_for(cpu))
    })
}

#[cold]
#[inline(never)]
fn resolve_then_pause() {
    let s = active();
    let (target, _) = target_for(s);
    // Relaxed: see `pause`. REPEAT is written before TARGET by this thread,
    // and a looping target reads REPEAT after being reached through TARGET;
    // a thread that sees the new TARGET but an old REPEAT (1) pauses fewer
    // times once, which a spin loop cannot tell from a shorter pause.
    REPEAT.store(s.repeat, Ordering::Relaxed);
    TARGET.store(target as *mut (), Ordering::Relaxed);
    target()
}

/// How a target repeats its instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unrolled {
    /// Once, straight-line.
    Once,
    /// Twice, straight-line (Ampere's `isb` count).
    Twice,
    /// A loop over [`REPEAT`].
    Loop,
}

/// The straight-line function for `s`, and how it repeats. Pure: the caller
/// stores `s.repeat` in [`REPEAT`] before a looping target can run through
/// [`TARGET`]. Only called with a resolved, validated strategy, which is
/// what makes the `new_unchecked` calls sound.
fn target_for(s: SpinPause) -> (fn(), Unrolled) {
    // SAFETY (for every `run::<S>` below): `s` came out of
    // `SpinPause::resolve` against `cpu::info()`, which refuses an
    // instruction the CPU lacks; `run` is only reachable through TARGET,
    // which only `resolve_then_pause` fills.
    fn pick<S: PauseStrategy>(repeat: u8) -> (fn(), Unrolled) {
        match repeat {
            1 => (run::<S>, Unrolled::Once),
            2 => (run::<Repeat<S, 2>>, Unrolled::Twice),
            _ => (run_repeat::<S>, Unrolled::Loop),
        }
    }
    match s.instruction {
        #[cfg(target_arch = "x86_64")]
        PauseInstruction::Pause => pick::<strategy::Pause>(s.repeat),
        #[cfg(target_arch = "x86_64")]
        PauseInstruction::Tpause => pick::<strategy::Tpause>(s.repeat),
        #[cfg(target_arch = "aarch64")]
        PauseInstruction::Isb => pick::<strategy::Isb>(s.repeat),
        #[cfg(target_arch = "aarch64")]
        PauseInstruction::Yield => pick::<strategy::Yield>(s.repeat),
        #[cfg(target_arch = "aarch64")]
        PauseInstruction::Nop => pick::<strategy::Nop>(s.repeat),
        #[cfg(target_arch = "aarch64")]
        PauseInstruction::Sb => pick::<strategy::Sb>(s.repeat),
        _ => pick::<NoPause>(1),
    }
}

fn run<S: PauseStrategy>() {
    // SAFETY: see `target_for`: reachable only for a validated strategy.
    unsafe { S::new_unchecked() }.pause()
}

fn run_repeat<S: PauseStrategy>() {
    // SAFETY: see `target_for`.
    let s = unsafe { S::new_unchecked() };
    // Relaxed: see `resolve_then_pause`.
    for _ in 0..REPEAT.load(Ordering::Relaxed) {
        s.pause();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_pause_resolves_once_to_a_concrete_strategy() {
        for _ in 0..1000 {
            pause();
        }
        let a = active();
        assert_ne!(a.instruction, PauseInstruction::Auto);
        assert!((1..=99).contains(&a.repeat));
        // After the first call the target is no longer the resolver.
        assert_ne!(TARGET.load(Ordering::Relaxed), resolve_then_pause as *mut ());
        assert_eq!(ConfiguredPause.describe(), a);
    }

    /// Each strategy gets the target of its repeat count (straight-line for
    /// 1 and 2, the loop above), and each target runs. Only `target_for` is
    /// called: it writes no global, so the process-wide pause that other
    /// tests use is untouched.
    #[test]
    fn every_target_runs_with_the_unrolling_its_count_asks_for() {
        let mut cases = vec![(
            SpinPause {
                instruction: PauseInstruction::None,
                repeat: 5,
            },
            // `none` has nothing to repeat.
            Unrolled::Once,
        )];
        #[cfg(target_arch = "x86_64")]
        for (n, shape) in [(1, Unrolled::Once), (2, Unrolled::Twice), (7, Unrolled::Loop)] {
            cases.push((
                SpinPause {
                    instruction: PauseInstruction::Pause,
                    repeat: n,
                },
                shape,
            ));
        }
        // AArch64: the three base-architecture pauses (SB needs FEAT_SB and
        // is run by `tests/aarch64_cpu_models.rs` where the CPU has it).
        #[cfg(target_arch = "aarch64")]
        for instruction in [
            PauseInstruction::Isb,
            PauseInstruction::Yield,
            PauseInstruction::Nop,
        ] {
            for (n, shape) in [(1, Unrolled::Once), (2, Unrolled::Twice), (7, Unrolled::Loop)] {
                cases.push((
                    SpinPause {
                        instruction,
                        repeat: n,
                    },
                    shape,
                ));
            }
        }
        for (s, shape) in cases {
            let (f, got) = target_for(s);
            assert_eq!(got, shape, "{s}");
            f();
        }
        let active = active();
        let (_, shape) = target_for(active);
        assert_eq!(shape == Unrolled::Loop, active.repeat > 2, "{active}");
    }
}
