//! # fastpath
//!
//! The fast paths of a managed runtime, as a library any runtime can link,
//! each following a HotSpot engineering thread (the "seeds"):
//!
//! | module | what | seed |
//! |---|---|---|
//! | [`config`] | strategy selection from `FASTPATH_*` variables or code | - |
//! | `arch` | the ISA layer: every `asm!` of the project (internal) | - |
//! | [`cpu`] | startup CPU identification that never reads /proc | 002 |
//! | [`spin`] | spin pauses, time-calibrated; spin-then-park waiting | 004 |
//! | [`code`] | executable memory (W^X) and instruction-cache sync | 000 |
//! | [`sync`] | object monitors with fast-locking (lock-stack, inflation) | 001 |
//! | [`gc`] | a heap, GC barrier sets and a concurrent collector | 003 |
//!
//! Data flow: each subsystem's setting picks a strategy (`config` gathers them) → `arch` emits the instructions → a
//! subsystem implements the fast path and its slow path. The companion
//! `fastpath-lab` crate (the `fastpath` CLI) measures each one. The map of
//! modules, their invariants and why they depend on each other is in the
//! repository's ARCHITECTURE.md.
//!
//! ## One example per subsystem
//!
//! Configuration, strict (a runtime's start-up; the lazy path never fails):
//!
//! ```
//! let config = fastpath::config::init().expect("FASTPATH_* variables are valid");
//! println!("locking mode {}, icache sync {}", config.locking_mode, config.icache_sync);
//! ```
//!
//! CPU identification (cached; no file is opened):
//!
//! ```
//! use fastpath::cpu::{self, Feature};
//! let info = cpu::info();
//! assert!(info.cache_line_size.is_power_of_two());
//! # #[cfg(target_arch = "x86_64")]
//! assert!(info.has(Feature::Sse2));
//! println!("{}", cpu::features_string(false)); // no microcode: nothing read
//! ```
//!
//! Spin pauses and a budgeted wait:
//!
//! ```
//! use std::sync::atomic::{AtomicBool, Ordering};
//! use fastpath::spin::{self, SpinWait, Step};
//!
//! fastpath::spin::pause(); // the configured instruction, e.g. PAUSE
//! assert!(spin::calibration().ns_per_pause > 0.0);
//!
//! let ready = AtomicBool::new(false);
//! let mut wait = SpinWait::new();
//! let mut parked = false;
//! while !ready.load(Ordering::Acquire) {
//!     if wait.spin() == Step::Park {
//!         parked = true; // a real caller would park here
//!         break;
//!     }
//! }
//! assert!(parked);
//! ```
//!
//! Code cache (x86-64: `mov eax, 42; ret`, then patch the immediate):
//!
//! ```
//! # #[cfg(target_arch = "x86_64")] {
//! use fastpath::code::{self, CodeCache};
//! let cache = CodeCache::new(64 * 1024).unwrap();
//! let entry = cache.install(&[0xB8, 42, 0, 0, 0, 0xC3]).unwrap();
//! // SAFETY: the bytes are a complete function with this C signature.
//! let f: extern "C" fn() -> u32 = unsafe { entry.as_fn() };
//! assert_eq!(f(), 42);
//! cache.patch(&entry, 1, &7u32.to_le_bytes()).unwrap();
//! code::publish(); // every thread of the process now runs the new code
//! assert_eq!(f(), 7);
//! # }
//! ```
//!
//! Object monitors:
//!
//! ```
//! use std::pin::pin;
//! use std::time::Duration;
//! use fastpath::sync::{self, Header, SyncError};
//!
//! let obj = pin!(Header::new());
//! let guard = sync::lock(obj.as_ref()); // fast-locked: one CAS, one lock-stack push
//! assert!(sync::holds_lock(&obj));
//! assert_eq!(guard.wait(Some(Duration::from_millis(1))), Err(SyncError::TimedOut));
//! drop(guard);
//! // Not the owner any more: an error value, and nothing changes.
//! assert_eq!(sync::notify(obj.as_ref()), Err(SyncError::IllegalMonitorState));
//! ```

#![warn(missing_docs)]

// The ISA layer is public for the lab, which times raw instructions (RDTSC,
// CPUID, ISB) as baselines; a runtime reaches instructions only through the
// subsystems' CPU-checked values, so it is not part of the documented API.
#[doc(hidden)]
pub mod arch;
pub mod code;
pub mod config;
pub mod cpu;
pub mod gc;
mod primitives;
mod setting;
pub mod spin;
pub mod sync;
pub mod thread;
