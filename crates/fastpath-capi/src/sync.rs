//! Object monitors from C: the header word a C object embeds, enter/exit,
//! wait/notify, the identity hash, threads and their interrupts, the locking
//! mode and the statistics (over `fastpath::sync`, seed 001).
//!
//! Where it sits: each function checks its pointers (NULL, alignment) and
//! calls the Rust function of the same name through
//! `status::ffi`, so bad input is a status and a panic never
//! unwinds into C. The monitor fast paths stay what they are in Rust (one
//! CAS and a lock-stack push); the boundary adds the checks and a call.
//!
//! The header's lifetime rules are Rust's `Pin` contract written out for C:
//! the lock-stack of the thread that holds an object, and an inflated
//! object's monitor, remember the header's *address*. So between
//! `fastpath_header_init` and `fastpath_header_destroy` a header must not
//! move or be freed while it is locked or inflated. An unlocked,
//! non-inflated header is a plain word and may be copied bitwise (a moving
//! GC), while no thread uses it.
//!
//! Threads: any thread may call these functions; a thread created by C is
//! attached lazily by its first lock (or eagerly by `fastpath_thread_attach`),
//! and may detach before it ends (`fastpath_thread_detach`, which releases
//! what it still holds).
//! When it exits, the locks it still holds are released and their waiters
//! woken, as for a Rust thread (`fastpath::sync`'s thread-exit release, run
//! from the thread-local destructors glibc calls at `pthread_exit`).

use core::ffi::c_char;
use core::pin::Pin;
use std::time::Duration;

use fastpath_core::sync::LockingMode;
use fastpath_core::sync::{self, Header, InflateCause, LockState, SyncError, SyncThread};

use crate::block_cache;
use crate::status::fastpath_status::{self, *};
use crate::status::{aligned, fail, ffi, put, put_opt};

/// The header word a C object embeds (one pointer-sized word, 8-byte
/// aligned on the 64-bit targets fastpath supports). Its address is the object's identity. Never read or
/// write `opaque_word`: initialise with `fastpath_header_init`, release with
/// `fastpath_header_destroy`, and see the lifetime rules in the file's top
/// comment: a locked or inflated header must not move.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct fastpath_header {
    /// fastpath's; not the caller's to read or write.
    pub opaque_word: usize,
}

// The C type and the Rust type are one word with one alignment, so a
// `*mut fastpath_header` is a valid `*const Header` once initialised.
const _: () = assert!(core::mem::size_of::<Header>() == core::mem::size_of::<fastpath_header>());
const _: () = assert!(core::mem::align_of::<Header>() == core::mem::align_of::<fastpath_header>());

/// The spare bits of the header word a runtime may use for itself
/// (`fastpath_header_init_with_spare_bits`); locking never changes them.
/// Bit 63 is not among them: it tells a legacy stack-lock's word from a
/// lightweight one.
pub const FASTPATH_HEADER_SPARE_MASK: usize = 0x7FFF_FF80_0000_00FC;
const _: () = assert!(FASTPATH_HEADER_SPARE_MASK == sync::SPARE_MASK);

/// The word `fastpath_header_init` leaves in a header until it is first
/// hashed or locked (unlocked, no hash, no spare bits): what the inline
/// enter (`fastpath_monitor_enter_inline`) expects to find, so that it
/// loads no header between the previous exit's locked instruction and its
/// own.
pub const FASTPATH_HEADER_NEUTRAL: u64 = 0x8000_0000_0000_0001;
/// That header fast-locked (lock bits 00): what the inline exit expects.
pub const FASTPATH_HEADER_FAST_LOCKED: u64 = 0x8000_0000_0000_0000;
const _: () = {
    assert!(FASTPATH_HEADER_NEUTRAL as usize == Header::neutral_word(0));
    assert!(FASTPATH_HEADER_FAST_LOCKED == FASTPATH_HEADER_NEUTRAL & !0b11);
};

/// `fastpath_monitor_wait`'s timeout meaning "no timeout".
pub const FASTPATH_WAIT_FOREVER: i64 = -1;

/// A header's lock state (`fastpath_header_lock_state`).
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum fastpath_lock_state {
    /// Nobody holds it and no monitor is installed.
    FASTPATH_UNLOCKED = 0,
    /// Fast-locked: held by the thread whose lock-stack lists it.
    FASTPATH_FAST_LOCKED = 1,
    /// A monitor is installed (held or not).
    FASTPATH_INFLATED = 2,
    /// Lock bits reserved for a GC.
    FASTPATH_GC_RESERVED = 3,
}

/// How monitors are locked (HotSpot `-XX:LockingMode`).
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum fastpath_locking_mode {
    /// Every lock is a monitor (`LM_MONITOR`, 0).
    FASTPATH_LOCKING_MONITOR = 0,
    /// Stack-locking with displaced headers (`LM_LEGACY`, 1).
    FASTPATH_LOCKING_LEGACY = 1,
    /// Fast-locking with a per-thread lock-stack (`LM_LIGHTWEIGHT`, 2).
    FASTPATH_LOCKING_LIGHTWEIGHT = 2,
}

