//! Async monitor deflation: idle monitors go back to their headers, as
//! HotSpot's `MonitorDeflationThread` does (`ObjectSynchronizer::
//! deflate_idle_monitors`, synchronizer.cpp, JDK 21).
//!
//! Where it sits: below inflation (each inflation starts the deflation
//! thread, [`ensure_thread_started`]), on its own thread (or a
//! runtime's, through [`deflate_idle_monitors`]). It walks the monitor
//! registry, runs each monitor's half of the protocol
//! ([`Monitor::try_deflate`]), puts the displaced header back into the
//! object ([`restore_deflated`], which the slow paths call too when they
//! meet a deflated monitor), and frees the monitors after a grace period
//! over the threads' critical sections ([`crate::thread::wait_for_readers`]).
//!
//! A pass:
//! 1. Under the registry lock: for every monitor that is idle (no owner, no
//!    contender, no waiter), `owner` NO_OWNER → DEFLATER_MARKER, re-check,
//!    `contentions` 0 → DEFLATED; then CAS the object's header from the
//!    monitor back to the displaced header and drop it from the registry.
//!    The lock keeps header `Drop` and thread exit out while it works.
//! 2. The grace period: every thread that might still hold a pointer to one
//!    of these monitors (it read the header before step 1) has left its
//!    critical section.
//! 3. Free them.
//!
//! A contender that meets a deflated monitor retries from the header, which
//! it helps restore; so after a deflation an object locks at fast-lock cost
//! again.
//!
//! Deflation on exit, fastpath's own and on by default
//! ([`set_deflate_on_exit`]): a monitor installed for a contention (another
//! thread's thin lock outlasted the fast-lock spin) is deflated by the
//! exit that leaves it idle: the exiting owner, right after its release
//! found nobody queued, runs the same protocol as a pass
//! ([`Monitor::try_deflate`]: `owner` NO_OWNER → DEFLATER_MARKER, the
//! re-check, `contentions` 0 → DEFLATED) and puts the displaced header back
//! ([`deflate_on_exit`]), inside its critical section; the monitor stays
//! registered, marked, until the next pass frees it after its grace period
//! (the deflation thread runs one every interval while any wait). So an
//! object contended for a moment goes back to fast-locking as soon as the
//! contention is over, as parking_lot's lock word goes back to plain when
//! its queue empties, instead of paying the inflated path until a pass
//! (HotSpot's triggers rarely fire within seconds: the locking section of
//! BENCHMARKS.md). Monitors installed for `wait` (a wait/notify protocol
//! needs them again), for monitor-only locking and for the owner's own
//! reasons (a full lock-stack, interleaved or unstructured locking) stay.
//! A contention that outlasts the spin again inflates again: one
//! allocation and registration per contended episode, against the
//! inflated path on every operation between two passes.
//!
//! Triggers (HotSpot's flags, same defaults): a pass runs every
//! `AsyncDeflationInterval` (250 ms) if the monitors in use exceed
//! `MonitorUsedDeflationThreshold` (90 %) of a ceiling of
//! `AvgMonitorsPerThreadEstimate` (1024) per live thread, and at least every
//! `GuaranteedAsyncDeflationInterval` (60 s) when any monitor exists. The
//! thread starts with the first inflation and registers `membarrier` for
//! the grace periods itself, off the inflating thread. A runtime that prefers to deflate
//! at its own safepoints turns it off ([`DeflationPolicy::enabled`]) and
//! calls [`deflate_idle_monitors`].
//!
//! One trigger of fastpath's own, off by default
//! ([`set_deflate_after_contention`]): a pass every
//! `AsyncDeflationInterval` when any object was inflated by contention
//! since the last pass that deflated something, whatever the count (a
//! busy monitor is not idle at a pass: the next interval looks again). It targets the objects that
//! got a monitor for a momentary contention (a holder preempted inside a
//! short critical section outlasts the fast-lock spin of
//! `fast_lock_spin.rs`) and would otherwise keep paying the inflated path
//! until the 60 s guaranteed pass. Monitors installed for `wait` do not
//! count: a wait/notify protocol needs its monitor again. Off by default,
//! so HotSpot's defaults stand, for three reasons measured in the
//! benchmarks notebook (`docs/benchmarks-log-2026.md`, "Locking,
//! sync-spin"): each pass is a
//! registry walk plus, when it deflates anything, a `membarrier` IPI to
//! every running thread of the process; an object contended often re-inflates within milliseconds
//! (the next preemption of a holder mid-section), so a 250 ms pass leaves
//! it inflated nearly all the time anyway; and a busy monitor deflated
//! and re-inflated costs an allocation, a registration and a free each
//! round.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as StdOrdering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use super::atomic::Ordering;
use super::header::{Header, Mark};
use super::monitor::Monitor;
use super::registry;
use super::settings;
use super::stats;
use crate::thread::{init_asymmetric_barrier, wait_for_readers};

