//! Errors at the boundary: the status code every fallible function returns,
//! its text, the thread's last detailed error message, and the wrapper that
//! keeps Rust panics on this side of the boundary.
//!
//! Where it sits: every `extern "C"` function in this crate runs its body
//! through `ffi`; a body reports failure as `Err(status)` (after
//! `fail` has stored a detailed message when there is one), and a panic
//! becomes `FASTPATH_ERR_PANIC` instead of unwinding into
//! C (which would abort the process at the `extern "C"` frame).
//!
//! The detailed message lives in a thread-local: C gets a pointer that stays
//! valid until the next failing call on the same thread, the `errno` +
//! `strerror` convention runtimes already follow.

use core::ffi::c_char;
use std::cell::RefCell;
use std::ffi::{CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What a call did. `FASTPATH_OK` is 0; every error is positive. The C type
/// is `int32_t`, so a value from a newer library is still representable:
/// treat unknown values as errors and print them with
/// `fastpath_status_str`.
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum fastpath_status {
    /// Success.
    FASTPATH_OK = 0,
    /// A required pointer argument was NULL.
    FASTPATH_ERR_NULL = 1,
    /// A pointer argument was not aligned as its type requires (a header
    /// needs 8 bytes on 64-bit targets, a spin-wait word 4).
    FASTPATH_ERR_MISALIGNED = 2,
    /// An argument was out of range, not UTF-8, or otherwise invalid.
    FASTPATH_ERR_INVALID_ARGUMENT = 3,
    /// The current thread does not hold the object's lock (Java's
    /// `IllegalMonitorStateException`).
    FASTPATH_ERR_ILLEGAL_MONITOR_STATE = 4,
    /// A wait was interrupted (`fastpath_thread_interrupt`); the interrupt
    /// status was cleared.
    FASTPATH_ERR_INTERRUPTED = 5,
    /// A wait's timeout, or a spin-wait's budget, ran out.
    FASTPATH_ERR_TIMED_OUT = 6,
    /// Another thread holds the object (`fastpath_monitor_try_enter`,
    /// `fastpath_header_destroy`).
    FASTPATH_ERR_BUSY = 7,
    /// A configuration value names no known strategy; the message lists the
    /// accepted names.
    FASTPATH_ERR_UNKNOWN_NAME = 8,
    /// The strategy exists but this CPU lacks the instruction it needs.
    FASTPATH_ERR_UNSUPPORTED = 9,
    /// A different configuration is already in force (it is fixed at first
    /// use).
    FASTPATH_ERR_ALREADY_CONFIGURED = 10,
    /// An empty code blob.
    FASTPATH_ERR_CODE_EMPTY = 11,
    /// A code blob larger than the whole cache.
    FASTPATH_ERR_CODE_OVERSIZED = 12,
    /// The code cache has no free block large enough now.
    FASTPATH_ERR_CODE_FULL = 13,
    /// A patch that does not lie inside its entry.
    FASTPATH_ERR_CODE_OUT_OF_BOUNDS = 14,
    /// The entry belongs to another code cache (or was already freed from
    /// this one); nothing was changed and the entry is still valid.
    FASTPATH_ERR_FOREIGN_ENTRY = 15,
    /// The operating system refused (executable memory, a file); the
    /// message has its error.
    FASTPATH_ERR_OS = 16,
    /// The information is not available on this machine (e.g. the
    /// microcode revision without /sys or /proc).
    FASTPATH_ERR_UNAVAILABLE = 17,
    /// The caller's buffer is too small; `*needed` says how large it must be.
    FASTPATH_ERR_BUFFER_TOO_SMALL = 18,
    /// A bug in fastpath: a Rust panic was caught at the boundary. The
    /// message has the panic's text. The object involved may be unusable.
    FASTPATH_ERR_PANIC = 19,
    /// The GC heap has no space for the object even after collecting.
    FASTPATH_ERR_OUT_OF_MEMORY = 20,
    /// The object is larger than the heap allows (`fastpath_gc_max_object_words`).
    FASTPATH_ERR_OBJECT_TOO_LARGE = 21,
    /// A reference or data field index past the object's fields.
    FASTPATH_ERR_FIELD_OUT_OF_RANGE = 22,
    /// Not a live GC handle of this mutator: popped from its stack
    /// (`fastpath_gc_roots_truncate`), another mutator's, or never issued.
    FASTPATH_ERR_DANGLING_HANDLE = 23,
}

use fastpath_status::*;

impl fastpath_status {
    /// Every status, in value order (for `fastpath_status_str` and tests).
    pub(crate) const ALL: [fastpath_status; 24] = [
        FASTPATH_OK,
        FASTPATH_ERR_NULL,
        FASTPATH_ERR_MISALIGNED,
        FASTPATH_ERR_INVALID_ARGUMENT,
        FASTPATH_ERR_ILLEGAL_MONITOR_STATE,
        FASTPATH_ERR_INTERRUPTED,
        FASTPATH_ERR_TIMED_OUT,
        FASTPATH_ERR_BUSY,
        FASTPATH_ERR_UNKNOWN_NAME,
        FASTPATH_ERR_UNSUPPORTED,
        FASTPATH_ERR_ALREADY_CONFIGURED,
        FASTPATH_ERR_CODE_EMPTY,
        FASTPATH_ERR_CODE_OVERSIZED,
        FASTPATH_ERR_CODE_FULL,
        FASTPATH_ERR_CODE_OUT_OF_BOUNDS,
        FASTPATH_ERR_FOREIGN_ENTRY,
        FASTPATH_ERR_OS,
        FASTPATH_ERR_UNAVAILABLE,
        FASTPATH_ERR_BUFFER_TOO_SMALL,
        FASTPATH_ERR_PANIC,
        FASTPATH_ERR_OUT_OF_MEMORY,
        FASTPATH_ERR_OBJECT_TOO_LARGE,
        FASTPATH_ERR_FIELD_OUT_OF_RANGE,
        FASTPATH_ERR_DANGLING_HANDLE,
    ];

    /// The text `fastpath_status_str` returns, NUL-terminated.
    fn text(self) -> &'static CStr {
        match self {
            FASTPATH_OK => c"ok",
            FASTPATH_ERR_NULL => c"a required pointer was NULL",
            FASTPATH_ERR_MISALIGNED => c"a pointer was misaligned",
            FASTPATH_ERR_INVALID_ARGUMENT => c"invalid argument",
            FASTPATH_ERR_ILLEGAL_MONITOR_STATE => c"the current thread does not hold the object's lock",
            FASTPATH_ERR_INTERRUPTED => c"the wait was interrupted",
            FASTPATH_ERR_TIMED_OUT => c"timed out",
            FASTPATH_ERR_BUSY => c"another thread holds the object",
            FASTPATH_ERR_UNKNOWN_NAME => c"unknown strategy name",
            FASTPATH_ERR_UNSUPPORTED => c"this CPU lacks the instruction the strategy needs",
            FASTPATH_ERR_ALREADY_CONFIGURED => c"a different configuration is already in force",
            FASTPATH_ERR_CODE_EMPTY => c"empty code blob",
            FASTPATH_ERR_CODE_OVERSIZED => c"code blob larger than the code cache",
            FASTPATH_ERR_CODE_FULL => c"code cache full",
            FASTPATH_ERR_CODE_OUT_OF_BOUNDS => c"patch outside its entry",
            FASTPATH_ERR_FOREIGN_ENTRY => c"entry not installed in this code cache",
            FASTPATH_ERR_OS => c"operating system error",
            FASTPATH_ERR_UNAVAILABLE => c"not available on this machine",
            FASTPATH_ERR_BUFFER_TOO_SMALL => c"buffer too small",
            FASTPATH_ERR_PANIC => c"internal error (a Rust panic was caught)",
            FASTPATH_ERR_OUT_OF_MEMORY => c"GC heap out of memory",
            FASTPATH_ERR_OBJECT_TOO_LARGE => c"object too large for the GC heap",
            FASTPATH_ERR_FIELD_OUT_OF_RANGE => c"field index out of range",
            FASTPATH_ERR_DANGLING_HANDLE => c"dangling GC handle",
        }
    }
}

