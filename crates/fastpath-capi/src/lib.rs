//! # fastpath-capi: the C ABI of fastpath
//!
//! Builds `libfastpath.so` and `libfastpath.a` (this crate's library is
//! named `fastpath`; it depends on the Rust library crate `fastpath` under
//! the name `fastpath_core`) and is described by `include/fastpath.h`,
//! generated from this source by cbindgen and checked in
//! (`tests/header.rs` fails when they differ; `FASTPATH_BLESS=1` rewrites
//! it). `include/fastpath.hpp` adds C++ RAII wrappers.
//!
//! Where it sits: between a C or C++ runtime and the Rust library. Each file
//! binds one subsystem, one `extern "C"` function per Rust operation:
//!
//! | file | binds |
//! |---|---|
//! | `status.rs` | `fastpath_status`, `fastpath_status_str`, `fastpath_last_error`, panic containment |
//! | `sync.rs` | headers, enter/exit/try-enter, wait/notify, hash, threads, locking mode, stats |
//! | `block_cache.rs` | the calling thread's block in an initial-exec TLS word, for the thread-local monitor fast paths |
//! | `lock_record.rs` | legacy stack-locking with a caller's lock record (`BasicLock`) |
//! | `deflation.rs` | a deflation pass on request, the deflation thread's policy |
//! | `gc.rs` | a GC heap by barrier-set and mode names, mutators, handles, tag definitions, allocation (untagged or tagged), accesses, safepoints, locks, collections |
//! | `gc_layout.rs` | the heap's object layout for C JITs (`FASTPATH_GC_*` offsets, the layout word's two forms, bits, cards, regions) and its version |
//! | `code.rs` | code caches, install/batch/patch/free, fence, publish |
//! | `spin.rs` | the pause, its calibration, a budgeted spin-wait |
//! | `cpu.rs` | the identification struct, feature names and string, microcode |
//! | `config.rs` | strategy selection by name, with the error text |
//!
//! Rules every function follows (the header repeats them per function):
//! - Every symbol starts with `fastpath_`; every type is opaque (a handle
//!   the library allocates) or `#[repr(C)]`.
//! - Fallible functions return a `fastpath_status`; results go through
//!   out-parameters. NULL or misaligned pointers, foreign code-cache
//!   entries and unknown names are error codes, never a crash; the details
//!   are in `fastpath_last_error()`.
//! - No Rust panic crosses the boundary: it is caught and returned as
//!   `FASTPATH_ERR_PANIC`.
//! - The caller still owes what C cannot check: pointers that are non-NULL
//!   point to live objects of the stated type, handles are released once.

#![warn(missing_docs)]
// The `extern "C"` functions take raw pointers and are safe `fn`s: they are
// called only from C (the crate builds no rlib, so no Rust code can call
// them), where `unsafe` means nothing; their pointer contracts are written
// in the header, and each dereference has its SAFETY comment.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

mod block_cache;
pub mod code;
pub mod config;
pub mod cpu;
pub mod deflation;
pub mod gc;
pub mod gc_layout;
pub mod jit;
pub mod lock_record;
pub mod spin;
pub mod status;
pub mod sync;

use core::ffi::c_char;

/// Major version of this library (and of `fastpath_version()`).
pub const FASTPATH_VERSION_MAJOR: u32 = 0;
/// Minor version.
pub const FASTPATH_VERSION_MINOR: u32 = 1;
/// Patch version.
pub const FASTPATH_VERSION_PATCH: u32 = 0;

/// The library's version as `major << 16 | minor << 8 | patch`; compare it
/// with the `FASTPATH_VERSION_*` constants the program was compiled with to
/// detect a mismatched shared library.
#[no_mangle]
pub extern "C" fn fastpath_version() -> u32 {
    FASTPATH_VERSION_MAJOR << 16 | FASTPATH_VERSION_MINOR << 8 | FASTPATH_VERSION_PATCH
}

/// The version as static text, e.g. `"0.1.0"`.
#[no_mangle]
pub extern "C" fn fastpath_version_string() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

#[cfg(test)]
mod tests {
    #[test]
    fn version_constants_are_the_package_version() {
        let v = format!(
            "{}.{}.{}",
            super::FASTPATH_VERSION_MAJOR,
            super::FASTPATH_VERSION_MINOR,
            super::FASTPATH_VERSION_PATCH
        );
        assert_eq!(v, env!("CARGO_PKG_VERSION"));
        assert_eq!(super::fastpath_version(), 1 << 8);
    }
}
