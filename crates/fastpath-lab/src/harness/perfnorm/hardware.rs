//! The hardware path: CPU counters through perf_event_open (the
//! `perf-event2` crate), counting only the calling thread, in user space
//! only (what `perf_event_paranoid` 2, the common default, allows an
//! unprivileged user; a row whose cost is a system call, such as
//! `publish()`, shows only its user-side instructions).
//!
//! Where it sits: [`Profiler`](super::Profiler) senses the events once per
//! run ([`sense`]); each profiled region then runs once per counter group
//! ([`count`]). Events are sensed one by one, as JMH's perfnorm does: one
//! the PMU or the kernel refuses (a KVM guest without a virtual PMU refuses
//! them all; AMD has no `L1-dcache-stores`) is dropped with a note instead
//! of failing the run. The survivors are split into groups small enough to
//! fit the PMU's general-purpose counters (four on most x86 cores), so each
//! group is scheduled as a whole; when the kernel still time-shares a group
//! (another perf user, a hypervisor's limits), `time_running <
//! time_enabled` says so, the counts are scaled by enabled/running and the
//! row is marked multiplexed.

use std::collections::BTreeMap;

use perf_event::events::{Cache, CacheId, CacheOp, CacheResult, Event, Hardware};
use perf_event::{Builder, Group};

/// Events per group: fits the general-purpose counters of current x86 and
/// Arm cores, so the kernel can schedule a whole group at once.
const GROUP_SIZE: usize = 4;

/// A perf event by its perfnorm name.
#[derive(Clone, Debug)]
pub struct Sensed {
    /// JMH perfnorm name (`instructions`, `L1-dcache-loads`, …).
    pub name: &'static str,
    kind: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    Hw(Hardware),
    Cache(CacheId, CacheOp, CacheResult),
    /// A kernel software event: not a perfnorm counter, but it exercises
    /// the same group plumbing where the PMU is absent (the tests).
    #[cfg(test)]
    Sw(perf_event::events::Software),
}

impl Kind {
    fn builder(&self) -> Builder<'static> {
        fn with<E: Event>(e: E) -> Builder<'static> {
            let mut b = Builder::new(e);
            b.observe_self().any_cpu().exclude_kernel(true).exclude_hv(true);
            b
        }
        match self {
            Kind::Hw(h) => with(*h),
            Kind::Cache(which, operation, result) => with(Cache {
                which: *which,
                operation: *operation,
                result: *result,
            }),
            #[cfg(test)]
            Kind::Sw(e) => with(*e),
        }
    }
}

/// Every event perfnorm reports, in its order.
fn wanted() -> Vec<Sensed> {
    use CacheId as C;
    use CacheOp as O;
    use CacheResult as R;
    let e = |name, kind| Sensed { name, kind };
    vec![
        e("cycles", Kind::Hw(Hardware::CPU_CYCLES)),
        e("instructions", Kind::Hw(Hardware::INSTRUCTIONS)),
        e("branches", Kind::Hw(Hardware::BRANCH_INSTRUCTIONS)),
        e("branch-misses", Kind::Hw(Hardware::BRANCH_MISSES)),
        e("L1-dcache-loads", Kind::Cache(C::L1D, O::READ, R::ACCESS)),
        e("L1-dcache-load-misses", Kind::Cache(C::L1D, O::READ, R::MISS)),
        e("L1-dcache-stores", Kind::Cache(C::L1D, O::WRITE, R::ACCESS)),
        e("LLC-loads", Kind::Cache(C::LL, O::READ, R::ACCESS)),
        e("LLC-load-misses", Kind::Cache(C::LL, O::READ, R::MISS)),
    ]
}

/// The events this machine counts, and a note per event it refused.
pub fn sense() -> (Vec<Sensed>, Vec<String>) {
    let mut ok = Vec::new();
    let mut dropped = Vec::new();
    for ev in wanted() {
        match ev.kind.builder().build() {
            Ok(_) => ok.push(ev),
            Err(e) => dropped.push(format!("{}: {e}", ev.name)),
        }
    }
    (ok, dropped)
}

