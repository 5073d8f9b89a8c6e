//! Async monitor deflation from C: a pass on request and the policy of the
//! deflation thread (over `fastpath::sync`'s deflation, HotSpot's
//! `ObjectSynchronizer::deflate_idle_monitors` and its flags).
//!
//! Where it sits: beside `sync.rs`. A monitor installed on an object (by
//! contention, wait, a hash on a stack-locked object...) is deflated back to
//! a plain header once idle, by the library's deflation thread or by
//! `fastpath_deflate_idle_monitors`; a runtime with safepoints may turn the
//! thread off and call the pass at its own. Durations cross the boundary as
//! nanoseconds in `uint64_t`.

use std::time::Duration;

use fastpath_core::sync::{self, DeflationPolicy};

use crate::status::fastpath_status::{self, *};
use crate::status::{fail, ffi, put};

/// What one deflation pass did (`fastpath_deflate_idle_monitors`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct fastpath_deflation_report {
    /// Monitors looked at.
    pub scanned: u64,
    /// Monitors deflated (and freed).
    pub deflated: u64,
    /// Time the pass took, grace period included, in ns.
    pub elapsed_ns: u64,
}

/// When the deflation thread deflates (HotSpot's flags in brackets;
/// `fastpath_deflation_policy_get` returns HotSpot's defaults until set).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct fastpath_deflation_policy {
    /// Whether the thread runs passes at all (false: only
    /// `fastpath_deflate_idle_monitors` deflates).
    pub enabled: bool,
    /// How often the thread looks, ns, > 0 (`AsyncDeflationInterval`, 250 ms).
    pub interval_ns: u64,
    /// A pass at least this often while any monitor exists, ns
    /// (`GuaranteedAsyncDeflationInterval`, 60 s).
    pub guaranteed_interval_ns: u64,
    /// Percentage (0..=100) of the ceiling in use that triggers a pass
    /// (`MonitorUsedDeflationThreshold`, 90; 0: every interval).
    pub used_threshold_percent: u32,
    /// The ceiling per live thread (`AvgMonitorsPerThreadEstimate`, 1024).
    pub monitors_per_thread: u64,
}

fn nanos(d: Duration) -> u64 {
    d.as_nanos().min(u64::MAX as u128) as u64
}

/// Deflates every idle monitor now, in the calling thread, and frees them;
/// `*out` (optional) gets what the pass did. It waits until every thread
/// inside a fastpath call has left it (a grace period): do not call it
/// while holding a lock that a thread must take to get there. Any thread.
#[no_mangle]
pub extern "C" fn fastpath_deflate_idle_monitors(out: *mut fastpath_deflation_report) -> fastpath_status {
    ffi(|| {
        let r = sync::deflate_idle_monitors();
        crate::status::put_opt(
            out,
            fastpath_deflation_report {
                scanned: r.scanned as u64,
                deflated: r.deflated as u64,
                elapsed_ns: nanos(r.elapsed),
            },
        );
        Ok(())
    })
}

/// The deflation policy in force (process-wide). Any thread.
#[no_mangle]
pub extern "C" fn fastpath_deflation_policy_get(out: *mut fastpath_deflation_policy) -> fastpath_status {
    ffi(|| {
        let p = sync::deflation_policy();
        put(
            out,
            fastpath_deflation_policy {
                enabled: p.enabled,
                interval_ns: nanos(p.interval),
                guaranteed_interval_ns: nanos(p.guaranteed_interval),
                used_threshold_percent: p.used_threshold_percent,
                monitors_per_thread: p.monitors_per_thread as u64,
            },
        )
    })
}

/// Replaces the deflation policy (process-wide; the deflation thread applies
/// it at once). `FASTPATH_ERR_INVALID_ARGUMENT` (nothing changes) for an
/// `interval_ns` of 0 (the thread would never sleep) or a
/// `used_threshold_percent` above 100. Any thread.
#[no_mangle]
pub extern "C" fn fastpath_deflation_policy_set(policy: *const fastpath_deflation_policy) -> fastpath_status {
    ffi(|| {
        crate::status::aligned::<_, fastpath_deflation_policy>(policy, "the policy")?;
        // SAFETY: non-NULL and aligned (checked); the caller's contract: it
        // points to a readable `fastpath_deflation_policy`. Copied out.
        let p = unsafe { policy.read() };
        if p.interval_ns == 0 {
            return Err(fail(FASTPATH_ERR_INVALID_ARGUMENT, "interval_ns is 0"));
        }
        if p.used_threshold_percent > 100 {
            return Err(fail(
                FASTPATH_ERR_INVALID_ARGUMENT,
                format_args!("used_threshold_percent {} is above 100", p.used_threshold_percent),
            ));
        }
        sync::set_deflation_policy(DeflationPolicy {
            enabled: p.enabled,
            interval: Duration::from_nanos(p.interval_ns),
            guaranteed_interval: Duration::from_nanos(p.guaranteed_interval_ns),
            used_threshold_percent: p.used_threshold_percent,
            monitors_per_thread: usize::try_from(p.monitors_per_thread).unwrap_or(usize::MAX),
        });
        Ok(())
    })
}
