//! A small garbage-collected heap with selectable barrier sets and a
//! concurrent collector (seed 003: Shenandoah's write-barrier fast path).
//!
//! Where it sits: a runtime creates a [`Heap`] (barrier set and mode from
//! the `FASTPATH_GC_*` settings ([`HeapConfig::from_config`]) or code), gives each thread a [`Mutator`], and does every
//! allocation and reference access through it; the barriers inside those
//! accesses keep a concurrent collector (the phases in `collector/cycle.rs`) correct.
//! Headers are `fastpath::sync` headers, so heap objects can be locked
//! ([`Mutator::lock`]) while the collector runs.
//!
//! ## Parts
//!
//! The folders are the three parts of a collected heap; a runtime that
//! brings its own collector replaces `collector/` and keeps the other two.
//!
//! | part | what | files |
//! |---|---|---|
//! | `barriers/` | what a runtime inlines: each access's barriers (fast and slow path), the checked access API, the `extern "C"` slow paths generated code calls | one file per barrier, `access.rs`, `raw_access.rs` (for runtimes with their own roots), `jit_entry.rs` |
//! | `heap/` | the machinery every collector of this heap shares: regions and objects, humongous runs, the forwarding word, mutators, roots, safepoints, the `Heap` itself | `space.rs`, `humongous.rs`, `forwarding.rs`, `mutator.rs`, `attached.rs`, `roots.rs`, `root_scanner.rs`, `safepoint.rs`, `runtime.rs` |
//! | `collector/` | the policy: the cycle's phases, when a cycle starts, marking, the parallel workers, pacing, assists, the full compaction | `cycle.rs`, `trigger.rs`, `marking.rs`, `parallel.rs`, `workers.rs`, `pool.rs`, `pacer.rs`, `assist.rs`, `compact.rs` |
//!
//! Beside them: `settings.rs` (names: barriers, presets, modes;
//! `FASTPATH_GC_*` and the process's values, which
//! [`HeapConfig::from_config`] reads), `barrier_set.rs` (barrier
//! sets as types, which monomorphise the fast paths: `Mutator<B>`'s `B`),
//! `probe.rs` (one function per fast path, for disassembly), `atomic.rs`
//! (the loom shim the protocols use). Each folder's module lists its files.
//!
//! Dependencies: `barriers/` reads objects and the mutator from `heap/`;
//! `collector/` marks, copies and frees through `heap/`; `heap/` holds the
//! collector's shared state (pacer, assists, worker pool) and starts its
//! thread, the one arrow from the machinery to the policy. Outside `gc`:
//! `thread` (each mutator's GC fields, the state byte's copy, SATB queue,
//! TLAB and poll word, live in its thread's block), `sync` (every object
//! starts with a `sync::Header`) and `setting` (the settings machinery).
//!
//! ## Humongous objects and the full compaction
//!
//! An object larger than a region is *humongous* (`heap/humongous.rs`): it
//! takes a run of contiguous free regions of its own, from the top of the
//! free space (TLABs are carved from its bottom), and a cycle never copies
//! it; it is freed whole when dead. The largest object is
//! [`Heap::max_object_words`]: every region outside the mutators' reserve.
//!
//! When an allocation finds no room, the heap collects (passive: in the
//! allocating mutator's pause; concurrent: a cycle the request turns
//! stop-the-world, a degenerated one). If that leaves the heap full for a
//! waiting request (no free region outside the reserve for a TLAB, or no
//! run long enough for the largest waiting humongous request), the
//! collection's last pause runs a *full compaction*
//! (`collector/compact.rs`): a sliding compaction of the whole heap, as
//! HotSpot Shenandoah's full GC, which moves every live object that may
//! move, humongous ones included, to the bottom of the heap, so the free
//! regions form one run at the top. An object locked through
//! [`Mutator::lock`], or whose header names a monitor, may not move: its
//! region (a humongous object's whole run) stays where it is and may split
//! the free space.
//!
//! Each waiting request is then judged on its own against what the
//! compaction left: one that fits is served (if another mutator takes the
//! room first, it collects again); one that does not fails at once with
//! [`GcError::OutOfMemory`], naming its size and the longest run left, and
//! costs the other mutators' requests nothing. So a request of any size up
//! to [`Heap::max_object_words`] succeeds whenever the live data leaves room
//! for it, in every barrier set and mode, as a humongous allocation in
//! HotSpot succeeds unless a full GC cannot make room for it.
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
//! follows it (the full argument is in `heap/mutator.rs`).
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
pub(crate) mod collector;
pub(crate) mod heap;
pub(crate) mod settings;

// The object layout generated code reads (offsets, layout word, GC-state
// bits, cards, regions), published with a version as the thread block's.
pub use heap::layout;

#[cfg(not(loom))]
mod barrier_set;
#[cfg(not(loom))]
mod barriers;
// Public for the lab's disassembly (`fastpath gc --only fast-paths`) and
// the tests that count barrier instructions; nothing a runtime calls.
#[cfg(not(loom))]
#[doc(hidden)]
pub mod probe;
#[cfg(all(test, not(loom)))]
mod tests;

#[cfg(not(loom))]
pub use barrier_set::{
    with_barrier_set, with_barrier_set_for, BarrierSet, Dynamic, G1Barriers, NoBarriers, NoBarriersUnscaled,
    SerialBarriers, Shenandoah2017Barriers, ShenandoahBarriers, ShenandoahCompressedBarriers,
    ShenandoahUnscaledBarriers, Static, WithBarrierSet,
};
#[cfg(not(loom))]
pub use barriers::access::ObjLock;
#[cfg(not(loom))]
pub use barriers::jit_entry::{
    brooks_wb_slow_entry, cas_ref_slow_entry, g1_card_slow_entry, lrb_slow_entry, satb_slow_entry,
};
#[cfg(not(loom))]
pub use heap::mutator::{Mutator, MutatorWaits};
#[cfg(not(loom))]
pub use heap::root_scanner::{RootScanner, RootScannerId};
#[cfg(not(loom))]
pub use heap::roots::{Global as GlobalHandle, Handle, Obj};
#[cfg(not(loom))]
pub use heap::runtime::{
    CyclePhases, GcError, GcStats, Heap, HeapConfig, Pause as GcPause, PauseKind, PhaseTime,
};
// The state bits are the barriers' and the collector's business (and the
// tests'); a runtime never reads them.
#[cfg(all(test, not(loom)))]
pub(crate) use heap::runtime::{EVACUATION, HAS_FORWARDED, MARKING};
#[cfg(not(loom))]
pub use heap::safepoint::SafepointWait;
// Named by `SafepointWait`'s docs; a tuning constant, not an API.
#[cfg(not(loom))]
#[doc(hidden)]
pub use heap::safepoint::SPIN_LIMIT;
pub use settings::{
    check_barriers_for_mode, Barrier, BarrierBits, GcCellFormat, GcImmediateGarbage, GcMode, GcWorkers,
    Preset,
};
