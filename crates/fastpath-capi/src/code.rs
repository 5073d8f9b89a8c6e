//! The code cache from C: create, install (one blob or a batch, synced
//! once), patch, free, cross-modify fence and publish (over
//! `fastpath::code`, seed 000).
//!
//! Where it sits: a C JIT hands bytes to `fastpath_code_install`, gets an
//! entry whose address it casts to a function pointer and calls; later it
//! patches the entry and publishes the change to the other threads.
//!
//! Ownership: a `fastpath_code_cache` and each `fastpath_code_entry` are
//! heap handles owned by the caller. An entry remembers which cache
//! installed it (by a process-unique id, not an address that could be
//! reused), so handing it to another cache is `FASTPATH_ERR_FOREIGN_ENTRY`
//! and leaves it valid; `fastpath_code_free` consumes it only on success.
//! Entries still live when their cache is destroyed no longer name code;
//! release their handles with `fastpath_code_entry_discard`.
//!
//! Threads: a cache may be used from any number of threads at once (its
//! allocator is locked inside). An entry handle may be read from any thread;
//! freeing it races with nothing else using that handle.

use core::ffi::c_char;
use std::sync::atomic::{AtomicU64, Ordering};

use fastpath_core::code::ICacheSync;
use fastpath_core::code::{self, CodeCache, CodeCacheError, Entry, ICacheStrategy, PublishGuarantee};

use crate::config::{unknown_name, unsupported};
use crate::status::fastpath_status::{self, *};
use crate::status::{aligned, copy_out, fail, ffi, opt_str, put, put_opt};

/// A code cache. Opaque; from `fastpath_code_cache_new`, destroyed by
/// `fastpath_code_cache_free`.
#[allow(non_camel_case_types)]
pub struct fastpath_code_cache {
    id: u64,
    cache: CodeCache,
}

/// Installed code. Opaque; from `fastpath_code_install` or
/// `fastpath_code_install_batch`, released by `fastpath_code_free` (or
/// `fastpath_code_entry_discard` once its cache is gone).
#[allow(non_camel_case_types)]
pub struct fastpath_code_entry {
    cache_id: u64,
    entry: Entry,
}

/// What `fastpath_code_publish` guaranteed.
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum fastpath_publish_guarantee {
    /// Every thread executed a core-serializing instruction before the call
    /// returned: cross-modified code is safe to run everywhere.
    FASTPATH_PUBLISH_SYNC_CORE = 0,
    /// Every running thread executed a full memory barrier only: threads
    /// that run the new code must call `fastpath_cross_modify_fence` first.
    FASTPATH_PUBLISH_MEMORY_BARRIER = 1,
    /// Nothing could be done: runners must call `fastpath_cross_modify_fence`.
    FASTPATH_PUBLISH_NOTHING = 2,
}

/// A cache's size and occupancy (`fastpath_code_cache_get_info`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct fastpath_code_cache_info {
    /// Capacity in bytes (the request rounded up to pages).
    pub capacity: usize,
    /// Entry alignment and allocation granule in bytes.
    pub alignment: usize,
    /// Bytes in live entries, padding included.
    pub used: usize,
    /// Live entries.
    pub live_entries: usize,
}

/// Process-unique cache ids; 0 is never handed out. Relaxed: uniqueness is
/// all that is needed.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn code_status(e: CodeCacheError) -> fastpath_status {
    let status = match &e {
        CodeCacheError::Empty => FASTPATH_ERR_CODE_EMPTY,
        CodeCacheError::Oversized { .. } => FASTPATH_ERR_CODE_OVERSIZED,
        CodeCacheError::OutOfSpace { .. } => FASTPATH_ERR_CODE_FULL,
        CodeCacheError::OutOfBounds { .. } => FASTPATH_ERR_CODE_OUT_OF_BOUNDS,
        CodeCacheError::NotInstalled => FASTPATH_ERR_FOREIGN_ENTRY,
        CodeCacheError::Os(_) => FASTPATH_ERR_OS,
        CodeCacheError::Config(c) => return unsupported(c.clone()),
        _ => FASTPATH_ERR_INVALID_ARGUMENT,
    };
    fail(status, e)
}

fn cache<'a>(c: *const fastpath_code_cache) -> Result<&'a fastpath_code_cache, fastpath_status> {
    aligned::<_, fastpath_code_cache>(c, "the code cache")?;
    // SAFETY: the caller's contract: a live handle from
    // `fastpath_code_cache_new`; the cache is `Sync`.
    Ok(unsafe { &*c })
}

/// The entry behind `e`, checked to belong to `c`.
fn entry_of<'a>(
    c: &fastpath_code_cache,
    e: *const fastpath_code_entry,
) -> Result<&'a Entry, fastpath_status> {
    aligned::<_, fastpath_code_entry>(e, "the code entry")?;
    // SAFETY: the caller's contract: a live handle from an install call.
    let e = unsafe { &*e };
    if e.cache_id != c.id {
        return Err(fail(
            FASTPATH_ERR_FOREIGN_ENTRY,
            "the entry was installed by another code cache",
        ));
    }
    Ok(&e.entry)
}

