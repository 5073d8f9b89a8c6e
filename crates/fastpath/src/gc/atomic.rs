//! What `gc`'s protocols (`heap/forwarding.rs`, `heap/safepoint.rs`) take from the
//! crate's loom shim (`crate::primitives`): loom's under `--cfg loom`. The
//! heap itself is not compiled under loom: its words are too many for a
//! model; the protocols on them are the parts with races.

pub(crate) use crate::primitives::{
    yield_now, AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Condvar, Mutex, MutexGuard, Ordering,
};
