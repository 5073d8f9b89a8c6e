//! Counters: every monitor installation by cause, plus the events the lab
//! reports beside them (HotSpot's `ObjectSynchronizer::InflateCause` and the
//! `-Xlog:monitorinflation` counts).
//!
//! Where it sits: bumped on slow paths only (never on a fast path), read by
//! the lab and by tests. Process-wide counters are relaxed atomics; each
//! thread also keeps its own copy, so a test can assert what *its* thread
//! caused while other tests run in parallel.

use core::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// Why a monitor was installed, or, for [`InflateCause::Notify`] alone, a
/// `notify` that found one already installed: an event of its own, not an
/// installation. [`SyncStats::monitors_installed`] and the `Display` line
/// count it apart ([`SyncStats::notifies_on_inflated`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InflateCause {
    /// Another thread held the object fast-locked: installed with
    /// `ANONYMOUS_OWNER`.
    Contention,
    /// `wait` on a fast-locked object.
    Wait,
    /// Entering an object held but not on top of the lock-stack
    /// (`[A, B]` + A).
    InterleavedRecursion,
    /// The lock-stack was full.
    LockStackOverflow,
    /// Exiting an object held but not on top of the lock-stack.
    UnstructuredExit,
    /// `notify`/`notify_all` on an object that already has a monitor
    /// (HotSpot's `inflate_cause_notify`: counted, installs nothing, since a
    /// fast-locked object can have no waiters).
    Notify,
    /// A monitor-only-mode thread locked an unlocked object.
    MonitorMode,
    /// A thread exited holding the object through a live `SynchronizedGuard`
    /// (kept in a thread-local, or forgotten): the lock is kept, moved to a
    /// monitor owned by the exiting thread (see `sync::SynchronizedGuard`).
    ThreadExit,
    /// The identity hash (or spare bits) of a stack-locked object (legacy
    /// mode) that its record cannot give: another thread's record, or no
    /// hash yet (HotSpot's `inflate_cause_hash_code`).
    IdentityHash,
}

impl InflateCause {
    /// Every cause, in counter order.
    pub const ALL: [InflateCause; 9] = [
        InflateCause::Contention,
        InflateCause::Wait,
        InflateCause::InterleavedRecursion,
        InflateCause::LockStackOverflow,
        InflateCause::UnstructuredExit,
        InflateCause::Notify,
        InflateCause::MonitorMode,
        InflateCause::ThreadExit,
        InflateCause::IdentityHash,
    ];

    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            InflateCause::Contention => "contention",
            InflateCause::Wait => "wait",
            InflateCause::InterleavedRecursion => "interleaved-recursion",
            InflateCause::LockStackOverflow => "lock-stack-overflow",
            InflateCause::UnstructuredExit => "unstructured-exit",
            InflateCause::Notify => "notify-on-inflated",
            InflateCause::MonitorMode => "monitor-mode",
            InflateCause::ThreadExit => "kept-at-thread-exit",
            InflateCause::IdentityHash => "identity-hash",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

const N: usize = InflateCause::ALL.len();

/// A copy of the counters. `{:?}` and `{}` label every count with its
/// cause's [`InflateCause::name`] rather than print the bare array.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct SyncStats {
    /// Per cause, indexed like [`InflateCause::ALL`] (the C ABI's
    /// `fastpath_sync_stats.inflations` layout). The
    /// [`InflateCause::Notify`] slot counts notifies on an inflated object,
    /// which install nothing: read installations through
    /// [`SyncStats::monitors_installed`] and that slot through
    /// [`SyncStats::notifies_on_inflated`].
    pub inflations: [u64; N],
    /// Monitors freed (with their object's header).
    pub monitors_freed: u64,
    /// Locks released on behalf of exiting threads.
    pub released_at_thread_exit: u64,
    /// Monitors deflated: by async deflation (a pass, which frees them),
    /// or on their last owner's exit (`set_deflate_on_exit`; freed by the
    /// next pass).
    pub monitors_deflated: u64,
    /// Deflation passes run (by the deflation thread or on request).
    pub deflation_passes: u64,
    /// Time spent in deflation passes, grace periods included, in ns.
    pub deflation_nanos: u64,
    /// Eventual-fairness hand-offs: an exiting owner gave the monitor
    /// straight to a waiter passed over for too long (`monitor.rs`), instead
    /// of releasing it to whoever barges in first.
    pub fair_hand_offs: u64,
}

