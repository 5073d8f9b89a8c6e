//! What the racy protocols of `sync` take from the crate's loom shim
//! (`crate::primitives`: loom's under `--cfg loom`), and the pause of a
//! spin loop.
//!
//! Where it sits: below every other file of `sync`. Nothing else in `sync`
//! names `std::sync::atomic` for protocol state. (Statistics counters and the
//! thread-id allocator use plain std atomics on purpose: they carry no
//! synchronization, and keeping them out of loom keeps the models small.)

pub(crate) use crate::primitives::{fence, AtomicPtr, AtomicU32, AtomicUsize, Ordering};

/// Yields the processor inside a spin loop. Under loom a spin iteration must
/// be a scheduling point, or a model that spins would never let the thread it
/// waits for run.
#[inline(always)]
pub(crate) fn spin_pause() {
    #[cfg(loom)]
    loom::thread::yield_now();
    #[cfg(not(loom))]
    crate::spin::pause();
}
