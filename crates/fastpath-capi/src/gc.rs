//! The garbage-collected heap from C: a heap with a barrier set and a mode
//! chosen by name, one mutator per thread, allocation, reference and data
//! accesses through the barriers, a handle stack of roots, safepoints,
//! safe regions, object locks and collections (over `fastpath::gc`).
//! Objects are allocated untagged or with a runtime's tag in their layout
//! word (`fastpath_gc_alloc_tagged`, `fastpath_gc_tag`; a tag's counts are
//! the heap's, `fastpath_gc_define_tag`; the word's two forms are
//! `gc_layout.rs`'s).
//!
//! Where it sits: beside `sync.rs`. A C runtime cannot hold the Rust
//! library's `Obj` (a reference valid until the mutator's next safepoint,
//! which the borrow checker enforces), so every object crosses the boundary
//! as a *handle*: an entry of the mutator's handle stack, which the
//! collector updates when it moves the object. `fastpath_gc_handle` packs
//! the entry's index (low 32 bits) and a serial number (high 32 bits); this
//! file keeps, per mutator, a mirror of the stack with each entry's serial,
//! so a popped, never-issued or other mutator's handle is
//! `FASTPATH_ERR_DANGLING_HANDLE`, never a wild access. Handle 0
//! (`FASTPATH_GC_NULL`) is the null reference.
//!
//! The mutators bound here use the run-time barrier set (`gc::Dynamic`):
//! one C type for every set, at the cost of a test of the heap's set in
//! each barrier (Rust callers can monomorphise with `gc::Static`).
//!
//! Threads: a heap may be shared by any threads; a mutator belongs to the
//! thread that attached it, as a `fastpath_gc_lock` does to the thread that
//! took it (`fastpath_gc_object_lock`). Every other attached mutator must reach a safepoint for a pause
//! to run: a thread blocks outside fastpath (a join, a read) only inside
//! `fastpath_gc_safe_region`, or the collector (and any mutator waiting for
//! it) waits for it.

use core::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::Arc;

use std::sync::Mutex;

use fastpath_core::gc::{
    BarrierBits, Dynamic, GcError, GcMode, GlobalHandle, Handle, Heap, HeapConfig, Mutator, Obj, ObjLock,
};

use crate::config::unknown_name;
use crate::status::fastpath_status::{self, *};
use crate::status::{aligned, copy_out, fail, ffi, opt_str, put};

/// A reference to a heap object held in a mutator's handle stack (see
/// `fastpath_gc_alloc`); `FASTPATH_GC_NULL` is the null reference. Valid
/// on its mutator's thread until `fastpath_gc_roots_truncate` pops it; the
/// object it roots stays alive (and is updated when moved) meanwhile.
#[allow(non_camel_case_types)]
pub type fastpath_gc_handle = u64;

/// The null reference.
pub const FASTPATH_GC_NULL: fastpath_gc_handle = 0;

/// How to build a heap (`fastpath_gc_heap_new`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct fastpath_gc_heap_config {
    /// Heap size in bytes: a multiple (at least 4) of the region size.
    pub heap_bytes: usize,
    /// Region size in bytes, a power of two in 64 KiB..=32 MiB; 0: the heap
    /// size / 256, rounded up to a power of two and clamped to that range.
    pub region_bytes: usize,
    /// The barrier set, as `FASTPATH_GC_BARRIERS` spells it: a preset
    /// (`none`, `serial`, `g1`, `shenandoah-2017`, `shenandoah`) or a comma
    /// list of barriers (`satb,lrb,cas`). NULL: the process's
    /// `FASTPATH_GC_BARRIERS` (default `shenandoah`).
    pub barriers: *const c_char,
    /// `passive` (stop-the-world collections when allocation fails or on
    /// `fastpath_gc_collect`) or `concurrent` (a collector thread; needs a
    /// complete set). NULL: the process's `FASTPATH_GC_MODE` (default
    /// `passive`).
    pub mode: *const c_char,
    /// Concurrent mode: run cycles back to back, evacuating all it can
    /// (Shenandoah's aggressive heuristics, for tests).
    pub aggressive: bool,
    /// Run the heap verifier after every cycle (tests; see
    /// `fastpath_gc_stats.verify_errors`).
    pub verify: bool,
}

/// What the collector has done (`fastpath_gc_get_stats`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct fastpath_gc_stats {
    /// Completed cycles (concurrent) or collections (passive).
    pub cycles: u64,
    /// Pauses, all kinds.
    pub pauses: u64,
    /// The longest pause, request to release, in ns.
    pub max_pause_ns: u64,
    /// Objects copied by the collector.
    pub evacuated_by_collector: u64,
    /// Objects copied by mutators' barriers.
    pub evacuated_by_mutators: u64,
    /// Regions freed.
    pub regions_freed: u64,
    /// Verifier runs.
    pub verified_cycles: u64,
    /// Objects the verifier reached, summed over its runs.
    pub verified_objects: u64,
    /// Verifier failures (0 when every cycle verified).
    pub verify_errors: u64,
    /// Concurrent cycles finished stop-the-world because a mutator found
    /// no memory (Shenandoah's degenerated GC).
    pub degenerated_cycles: u64,
    /// Full compacting collections, the last resort before
    /// `FASTPATH_ERR_OUT_OF_MEMORY`.
    pub full_compactions: u64,
    /// Humongous objects (larger than a region) allocated.
    pub humongous_allocated: u64,
    /// Humongous objects found dead and their regions freed.
    pub humongous_reclaimed: u64,
    /// Collector worker threads (`FASTPATH_GC_WORKERS`).
    pub workers: u64,
    /// Collector phases run on more than one worker thread.
    pub parallel_phases: u64,
    /// The heap's soft capacity in bytes: what the collector keeps the
    /// mutators within (the whole heap unless the heap was built with an
    /// initial size, `fastpath_gc_heap_new_sized`; grown after collections
    /// that leave less than 40 % of it free).
    pub capacity_bytes: u64,
}

