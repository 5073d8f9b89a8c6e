//! The heap a runtime creates: configuration, errors, statistics, and the
//! shared state mutators and the collector meet in.
//!
//! Where it sits: the entry point of `gc`. [`Heap::new`] validates a
//! [`HeapConfig`], allocates the [`super::heap::Space`], and in concurrent
//! mode starts the collector thread ([`super::collector`]);
//! [`Heap::mutator`] gives each thread its [`Mutator`].

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use super::barrier::BarrierSet;
use super::heap::Space;
use super::mutator::{Mutator, MutatorShared};
use super::pacer::Pacer;
use super::safepoint::{Released, Safepoint, SafepointWait};
use super::settings::{self, BarrierBits, GcMode};
use crate::setting::ConfigError;

/// GC state bit: concurrent marking runs (SATB barriers take their slow path).
pub const MARKING: u8 = 1 << 0;
/// GC state bit: evacuation runs (Brooks WB and LRB may copy objects).
pub const EVACUATION: u8 = 1 << 1;
/// GC state bit: forwarded objects exist (LRB and the CAS barrier look).
pub const HAS_FORWARDED: u8 = 1 << 2;

/// What can go wrong, as values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GcError {
    /// No space even after collecting.
    OutOfMemory,
    /// The object would not fit in a TLAB.
    ObjectTooLarge {
        /// Requested size, in words.
        words: usize,
        /// The largest accepted.
        max_words: usize,
    },
    /// A field index past the object's reference or data fields.
    FieldOutOfRange {
        /// The index given.
        index: usize,
        /// How many there are.
        len: usize,
    },
    /// A handle that was popped from its stack.
    DanglingHandle,
    /// A handle of another mutator or heap.
    ForeignHandle,
    /// An object of another heap.
    ForeignObject,
    /// A mutator whose static barrier set is not the heap's.
    BarrierMismatch {
        /// The heap's set.
        heap: BarrierBits,
        /// The mutator's.
        mutator: BarrierBits,
    },
    /// A bad heap configuration.
    Config(ConfigError),
    /// Heap or region size unusable.
    BadSize(String),
}

impl fmt::Display for GcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GcError::OutOfMemory => f.write_str("out of memory after collecting"),
            GcError::ObjectTooLarge { words, max_words } => {
                write!(f, "object of {words} words exceeds the maximum of {max_words}")
            }
            GcError::FieldOutOfRange { index, len } => {
                write!(f, "field {index} out of range (the object has {len})")
            }
            GcError::DanglingHandle => f.write_str("dangling handle"),
            GcError::ForeignHandle => f.write_str("handle of another mutator or heap"),
            GcError::ForeignObject => f.write_str("object of another heap"),
            GcError::BarrierMismatch { heap, mutator } => {
                write!(f, "mutator barrier set {mutator} differs from the heap's {heap}")
            }
            GcError::Config(e) => e.fmt(f),
            GcError::BadSize(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for GcError {}

/// How to build a heap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeapConfig {
    /// Heap size in bytes (a multiple of the region size).
    pub heap_bytes: usize,
    /// Region size in bytes (a power of two, 64 KiB..=32 MiB).
    pub region_bytes: usize,
    /// The barrier set.
    pub barriers: BarrierBits,
    /// Passive or concurrent.
    pub mode: GcMode,
    /// Concurrent mode: run cycles back to back and evacuate every region
    /// it can (Shenandoah's aggressive heuristics, for tests).
    pub aggressive: bool,
    /// Run the heap verifier at the end of every cycle (tests).
    pub verify: bool,
    /// At most this many evacuation LABs (each a TLAB's size) are handed
    /// out per cycle; a copy that finds no room fails, and its object stays
    /// in place (tests force evacuation failure with a small limit). `None`:
    /// whatever is free.
    pub evac_lab_limit: Option<usize>,
    /// Concurrent mode: pace allocation during a cycle (Shenandoah's
    /// pacer, `pacer.rs`): a TLAB refill over the cycle's budget waits up
    /// to 10 ms for the collector. On by default, as in Shenandoah.
    pub pacing: bool,
    /// How stopped mutators wait for a pause's end (`safepoint.rs`).
    pub safepoint_wait: SafepointWait,
}