/// Counts of one run of `region` over `events`, one group per
/// `GROUP_SIZE` events (the region runs once per group): totals by
/// name, and whether any group was multiplexed (then scaled).
pub fn count(
    events: &[Sensed],
    region: &mut dyn FnMut(),
) -> std::io::Result<(BTreeMap<&'static str, f64>, bool)> {
    let mut totals = BTreeMap::new();
    let mut multiplexed = false;
    for chunk in events.chunks(GROUP_SIZE) {
        let mut group = Group::new()?;
        let counters = chunk
            .iter()
            .map(|ev| group.add(&ev.kind.builder()))
            .collect::<std::io::Result<Vec<_>>>()?;
        group.reset()?;
        group.enable()?;
        region();
        group.disable()?;
        let data = group.read()?;
        let enabled = data.time_enabled().map_or(0, |d| d.as_nanos());
        let running = data.time_running().map_or(0, |d| d.as_nanos());
        if running == 0 {
            return Err(std::io::Error::other(format!(
                "the counter group {:?} never ran (the PMU could not schedule it)",
                chunk.iter().map(|e| e.name).collect::<Vec<_>>()
            )));
        }
        let scale = enabled as f64 / running as f64;
        multiplexed |= running < enabled;
        for (ev, c) in chunk.iter().zip(&counters) {
            totals.insert(ev.name, data[c] as f64 * scale);
        }
    }
    Ok((totals, multiplexed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use perf_event::events::Software;

    /// The group path (open, enable, run, disable, read, scale) on kernel
    /// software events, which every Linux has, PMU or not. Five events
    /// make two groups, so the chunking runs the region twice.
    #[test]
    fn groups_count_a_region_and_report_no_multiplexing_for_software_events() {
        let sw = |name, e| Sensed {
            name,
            kind: Kind::Sw(e),
        };
        let events = vec![
            sw("task-clock", Software::TASK_CLOCK),
            sw("context-switches", Software::CONTEXT_SWITCHES),
            sw("cpu-migrations", Software::CPU_MIGRATIONS),
            sw("alignment-faults", Software::ALIGNMENT_FAULTS),
            // Alone in the second group.
            sw("page-faults", Software::PAGE_FAULTS),
        ];
        if let Err(e) = events[0].kind.builder().build() {
            // perf_event_paranoid 3 (some distributions) refuses even
            // software events to an unprivileged user.
            assert!(
                std::env::var_os("CI").is_none(),
                "perf_event_open refused under CI: {e}"
            );
            eprintln!("perf_event_open refused ({e}): nothing checked");
            return;
        }
        let mut runs = 0;
        let (totals, multiplexed) = count(&events, &mut || {
            runs += 1;
            touch_fresh_pages(256);
        })
        .unwrap();
        assert_eq!(runs, 2, "one run per group of {GROUP_SIZE}");
        assert!(totals["task-clock"] > 0.0, "{totals:?}");
        // 256 fresh pages touched once each: one fault per page (a page
        // from the allocator could be one it had touched already).
        assert!(totals["page-faults"] >= 256.0, "{totals:?}");
        assert_eq!(totals.len(), 5);
        assert!(!multiplexed, "software events are never time-shared");
    }

    #[test]
    fn sensing_never_fails_the_run() {
        let (ok, dropped) = sense();
        assert_eq!(ok.len() + dropped.len(), wanted().len());
        assert!(dropped.iter().all(|d| d.contains(':')), "{dropped:?}");
    }

    /// Maps `pages` fresh anonymous pages, writes one byte in each (a page
    /// fault apiece: the kernel backs them on first touch) and unmaps them.
    fn touch_fresh_pages(pages: usize) {
        let page = 4096;
        let len = pages * page;
        // SAFETY: a private anonymous mapping of `len` bytes, written only
        // within its bounds and unmapped once, by this function alone.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(p, libc::MAP_FAILED, "mmap");
            let bytes = p.cast::<u8>();
            for i in 0..pages {
                std::ptr::write_volatile(bytes.add(i * page), i as u8);
            }
            libc::munmap(p, len);
        }
    }
}
