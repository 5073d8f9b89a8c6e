//! The loom shim of `gc`: the atomics and locks of the forwarding protocol
//! and of the safepoint come from here, so `--cfg loom` model-checks
//! [`super::forwarding`] and [`super::safepoint`] with loom's (the pattern
//! of `sync/atomic.rs`). The heap itself is not compiled under loom: its
//! words are too many for a model; the protocols on them are the parts with
//! races, and they are the same code.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
#[cfg(loom)]
pub(crate) use loom::sync::{Condvar, Mutex, MutexGuard};
#[cfg(loom)]
pub(crate) use loom::thread::yield_now;

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::{Condvar, Mutex, MutexGuard};
#[cfg(not(loom))]
pub(crate) use std::thread::yield_now;