impl HeapConfig {
    /// A heap of `heap_bytes` with 256 regions or 64 KiB ones, whichever is
    /// larger (rounded to a power of two).
    pub fn new(heap_bytes: usize, barriers: BarrierBits, mode: GcMode) -> HeapConfig {
        let region_bytes = (heap_bytes / 256).next_power_of_two().clamp(64 << 10, 32 << 20);
        HeapConfig {
            heap_bytes,
            region_bytes,
            barriers,
            mode,
            aggressive: false,
            verify: false,
            evac_lab_limit: None,
            pacing: true,
            safepoint_wait: SafepointWait::default(),
        }
    }

    /// Checks sizes and that the collector can be correct with the set.
    pub fn validate(&self) -> Result<(), GcError> {
        if !self.region_bytes.is_power_of_two() || !(64 << 10..=32 << 20).contains(&self.region_bytes) {
            return Err(GcError::BadSize(format!(
                "region size {} is not a power of two in 64 KiB..=32 MiB",
                self.region_bytes
            )));
        }
        if self.heap_bytes == 0
            || self.heap_bytes % self.region_bytes != 0
            || self.heap_bytes / self.region_bytes < 4
        {
            return Err(GcError::BadSize(format!(
                "heap size {} is not a multiple (at least 4) of the region size {}",
                self.heap_bytes, self.region_bytes
            )));
        }
        settings::check_pair(self.barriers, self.mode).map_err(GcError::Config)
    }
}

/// One pause of the collector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PauseKind {
    /// Start of a concurrent cycle: scan roots, start SATB.
    InitMark,
    /// End of marking: drain SATB, choose the collection set, evacuate roots.
    FinalMark,
    /// End of evacuation: close the LABs, set update watermarks.
    InitUpdateRefs,
    /// End of the cycle: update roots, free the collection set.
    FinalUpdateRefs,
    /// A passive-mode stop-the-world collection.
    Full,
}

/// A pause, in the parts `-Xlog:safepoint` reports: reaching the
/// safepoint, at the safepoint, and (beyond HotSpot's log) the mutators'
/// resume after the release.
#[derive(Clone, Copy, Debug)]
pub struct Pause {
    /// Which pause.
    pub kind: PauseKind,
    /// From the request to the release of the mutators (HotSpot's "Total":
    /// reaching + at the safepoint + the release's own bookkeeping).
    pub duration: Duration,
    /// Of which: from the request until every mutator had stopped
    /// (HotSpot's "Reaching safepoint", TTSP).
    pub time_to_safepoint: Duration,
    /// Of which: the pause's work, wall time (HotSpot's "At safepoint"; a
    /// GC log's "Pause Init Mark" is this).
    pub work: Duration,
    /// After the release: the longest any stopped mutator took to run
    /// again (woken and scheduled); zero when none was waiting.
    pub resume: Duration,
    /// CPU time the pause's work took on its thread: against `duration`
    /// minus `time_to_safepoint`, it tells the work from the waits of a
    /// descheduled collector on a loaded machine.
    pub work_cpu_time: Duration,
}

/// CPU time consumed by the calling thread.
pub(crate) fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_THREAD_CPUTIME_ID
    // exists on every Linux this crate builds for.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// What the collector has done.
#[derive(Clone, Debug, Default)]
pub struct GcStats {
    /// Completed cycles (concurrent) or collections (passive).
    pub cycles: u64,
    /// Every pause, in order.
    pub pauses: Vec<Pause>,
    /// Objects copied by the collector.
    pub evacuated_by_collector: u64,
    /// Objects copied by mutators' barriers (copies that won).
    pub evacuated_by_mutators: u64,
    /// Regions freed (the collection set and immediate garbage).
    pub regions_freed: u64,
    /// Cycles in which evacuation failed (a copy found no space).
    pub evacuation_failures: u64,
    /// Collection-set regions kept, not freed, because an object in them
    /// could not be copied (summed over cycles).
    pub regions_kept: u64,
    /// TLAB refills the pacer delayed.
    pub paced_refills: u64,
    /// Summed wait of the paced refills.
    pub paced_time: Duration,
    /// The longest single paced wait.
    pub longest_paced_wait: Duration,
    /// Verifier runs and objects they reached.
    pub verified_cycles: u64,
    /// Objects the verifier reached, summed over its runs.
    pub verified_objects: u64,
    /// Verifier failures (empty when every cycle verified).
    pub verify_errors: Vec<String>,
}

