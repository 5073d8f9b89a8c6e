//! Mutator assists: a mutator that allocates faster than the collector
//! works does a bounded slice of the current concurrent phase's work in its
//! allocation slow path, instead of only waiting in the pacer (Go's GC
//! assists, `gcAssistAlloc`; Shenandoah's pacer only delays). The cycle
//! then keeps pace with the allocation even when the collector's threads
//! get little CPU, so it ends before the heap is full and mutators rarely
//! fall into a degenerated (stop-the-world) cycle.
//!
//! Where it sits: between [`crate::gc::heap::mutator`] (whose `alloc_slow` asks for a
//! slice when [`super::pacer::Pacer::claim`] finds the budget spent, and
//! when a refill finds no memory during a cycle) and [`super::parallel`]
//! (whose concurrent phases publish their work units here while they run).
//!
//! An assist uses the workers' own work units and protocols:
//! - Marking: the phase's [`TaskQueues`]. An assist steals like an idle
//!   worker ([`TaskQueues::steal`]: half of a queue) and traces from what
//!   it took with the workers' `scan`, the mark bit's `fetch_or` picking
//!   one scanner per object. It also drains the heap's SATB queue, as the
//!   collector's marking loop does. An assist is not one of the phase's
//!   workers: it never pushes to a queue and never counts towards
//!   termination, so the termination argument (`workers.rs`) holds for the
//!   workers unchanged; the phase may end while an assist still holds
//!   marked, unscanned objects. What is left when its slice ends goes to
//!   the heap's *grey* list ([`Assists::give_back`]), which the collector's
//!   marking loop, final-mark and a degenerated mark take before they
//!   conclude, so no object is left unscanned. The next slice takes from
//!   the grey list first ([`Assists::steal_grey`]), so assists go on
//!   marking while the collector's threads are descheduled.
//! - Evacuation and update-refs: the phase's [`RegionClaims`], the same
//!   atomic claim index the workers take regions by; an assist claims a
//!   region and processes all of it (evacuating with its own GCLAB, as its
//!   barriers do), region after region until its slice's work is done.
//!   A region claimed is processed once, by whoever claimed it.
//!
//! Why an assist never overlaps a pause: it runs on a mutator outside any
//! safe region, and a pause begins only when every mutator is stopped
//! (`heap/safepoint.rs`). So a pause that follows a phase waits for every slice
//! of that phase to end, and the state the phase depends on (the GC state
//! byte, TAMS, the set, the watermarks: written in the pause before the
//! phase, which the assisting mutator passed through) is fixed while it
//! runs. A phase's work units are published ([`Assists::publish`]) after
//! the pause before it and withdrawn before the pause after it; an assist
//! that took a unit's `Arc` just before the withdrawal finds the claims
//! exhausted (the phase ended only once every index was claimed) or, for
//! marking, empty queues, and does nothing.
//!
//! A slice is bounded by words of work (scanned, copied, or parsed), the
//! pacer's unit: the debt of the refill that asked, in the pacer's words,
//! [`MIN_SLICE_WORDS`]..=[`MAX_SLICE_WORDS`]; a region is the smallest unit
//! of evacuation and update-refs, so a slice there may run one region past
//! its bound. A slice also ends as soon as a pause is requested (the
//! mutator's poll word is armed: Go's assists check for preemption the
//! same way), after the object or region at hand: every pause waits for
//! the assisting mutator, so a slice must not make the time to safepoint
//! its own length, least of all when the mutator is descheduled in it.

use super::workers::TaskQueues;
#[cfg(not(loom))]
use crate::gc::atomic::AtomicU64;
use crate::gc::atomic::{AtomicUsize, Mutex, MutexGuard, Ordering};

/// The least work a slice asks for, in words: a slice pays a lock or two
/// to find its work, which should stay small beside the work.
pub(crate) const MIN_SLICE_WORDS: usize = 4096;

/// The most work a slice asks for, in words (512 KiB scanned: a fraction of
/// a millisecond), so an assist stays far inside a 10 ms latency goal and
/// the pauses it delays (every pause waits for running mutators) are
/// delayed little.
pub(crate) const MAX_SLICE_WORDS: usize = 64 * 1024;

/// What a region claim asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RegionWork {
    /// Copy the region's marked objects (concurrent evacuation).
    Evacuate,
    /// Update the region's references into the set (concurrent update-refs).
    UpdateRefs,
}

/// One region phase's work units: the listed regions, claimed in order by
/// an atomic index that the workers and the assists share.
pub(crate) struct RegionClaims {
    pub(crate) list: Vec<usize>,
    next: AtomicUsize,
    pub(crate) work: RegionWork,
}

