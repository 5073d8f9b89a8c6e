//! The heap a runtime creates: configuration, errors, statistics, and the
//! shared state mutators and the collector meet in.
//!
//! Where it sits: the entry point of `gc`. [`Heap::new`] validates a
//! [`HeapConfig`], allocates the [`super::space::Space`], and in concurrent
//! mode starts the collector thread ([`crate::gc::collector::cycle`]);
//! [`Heap::mutator`] (in `mutator.rs`) gives each thread its
//! [`crate::gc::Mutator`].

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use super::roots::MutatorShared;
use super::safepoint::{Released, Safepoint, SafepointWait};
use super::space::Space;
use crate::gc::barrier_set::BarrierSet;
use crate::gc::collector::pacer::Pacer;
use crate::gc::settings::{self, BarrierBits, GcCellFormat, GcMode};
use crate::gc::Barrier;
use crate::setting::ConfigError;

/// GC state bit: concurrent marking runs (SATB barriers take their slow path).
pub const MARKING: u8 = super::layout::GC_STATE_MARKING;
/// GC state bit: evacuation runs (Brooks WB and LRB may copy objects).
pub const EVACUATION: u8 = super::layout::GC_STATE_EVACUATION;
/// GC state bit: forwarded objects exist (LRB and the CAS barrier look).
pub const HAS_FORWARDED: u8 = super::layout::GC_STATE_HAS_FORWARDED;

/// What can go wrong, as values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GcError {
    /// No room for the request even after a collection that compacted the
    /// heap: the live data leaves no run of free regions that long
    /// (`gc` module docs, "Humongous objects and the full compaction").
    OutOfMemory {
        /// The request, in words (the object's fields and header words).
        requested_words: usize,
        /// The largest object the heap could take then, in words: the
        /// longest run of free regions outside the mutators' reserve
        /// (0 when only the reserve is free).
        largest_run_words: usize,
    },
    /// The object is larger than the heap allows ([`Heap::max_object_words`]:
    /// a run of every region outside the mutators' reserve).
    ObjectTooLarge {
        /// Requested size, in words.
        words: usize,
        /// The largest accepted.
        max_words: usize,
    },
    /// A tagged allocation's or a tag definition's counts or tag outside
    /// the tagged form's range (`gc::layout::MAX_TAGGED_COUNT`,
    /// `MAX_LAYOUT_TAG`), or a tag the heap has with other counts
    /// ([`Heap::define_tag`]).
    TaggedShape {
        /// The references asked for.
        nrefs: usize,
        /// The data words asked for.
        ndata: usize,
        /// The tag asked for.
        tag: u32,
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
    /// A mutator whose static reference width is not the heap's
    /// (`gc::layout::RefWidth`; [`crate::gc::Dynamic`] takes either).
    RefWidthMismatch {
        /// The heap's width.
        heap: super::layout::RefWidth,
        /// The mutator's.
        mutator: super::layout::RefWidth,
    },
    /// A bad heap configuration.
    Config(ConfigError),
    /// Heap or region size unusable (not a power of two, too few regions).
    BadSize(String),
    /// The system refused the memory for the heap's block.
    HeapMemory {
        /// The heap's size, as configured ([`HeapConfig::heap_bytes`]).
        bytes: usize,
        /// The mapping asked of the system: the heap and one region more,
        /// so that the block can start on a region boundary (the unused
        /// head and tail are given back at once).
        reserved: usize,
        /// The system's answer.
        reason: String,
    },
    /// The collector thread could not be started.
    CollectorThread(String),
    /// The collector panicked: the heap can no longer collect, and every
    /// allocation that needs a collection gets this error. The text is the
    /// panic's message.
    Poisoned(String),
    /// The calling thread is already the mutator of a heap (this one or
    /// another) through a live `Mutator`: a thread's block holds one
    /// mutator's state (one per thread, as a HotSpot `JavaThread`).
    ThreadHasMutator,
    /// A mutator was asked for from a thread-local destructor late in the
    /// thread's exit, when the thread can no longer hold one.
    ThreadExiting,
}

