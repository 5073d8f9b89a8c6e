//! The loom shim: every atomic, lock and thread primitive that a racy
//! protocol of the crate shares state through comes from here, from `std`
//! normally and from `loom` under `--cfg loom`, so the same code is
//! model-checked (`sync`'s monitors and lock-stack, `gc`'s forwarding and
//! safepoint, `spin`'s handoff, lock and park).
//!
//! Where it sits: at the bottom, beside `arch`; it imports nothing of the
//! crate. Each subsystem names what it uses through its own one-line module
//! (`sync/atomic.rs`, `gc/atomic.rs`, `spin/primitives.rs`). Statistics
//! counters, the thread-id allocator and write-once caches keep plain std
//! types under loom on purpose: they carry no synchronization a model
//! explores, and keeping them out keeps the models small.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{
    fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};
#[cfg(loom)]
pub(crate) use loom::sync::{Arc, Condvar, Mutex, MutexGuard};
#[cfg(loom)]
pub(crate) use loom::thread::yield_now;

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{
    fence, AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};
#[cfg(not(loom))]
pub(crate) use std::sync::{Arc, Condvar, Mutex, MutexGuard};
#[cfg(not(loom))]
pub(crate) use std::thread::yield_now;