impl From<LockingMode> for fastpath_locking_mode {
    fn from(m: LockingMode) -> Self {
        match m {
            LockingMode::Monitor => fastpath_locking_mode::FASTPATH_LOCKING_MONITOR,
            LockingMode::Legacy => fastpath_locking_mode::FASTPATH_LOCKING_LEGACY,
            LockingMode::Lightweight => fastpath_locking_mode::FASTPATH_LOCKING_LIGHTWEIGHT,
        }
    }
}

/// Number of inflation causes (`fastpath_sync_stats.inflations`).
pub const FASTPATH_INFLATE_CAUSES: usize = 9;
const _: () = assert!(FASTPATH_INFLATE_CAUSES == InflateCause::ALL.len());

/// Index in `fastpath_sync_stats.inflations`: another thread held the object.
pub const FASTPATH_INFLATE_CONTENTION: u32 = 0;
/// Index in `fastpath_sync_stats.inflations`: a wait on a fast-locked object.
pub const FASTPATH_INFLATE_WAIT: u32 = 1;
/// Index in `fastpath_sync_stats.inflations`: a recursive enter the lock-stack cannot express (another object above it).
pub const FASTPATH_INFLATE_INTERLEAVED_RECURSION: u32 = 2;
/// Index in `fastpath_sync_stats.inflations`: more objects held than the lock-stack has entries.
pub const FASTPATH_INFLATE_LOCK_STACK_OVERFLOW: u32 = 3;
/// Index in `fastpath_sync_stats.inflations`: a release in an order the lock-stack (or a legacy owner record) cannot express.
pub const FASTPATH_INFLATE_UNSTRUCTURED_EXIT: u32 = 4;
/// Index in `fastpath_sync_stats.inflations`: a notify on an object that already has a monitor (an event, not an installation).
pub const FASTPATH_INFLATE_NOTIFY: u32 = 5;
/// Index in `fastpath_sync_stats.inflations`: a lock taken in monitor-only mode.
pub const FASTPATH_INFLATE_MONITOR_MODE: u32 = 6;
/// Index in `fastpath_sync_stats.inflations`: a thread exited holding the object through a live guard (the lock is kept on a monitor).
pub const FASTPATH_INFLATE_THREAD_EXIT: u32 = 7;
/// Index in `fastpath_sync_stats.inflations`: the identity hash of an object another thread stack-locked, or that its record cannot give (legacy mode).
pub const FASTPATH_INFLATE_IDENTITY_HASH: u32 = 8;
// Each index names the library's cause at that place.
const _: () = {
    assert!(matches!(
        InflateCause::ALL[FASTPATH_INFLATE_CONTENTION as usize],
        InflateCause::Contention
    ));
    assert!(matches!(
        InflateCause::ALL[FASTPATH_INFLATE_WAIT as usize],
        InflateCause::Wait
    ));
    assert!(matches!(
        InflateCause::ALL[FASTPATH_INFLATE_INTERLEAVED_RECURSION as usize],
        InflateCause::InterleavedRecursion
    ));
    assert!(matches!(
        InflateCause::ALL[FASTPATH_INFLATE_LOCK_STACK_OVERFLOW as usize],
        InflateCause::LockStackOverflow
    ));
    assert!(matches!(
        InflateCause::ALL[FASTPATH_INFLATE_UNSTRUCTURED_EXIT as usize],
        InflateCause::UnstructuredExit
    ));
    assert!(matches!(
        InflateCause::ALL[FASTPATH_INFLATE_NOTIFY as usize],
        InflateCause::Notify
    ));
    assert!(matches!(
        InflateCause::ALL[FASTPATH_INFLATE_MONITOR_MODE as usize],
        InflateCause::MonitorMode
    ));
    assert!(matches!(
        InflateCause::ALL[FASTPATH_INFLATE_THREAD_EXIT as usize],
        InflateCause::ThreadExit
    ));
    assert!(matches!(
        InflateCause::ALL[FASTPATH_INFLATE_IDENTITY_HASH as usize],
        InflateCause::IdentityHash
    ));
};

/// Monitor statistics (`fastpath_sync_get_stats`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct fastpath_sync_stats {
    /// Monitors installed, per cause: index `FASTPATH_INFLATE_CONTENTION`
    /// and the other `FASTPATH_INFLATE_*` constants;
    /// `fastpath_inflate_cause_name(i)` names cause `i`.
    pub inflations: [u64; FASTPATH_INFLATE_CAUSES],
    /// Monitors freed (with their object's header).
    pub monitors_freed: u64,
    /// Locks released because their thread exited holding them.
    pub released_at_thread_exit: u64,
    /// Monitors deflated (and freed) by async deflation.
    pub monitors_deflated: u64,
    /// Deflation passes run (by the deflation thread or on request).
    pub deflation_passes: u64,
    /// Time spent in deflation passes, grace periods included, in ns.
    pub deflation_nanos: u64,
    /// Monitors installed and not yet freed, process-wide.
    pub live_monitors: u64,
}