impl fmt::Display for GcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GcError::OutOfMemory {
                requested_words,
                largest_run_words,
            } => write!(
                f,
                "out of memory after a full compaction: {requested_words} words requested, \
                 the longest run of free regions holds {largest_run_words}"
            ),
            GcError::ObjectTooLarge { words, max_words } => {
                write!(f, "object of {words} words exceeds the maximum of {max_words}")
            }
            GcError::TaggedShape { nrefs, ndata, tag } => write!(
                f,
                "a tagged object holds at most {} references and data words each and a tag up to {}, \
                 and every object of a tag has the counts it was defined with: asked for {nrefs} \
                 references, {ndata} data words, tag {tag}",
                super::layout::MAX_TAGGED_COUNT,
                super::layout::MAX_LAYOUT_TAG
            ),
            GcError::FieldOutOfRange { index, len } => {
                write!(f, "field {index} out of range (the object has {len})")
            }
            GcError::DanglingHandle => f.write_str("dangling handle"),
            GcError::ForeignHandle => f.write_str("handle of another mutator or heap"),
            GcError::ForeignObject => f.write_str("object of another heap"),
            GcError::BarrierMismatch { heap, mutator } => {
                write!(f, "mutator barrier set {mutator} differs from the heap's {heap}")
            }
            GcError::RefWidthMismatch { heap, mutator } => write!(
                f,
                "mutator reference slots ({}) differ from the heap's ({}): use a barrier set type of the heap's width, or Dynamic",
                mutator.name(),
                heap.name()
            ),
            GcError::Config(e) => e.fmt(f),
            GcError::BadSize(s) => f.write_str(s),
            GcError::HeapMemory {
                bytes,
                reserved,
                reason,
            } => write!(
                f,
                "cannot map the heap of {bytes} bytes ({} MiB): the system refused a mapping of \
                 {reserved} bytes (the heap and one region more, to align it on a region \
                 boundary): {reason}",
                bytes >> 20
            ),
            GcError::CollectorThread(e) => write!(f, "cannot start the collector thread: {e}"),
            GcError::Poisoned(e) => write!(f, "the collector panicked ({e}); the heap cannot collect"),
            GcError::ThreadHasMutator => {
                f.write_str("this thread already has a live mutator (one per thread)")
            }
            GcError::ThreadExiting => f.write_str("this thread is exiting: no new mutator"),
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
    /// pacer, `collector/pacer.rs`): a TLAB refill over the cycle's budget waits for
    /// the collector in proportion to the debt, 1 ms at most. On by
    /// default, as in Shenandoah.
    pub pacing: bool,
    /// How stopped mutators wait for a pause's end (`safepoint.rs`).
    pub safepoint_wait: SafepointWait,
    /// Concurrent mode, with `pacing`: a mutator whose refill is over the
    /// cycle's budget (or finds no memory during a cycle) first does a
    /// bounded slice of the running phase's work itself (marking,
    /// evacuation, update-refs; `collector/assist.rs`), as Go's GC assists do, and
    /// waits in the pacer only when the phase has no work to hand out. Off
    /// by default: where the collector thread gets a CPU of its own they
    /// take more from the mutators than pacing does (BENCHMARKS.md); they
    /// help where other processes hold the CPUs and the collector thread
    /// gets too little of them.
    pub assists: bool,
    /// Collector worker threads for marking, evacuation, update-refs and
    /// the pauses' root work (`collector/parallel.rs`), 1..=64. A tuning knob that
    /// starts from its variable, as `sync`'s do: [`HeapConfig::new`] takes
    /// the process's `FASTPATH_GC_WORKERS` (default half the CPUs, 1..=8:
    /// [`GcWorkers`](crate::gc::GcWorkers)).
    pub workers: usize,
    /// Concurrent mode: a cycle whose final-mark frees whole regions
    /// holding more than this share of the garbage it found, in percent
    /// (0..=100), ends there: no collection set, so no evacuation,
    /// update-refs, nor their two pauses (Shenandoah's abbreviated cycle).
    /// 100 ends early only a cycle that found no garbage outside those
    /// regions; `aggressive` ignores it. A tuning knob that starts from
    /// its variable: [`HeapConfig::new`] takes the process's
    /// `FASTPATH_GC_IMMEDIATE_GARBAGE` (default 90, as HotSpot's
    /// `ShenandoahImmediateThreshold`:
    /// [`GcImmediateGarbage`](crate::gc::GcImmediateGarbage)).
    pub immediate_garbage_percent: usize,
    /// The soft capacity the heap starts with, in bytes (rounded up to
    /// whole regions, at most `heap_bytes`): the JVM's `-Xms`. The
    /// collector keeps the mutators within it, collecting rather than
    /// touching memory no collection has freed yet, and grows it after a
    /// collection that leaves less than 40 % of it free (`capacity.rs`).
    /// `None` (what [`HeapConfig::new`] sets): no soft limit, the whole
    /// heap from the start.
    pub initial_bytes: Option<usize>,
    /// Bytes of regions kept faulted in past the highest region the
    /// mutators have taken, within the soft capacity, by a thread of the
    /// heap's own (`read_ahead.rs`), so that a mutator's first write to a
    /// fresh region finds its pages present; nothing until the mutators
    /// take their second region. 0 (what [`HeapConfig::new`] sets): off,
    /// each page faulted in by its first write.
    pub read_ahead_bytes: usize,
    /// Whether objects carry a forwarding word (`gc::layout::CellFormat`):
    /// [`HeapConfig::new`] takes the process's `FASTPATH_GC_CELL_FORMAT`
    /// (default `auto`: the barrier set's own, [`GcCellFormat`]).
    pub cell_format: GcCellFormat,
    /// The width of the heap's reference slots (`gc::layout::RefWidth`):
    /// [`HeapConfig::new`] takes the process's `FASTPATH_GC_REFS` (default
    /// `full`). `Compressed` needs a heap of at most
    /// [`MAX_COMPRESSED_HEAP_BYTES`](super::layout::MAX_COMPRESSED_HEAP_BYTES),
    /// placed below 32 GiB; `Unscaled` one of at most
    /// [`MAX_UNSCALED_HEAP_BYTES`](super::layout::MAX_UNSCALED_HEAP_BYTES),
    /// placed below 4 GiB.
    pub refs: super::layout::RefWidth,
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
            assists: false,
            safepoint_wait: SafepointWait::default(),
            workers: settings::WORKERS.get().0 as usize,
            immediate_garbage_percent: settings::IMMEDIATE_GARBAGE.get().0 as usize,
            initial_bytes: None,
            read_ahead_bytes: 0,
            cell_format: settings::CELL_FORMAT.get(),
            refs: settings::REFS.get(),
        }
    }

    /// Bytes of the evacuation reserve: free regions the mutators' refills
    /// leave to the collector's copies (Shenandoah's `ShenandoahEvacReserve`),
    /// a 16th of the heap's regions and at least two. They lie within the
    /// soft capacity ([`HeapConfig::initial_bytes`]) but are written only
    /// by evacuation, so a capacity of the reserve plus `n` bytes lets the
    /// mutators allocate about `n` before the first collection.
    pub fn evacuation_reserve_bytes(&self) -> usize {
        super::space::reserve_regions(self.heap_bytes / self.region_bytes) * self.region_bytes
    }

    /// The format of the heap this configuration builds's cells, or why
    /// the pair is refused ([`GcCellFormat::resolve`]).
    pub fn resolved_cell_format(&self) -> Result<super::layout::CellFormat, GcError> {
        self.cell_format.resolve(self.barriers).map_err(GcError::Config)
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
        if let Some(n) = self.initial_bytes.filter(|&n| n == 0 || n > self.heap_bytes) {
            return Err(GcError::BadSize(format!(
                "initial heap size {n} is not in 1..={} (the heap size)",
                self.heap_bytes
            )));
        }
        let workers = u32::try_from(self.workers).unwrap_or(u32::MAX);
        crate::setting::Setting::validate(settings::GcWorkers(workers), crate::cpu::info())
            .map_err(GcError::Config)?;
        let immediate = u32::try_from(self.immediate_garbage_percent).unwrap_or(u32::MAX);
        crate::setting::Setting::validate(settings::GcImmediateGarbage(immediate), crate::cpu::info())
            .map_err(GcError::Config)?;
        if self.heap_bytes > self.refs.max_heap_bytes() {
            return Err(GcError::BadSize(format!(
                "heap size {} is over {} bytes, the most {} references reach ({}={})",
                self.heap_bytes,
                self.refs.max_heap_bytes(),
                self.refs.name(),
                super::layout::RefWidth::VAR,
                self.refs.name()
            )));
        }
        self.resolved_cell_format()?;
        settings::check_barriers_for_mode(self.barriers, self.mode).map_err(GcError::Config)
    }
}