/// `(name, count)` for every cause that installs a monitor, in counter
/// order ([`InflateCause::Notify`] is not one).
fn labelled(s: &SyncStats) -> impl Iterator<Item = (&'static str, u64)> + '_ {
    InflateCause::ALL
        .iter()
        .filter(|c| **c != InflateCause::Notify)
        .map(|c| (c.name(), s.inflations_by(*c)))
}

impl core::fmt::Debug for SyncStats {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        struct Causes<'a>(&'a SyncStats);
        impl core::fmt::Debug for Causes<'_> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_map().entries(labelled(self.0)).finish()
            }
        }
        f.debug_struct("SyncStats")
            .field("inflations", &Causes(self))
            .field("notifies_on_inflated", &self.notifies_on_inflated())
            .field("monitors_freed", &self.monitors_freed)
            .field("released_at_thread_exit", &self.released_at_thread_exit)
            .field("monitors_deflated", &self.monitors_deflated)
            .field("deflation_passes", &self.deflation_passes)
            .field("deflation_nanos", &self.deflation_nanos)
            .field("fair_hand_offs", &self.fair_hand_offs)
            .finish()
    }
}

/// One line, as the lab prints it: `monitors installed: N (contention=…,
/// …); notifies on an inflated object: M; freed …; deflated … in … passes
/// (… µs)`. The parts in parentheses add up to N.
impl core::fmt::Display for SyncStats {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "monitors installed: {} (", self.monitors_installed())?;
        for (i, (name, n)) in labelled(self).enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{name}={n}")?;
        }
        write!(
            f,
            "); notifies on an inflated object: {}; freed with their object: {}; released at thread exit: {}; deflated: {} in {} passes ({} µs); fair hand-offs: {}",
            self.notifies_on_inflated(),
            self.monitors_freed,
            self.released_at_thread_exit,
            self.monitors_deflated,
            self.deflation_passes,
            self.deflation_nanos / 1_000,
            self.fair_hand_offs
        )
    }
}

impl SyncStats {
    /// The count for `cause`.
    pub fn inflations_by(&self, cause: InflateCause) -> u64 {
        self.inflations[cause.index()]
    }

    /// Monitors installed, all causes ([`InflateCause::Notify`] excluded:
    /// it installs none).
    pub fn monitors_installed(&self) -> u64 {
        InflateCause::ALL
            .iter()
            .filter(|c| **c != InflateCause::Notify)
            .map(|c| self.inflations_by(*c))
            .sum()
    }

    /// `notify`/`notify_all` calls that found the object inflated (and
    /// installed nothing): the [`InflateCause::Notify`] slot.
    pub fn notifies_on_inflated(&self) -> u64 {
        self.inflations_by(InflateCause::Notify)
    }

    /// `self − earlier`, counter by counter.
    pub fn since(&self, earlier: &SyncStats) -> SyncStats {
        let mut d = *self;
        for i in 0..N {
            d.inflations[i] -= earlier.inflations[i];
        }
        d.monitors_freed -= earlier.monitors_freed;
        d.released_at_thread_exit -= earlier.released_at_thread_exit;
        d.monitors_deflated -= earlier.monitors_deflated;
        d.deflation_passes -= earlier.deflation_passes;
        d.deflation_nanos -= earlier.deflation_nanos;
        d.fair_hand_offs -= earlier.fair_hand_offs;
        d
    }
}

struct Global {
    inflations: [AtomicU64; N],
    monitors_freed: AtomicU64,
    released_at_thread_exit: AtomicU64,
    monitors_deflated: AtomicU64,
    deflation_passes: AtomicU64,
    deflation_nanos: AtomicU64,
    fair_hand_offs: AtomicU64,
}

#[allow(clippy::declare_interior_mutable_const)]
const ZERO: AtomicU64 = AtomicU64::new(0);
static GLOBAL: Global = Global {
    inflations: [ZERO; N],
    monitors_freed: ZERO,
    released_at_thread_exit: ZERO,
    monitors_deflated: ZERO,
    deflation_passes: ZERO,
    deflation_nanos: ZERO,
    fair_hand_offs: ZERO,
};

std::thread_local! {
    static LOCAL: Cell<SyncStats> = const { Cell::new(SyncStats { inflations: [0; N], monitors_freed: 0, released_at_thread_exit: 0, monitors_deflated: 0, deflation_passes: 0, deflation_nanos: 0, fair_hand_offs: 0 }) };
}