// The layout C sees: fields are appended, never moved, so a program built
// against an older header reads the fields it knows at their places.
const _: () = {
    assert!(core::mem::size_of::<fastpath_gc_stats>() == 16 * 8);
    assert!(core::mem::offset_of!(fastpath_gc_stats, verify_errors) == 8 * 8);
    assert!(core::mem::offset_of!(fastpath_gc_stats, degenerated_cycles) == 9 * 8);
    assert!(core::mem::offset_of!(fastpath_gc_stats, parallel_phases) == 14 * 8);
    assert!(core::mem::offset_of!(fastpath_gc_stats, capacity_bytes) == 15 * 8);
};

/// A garbage-collected heap. Opaque; from `fastpath_gc_heap_new`, freed by
/// `fastpath_gc_heap_free`. Any thread may use it.
#[allow(non_camel_case_types)]
pub struct fastpath_gc_heap {
    heap: Heap,
    /// Mutators attached and not yet detached: the heap refuses to be freed
    /// before they are gone (its drop would wait for them forever).
    attached: Arc<AtomicUsize>,
    /// The heap's global roots, by the index C holds.
    globals: Arc<Mutex<Vec<GlobalHandle>>>,
}

/// A thread's context on a heap. Opaque; from `fastpath_gc_mutator_attach`,
/// released by `fastpath_gc_mutator_detach`, used only by its thread.
#[allow(non_camel_case_types)]
pub struct fastpath_gc_mutator {
    m: Mutator<Dynamic>,
    /// The handle stack's mirror: entry `i` is the Rust handle at depth `i`
    /// and the serial its C handle carries.
    handles: Vec<(Handle, u32)>,
    attached: Arc<AtomicUsize>,
    globals: Arc<Mutex<Vec<GlobalHandle>>>,
}

/// A lock on a heap object (`fastpath_gc_lock`); released by
/// `fastpath_gc_unlock` on the thread that took it.
#[allow(non_camel_case_types)]
pub struct fastpath_gc_object_lock {
    /// Held for its drop, which unlocks and unpins.
    _lock: ObjLock,
}

fn gc_status(e: GcError) -> fastpath_status {
    let status = match &e {
        GcError::OutOfMemory { .. } => FASTPATH_ERR_OUT_OF_MEMORY,
        GcError::ObjectTooLarge { .. } => FASTPATH_ERR_OBJECT_TOO_LARGE,
        GcError::FieldOutOfRange { .. } => FASTPATH_ERR_FIELD_OUT_OF_RANGE,
        GcError::TaggedShape { .. } => FASTPATH_ERR_INVALID_ARGUMENT,
        // Every handle this file passes is one of the mutator's own (checked
        // against the mirror), so the library's foreign cases mean the same.
        GcError::DanglingHandle | GcError::ForeignHandle | GcError::ForeignObject => {
            FASTPATH_ERR_DANGLING_HANDLE
        }
        GcError::BarrierMismatch { .. }
        | GcError::RefWidthMismatch { .. }
        | GcError::Config(_)
        | GcError::BadSize(_) => FASTPATH_ERR_INVALID_ARGUMENT,
        // The system refused the heap's memory or the collector's thread.
        GcError::HeapMemory { .. } | GcError::CollectorThread(_) => FASTPATH_ERR_OS,
        // The collector panicked: a bug in fastpath, caught.
        GcError::Poisoned(_) => FASTPATH_ERR_PANIC,
        // The thread is another mutator's already, or exiting.
        GcError::ThreadHasMutator => FASTPATH_ERR_BUSY,
        GcError::ThreadExiting => FASTPATH_ERR_UNAVAILABLE,
    };
    fail(status, e)
}

fn heap<'a>(h: *const fastpath_gc_heap) -> Result<&'a fastpath_gc_heap, fastpath_status> {
    aligned::<_, fastpath_gc_heap>(h, "the heap")?;
    // SAFETY: the caller's contract: a live heap from `fastpath_gc_heap_new`;
    // shared use is fine (`Heap` is `Sync`).
    Ok(unsafe { &*h })
}

fn mutator<'a>(m: *mut fastpath_gc_mutator) -> Result<&'a mut fastpath_gc_mutator, fastpath_status> {
    aligned::<_, fastpath_gc_mutator>(m, "the mutator")?;
    // SAFETY: the caller's contract: a live mutator from
    // `fastpath_gc_mutator_attach`, used by its own thread only, and not
    // from inside its own safe-region callback, so this is the only
    // reference to it for the call.
    let m = unsafe { &mut *m };
    // Its state lives in its thread's block: from another thread, refuse.
    if !m.m.on_current_thread() {
        return Err(fail(
            FASTPATH_ERR_INVALID_ARGUMENT,
            "the mutator belongs to another thread",
        ));
    }
    Ok(m)
}