#[derive(Default)]
pub(crate) struct Control {
    pub(crate) cycles_done: u64,
    pub(crate) requested: bool,
    pub(crate) shutdown: bool,
}

/// The GC state byte. Written only inside pauses (by the collector, with
/// every mutator stopped) and read only by the pause itself and by a
/// mutator on its way out of a stop, which copies it into its own
/// `Mutator::gc_state` for the barriers to test (see mutator.rs); the
/// safepoint orders every write before every later read (a stopped
/// mutator is released through the epoch word's Release/Acquire or the
/// safepoint mutex: `safepoint.rs`), so there is no data race and a plain
/// byte suffices.
pub(crate) struct StateByte(std::cell::UnsafeCell<u8>);

// SAFETY: see the type's comment: every write happens in a pause, ordered
// by the safepoint's release against every read.
unsafe impl Sync for StateByte {}

impl StateByte {
    /// Reads the byte (a pause, or a running mutator).
    pub(crate) fn get(&self) -> u8 {
        // SAFETY: see the type's comment.
        unsafe { *self.0.get() }
    }
    /// Writes the byte: only in a pause, or in a test with no other mutator.
    pub(crate) fn set(&self, bits: u8) {
        // SAFETY: see the type's comment.
        unsafe { *self.0.get() = bits }
    }
}

