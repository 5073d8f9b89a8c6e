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
//! | [`code`] | executable memory (W^X), instruction-cache sync, relocation | 000 |
//! | [`thread`] | the per-thread block every fast path reads, at a published layout | - |
//! | [`sync`] | object monitors with fast-locking (lock-stack, inflation) | 001 |
//! | [`gc`] | a heap, GC barrier sets and a concurrent collector | 003 |
//!
//! Data flow: each subsystem's setting picks a strategy (`config` gathers
//! them) → `arch` emits the instructions → a subsystem implements the fast
//! path and its slow path, reading its per-thread state from the
//! [`thread`] block. The companion `fastpath-lab` crate (the `fastpath`
//! CLI) measures each one. The map of modules, their invariants and why
//! they depend on each other is in the repository's ARCHITECTURE.md.
//!
//! **Writing a JIT?** The fast paths as machine code to inline are in two
//! sibling crates of this workspace: `fastpath-jit` (dynasm-rs templates,
//! x86-64 and AArch64, emitted into your own assembler buffer against the
//! [`thread`] block's published offsets; your crate also depends on
//! `dynasmrt = "5"`, whose assembler traits the templates take) and
//! `fastpath-cranelift` (the same paths as Cranelift IR). A C JIT gets the
//! bytes through `fastpath_jit_emit` in `fastpath-capi`. Code a JIT
//! assembled at no particular address is installed with
//! [`CodeCache::install_relocated`](code::CodeCache::install_relocated).
//!
//! ## One example per subsystem
//!
//! Configuration, strict, as a runtime's start-up does it: a bad variable
//! is an error value that names the variable and the values this CPU
//! accepts, for the runtime to report and exit on (the lazy path, without
//! `init`, never fails: it keeps the defaults of bad variables and reports
//! them once).
//!
//! ```
//! match fastpath::config::init() {
//!     Ok(config) => println!("locking mode {}, icache sync {}", config.locking_mode, config.icache_sync),
//!     Err(e) => {
//!         // e.g. FASTPATH_LOCKING_MODE="fast": not a value; accepted here: lightweight, legacy, monitor
//!         eprintln!("my-runtime: {e}");
//!         std::process::exit(2);
//!     }
//! }
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
//! The thread block: one `#[repr(C)]` block per thread at a stable
//! address, whose field offsets generated code uses (checked against
//! [`thread::LAYOUT_VERSION`]); the `_on` calls take it explicitly, as
//! compiled code passes it in a register:
//!
//! ```
//! use std::pin::pin;
//! use fastpath::{sync, thread};
//!
//! assert_eq!(thread::layout_version(), thread::LAYOUT_VERSION);
//! let t = thread::current();
//! let obj = pin!(sync::Header::new());
//! sync::enter_on(t, obj.as_ref()); // the fast path reads t's lock-stack
//! assert!(sync::holds_lock(&obj));
//! sync::exit_on(t, obj.as_ref()).unwrap();
//! println!("this thread's block is at {:p}", t.as_ptr());
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
//!
//! A garbage-collected heap: a mutator per thread does every allocation
//! and access through the barrier set's fast paths, its objects rooted in
//! its handle stack (here passive mode: a collection runs when the heap is
//! full):
//!
//! ```
//! use fastpath::gc::{BarrierBits, GcMode, Heap, HeapConfig, ShenandoahBarriers};
//!
//! let heap = Heap::new(HeapConfig::new(4 << 20, BarrierBits::SHENANDOAH, GcMode::Passive)).unwrap();
//! let mut m = heap.mutator::<ShenandoahBarriers>().unwrap();
//! let (list, node) = (m.alloc(1, 0).unwrap(), m.alloc(0, 1).unwrap()); // (references, data words)
//! let (l, n) = (m.get(list).unwrap(), m.get(node).unwrap());
//! m.write(n, 0, 42).unwrap();
//! m.store(l, 0, Some(n)).unwrap(); // through the write barriers
//! let loaded = m.load(l, 0).unwrap().unwrap(); // through the load barriers
//! assert_eq!(m.read(loaded, 0).unwrap(), 42);
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
