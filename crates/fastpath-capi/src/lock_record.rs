//! Legacy stack-locking from C: a lock record (HotSpot `BasicLock`) that the
//! caller keeps in its own stack frame, as compiled code does, and
//! enter/exit with it (over `fastpath::sync::{enter,exit}_with_record`).
//!
//! Where it sits: beside `sync.rs`, for runtimes that generate code with a
//! lock slot per `monitorenter`. The record holds the object's displaced
//! header while the object is stack-locked, and the header holds the
//! record's *address*; so, like a locked header, a record in use must not
//! move or die. Whose record it is is decided by its address (HotSpot's test
//! against the calling thread's stack); a record elsewhere (malloc'd, inside
//! the caller's own structure) is remembered by the thread while in use, so
//! a record may live anywhere, as long as one thread uses it at a time.

use core::pin::Pin;

use fastpath_core::sync::{self, LockRecord};

use crate::status::fastpath_status::{self, *};
use crate::status::{aligned, fail, ffi, put};
use crate::sync::{fastpath_header, header, sync_status};

/// A lock record (HotSpot `BasicLock`): two words the caller keeps, usually
/// as an automatic variable of the thread that locks with it. Opaque: initialise
/// with `fastpath_lock_record_init`, end with `fastpath_lock_record_destroy`.
/// It holds one lock at a time and must not move, be copied or go out of
/// scope while in use.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct fastpath_lock_record {
    /// fastpath's; not the caller's to read or write.
    pub opaque_words: [usize; 2],
}

// The C type has the Rust record's size and alignment, so an initialised
// `*mut fastpath_lock_record` is a valid `*const LockRecord`.
const _: () = assert!(core::mem::size_of::<LockRecord>() == core::mem::size_of::<fastpath_lock_record>());
const _: () = assert!(core::mem::align_of::<LockRecord>() == core::mem::align_of::<fastpath_lock_record>());

fn record<'a>(r: *const fastpath_lock_record) -> Result<Pin<&'a LockRecord>, fastpath_status> {
    aligned::<_, LockRecord>(r, "the lock record")?;
    // SAFETY: non-NULL and aligned (checked), same size as `LockRecord`
    // (asserted); the caller's contract: initialised by
    // `fastpath_lock_record_init`, not destroyed, used by one thread at a
    // time (the record is not `Sync`), and not moved while
    // in use, which is the `Pin` promise.
    Ok(unsafe { Pin::new_unchecked(&*r.cast::<LockRecord>()) })
}

/// Initialises the record at `r` (idle). `r` must be writable and not a
/// record in use; it may live on the stack (the usual place, as a JIT's
/// lock slot), in malloc'd memory or in the caller's own structure.
#[no_mangle]
pub extern "C" fn fastpath_lock_record_init(r: *mut fastpath_lock_record) -> fastpath_status {
    ffi(|| {
        aligned::<_, LockRecord>(r, "the lock record")?;
        // SAFETY: non-NULL, aligned, the size of a `LockRecord` (asserted);
        // the caller's contract: writable and not a record in use.
        unsafe { r.cast::<LockRecord>().write(LockRecord::new()) };
        Ok(())
    })
}

/// Ends the record's life. `FASTPATH_ERR_BUSY` (nothing changes) if it
/// still holds a lock: exit with it first. Calling thread only.
#[no_mangle]
pub extern "C" fn fastpath_lock_record_destroy(r: *mut fastpath_lock_record) -> fastpath_status {
    ffi(|| {
        if record(r)?.is_in_use() {
            return Err(fail(FASTPATH_ERR_BUSY, "the lock record still holds a lock"));
        }
        // SAFETY: checked and initialised (see `record`), idle (checked), so
        // its destructor has nothing to release.
        unsafe { core::ptr::drop_in_place(r.cast::<LockRecord>()) };
        Ok(())
    })
}

/// Whether a lock taken with the record is held. Calling thread only.
#[no_mangle]
pub extern "C" fn fastpath_lock_record_in_use(
    r: *const fastpath_lock_record,
    out: *mut bool,
) -> fastpath_status {
    ffi(|| put(out, record(r)?.is_in_use()))
}

/// `monitorenter` with the caller's record `r` (idle): a legacy stack-lock
/// whatever the thread's locking mode, blocking while another thread holds
/// the object; reentrant (a nested enter uses another record). An in-use
/// record is `FASTPATH_ERR_ILLEGAL_MONITOR_STATE` and nothing changes.
/// Release with `fastpath_monitor_exit_with_record` and the same record, on
/// the same thread; same-object locks are released in reverse order.
#[no_mangle]
pub extern "C" fn fastpath_monitor_enter_with_record(
    h: *mut fastpath_header,
    r: *mut fastpath_lock_record,
) -> fastpath_status {
    ffi(|| sync::enter_with_record(header(h)?, record(r)?).map_err(sync_status))
}

/// `monitorexit` of a lock taken with `fastpath_monitor_enter_with_record`
/// and `r`. `FASTPATH_ERR_ILLEGAL_MONITOR_STATE` (nothing changes) if `r`
/// does not hold `h`.
#[no_mangle]
pub extern "C" fn fastpath_monitor_exit_with_record(
    h: *mut fastpath_header,
    r: *mut fastpath_lock_record,
) -> fastpath_status {
    ffi(|| sync::exit_with_record(header(h)?, record(r)?).map_err(sync_status))
}
