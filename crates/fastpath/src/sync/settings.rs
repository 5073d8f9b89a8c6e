//! `sync`'s settings: the locking mode (`FASTPATH_LOCKING_MODE`) and the
//! values the tuning knobs start with (fast-lock spin budget and yields,
//! deflation interval and threshold, the wait spin).
//!
//! Where it sits: under every file of `sync` that reads one. `thread.rs`
//! reads [`LOCKING_MODE`] for a thread that chose none with
//! [`super::set_current_thread_locking_mode`]; `fast_lock_spin.rs` and
//! `deflate.rs` and `wait_spin.rs` start from the knobs' values, which their setters then
//! change at run time (the value here stays what the process started
//! with). `config` only lists them. Every value runs on every CPU.

use crate::cpu::CpuInfo;
use crate::setting::{self, Choice, Choices, ProcessValue};

/// How object monitors are locked (HotSpot `-XX:LockingMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LockingMode {
    /// Fast-locking with a per-thread lock-stack (HotSpot LockingMode=2,
    /// `LM_LIGHTWEIGHT`).
    #[default]
    Lightweight,
    /// Stack-locking with displaced headers (HotSpot LockingMode=1, `LM_LEGACY`).
    Legacy,
    /// Every lock is a full monitor (HotSpot LockingMode=0, `LM_MONITOR`).
    Monitor,
}

impl Choices for LockingMode {
    const VAR: &'static str = "FASTPATH_LOCKING_MODE";
    const TABLE: &'static [Choice<Self>] = &[
        Choice {
            aliases: &["2"],
            ..Choice::everywhere(LockingMode::Lightweight, "lightweight")
        },
        Choice {
            aliases: &["1"],
            ..Choice::everywhere(LockingMode::Legacy, "legacy")
        },
        Choice {
            aliases: &["0"],
            ..Choice::everywhere(LockingMode::Monitor, "monitor")
        },
    ];
    fn check(self, _cpu: &CpuInfo) -> Result<(), String> {
        Ok(())
    }
}

setting::choices_setting!(
    LockingMode,
    "how object monitors are locked (HotSpot -XX:LockingMode)"
);
setting::choices_api!(LockingMode);

/// The process-wide locking mode: what a thread uses unless it chose
/// another. (Under loom every thread is lightweight: `thread.rs`.)
#[cfg_attr(loom, allow(dead_code))]
pub(crate) static LOCKING_MODE: ProcessValue<LockingMode> = ProcessValue::new();

setting::number_setting! {
    /// `log2` of the fast-lock spin budget a contended lightweight `enter`
    /// starts with (HotSpot's `-XX:LightweightFastLockingSpins`, 13). The
    /// default is HotSpot's budget in time rather than in pauses: the
    /// least `log2`, 13 or more, whose pauses last 0.5 ms at the cost of
    /// the CPU's pause instruction (16 where a pause takes 11 ns); 1 on a
    /// machine with one CPU, where the holder
    /// cannot run while we spin (HotSpot's `os::is_MP() ? flag : 1`; the
    /// CPUs are `cpu::info()`'s affinity count, which opens no file). 0
    /// turns the spin off; `fast_lock_spin::set_fast_locking_spins` changes
    /// it at run time.
    FastLockingSpins(u32): "FASTPATH_FAST_LOCKING_SPINS", 0..=20,
    default if crate::cpu::info().logical_cpus > 1 { calibrated_fast_locking_spins() } else { 1 },
    "log2 of the pauses a contended fast-lock spins before inflating (HotSpot -XX:LightweightFastLockingSpins; default: 13, or more where a pause is short, so that the spin lasts 0.5 ms)"
}

/// How long the default fast-lock spin lasts, in nanoseconds, at least.
/// HotSpot's 2^13 pauses were sized where a pause costs Skylake's 140
/// cycles: 0.4–0.5 ms at 2.3–3 GHz. Where a pause is shorter (11 ns on the
/// Xeon model 167 guest, 10 cycles on Zen), the same count spins 0.1 ms or
/// less, and a contention that outlasts it inflates: on two CPUs a thread
/// that holds a lock for most of its loop (coarsened rounds, a long
/// critical section) keeps it for hundreds of microseconds at a time, and
/// the waiter that gave up parks and is woken at every one of the
/// holder's exits (BENCHMARKS.md, the VM's LruCache at 2 threads: 5.1 ms
/// an iteration at 2^13 pauses, 4.3 at 2^16). Still short against a
/// scheduler time slice, so a waiter whose holder was preempted stops
/// burning its CPU within one.
pub(crate) const FAST_LOCK_SPIN_BUDGET_NS: f64 = 500_000.0;

/// HotSpot's `log2` of the budget, the least default.
const HOTSPOT_FAST_LOCKING_SPINS: u32 = 13;

