//! What the racy protocols of `spin` (`handoff`, `lock`, `park`) take from
//! the crate's loom shim (`crate::primitives`). The process-wide dispatch
//! of [`super::pause`] and the calibration cache keep `core`/`std` types
//! under loom: they are written once, idempotently, and are part of no
//! protocol a model explores.

pub(crate) use crate::primitives::{yield_now, Arc, AtomicU64, Condvar, Mutex};