/// The bytes `ptr[0..len]`; NULL is allowed only with `len` 0.
fn bytes<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], fastpath_status> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(fail(FASTPATH_ERR_NULL, "the code bytes are NULL"));
    }
    // SAFETY: non-NULL; the caller's contract: readable for `len` bytes
    // during the call.
    Ok(unsafe { core::slice::from_raw_parts(ptr, len) })
}

fn new_cache(
    capacity: usize,
    strategy: ICacheStrategy,
    out: *mut *mut fastpath_code_cache,
) -> Result<(), fastpath_status> {
    crate::status::out_ptr(out)?;
    let cache = CodeCache::with_strategy(capacity, strategy).map_err(code_status)?;
    let handle = Box::new(fastpath_code_cache {
        // Relaxed: a unique number, nothing else.
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        cache,
    });
    put(out, Box::into_raw(handle))
}

/// Creates a code cache of at least `capacity` bytes (rounded up to pages)
/// using the process-wide `FASTPATH_ICACHE_SYNC` strategy; `*out` gets it.
#[no_mangle]
pub extern "C" fn fastpath_code_cache_new(
    capacity: usize,
    out: *mut *mut fastpath_code_cache,
) -> fastpath_status {
    ffi(|| new_cache(capacity, ICacheStrategy::from_config().map_err(unsupported)?, out))
}

/// As `fastpath_code_cache_new` with an explicit icache sync strategy name
/// (`"auto"`, `"none"`, `"clflush"`, ...; NULL means `"auto"`):
/// `FASTPATH_ERR_UNKNOWN_NAME` for a name that does not exist and
/// `FASTPATH_ERR_UNSUPPORTED` for an instruction this CPU lacks, with the
/// accepted names in `fastpath_last_error()`.
#[no_mangle]
pub extern "C" fn fastpath_code_cache_new_with_strategy(
    capacity: usize,
    icache_sync: *const c_char,
    out: *mut *mut fastpath_code_cache,
) -> fastpath_status {
    ffi(|| {
        let requested = match opt_str(icache_sync, "the strategy name")? {
            None => ICacheSync::Auto,
            Some(name) => name.parse::<ICacheSync>().map_err(unknown_name)?,
        };
        new_cache(
            capacity,
            ICacheStrategy::new(requested).map_err(unsupported)?,
            out,
        )
    })
}

/// Destroys a cache (NULL: nothing). No thread may be running or about to
/// run its code. Entry handles it installed stay allocated: discard them.
#[no_mangle]
pub extern "C" fn fastpath_code_cache_free(c: *mut fastpath_code_cache) -> fastpath_status {
    ffi(|| {
        if !c.is_null() {
            // SAFETY: the caller's contract: from `fastpath_code_cache_new`,
            // freed once, no longer in use.
            drop(unsafe { Box::from_raw(c) });
        }
        Ok(())
    })
}

/// The cache's size and occupancy.
#[no_mangle]
pub extern "C" fn fastpath_code_cache_get_info(
    c: *const fastpath_code_cache,
    out: *mut fastpath_code_cache_info,
) -> fastpath_status {
    ffi(|| {
        let c = &cache(c)?.cache;
        put(
            out,
            fastpath_code_cache_info {
                capacity: c.capacity(),
                alignment: c.alignment(),
                used: c.used(),
                live_entries: c.live_entries(),
            },
        )
    })
}