impl RegionClaims {
    pub(crate) fn new(list: Vec<usize>, work: RegionWork) -> RegionClaims {
        RegionClaims {
            list,
            next: AtomicUsize::new(0),
            work,
        }
    }

    /// The next unclaimed region, if any: each is returned once, to one
    /// caller.
    #[inline]
    pub(crate) fn claim(&self) -> Option<usize> {
        // Relaxed: the index only picks distinct regions (the RMW's total
        // order per location). The regions' data is ordered before every
        // claimer by the pause before the phase (a mutator passed through
        // it; the workers are woken by the pool's mutex), and the list by
        // its publication (the pool's mutex, or `Assists::current`'s).
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        self.list.get(k).copied()
    }
}

/// The work a running concurrent phase offers to assists.
#[derive(Clone)]
pub(crate) enum Published {
    Mark(crate::primitives::Arc<TaskQueues>),
    Regions(crate::primitives::Arc<RegionClaims>),
}

/// The heap's assist state: the published phase, the grey list, counters.
pub(crate) struct Assists {
    current: Mutex<Option<Published>>,
    /// Marked objects an assist took but did not scan (module docs).
    grey: Mutex<Vec<usize>>,
    /// Slices that found work; their summed nanoseconds; their words.
    #[cfg(not(loom))]
    slices: AtomicU64,
    #[cfg(not(loom))]
    nanos: AtomicU64,
    #[cfg(not(loom))]
    words: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing panics while these locks are held.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Assists {
    pub(crate) fn new() -> Assists {
        Assists {
            current: Mutex::new(None),
            grey: Mutex::new(Vec::new()),
            #[cfg(not(loom))]
            slices: AtomicU64::new(0),
            #[cfg(not(loom))]
            nanos: AtomicU64::new(0),
            #[cfg(not(loom))]
            words: AtomicU64::new(0),
        }
    }

    /// A concurrent phase offers `work` (the collector thread, outside
    /// pauses) until [`Assists::withdraw`].
    pub(crate) fn publish(&self, work: Published) {
        *lock(&self.current) = Some(work);
    }

    /// The phase is over (before the pause after it).
    pub(crate) fn withdraw(&self) {
        *lock(&self.current) = None;
    }

    /// The work on offer now, if any.
    pub(crate) fn current(&self) -> Option<Published> {
        lock(&self.current).clone()
    }

    /// An assist's slice ended holding `left`: marked objects not yet
    /// scanned, for the collector to trace.
    pub(crate) fn give_back(&self, left: &mut Vec<usize>) {
        if !left.is_empty() {
            lock(&self.grey).append(left);
        }
    }

    /// An assist takes half of the grey list (rounded up) into `local`;
    /// whether anything was taken. Grey objects are marked and unscanned,
    /// whoever scans them: so marking goes on from slice to slice while
    /// the collector's threads are off their CPUs.
    pub(crate) fn steal_grey(&self, local: &mut Vec<usize>) -> bool {
        let mut grey = lock(&self.grey);
        let n = grey.len().div_ceil(2);
        let start = grey.len() - n;
        local.extend(grey.drain(start..));
        n > 0
    }

    /// Takes the grey list (the collector, before concluding marking).
    pub(crate) fn take_grey(&self) -> Vec<usize> {
        std::mem::take(&mut *lock(&self.grey))
    }

    /// Counts one slice that did `words` of work in `time`.
    #[cfg(not(loom))]
    pub(crate) fn count(&self, words: usize, time: std::time::Duration) {
        // Relaxed: statistics.
        self.slices.fetch_add(1, Ordering::Relaxed);
        self.words.fetch_add(words as u64, Ordering::Relaxed);
        self.nanos
            .fetch_add(time.as_nanos().min(u64::MAX as u128) as u64, Ordering::Relaxed);
    }

    /// (slices, summed time, words) so far.
    #[cfg(not(loom))]
    pub(crate) fn totals(&self) -> (u64, std::time::Duration, u64) {
        // Relaxed: statistics.
        (
            self.slices.load(Ordering::Relaxed),
            std::time::Duration::from_nanos(self.nanos.load(Ordering::Relaxed)),
            self.words.load(Ordering::Relaxed),
        )
    }
}

/// A marking slice over `q`'s queues and the grey list of `assists`:
/// takes grey objects or steals, runs `scan(obj, local)` (which pushes
/// what it marks and returns the object's words) until `budget` words are
/// done, nothing is left to take, or `stop()` (a pause is requested);
/// returns the words done, leaving in `local` what it did not scan.
/// `local` may hold work on entry (the SATB entries the caller marked).
pub(crate) fn mark_slice(
    q: &TaskQueues,
    assists: &Assists,
    local: &mut Vec<usize>,
    budget: usize,
    stop: &dyn Fn() -> bool,
    mut scan: impl FnMut(usize, &mut Vec<usize>) -> usize,
) -> usize {
    let mut words = 0;
    loop {
        while let Some(obj) = local.pop() {
            words += scan(obj, local);
            if words >= budget || stop() {
                return words;
            }
        }
        if !assists.steal_grey(local) && !q.steal(local) {
            return words;
        }
    }
}

/// A region slice over `c`: claims regions and runs `process(region)`
/// (which returns the region's words of work) until `budget` words are
/// done, no region is left, or `stop()` (a pause is requested); returns
/// the words done.
pub(crate) fn region_slice(
    c: &RegionClaims,
    budget: usize,
    stop: &dyn Fn() -> bool,
    mut process: impl FnMut(usize) -> usize,
) -> usize {
    let mut words = 0;
    while words < budget && !stop() {
        let Some(i) = c.claim() else { break };
        words += process(i);
    }
    words
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! The hand-offs assists add: (1) a marking phase's workers and an
    //! assist that steals with a small budget and gives back what it did not
    //! scan; the collector traces the grey list after the phase (as its
    //! marking loop and final-mark do): every item of a toy tree is
    //! processed exactly once and every thread finishes. (2) a region
    //! phase's worker claiming beside an assist that takes the published
    //! claims, possibly after the withdrawal: every region processed once.

    use super::*;
    use crate::primitives::Arc;
    use loom::thread;

    #[test]
    fn loom_assist_steals_and_gives_back() {
        loom::model(|| {
            const ITEMS: usize = 4;
            let assists = Arc::new(Assists::new());
            let q = Arc::new(TaskQueues::with_publish(1, vec![0], 1));
            // Relaxed counts throughout: each is read only after every
            // thread that adds to it has been joined.
            let seen: Arc<Vec<AtomicUsize>> = Arc::new((0..ITEMS).map(|_| AtomicUsize::new(0)).collect());
            let children = |k: usize, local: &mut Vec<usize>| {
                for c in [2 * k + 1, 2 * k + 2] {
                    if c < ITEMS {
                        local.push(c);
                    }
                }
            };
            assists.publish(Published::Mark(q.clone()));
            let assist = {
                let (assists, seen) = (assists.clone(), seen.clone());
                thread::spawn(move || {
                    if let Some(Published::Mark(q)) = assists.current() {
                        let mut local = Vec::new();
                        // A budget of one item: what it steals beyond is
                        // given back.
                        mark_slice(&q, &assists, &mut local, 1, &|| false, |k, local| {
                            seen[k].fetch_add(1, Ordering::Relaxed);
                            children(k, local);
                            1
                        });
                        assists.give_back(&mut local);
                    }
                })
            };
            q.run(0, |k, local| {
                seen[k].fetch_add(1, Ordering::Relaxed);
                children(k, local);
            });
            assists.withdraw();
            // The pause after the phase waits for the assisting mutator.
            assist.join().unwrap();
            let mut grey = assists.take_grey();
            while let Some(k) = grey.pop() {
                seen[k].fetch_add(1, Ordering::Relaxed);
                children(k, &mut grey);
            }
            // Relaxed: read after every thread joined.
            for (k, s) in seen.iter().enumerate() {
                assert_eq!(s.load(Ordering::Relaxed), 1, "item {k} processed once");
            }
        });
    }

    #[test]
    fn loom_assist_claims_regions_once() {
        loom::model(|| {
            const REGIONS: usize = 3;
            let assists = Arc::new(Assists::new());
            let c = Arc::new(RegionClaims::new((0..REGIONS).collect(), RegionWork::UpdateRefs));
            // Relaxed counts throughout: each is read only after every
            // thread that adds to it has been joined.
            let seen: Arc<Vec<AtomicUsize>> = Arc::new((0..REGIONS).map(|_| AtomicUsize::new(0)).collect());
            assists.publish(Published::Regions(c.clone()));
            let assist = {
                let (assists, seen) = (assists.clone(), seen.clone());
                thread::spawn(move || {
                    if let Some(Published::Regions(c)) = assists.current() {
                        region_slice(&c, 1, &|| false, |i| {
                            seen[i].fetch_add(1, Ordering::Relaxed);
                            1
                        });
                    }
                })
            };
            while let Some(i) = c.claim() {
                seen[i].fetch_add(1, Ordering::Relaxed);
            }
            assists.withdraw();
            assist.join().unwrap();
            for (i, s) in seen.iter().enumerate() {
                assert_eq!(s.load(Ordering::Relaxed), 1, "region {i} processed once");
            }
        });
    }
}