// The process-wide settings (`settings.rs`) as a configuration.
impl HeapConfig {
    /// A heap of `heap_bytes` (as [`HeapConfig::new`])
    /// with the process's barrier set and mode: `FASTPATH_GC_BARRIERS` and
    /// `FASTPATH_GC_MODE`, or what `config::init`/`set` installed (and, as
    /// `new`, the process's `FASTPATH_GC_WORKERS` and
    /// `FASTPATH_GC_IMMEDIATE_GARBAGE`).
    ///
    /// ```
    /// use fastpath::gc::{Heap, HeapConfig};
    /// let config = HeapConfig::from_config(8 << 20);
    /// let heap = Heap::new(config).unwrap();
    /// let _m = heap.mutator::<fastpath::gc::Dynamic>().unwrap();
    /// ```
    pub fn from_config(heap_bytes: usize) -> HeapConfig {
        let barriers = settings::BARRIERS.get();
        HeapConfig::new(heap_bytes, barriers, settings::MODE.get())
    }

    /// A heap of `heap_bytes` whose barrier set is the type `B` its
    /// mutators name ([`ShenandoahBarriers`](crate::gc::ShenandoahBarriers),
    /// [`G1Barriers`](crate::gc::G1Barriers), …): the set is written once, as a
    /// type, and `heap.mutator::<B>()` cannot fail with
    /// [`BarrierMismatch`](crate::gc::GcError::BarrierMismatch). For
    /// [`Dynamic`](crate::gc::Dynamic) the set is the process's, as
    /// [`from_config`](Self::from_config). `mode` as in
    /// [`HeapConfig::new`]; a concurrent mode with a
    /// set that cannot run it is refused by [`Heap::new`](crate::gc::Heap::new).
    ///
    /// ```
    /// use fastpath::gc::{G1Barriers, GcMode, Heap, HeapConfig};
    /// let heap = Heap::new(HeapConfig::for_set::<G1Barriers>(8 << 20, GcMode::Passive)).unwrap();
    /// let _m = heap.mutator::<G1Barriers>().unwrap();
    /// ```
    pub fn for_set<B: BarrierSet>(heap_bytes: usize, mode: GcMode) -> HeapConfig {
        let barriers = B::BITS.map_or_else(|| settings::BARRIERS.get(), BarrierBits);
        HeapConfig::new(heap_bytes, barriers, mode)
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
    /// A concurrent cycle finished stop-the-world because a mutator found
    /// no memory (Shenandoah's degenerated GC); a full compaction
    /// ([`GcStats::full_compactions`]) may follow in the same pause.
    Degenerated,
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

/// One concurrent phase's time, summed over cycles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhaseTime {
    /// Wall time on the collector thread, from the phase's start to its end.
    pub wall: Duration,
    /// The collector thread's CPU time in it (its workers' is counted in
    /// [`GcStats::collector_cpu_time`] only). Wall time beyond it is the
    /// thread off its CPU: descheduled, or waiting for its workers.
    pub cpu: Duration,
    /// Regions the mutators took for new objects meanwhile.
    pub regions_taken: u64,
    /// Cycles in which a mutator found no memory during this phase (seen
    /// at the phase's end): marking's finish stop-the-world (degenerated);
    /// evacuation's go on to init-update-refs, which hands the unused
    /// evacuation reserve to the mutators; update-refs' end in a
    /// degenerated pause that does only final-update-refs' work.
    pub ran_dry: u64,
}

/// The concurrent phases of a cycle (collector.rs), each summed over
/// cycles: the mutators run meanwhile, and a degenerated cycle's phase
/// ends where the mutator's request was seen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CyclePhases {
    /// Concurrent reset: clearing the mark bitmap and live counts.
    pub reset: PhaseTime,
    /// Concurrent marking, SATB rounds included.
    pub mark: PhaseTime,
    /// Concurrent evacuation of the collection set.
    pub evacuation: PhaseTime,
    /// Concurrent update-refs.
    pub update_refs: PhaseTime,
}