/// When the deflation thread deflates (HotSpot's flags).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeflationPolicy {
    /// Whether the deflation thread runs passes at all (`false`: only
    /// [`deflate_idle_monitors`] deflates).
    pub enabled: bool,
    /// How often the thread looks (`AsyncDeflationInterval`, 250 ms).
    pub interval: Duration,
    /// A pass at least this often while any monitor exists
    /// (`GuaranteedAsyncDeflationInterval`, 60 s).
    pub guaranteed_interval: Duration,
    /// Percentage of the ceiling in use that triggers a pass
    /// (`MonitorUsedDeflationThreshold`, 90; 0: every interval).
    pub used_threshold_percent: u32,
    /// The ceiling per live thread (`AvgMonitorsPerThreadEstimate`, 1024).
    pub monitors_per_thread: usize,
}

impl DeflationPolicy {
    /// HotSpot's defaults.
    pub const HOTSPOT: DeflationPolicy = DeflationPolicy {
        enabled: true,
        interval: Duration::from_millis(250),
        guaranteed_interval: Duration::from_secs(60),
        used_threshold_percent: 90,
        monitors_per_thread: 1024,
    };

    /// Whether a pass is due with `in_use` monitors, `threads` live threads
    /// and `since_last` since the last pass.
    #[cfg_attr(loom, allow(dead_code))]
    fn is_due(&self, in_use: usize, threads: usize, since_last: Duration) -> bool {
        if in_use == 0 {
            return false;
        }
        let ceiling = self.monitors_per_thread.saturating_mul(threads.max(1));
        in_use.saturating_mul(100) > ceiling.saturating_mul(self.used_threshold_percent as usize)
            || since_last >= self.guaranteed_interval
    }
}

impl Default for DeflationPolicy {
    fn default() -> Self {
        DeflationPolicy::HOTSPOT
    }
}

/// What one pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeflationReport {
    /// Monitors looked at.
    pub scanned: usize,
    /// Monitors freed: deflated by this pass, or on their owner's exit
    /// before it ([`set_deflate_on_exit`]).
    pub deflated: usize,
    /// Time the pass took, grace period included.
    pub elapsed: Duration,
}

/// The policy and the deflation thread's wake-up.
static POLICY: Mutex<DeflationPolicy> = Mutex::new(DeflationPolicy::HOTSPOT);
static WAKE: Condvar = Condvar::new();

/// One pass at a time (the thread's and explicit ones).
static PASS: Mutex<()> = Mutex::new(());

fn policy_lock() -> std::sync::MutexGuard<'static, DeflationPolicy> {
    // The first look starts from the settings (FASTPATH_DEFLATION_*), read
    // outside the lock (a bad one is reported to a hook that may call in
    // here); a setter, which looks first too, then replaces them.
    STARTED.call_once(|| {
        let interval = Duration::from_millis(settings::DEFLATION_INTERVAL.get().0);
        let threshold = settings::DEFLATION_THRESHOLD.get().0;
        let mut policy = POLICY.lock().unwrap_or_else(|e| e.into_inner());
        policy.interval = interval;
        policy.used_threshold_percent = threshold;
    });
    // Poisoning: a policy is a plain value, always consistent.
    POLICY.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether the policy has taken the settings' values.
static STARTED: std::sync::Once = std::sync::Once::new();

/// Replaces the deflation policy (process-wide); the deflation thread
/// applies it at once.
pub fn set_deflation_policy(policy: DeflationPolicy) {
    *policy_lock() = policy;
    WAKE.notify_all();
}

/// The deflation policy in force.
pub fn deflation_policy() -> DeflationPolicy {
    *policy_lock()
}

/// Whether a pass runs every interval after a contention inflation (module
/// docs). A setting, not protocol state: relaxed.
static AFTER_CONTENTION: AtomicBool = AtomicBool::new(false);

/// Turns on (or off) fastpath's extra trigger: a deflation pass every
/// [`DeflationPolicy::interval`] whenever any object was inflated by
/// contention ([`InflateCause::Contention`](super::InflateCause)) since
/// the last pass, on top of [`DeflationPolicy`]'s HotSpot triggers. Off by
/// default (see the module docs for its cost and why); process-wide; the
/// deflation thread applies it at once.
pub fn set_deflate_after_contention(on: bool) {
    AFTER_CONTENTION.store(on, StdOrdering::Relaxed);
    WAKE.notify_all();
}