/// Serials of C handles, process-wide, never 0 (so that no handle is
/// `FASTPATH_GC_NULL`); a popped entry's serial is not reused for 2^32 - 1
/// handles.
fn next_serial() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    loop {
        // Relaxed: a unique number, it orders nothing.
        let s = NEXT.fetch_add(1, Ordering::Relaxed);
        if s != 0 {
            return s;
        }
    }
}

impl fastpath_gc_mutator {
    /// Records `h`, just pushed on the Rust handle stack, and returns its C
    /// handle.
    fn push(&mut self, h: Handle) -> fastpath_gc_handle {
        let serial = next_serial();
        self.handles.push((h, serial));
        debug_assert_eq!(self.handles.len(), self.m.roots_len());
        (self.handles.len() as u64 - 1) | (u64::from(serial) << 32)
    }

    /// The Rust handle behind a C one (`None`: null).
    fn handle(&self, h: fastpath_gc_handle) -> Result<Option<Handle>, fastpath_status> {
        if h == FASTPATH_GC_NULL {
            return Ok(None);
        }
        let (index, serial) = (h as u32 as usize, (h >> 32) as u32);
        match self.handles.get(index) {
            Some(&(rust, s)) if s == serial => Ok(Some(rust)),
            _ => Err(fail(
                FASTPATH_ERR_DANGLING_HANDLE,
                format_args!("handle {h:#x} is not a live handle of this mutator"),
            )),
        }
    }

    /// As `handle`, for an argument that must not be null.
    fn object(&self, h: fastpath_gc_handle, what: &str) -> Result<Handle, fastpath_status> {
        self.handle(h)?.ok_or_else(|| {
            fail(
                FASTPATH_ERR_INVALID_ARGUMENT,
                format_args!("{what} is the null handle"),
            )
        })
    }

    /// The object a non-null C handle roots, valid until the next safepoint.
    fn get(&self, h: fastpath_gc_handle, what: &str) -> Result<Obj<'_>, fastpath_status> {
        self.m.get(self.object(h, what)?).map_err(gc_status)
    }

    /// As `get`, null allowed.
    fn get_opt(&self, h: fastpath_gc_handle) -> Result<Option<Obj<'_>>, fastpath_status> {
        self.handle(h)?
            .map(|r| self.m.get(r))
            .transpose()
            .map_err(gc_status)
    }
}

/// Builds a heap from `*config`; in concurrent mode, starts its collector
/// thread. `*out` gets the heap. Refusals: an unknown barrier or mode name
/// is `FASTPATH_ERR_UNKNOWN_NAME` (the last error lists the accepted
/// names); a concurrent mode with an incomplete barrier set, or unusable
/// sizes, `FASTPATH_ERR_INVALID_ARGUMENT`. Any thread.
#[no_mangle]
pub extern "C" fn fastpath_gc_heap_new(
    config: *const fastpath_gc_heap_config,
    out: *mut *mut fastpath_gc_heap,
) -> fastpath_status {
    fastpath_gc_heap_new_sized(config, 0, out)
}

/// `fastpath_gc_heap_new` with an initial size: the heap's soft capacity
/// starts at `initial_bytes` (rounded up to whole regions; 0: the whole
/// heap, as `fastpath_gc_heap_new`; a capacity within the evacuation
/// reserve, `fastpath_gc_evacuation_reserve_bytes`, collects at every
/// refill until live data or the collector's time grows it), the part of
/// the heap the collector keeps the mutators within and grows after
/// collections that leave less than 40 % of it free, or when collecting takes more than 1/13 of the
/// mutators' time (the JVM's `-Xms`; `fastpath_gc_stats.capacity_bytes`
/// reports it). A heap whose live data is a few megabytes then reuses
/// the memory it touched instead of writing every page of the heap once
/// before its first collection. In passive mode an allocation collects
/// at the capacity; in concurrent mode cycles start by the free memory
/// within it, and allocation may pass it. `initial_bytes` past
/// `config->heap_bytes` is `FASTPATH_ERR_INVALID_ARGUMENT`; the other
/// refusals are `fastpath_gc_heap_new`'s. Any thread.
#[no_mangle]
pub extern "C" fn fastpath_gc_heap_new_sized(
    config: *const fastpath_gc_heap_config,
    initial_bytes: usize,
    out: *mut *mut fastpath_gc_heap,
) -> fastpath_status {
    ffi(|| {
        crate::status::out_ptr(out)?;
        let mut hc = heap_config(config)?;
        hc.initial_bytes = (initial_bytes != 0).then_some(initial_bytes);
        let heap = Heap::new(hc).map_err(gc_status)?;
        put(
            out,
            Box::into_raw(Box::new(fastpath_gc_heap {
                heap,
                attached: Arc::new(AtomicUsize::new(0)),
                globals: Arc::new(Mutex::new(Vec::new())),
            })),
        )
    })
}