impl CyclePhases {
    /// The concurrent phases' wall time, all four together.
    pub fn wall(&self) -> Duration {
        self.reset.wall + self.mark.wall + self.evacuation.wall + self.update_refs.wall
    }
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
    /// Concurrent cycles finished stop-the-world (a mutator found no
    /// memory during the cycle): [`PauseKind::Degenerated`] pauses.
    pub degenerated_cycles: u64,
    /// Full compacting collections (sliding, `collector/compact.rs`): after a
    /// degenerated cycle or a passive collection that left too little free.
    pub full_compactions: u64,
    /// Wall time of the full compactions, summed (each inside its pause:
    /// its own marking, plan, adjust and move).
    pub full_compaction_time: Duration,
    /// Humongous objects allocated (larger than a region: a run of
    /// regions of their own, never copied by a cycle).
    pub humongous_allocated: u64,
    /// Humongous objects found dead and their runs freed.
    pub humongous_reclaimed: u64,
    /// Regions the read-ahead faulted in before a mutator took them
    /// ([`HeapConfig::read_ahead_bytes`]).
    pub regions_read_ahead: u64,
    /// The kernel refused the read-ahead's advice (`MADV_POPULATE_WRITE`,
    /// Linux 5.14), which then stopped: each page is faulted in by its
    /// first write, as without it.
    pub read_ahead_refused: bool,
    /// Collector worker threads of the parallel phases
    /// ([`HeapConfig::workers`]).
    pub workers: usize,
    /// Phases run on more than one worker thread (marking past its serial
    /// budget, evacuation, update-refs, the roots of many mutators).
    pub parallel_phases: u64,
    /// Worker threads started for the parallel phases: each is started
    /// once, at the first phase that needs it, and parked between phases
    /// (at most [`HeapConfig::workers`] - 1 in the heap's life).
    pub worker_threads_started: u64,
    /// CPU time of the collector's threads: the collector thread's
    /// concurrent phases and pauses (concurrent mode), and every worker
    /// thread of the parallel phases. Against wall time × CPUs, the
    /// collector's share of the machine.
    pub collector_cpu_time: Duration,
    /// TLAB refills the pacer delayed.
    pub paced_refills: u64,
    /// Summed wait of the paced refills.
    pub paced_time: Duration,
    /// The longest single paced wait.
    pub longest_paced_wait: Duration,
    /// Mutator assist slices that found work (`HeapConfig::assists`): a
    /// refill over the pacer's budget, or one that found no memory during
    /// a cycle, doing part of the running phase's work on its own thread.
    pub assist_slices: u64,
    /// The slices' summed wall time (on the mutators' threads, so not in
    /// `collector_cpu_time`).
    pub assist_time: Duration,
    /// The slices' words of work (scanned, copied or parsed: the pacer's
    /// unit).
    pub assist_words: u64,
    /// The collector thread's concurrent phases (concurrent mode), summed
    /// over cycles: where a cycle's time goes between its pauses.
    pub phases: CyclePhases,
    /// Free regions when each concurrent cycle began, summed over cycles
    /// (divided by `cycles`: how early the trigger starts them).
    pub free_regions_at_start: u64,
    /// Collection-set regions chosen, summed over cycles.
    pub cset_regions: u64,
    /// Concurrent cycles that ended at final-mark because the regions it
    /// freed whole held enough of the garbage
    /// ([`HeapConfig::immediate_garbage_percent`]).
    pub abbreviated_cycles: u64,
    /// Verifier runs and objects they reached.
    pub verified_cycles: u64,
    /// Objects the verifier reached, summed over its runs.
    pub verified_objects: u64,
    /// Verifier failures (empty when every cycle verified).
    pub verify_errors: Vec<String>,
}

