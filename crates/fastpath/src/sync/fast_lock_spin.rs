//! Spinning on a thin lock before inflating it (HotSpot
//! `LightweightSynchronizer::fast_lock_spin_enter`, lightweightSynchronizer.cpp,
//! JDK 24; the flag `LightweightFastLockingSpins`, 13, renamed
//! `FastLockingSpins` and lowered to 8 in JDK 27).
//!
//! Where it sits: `synchronizer.rs`'s lightweight slow path calls
//! `spin_then_fast_lock` once per `enter` when it finds the header
//! thin-locked by another thread, *before* it inflates the object. Only if
//! the spin gives up does the object get a monitor, which it keeps until
//! the deflater (`deflate.rs`; see also
//! [`set_deflate_after_contention`](super::set_deflate_after_contention))
//! takes it back: every operation in between pays the inflated path,
//! several times the thin path's length. Most contention between short
//! critical sections is momentary (the holder releases within
//! nanoseconds), so a bounded wait for the fast-lock is much cheaper than a
//! monitor for the rest of the object's busy life.
//!
//! The algorithm: exponential backoff, with a look at the header at the end
//! of each step. Step `i` (0, 1, … `log_spins − 1`) first pauses `2^i − 1`
//! times ([`crate::spin::pause`], the runtime's calibrated pause, as the
//! monitor's adaptive spin uses), then loads the header:
//! - unlocked: test-and-test-and-set, so the CAS (the caller's fast-lock,
//!   with room made on the lock-stack) runs only on a word read unlocked; a
//!   lost CAS (another locker, or a hash installed) reloads at once and
//!   tries again while the word stays unlocked;
//! - a monitor: someone else's spin gave up and inflated it; stop spinning,
//!   the caller enters the monitor;
//! - anything else (fast-locked, stack-locked, INFLATING, a GC's word):
//!   keep backing off.
//!
//! Polling only at the end of each step keeps the header's cache line
//! quiet while the holder works: every look costs the holder a coherence
//! miss at its exit CAS. The accumulated budget is
//! `2^log_spins − log_spins − 1` pauses, about 8 k for HotSpot's 13: ~30 µs
//! where PAUSE costs 10 cycles, ~0.4 ms where it costs Skylake's 140 or
//! where the hypervisor intercepts it (~50 ns a pause). HotSpot sized its
//! count for the second case, so the default here is that budget in time
//! (`settings.rs`, `calibrated_fast_locking_spins`): the least `log2` from
//! 13 up whose pauses last 0.5 ms at the measured cost of the CPU's own
//! pause instruction (16 where a pause takes 11 ns). That outlasts a short critical section many
//! times over, and a holder that keeps the lock for most of its loop
//! (coarsened rounds, a long section) on two CPUs: a waiter that gave up
//! there would park on the monitor and be woken at every one of the
//! holder's exits. It is short against a scheduler time slice, so a
//! waiter whose holder was preempted stops burning its CPU and inflates,
//! then parks on the monitor. On a loaded machine that is the common case
//! (the benchmarks notebook, `docs/benchmarks-log-2026.md`, "Locking, sync-spin").
//!
//! A second phase, fastpath's own and on by default
//! ([`set_fast_locking_yields`], [`DEFAULT_FAST_LOCKING_YIELDS`]): after the
//! pauses, up to `n` times, yield the CPU (`sched_yield`) and look again. It
//! targets what the pauses cannot outlast: a holder preempted inside its
//! section and waiting for a CPU, perhaps ours. It is what parking_lot's
//! `SpinWait` does before parking (a few doubling spins, then yields);
//! HotSpot has no such phase (0 restores HotSpot's behaviour). On two
//! vCPUs it keeps a two-thread short critical section thin for nearly the
//! whole run, where the pauses alone let it inflate (BENCHMARKS.md,
//! "Contended, short and long critical sections"). Its cost is bounded:
//! at most `n` system calls per enter that would otherwise inflate and park
//! at once, and a yield with nothing else runnable returns in about a
//! microsecond.
//!
//! No new shared state: each try is the ordinary fast-lock CAS the slow path
//! already makes (loom models it: `loom_tests.rs`, with a one-step budget,
//! since under loom a pause is a scheduling point). The budget is a
//! process-wide tunable ([`set_fast_locking_spins`]); 0 turns the spin off
//! (the object inflates at its first contention, as before JDK 24). On a
//! machine with one CPU the holder cannot run while we spin, so the default
//! there is one step with no pause (HotSpot's `os::is_MP() ? flag : 1`).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering as StdOrdering};