/// The library's configuration of a heap from `*config` (checked: non-NULL,
/// aligned, known names).
fn heap_config(config: *const fastpath_gc_heap_config) -> Result<HeapConfig, fastpath_status> {
    aligned::<_, fastpath_gc_heap_config>(config, "the heap configuration")?;
    // SAFETY: non-NULL and aligned (checked); the caller's contract: a
    // readable configuration. Copied out; its strings are read below.
    let c = unsafe { config.read() };
    // NULL names: the process's settings (FASTPATH_GC_BARRIERS,
    // FASTPATH_GC_MODE, or what fastpath_config_* installed).
    let mut hc = HeapConfig::from_config(c.heap_bytes);
    if let Some(s) = opt_str(c.barriers, "the barrier set")? {
        hc.barriers = s.parse::<BarrierBits>().map_err(unknown_name)?;
    }
    if let Some(s) = opt_str(c.mode, "the GC mode")? {
        hc.mode = s.parse::<GcMode>().map_err(unknown_name)?;
    }
    if c.region_bytes != 0 {
        hc.region_bytes = c.region_bytes;
    }
    hc.aggressive = c.aggressive;
    hc.verify = c.verify;
    Ok(hc)
}

/// `*out` gets the bytes of the evacuation reserve a heap built from
/// `*config` keeps: free regions that allocation leaves to the collector's
/// copies (a 16th of the regions, at least two; Shenandoah's
/// `ShenandoahEvacReserve`). They count within the soft capacity of
/// `fastpath_gc_heap_new_sized` but are written only by evacuation, so an
/// initial size of the reserve plus `n` lets the mutators allocate about
/// `n` bytes before the first collection. Sizes that
/// `fastpath_gc_heap_new` would refuse are `FASTPATH_ERR_INVALID_ARGUMENT`;
/// its name refusals too. Any thread.
#[no_mangle]
pub extern "C" fn fastpath_gc_evacuation_reserve_bytes(
    config: *const fastpath_gc_heap_config,
    out: *mut usize,
) -> fastpath_status {
    ffi(|| {
        crate::status::out_ptr(out)?;
        let hc = heap_config(config)?;
        hc.validate().map_err(gc_status)?;
        put(out, hc.evacuation_reserve_bytes())
    })
}

/// Frees a heap (NULL: nothing), stopping its collector thread; every
/// object in it is gone. `FASTPATH_ERR_BUSY` (nothing changes) while a
/// mutator is attached: detach them all first. A `fastpath_gc_lock` still
/// (`fastpath_gc_object_lock`) held keeps the heap's memory alive until it is unlocked. Any thread; the
/// heap must not be used again.
#[no_mangle]
pub extern "C" fn fastpath_gc_heap_free(h: *mut fastpath_gc_heap) -> fastpath_status {
    ffi(|| {
        if h.is_null() {
            return Ok(());
        }
        // Acquire: pairs with the Release of a detach on another thread, so
        // that its mutator's teardown is complete before the heap goes.
        let attached = heap(h)?.attached.load(Ordering::Acquire);
        if attached != 0 {
            return Err(fail(
                FASTPATH_ERR_BUSY,
                format_args!("{attached} mutator(s) still attached"),
            ));
        }
        // SAFETY: from `fastpath_gc_heap_new` (a `Box`), freed once (the
        // caller's contract), no mutator left to use it.
        drop(unsafe { Box::from_raw(h) });
        Ok(())
    })
}

/// The heap's collector statistics now. Any thread.
#[no_mangle]
pub extern "C" fn fastpath_gc_get_stats(
    h: *const fastpath_gc_heap,
    out: *mut fastpath_gc_stats,
) -> fastpath_status {
    ffi(|| {
        let heap = &heap(h)?.heap;
        let s = heap.stats();
        let ns = |d: std::time::Duration| d.as_nanos().min(u64::MAX as u128) as u64;
        put(
            out,
            fastpath_gc_stats {
                cycles: s.cycles,
                pauses: s.pauses.len() as u64,
                max_pause_ns: s.pauses.iter().map(|p| ns(p.duration)).max().unwrap_or(0),
                evacuated_by_collector: s.evacuated_by_collector,
                evacuated_by_mutators: s.evacuated_by_mutators,
                regions_freed: s.regions_freed,
                verified_cycles: s.verified_cycles,
                verified_objects: s.verified_objects,
                verify_errors: s.verify_errors.len() as u64,
                degenerated_cycles: s.degenerated_cycles,
                full_compactions: s.full_compactions,
                humongous_allocated: s.humongous_allocated,
                humongous_reclaimed: s.humongous_reclaimed,
                workers: s.workers as u64,
                parallel_phases: s.parallel_phases,
                capacity_bytes: heap.capacity_bytes() as u64,
            },
        )
    })
}

