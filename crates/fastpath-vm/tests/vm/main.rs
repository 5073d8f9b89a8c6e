//! fastpath-vm's integration tests: one module per subject (the corpus
//! against HotSpot, the command line, the JIT's tiers and the code it
//! emits, the class-file parser and verifier), in one test binary. The
//! shared modules (`harness`, `classfile_support`, the benchmark's
//! `gc_log`) are compiled once and the binary linked once, where a
//! binary per file compiled them again and linked ~50 MB for each, at the
//! package's opt-level 2. One module runs alone by its name:
//! `cargo test -p fastpath-vm --test vm -- corpus::` (CI gives the same
//! filter to `cargo test --workspace`, whose build it then reuses).
//!
//! The tests run side by side on libtest's threads, in one process. What
//! they share there:
//! - the corpus's compile (`classfile_support::corpus::release_dirs`,
//!   called by the corpus harness, the fuzzer and the verifier's tests)
//!   and HotSpot's output cache (`harness`): each behind a lock, so a
//!   release group is compiled once and a cache entry written once;
//! - the scratch directories under the target directory
//!   (`harness::scratch_dir`): each test's has its own name;
//! - VMs booted in this process (`harness::run_xcomp_in_process`, for the
//!   tests that decode compiled code): each its own `Vm`, leaked; the
//!   process-wide settings they read (barrier set, locking mode, ...) come
//!   from the environment once, and no test changes the environment or
//!   the current directory;
//! - everything else runs in child processes (`fastpath-vm`, javac,
//!   HotSpot), under time limits far above their runs' times.
//!
//! `handoff_wakeups` keeps its own binary: it counts its child's
//! voluntary context switches against a bound, which the other tests'
//! processes on the same CPUs would push up.

#[path = "../harness/mod.rs"]
mod harness;

#[path = "../classfile_support/mod.rs"]
mod classfile_support;

#[allow(dead_code)]
#[path = "../../benches/hotspot/gc_log.rs"]
mod gc_log;

mod bench_gc_log;
mod builder_fusion;
mod cli;
mod corpus;
mod cpu_source;
mod fuzz_classfile;
mod indy_concat;
mod jit;
mod jit_barriers;
mod jit_calls;
mod jit_decode;
mod jit_guarded;
mod jit_inline;
mod jit_intrinsics;
mod jit_layout;
mod jit_loops;
mod jit_math;
mod jit_nulls;
mod jit_osr;
mod jit_polls;
mod jit_ranges;
mod jit_unwind;
mod verify_accepts;
mod verify_linking;
mod verify_rules;
