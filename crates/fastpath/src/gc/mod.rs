//! A small garbage-collected heap with selectable barrier sets and a
//! concurrent collector (seed 003: Shenandoah's write-barrier fast path).
//!
//! Where it sits: a runtime creates a [`Heap`] (barrier set and mode from
//! [`settings`] or code), gives each thread a [`Mutator`], and does every
//! allocation and reference access through it; the barriers inside those
//! accesses keep a concurrent collector (the phases in `collector.rs`) correct.
//! Headers are `fastpath::sync` headers, so heap objects can be locked
//! ([`Mutator::lock`]) while the collector runs.
//!
//! ## Files
//!
//! | file | what |
//! |---|---|
//! | `settings.rs` | names: barriers, presets, modes; `FASTPATH_GC_*`; `HeapConfig::from_config` |
//! | `barrier.rs` | barrier sets as types (monomorphised fast paths); set → type |
//! | `heap.rs` | regions, object layout, LABs, marks, cards |
//! | `humongous.rs` | objects larger than a region: runs of regions, never copied |
//! | `forwarding.rs` | the forwarding word, the evacuation race, self-healing |
//! | `safepoint.rs` | stopping mutators for pauses |
//! | `trigger.rs` | when a concurrent cycle starts (allocation rate × cycle time) |
//! | `pacer.rs` | delaying mutators that allocate faster than a cycle reclaims |
//! | `assist.rs` | mutator assists: a paced mutator does a slice of the phase's work |
//! | `roots.rs` | the handle stack the collector scans |
//! | `root_scanner.rs` | a runtime's own roots (frames, statics), enumerated in pauses |
//! | `raw.rs` | access for runtimes that keep their own roots: unrooted allocation, raw data, monitors |
//! | `mutator.rs` | the per-thread context: roots, allocation, polls, safe regions |
//! | `access.rs` | the checked API: loads, stores, CAS, data, locks |
//! | `barriers/` | one file per barrier: its fast and slow path |
//! | `jit_entry.rs` | the `extern "C"` SATB and LRB slow paths the JIT templates' stubs call |
//! | `attached.rs` | the calling thread's mutator's heap and GCLAB, for those slow paths |
//! | `collector.rs` | the cycle: mark, evacuate, update-refs; degenerated cycles; the verifier |
//! | `loom_degenerate.rs` | a loom model: a mutator that ran dry and the collector hand off the degenerate request |
//! | `workers.rs` | work stealing and termination for parallel marking |
//! | `parallel.rs` | the parallel phases: marking, evacuation, update-refs, roots |
//! | `pool.rs` | the workers' threads: started once, parked between phases, woken per phase |
//! | `compact.rs` | the full compacting collection (sliding), the last resort |
//! | `runtime.rs` | `Heap`, `HeapConfig`, errors, statistics |
//! | `probe.rs` | one function per fast path, for disassembly |
//!
//! ## The GC state byte
//!
//! One byte in the heap, written only in pauses; each [`Mutator`] keeps its
//! own copy in its thread's block (`crate::thread`, at
//! `GC_STATE_OFFSET`), which the barriers test off the block pointer
//! already in a register (HotSpot keeps a per-thread copy,
//! `ShenandoahThreadLocalData::gc_state`, and tests it off `r15`). The copy
//! is refreshed on every way out of a stop (poll, safe region, collection)
//! and at creation: since a pause runs only while every mutator is stopped,
//! no state change can happen between a refresh and the barrier code that
//! follows it (the full argument is in `mutator.rs`).
//!
//! | bit | set | cleared | barriers that look |
//! |---|---|---|---|
//! | `MARKING` (1) | init-mark | final-mark | `satb`: enqueue the overwritten value |
//! | `EVACUATION` (2) | final-mark | init-update-refs | `brooks-wb`, `lrb`: copy the object |
//! | `HAS_FORWARDED` (4) | final-mark | final-update-refs | `lrb`, `cas`, `brooks-wb`: resolve copies |
//!
//! Why each barrier, in which phase: while marking, a store could remove
//! the only path to an object the marker has not reached; SATB hands the
//! overwritten value to the marker. While copies exist, a mutator could read
//! or write a stale copy: the LRB turns every loaded reference into the
//! to-space one (evacuating it if need be) and heals the field; the Brooks
//! barriers instead read every object through its forwarding word and copy
//! it before a write. A reference CAS could fail only because the field
//! holds the other copy of the expected object; the `cas` barrier retries
//! then. The card barriers record where references were stored, for a
//! generational collector's remembered set (this collector is not
//! generational: they are there to be costed, and the cards are cleaned
//! each cycle).
//!
//! ## Fast paths (x86-64, `objdump -d` of the release build)
//!
//! See BENCHMARKS.md for the counts beside HotSpot's; the instruction
//! sequences, as `rustc` emits them for the probes in `probe.rs`:
//!
//! ```text
//! satb (idle)   testb $0x1,0x4(%rsi) ; jne slow
//! lrb (idle)    testb $0x4,0x4(%rsi) ; jne slow
//! brooks-rb     mov -0x8(%rdx),%rax
//! brooks-wb     testb $0x6,0x4(%rsi) ; jne slow ; mov -0x8(%rdx),%rax
//! card          mov 0x38(%rsi),%rax ; shr $0x9,%rdx ; movb $0x0,(%rdx,%rax,1)
//! card-cond     shr $0x9,%rdx ; add 0x38(%rsi),%rdx ; cmpb $0x0,(%rdx) ; je done ;
//!               movb $0x0,(%rdx)                                   (arch::x86_64::clear_byte_unless_clear)
//! cas           nothing on success: the retry is on the failure path
//! ```
//!
//! (`%rdi` is the `Mutator`, `%rsi` its thread block, `%rdx` the object;
//! `0x4(%rsi)` is the block's copy of the state byte, `0x38(%rsi)` holds
//! the biased card base: its load is the one instruction the card barriers
//! pay beyond HotSpot, which embeds the base as an immediate. The offsets
//! are the block's published ones, `thread::GC_STATE_OFFSET` and
//! `CARD_TABLE_BASE_OFFSET`.)
//! `fastpath gc --only fast-paths` prints these from the binary itself.

