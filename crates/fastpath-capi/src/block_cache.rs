//! The calling thread's block for the C ABI's thread-local monitor fast
//! paths (`fastpath_monitor_enter`/`exit` without `_on`), cached in a
//! thread-local word of this library's own with the initial-exec model.
//!
//! Where it sits: under `sync.rs`'s monitor functions, beside
//! `fastpath_core::thread::current()`, which it caches.
//!
//! Why: inside `libfastpath.so` the Rust library's thread-local block is
//! reached through `__tls_get_addr` (the general-dynamic model a shared
//! object gets; stable Rust cannot ask for another per variable): a call
//! through the PLT on every enter and every exit: 1.71× the Rust pair for
//! the thread-local pair through the `.so` on a Zen 4 guest (the benchmarks
//! notebook, "Locking, part 3"). An initial-exec word is one `%fs`-relative load through a
//! GOT slot the loader fills once. The word is defined here in assembly
//! (`.tbss`, zero for every new thread) because a Rust `static` cannot be
//! declared thread-local with a model of its choosing on stable.
//!
//! Initial-exec TLS lives in the static TLS block: a program linked with
//! `libfastpath.so` has it; a `dlopen` of the library needs 8 bytes of
//! glibc's static TLS surplus (normally there). In `libfastpath.a` the
//! linker turns the access into a plain `%fs`-relative one.
//!
//! x86-64 Linux only; elsewhere [`current`] is the library's lookup.

use fastpath_core::thread::ThreadBlock;

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
core::arch::global_asm!(
    ".pushsection .tbss.fastpath_capi_block,\"awT\",@nobits",
    ".p2align 3",
    // Global (the reads may sit in another codegen unit), hidden (not
    // exported from the `.so`).
    ".globl fastpath_capi_block",
    ".hidden fastpath_capi_block",
    ".type fastpath_capi_block, @object",
    ".size fastpath_capi_block, 8",
    "fastpath_capi_block:",
    ".zero 8",
    ".popsection",
);

/// The calling thread's block if this thread has cached it, else `None`
/// (the caller's full path calls [`fill`]). No call: a monitor fast path
/// that uses it stays a leaf.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[inline(always)]
pub(crate) fn cached() -> Option<&'static ThreadBlock> {
    let p: *const ThreadBlock;
    // SAFETY: reads this thread's own TLS word (the GOT slot holds its
    // offset from the thread pointer, %fs's base); it holds null or what
    // `fill` stored on this thread.
    unsafe {
        core::arch::asm!(
            "mov {p}, qword ptr [rip + fastpath_capi_block@GOTTPOFF]",
            "mov {p}, qword ptr fs:[{p}]",
            p = out(reg) p,
            options(nostack, readonly, preserves_flags),
        );
    }
    // SAFETY: non-null only as `fill` left it: this thread's block, which
    // lives as long as the thread (`thread::current`).
    unsafe { p.as_ref() }
}

/// Caches the calling thread's block (the full paths call it, once per
/// thread in effect).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[inline]
pub(crate) fn fill() {
    let block = fastpath_core::thread::current().as_ptr();
    // SAFETY: writes this thread's own TLS word (as `cached` reads it).
    unsafe {
        core::arch::asm!(
            "mov {t}, qword ptr [rip + fastpath_capi_block@GOTTPOFF]",
            "mov qword ptr fs:[{t}], {b}",
            t = out(reg) _,
            b = in(reg) block,
            options(nostack, preserves_flags),
        );
    }
}

/// Elsewhere: the library's lookup (no cache).
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
#[inline(always)]
pub(crate) fn cached() -> Option<&'static ThreadBlock> {
    Some(fastpath_core::thread::current())
}

/// Elsewhere: nothing to cache.
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
#[inline]
pub(crate) fn fill() {}

#[cfg(test)]
mod tests {
    /// The cache starts empty on a fresh thread (x86-64 Linux), holds the
    /// thread's own block once filled, and never another thread's.
    #[test]
    fn caches_the_calling_threads_block() {
        let (before, after, mine) = std::thread::spawn(|| {
            let before = super::cached().map(|b| b.as_ptr());
            super::fill();
            let after = super::cached().map(|b| b.as_ptr());
            (
                before.map(|p| p as usize),
                after.map(|p| p as usize),
                fastpath_core::thread::current().as_ptr() as usize,
            )
        })
        .join()
        .unwrap();
        if cfg!(all(target_arch = "x86_64", target_os = "linux")) {
            assert_eq!(before, None, "a new thread's word is zero");
        }
        assert_eq!(after, Some(mine));
        super::fill();
        assert_eq!(
            super::cached().map(|b| b.as_ptr()),
            Some(fastpath_core::thread::current().as_ptr())
        );
        assert_ne!(Some(mine), super::cached().map(|b| b.as_ptr() as usize));
    }
}