#[derive(Default)]
pub(crate) struct Control {
    /// Cycles begun (concurrent mode): cycle `n` is the `n`-th begun.
    pub(crate) cycles_started: u64,
    /// Cycles ended; a cycle ends in the order it began.
    pub(crate) cycles_done: u64,
    /// The longest run of free regions the mutators may take that the last
    /// cycle to end left, judged in its last pause
    /// ([`Space::available_run`]).
    pub(crate) last_available_run: usize,
    /// The sizes, in regions, of the failed allocations whose mutators wait
    /// for a cycle (`wait_for_cycle`): a cycle's last pause compacts the
    /// heap if the largest finds no room.
    pub(crate) wanted: Vec<usize>,
    /// Times a running cycle handed memory to the mutators before its end
    /// (init-update-refs returning the unused evacuation reserve): a
    /// mutator waiting for memory retries then.
    pub(crate) releases: u64,
    pub(crate) requested: bool,
    /// The `Heap` was dropped: the collector thread exits once no mutator
    /// is registered.
    pub(crate) shutdown: bool,
}

/// What a mutator whose allocation failed learns from one collection.
pub(crate) enum Collected {
    /// A collection ran and the allocation's memory is taken: the cell.
    Refilled(usize),
    /// A collection ran (or was under way) and may have freed memory, some
    /// of which other mutators may have taken: try again.
    Retry,
    /// A collection that every mutator took part in, begun after the
    /// failed allocation, ended (after a full compaction, if it found the
    /// heap full for any waiting request) with this many regions in the
    /// longest run a mutator may take: each request is judged against it
    /// on its own (`Mutator::alloc_slow`).
    Judged {
        /// [`Space::available_run`] at the collection's end.
        available_run: usize,
    },
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
    /// The running phase's work offered to mutator assists (`collector/assist.rs`).
    pub(crate) assists: crate::gc::collector::assist::Assists,
    pub(crate) config: HeapConfig,
    /// One thread sets marks: one worker (the collector's own thread, or
    /// in passive mode the mutator that collects, one collection at a
    /// time) and no assists, so no marking queue is ever published to a
    /// mutator. Marking then skips the bitmap's locked read-modify-write
    /// (`Space::mark_as_sole_marker`).
    pub(crate) sole_marker: bool,
    satb: Mutex<Vec<usize>>,
    card_queue: Mutex<Vec<usize>>,
    mutators: Mutex<Vec<Arc<MutatorShared>>>,
    globals: Mutex<Vec<usize>>,
    /// The runtime's process-wide root scanners (`root_scanner.rs`).
    pub(crate) root_scanners: super::root_scanner::HeapScanners,
    pub(crate) control: Mutex<Control>,
    pub(crate) control_cv: Condvar,
    pub(crate) stats: Mutex<GcStats>,
    mutator_evacuations: AtomicU64,
    collector_evacuations: AtomicU64,
    /// Phases run on more than one worker (`collector/parallel.rs`).
    pub(crate) parallel_phases: AtomicU64,
    /// Pool threads started (`collector/pool.rs`; statistics).
    pub(crate) worker_threads_started: AtomicU64,
    /// The parallel phases' worker threads (`collector/pool.rs`).
    pub(crate) pool: crate::gc::collector::pool::WorkerPool,
    /// Nanoseconds of CPU the collector's threads used (statistics).
    pub(crate) collector_cpu_ns: AtomicU64,
    /// This heap's identity, unique in the process (never reused, unlike
    /// its address): what a [`Global`](super::roots::Global) names.
    pub(crate) id: u64,
    /// Set when the collector panicked (`poison`); then `poison_message`
    /// holds the panic's text.
    poisoned: AtomicBool,
    poison_message: Mutex<String>,
    /// A mutator found no memory during a concurrent cycle: the collector
    /// finishes the cycle stop-the-world (`collector/cycle.rs`). Set by the
    /// mutator, cleared by the collector in the degenerated pause.
    pub(crate) degenerate: AtomicBool,
    /// The collector's share of the mutators' time, for the soft
    /// capacity's growth (`capacity.rs`); updated at each collection's end.
    pub(crate) gc_time_share: Mutex<crate::gc::heap::capacity::GcTimeShare>,
    /// Test hook: the next pause the collector thread runs panics.
    #[cfg(test)]
    pub(crate) panic_in_next_pause: AtomicBool,
}

