//! The heap's machinery: memory, objects, mutators, roots and safepoints,
//! which every collector of this heap shares.
//!
//! Where it sits: between the barriers above ([`super::barriers`], which
//! read objects through the layout and the forwarding word here) and the
//! collector's policy beside it ([`super::collector`], which marks, copies
//! and frees through the same). A runtime creates a [`runtime::Heap`] and
//! gives each thread a [`mutator::Mutator`]; nothing here decides *when*
//! to collect or *what* to copy.
//!
//! | file | what |
//! |---|---|
//! | `runtime.rs` | `Heap`, `HeapConfig`, `GcError`, statistics; `HeapInner`, the state mutators and the collector share |
//! | `layout.rs` | the object layout published for generated code: offsets, layout word, GC-state bits, cards, regions; its version |
//! //! | `space.rs` | regions, object layout, LABs, mark bitmap, cards |
//! | `tags.rs` | the tag table: the counts of each tag a runtime defined, which a tagged object's 4-byte layout word does not hold |
//! | `capacity.rs` | the soft capacity: the regions the collector keeps the mutators within, grown after collections |
//! | `read_ahead.rs` | the pages of the regions refills are about to take, faulted in ahead of them by a thread of their own |
//! | `humongous.rs` | objects larger than a region: runs of regions, never copied by a cycle |
//! | `forwarding.rs` | the forwarding word, the evacuation race, self-healing, the evacuation-failure scope |
//! | `mutator.rs` | a thread's context: roots, allocation (TLAB, slow path), polls, safe regions |
//! | `attached.rs` | the calling thread's mutator's heap and GCLAB, for slow paths entered from generated code |
//! | `roots.rs` | the handle stack and globals the collector scans: `Obj`, `Handle`, `Global` |
//! | `root_scanner.rs` | a runtime's own roots (its frames, its statics), enumerated by scanners the collector calls in its pauses |
//! | `safepoint.rs` | stopping every mutator for a pause, and releasing them |
//!
//! What ties this part to the collector, the seam a runtime bringing its
//! own collector replaces: [`runtime::HeapInner`] holds the collector's
//! shared state (its pacer, assists and worker pool) and starts its thread
//! (`collector_loop`); a mutator whose refill fails runs a collection
//! (`stw_collect`, or asks the collector thread for a cycle) and, when
//! paced, assists. The roots a collector scans are the mutators' handle
//! stacks and the heap's globals (`roots.rs`), and a runtime's own roots
//! (a VM's frames and statics) through its scanners (`root_scanner.rs`).

// The published object layout (`fastpath::gc::layout`).
pub mod layout;
// Under `--cfg loom` only the models use the protocol (the heap is not built):
// what only the heap calls is unused there.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) mod forwarding;
// Under loom, only its models use it.
#[cfg_attr(loom, allow(dead_code))]
pub(super) mod safepoint;

// The calling thread's mutator's heap and GCLAB, for the slow paths
// generated code calls (`barriers/jit_entry.rs`).
#[cfg(not(loom))]
pub(super) mod attached;
#[cfg(not(loom))]
pub(super) mod capacity;
#[cfg(not(loom))]
pub(super) mod humongous;
#[cfg(not(loom))]
pub(super) mod mutator;
#[cfg(not(loom))]
pub(super) mod read_ahead;
#[cfg(not(loom))]
pub(super) mod root_scanner;
#[cfg(not(loom))]
pub(super) mod roots;
#[cfg(not(loom))]
pub(super) mod runtime;
#[cfg(not(loom))]
pub(super) mod space;
#[cfg(not(loom))]
pub(super) mod tags;
