//! The synchronisation primitives the racy protocols of this module use,
//! from `std` normally and from `loom` under `--cfg loom`, so that the same
//! code of [`super::handoff`], [`super::lock`] and `park` is model-checked.
//!
//! Only what those protocols share state through goes here. The process-wide
//! dispatch of [`super::pause`] and the calibration cache keep `core`/`std`
//! types under loom too: they are written once, idempotently, and are not
//! part of any protocol a model explores.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::AtomicU64;
#[cfg(loom)]
pub(crate) use loom::sync::{Arc, Condvar, Mutex};
#[cfg(loom)]
pub(crate) use loom::thread::yield_now;

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::AtomicU64;
#[cfg(not(loom))]
pub(crate) use std::sync::{Arc, Condvar, Mutex};
#[cfg(not(loom))]
pub(crate) use std::thread::yield_now;