/// A handle on a thread known to fastpath (for interrupting it from
/// another thread). Opaque; from `fastpath_thread_current`, released with
/// `fastpath_thread_release`. It stays valid after its thread exits.
#[allow(non_camel_case_types)]
pub struct fastpath_thread(SyncThread);

/// The checked header behind `h`. The returned lifetime is the caller's
/// promise (the function contract): the header was initialised and stays
/// at its address for the duration of the call.
#[inline(always)]
pub(crate) fn header<'a>(h: *const fastpath_header) -> Result<Pin<&'a Header>, fastpath_status> {
    aligned::<_, Header>(h, "the header")?;
    // SAFETY: non-NULL and aligned (checked), same size as `Header`
    // (asserted above); the caller's contract: it was initialised by
    // `fastpath_header_init` and not destroyed. `Pin`: the contract forbids
    // moving a locked or inflated header, which is what `Pin` promises to
    // the lock-stack and the monitor.
    Ok(unsafe { Pin::new_unchecked(&*h.cast::<Header>()) })
}

pub(crate) fn sync_status(e: SyncError) -> fastpath_status {
    let status = match e {
        SyncError::IllegalMonitorState | SyncError::AlreadyHeld => FASTPATH_ERR_ILLEGAL_MONITOR_STATE,
        SyncError::Interrupted => FASTPATH_ERR_INTERRUPTED,
        SyncError::TimedOut => FASTPATH_ERR_TIMED_OUT,
        SyncError::WouldBlock => FASTPATH_ERR_BUSY,
    };
    fail(status, e)
}

fn init_header(h: *mut fastpath_header, value: Header) -> Result<(), fastpath_status> {
    aligned::<_, Header>(h, "the header")?;
    // SAFETY: non-NULL, aligned, one word (asserted); the caller's contract:
    // writable and not an initialised header in use (that would be a
    // re-initialisation of a live lock).
    unsafe { h.cast::<Header>().write(value) };
    Ok(())
}

/// Initialises the header at `h`: unlocked, no hash, spare bits 0.
///
/// `h` must be writable and not a live header (destroy it first).
/// Thread-safe with respect to other headers; nobody else may use `h` yet.
#[no_mangle]
pub extern "C" fn fastpath_header_init(h: *mut fastpath_header) -> fastpath_status {
    ffi(|| init_header(h, Header::new()))
}

/// Initialises the header at `h` with the spare bits `spare`
/// (`& FASTPATH_HEADER_SPARE_MASK`), which the runtime owns (HotSpot keeps a
/// GC age there). As `fastpath_header_init` otherwise.
#[no_mangle]
pub extern "C" fn fastpath_header_init_with_spare_bits(
    h: *mut fastpath_header,
    spare: usize,
) -> fastpath_status {
    ffi(|| init_header(h, Header::with_spare_bits(spare)))
}

/// Ends the header's life: frees its monitor if it has one. Call it before
/// freeing an object that may have been locked. The calling thread may hold
/// the lock (it is then dropped); another thread holding it is
/// `FASTPATH_ERR_BUSY` (nothing changes) when visible from the header
/// (fast-locked). Another thread's hold on an *inflated* header is a caller
/// bug fastpath cannot always see: the monitor is then left allocated (the
/// holder's exit still releases it), or, if that thread still has the
/// object on its lock-stack, the process stops, as Rust does, rather than
/// leave it a dangling lock.
/// After `FASTPATH_OK` the word may be reused or re-initialised.
#[no_mangle]
pub extern "C" fn fastpath_header_destroy(h: *mut fastpath_header) -> fastpath_status {
    ffi(|| {
        let pinned = header(h)?;
        if pinned.lock_state() == LockState::FastLocked && !sync::holds_lock(&pinned) {
            return Err(fail(
                FASTPATH_ERR_BUSY,
                "another thread holds the header being destroyed",
            ));
        }
        // SAFETY: checked and initialised (see `header`); the caller's
        // contract: no other thread uses the object any more, so running
        // `Header`'s destructor in place (what Rust does when the pinned
        // object is dropped) is the end of its life.
        unsafe { core::ptr::drop_in_place(h.cast::<Header>()) };
        Ok(())
    })
}

/// The header's lock state now (a snapshot, for diagnostics).
#[no_mangle]
pub extern "C" fn fastpath_header_lock_state(
    h: *const fastpath_header,
    out: *mut fastpath_lock_state,
) -> fastpath_status {
    ffi(|| {
        let state = match header(h)?.lock_state() {
            LockState::Unlocked => fastpath_lock_state::FASTPATH_UNLOCKED,
            LockState::FastLocked => fastpath_lock_state::FASTPATH_FAST_LOCKED,
            LockState::Inflated => fastpath_lock_state::FASTPATH_INFLATED,
            LockState::GcReserved => fastpath_lock_state::FASTPATH_GC_RESERVED,
        };
        put(out, state)
    })
}

