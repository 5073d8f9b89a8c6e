//! The loom shim of `gc`: the forwarding protocol's atomics come from here,
//! so `--cfg loom` model-checks [`super::forwarding`] with loom's atomics
//! (the pattern of `sync/atomic.rs`). The heap itself is not compiled under
//! loom: its words are too many for a model; the protocol on them is the
//! part with races, and it is the same code.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicUsize, Ordering};
#[cfg(loom)]
pub(crate) use loom::thread::yield_now;

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicUsize, Ordering};
#[cfg(not(loom))]
pub(crate) use std::thread::yield_now;
