//! The library's monitor slow paths as `extern "C"` functions a
//! [`crate::x64::SlowStub`] calls from a lock template's `slow` label.
//!
//! Where it sits: the templates handle the lightweight common cases inline
//! and leave every other state unchanged; these run the whole of
//! `fastpath::sync::enter_on` / `exit_on` (whose own fast path fails the
//! same way, then the inflation, contention and mode-specific paths).

use core::pin::Pin;

use fastpath::sync::Header;
use fastpath::thread::ThreadBlock;

/// `monitorenter`'s slow path.
///
/// # Safety
/// `thread` is the calling thread's block (`fastpath::thread::current()`);
/// `obj` points to a live header that stays pinned while locked.
pub unsafe extern "C" fn monitor_enter(thread: *const ThreadBlock, obj: *const Header) {
    // SAFETY: per the contract, both point to live values; the header is
    // pinned by the caller.
    unsafe { fastpath::sync::enter_on(&*thread, Pin::new_unchecked(&*obj)) }
}

/// `monitorexit`'s slow path: 0 on success, 1 if this thread does not hold
/// `obj` (`IllegalMonitorStateException`; nothing changed).
///
/// # Safety
/// As [`monitor_enter`].
pub unsafe extern "C" fn monitor_exit(thread: *const ThreadBlock, obj: *const Header) -> u32 {
    // SAFETY: as in `monitor_enter`.
    match unsafe { fastpath::sync::exit_on(&*thread, Pin::new_unchecked(&*obj)) } {
        Ok(()) => 0,
        Err(_) => 1,
    }
}