/// `monitorenter`: acquires the object for the calling thread, blocking
/// while another thread holds it; reentrant. Pair every enter with a
/// `fastpath_monitor_exit` on the same thread (in any order: unstructured
/// locking works).
///
/// The common case is a leaf: the argument checks and the library's
/// inline fast path (`sync::try_enter_fast_on`), with no call and no
/// register saved; anything else (a bad argument, registration,
/// contention, an inflated object, a panic turned into a status) is one
/// tail call to the full path. The same holds for the other monitor
/// enters and exits below.
///
/// A caller on the lock path takes the inline pair instead
/// (`fastpath_monitor_enter_inline`, at the end of this header): the same
/// result with the uncontended case in the caller's code, no call.
/// Linking, for a caller of this function: the pair costs the most through
/// `libfastpath.so` called from the main program. Measured on an AMD Zen 3
/// guest (BENCHMARKS.md, "The C ABI"; `crates/fastpath-capi/bench/enter_exit.sh`),
/// the best of 31 rounds of an uncontended pair: `libfastpath.a` 5.2-5.5 ns;
/// the `.so` through PLT stubs 6.8 ns (explicit block 7.1 ns); the `.so`
/// with the caller compiled `-fno-plt` (calls through the GOT, no stub)
/// 6.2-6.5 ns (6.5-6.8 ns); `-Wl,-z,now` alone changes nothing (the stub
/// stays). Most of the `.so`'s rest is the distance between the caller and
/// the library: the same loop inside a shared object mapped beside
/// `libfastpath.so` takes 5.9 ns through its PLT. So: link
/// `libfastpath.a` where the lock path matters, else compile the callers
/// with `-fno-plt` (`pkg-config --variable=lockpath_cflags fastpath`).
/// `__attribute__((visibility))` does not apply to a call into another
/// module. On the Intel Xeon guest the `.so` pair was 1.04-1.07 × the
/// Rust pair with the PLT.
#[no_mangle]
pub extern "C" fn fastpath_monitor_enter(h: *mut fastpath_header) -> fastpath_status {
    let Some(obj) = header_fast(h) else {
        return monitor_enter_full(h);
    };
    let Some(thread) = block_cache::cached() else {
        return monitor_enter_full(h);
    };
    if sync::try_enter_fast_on(thread, obj) {
        return FASTPATH_OK;
    }
    monitor_enter_full(h)
}

/// `fastpath_monitor_enter` past its inline fast path (caching the block
/// for the next call). `extern "C"`: it cannot unwind (a panic inside it
/// aborts, after `ffi` has caught every one it can), so the fast path
/// tail-calls it with no landing pad.
#[cold]
#[inline(never)]
extern "C" fn monitor_enter_full(h: *mut fastpath_header) -> fastpath_status {
    block_cache::fill();
    ffi(|| {
        sync::enter(header(h)?);
        Ok(())
    })
}

/// `monitorexit`: releases one level. `FASTPATH_ERR_ILLEGAL_MONITOR_STATE`
/// (nothing changes) if the calling thread does not hold it.
#[no_mangle]
pub extern "C" fn fastpath_monitor_exit(h: *mut fastpath_header) -> fastpath_status {
    let Some(obj) = header_fast(h) else {
        return monitor_exit_full(h);
    };
    let Some(thread) = block_cache::cached() else {
        return monitor_exit_full(h);
    };
    if sync::try_exit_fast_on(thread, obj) {
        return FASTPATH_OK;
    }
    monitor_exit_full(h)
}

/// `fastpath_monitor_exit` past its inline fast path (as
/// [`monitor_enter_full`]).
#[cold]
#[inline(never)]
extern "C" fn monitor_exit_full(h: *mut fastpath_header) -> fastpath_status {
    block_cache::fill();
    ffi(|| sync::exit(header(h)?).map_err(sync_status))
}

/// The header behind `h` if it is non-NULL and aligned, for the fast
/// paths; `None` leaves the reporting of a bad one to [`header`].
#[inline(always)]
fn header_fast<'a>(h: *const fastpath_header) -> Option<Pin<&'a Header>> {
    if (h as usize) % core::mem::align_of::<Header>() != 0 || h.is_null() {
        return None;
    }
    // SAFETY: as in `header` (the same checks, made above).
    Some(unsafe { Pin::new_unchecked(&*h.cast::<Header>()) })
}

/// The block behind `t` if it is non-NULL and aligned, for the fast paths;
/// `None` leaves the reporting of a bad one to [`block`].
#[inline(always)]
fn block_fast<'a>(t: *const fastpath_block) -> Option<&'a fastpath_core::thread::ThreadBlock> {
    if (t as usize) % core::mem::align_of::<fastpath_core::thread::ThreadBlock>() != 0 || t.is_null() {
        return None;
    }
    // SAFETY: as in `block` (the same checks, made above).
    Some(unsafe { &*t.cast::<fastpath_core::thread::ThreadBlock>() })
}

/// The calling thread's block (`fastpath::thread::ThreadBlock`): every fast
/// path's per-thread state, at an address fixed for the thread's life.
/// Opaque to C except through the `FASTPATH_THREAD_*_OFFSET` constants,
/// which generated code uses with the block in its thread register.
#[allow(non_camel_case_types)]
#[repr(C)]
pub struct fastpath_block {
    _opaque: [u8; 0],
}