// Relaxed everywhere below: counters order nothing, a reader wants totals.

pub(crate) fn count_inflation(cause: InflateCause) {
    // Relaxed (here and in every counter below): statistics publish no other
    // data; a reader only needs each counter's own value.
    GLOBAL.inflations[cause.index()].fetch_add(1, Ordering::Relaxed);
    let _ = LOCAL.try_with(|l| {
        let mut s = l.get();
        s.inflations[cause.index()] += 1;
        l.set(s);
    });
}

pub(crate) fn count_monitor_freed() {
    GLOBAL.monitors_freed.fetch_add(1, Ordering::Relaxed);
    let _ = LOCAL.try_with(|l| {
        let mut s = l.get();
        s.monitors_freed += 1;
        l.set(s);
    });
}

pub(crate) fn count_released_at_exit() {
    GLOBAL.released_at_thread_exit.fetch_add(1, Ordering::Relaxed);
}

/// A deflation pass (process-wide counters only: the deflation thread's
/// own copy would interest nobody).
pub(crate) fn count_deflation(deflated: usize, elapsed: std::time::Duration) {
    GLOBAL
        .monitors_deflated
        .fetch_add(deflated as u64, Ordering::Relaxed);
    GLOBAL.deflation_passes.fetch_add(1, Ordering::Relaxed);
    GLOBAL
        .deflation_nanos
        .fetch_add(elapsed.as_nanos().min(u64::MAX as u128) as u64, Ordering::Relaxed);
}

/// A monitor deflated on its last owner's exit (freed by a later pass,
/// which does not count it again).
pub(crate) fn count_deflation_on_exit() {
    GLOBAL.monitors_deflated.fetch_add(1, Ordering::Relaxed);
}

/// A fair hand-off (process-wide only: the exiting owner that makes it is
/// not the thread it favours).
pub(crate) fn count_fair_hand_off() {
    GLOBAL.fair_hand_offs.fetch_add(1, Ordering::Relaxed);
}

/// Process-wide counters.
pub fn snapshot() -> SyncStats {
    let mut s = SyncStats::default();
    // Relaxed throughout: independent counters, read as a snapshot; no
    // other memory is published through them.
    for i in 0..N {
        s.inflations[i] = GLOBAL.inflations[i].load(Ordering::Relaxed);
    }
    s.monitors_freed = GLOBAL.monitors_freed.load(Ordering::Relaxed);
    s.released_at_thread_exit = GLOBAL.released_at_thread_exit.load(Ordering::Relaxed);
    s.monitors_deflated = GLOBAL.monitors_deflated.load(Ordering::Relaxed);
    s.deflation_passes = GLOBAL.deflation_passes.load(Ordering::Relaxed);
    s.deflation_nanos = GLOBAL.deflation_nanos.load(Ordering::Relaxed);
    s.fair_hand_offs = GLOBAL.fair_hand_offs.load(Ordering::Relaxed);
    s
}

/// What the current thread caused.
pub fn thread_snapshot() -> SyncStats {
    LOCAL.try_with(|l| l.get()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A notify on an inflated object installs nothing: it is counted apart,
    /// and the causes in parentheses add up to the installed total.
    #[test]
    fn notify_on_inflated_is_not_an_installation() {
        let mut s = SyncStats::default();
        s.inflations[InflateCause::Wait as usize] = 3;
        s.inflations[InflateCause::Contention as usize] = 2;
        s.inflations[InflateCause::Notify as usize] = 5;
        assert_eq!(s.monitors_installed(), 5);
        assert_eq!(s.notifies_on_inflated(), 5);
        let shown = s.to_string();
        assert!(
            shown.starts_with("monitors installed: 5 (contention=2, wait=3,"),
            "{shown}"
        );
        assert!(!shown.contains("notify-on-inflated="), "{shown}");
        assert!(shown.contains("notifies on an inflated object: 5"), "{shown}");
        let parts: u64 = labelled(&s).map(|(_, n)| n).sum();
        assert_eq!(parts, s.monitors_installed());
        let debug = format!("{s:?}");
        assert!(
            debug.contains("notifies_on_inflated: 5") && !debug.contains("\"notify-on-inflated\""),
            "{debug}"
        );
    }
}
