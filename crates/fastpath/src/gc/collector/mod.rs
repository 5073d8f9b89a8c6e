//! The collector's policy: when a cycle runs, what it marks and copies,
//! how its work is split and paced, and the full compaction.
//!
//! Where it sits: above the heap's machinery ([`super::heap`]: it marks,
//! copies and frees there, in pauses the safepoint makes), beside the
//! barriers ([`super::barriers`]), whose slow paths do the mutators' part
//! of the same cycle. Its code is methods of the heap's shared state
//! (`HeapInner`), which owns the pacer, the assists' hand-offs and the
//! worker pool defined here.
//!
//! | file | what |
//! |---|---|
//! | `cycle.rs` | the cycle: mark, evacuate, update-refs; the passive and degenerated collections; the verifier |
//! | `trigger.rs` | when a concurrent cycle starts (allocation rate × cycle time) |
//! | `marking.rs` | one marking thread's scan: the prefetch FIFO and the live words per region |
//! | `parallel.rs` | the parallel phases: marking, evacuation, update-refs, the pauses' root work |
//! | `workers.rs` | work stealing and termination for parallel marking |
//! | `pool.rs` | the workers' threads: started once, parked between phases, woken per phase |
//! | `pacer.rs` | delaying mutators that allocate faster than a cycle reclaims |
//! | `assist.rs` | mutator assists: a paced mutator does a slice of the phase's work |
//! | `compact.rs` | the full compaction (sliding), the last resort before an allocation fails |
//! | `loom_degenerate.rs` | a loom model: a mutator that ran dry and the collector hand off the degenerate request |

// Under `--cfg loom` only its models use the hand-offs.
#[cfg_attr(loom, allow(dead_code))]
pub(super) mod assist;
// Under `--cfg loom` only its models use the protocol.
#[cfg_attr(loom, allow(dead_code))]
pub(super) mod pool;
// Under `--cfg loom` only its models use it.
#[cfg_attr(loom, allow(dead_code))]
pub(super) mod workers;

#[cfg(not(loom))]
pub(super) mod compact;
#[cfg(not(loom))]
pub(super) mod cycle;
#[cfg(not(loom))]
pub(super) mod marking;
#[cfg(not(loom))]
pub(super) mod pacer;
#[cfg(not(loom))]
pub(super) mod parallel;
#[cfg(not(loom))]
pub(super) mod trigger;
// A loom model of how a mutator that ran dry and the collector hand off
// the degenerate request (`heap/runtime.rs`'s `wait_for_cycle`, `cycle.rs`).
#[cfg(all(test, loom))]
mod loom_degenerate;