/// The thread block layout these offsets describe; check it against
/// `fastpath_thread_layout_version()` at start.
pub const FASTPATH_THREAD_LAYOUT_VERSION: u32 = 4;
/// Lock-stack top (`uint32_t`): the byte offset, from the block, of the
/// next free entry.
pub const FASTPATH_THREAD_LOCK_STACK_TOP_OFFSET: usize = 0;
/// GC-state byte copy (`uint8_t`).
pub const FASTPATH_THREAD_GC_STATE_OFFSET: usize = 4;
/// Locking-mode byte (slow paths only).
pub const FASTPATH_THREAD_LOCKING_MODE_OFFSET: usize = 5;
/// Safepoint poll word (`uintptr_t`).
pub const FASTPATH_THREAD_POLL_WORD_OFFSET: usize = 8;
/// Owner id monitors record (`uintptr_t`).
pub const FASTPATH_THREAD_OWNER_ID_OFFSET: usize = 16;
/// The inline inflated paths' thread-state pointer (NULL: slow path).
pub const FASTPATH_THREAD_SYNC_STATE_OFFSET: usize = 24;
/// The critical-section word pointer.
pub const FASTPATH_THREAD_CRITICAL_OFFSET: usize = 32;
/// SATB queue index (`uintptr_t`).
pub const FASTPATH_THREAD_SATB_INDEX_OFFSET: usize = 40;
/// SATB queue buffer pointer.
pub const FASTPATH_THREAD_SATB_BUFFER_OFFSET: usize = 48;
/// Card table base pointer.
pub const FASTPATH_THREAD_CARD_TABLE_BASE_OFFSET: usize = 56;
/// TLAB top (`uintptr_t`).
pub const FASTPATH_THREAD_TLAB_TOP_OFFSET: usize = 64;
/// TLAB end (`uintptr_t`).
pub const FASTPATH_THREAD_TLAB_END_OFFSET: usize = 72;
/// The sentinel word (always 0) just below the lock-stack entries.
pub const FASTPATH_THREAD_LOCK_STACK_SENTINEL_OFFSET: usize = 80;
/// First lock-stack entry: the top of an empty lock-stack.
pub const FASTPATH_THREAD_LOCK_STACK_OFFSET: usize = 88;
/// One past the last entry: the top of a full lock-stack.
pub const FASTPATH_THREAD_LOCK_STACK_END_OFFSET: usize = 152;
/// Lock-stack top of a thread that does not run lightweight locking: above
/// the end, its low byte the empty lock-stack's top (an exit may load the
/// low byte alone and find the sentinel on top).
pub const FASTPATH_THREAD_LOCK_STACK_INACTIVE: u32 = 0xffff_ff58;
/// The last object whose guessed header missed (`uintptr_t`, the
/// header's address or 0; the library's to write): the inline pair leaves
/// that object to the called path, which loads its header.
pub const FASTPATH_THREAD_GUESS_MISSED_OFFSET: usize = 152;
/// The runtime's context word (`uintptr_t`, 0 until the runtime writes
/// it; the library never touches it): where a runtime keeps the address
/// of its own per-thread state, so that generated code holding the block
/// in its thread register reaches that state with one load.
pub const FASTPATH_THREAD_RUNTIME_CONTEXT_OFFSET: usize = 160;

const _: () = {
    use fastpath_core::thread as t;
    assert!(FASTPATH_THREAD_LAYOUT_VERSION == t::LAYOUT_VERSION);
    assert!(FASTPATH_THREAD_LOCK_STACK_TOP_OFFSET == t::LOCK_STACK_TOP_OFFSET);
    assert!(FASTPATH_THREAD_GC_STATE_OFFSET == t::GC_STATE_OFFSET);
    assert!(FASTPATH_THREAD_LOCKING_MODE_OFFSET == t::LOCKING_MODE_OFFSET);
    assert!(FASTPATH_THREAD_POLL_WORD_OFFSET == t::POLL_WORD_OFFSET);
    assert!(FASTPATH_THREAD_OWNER_ID_OFFSET == t::OWNER_ID_OFFSET);
    assert!(FASTPATH_THREAD_SYNC_STATE_OFFSET == t::SYNC_STATE_OFFSET);
    assert!(FASTPATH_THREAD_CRITICAL_OFFSET == t::CRITICAL_OFFSET);
    assert!(FASTPATH_THREAD_SATB_INDEX_OFFSET == t::SATB_INDEX_OFFSET);
    assert!(FASTPATH_THREAD_SATB_BUFFER_OFFSET == t::SATB_BUFFER_OFFSET);
    assert!(FASTPATH_THREAD_CARD_TABLE_BASE_OFFSET == t::CARD_TABLE_BASE_OFFSET);
    assert!(FASTPATH_THREAD_TLAB_TOP_OFFSET == t::TLAB_TOP_OFFSET);
    assert!(FASTPATH_THREAD_TLAB_END_OFFSET == t::TLAB_END_OFFSET);
    assert!(FASTPATH_THREAD_LOCK_STACK_SENTINEL_OFFSET == t::LOCK_STACK_SENTINEL_OFFSET);
    assert!(FASTPATH_THREAD_LOCK_STACK_OFFSET == t::LOCK_STACK_OFFSET);
    assert!(FASTPATH_THREAD_LOCK_STACK_END_OFFSET == t::LOCK_STACK_END_OFFSET);
    assert!(FASTPATH_THREAD_LOCK_STACK_INACTIVE == t::LOCK_STACK_INACTIVE);
    assert!(FASTPATH_THREAD_GUESS_MISSED_OFFSET == t::GUESS_MISSED_OFFSET);
    assert!(FASTPATH_THREAD_RUNTIME_CONTEXT_OFFSET == t::RUNTIME_CONTEXT_OFFSET);
};