use super::atomic::{spin_pause, Ordering};
use super::header::{Header, Mark};
use super::settings::{FastLockingSpins, FastLockingYields};

/// HotSpot's default `log2` of the budget (`LightweightFastLockingSpins`,
/// JDK 24 and 25): the least default on a machine with more than one CPU,
/// where the default is calibrated to last 0.5 ms (module docs;
/// [`fast_locking_spins`] before any setter says the one in force).
pub const DEFAULT_FAST_LOCKING_SPINS: u32 = 13;

/// The largest accepted `log2` of the budget: 2^20 pauses is already
/// milliseconds, past any time slice, so more is never a spin worth making.
pub const MAX_FAST_LOCKING_SPINS: u32 = FastLockingSpins::MAX;

/// Not yet resolved: the first spin starts from the setting
/// (`FASTPATH_FAST_LOCKING_SPINS`/`_YIELDS`, or the machine's default).
const UNSET: u32 = u32::MAX;

/// The budget in force (`log2`, steps). A tunable, not protocol state, so a
/// plain relaxed std atomic, also under loom.
static LOG_SPINS: AtomicU32 = AtomicU32::new(UNSET);

/// The largest accepted yield count: each yield is a system call, and a
/// holder that has not run after this many is not coming back soon.
pub const MAX_FAST_LOCKING_YIELDS: u32 = FastLockingYields::MAX;

/// The default yield count after the pauses (module docs; parking_lot's
/// `SpinWait` yields 7 times before it parks).
pub const DEFAULT_FAST_LOCKING_YIELDS: u32 = 8;

/// Yields after the pauses (0: HotSpot's behaviour). A tunable: relaxed.
static YIELDS: AtomicU32 = AtomicU32::new(UNSET);

/// A setter of this module refused its argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastLockSpinSettingOutOfRange {
    /// Which setting (`"spins"`, `"yields"`).
    pub setting: &'static str,
    /// The value refused.
    pub value: u32,
    /// The largest value accepted.
    pub max: u32,
}

impl core::fmt::Display for FastLockSpinSettingOutOfRange {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "fast-locking {} {} is above the maximum {}",
            self.setting, self.value, self.max
        )
    }
}

impl std::error::Error for FastLockSpinSettingOutOfRange {}

fn checked(setting: &'static str, value: u32, max: u32) -> Result<u32, FastLockSpinSettingOutOfRange> {
    if value > max {
        return Err(FastLockSpinSettingOutOfRange { setting, value, max });
    }
    Ok(value)
}

/// Sets how many times a contended lightweight `enter` yields the CPU (and
/// looks at the header again) after its pauses, before it inflates
/// (process-wide; module docs). The default is
/// [`DEFAULT_FAST_LOCKING_YIELDS`]; 0 is HotSpot's behaviour.
pub fn set_fast_locking_yields(n: u32) -> Result<(), FastLockSpinSettingOutOfRange> {
    YIELDS.store(
        checked("yields", n, MAX_FAST_LOCKING_YIELDS)?,
        StdOrdering::Relaxed,
    );
    Ok(())
}

/// The yield count in force (see [`set_fast_locking_yields`]).
pub fn fast_locking_yields() -> u32 {
    resolve(&YIELDS, initial_yields)
}

/// Sets the fast-lock spin budget, process-wide, as `log2` of the number of
/// pauses (HotSpot's `-XX:LightweightFastLockingSpins`): a contended
/// lightweight `enter` makes up to `log2` looks at the header, with
/// exponential backoff between them, before it inflates the object. 0 turns
/// the spin off. Default: [`DEFAULT_FAST_LOCKING_SPINS`] or more, so that
/// the pauses last 0.5 ms on this CPU (module docs; 1 on a one-CPU
/// machine). Takes effect at the next contended enter.
pub fn set_fast_locking_spins(log2: u32) -> Result<(), FastLockSpinSettingOutOfRange> {
    LOG_SPINS.store(
        checked("spins", log2, MAX_FAST_LOCKING_SPINS)?,
        StdOrdering::Relaxed,
    );
    Ok(())
}

