//! # fastpath
//!
//! The fast paths of a managed runtime, as a library any runtime can link,
//! each following a HotSpot engineering thread (the "seeds"):
//!
//! | module | what | seed |
//! |---|---|---|
//! | [`config`] | strategy selection from `FASTPATH_*` variables or code | - |
//! | [`arch`] | the ISA layer: every `asm!` of the project | - |
//! | [`cpu`] | startup CPU identification that never reads /proc | 002 |
//! | [`spin`] | spin pauses per CPU, time-calibrated; spin-then-park waiting, handoff, lock | 004 |
//! | [`code`] | executable memory and instruction-cache sync | 000 |
//! | [`sync`] | object monitors with fast-locking | 001 |
//!
//! Data flow: `config` picks a strategy → `arch` emits the instructions → a
//! subsystem implements the fast path and its slow path. The companion
//! `fastpath-lab` crate (the `fastpath` CLI) measures each one.

#![warn(missing_docs)]

pub mod arch;
pub mod code;
pub mod config;
pub mod cpu;
pub mod spin;
pub mod sync;