/// The layout version of the library's thread block; a consumer compiled
/// against `FASTPATH_THREAD_LAYOUT_VERSION` refuses to run on another.
#[no_mangle]
pub extern "C" fn fastpath_thread_layout_version() -> u32 {
    fastpath_core::thread::layout_version()
}

/// The calling thread's block (never NULL): load it once (it is fixed for
/// the thread's life) and pass it to the `_on` functions, which then make
/// no thread-local access (no `__tls_get_addr` inside `libfastpath.so`).
/// It belongs to the calling thread: passing it to a function called on
/// another thread is the caller's error, which C cannot check.
#[no_mangle]
pub extern "C" fn fastpath_thread_block() -> *mut fastpath_block {
    fastpath_core::thread::current().as_ptr().cast_mut().cast()
}

/// The block behind `t`: non-NULL and aligned (checked); the caller's
/// contract: `fastpath_thread_block()` returned it on the calling thread.
#[inline(always)]
fn block<'a>(t: *const fastpath_block) -> Result<&'a fastpath_core::thread::ThreadBlock, fastpath_status> {
    aligned::<_, fastpath_core::thread::ThreadBlock>(t, "the thread block")?;
    // SAFETY: non-NULL, aligned (checked); by the contract it is the
    // calling thread's block, which lives as long as the thread.
    Ok(unsafe { &*t.cast::<fastpath_core::thread::ThreadBlock>() })
}

/// `fastpath_monitor_enter` with the calling thread's block `t` passed in
/// (from `fastpath_thread_block()` on this thread).
#[no_mangle]
pub extern "C" fn fastpath_monitor_enter_on(
    t: *mut fastpath_block,
    h: *mut fastpath_header,
) -> fastpath_status {
    let (Some(thread), Some(obj)) = (block_fast(t), header_fast(h)) else {
        return monitor_enter_on_full(t, h);
    };
    if sync::try_enter_fast_on(thread, obj) {
        return FASTPATH_OK;
    }
    monitor_enter_on_full(t, h)
}

/// `fastpath_monitor_enter_on` past its inline fast path (`extern "C"`:
/// as [`monitor_enter_full`]).
#[cold]
#[inline(never)]
extern "C" fn monitor_enter_on_full(t: *mut fastpath_block, h: *mut fastpath_header) -> fastpath_status {
    ffi(|| {
        sync::enter_on(block(t)?, header(h)?);
        Ok(())
    })
}

/// `fastpath_monitor_exit` with the calling thread's block `t` passed in.
#[no_mangle]
pub extern "C" fn fastpath_monitor_exit_on(
    t: *mut fastpath_block,
    h: *mut fastpath_header,
) -> fastpath_status {
    let (Some(thread), Some(obj)) = (block_fast(t), header_fast(h)) else {
        return monitor_exit_on_full(t, h);
    };
    if sync::try_exit_fast_on(thread, obj) {
        return FASTPATH_OK;
    }
    monitor_exit_on_full(t, h)
}

/// `fastpath_monitor_exit_on` past its inline fast path (`extern "C"`:
/// as [`monitor_enter_full`]).
#[cold]
#[inline(never)]
extern "C" fn monitor_exit_on_full(t: *mut fastpath_block, h: *mut fastpath_header) -> fastpath_status {
    ffi(|| sync::exit_on(block(t)?, header(h)?).map_err(sync_status))
}

/// Acquires the object if that needs no waiting: `FASTPATH_OK` if it was
/// unlocked (inflated or not) or already held by the caller (one more
/// level), else `FASTPATH_ERR_BUSY`. Never blocks on the owner: one attempt
/// (`fastpath::sync::try_enter`), in every locking mode. Release it with
/// `fastpath_monitor_exit`.
#[no_mangle]
pub extern "C" fn fastpath_monitor_try_enter(h: *mut fastpath_header) -> fastpath_status {
    ffi(|| {
        if sync::try_enter(header(h)?) {
            Ok(())
        } else {
            Err(FASTPATH_ERR_BUSY)
        }
    })
}