//! ## Example
//!
//! One mutator, passive mode, below; [`Mutator`]'s docs show two threads
//! and the rule for blocking; `examples/gc_concurrent.rs` runs two mutators
//! under the concurrent collector with the verifier after every cycle
//! (`cargo run --release -p fastpath --example gc_concurrent`).
//!
//! ```
//! use fastpath::gc::{Heap, HeapConfig, ShenandoahBarriers, BarrierBits, GcMode};
//! let heap = Heap::new(HeapConfig::new(8 << 20, BarrierBits::SHENANDOAH, GcMode::Passive)).unwrap();
//! let mut m = heap.mutator::<ShenandoahBarriers>().unwrap();
//! let a = m.alloc(1, 1).unwrap();
//! let b = m.alloc(0, 1).unwrap();
//! let (oa, ob) = (m.get(a).unwrap(), m.get(b).unwrap());
//! m.write(ob, 0, 42).unwrap();
//! m.store(oa, 0, Some(ob)).unwrap();
//! let loaded = m.load(oa, 0).unwrap().unwrap();
//! assert_eq!(m.read(loaded, 0).unwrap(), 42);
//! assert!(m.load(oa, 1).is_err()); // field out of range: an error value
//! ```

mod atomic;
// Under `--cfg loom` only its models use the hand-offs.
#[cfg_attr(loom, allow(dead_code))]
mod assist;
// Under `--cfg loom` only the models use the protocol (the heap is not built):
// what only the heap calls is unused there.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) mod forwarding;

#[cfg(not(loom))]
mod access;
#[cfg(not(loom))]
mod barrier;
#[cfg(not(loom))]
mod barriers;
#[cfg(not(loom))]
mod collector;
#[cfg(not(loom))]
mod compact;
#[cfg(not(loom))]
mod heap;
#[cfg(not(loom))]
mod humongous;
// The calling thread's mutator's heap and GCLAB, for the slow paths below.
#[cfg(not(loom))]
mod attached;
// The `extern "C"` slow paths of the barrier templates' stubs.
#[cfg(not(loom))]
mod jit_entry;
// The mark loop's prefetch FIFO and live-words cache.
#[cfg(not(loom))]
mod marking;
#[cfg(not(loom))]
mod mutator;
#[cfg(not(loom))]
mod pacer;
#[cfg(not(loom))]
mod parallel;
// Under `--cfg loom` only its models use the protocol.
#[cfg_attr(loom, allow(dead_code))]
mod pool;
// A loom model of how a mutator that ran dry and the collector hand off
// the degenerate request (`runtime.rs`'s `wait_for_cycle`, `collector.rs`).
#[cfg(all(test, loom))]
mod loom_degenerate;
// Public for the lab's disassembly (`fastpath gc --only fast-paths`) and
// the tests that count barrier instructions; nothing a runtime calls.
#[cfg(not(loom))]
#[doc(hidden)]
pub mod probe;
#[cfg(not(loom))]
mod raw;
#[cfg(not(loom))]
mod root_scanner;
#[cfg(not(loom))]
mod roots;
#[cfg(not(loom))]
mod runtime;
#[cfg(not(loom))]
mod trigger;
// Under `--cfg loom` only its models use it.
#[cfg_attr(loom, allow(dead_code))]
mod workers;
// Under loom, only its models use it.
#[cfg_attr(loom, allow(dead_code))]
mod safepoint;
pub mod settings;
#[cfg(all(test, not(loom)))]
mod tests;

#[cfg(not(loom))]
pub use access::ObjLock;
#[cfg(not(loom))]
pub use barrier::{
    with_barrier_set, BarrierSet, Dynamic, G1Barriers, NoBarriers, SerialBarriers, Shenandoah2017Barriers,
    ShenandoahBarriers, Static, WithBarrierSet,
};
#[cfg(not(loom))]
pub use jit_entry::{brooks_wb_slow_entry, g1_card_slow_entry, lrb_slow_entry, satb_slow_entry};
#[cfg(not(loom))]
pub use mutator::{Mutator, MutatorWaits};
#[cfg(not(loom))]
pub use root_scanner::{RootScanner, RootScannerId};
#[cfg(not(loom))]
pub use roots::{Global as GlobalHandle, Handle, Obj};
#[cfg(not(loom))]
pub use runtime::{CyclePhases, GcError, GcStats, Heap, HeapConfig, Pause as GcPause, PauseKind, PhaseTime};
// The state bits are the barriers' and the collector's business (and the
// tests'); a runtime never reads them.
#[cfg(all(test, not(loom)))]
pub(crate) use runtime::{EVACUATION, HAS_FORWARDED, MARKING};
#[cfg(not(loom))]
pub use safepoint::SafepointWait;
// Named by `SafepointWait`'s docs; a tuning constant, not an API.
#[cfg(not(loom))]
#[doc(hidden)]
pub use safepoint::SPIN_LIMIT;
pub use settings::{Barrier, BarrierBits, GcMode, GcWorkers, Preset};