/// A process-wide counter of heaps made: a heap's identity.
fn next_heap_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    // Relaxed: a unique number, nothing else.
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The text of a panic's payload.
pub(crate) fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // None of these locks is held across code that can panic; see
    // Safepoint::lock.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl HeapInner {
    /// [`Heap::define_tag`].
    pub(crate) fn define_tag(&self, tag: u32, nrefs: usize, ndata: usize) -> Result<(), GcError> {
        let refused = GcError::TaggedShape { nrefs, ndata, tag };
        if tag > super::layout::MAX_LAYOUT_TAG
            || nrefs > super::layout::MAX_TAGGED_COUNT
            || ndata > super::layout::MAX_TAGGED_COUNT
        {
            return Err(refused);
        }
        self.space.tags.define(tag, nrefs, ndata).map_err(|_| refused)
    }

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
    /// Adds `cpu` to the collector's CPU time.
    pub(crate) fn count_collector_cpu(&self, cpu: Duration) {
        // Relaxed: a statistic.
        self.collector_cpu_ns
            .fetch_add(cpu.as_nanos().min(u64::MAX as u128) as u64, Ordering::Relaxed);
    }

    pub(crate) fn stats_evacuated_by_mutators(&self) {
        // Relaxed: a statistic.
        self.mutator_evacuations.fetch_add(1, Ordering::Relaxed);
    }

    /// A mutator released from the pause `r` runs again: record how late.
    /// Records a released mutator's wake-up in its pause; returns the
    /// pause's work CPU time (the collector thread's, `Pause::work_cpu_time`).
    pub(crate) fn record_resume(&self, r: Released) -> Duration {
        let late = r.at.elapsed();
        match self.stats().pauses.get_mut(r.pause) {
            Some(p) => {
                p.resume = p.resume.max(late);
                p.work_cpu_time
            }
            None => Duration::ZERO,
        }
    }

    pub(crate) fn count_collector_evacuations(&self, n: u64) {
        if n > 0 {
            // Relaxed: a statistic.
            self.collector_evacuations.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Calls `f` on every root slot (mutators' handles and root scanners,
    /// then globals and the heap's root scanners).
    /// Only in a pause, when no mutator runs.
    pub(crate) fn for_each_root(&self, mut f: impl FnMut(&mut usize)) {
        for m in self.mutators().iter() {
            for slot in m.roots().iter_mut() {
                f(&mut slot.addr);
            }
            if let Some(s) = m.scanner.get() {
                s.scan(&mut |r| f(r));
            }
        }
        for g in self.globals().iter_mut() {
            f(g);
        }
        for s in self.root_scanners.snapshot() {
            s.scan(&mut |r| f(r));
        }
    }

    /// Waits (from a safe region) until a cycle that began after this call
    /// ends, requesting one (an explicit collection: a cycle under way at
    /// the call may have marked before the caller's garbage died, so its
    /// end is not enough); with `wanted` (an allocation failed), until the
    /// next cycle end, the cycle is to finish stop-the-world and compact if
    /// it must, and the wait ends early, with [`Collected::Retry`], when the
    /// running cycle hands memory to the mutators (`Control::releases`).
    /// [`Collected::Judged`] if the cycle that ended began after this call;
    /// [`Collected::Retry`] otherwise (the cycle under way at the call may
    /// have chosen its collection set before the caller's garbage died).
    ///
    /// `wanted` is the failed allocation's size in regions (a TLAB refill
    /// is one; `None`: no allocation failed). It stays in
    /// [`Control::wanted`] while this call waits, registered under the
    /// control lock with the counts read, so every cycle that begins after
    /// the call judges the heap with it in its last pause (and compacts if
    /// it finds no room for it): a [`Collected::Judged`] answer, from any
    /// such cycle, always considered this request.
    pub(crate) fn wait_for_cycle(&self, wanted: Option<usize>) -> Result<Collected, GcError> {
        let degenerate = wanted.is_some();
        let mut c = self.control();
        let started = c.cycles_started;
        // Cycles end in the order they start: the first to start after
        // this call is number `started + 1`.
        let target = if degenerate {
            c.cycles_done + 1
        } else {
            started + 1
        };
        let releases = c.releases;
        if let Some(regions) = wanted {
            c.wanted.push(regions);
            // SeqCst: read by the collector at its phase boundaries; a
            // request it misses there is seen by the next cycle's. Raised
            // after reading the counts above, under the control lock: the
            // collector clears it in a pause (init-update-refs, a cycle's
            // last) and only then counts the release or the cycle's end, so
            // a request cleared before it was seen still ends this wait.
            self.degenerate.store(true, Ordering::SeqCst);
        }
        c.requested = true;
        self.control_cv.notify_all();
        while c.cycles_done < target && !(degenerate && c.releases != releases) && !self.poisoned() {
            c = self.control_cv.wait(c).unwrap_or_else(|e| e.into_inner());
        }
        if let Some(regions) = wanted {
            let mine = c
                .wanted
                .iter()
                .position(|&w| w == regions)
                .expect("registered above");
            c.wanted.swap_remove(mine);
        }
        self.check_poison()?;
        Ok(if c.cycles_done > started {
            Collected::Judged {
                available_run: c.last_available_run,
            }
        } else {
            Collected::Retry
        })
    }

    /// Wakes the collector thread to look at its trigger now (a mutator's
    /// refill crossed it: `Space::cycle_due`). Under the control lock, so a
    /// collector between its look and its wait cannot miss it.
    #[cold]
    pub(crate) fn wake_collector(&self) {
        let _c = self.control();
        self.control_cv.notify_all();
    }

    /// Whether the free regions are down to the mutators' reserve (none a
    /// mutator may take), or no run of `wanted` free regions is left for
    /// the allocation that wants one (0: none does). At the end of a
    /// collection, in its pause.
    pub(crate) fn left_full(&self, wanted: usize) -> bool {
        self.available_run() < wanted.max(1)
    }

    /// The largest allocation, in regions, whose mutator waits for a cycle
    /// (0: none).
    pub(crate) fn largest_wanted(&self) -> usize {
        self.control().wanted.iter().copied().max().unwrap_or(0)
    }

    /// [`Space::available_run`], under the allocation lock.
    pub(crate) fn available_run(&self) -> usize {
        self.space.available_run(&self.space.lock_alloc())
    }

    /// The collector panicked: record it, and wake every mutator waiting
    /// for a cycle or for the pacer, so each gets [`GcError::Poisoned`].
    #[cold]
    pub(crate) fn poison(&self, message: String) {
        {
            let mut m = lock(&self.poison_message);
            if !self.poisoned.load(Ordering::Relaxed) {
                *m = message;
            }
            // Release: publishes the message (written above, under the
            // lock too) to `check_poison`'s Acquire load.
            self.poisoned.store(true, Ordering::Release);
        }
        let _c = self.control();
        self.control_cv.notify_all();
        drop(_c);
        self.pacer.end_cycle();
    }

    /// Whether the collector has panicked.
    fn poisoned(&self) -> bool {
        // Acquire: see `poison`.
        self.poisoned.load(Ordering::Acquire)
    }

    /// `Err(Poisoned)` once the collector has panicked.
    #[inline]
    pub(crate) fn check_poison(&self) -> Result<(), GcError> {
        // Acquire: see `poison`.
        if self.poisoned.load(Ordering::Acquire) {
            return Err(GcError::Poisoned(lock(&self.poison_message).clone()));
        }
        Ok(())
    }
}

/// A garbage-collected heap.
///
/// Dropping a `Heap` while mutators of it are alive is harmless, whatever
/// thread holds them and whatever the collector is doing: `drop` returns at
/// once, and the heap (its memory, and in concurrent mode its collector
/// thread, which goes on running cycles) lives until its last [`crate::gc::Mutator`]
/// and [`crate::gc::ObjLock`] are dropped; the collector thread then exits by
/// itself. With no mutator alive, `drop` also waits for the collector
/// thread to exit. (Waiting for the thread while a mutator is alive could
/// deadlock: a pause waits for every mutator, the dropping thread's own
/// included.)
pub struct Heap {
    pub(crate) inner: Arc<HeapInner>,
    collector: Option<JoinHandle<()>>,
}

impl Heap {
    /// Defines `tag` as the tag of objects with `nrefs` references and
    /// `ndata` data words, for every mutator: the counts the heap reads for
    /// a tagged object, whose layout word holds only the tag
    /// (`gc::layout`). Generated code that allocates objects of a tag
    /// inline defines it first ([`crate::gc::Mutator::alloc_tagged`] defines the tags
    /// it is given). [`GcError::TaggedShape`] when the tag is above
    /// `MAX_LAYOUT_TAG`, a count above `MAX_TAGGED_COUNT`, or the tag was
    /// defined with other counts; the same definition again is a no-op.
    pub fn define_tag(&self, tag: u32, nrefs: usize, ndata: usize) -> Result<(), GcError> {
        self.inner.define_tag(tag, nrefs, ndata)
    }

    /// Builds a heap; in concurrent mode, starts its collector thread.
    pub fn new(config: HeapConfig) -> Result<Heap, GcError> {
        config.validate()?;
        let format = config.resolved_cell_format()?;
        let mut space = Space::new(
            format,
            config.refs,
            config.heap_bytes,
            config.region_bytes,
            config.evac_lab_limit,
        )
        .map_err(|e| GcError::HeapMemory {
            bytes: config.heap_bytes,
            reserved: e.reserved,
            reason: e.reason,
        })?;
        space.hold_capacity = config.mode == GcMode::Passive;
        space.cards_in_use = [Barrier::Card, Barrier::CardCond, Barrier::G1Card]
            .into_iter()
            .any(|b| config.barriers.has(b));
        let initial = config
            .initial_bytes
            .unwrap_or(config.heap_bytes)
            .div_ceil(config.region_bytes);
        space.read_ahead = super::read_ahead::ReadAhead::new(
            space.base,
            config.region_bytes,
            config.heap_bytes / config.region_bytes,
            config.read_ahead_bytes.div_ceil(config.region_bytes),
        );
        space.set_capacity(&mut space.lock_alloc(), initial);
        let inner = Arc::new(HeapInner {
            space,
            gc_state: StateByte(std::cell::UnsafeCell::new(0)),
            safepoint: Safepoint::new(config.safepoint_wait),
            pacer: Pacer::default(),
            assists: crate::gc::collector::assist::Assists::new(),
            sole_marker: config.workers <= 1 && !config.assists,
            satb: Mutex::new(Vec::new()),
            card_queue: Mutex::new(Vec::new()),
            mutators: Mutex::new(Vec::new()),
            globals: Mutex::new(Vec::new()),
            root_scanners: Default::default(),
            control: Mutex::new(Control::default()),
            control_cv: Condvar::new(),
            stats: Mutex::new(GcStats::default()),
            mutator_evacuations: AtomicU64::new(0),
            collector_evacuations: AtomicU64::new(0),
            parallel_phases: AtomicU64::new(0),
            worker_threads_started: AtomicU64::new(0),
            pool: crate::gc::collector::pool::WorkerPool::new(),
            collector_cpu_ns: AtomicU64::new(0),
            id: next_heap_id(),
            poisoned: AtomicBool::new(false),
            poison_message: Mutex::new(String::new()),
            degenerate: AtomicBool::new(false),
            gc_time_share: Mutex::new(crate::gc::heap::capacity::GcTimeShare::new()),
            #[cfg(test)]
            panic_in_next_pause: AtomicBool::new(false),
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
                        .map_err(|e| GcError::CollectorThread(e.to_string()))?,
                )
            }
        };
        Ok(Heap { inner, collector })
    }

    /// The configuration the heap was built with.
    pub fn config(&self) -> &HeapConfig {
        &self.inner.config
    }

    /// The largest object, in words (header words included): a humongous
    /// object spanning every region outside the mutators' reserve. An
    /// object larger than a region is humongous (`humongous.rs`).
    pub fn max_object_words(&self) -> usize {
        self.inner.space.max_object_words()
    }

    /// The format of this heap's cells (its barrier set's: whether objects
    /// carry a forwarding word), which generated code that allocates or
    /// resolves copies inline compiles against (`layout.rs`).
    pub fn cell_format(&self) -> super::layout::CellFormat {
        self.inner.space.format
    }

    /// The width of this heap's reference slots, which generated code that
    /// reads or writes references inline compiles against (`layout.rs`).
    pub fn ref_width(&self) -> super::layout::RefWidth {
        self.inner.space.refs
    }

    /// A snapshot of the collector's statistics.
    pub fn stats(&self) -> GcStats {
        let mut s = self.inner.stats().clone();
        // Relaxed: a statistic.
        s.evacuated_by_mutators = self.inner.mutator_evacuations.load(Ordering::Relaxed);
        s.evacuated_by_collector = self.inner.collector_evacuations.load(Ordering::Relaxed);
        s.humongous_allocated = self.inner.space.humongous_allocated.load(Ordering::Relaxed);
        s.humongous_reclaimed = self.inner.space.humongous_reclaimed.load(Ordering::Relaxed);
        s.regions_read_ahead = self.inner.space.read_ahead.populated() as u64;
        s.read_ahead_refused = self.inner.space.read_ahead.refused();
        s.workers = self.inner.config.workers;
        s.parallel_phases = self.inner.parallel_phases.load(Ordering::Relaxed);
        s.worker_threads_started = self.inner.worker_threads_started.load(Ordering::Relaxed);
        s.collector_cpu_time = Duration::from_nanos(self.inner.collector_cpu_ns.load(Ordering::Relaxed));
        (s.assist_slices, s.assist_time, s.assist_words) = self.inner.assists.totals();
        s
    }

    /// The soft capacity in bytes: what the collector keeps the mutators
    /// within ([`HeapConfig::initial_bytes`] at the start, grown after
    /// collections that leave less than 40 % of it free; never more than
    /// the heap).
    pub fn capacity_bytes(&self) -> usize {
        self.inner.space.capacity() * self.inner.space.region_bytes
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
            // No mutator can register any more (that takes a `&Heap`). With
            // none registered, the collector exits at its next look at the
            // control (no pause waits for anyone); with some, it runs on
            // until the last is dropped, and the thread is left to exit by
            // itself (type docs).
            if self.inner.safepoint.registered() == 0 {
                let _ = t.join();
            }
        }
    }
}