/// A short, static, NUL-terminated description of `status` (never NULL;
/// "unknown status" for a value this library does not define). Thread-safe.
#[no_mangle]
pub extern "C" fn fastpath_status_str(status: i32) -> *const c_char {
    fastpath_status::ALL
        .iter()
        .find(|s| **s as i32 == status)
        .map_or(c"unknown status", |s| s.text())
        .as_ptr()
}

std::thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// The detailed message of the last call on this thread that failed (for
/// example `FASTPATH_SPIN_PAUSE="pasue": unknown value; accepted here: ...`), or
/// "" if none failed yet. The pointer stays valid until the next failing
/// call on the same thread; copy the text to keep it. Never NULL.
#[no_mangle]
pub extern "C" fn fastpath_last_error() -> *const c_char {
    LAST_ERROR
        .try_with(|e| e.borrow().as_ptr())
        .unwrap_or(c"".as_ptr())
}

/// Records `message` as this thread's last error and returns `status`, for
/// `return Err(fail(...))` in a body.
#[cold]
pub(crate) fn fail(status: fastpath_status, message: impl core::fmt::Display) -> fastpath_status {
    let text = message.to_string().replace('\0', "\\0");
    let c = CString::new(text).unwrap_or_default();
    let _ = LAST_ERROR.try_with(|e| *e.borrow_mut() = c);
    status
}

/// Runs an `extern "C"` function's body: `Ok` is `FASTPATH_OK`, `Err(s)` is
/// `s`, and a panic is caught and reported as `FASTPATH_ERR_PANIC` with its
/// message, so that no unwind crosses into C.
#[inline(always)]
pub(crate) fn ffi(body: impl FnOnce() -> Result<(), fastpath_status>) -> fastpath_status {
    // AssertUnwindSafe: after a panic the caller only gets a status; no
    // Rust state borrowed by `body` is observed again by this function.
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => FASTPATH_OK,
        Ok(Err(status)) => status,
        Err(payload) => panicked(payload),
    }
}