/// The heap's barrier set as text (the preset's name, or the comma list),
/// into `buf` (capacity `cap`, NUL included; `*needed`, optional, gets the
/// size; `FASTPATH_ERR_BUFFER_TOO_SMALL` if it does not fit). Any thread.
#[no_mangle]
pub extern "C" fn fastpath_gc_barriers(
    h: *const fastpath_gc_heap,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> fastpath_status {
    ffi(|| copy_out(&heap(h)?.heap.config().barriers.to_string(), buf, cap, needed))
}

/// The heap's cell format into `*format`: `FASTPATH_GC_CELL_FORMAT_BROOKS`
/// (objects carry the forwarding word at `FASTPATH_GC_FORWARDING_OFFSET`)
/// or `FASTPATH_GC_CELL_FORMAT_COMPACT` (none; a copy recorded in the
/// original's layout word), fixed when the heap is made: the barrier set's
/// own unless `FASTPATH_GC_CELL_FORMAT` chose `brooks` (any set) or
/// `compact`. A C JIT that resolves copies or initialises objects inline
/// compiles against it.
/// Any thread.
#[no_mangle]
pub extern "C" fn fastpath_gc_cell_format(h: *const fastpath_gc_heap, format: *mut u32) -> fastpath_status {
    ffi(|| {
        let f = heap(h)?.heap.cell_format();
        put(format, crate::gc_layout::cell_format_value(f))
    })
}

/// The width of the heap's reference slots into `*bytes`: 8
/// (`FASTPATH_GC_WORD_BYTES`, the object's address) or 4
/// (`FASTPATH_GC_COMPRESSED_REF_BYTES`: the address shifted right by
/// `FASTPATH_GC_COMPRESSED_REF_SHIFT`, the heap below
/// `FASTPATH_GC_COMPRESSED_ADDRESS_LIMIT`; of an untagged object reference
/// i at `FASTPATH_GC_REFS_OFFSET + 4 * i`, data word j at
/// `FASTPATH_GC_REFS_OFFSET + 8 * ((nrefs + 1) / 2 + j)`; of a tagged one
/// reference i at `FASTPATH_GC_TAGGED_COMPRESSED_REFS_OFFSET + 4 * i`,
/// data word j at `FASTPATH_GC_REFS_OFFSET + 8 * (nrefs / 2 + j)`), fixed
/// when the heap is made by `FASTPATH_GC_REFS`. A C JIT that reads or writes
/// references inline compiles against it, and picks its reference CAS by
/// it (`FASTPATH_JIT_CAS_REF` for 8; for 4, `FASTPATH_JIT_CAS_REF_COMPRESSED`
/// or `FASTPATH_JIT_CAS_REF_UNSCALED` as `fastpath_gc_ref_shift` says).
/// Any thread.
#[no_mangle]
pub extern "C" fn fastpath_gc_ref_slot_bytes(h: *const fastpath_gc_heap, bytes: *mut u32) -> fastpath_status {
    ffi(|| {
        let w = heap(h)?.heap.ref_width();
        put(bytes, w.slot_bytes() as u32)
    })
}

/// The shift between the heap's 4-byte reference slots and the address
/// into `*shift`: `FASTPATH_GC_COMPRESSED_REF_SHIFT` (3) for compressed
/// slots (`FASTPATH_GC_REFS=compressed`, the heap below
/// `FASTPATH_GC_COMPRESSED_ADDRESS_LIMIT`), 0 for unscaled ones (`unscaled`,
/// the slot holds the address, the heap below
/// `FASTPATH_GC_UNSCALED_ADDRESS_LIMIT`) and for 8-byte slots. A reference
/// decodes as `(uint64_t)slot << shift`. Any thread.
#[no_mangle]
pub extern "C" fn fastpath_gc_ref_shift(h: *const fastpath_gc_heap, shift: *mut u32) -> fastpath_status {
    ffi(|| {
        let w = heap(h)?.heap.ref_width();
        put(shift, w.shift())
    })
}

/// Defines `tag` as the tag of objects with `nrefs` references and `ndata`
/// data words, for every mutator of the heap: the counts the heap reads
/// for a tagged object, whose layout word holds only the tag
/// (`FASTPATH_GC_LAYOUT_TAGGED_BIT | tag`). A C JIT that allocates objects
/// of a tag inline (a TLAB bump, then the words written as
/// `FASTPATH_GC_LAYOUT_WORD_OFFSET` says) defines it first;
/// `fastpath_gc_alloc_tagged` defines the tags it is given. Defining a tag
/// again with the same counts does nothing. `FASTPATH_ERR_INVALID_ARGUMENT`
/// for `tag` above `FASTPATH_GC_MAX_LAYOUT_TAG`, a count above
/// `FASTPATH_GC_MAX_TAGGED_COUNT`, or a tag defined before with other
/// counts (which it keeps). Any thread.
#[no_mangle]
pub extern "C" fn fastpath_gc_define_tag(
    h: *const fastpath_gc_heap,
    tag: u32,
    nrefs: usize,
    ndata: usize,
) -> fastpath_status {
    ffi(|| heap(h)?.heap.define_tag(tag, nrefs, ndata).map_err(gc_status))
}

/// Bytes in free regions now; the largest object, in words
/// (`*max_object_words`, optional, header words included). Any thread.
#[no_mangle]
pub extern "C" fn fastpath_gc_free_bytes(
    h: *const fastpath_gc_heap,
    free_bytes: *mut usize,
    max_object_words: *mut usize,
) -> fastpath_status {
    ffi(|| {
        let heap = &heap(h)?.heap;
        put(free_bytes, heap.free_bytes())?;
        crate::status::put_opt(max_object_words, heap.max_object_words());
        Ok(())
    })
}

/// Attaches the calling thread to the heap: `*out` gets its mutator, which
/// only this thread uses, and which every pause now waits for (poll with
/// `fastpath_gc_safepoint_poll` in long loops without allocation).
/// `FASTPATH_ERR_BUSY` if this thread already has an attached mutator (of
/// any heap): a thread is the mutator of one heap at a time. Every call
/// that takes a mutator from another thread than its own is
/// `FASTPATH_ERR_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "C" fn fastpath_gc_mutator_attach(
    h: *const fastpath_gc_heap,
    out: *mut *mut fastpath_gc_mutator,
) -> fastpath_status {
    ffi(|| {
        let heap = heap(h)?;
        crate::status::out_ptr(out)?;
        let m = heap.heap.mutator::<Dynamic>().map_err(gc_status)?;
        // Relaxed: a count; the heap's free reads it with Acquire against
        // the detaches' Release, and an attach races with no free (the
        // caller's contract: the heap is live during the call).
        heap.attached.fetch_add(1, Ordering::Relaxed);
        put(
            out,
            Box::into_raw(Box::new(fastpath_gc_mutator {
                m,
                handles: Vec::new(),
                attached: heap.attached.clone(),
                globals: heap.globals.clone(),
            })),
        )
    })
}