/// Whether [`set_deflate_after_contention`] is on.
pub fn deflates_after_contention() -> bool {
    AFTER_CONTENTION.load(StdOrdering::Relaxed)
}

/// Whether contention monitors deflate on their last owner's exit (module
/// docs). A setting, not protocol state: relaxed.
static ON_EXIT: AtomicBool = AtomicBool::new(true);

/// Monitors deflated on exit and not yet freed: the deflation thread's
/// cue. A count, not protocol state (the monitors are found by their
/// mark): relaxed.
static DEFLATED_ON_EXIT: AtomicUsize = AtomicUsize::new(0);

/// Turns deflation on exit on (the default) or off (HotSpot's behaviour: a
/// contention monitor stays until a pass): when on, a monitor installed for
/// a contention from then on is deflated by the exit that leaves it idle
/// (module docs). Process-wide; monitors installed before keep the setting
/// they were installed with.
pub fn set_deflate_on_exit(on: bool) {
    ON_EXIT.store(on, StdOrdering::Relaxed);
}

/// Whether [`set_deflate_on_exit`] is on.
pub fn deflates_on_exit() -> bool {
    ON_EXIT.load(StdOrdering::Relaxed)
}

/// An exit by the owner of `m`, installed in `obj`, just released it:
/// deflate it if it deflates on exit and is idle (module docs). The
/// caller is inside a critical section (it read `m` from the header).
#[inline(always)]
pub(crate) fn deflate_on_exit(obj: &Header, m: &Monitor) {
    if m.deflates_on_exit() {
        deflate_idle_on_exit(obj, m);
    }
}

/// [`deflate_on_exit`]'s work: the pass's protocol on one monitor, then
/// the header restored and the monitor marked for the next pass to free.
/// `false` if the monitor was busy (recursion levels still held, a thread
/// queued, spinning or waiting, another owner already), which leaves it
/// as it was.
#[cold]
#[inline(never)]
pub(crate) fn deflate_idle_on_exit(obj: &Header, m: &Monitor) -> bool {
    if !m.try_deflate() {
        return false;
    }
    restore_deflated(obj, m);
    m.set_deflated_by_owner();
    DEFLATED_ON_EXIT.fetch_add(1, StdOrdering::Relaxed);
    stats::count_deflation_on_exit();
    true
}

/// Contention inflations so far, process-wide (the extra trigger's clock).
#[cfg_attr(loom, allow(dead_code))]
fn contention_inflations() -> u64 {
    stats::snapshot().inflations_by(stats::InflateCause::Contention)
}

/// Deflates every idle monitor now, in the calling thread, and frees them
/// (HotSpot deflates at a safepoint when asked to; a runtime calls this at
/// its own). Waits for the threads inside `sync` calls to leave them (a
/// grace period); do not call it while holding a lock another thread needs
/// to get there.
pub fn deflate_idle_monitors() -> DeflationReport {
    deflation_pass(true)
}

/// One pass: with `deflate_idle`, every idle monitor is deflated (a
/// HotSpot pass); without, only the monitors already deflated on exit are
/// freed. Both free the latter.
fn deflation_pass(deflate_idle: bool) -> DeflationReport {
    // Poisoning: the guard protects no data.
    let _one = PASS.lock().unwrap_or_else(|e| e.into_inner());
    init_asymmetric_barrier();
    let start = Instant::now();
    let mut deflated: Vec<*const Monitor> = Vec::new();
    let mut by_owners = 0;
    let scanned = {
        // Young monitors too: idle ones deflate like any other.
        let mut reg = registry::registry_all();
        let scanned = reg.len();
        reg.retain(|m| {
            // SAFETY: a monitor in the registry is allocated; only this
            // pass (one at a time) and header `Drop` free registered
            // monitors, both under the lock we hold.
            let m = unsafe { &*(m as *const Monitor) };
            if m.is_deflated_by_owner() {
                // Its owner put the header back before leaving the
                // critical section the grace period waits for; the object
                // may be gone since: not looked at.
                by_owners += 1;
                deflated.push(m);
                return false;
            }
            if !deflate_idle || !m.try_deflate() {
                return true;
            }
            let obj = m.object();
            if obj != 0 {
                // SAFETY: the object is alive: its header's `Drop` takes
                // the registry lock (held here) before it looks at its
                // monitor, and one dropped while another thread owned the
                // monitor zeroed `object` under that lock.
                let h = unsafe { &*(obj as *const Header) };
                restore_deflated(h, m);
            }
            deflated.push(m);
            false
        });
        scanned
    };
    if !deflated.is_empty() {
        wait_for_readers();
    }
    let n = deflated.len();
    DEFLATED_ON_EXIT.fetch_sub(by_owners, StdOrdering::Relaxed);
    for m in deflated {
        // SAFETY: allocated by `inflate`, out of its header and the
        // registry, and no thread is still inside a critical section that
        // began while it was reachable.
        drop(unsafe { Box::from_raw(m as *mut Monitor) });
    }
    let elapsed = start.elapsed();
    // Those deflated on exit were counted then.
    stats::count_deflation(n - by_owners, elapsed);
    DeflationReport {
        scanned,
        deflated: n,
        elapsed,
    }
}