/// `Object.wait`: releases the lock fully, waits for a notify, an
/// interrupt or `timeout_ns` nanoseconds (`FASTPATH_WAIT_FOREVER`: no
/// limit; other negative values are `FASTPATH_ERR_INVALID_ARGUMENT`), then
/// re-acquires the lock at the same depth before returning, whatever the
/// result: `FASTPATH_OK` (notified), `FASTPATH_ERR_TIMED_OUT`,
/// `FASTPATH_ERR_INTERRUPTED` (the interrupt status is cleared), or
/// `FASTPATH_ERR_ILLEGAL_MONITOR_STATE` if the caller does not hold it.
/// Wake-ups can be spurious: wait in a loop on the condition.
#[no_mangle]
pub extern "C" fn fastpath_monitor_wait(h: *mut fastpath_header, timeout_ns: i64) -> fastpath_status {
    ffi(|| {
        let obj = header(h)?;
        let timeout = match timeout_ns {
            FASTPATH_WAIT_FOREVER => None,
            ns if ns >= 0 => Some(Duration::from_nanos(ns as u64)),
            ns => {
                return Err(fail(
                    FASTPATH_ERR_INVALID_ARGUMENT,
                    format_args!("timeout {ns} ns"),
                ))
            }
        };
        sync::wait(obj, timeout).map_err(sync_status)
    })
}

/// `Object.notify`: moves one waiter (if any) towards re-acquiring the lock
/// after the caller releases it. `*woken` (optional) gets the number moved,
/// 0 or 1. The caller must hold the object.
#[no_mangle]
pub extern "C" fn fastpath_monitor_notify(h: *mut fastpath_header, woken: *mut usize) -> fastpath_status {
    ffi(|| {
        let n = sync::notify(header(h)?).map_err(sync_status)?;
        put_opt(woken, n);
        Ok(())
    })
}

/// `Object.notifyAll`: as `fastpath_monitor_notify`, for every waiter.
#[no_mangle]
pub extern "C" fn fastpath_monitor_notify_all(h: *mut fastpath_header, woken: *mut usize) -> fastpath_status {
    ffi(|| {
        let n = sync::notify_all(header(h)?).map_err(sync_status)?;
        put_opt(woken, n);
        Ok(())
    })
}

/// The object's identity hash: 31 bits, never 0, stable for the header's
/// life (assigned on first request, locked or not).
#[no_mangle]
pub extern "C" fn fastpath_identity_hash(h: *const fastpath_header, out: *mut u32) -> fastpath_status {
    ffi(|| put(out, sync::identity_hash(header(h)?.get_ref())))
}

/// `Thread.holdsLock`: whether the calling thread holds the object.
#[no_mangle]
pub extern "C" fn fastpath_holds_lock(h: *const fastpath_header, out: *mut bool) -> fastpath_status {
    ffi(|| put(out, sync::holds_lock(header(h)?.get_ref())))
}

/// Attaches the calling thread now rather than at its first lock (so that
/// its first lock does not pay for the registration). Idempotent. Its
/// locks are released when the thread exits.
#[no_mangle]
pub extern "C" fn fastpath_thread_attach() -> fastpath_status {
    ffi(|| {
        drop(sync::current_sync_thread());
        Ok(())
    })
}

/// Detaches the calling thread, as JNI's `DetachCurrentThread`: every lock
/// it still holds through `fastpath_monitor_enter` (fast-locked, recursive or
/// inflated) is released and its waiters woken, as its exit would do. Locks
/// taken with a `fastpath_lock_record` stay held: the record is the caller's
/// frame state, and the caller exits them. The thread stays usable (a later
/// lock attaches it again); an exit of a lock that detach released returns
/// `FASTPATH_ERR_ILLEGAL_MONITOR_STATE` and changes nothing.
#[no_mangle]
pub extern "C" fn fastpath_thread_detach() -> fastpath_status {
    ffi(|| {
        sync::release_held_locks_of_current_thread();
        Ok(())
    })
}

/// A handle on the calling thread (attaching it), for
/// `fastpath_thread_interrupt` from other threads. Release it with
/// `fastpath_thread_release`.
#[no_mangle]
pub extern "C" fn fastpath_thread_current(out: *mut *mut fastpath_thread) -> fastpath_status {
    ffi(|| {
        put(
            out,
            Box::into_raw(Box::new(fastpath_thread(sync::current_sync_thread()))),
        )
    })
}

/// Releases a handle from `fastpath_thread_current` (NULL: nothing). Any
/// thread; the handle must not be used again.
#[no_mangle]
pub extern "C" fn fastpath_thread_release(t: *mut fastpath_thread) -> fastpath_status {
    ffi(|| {
        if !t.is_null() {
            // SAFETY: the caller's contract: `t` came from
            // `fastpath_thread_current` (a `Box`) and is released once.
            drop(unsafe { Box::from_raw(t) });
        }
        Ok(())
    })
}

fn thread<'a>(t: *const fastpath_thread) -> Result<&'a SyncThread, fastpath_status> {
    aligned::<_, fastpath_thread>(t, "the thread handle")?;
    // SAFETY: the caller's contract: a live handle from
    // `fastpath_thread_current`; handles are `Sync` (an `Arc`).
    Ok(unsafe { &(*t).0 })
}

/// The thread's id as a monitor owner (unique in the process, never reused).
#[no_mangle]
pub extern "C" fn fastpath_thread_id(t: *const fastpath_thread, out: *mut u64) -> fastpath_status {
    ffi(|| put(out, thread(t)?.id() as u64))
}