/// Detaches a mutator (NULL: nothing): its handles are gone, pauses stop
/// waiting for it. Its thread; the mutator must not be used again.
#[no_mangle]
pub extern "C" fn fastpath_gc_mutator_detach(m: *mut fastpath_gc_mutator) -> fastpath_status {
    ffi(|| {
        if m.is_null() {
            return Ok(());
        }
        mutator(m)?;
        // SAFETY: from `fastpath_gc_mutator_attach` (a `Box`), released once
        // (the caller's contract).
        let owned = unsafe { Box::from_raw(m) };
        let attached = owned.attached.clone();
        drop(owned);
        // Release: the mutator's teardown happens before a heap free that
        // reads 0 (Acquire).
        attached.fetch_sub(1, Ordering::Release);
        Ok(())
    })
}

/// Allocates an object with `nrefs` null references and `ndata` zero data
/// words, its layout word in the untagged form (`nrefs | ndata << 32`;
/// `fastpath_gc_alloc_tagged` for the tagged one); `*out` gets a new
/// handle on it. May stop at a safepoint or
/// collect. `FASTPATH_ERR_OBJECT_TOO_LARGE` above the heap's maximum,
/// `FASTPATH_ERR_OUT_OF_MEMORY` if no space is left after collecting.
#[no_mangle]
pub extern "C" fn fastpath_gc_alloc(
    m: *mut fastpath_gc_mutator,
    nrefs: usize,
    ndata: usize,
    out: *mut fastpath_gc_handle,
) -> fastpath_status {
    ffi(|| {
        let m = mutator(m)?;
        crate::status::out_ptr(out)?;
        let h = m.m.alloc(nrefs, ndata).map_err(gc_status)?;
        let c = m.push(h);
        put(out, c)
    })
}

/// Allocates an object as `fastpath_gc_alloc`, in the layout word's tagged
/// form: the 4-byte word holds only the runtime's `tag` (a class index),
/// which the heap keeps with the object through every copy and
/// `fastpath_gc_tag` reads back; the counts are the tag's, which this
/// defines as `nrefs` and `ndata` if nothing has (`fastpath_gc_define_tag`).
/// With 4-byte reference slots the object's reference 0 is at
/// `FASTPATH_GC_TAGGED_COMPRESSED_REFS_OFFSET`.
/// `FASTPATH_ERR_INVALID_ARGUMENT` for `nrefs` or `ndata` above
/// `FASTPATH_GC_MAX_TAGGED_COUNT`, `tag` above
/// `FASTPATH_GC_MAX_LAYOUT_TAG` (larger objects, arrays, take
/// `fastpath_gc_alloc`'s untagged form), or a tag defined with other
/// counts; the other refusals are `fastpath_gc_alloc`'s.
#[no_mangle]
pub extern "C" fn fastpath_gc_alloc_tagged(
    m: *mut fastpath_gc_mutator,
    nrefs: usize,
    ndata: usize,
    tag: u32,
    out: *mut fastpath_gc_handle,
) -> fastpath_status {
    ffi(|| {
        let m = mutator(m)?;
        crate::status::out_ptr(out)?;
        let h = m.m.alloc_tagged(nrefs, ndata, tag).map_err(gc_status)?;
        let c = m.push(h);
        put(out, c)
    })
}

/// Loads reference field `i` of `obj` (through the heap's load barriers):
/// `*out` gets a new handle on the referent, or `FASTPATH_GC_NULL` (no
/// handle pushed) for a null field.
#[no_mangle]
pub extern "C" fn fastpath_gc_load(
    m: *mut fastpath_gc_mutator,
    obj: fastpath_gc_handle,
    i: usize,
    out: *mut fastpath_gc_handle,
) -> fastpath_status {
    ffi(|| {
        let m = mutator(m)?;
        crate::status::out_ptr(out)?;
        let loaded = {
            let o = m.get(obj, "the object")?;
            m.m.load(o, i)
                .map_err(gc_status)?
                .map(|v| m.m.root(v))
                .transpose()
                .map_err(gc_status)?
        };
        let c = loaded.map_or(FASTPATH_GC_NULL, |r| m.push(r));
        put(out, c)
    })
}