#[cold]
#[inline(never)]
fn panicked(payload: Box<dyn core::any::Any + Send>) -> fastpath_status {
    let msg = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(non-string panic payload)");
    fail(FASTPATH_ERR_PANIC, format_args!("panic inside fastpath: {msg}"))
}

/// Writes `value` into `*out` if `out` is not NULL (an optional result).
pub(crate) fn put_opt<T>(out: *mut T, value: T) {
    if !out.is_null() {
        // SAFETY: the caller's contract (documented on every function with
        // an optional out-parameter): `out` is NULL or valid for writes.
        unsafe { out.write(value) };
    }
}

/// Checks that `p`, an argument called `what`, is non-NULL and aligned for
/// `A` (the type it will be used as, which may be stricter than `T`'s).
#[inline(always)]
pub(crate) fn aligned<T, A>(p: *const T, what: &'static str) -> Result<(), fastpath_status> {
    if p.is_null() {
        return Err(null(what));
    }
    if (p as usize) % core::mem::align_of::<A>() != 0 {
        return Err(misaligned(p.cast(), what, core::mem::align_of::<A>()));
    }
    Ok(())
}

#[cold]
fn null(what: &str) -> fastpath_status {
    fail(FASTPATH_ERR_NULL, format_args!("{what} is NULL"))
}

#[cold]
fn misaligned(p: *const u8, what: &str, align: usize) -> fastpath_status {
    fail(
        FASTPATH_ERR_MISALIGNED,
        format_args!("{what} {p:p} is misaligned (needs {align} bytes)"),
    )
}

/// Checks a required out-parameter.
pub(crate) fn out_ptr<T>(out: *mut T) -> Result<*mut T, fastpath_status> {
    aligned::<T, T>(out, "the output pointer")?;
    Ok(out)
}

/// Writes a required out-parameter (checked by [`out_ptr`]).
pub(crate) fn put<T>(out: *mut T, value: T) -> Result<(), fastpath_status> {
    let out = out_ptr(out)?;
    // SAFETY: checked non-NULL and aligned; the caller's contract makes it
    // valid for writes.
    unsafe { out.write(value) };
    Ok(())
}

/// Copies `text` and a NUL into `buf` (capacity `cap` bytes), the
/// `snprintf` convention: `*needed` (if not NULL) gets the size required,
/// NUL included; a `buf` too small (or NULL with `cap` 0, to ask the size)
/// gets nothing and the call returns `FASTPATH_ERR_BUFFER_TOO_SMALL`.
pub(crate) fn copy_out(
    text: &str,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> Result<(), fastpath_status> {
    let size = text.len() + 1;
    put_opt(needed, size);
    if cap < size {
        return Err(fail(
            FASTPATH_ERR_BUFFER_TOO_SMALL,
            format_args!("{size} bytes needed, {cap} given"),
        ));
    }
    if buf.is_null() {
        return Err(fail(FASTPATH_ERR_NULL, "the buffer is NULL"));
    }
    // SAFETY: `buf` is non-NULL and, by the caller's contract, valid for
    // `cap ≥ size` bytes; `text` is a separate Rust allocation.
    unsafe {
        core::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), text.len());
        buf.add(text.len()).write(0);
    }
    Ok(())
}

/// Reads an optional C string argument: NULL is `None`.
pub(crate) fn opt_str<'a>(s: *const c_char, what: &str) -> Result<Option<&'a str>, fastpath_status> {
    if s.is_null() {
        return Ok(None);
    }
    // SAFETY: non-NULL; the caller's contract: a NUL-terminated string that
    // outlives the call.
    let c = unsafe { core::ffi::CStr::from_ptr(s) };
    c.to_str()
        .map(Some)
        .map_err(|_| fail(FASTPATH_ERR_INVALID_ARGUMENT, format_args!("{what} is not UTF-8")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_are_numbered_in_order_and_have_texts() {
        for (i, s) in fastpath_status::ALL.iter().enumerate() {
            assert_eq!(*s as i32, i as i32);
            assert!(!s.text().is_empty());
        }
        // SAFETY: the function returns static NUL-terminated strings.
        let unknown = unsafe { core::ffi::CStr::from_ptr(fastpath_status_str(-7)) };
        assert_eq!(unknown.to_str(), Ok("unknown status"));
    }

    #[test]
    fn a_panic_becomes_a_status_with_its_message() {
        let s = ffi(|| panic!("boom"));
        assert_eq!(s, FASTPATH_ERR_PANIC);
        // SAFETY: never NULL, NUL-terminated, valid until the next failure.
        let msg = unsafe { core::ffi::CStr::from_ptr(fastpath_last_error()) };
        assert!(msg.to_str().unwrap().contains("boom"), "{msg:?}");
    }
}