/// The icache sync strategy the cache runs, as text (e.g. `"auto →
/// iret"`), copied into `buf` with the `snprintf` convention:
/// `*needed` (optional) gets the size with the NUL; a short buffer is
/// `FASTPATH_ERR_BUFFER_TOO_SMALL`.
#[no_mangle]
pub extern "C" fn fastpath_code_cache_strategy(
    c: *const fastpath_code_cache,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> fastpath_status {
    ffi(|| {
        let s = cache(c)?.cache.strategy();
        let text = format!("{} → {}", s.requested().name(), s.describe());
        copy_out(&text, buf, cap, needed)
    })
}

fn handle(c: &fastpath_code_cache, entry: Entry) -> *mut fastpath_code_entry {
    Box::into_raw(Box::new(fastpath_code_entry {
        cache_id: c.id,
        entry,
    }))
}

/// Copies `len` bytes of machine code into the cache, makes them visible to
/// instruction fetch, and returns the entry in `*out`. Its address
/// (`fastpath_code_entry_addr`) may be cast to the function pointer type
/// the bytes implement.
#[no_mangle]
pub extern "C" fn fastpath_code_install(
    c: *const fastpath_code_cache,
    code: *const u8,
    len: usize,
    out: *mut *mut fastpath_code_entry,
) -> fastpath_status {
    ffi(|| {
        let c = cache(c)?;
        crate::status::out_ptr(out)?;
        let entry = c.cache.install(bytes(code, len)?).map_err(code_status)?;
        put(out, handle(c, entry))
    })
}

/// Installs `n` blobs (`blobs[i]`, `lens[i]` bytes each) with one sync over
/// all of them; `out[0..n]` gets the entries. All or nothing: on an error
/// nothing is installed and `out` is untouched.
#[no_mangle]
pub extern "C" fn fastpath_code_install_batch(
    c: *const fastpath_code_cache,
    blobs: *const *const u8,
    lens: *const usize,
    n: usize,
    out: *mut *mut fastpath_code_entry,
) -> fastpath_status {
    ffi(|| {
        let c = cache(c)?;
        if n == 0 {
            return Ok(());
        }
        if blobs.is_null() || lens.is_null() || out.is_null() {
            return Err(fail(FASTPATH_ERR_NULL, "blobs, lens or out is NULL"));
        }
        // SAFETY: non-NULL; the caller's contract: `n` readable elements.
        let (ptrs, lens) = unsafe {
            (
                core::slice::from_raw_parts(blobs, n),
                core::slice::from_raw_parts(lens, n),
            )
        };
        let slices = ptrs
            .iter()
            .zip(lens)
            .map(|(&p, &l)| bytes(p, l))
            .collect::<Result<Vec<&[u8]>, _>>()?;
        let entries = c.cache.install_batch(&slices).map_err(code_status)?;
        for (i, entry) in entries.into_iter().enumerate() {
            // SAFETY: the caller's contract: `out` has room for `n` handles.
            unsafe { out.add(i).write(handle(c, entry)) };
        }
        Ok(())
    })
}

/// The entry's executable address (NULL for a NULL entry).
#[no_mangle]
pub extern "C" fn fastpath_code_entry_addr(e: *const fastpath_code_entry) -> *const core::ffi::c_void {
    if e.is_null() {
        return core::ptr::null();
    }
    // SAFETY: the caller's contract: a live entry handle.
    unsafe { (*e).entry.addr().cast() }
}

/// The number of code bytes installed in the entry (0 for a NULL entry).
#[no_mangle]
pub extern "C" fn fastpath_code_entry_len(e: *const fastpath_code_entry) -> usize {
    if e.is_null() {
        return 0;
    }
    // SAFETY: the caller's contract: a live entry handle.
    unsafe { (*e).entry.len() }
}

/// Overwrites `len` bytes of the entry at `offset` and syncs them. A patch
/// of 1, 2, 4 or 8 bytes aligned to its size is one store, so a thread
/// running the entry sees the old or the new bytes, never a mix; longer
/// patches must not race with execution. Other threads then need
/// `fastpath_code_publish`.
#[no_mangle]
pub extern "C" fn fastpath_code_patch(
    c: *const fastpath_code_cache,
    e: *const fastpath_code_entry,
    offset: usize,
    patch: *const u8,
    len: usize,
) -> fastpath_status {
    ffi(|| {
        let c = cache(c)?;
        let entry = entry_of(c, e)?;
        c.cache
            .patch(entry, offset, bytes(patch, len)?)
            .map_err(code_status)
    })
}

/// Frees the entry's block and its handle. No thread may be running the
/// code or about to. `FASTPATH_ERR_FOREIGN_ENTRY` if `c` did not install
/// it; the handle then stays valid.
#[no_mangle]
pub extern "C" fn fastpath_code_free(
    c: *const fastpath_code_cache,
    e: *mut fastpath_code_entry,
) -> fastpath_status {
    ffi(|| {
        let c = cache(c)?;
        entry_of(c, e)?;
        // SAFETY: checked non-NULL and owned by `c`; the caller's contract:
        // a live handle (a `Box` from an install call), used by no one else.
        let owned = unsafe { Box::from_raw(e) };
        c.cache.free(owned.entry).map_err(code_status)
    })
}

/// Releases an entry handle without touching any cache: for entries whose
/// cache was already destroyed (NULL: nothing).
#[no_mangle]
pub extern "C" fn fastpath_code_entry_discard(e: *mut fastpath_code_entry) -> fastpath_status {
    ffi(|| {
        if !e.is_null() {
            // SAFETY: the caller's contract: a live handle, released once.
            drop(unsafe { Box::from_raw(e) });
        }
        Ok(())
    })
}

/// Serializes the calling thread's instruction fetch: call it before
/// running code another thread changed when publish did not guarantee
/// `FASTPATH_PUBLISH_SYNC_CORE`.
#[no_mangle]
pub extern "C" fn fastpath_cross_modify_fence() -> fastpath_status {
    ffi(|| {
        code::cross_modify_fence();
        Ok(())
    })
}

/// Makes code changes visible to every thread of the process (membarrier
/// `SYNC_CORE` where the kernel has it). `*guarantee` (optional) says what
/// was achieved.
#[no_mangle]
pub extern "C" fn fastpath_code_publish(guarantee: *mut fastpath_publish_guarantee) -> fastpath_status {
    ffi(|| {
        let g = match code::publish() {
            PublishGuarantee::SyncCore => fastpath_publish_guarantee::FASTPATH_PUBLISH_SYNC_CORE,
            PublishGuarantee::MemoryBarrier => fastpath_publish_guarantee::FASTPATH_PUBLISH_MEMORY_BARRIER,
            PublishGuarantee::Nothing => fastpath_publish_guarantee::FASTPATH_PUBLISH_NOTHING,
        };
        put_opt(guarantee, g);
        Ok(())
    })
}