/// Stores `value` (`FASTPATH_GC_NULL`: null) into reference field `i` of
/// `obj`, through the heap's store barriers.
#[no_mangle]
pub extern "C" fn fastpath_gc_store(
    m: *mut fastpath_gc_mutator,
    obj: fastpath_gc_handle,
    i: usize,
    value: fastpath_gc_handle,
) -> fastpath_status {
    ffi(|| {
        let m = mutator(m)?;
        let (o, v) = (m.get(obj, "the object")?, m.get_opt(value)?);
        m.m.store(o, i, v).map_err(gc_status)
    })
}

/// Compare-and-swaps reference field `i` of `obj` from `expected` to `new`
/// (either may be `FASTPATH_GC_NULL`); `*swapped` gets whether it did. The
/// comparison is by object, whichever copy the field holds.
#[no_mangle]
pub extern "C" fn fastpath_gc_cas(
    m: *mut fastpath_gc_mutator,
    obj: fastpath_gc_handle,
    i: usize,
    expected: fastpath_gc_handle,
    new: fastpath_gc_handle,
    swapped: *mut bool,
) -> fastpath_status {
    ffi(|| {
        let m = mutator(m)?;
        crate::status::out_ptr(swapped)?;
        let (o, e, n) = (m.get(obj, "the object")?, m.get_opt(expected)?, m.get_opt(new)?);
        let done = m.m.cas(o, i, e, n).map_err(gc_status)?;
        put(swapped, done)
    })
}

/// Reads data word `j` of `obj` into `*out`.
#[no_mangle]
pub extern "C" fn fastpath_gc_read(
    m: *mut fastpath_gc_mutator,
    obj: fastpath_gc_handle,
    j: usize,
    out: *mut usize,
) -> fastpath_status {
    ffi(|| {
        let m = mutator(m)?;
        let o = m.get(obj, "the object")?;
        put(out, m.m.read(o, j).map_err(gc_status)?)
    })
}

/// Writes `value` into data word `j` of `obj`.
#[no_mangle]
pub extern "C" fn fastpath_gc_write(
    m: *mut fastpath_gc_mutator,
    obj: fastpath_gc_handle,
    j: usize,
    value: usize,
) -> fastpath_status {
    ffi(|| {
        let m = mutator(m)?;
        let o = m.get(obj, "the object")?;
        m.m.write(o, j, value).map_err(gc_status)
    })
}

/// The object's reference and data field counts.
#[no_mangle]
pub extern "C" fn fastpath_gc_shape(
    m: *mut fastpath_gc_mutator,
    obj: fastpath_gc_handle,
    nrefs: *mut usize,
    ndata: *mut usize,
) -> fastpath_status {
    ffi(|| {
        let m = mutator(m)?;
        crate::status::out_ptr(nrefs)?;
        crate::status::out_ptr(ndata)?;
        let o = m.get(obj, "the object")?;
        let (r, d) = m.m.shape(o).map_err(gc_status)?;
        put(nrefs, r)?;
        put(ndata, d)
    })
}

/// The object's tag: `*tagged` gets whether it was allocated tagged
/// (`fastpath_gc_alloc_tagged`), `*tag` its tag, or 0 for an object
/// allocated untagged (`fastpath_gc_alloc`; 0 is also a valid tag, so
/// `*tagged` tells the two apart).
#[no_mangle]
pub extern "C" fn fastpath_gc_tag(
    m: *mut fastpath_gc_mutator,
    obj: fastpath_gc_handle,
    tagged: *mut bool,
    tag: *mut u32,
) -> fastpath_status {
    ffi(|| {
        let m = mutator(m)?;
        crate::status::out_ptr(tagged)?;
        crate::status::out_ptr(tag)?;
        let o = m.get(obj, "the object")?;
        let t = m.m.tag(o).map_err(gc_status)?;
        put(tagged, t.is_some())?;
        put(tag, t.unwrap_or(0))
    })
}

/// Whether `a` and `b` (either may be `FASTPATH_GC_NULL`) are the same
/// object (the `acmp` of a Brooks heap, where two copies may exist).
#[no_mangle]
pub extern "C" fn fastpath_gc_same(
    m: *mut fastpath_gc_mutator,
    a: fastpath_gc_handle,
    b: fastpath_gc_handle,
    out: *mut bool,
) -> fastpath_status {
    ffi(|| {
        let m = mutator(m)?;
        let (a, b) = (m.get_opt(a)?, m.get_opt(b)?);
        put(out, m.m.same(a, b))
    })
}

/// Points the existing handle `h` at `value` (not null), e.g. to walk a
/// list without growing the handle stack.
#[no_mangle]
pub extern "C" fn fastpath_gc_set_root(
    m: *mut fastpath_gc_mutator,
    h: fastpath_gc_handle,
    value: fastpath_gc_handle,
) -> fastpath_status {
    ffi(|| {
        let m = mutator(m)?;
        let h = m.object(h, "the handle")?;
        let v = m.get(value, "the value")?;
        m.m.set_root(h, v).map_err(gc_status)
    })
}

/// The handle stack's depth (a scope's mark for `fastpath_gc_roots_truncate`).
#[no_mangle]
pub extern "C" fn fastpath_gc_roots_len(m: *mut fastpath_gc_mutator, out: *mut usize) -> fastpath_status {
    ffi(|| {
        let m = mutator(m)?;
        put(out, m.handles.len())
    })
}