/// The fast-lock spin budget in force (`log2` of the pauses; see
/// [`set_fast_locking_spins`]).
pub fn fast_locking_spins() -> u32 {
    resolve(&LOG_SPINS, initial_spins)
}

/// The value of `knob`, set to `initial()` on first use.
fn resolve(knob: &AtomicU32, initial: fn() -> u32) -> u32 {
    let v = knob.load(StdOrdering::Relaxed);
    if v != UNSET {
        return v;
    }
    let start = initial();
    // A racing setter wins: its value is the one asked for.
    match knob.compare_exchange(UNSET, start, StdOrdering::Relaxed, StdOrdering::Relaxed) {
        Ok(_) => start,
        Err(set) => set,
    }
}

#[cfg(not(loom))]
fn initial_spins() -> u32 {
    super::settings::FAST_LOCKING_SPINS.get().0
}

#[cfg(not(loom))]
fn initial_yields() -> u32 {
    super::settings::FAST_LOCKING_YIELDS.get().0
}

/// Under loom every pause is a scheduling point: one look, no pause (a
/// model checks the protocol, not the budget).
#[cfg(loom)]
fn initial_spins() -> u32 {
    1
}

/// Under loom a yield is no scheduling point of the model: none.
#[cfg(loom)]
fn initial_yields() -> u32 {
    0
}

/// What the spins did, process-wide, since the process started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FastLockSpinStats {
    /// Spins that fast-locked the object (an inflation avoided).
    pub acquired: u64,
    /// Spins that stopped because another thread installed a monitor.
    pub saw_monitor: u64,
    /// Spins that used the whole budget, pauses and yields (the caller
    /// then inflates).
    pub gave_up: u64,
}

impl FastLockSpinStats {
    /// The counts since `earlier` (a snapshot taken before).
    pub fn since(&self, earlier: &FastLockSpinStats) -> FastLockSpinStats {
        FastLockSpinStats {
            acquired: self.acquired.wrapping_sub(earlier.acquired),
            saw_monitor: self.saw_monitor.wrapping_sub(earlier.saw_monitor),
            gave_up: self.gave_up.wrapping_sub(earlier.gave_up),
        }
    }
}

// Relaxed counters: statistics that carry no synchronization, bumped once
// per contended enter (already a cache miss on the header), never on the
// uncontended path.
static ACQUIRED: AtomicU64 = AtomicU64::new(0);
static SAW_MONITOR: AtomicU64 = AtomicU64::new(0);
static GAVE_UP: AtomicU64 = AtomicU64::new(0);

/// A snapshot of the spins' outcomes (process-wide).
pub fn fast_lock_spin_stats() -> FastLockSpinStats {
    FastLockSpinStats {
        acquired: ACQUIRED.load(StdOrdering::Relaxed),
        saw_monitor: SAW_MONITOR.load(StdOrdering::Relaxed),
        gave_up: GAVE_UP.load(StdOrdering::Relaxed),
    }
}

/// `obj` is thin-locked by another thread: spin for the lock with the
/// budget in force (module docs). `try_fast_lock(mark)` is the caller's
/// fast-lock CAS from the unlocked word `mark` (with room made on the
/// lock-stack and the push); `true` when it acquired. `false`: the budget
/// ran out or a monitor appeared; the caller re-reads the header and
/// inflates or enters the monitor.
#[cold]
#[inline(never)]
pub(super) fn spin_then_fast_lock(obj: &Header, mut try_fast_lock: impl FnMut(Mark) -> bool) -> bool {
    let steps = fast_locking_spins();
    if steps == 0 {
        return false; // switched off: not a spin, not counted
    }
    for step in 0..steps {
        for _ in 1..(1u32 << step) {
            spin_pause();
        }
        if let Some(acquired) = look(obj, &mut try_fast_lock) {
            return acquired;
        }
    }
    // Yields are real scheduling under loom too, but a model never sets any.
    for _ in 0..fast_locking_yields() {
        std::thread::yield_now();
        if let Some(acquired) = look(obj, &mut try_fast_lock) {
            return acquired;
        }
    }
    GAVE_UP.fetch_add(1, StdOrdering::Relaxed);
    false
}