/// The default `log2` of the fast-lock spin budget on a machine with more
/// than one CPU: the least one, [`HOTSPOT_FAST_LOCKING_SPINS`] or more,
/// whose pauses (`2^n − n − 1` of them: `fast_lock_spin.rs`'s steps) last
/// [`FAST_LOCK_SPIN_BUDGET_NS`] at the cost of the architecture's own pause
/// instruction ([`base_pause_ns`]), at most [`FastLockingSpins::MAX`].
pub(crate) fn calibrated_fast_locking_spins() -> u32 {
    let Some(ns_per_pause) = base_pause_ns() else {
        return HOTSPOT_FAST_LOCKING_SPINS;
    };
    let budget_ns = |log2: u32| ((1u64 << log2) - u64::from(log2) - 1) as f64 * ns_per_pause;
    let mut log2 = HOTSPOT_FAST_LOCKING_SPINS;
    while log2 < FastLockingSpins::MAX && budget_ns(log2) < FAST_LOCK_SPIN_BUDGET_NS {
        log2 += 1;
    }
    log2
}

/// Nanoseconds one `PAUSE` (x86-64) or `ISB` (AArch64) takes here,
/// measured once per process (`spin::Calibration::measure`, ≤ 100 µs);
/// `None` on other targets. The base instruction, not the configured pause
/// (`spin::calibration()`): a setting's default is computed whenever a
/// configuration is built, and measuring the configured pause would put
/// the spin configuration in force before a runtime could choose it (the
/// C ABI's `fastpath_config_set` before first use). HotSpot sized its
/// count for `PAUSE` too.
pub(crate) fn base_pause_ns() -> Option<f64> {
    static NS: std::sync::OnceLock<Option<f64>> = std::sync::OnceLock::new();
    *NS.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        return Some(crate::spin::Calibration::measure(crate::spin::Pause).ns_per_pause);
        #[cfg(target_arch = "aarch64")]
        return Some(crate::spin::Calibration::measure(crate::spin::Isb).ns_per_pause);
        #[allow(unreachable_code)]
        None
    })
}

setting::number_setting! {
    /// How many times a contended lightweight `enter` yields the CPU after
    /// its pauses, before it inflates (0: HotSpot's behaviour;
    /// parking_lot's `SpinWait` yields 7 times before it parks).
    /// `fast_lock_spin::set_fast_locking_yields` changes it at run time.
    FastLockingYields(u32): "FASTPATH_FAST_LOCKING_YIELDS", 0..=64,
    default 8,
    "yields after the fast-lock spin's pauses, before inflating (0: HotSpot's behaviour)"
}

setting::number_setting! {
    /// How often the deflation thread looks for idle monitors, in
    /// milliseconds (HotSpot's `AsyncDeflationInterval`, 250). At most an
    /// hour; `sync::set_deflation_policy` changes it at run time.
    DeflationIntervalMs(u64): "FASTPATH_DEFLATION_INTERVAL_MS", 1..=3600000,
    default 250,
    "milliseconds between the deflation thread's looks (HotSpot -XX:AsyncDeflationInterval)"
}

setting::number_setting! {
    /// Percentage of the monitor ceiling in use that triggers a deflation
    /// pass (HotSpot's `MonitorUsedDeflationThreshold`, 90; 0: every
    /// interval). `sync::set_deflation_policy` changes it at run time.
    DeflationThreshold(u32): "FASTPATH_DEFLATION_THRESHOLD", 0..=100,
    default 90,
    "percent of the monitor ceiling in use that triggers a deflation pass (HotSpot -XX:MonitorUsedDeflationThreshold)"
}

setting::number_setting! {
    /// How long a thread in `Object.wait` spins, watching for its
    /// notification, before it parks, in nanoseconds (0: HotSpot's
    /// behaviour, park at once). The default is the spin module's 30 µs
    /// budget, about what a park and its wake-up cost on a 2-vCPU KVM
    /// guest (`wait_spin.rs`); 0 on a machine with one CPU, where the
    /// notifier cannot run while the waiter spins.
    /// `wait_spin::set_wait_spin_ns` changes it at run time.
    WaitSpinNs(u64): "FASTPATH_WAIT_SPIN_NS", 0..=1000000,
    default if crate::cpu::info().logical_cpus > 1 { crate::spin::Budget::DEFAULT.spin_ns } else { 0 },
    "nanoseconds a thread in Object.wait spins for its notification before it parks (0: HotSpot's behaviour, park at once; default 30000, 0 on one CPU)"
}

/// The fast-lock spin budget the process starts with.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) static FAST_LOCKING_SPINS: ProcessValue<FastLockingSpins> = ProcessValue::new();
/// The fast-lock yields the process starts with.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) static FAST_LOCKING_YIELDS: ProcessValue<FastLockingYields> = ProcessValue::new();
/// The deflation interval the process starts with.
pub(crate) static DEFLATION_INTERVAL: ProcessValue<DeflationIntervalMs> = ProcessValue::new();
/// The deflation threshold the process starts with.
pub(crate) static DEFLATION_THRESHOLD: ProcessValue<DeflationThreshold> = ProcessValue::new();
/// The wait spin the process starts with.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) static WAIT_SPIN: ProcessValue<WaitSpinNs> = ProcessValue::new();