/// Pops handles down to depth `len` (a larger `len`: nothing): the popped
/// handles become dangling and their objects may be collected.
#[no_mangle]
pub extern "C" fn fastpath_gc_roots_truncate(m: *mut fastpath_gc_mutator, len: usize) -> fastpath_status {
    ffi(|| {
        let m = mutator(m)?;
        m.handles.truncate(len);
        m.m.truncate_roots(len);
        Ok(())
    })
}

fn globals(m: &fastpath_gc_mutator) -> std::sync::MutexGuard<'_, Vec<GlobalHandle>> {
    // Poisoning: a push of a `Copy` value cannot leave the list half-done.
    m.globals.lock().unwrap_or_else(|e| e.into_inner())
}

/// Makes the object `obj` roots a root of the whole heap, for as long as the
/// heap lives (there is no removal); `*out` gets its index, which any
/// mutator of the heap may pass to `fastpath_gc_global_get`. This is how
/// threads share objects.
#[no_mangle]
pub extern "C" fn fastpath_gc_global_new(
    m: *mut fastpath_gc_mutator,
    obj: fastpath_gc_handle,
    out: *mut usize,
) -> fastpath_status {
    ffi(|| {
        let m = mutator(m)?;
        crate::status::out_ptr(out)?;
        let o = m.get(obj, "the object")?;
        let g = m.m.make_global(o).map_err(gc_status)?;
        let mut list = globals(m);
        list.push(g);
        put(out, list.len() - 1)
    })
}

/// `*out` gets a new handle on the object global root `index` holds.
/// `FASTPATH_ERR_INVALID_ARGUMENT` for an index never issued by this heap.
#[no_mangle]
pub extern "C" fn fastpath_gc_global_get(
    m: *mut fastpath_gc_mutator,
    index: usize,
    out: *mut fastpath_gc_handle,
) -> fastpath_status {
    ffi(|| {
        let m = mutator(m)?;
        crate::status::out_ptr(out)?;
        let g = globals(m).get(index).copied().ok_or_else(|| {
            fail(
                FASTPATH_ERR_INVALID_ARGUMENT,
                format_args!("no global root {index}"),
            )
        })?;
        let h = {
            let o = m.m.global(g).map_err(gc_status)?;
            m.m.root(o).map_err(gc_status)?
        };
        let c = m.push(h);
        put(out, c)
    })
}

/// Stops here if a pause is requested (a loop that neither allocates nor
/// collects must call this now and then).
#[no_mangle]
pub extern "C" fn fastpath_gc_safepoint_poll(m: *mut fastpath_gc_mutator) -> fastpath_status {
    ffi(|| {
        mutator(m)?.m.safepoint_poll();
        Ok(())
    })
}

/// Collects: a stop-the-world collection in passive mode; in concurrent
/// mode, waits (in a safe region) until the collector finishes a new cycle.
#[no_mangle]
pub extern "C" fn fastpath_gc_collect(m: *mut fastpath_gc_mutator) -> fastpath_status {
    ffi(|| {
        mutator(m)?.m.collect().map_err(gc_status)?;
        Ok(())
    })
}

/// Runs `f(arg)` as a safe region (HotSpot's "in native"): pauses may run
/// and move objects meanwhile, so `f` must not use this mutator or its
/// handles; it may block (join a thread, wait for I/O) without stalling the
/// collector. Other fastpath calls, other mutators' included, are fine.
#[no_mangle]
pub extern "C" fn fastpath_gc_safe_region(
    m: *mut fastpath_gc_mutator,
    f: Option<unsafe extern "C" fn(*mut c_void)>,
    arg: *mut c_void,
) -> fastpath_status {
    ffi(|| {
        let m = mutator(m)?;
        let f = f.ok_or_else(|| fail(FASTPATH_ERR_NULL, "the function is NULL"))?;
        // SAFETY: the caller's contract: `f` is a C function that takes
        // `arg`; it does not unwind (C).
        m.m.safe_region(|| unsafe { f(arg) });
        Ok(())
    })
}

/// Locks the object `obj` roots (`fastpath::sync`, reentrant), blocking in
/// a safe region while another thread holds it; `*out` gets the lock. The
/// object is pinned (never moved) while locked. Release it with
/// `fastpath_gc_unlock` on this thread.
#[no_mangle]
pub extern "C" fn fastpath_gc_lock(
    m: *mut fastpath_gc_mutator,
    obj: fastpath_gc_handle,
    out: *mut *mut fastpath_gc_object_lock,
) -> fastpath_status {
    ffi(|| {
        let m = mutator(m)?;
        crate::status::out_ptr(out)?;
        let h = m.object(obj, "the object")?;
        let lock = m.m.lock(h).map_err(gc_status)?;
        put(
            out,
            Box::into_raw(Box::new(fastpath_gc_object_lock { _lock: lock })),
        )
    })
}

/// Releases a lock from `fastpath_gc_lock` (NULL: nothing) on the thread
/// that took it; the lock must not be used again.
#[no_mangle]
pub extern "C" fn fastpath_gc_unlock(l: *mut fastpath_gc_object_lock) -> fastpath_status {
    ffi(|| {
        if !l.is_null() {
            aligned::<_, fastpath_gc_object_lock>(l, "the lock")?;
            // SAFETY: from `fastpath_gc_lock` (a `Box`), released once, on
            // its thread (the caller's contract).
            drop(unsafe { Box::from_raw(l) });
        }
        Ok(())
    })
}