/// One look at the header (module docs): `Some(true)` fast-locked it,
/// `Some(false)` a monitor is installed, `None` still held: back off.
#[inline]
fn look(obj: &Header, try_fast_lock: &mut impl FnMut(Mark) -> bool) -> Option<bool> {
    loop {
        // Acquire: a monitor seen here is entered next by the caller,
        // which reloads; a fast-lock's CAS has its own Acquire.
        let mark = obj.load(Ordering::Acquire);
        if mark.is_unlocked() {
            if try_fast_lock(mark) {
                ACQUIRED.fetch_add(1, StdOrdering::Relaxed);
                return Some(true);
            }
            continue; // lost the CAS: look again while it stays unlocked
        }
        if mark.has_monitor() {
            SAW_MONITOR.fetch_add(1, StdOrdering::Relaxed);
            return Some(false);
        }
        return None; // still held (or in a transition)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_hotspots_by_default_and_refuses_nonsense() {
        let e = set_fast_locking_spins(MAX_FAST_LOCKING_SPINS + 1).unwrap_err();
        assert_eq!(e.value, MAX_FAST_LOCKING_SPINS + 1);
        assert_eq!(e.to_string(), "fast-locking spins 21 is above the maximum 20");
        let e = set_fast_locking_yields(MAX_FAST_LOCKING_YIELDS + 1).unwrap_err();
        assert_eq!((e.setting, e.max), ("yields", MAX_FAST_LOCKING_YIELDS));
        assert_eq!(fast_locking_yields(), DEFAULT_FAST_LOCKING_YIELDS);
        // The settings' defaults are these.
        assert_eq!(FastLockingYields::default().0, DEFAULT_FAST_LOCKING_YIELDS);
        let default = FastLockingSpins::default().0;
        assert!(default == 1 || (DEFAULT_FAST_LOCKING_SPINS..=MAX_FAST_LOCKING_SPINS).contains(&default));
        // Other tests run with the default; this one only reads it.
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        if cpus > 1 && std::env::var_os(FastLockingSpins::VAR).is_none() {
            assert_eq!(fast_locking_spins(), default);
            // The default lasts the budget at the base pause's measured
            // cost, and the next smaller one (unless HotSpot's) does not.
            let ns = super::super::settings::base_pause_ns().expect("x86-64 or AArch64");
            let lasts = |log2: u32| ((1u64 << log2) - u64::from(log2) - 1) as f64 * ns;
            let budget = super::super::settings::FAST_LOCK_SPIN_BUDGET_NS;
            assert!(default == MAX_FAST_LOCKING_SPINS || lasts(default) >= budget);
            assert!(default == DEFAULT_FAST_LOCKING_SPINS || lasts(default - 1) < budget);
        }
    }

    #[test]
    fn a_spin_on_an_unlocked_word_takes_it_and_on_a_held_one_gives_up() {
        let h = Header::new();
        let mut tries = 0;
        // Unlocked from the start: the first look CASes (here: a stand-in
        // that fails twice, as lost races to a hash would, then wins).
        assert!(spin_then_fast_lock(&h, |m| {
            assert!(m.is_unlocked());
            tries += 1;
            tries == 3
        }));
        assert_eq!(tries, 3);
        // Held: lock bits 00 in the object's own word, which no try may see.
        let held = h.load(Ordering::Relaxed).set_fast_locked();
        h.word.store(held.0, Ordering::Relaxed);
        assert!(!spin_then_fast_lock(&h, |_| unreachable!(
            "the word is never unlocked"
        )));
        // A monitor's word stops the spin at the first look.
        let before = fast_lock_spin_stats();
        h.word.store(
            Mark::encode_monitor(std::ptr::without_provenance(8)).0,
            Ordering::Relaxed,
        );
        assert!(!spin_then_fast_lock(&h, |_| unreachable!()));
        assert!(fast_lock_spin_stats().since(&before).saw_monitor >= 1);
        h.word.store(held.set_unlocked().0, Ordering::Relaxed);
    }
}