/// Starts the deflation thread if it is not running (called by every
/// inflation; one atomic load once started).
#[cfg(not(loom))]
pub(crate) fn ensure_thread_started() {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        // The `membarrier` registration is the new thread's first act, not
        // ours: it waits for a scheduler grace period (milliseconds), which
        // would otherwise stall the inflating thread's first lock (the
        // benchmarks notebook, "Locking, sync-churn").
        let spawned = std::thread::Builder::new()
            .name("fastpath-deflater".into())
            .spawn(deflation_thread);
        // Without the thread, monitors are still freed with their objects
        // and by `deflate_idle_monitors`: nothing to report but this.
        if let Err(e) = spawned {
            eprintln!("fastpath::sync: no deflation thread ({e}); monitors deflate only on request");
        }
    });
}

/// Models run deflation passes explicitly.
#[cfg(loom)]
pub(crate) fn ensure_thread_started() {}

#[cfg(not(loom))]
fn deflation_thread() {
    // Before any monitor can be deflated (every pass also makes sure), and
    // early: until it is done, every critical section entry pays a real
    // fence, which is always safe (`thread/critical.rs`).
    init_asymmetric_barrier();
    let mut last = Instant::now();
    let mut contended_at_last = contention_inflations();
    loop {
        let policy = {
            let guard = policy_lock();
            let interval = guard.interval;
            // Wakes early when the policy changes.
            let (guard, _) = WAKE
                .wait_timeout(guard, interval)
                .unwrap_or_else(|e| e.into_inner());
            *guard
        };
        if !policy.enabled {
            continue;
        }
        let contended = contention_inflations();
        let after_contention = deflates_after_contention() && contended != contended_at_last;
        if after_contention
            || policy.is_due(
                registry::live_monitors(),
                crate::thread::live_threads(),
                last.elapsed(),
            )
        {
            let report = deflation_pass(true);
            last = Instant::now();
            // A busy monitor is not idle at the pass: keep looking every
            // interval until one goes (or a newer contention comes).
            if report.deflated > 0 || !after_contention {
                contended_at_last = contended;
            }
        } else if DEFLATED_ON_EXIT.load(StdOrdering::Relaxed) > 0 {
            // Monitors deflated on exit wait to be freed: a pass that
            // frees them and deflates nothing else (HotSpot's triggers
            // decide that).
            deflation_pass(false);
        }
    }
}

/// `m`, installed in `obj`, is deflated: put the displaced header back into
/// the object (HotSpot `install_displaced_markword_in_object`). The
/// deflater does the same and contenders help; the first CAS wins, the
/// others find the header changed.
pub(crate) fn restore_deflated(obj: &Header, m: &Monitor) {
    debug_assert!(m.is_deflated());
    // An RMW read (see `Monitor::is_deflated`): after the deflation's CAS
    // of `contentions`, so it sees every hash installed by a thread whose
    // `is_deflated` check came before that CAS; a hash installed later is
    // re-checked, found deflated, and retried by its installer.
    let displaced = Mark(m.header.fetch_add(0, Ordering::SeqCst));
    let _ = obj.cas(
        Mark::encode_monitor(m),
        displaced,
        Ordering::SeqCst,
        Ordering::Relaxed,
    );
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn hotspot_triggers() {
        let p = DeflationPolicy::HOTSPOT;
        assert!(!p.is_due(0, 1, Duration::from_secs(3600)), "nothing to deflate");
        assert!(!p.is_due(900, 1, Duration::ZERO), "90 % of 1024 is 921.6");
        assert!(p.is_due(922, 1, Duration::ZERO));
        assert!(!p.is_due(1800, 2, Duration::ZERO));
        assert!(p.is_due(1, 8, Duration::from_secs(60)), "guaranteed interval");
        let every = DeflationPolicy {
            used_threshold_percent: 0,
            ..p
        };
        assert!(every.is_due(1, 100, Duration::ZERO));
    }
}