/// `Thread.interrupt`: sets the thread's interrupt status; a
/// `fastpath_monitor_wait` it is in (or its next one) returns
/// `FASTPATH_ERR_INTERRUPTED`. Any thread may call it.
#[no_mangle]
pub extern "C" fn fastpath_thread_interrupt(t: *const fastpath_thread) -> fastpath_status {
    ffi(|| {
        sync::interrupt(thread(t)?);
        Ok(())
    })
}

/// Whether the thread's interrupt status is set (it stays set).
#[no_mangle]
pub extern "C" fn fastpath_thread_is_interrupted(
    t: *const fastpath_thread,
    out: *mut bool,
) -> fastpath_status {
    ffi(|| put(out, thread(t)?.is_interrupted()))
}

/// `Thread.interrupted()`: the calling thread's interrupt status, cleared.
#[no_mangle]
pub extern "C" fn fastpath_interrupted(out: *mut bool) -> fastpath_status {
    ffi(|| put(out, sync::interrupted()))
}

/// The locking mode the calling thread runs.
#[no_mangle]
pub extern "C" fn fastpath_current_locking_mode(out: *mut fastpath_locking_mode) -> fastpath_status {
    ffi(|| put(out, sync::current_thread_locking_mode().into()))
}

/// Chooses the calling thread's locking mode (a `fastpath_locking_mode`
/// value; others are `FASTPATH_ERR_INVALID_ARGUMENT`).
/// `FASTPATH_ERR_ILLEGAL_MONITOR_STATE` if the thread holds fast-locks.
#[no_mangle]
pub extern "C" fn fastpath_set_thread_locking_mode(mode: i32) -> fastpath_status {
    ffi(|| {
        let mode = match mode {
            0 => LockingMode::Monitor,
            1 => LockingMode::Legacy,
            2 => LockingMode::Lightweight,
            m => {
                return Err(fail(
                    FASTPATH_ERR_INVALID_ARGUMENT,
                    format_args!("locking mode {m}"),
                ))
            }
        };
        sync::set_current_thread_locking_mode(mode).map_err(sync_status)
    })
}

fn stats_out(s: sync::SyncStats, out: *mut fastpath_sync_stats) -> Result<(), fastpath_status> {
    put(
        out,
        fastpath_sync_stats {
            inflations: s.inflations,
            monitors_freed: s.monitors_freed,
            released_at_thread_exit: s.released_at_thread_exit,
            monitors_deflated: s.monitors_deflated,
            deflation_passes: s.deflation_passes,
            deflation_nanos: s.deflation_nanos,
            live_monitors: sync::live_monitors() as u64,
        },
    )
}

/// Process-wide monitor statistics since start.
#[no_mangle]
pub extern "C" fn fastpath_sync_get_stats(out: *mut fastpath_sync_stats) -> fastpath_status {
    ffi(|| stats_out(sync::stats(), out))
}

/// The calling thread's share of the statistics (`live_monitors` is still
/// process-wide).
#[no_mangle]
pub extern "C" fn fastpath_thread_get_sync_stats(out: *mut fastpath_sync_stats) -> fastpath_status {
    ffi(|| stats_out(sync::thread_stats(), out))
}

/// The name of inflation cause `i` (index into
/// `fastpath_sync_stats.inflations`), static; NULL if `i` is out of range.
#[no_mangle]
pub extern "C" fn fastpath_inflate_cause_name(i: u32) -> *const c_char {
    const NAMES: [&core::ffi::CStr; FASTPATH_INFLATE_CAUSES] = [
        c"contention",
        c"wait",
        c"interleaved-recursion",
        c"lock-stack-overflow",
        c"unstructured-exit",
        c"notify-on-inflated",
        c"monitor-mode",
        c"kept-at-thread-exit",
        c"identity-hash",
    ];
    NAMES.get(i as usize).map_or(core::ptr::null(), |n| n.as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cause_names_match_the_library() {
        for (i, cause) in InflateCause::ALL.iter().enumerate() {
            // SAFETY: static NUL-terminated names.
            let name = unsafe { core::ffi::CStr::from_ptr(fastpath_inflate_cause_name(i as u32)) };
            assert_eq!(name.to_str(), Ok(cause.name()));
        }
        assert!(fastpath_inflate_cause_name(FASTPATH_INFLATE_CAUSES as u32).is_null());
    }

    #[test]
    fn an_initialised_header_is_the_rust_header() {
        let mut h = fastpath_header { opaque_word: 0 };
        assert_eq!(fastpath_header_init(&mut h), FASTPATH_OK);
        assert_eq!(h.opaque_word, Header::new().raw());
        assert_eq!(fastpath_monitor_enter(&mut h), FASTPATH_OK);
        let mut held = false;
        assert_eq!(fastpath_holds_lock(&h, &mut held), FASTPATH_OK);
        assert!(held);
        assert_eq!(fastpath_monitor_exit(&mut h), FASTPATH_OK);
        assert_eq!(fastpath_monitor_exit(&mut h), FASTPATH_ERR_ILLEGAL_MONITOR_STATE);
        assert_eq!(fastpath_header_destroy(&mut h), FASTPATH_OK);
    }
}