/// Everything shared between mutators and the collector.
pub(crate) struct HeapInner {
    pub(crate) space: Space,
    pub(crate) gc_state: StateByte,
    pub(crate) safepoint: Safepoint,
    pub(crate) pacer: Pacer,
    pub(crate) config: HeapConfig,
    satb: Mutex<Vec<usize>>,
    card_queue: Mutex<Vec<usize>>,
    mutators: Mutex<Vec<Arc<MutatorShared>>>,
    globals: Mutex<Vec<usize>>,
    pub(crate) control: Mutex<Control>,
    pub(crate) control_cv: Condvar,
    pub(crate) stats: Mutex<GcStats>,
    mutator_evacuations: AtomicU64,
    collector_evacuations: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // None of these locks is held across code that can panic; see
    // Safepoint::lock.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl HeapInner {
    pub(crate) fn satb_queue(&self) -> MutexGuard<'_, Vec<usize>> {
        lock(&self.satb)
    }
    pub(crate) fn card_queue(&self) -> MutexGuard<'_, Vec<usize>> {
        lock(&self.card_queue)
    }
    pub(crate) fn mutators(&self) -> MutexGuard<'_, Vec<Arc<MutatorShared>>> {
        lock(&self.mutators)
    }
    pub(crate) fn globals(&self) -> MutexGuard<'_, Vec<usize>> {
        lock(&self.globals)
    }
    pub(crate) fn control(&self) -> MutexGuard<'_, Control> {
        lock(&self.control)
    }
    pub(crate) fn stats(&self) -> MutexGuard<'_, GcStats> {
        lock(&self.stats)
    }
    pub(crate) fn stats_evacuated_by_mutators(&self) {
        // Relaxed: a statistic.
        self.mutator_evacuations.fetch_add(1, Ordering::Relaxed);
    }

    /// A mutator released from the pause `r` runs again: record how late.
    pub(crate) fn record_resume(&self, r: Released) {
        let late = r.at.elapsed();
        if let Some(p) = self.stats().pauses.get_mut(r.pause) {
            p.resume = p.resume.max(late);
        }
    }

    pub(crate) fn count_collector_evacuation(&self) {
        // Relaxed: a statistic.
        self.collector_evacuations.fetch_add(1, Ordering::Relaxed);
    }

    /// Calls `f` on every root slot (mutators' handles, then globals).
    /// Only in a pause, when no mutator runs.
    pub(crate) fn for_each_root(&self, mut f: impl FnMut(&mut usize)) {
        for m in self.mutators().iter() {
            for slot in m.roots().iter_mut() {
                f(&mut slot.addr);
            }
        }
        for g in self.globals().iter_mut() {
            f(g);
        }
    }

    /// Waits (from a safe region) until a cycle that starts after this call
    /// has finished.
    pub(crate) fn wait_for_cycle(&self) {
        let mut c = self.control();
        // The end of the cycle under way frees its set; the caller retries
        // after each cycle end (three at most, see Mutator::alloc_slow).
        let target = c.cycles_done + 1;
        c.requested = true;
        self.control_cv.notify_all();
        while c.cycles_done < target && !c.shutdown {
            c = self.control_cv.wait(c).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// A garbage-collected heap.
pub struct Heap {
    pub(crate) inner: Arc<HeapInner>,
    collector: Option<JoinHandle<()>>,
}

impl Heap {
    /// Builds a heap; in concurrent mode, starts its collector thread.
    pub fn new(config: HeapConfig) -> Result<Heap, GcError> {
        config.validate()?;
        let space = Space::new(config.heap_bytes, config.region_bytes, config.evac_lab_limit)
            .ok_or_else(|| GcError::BadSize(format!("cannot allocate {} bytes", config.heap_bytes)))?;
        let inner = Arc::new(HeapInner {
            space,
            gc_state: StateByte(std::cell::UnsafeCell::new(0)),
            safepoint: Safepoint::new(config.safepoint_wait),
            pacer: Pacer::default(),
            satb: Mutex::new(Vec::new()),
            card_queue: Mutex::new(Vec::new()),
            mutators: Mutex::new(Vec::new()),
            globals: Mutex::new(Vec::new()),
            control: Mutex::new(Control::default()),
            control_cv: Condvar::new(),
            stats: Mutex::new(GcStats::default()),
            mutator_evacuations: AtomicU64::new(0),
            collector_evacuations: AtomicU64::new(0),
            config,
        });
        let collector = match inner.config.mode {
            GcMode::Passive => None,
            GcMode::Concurrent => {
                let heap = inner.clone();
                Some(
                    std::thread::Builder::new()
                        .name("fastpath-gc".into())
                        .spawn(move || heap.collector_loop())
                        .map_err(|e| GcError::BadSize(format!("cannot start the collector: {e}")))?,
                )
            }
        };
        Ok(Heap { inner, collector })
    }

    /// The configuration the heap was built with.
    pub fn config(&self) -> &HeapConfig {
        &self.inner.config
    }

    /// A mutator for the calling thread, with the static barrier set `B`
    /// (which must be the heap's) or [`super::Dynamic`].
    pub fn mutator<B: BarrierSet>(&self) -> Result<Mutator<B>, GcError> {
        if let Some(bits) = B::BITS {
            if bits != self.inner.config.barriers.0 {
                return Err(GcError::BarrierMismatch {
                    heap: self.inner.config.barriers,
                    mutator: BarrierBits(bits),
                });
            }
        }
        Ok(Mutator::new(self.inner.clone()))
    }

    /// The largest object, in words (header words included): a TLAB.
    pub fn max_object_words(&self) -> usize {
        self.inner.space.tlab_bytes / 8
    }

    /// A snapshot of the collector's statistics.
    pub fn stats(&self) -> GcStats {
        let mut s = self.inner.stats().clone();
        // Relaxed: a statistic.
        s.evacuated_by_mutators = self.inner.mutator_evacuations.load(Ordering::Relaxed);
        s.evacuated_by_collector = self.inner.collector_evacuations.load(Ordering::Relaxed);
        s
    }

    /// Bytes in free regions (not counting the evacuation reserve).
    pub fn free_bytes(&self) -> usize {
        self.inner.space.lock_alloc().free.len() * self.inner.space.region_bytes
    }
}

impl Drop for Heap {
    fn drop(&mut self) {
        self.inner.control().shutdown = true;
        self.inner.control_cv.notify_all();
        if let Some(t) = self.collector.take() {
            // The collector only ever stops at a pause, which every live
            // mutator must reach (by polling or a safe region).
            let _ = t.join();
        }
    }
}
