//! The heap: regions, object layout, bump allocation, marks and cards.
//!
//! Where it sits: the bottom of `gc`. [`super::mutator`] allocates here
//! through TLABs and reads objects with the layout helpers;
//! [`crate::gc::collector::cycle`] marks, parses and frees regions here.
//!
//! Memory is one zeroed, region-aligned block (an anonymous mapping) cut
//! into fixed-size regions.
//! Each object is a *cell*, laid out as `layout.rs` publishes it (the
//! offsets below are its constants, and the functions here that address
//! an object's words are its functions), in the heap's format:
//!
//! ```text
//!  Brooks                                     compact
//!  cell+0   forwarding word                   -
//!  cell+8   Header  <- the object ("obj")     cell+0   Header  <- obj; fastpath::sync locks it
//!  cell+16  layout word                       cell+8   layout word (nrefs | ndata << 32, or a tag)
//!  cell+24  nrefs reference fields            cell+16  nrefs reference fields (0 = null)
//!  ...      ndata data words                  ...      ndata data words
//! ```
//!
//! A tagged object's layout word is 4 bytes, its tag; its counts are the
//! tag's in the heap's tag table (`tags.rs`, [`Space::layout_of`]), and
//! with 4-byte slots its reference 0 takes the other 4 bytes of the word
//! (`layout.rs`). Its shape is read from the word's first 4 bytes (its
//! form and tag), and all 8 only for an untagged word, which nobody writes
//! in halves, or for an object of the collection set by the forwarding
//! ([`Space::fwd_slot`]); a tagged object's reference 0 is otherwise read
//! and written as a slot.
//!
//! A reference field is a slot of the heap's [`RefWidth`]: 8 bytes holding
//! the address, or 4 holding it shifted right by 3 (the whole heap then
//! mapped below 32 GiB) or unshifted (below 4 GiB) ([`map_compressed`]).
//! Every read, write and CAS of a slot goes through [`Space::load_ref`],
//! [`Space::store_ref`] and [`Space::cas_ref_in`], which take and return
//! addresses; the rest of `gc` never sees an encoded reference. A cell's words are copied and moved
//! whole (the encoding does not depend on where the slot is).
//!
//! In the Brooks format the forwarding word sits at `obj - 8`, where
//! Shenandoah 2017 kept its Brooks pointer, so the Brooks read barrier is
//! one `mov -0x8(%obj), %obj`. In the compact format a copied original's
//! layout word names its copy ([`Space::forwardee`], `layout.rs`).
//!
//! Allocation: a mutator bump-allocates in its TLAB, a chunk carved from the
//! current allocation region under the heap's allocation lock. Every chunk
//! is filled to its end when retired (a *filler*: a word whose low two bits
//! are `11` and whose others give its length in words; a cell's first word
//! is an aligned address or a header, whose lock bits are never `11`), so a
//! region is parsable from its bottom to its `top` whenever no TLAB is
//! open in it, which every pause guarantees.
//!
//! Objects larger than a region are *humongous* (`humongous.rs`): each
//! takes a run of contiguous free regions of its own, its cell at the
//! first one's bottom; the others are continuations, never parsed.
//!
//! Liveness: one mark bit per heap word (the object's address), and per
//! region a TAMS (top at mark start). Objects at or above TAMS were
//! allocated during the cycle and are live by construction (Shenandoah's
//! TAMS rule); below it, live means marked.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use super::forwarding;
use super::layout::{self, CellFormat, RefWidth};
use super::read_ahead::ReadAhead;
use super::tags::TagTable;
use crate::sync::{Header, LockState};

/// The low bits of a filler's first word (a header's lock bits are never
/// `11`; a forwarding word is an aligned address).
const FILLER_TAG: usize = 0b11;
/// Log2 of the card size (512 bytes, HotSpot's).
pub(crate) const CARD_SHIFT: u32 = layout::CARD_SHIFT;
/// A dirty card (HotSpot's `dirty_card_val()` is 0, so marking is `movb $0`).
pub(crate) const DIRTY_CARD: u8 = layout::CARD_DIRTY;
/// A clean card.
pub(crate) const CLEAN_CARD: u8 = layout::CARD_CLEAN;

const _: () = assert!(
    std::mem::size_of::<Header>() == layout::WORD_BYTES,
    "the header must be exactly the one word the layout reserves"
);

/// One region's metadata. Every field is an atomic read and written Relaxed:
/// the collector changes them only in pauses (every mutator stopped; the
/// safepoint orders their writes before and the collector's after: its
/// mutex on the way in, the release's epoch word on the way out) or
/// under the allocation lock (whose mutex orders them), and a mutator reads
/// them only under that lock or between pauses, when they do not change.
/// The orderings that publish objects are on the words themselves.
pub(crate) struct Region {
    pub(crate) bottom: usize,
    /// End of the allocated part (chunks are carved below it).
    pub(crate) top: AtomicUsize,
    /// Top at mark start.
    pub(crate) tams: AtomicUsize,
    /// The end of the part of the region whose mark bits may be set: the
    /// highest TAMS a marking started with ([`Region::start_marking`])
    /// since [`Space::clear_marks`] last cleared them. Every set bit lies
    /// below it (marking sets bits only below TAMS), so a reset clears
    /// only the bitmap of regions that were marked in, up to there, and a
    /// region never used leaves its part of the bitmap untouched: never
    /// written, never faulted in. Shenandoah's `top_bitmap`, for the same
    /// reason (`ShenandoahMarkingContext::clear_bitmap`).
    pub(crate) marks_top: AtomicUsize,
    /// Top when update-refs began: what update-refs parses.
    pub(crate) watermark: AtomicUsize,
    /// Words of marked objects (counted during marking).
    pub(crate) live_words: AtomicUsize,
    /// In the collection set of the current cycle: this region's byte of
    /// the space's collection-set map ([`CsetFlag`]).
    pub(crate) in_cset: CsetFlag,
    /// Holds allocations (not on a free list).
    pub(crate) used: AtomicBool,
    /// In the collection set, with a live object that could not be copied
    /// (evacuation failed): kept, not freed, at the cycle's end; a later
    /// cycle may collect it.
    pub(crate) evac_failed: AtomicBool,
    /// Locks that keep the region where it is: each live
    /// [`crate::gc::ObjLock`], each object a runtime call is blocked on
    /// (`monitor_enter_unchecked`'s safe region), and, while their mutator
    /// is stopped, each lock-stack entry and legacy raw record of its
    /// thread (`Mutator::pin_held_locks`). A pinned region is never
    /// evacuated nor freed.
    pub(crate) pins: AtomicUsize,
    /// A live object here had a header that was not plain unlocked (locked,
    /// or left inflated by a contended lock) during this cycle: the region
    /// is not evacuated, so a monitor's object address stays valid.
    pub(crate) monitor_seen: AtomicBool,
    /// An object here may have had a monitor installed since the region
    /// was last freed (locked through [`crate::gc::Mutator::lock`] or a
    /// runtime lock call, or found inflated after one), so a dead object's
    /// header may still name a monitor: freeing the region first releases
    /// those (see [`Space::release_dead_locks`]). Sticky until then.
    pub(crate) lock_seen: AtomicBool,
    /// [`HUMONGOUS_START`] or [`HUMONGOUS_CONT`] when the region holds part
    /// of a humongous object (`humongous.rs`), else 0.
    pub(crate) humongous: AtomicU8,
}

/// A region whose bottom holds a humongous object's cell.
pub(crate) const HUMONGOUS_START: u8 = 1;
/// A region holding the rest of the humongous object that starts below it:
/// no cell begins in it, so it is never parsed.
pub(crate) const HUMONGOUS_CONT: u8 = 2;

impl Region {
    /// Sets TAMS to the region's top for a marking about to start, and
    /// raises [`Region::marks_top`] to it: the one way a marking's TAMS is
    /// set, so that every mark bit stays below `marks_top`. In a pause
    /// (Relaxed, see `Region`).
    pub(crate) fn start_marking(&self) {
        let top = self.top.load(Ordering::Relaxed);
        self.tams.store(top, Ordering::Relaxed);
        self.marks_top.fetch_max(top, Ordering::Relaxed);
    }

    /// What part of a humongous object the region holds (0: none).
    #[inline]
    pub(crate) fn humongous(&self) -> u8 {
        // Relaxed: see the type's comment.
        self.humongous.load(Ordering::Relaxed)
    }
}

/// What an object's layout word says of it: its counts and its form
/// (`layout.rs`), which place its references and data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    pub(crate) nrefs: usize,
    pub(crate) ndata: usize,
    /// The tagged form (its counts from the tag table).
    pub(crate) tagged: bool,
}

/// The allocation lock's state.
pub(crate) struct AllocState {
    /// Free regions, by index.
    pub(crate) free: Vec<usize>,
    /// Regions reserved for evacuation copies during a cycle.
    pub(crate) evac_free: Vec<usize>,
    /// The region TLABs are carved from.
    pub(crate) current: Option<usize>,
    /// The region evacuation LABs are carved from.
    pub(crate) evac_current: Option<usize>,
    /// Evacuation LABs carved this cycle (for `Space::evac_lab_limit`).
    pub(crate) evac_taken: usize,
    /// Free regions TLABs leave alone: the standing evacuation reserve
    /// (`Space::reserve_regions`), except while no copy is made: during
    /// marking none (set in init-mark, restored in final-mark before the
    /// set is chosen), and during update-refs, when the collection set
    /// about to be freed restores it, the reserve less the regions
    /// final-update-refs frees (set in init-update-refs, restored when the
    /// set is freed).
    pub(crate) mutator_floor: usize,
}

/// Where a chunk is carved from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Pool {
    /// New objects.
    Mutator,
    /// Evacuation copies (the reserve first, then any free region).
    Evacuation,
}

/// A region's collection-set flag: its byte of [`Space::cset_map`], one
/// byte per region (0 or 1, an `AtomicBool`), which generated code reads
/// as HotSpot's C2 reads Shenandoah's `biased_map_address()`: the byte of
/// address `a` at `biased + (a >> region_shift)` ([`Space::cset_biased`]).
/// The region's flag *is* that byte, so the map and the flags cannot
/// disagree; it is written, as every region flag, only in pauses (see
/// [`Region`]), so generated code between pauses reads a fixed set.
pub(crate) struct CsetFlag(core::ptr::NonNull<AtomicBool>);

impl core::ops::Deref for CsetFlag {
    type Target = AtomicBool;
    #[inline(always)]
    fn deref(&self) -> &AtomicBool {
        // SAFETY: points into the `cset_map` of the `Space` that owns this
        // region (a boxed slice: its address is fixed), which lives as long
        // as the region (both are fields of the one `Space`).
        unsafe { self.0.as_ref() }
    }
}

// SAFETY: a shared reference to an `AtomicBool` (which is `Send + Sync`)
// in the same `Space`; the wrapper adds no state.
unsafe impl Send for CsetFlag {}
// SAFETY: as `Send`.
unsafe impl Sync for CsetFlag {}

/// The heap's memory and metadata (shared by mutators and the collector).
pub(crate) struct Space {
    /// Whether cells carry a forwarding word (the barrier set's choice).
    pub(crate) format: CellFormat,
    /// The width of reference slots (the configuration's choice).
    pub(crate) refs: RefWidth,
    /// The counts of each tag the runtime defined.
    pub(crate) tags: TagTable,
    pub(crate) base: usize,
    pub(crate) end: usize,
    pub(crate) region_shift: u32,
    pub(crate) region_bytes: usize,
    /// The size of a TLAB (and the largest object, in bytes).
    pub(crate) tlab_bytes: usize,
    /// Free regions that new objects may not take: room for evacuation
    /// when the heap is otherwise full (Shenandoah's `ShenandoahEvacReserve`).
    pub(crate) reserve_regions: usize,
    /// At most this many evacuation LABs per cycle (a test knob that forces
    /// evacuation failure; `None`: no limit).
    pub(crate) evac_lab_limit: Option<usize>,
    /// Who is copying, and whether evacuation failed this cycle.
    pub(crate) evac_scope: forwarding::EvacScope,
    pub(crate) regions: Box<[Region]>,
    /// One byte per region, 1 while it is in the collection set: the
    /// regions' `in_cset` flags ([`CsetFlag`]), for generated code.
    cset_map: Box<[AtomicBool]>,
    marks: Box<[AtomicU64]>,
    pub(crate) cards: Box<[AtomicU8]>,
    pub(crate) alloc: Mutex<AllocState>,
    /// Regions the mutators have taken, ever (TLAB regions and humongous
    /// runs): the allocation rate the cycle trigger learns (`collector/trigger.rs`).
    pub(crate) taken_regions: AtomicUsize,
    /// The free-region count below which the idle collector starts a
    /// cycle, as its trigger last judged (`collector/trigger.rs`); 0 while a
    /// cycle runs, in passive mode, and before the collector's first look.
    /// A mutator whose region refill takes the free list below it raises
    /// [`Space::cycle_due`] and, once out of the allocation lock, wakes the
    /// collector (`Mutator::wake_collector_if_due`): a cycle starts at the
    /// region it is due, not at the collector's next poll, which at a
    /// mutator's allocation rate of gigabytes a second would let tens of
    /// regions go first. The allocation-driven start is Go's (its heap
    /// trigger, checked as spans are allocated, `mgc.go`); Shenandoah's control thread
    /// polls instead, down to every millisecond while mutators allocate.
    pub(crate) start_cycle_below: AtomicUsize,
    /// Raised by the region refill that crossed [`Space::start_cycle_below`],
    /// taken by the mutator that then wakes the collector.
    pub(crate) cycle_due: AtomicBool,
    /// The soft capacity in regions (`capacity.rs`); written under the
    /// allocation lock.
    pub(crate) capacity: AtomicUsize,
    /// Whether mutators' refills stop at the capacity (passive mode), or
    /// only the concurrent trigger measures by it (`capacity.rs`).
    pub(crate) hold_capacity: bool,
    /// A card-marking barrier may dirty the card table (the heap's barrier
    /// set has one): only then does freeing a region clean its cards (a
    /// region's 512 card stores, some 180 regions a final-mark on an
    /// allocation-heavy program at 64 MiB, half the pause).
    pub(crate) cards_in_use: bool,
    /// Humongous objects allocated, and reclaimed (statistics).
    pub(crate) humongous_allocated: AtomicU64,
    pub(crate) humongous_reclaimed: AtomicU64,
    /// The pages of the regions refills are about to take, faulted in
    /// ahead of them (`read_ahead.rs`; off unless the heap's
    /// configuration asks).
    pub(crate) read_ahead: ReadAhead,
}

/// The evacuation reserve of a heap of `nregions` regions, in regions
/// ([`Space::reserve_regions`]; `HeapConfig::evacuation_reserve_bytes`).
pub(crate) fn reserve_regions(nregions: usize) -> usize {
    (nregions / 16).max(2)
}

/// The system refused the heap's block: how much was asked of it, and its
/// answer.
#[derive(Debug)]
pub(crate) struct MapRefused {
    /// The mapping asked for: the heap and one region more, to align it.
    pub(crate) reserved: usize,
    /// Why (the system's error, or an overflow of the address space).
    pub(crate) reason: String,
}

/// Maps `bytes` of zeroed memory aligned to `align` (a power of two): an
/// anonymous mapping `align` larger, its unaligned head and tail unmapped
/// (how HotSpot reserves an aligned heap). Refused when the system refuses
/// (the address space or the commit limit); from `mmap` directly, not the
/// global allocator, so a refusal is an answer and never an abort.
fn map_aligned(bytes: usize, align: usize) -> Result<usize, MapRefused> {
    use rustix::mm::{mmap_anonymous, munmap, MapFlags, ProtFlags};
    #[cfg(test)]
    if let Some(base) = map_at_test_hint(bytes) {
        return Ok(base);
    }
    let len = bytes.checked_add(align).ok_or_else(|| MapRefused {
        reserved: usize::MAX,
        reason: "the size overflows the address space".into(),
    })?;
    // SAFETY: a fresh anonymous mapping at an address the kernel picks
    // touches no existing memory.
    let start = unsafe {
        mmap_anonymous(
            std::ptr::null_mut(),
            len,
            ProtFlags::READ | ProtFlags::WRITE,
            MapFlags::PRIVATE,
        )
    }
    .map_err(|e| MapRefused {
        reserved: len,
        reason: std::io::Error::from(e).to_string(),
    })? as usize;
    let base = (start + align - 1) & !(align - 1);
    let (head, tail) = (base - start, start + len - (base + bytes));
    // SAFETY: both ranges lie inside the mapping just made, outside the
    // block kept; nothing refers to them. A failed unmap only leaves
    // address space mapped.
    unsafe {
        if head > 0 {
            let _ = munmap(start as *mut std::ffi::c_void, head);
        }
        if tail > 0 {
            let _ = munmap((base + bytes) as *mut std::ffi::c_void, tail);
        }
    }
    Ok(base)
}

/// Where the next heap with compressed references looks for room first
/// (0: [`layout::COMPRESSED_HEAP_MIN_ADDRESS`]): past the last one placed,
/// so that heaps made one after another do not probe the same taken
/// ranges again.
static NEXT_COMPRESSED_AT: AtomicUsize = AtomicUsize::new(0);

/// Maps `bytes` of zeroed memory aligned to `align` wholly below
/// [`layout::COMPRESSED_ADDRESS_LIMIT`], as a heap with compressed
/// references needs (HotSpot's zero-based compressed oops: it too tries
/// addresses upwards from `HeapBaseMinAddress`): from
/// [`layout::COMPRESSED_HEAP_MIN_ADDRESS`] up, then from
/// [`layout::COMPRESSED_HEAP_FALLBACK_MIN_ADDRESS`] to it. Each candidate
/// is asked for by hint, kept only when the kernel placed the mapping
/// there (a hint never replaces existing memory), starting past the last
/// heap placed and wrapping around once; refused when no aligned range
/// below the limit is free.
///
/// `limit` is the width's [`RefWidth::address_limit`]: 32 GiB, or 4 GiB
/// for unscaled slots (HotSpot's unscaled mode is the same search below
/// 4 GiB).
fn map_compressed(bytes: usize, align: usize, limit: usize) -> Result<usize, MapRefused> {
    use rustix::mm::{mmap_anonymous, munmap, MapFlags, ProtFlags};
    let low = layout::COMPRESSED_HEAP_MIN_ADDRESS;
    let align = align.max(4096);
    let step = bytes.next_multiple_of(align);
    let refused = |reason: String| MapRefused {
        reserved: bytes,
        reason,
    };
    if bytes > limit - low {
        return Err(refused(format!(
            "{bytes} bytes do not fit below {limit:#x}, where compressed references reach"
        )));
    }
    // Relaxed: a hint only; two heaps racing for it probe the same range
    // and the kernel gives it to one.
    let start = NEXT_COMPRESSED_AT
        .load(Ordering::Relaxed)
        .clamp(low, limit - bytes);
    let start = start.next_multiple_of(align);
    // Then below the preferred range, from the fallback floor up: where a
    // process has 2–32 GiB taken (AddressSanitizer's shadow memory lies
    // there), a heap placed lower still needs no base.
    let fallback = layout::COMPRESSED_HEAP_FALLBACK_MIN_ADDRESS.next_multiple_of(align);
    let candidates = (start..=limit - bytes)
        .step_by(step)
        .chain((low..start.min(limit - bytes + 1)).step_by(step))
        .chain((fallback..low.saturating_sub(bytes).max(fallback)).step_by(step));
    for at in candidates {
        // SAFETY: `at` is only a hint (no MAP_FIXED): the kernel maps there
        // if the range is free and elsewhere otherwise, never over existing
        // memory.
        let got = match unsafe {
            mmap_anonymous(
                at as *mut std::ffi::c_void,
                bytes,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::PRIVATE,
            )
        } {
            Ok(p) => p as usize,
            Err(e) => return Err(refused(std::io::Error::from(e).to_string())),
        };
        if got == at {
            // Relaxed: the same hint.
            NEXT_COMPRESSED_AT.store(at + step, Ordering::Relaxed);
            return Ok(at);
        }
        // SAFETY: the mapping just made elsewhere, referred to by nothing.
        let _ = unsafe { munmap(got as *mut std::ffi::c_void, bytes) };
    }
    Err(refused(format!(
        "no free range of {bytes} bytes below {limit:#x}, where compressed references reach"
    )))
}

#[cfg(test)]
thread_local! {
    /// Tests only: the address this thread's next heap asks to be mapped
    /// at (0: anywhere), so a test can put a new heap where a dropped one
    /// was without hoping the kernel reuses the range by itself.
    pub(crate) static NEXT_HEAP_AT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Tests only: maps `bytes` at [`NEXT_HEAP_AT`] (consumed) when that range
/// is free; `None` (nothing kept) otherwise.
#[cfg(test)]
fn map_at_test_hint(bytes: usize) -> Option<usize> {
    use rustix::mm::{mmap_anonymous, munmap, MapFlags, ProtFlags};
    let at = NEXT_HEAP_AT.with(|c| c.replace(0));
    if at == 0 {
        return None;
    }
    // SAFETY: `at` is only a hint (no MAP_FIXED): the kernel maps there if
    // the range is free and elsewhere otherwise, never over existing memory.
    let got = unsafe {
        mmap_anonymous(
            at as *mut std::ffi::c_void,
            bytes,
            ProtFlags::READ | ProtFlags::WRITE,
            MapFlags::PRIVATE,
        )
    }
    .ok()? as usize;
    if got == at {
        return Some(got);
    }
    // SAFETY: the mapping just made elsewhere, referred to by nothing.
    let _ = unsafe { munmap(got as *mut std::ffi::c_void, bytes) };
    None
}

// SAFETY: the raw block is owned by `Space` (unmapped in Drop) and only ever
// accessed through atomics (`word`), so sharing it between threads is sound.
unsafe impl Send for Space {}
// SAFETY: as above: every access to the block is atomic.
unsafe impl Sync for Space {}

impl Drop for Space {
    fn drop(&mut self) {
        self.read_ahead.stop();
        // Every mutator is gone (each holds the heap), so every region is
        // parseable (mutators retire their buffers when dropped) and no
        // `ObjLock` is alive (each holds the heap too).
        for r in &self.regions {
            if r.used.load(Ordering::Relaxed) && r.lock_seen.load(Ordering::Relaxed) {
                self.release_dead_locks(r);
            }
        }
        // SAFETY: `[base, end)` is the mapping `Space::new` made and kept,
        // unmapped once, here; every header that named a monitor was
        // dropped above, so nothing in `fastpath::sync` (a deflation pass, a
        // thread exit) still holds an address into the block; the
        // read-ahead's thread was joined just before.
        let _ = unsafe { rustix::mm::munmap(self.base as *mut std::ffi::c_void, self.end - self.base) };
    }
}

impl Space {
    /// Maps the block; sizes are validated by the caller.
    pub(crate) fn new(
        format: CellFormat,
        refs: RefWidth,
        heap_bytes: usize,
        region_bytes: usize,
        evac_lab_limit: Option<usize>,
    ) -> Result<Space, MapRefused> {
        let base = match refs {
            RefWidth::Full => map_aligned(heap_bytes, region_bytes)?,
            RefWidth::Compressed | RefWidth::Unscaled => {
                map_compressed(heap_bytes, region_bytes, refs.address_limit())?
            }
        };
        debug_assert!(base + heap_bytes <= refs.address_limit());
        let tags = TagTable::new().map_err(|e| MapRefused {
            reserved: (layout::MAX_LAYOUT_TAG as usize + 1) * 8,
            reason: format!("the tag table: {e}"),
        });
        let tags = match tags {
            Ok(t) => t,
            Err(e) => {
                // SAFETY: the block just mapped, referred to by nothing.
                let _ = unsafe { rustix::mm::munmap(base as *mut std::ffi::c_void, heap_bytes) };
                return Err(e);
            }
        };
        let nregions = heap_bytes / region_bytes;
        let reserve_regions = reserve_regions(nregions);
        let cset_map: Box<[AtomicBool]> = (0..nregions).map(|_| AtomicBool::new(false)).collect();
        let regions = (0..nregions)
            .map(|i| {
                let bottom = base + i * region_bytes;
                Region {
                    bottom,
                    top: AtomicUsize::new(bottom),
                    tams: AtomicUsize::new(bottom),
                    marks_top: AtomicUsize::new(bottom),
                    watermark: AtomicUsize::new(bottom),
                    live_words: AtomicUsize::new(0),
                    in_cset: CsetFlag(core::ptr::NonNull::from(&cset_map[i])),
                    used: AtomicBool::new(false),
                    evac_failed: AtomicBool::new(false),
                    pins: AtomicUsize::new(0),
                    monitor_seen: AtomicBool::new(false),
                    lock_seen: AtomicBool::new(false),
                    humongous: AtomicU8::new(0),
                }
            })
            .collect();
        let words = heap_bytes / 8;
        Ok(Space {
            format,
            refs,
            tags,
            base,
            end: base + heap_bytes,
            region_shift: region_bytes.trailing_zeros(),
            region_bytes,
            tlab_bytes: (region_bytes / 8).clamp(64, 64 * 1024),
            reserve_regions,
            evac_lab_limit,
            evac_scope: forwarding::EvacScope::default(),
            regions,
            cset_map,
            marks: (0..words.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
            cards: (0..heap_bytes >> CARD_SHIFT)
                .map(|_| AtomicU8::new(CLEAN_CARD))
                .collect(),
            alloc: Mutex::new(AllocState {
                free: (0..nregions).rev().collect(),
                evac_free: Vec::new(),
                current: None,
                evac_current: None,
                evac_taken: 0,
                mutator_floor: reserve_regions,
            }),
            taken_regions: AtomicUsize::new(0),
            start_cycle_below: AtomicUsize::new(0),
            cycle_due: AtomicBool::new(false),
            capacity: AtomicUsize::new(nregions),
            hold_capacity: false,
            cards_in_use: true,
            humongous_allocated: AtomicU64::new(0),
            humongous_reclaimed: AtomicU64::new(0),
            read_ahead: ReadAhead::new(base, region_bytes, nregions, 0),
        })
    }

    /// Tests: an 8 MiB space of 64 KiB regions, compact cells, full-width
    /// references, no evacuation limit.
    #[cfg(test)]
    pub(crate) fn small_for_test() -> Space {
        Space::new(CellFormat::Compact, RefWidth::Full, 8 << 20, 64 << 10, None).expect("heap memory")
    }

    pub(crate) fn lock_alloc(&self) -> MutexGuard<'_, AllocState> {
        // Nothing panics under this lock; see Safepoint::lock.
        self.alloc.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether `addr` lies in this heap.
    #[inline(always)]
    pub(crate) fn contains(&self, addr: usize) -> bool {
        addr >= self.base && addr < self.end
    }

    /// The heap word at `addr`.
    #[inline(always)]
    pub(crate) fn word(&self, addr: usize) -> &AtomicUsize {
        debug_assert!(self.contains(addr) && addr % 8 == 0, "{addr:#x}");
        // SAFETY: every caller passes an 8-aligned address inside the block
        // (an object address from this heap plus an offset bounded by its
        // layout, or a region offset below `end`); zeroed memory is a valid
        // AtomicUsize, and the block lives as long as `self`.
        unsafe { &*(addr as *const AtomicUsize) }
    }

    /// The 4-byte heap word at `addr` (a compressed reference slot).
    #[inline(always)]
    fn word32(&self, addr: usize) -> &AtomicU32 {
        debug_assert!(self.contains(addr) && addr % 4 == 0, "{addr:#x}");
        // SAFETY: every caller passes a 4-aligned address inside the block
        // (an object address plus a reference offset bounded by its layout,
        // or its layout word's); zeroed memory is a valid AtomicU32, and the
        // block lives as long as `self`. A slot is read and written as a
        // slot, a cell's other words as words while no mutator can reach
        // the cell (allocation, copying, the pauses' compaction). The one
        // place 4- and 8-byte accesses meet is the word at offset 8 of a
        // tagged object with 4-byte slots (its tag, then reference 0),
        // which the compact format's forwarding reads and CASes whole: see
        // `Space::fwd_slot`.
        unsafe { &*(addr as *const AtomicU32) }
    }

    /// Whether `addr` is a reference slot's address in this heap: inside
    /// it and aligned to the slot width (generated code's slow entries
    /// check their `field` with it).
    #[inline]
    pub(crate) fn is_slot_addr(&self, addr: usize) -> bool {
        self.contains(addr) && addr % self.refs.slot_bytes() == 0
    }

    /// Calls `f(slot, reference)` for each of `obj`'s first `nrefs`
    /// reference slots in order: the slot's address and the reference it
    /// holds (an address, 0 for null), loaded with `order`. The heap's
    /// width is tested once for the object, not at each slot, so the
    /// collector's scan loops (marking, update-refs) run one loop body per
    /// width with the slot size a constant.
    #[inline(always)]
    pub(crate) fn for_each_ref(
        &self,
        obj: usize,
        nrefs: usize,
        order: Ordering,
        mut f: impl FnMut(usize, usize),
    ) {
        match self.refs {
            RefWidth::Full => {
                for i in 0..nrefs {
                    let slot = obj + RefWidth::Full.ref_offset(i);
                    f(slot, self.load_ref_in(RefWidth::Full, slot, order));
                }
            }
            w @ (RefWidth::Compressed | RefWidth::Unscaled) => {
                let first = obj + self.refs_offset_of(obj);
                for i in 0..nrefs {
                    let slot = first + layout::COMPRESSED_REF_BYTES * i;
                    f(slot, self.load_ref_in(w, slot, order));
                }
            }
        }
    }

    /// The reference in the slot at `slot` (an address, 0 for null).
    #[inline(always)]
    pub(crate) fn load_ref(&self, slot: usize, order: Ordering) -> usize {
        self.load_ref_in(self.refs, slot, order)
    }

    /// [`Space::load_ref`] on a heap whose width the caller knows to be
    /// `w` (a barrier set type's, `BarrierSet::refs`: then a constant, and
    /// the access carries no test of the width).
    #[inline(always)]
    pub(crate) fn load_ref_in(&self, w: RefWidth, slot: usize, order: Ordering) -> usize {
        debug_assert_eq!(w, self.refs);
        match w {
            RefWidth::Full => self.word(slot).load(order),
            RefWidth::Compressed | RefWidth::Unscaled => w.decode(self.word32(slot).load(order) as usize),
        }
    }

    /// Stores the reference `v` (an address of this heap, or 0) into the
    /// slot at `slot`.
    #[inline(always)]
    pub(crate) fn store_ref(&self, slot: usize, v: usize, order: Ordering) {
        self.store_ref_in(self.refs, slot, v, order)
    }

    /// [`Space::store_ref`] of width `w` (as [`Space::load_ref_in`]).
    #[inline(always)]
    pub(crate) fn store_ref_in(&self, w: RefWidth, slot: usize, v: usize, order: Ordering) {
        debug_assert_eq!(w, self.refs);
        match w {
            RefWidth::Full => self.word(slot).store(v, order),
            RefWidth::Compressed | RefWidth::Unscaled => self.word32(slot).store(self.narrow(v), order),
        }
    }

    /// Compares the slot at `slot` of a heap of width `w` (as
    /// [`Space::load_ref_in`]) with the reference `current` and replaces it
    /// with `new` when equal: `Ok(current)`, or `Err` with the reference it
    /// held (as `AtomicUsize::compare_exchange`, on addresses).
    #[inline(always)]
    pub(crate) fn cas_ref_in(
        &self,
        w: RefWidth,
        slot: usize,
        current: usize,
        new: usize,
        success: Ordering,
        failure: Ordering,
    ) -> Result<usize, usize> {
        debug_assert_eq!(w, self.refs);
        match w {
            RefWidth::Full => self.word(slot).compare_exchange(current, new, success, failure),
            RefWidth::Compressed | RefWidth::Unscaled => self
                .word32(slot)
                .compare_exchange(self.narrow(current), self.narrow(new), success, failure)
                .map(|v| w.decode(v as usize))
                .map_err(|v| w.decode(v as usize)),
        }
    }

    /// Self-heals the slot at `slot` from the stale reference it held to
    /// `healed` ([`forwarding::heal`]'s rule: a failure means another store
    /// won, and that value stands).
    #[inline]
    pub(crate) fn heal_ref(&self, slot: usize, stale: usize, healed: usize) {
        match self.refs {
            RefWidth::Full => forwarding::heal(self.word(slot), stale, healed),
            RefWidth::Compressed | RefWidth::Unscaled => {
                // Release and Relaxed: as `forwarding::heal`'s.
                let _ = self.cas_ref_in(
                    self.refs,
                    slot,
                    stale,
                    healed,
                    Ordering::Release,
                    Ordering::Relaxed,
                );
            }
        }
    }

    /// The compressed slot value of the reference `v` of a compressed heap.
    #[inline(always)]
    fn narrow(&self, v: usize) -> u32 {
        debug_assert!(v == 0 || self.contains(v) && v % 8 == 0, "{v:#x}");
        // Every address of a compressed heap is below 2^35, of an unscaled
        // one below 2^32 (`Space::new`), so its encoding fits 32 bits.
        self.refs.encode(v) as u32
    }

    /// The object's header, pinned (it never moves while its lock is held:
    /// see [`crate::gc::Mutator::lock`]).
    #[inline(always)]
    pub(crate) fn header(&self, obj: usize) -> Pin<&Header> {
        debug_assert!(self.contains(obj));
        // SAFETY: `obj` is an object address of this heap, where a Header was
        // written at allocation (or its word copied, at evacuation); the
        // memory outlives the borrow of `self`; a heap object is not moved
        // in memory by Rust, only copied by the collector, which never copies
        // a locked object (pinned regions are never evacuated).
        unsafe { Pin::new_unchecked(&*(obj as *const Header)) }
    }

    #[inline(always)]
    pub(crate) fn region_index(&self, addr: usize) -> usize {
        (addr - self.base) >> self.region_shift
    }

    #[inline(always)]
    pub(crate) fn region(&self, addr: usize) -> &Region {
        &self.regions[self.region_index(addr)]
    }

    /// Whether `addr` is in the collection set (set and cleared in pauses,
    /// read after them: the safepoint orders it, so Relaxed). Read from
    /// the map, the byte a region's flag points to, rather than through
    /// the region: one load instead of two dependent ones, for
    /// update-refs, which asks once per reference field it parses.
    #[inline(always)]
    pub(crate) fn in_cset(&self, addr: usize) -> bool {
        self.cset_map[self.region_index(addr)].load(Ordering::Relaxed)
    }

    /// The collection-set map's address biased by the heap's base: the
    /// byte of heap address `a` is at `cset_biased() + (a >> region_shift)`
    /// (a wrapping computation; only heap addresses land in the map).
    pub(crate) fn cset_biased(&self) -> usize {
        (self.cset_map.as_ptr() as usize).wrapping_sub(self.base >> self.region_shift)
    }

    /// The object whose cell starts at `region`'s bottom (a humongous
    /// object's, or the first one parsed).
    #[inline]
    pub(crate) fn object_at_bottom(&self, region: &Region) -> usize {
        region.bottom + self.format.cell_to_object()
    }

    /// The word that records `obj`'s copy: its forwarding word (Brooks)
    /// or its layout word (compact), with the value it holds while `obj`
    /// is not copied when that is `unforwarded` ([`forwarding::Slot`]).
    ///
    /// The compact format's slot is the 8 bytes at offset 8: a tagged
    /// object's 4-byte word and its reference 0 with 4-byte slots. It is
    /// read and CASed whole by evacuation and the barriers' resolution of
    /// objects in the collection set, which no mutator writes while
    /// copies are made; after an evacuation failure a mutator may write
    /// the reference of an object left in place while another resolves
    /// it, a 4-byte store inside an 8-byte load, which the hardware makes
    /// single-copy atomic per access (x86-64, AArch64: aligned accesses),
    /// and what the load decides on is its low half's bit 31, which that
    /// store (to the high half) does not touch (HotSpot's collectors rely
    /// on the same).
    #[inline(always)]
    pub(crate) fn fwd_slot(&self, obj: usize) -> forwarding::Slot<'_> {
        match self.format {
            CellFormat::Brooks => forwarding::Slot::brooks(self.brooks_fwd(obj), obj),
            CellFormat::Compact => {
                forwarding::Slot::compact(self.word(obj + layout::LAYOUT_WORD_OFFSET), obj)
            }
        }
    }

    /// The address of the word that records `obj`'s copy (for a prefetch).
    #[inline(always)]
    pub(crate) fn fwd_slot_addr(&self, obj: usize) -> usize {
        match self.format {
            CellFormat::Brooks => obj.wrapping_add_signed(layout::FORWARDING_OFFSET),
            CellFormat::Compact => obj + layout::LAYOUT_WORD_OFFSET,
        }
    }

    /// In a pause, for a region of the set kept by evacuation failure:
    /// gives each copied original its own layout word back (its copy's: the
    /// same shape), so that the region parses without its copies. Nothing in
    /// the Brooks format (a dead original's forwarding word is never read).
    pub(crate) fn unforward_originals(&self, region: &Region) {
        if self.format.has_forwarding_word() {
            return;
        }
        // Relaxed: in a pause (see `Region`).
        let top = region.top.load(Ordering::Relaxed);
        self.parse(region, top, |obj| {
            let word = self.word(obj + layout::LAYOUT_WORD_OFFSET);
            let w = word.load(Ordering::Relaxed);
            if layout::is_forwarded_layout_word(w) {
                // The copy's 8 bytes: its layout word and, in a tagged
                // object with 4-byte slots, its reference 0, a reference of
                // the heap (the original is dead: every reference to it
                // now names the copy).
                let copy = layout::forwardee_of_layout_word(w);
                let own = self
                    .word(copy + layout::LAYOUT_WORD_OFFSET)
                    .load(Ordering::Relaxed);
                word.store(own, Ordering::Relaxed);
            }
        });
    }

    /// The forwarding word of `obj`, in the Brooks format only.
    #[inline(always)]
    pub(crate) fn brooks_fwd(&self, obj: usize) -> &AtomicUsize {
        debug_assert!(self.format.has_forwarding_word());
        self.word(obj.wrapping_add_signed(layout::FORWARDING_OFFSET))
    }

    /// The Brooks read: `obj`'s forwarding word (the object itself or its
    /// copy), in the Brooks format only. Acquire: as [`forwarding::Slot::load`].
    #[inline(always)]
    pub(crate) fn brooks_forwardee(&self, obj: usize) -> usize {
        self.brooks_fwd(obj).load(Ordering::Acquire)
    }

    /// `obj` itself, or its copy when it has one (Acquire: the copy's
    /// contents are visible before its address is used).
    #[inline(always)]
    pub(crate) fn forwardee(&self, obj: usize) -> usize {
        self.fwd_slot(obj).forwardee()
    }

    /// The first 4 bytes of `obj`'s layout word: a tagged object's whole
    /// word, an untagged one's `nrefs` (`layout.rs`: bit 30 tells them
    /// apart), or a forwarded original's half with bit 31.
    #[inline(always)]
    pub(crate) fn layout_low(&self, obj: usize) -> usize {
        // Relaxed: as `layout_word_of`.
        self.word32(obj + layout::LAYOUT_WORD_OFFSET)
            .load(Ordering::Relaxed) as usize
    }

    /// The layout word of `obj`, which is not a forwarded original: a
    /// tagged object's 4 bytes, an untagged one's 8.
    #[inline(always)]
    pub(crate) fn layout_word_of(&self, obj: usize) -> usize {
        // Relaxed: the layout word is written before the object is published
        // (by a Release store or a pause) and changes only in a copied
        // original (compact format), which no mutator reads.
        let low = self.layout_low(obj);
        debug_assert!(
            !layout::is_forwarded_layout_word(low),
            "{obj:#x} is a forwarded original"
        );
        if layout::is_tagged_layout_word(low) {
            return low;
        }
        self.word(obj + layout::LAYOUT_WORD_OFFSET)
            .load(Ordering::Relaxed)
    }

    /// The shape of an object whose own layout word is `word` (either
    /// form; for a tagged one its low 4 bytes suffice).
    #[inline(always)]
    pub(crate) fn shape_of_word(&self, word: usize) -> Shape {
        match layout::layout_tag(word) {
            Some(tag) => {
                let (nrefs, ndata) = self.tags.counts(tag);
                Shape {
                    nrefs,
                    ndata,
                    tagged: true,
                }
            }
            None => {
                let (nrefs, ndata) = layout::untagged_counts(word);
                Shape {
                    nrefs,
                    ndata,
                    tagged: false,
                }
            }
        }
    }

    /// The shape of `obj`, which is not a forwarded original.
    #[inline(always)]
    pub(crate) fn shape(&self, obj: usize) -> Shape {
        self.shape_of_word(self.layout_word_of(obj))
    }

    /// `(nrefs, ndata)` of `obj`, which is not a forwarded original.
    #[inline(always)]
    pub(crate) fn layout_of(&self, obj: usize) -> (usize, usize) {
        let s = self.shape(obj);
        (s.nrefs, s.ndata)
    }

    /// The shape of any object, a forwarded original (compact format)
    /// included: read from its copy, which has its shape.
    #[inline]
    pub(crate) fn shape_of_any(&self, obj: usize) -> Shape {
        // Relaxed: as `layout_word_of`; the forwardee is read by the parsers
        // that call this, in pauses or behind the forwarding CAS's
        // publication of the copy (a parser of a set region runs after
        // evacuation ended).
        let low = self.layout_low(obj);
        if layout::is_forwarded_layout_word(low) {
            let w = self
                .word(obj + layout::LAYOUT_WORD_OFFSET)
                .load(Ordering::Relaxed);
            return self.shape(layout::forwardee_of_layout_word(w));
        }
        self.shape(obj)
    }

    /// Offset of `obj`'s reference 0 (`obj` not a forwarded original):
    /// [`layout::REFS_OFFSET`], or 12 for a tagged object with 4-byte
    /// slots (one 4-byte load of its layout word for those).
    #[inline(always)]
    pub(crate) fn refs_offset_of(&self, obj: usize) -> usize {
        if self.refs.is_compressed() {
            self.refs
                .refs_offset(layout::is_tagged_layout_word(self.layout_low(obj)))
        } else {
            layout::REFS_OFFSET
        }
    }

    /// Size of `obj`'s cell, in words (`obj` not a forwarded original).
    #[inline(always)]
    pub(crate) fn cell_words(&self, obj: usize) -> usize {
        self.cell_words_for(self.shape(obj))
    }

    /// The cell words of an object of shape `s`.
    #[inline(always)]
    pub(crate) fn cell_words_for(&self, s: Shape) -> usize {
        self.format.header_words() + self.body_words(s)
    }

    /// Words of a cell of shape `s` after its first 16 bytes from the
    /// object (header and the 8 bytes at the layout word's offset, which
    /// hold a tagged object's reference 0 with 4-byte slots).
    #[inline(always)]
    fn body_words(&self, s: Shape) -> usize {
        (self
            .refs
            .data_offset_from(self.refs.refs_offset(s.tagged), s.nrefs, s.ndata)
            - layout::REFS_OFFSET)
            / layout::WORD_BYTES
    }

    /// Address of reference field `i`'s slot.
    #[inline(always)]
    pub(crate) fn ref_addr(&self, obj: usize, i: usize) -> usize {
        obj + self.refs_offset_of(obj) + self.refs.slot_bytes() * i
    }

    /// Address of data word `j` of an object with `nrefs` references.
    #[cfg(test)]
    pub(crate) fn data_addr(&self, obj: usize, nrefs: usize, j: usize) -> usize {
        self.data_addr_in(self.refs, obj, nrefs, j)
    }

    /// [`Space::data_addr`] on a heap whose width the caller knows to be
    /// `w` (as [`Space::load_ref_in`]).
    #[inline(always)]
    pub(crate) fn data_addr_in(&self, w: RefWidth, obj: usize, nrefs: usize, j: usize) -> usize {
        debug_assert_eq!(w, self.refs);
        if w.is_compressed() {
            obj + w.data_offset_from(self.refs_offset_of(obj), nrefs, j)
        } else {
            obj + w.data_offset(nrefs, j)
        }
    }

    /// Writes a fresh object with the untagged layout word into the cell
    /// at `cell`.
    #[cfg(test)]
    pub(crate) fn init_object(&self, cell: usize, nrefs: usize, ndata: usize) -> usize {
        let shape = Shape {
            nrefs,
            ndata,
            tagged: false,
        };
        self.init_object_as(cell, shape, layout::layout_word(nrefs, ndata))
    }

    /// Writes a fresh object of shape `shape` into the cell at `cell`, its
    /// layout word `word` (of that shape: an untagged word's counts, or a
    /// defined tag's; 4 bytes zero-extended for a tagged one, so that its
    /// store clears what follows it).
    pub(crate) fn init_object_as(&self, cell: usize, shape: Shape, word: usize) -> usize {
        debug_assert_eq!(self.shape_of_word(word), shape);
        let obj = cell + self.format.cell_to_object();
        if self.format.has_forwarding_word() {
            self.word(cell).store(obj, Ordering::Relaxed);
        }
        // SAFETY: the header word is a valid, 8-aligned word of the block that
        // no other thread can reach yet (the object is unpublished); a Header
        // is exactly one word (asserted above), so writing one overwrites
        // nothing else; the old contents need no drop (this word held a
        // filler or a dead object, whose header, if it named a lock, was
        // dropped when its region was freed: `release_dead_locks`).
        unsafe { std::ptr::write((obj + layout::HEADER_OFFSET) as *mut Header, Header::new()) };
        self.word(obj + layout::LAYOUT_WORD_OFFSET)
            .store(word, Ordering::Relaxed);
        for k in 0..self.body_words(shape) {
            self.word(obj + layout::REFS_OFFSET + layout::WORD_BYTES * k)
                .store(0, Ordering::Relaxed);
        }
        obj
    }

    /// Copies `obj`, whose layout word is `layout_word` and whose cell has
    /// `body_words` words after its layout word ([`Space::body_words`] of
    /// the word's counts), into the cell at `cell` (evacuation); returns
    /// the copy.
    #[inline(always)]
    pub(crate) fn copy_object(
        &self,
        obj: usize,
        layout_word: usize,
        body_words: usize,
        cell: usize,
    ) -> usize {
        let copy = cell + self.format.cell_to_object();
        debug_assert_eq!(self.body_words(self.shape_of_word(layout_word)), body_words);
        debug_assert_eq!(
            self.header(obj).lock_state(),
            LockState::Unlocked,
            "a locked object's region is kept out of the set (collector/cycle.rs, \"Locked objects\")"
        );
        // Relaxed: the copy is published by the forwarding CAS (AcqRel)
        // that follows, not by these stores.
        if self.format.has_forwarding_word() {
            self.word(cell).store(copy, Ordering::Relaxed);
        }
        // The header (with its hash), the 8 bytes of the layout word as the
        // caller read them (a winner may have replaced the original's
        // since: compact format; a tagged object's reference 0 with 4-byte
        // slots is the high half, so the copy has the value the CAS will
        // expect) and the rest, word by word. Nobody writes a from-space object
        // once evacuation has begun, so the copy is a snapshot. Relaxed: the
        // forwarding CAS publishes the copy with Release.
        let header = self.word(obj + layout::HEADER_OFFSET).load(Ordering::Relaxed);
        self.word(copy + layout::HEADER_OFFSET)
            .store(header, Ordering::Relaxed);
        self.word(copy + layout::LAYOUT_WORD_OFFSET)
            .store(layout_word, Ordering::Relaxed);
        for k in 0..body_words {
            let offset = layout::REFS_OFFSET + layout::WORD_BYTES * k;
            let v = self.word(obj + offset).load(Ordering::Relaxed);
            self.word(copy + offset).store(v, Ordering::Relaxed);
        }
        copy
    }

    /// Evacuates `obj` (in the collection set) into `lab`, racing any other
    /// evacuator ([`super::forwarding::evacuate`]); returns the forwardee
    /// and whether this call's copy won (a losing copy is rolled back). The
    /// forwardee is `obj` itself when evacuation failed (no space for
    /// copies this cycle): the object then stays where it is.
    pub(crate) fn evacuate(&self, obj: usize, lab: &Lab) -> (usize, bool) {
        let mut won = false;
        let to = super::forwarding::evacuate(&self.evac_scope, self.fwd_slot(obj), || {
            let (to, w) = self.evacuate_inside_scope(obj, lab)?;
            won = w;
            Some(to)
        });
        (to, won)
    }

    /// As [`Space::evacuate`], for a caller already inside the evacuation
    /// scope (`collector/cycle.rs`'s batches) and an object not yet forwarded
    /// when it looked: `Some((forwardee, whether this call's copy won))`,
    /// or `None` when `lab` found no space for the copy (the caller must
    /// then fail the scope, which leaves it).
    pub(crate) fn evacuate_inside_scope(&self, obj: usize, lab: &Lab) -> Option<(usize, bool)> {
        let (mut copied, bytes) = (None, std::cell::Cell::new(0));
        let to = super::forwarding::evacuate_inside(
            self.fwd_slot(obj),
            |seen| {
                // The shape: the compact format's slot is the layout word
                // (read once, unforwarded); the Brooks format's, the object.
                let layout_word = match self.format {
                    CellFormat::Compact => seen,
                    // Relaxed: a Brooks cell's layout word never changes.
                    CellFormat::Brooks => self
                        .word(obj + layout::LAYOUT_WORD_OFFSET)
                        .load(Ordering::Relaxed),
                };
                let body = self.body_words(self.shape_of_word(layout_word));
                bytes.set((self.format.header_words() + body) * 8);
                let cell = lab.alloc(self, bytes.get(), Pool::Evacuation)?;
                let copy = self.copy_object(obj, layout_word, body, cell);
                copied = Some(copy);
                Some(copy)
            },
            // The losing copy is the LAB's latest allocation: roll it back.
            |lost| lab.undo(lost - self.format.cell_to_object(), bytes.get()),
        )?;
        Some((to, copied == Some(to)))
    }

    /// Writes a filler over `[start, end)`: its first word holds the
    /// length in words above two low bits `11` (module docs).
    pub(crate) fn fill(&self, start: usize, end: usize) {
        if start < end {
            self.word(start)
                .store((((end - start) / 8) << 2) | FILLER_TAG, Ordering::Relaxed);
        }
    }

    /// Flags the region of `obj` (an object of this heap, not moving
    /// meanwhile) if its header names a monitor ([`Space::note_monitor`]).
    #[inline]
    pub(crate) fn note_monitor_if_inflated(&self, obj: usize) {
        if self.header(obj).is_inflated() {
            self.note_monitor(self.region_index(obj));
        }
    }

    /// Flags region `index`, which holds an object whose header names a
    /// monitor: the monitor remembers the address, so the region stays out
    /// of this cycle's collection set (`monitor_seen`), and freeing it
    /// releases a dead object's monitor (`lock_seen`). Every runtime path
    /// after which a held or contended lock may be inflated calls it
    /// (`collector/cycle.rs`, "Locked objects").
    #[inline]
    pub(crate) fn note_monitor(&self, index: usize) {
        let r = &self.regions[index];
        // Relaxed: read in pauses, which the safepoint orders after this
        // mutator's writes (see `Region`).
        r.lock_seen.store(true, Ordering::Relaxed);
        r.monitor_seen.store(true, Ordering::Relaxed);
    }

    /// Drops the header of every object in `region` that still names a
    /// lock, so `fastpath::sync` forgets the address before the memory is
    /// reused or freed. Without it a dead object left inflated keeps its
    /// monitor, and a later deflation pass would write the restored header
    /// into whatever object then lives there.
    ///
    /// Called on a region that is being freed (in a pause, or when the heap
    /// drops) and parseable to its top. A forwarded object is skipped: its
    /// header word was copied and now belongs to the copy (and a locked
    /// object is never copied, so the original names no lock anyway).
    ///
    /// The candidates: the objects of `sync`'s installed monitors that lie
    /// in the region, while there are at most one per 256 bytes of it
    /// (reading every object's header costs a region's worth of loads, and
    /// a program that inflates one object per iteration frees such a
    /// region at every cycle); past that, every object, parsed. An object
    /// with no monitor has nothing to release: a dead object is on no
    /// lock-stack and in no lock record (those pin their regions).
    #[cold]
    pub(crate) fn release_dead_locks(&self, region: &Region) {
        // Relaxed: in a pause, or when the heap drops (see `Region`).
        let top = region.top.load(Ordering::Relaxed);
        let release = |obj: usize| {
            if self.forwardee(obj) != obj {
                return;
            }
            if self.header(obj).lock_state() == LockState::Unlocked {
                return;
            }
            // SAFETY: `obj` holds a Header written at allocation. The object
            // is dead (its region is being freed: nothing live remains in it,
            // and no mutator can reach it) and no `ObjLock` pins the region,
            // so no thread is inside a call on this header; a concurrent
            // deflation pass is ordered against the drop by sync's registry
            // lock (lifecycle.rs). The word is never used as a Header again
            // without `init_object` writing a fresh one.
            unsafe { std::ptr::drop_in_place(obj as *mut Header) };
        };
        match crate::sync::monitored_headers_in(region.bottom, top, (top - region.bottom) / 256) {
            Some(objects) => objects.into_iter().for_each(release),
            None => self.parse(region, top, release),
        }
    }

    /// Calls `f` with every object in `[bottom of region, limit)`.
    pub(crate) fn parse(&self, region: &Region, limit: usize, f: impl FnMut(usize)) {
        self.parse_from(region.bottom, limit, f);
    }

    /// Calls `f` with every live object of `region` below `limit`, in
    /// address order: below the region's TAMS the marked ones, found in the
    /// mark bitmap (a dead object's memory is never read), and from TAMS up
    /// every object, parsed (allocated since mark start: live). As
    /// Shenandoah iterates a region's marked objects through its marking
    /// context. Valid from final-mark until the next reset clears the marks.
    pub(crate) fn for_each_live(&self, region: &Region, limit: usize, mut f: impl FnMut(usize)) {
        // Relaxed: `tams` and the marks are written before final-mark's
        // pause and read after it (ordered by the safepoint).
        let tams = region.tams.load(Ordering::Relaxed).min(limit);
        // A cell below TAMS ends at or below it: its object's bit is below.
        let end = (tams - self.base) / 8;
        let mut w = (region.bottom - self.base) / 8;
        while w < end {
            let word = w / 64;
            let next = (word + 1) * 64;
            let mut bits = self.marks[word].load(Ordering::Relaxed) & (!0u64 << (w % 64));
            if next > end {
                bits &= (1u64 << (end % 64)) - 1;
            }
            while bits != 0 {
                let obj = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                f(self.base + obj * 8);
            }
            w = next;
        }
        self.parse_from(tams, limit, f);
    }

    /// Calls `f` with every object in `[p, limit)`, `p` a cell's start;
    /// a forwarded original (compact format) is one too, of its copy's size.
    fn parse_from(&self, mut p: usize, limit: usize, mut f: impl FnMut(usize)) {
        while p < limit {
            let w = self.word(p).load(Ordering::Relaxed);
            if w & FILLER_TAG == FILLER_TAG {
                p += (w >> 2) * 8;
            } else {
                let obj = p + self.format.cell_to_object();
                let shape = self.shape_of_any(obj);
                f(obj);
                p += self.cell_words_for(shape) * 8;
            }
        }
    }

    /// Carves a chunk of at least `min` and at most `want` bytes from `pool`.
    pub(crate) fn carve(&self, min: usize, want: usize, pool: Pool) -> Option<(usize, usize)> {
        let mut a = self.lock_alloc();
        let a = &mut *a;
        if pool == Pool::Evacuation {
            if self.evac_lab_limit.is_some_and(|limit| a.evac_taken >= limit) {
                return None;
            }
            a.evac_taken += 1;
        }
        let floor = a.mutator_floor;
        let mut none = Vec::new();
        let (current, mut sources) = match pool {
            Pool::Mutator => (&mut a.current, [&mut a.free, &mut none]),
            Pool::Evacuation => (&mut a.evac_current, [&mut a.evac_free, &mut a.free]),
        };
        loop {
            if let Some(r) = *current {
                let region = &self.regions[r];
                let top = region.top.load(Ordering::Relaxed);
                let room = region.bottom + self.region_bytes - top;
                if room >= min {
                    let size = room.min(want);
                    // Relaxed: `top` is read by the collector only in pauses
                    // (ordered by the safepoint) and by this lock's holders.
                    region.top.store(top + size, Ordering::Relaxed);
                    return Some((top, top + size));
                }
            }
            if pool == Pool::Mutator && sources[0].len() <= floor + self.held_back() {
                return None;
            }
            let next = sources.iter_mut().find_map(|s| s.pop())?;
            // Relaxed: under the allocation lock (see `Region`).
            self.regions[next].used.store(true, Ordering::Relaxed);
            self.read_ahead.taken(next, self.capacity());
            if pool == Pool::Mutator {
                // Relaxed: a statistic's counter (`collector/trigger.rs`).
                self.taken_regions.fetch_add(1, Ordering::Relaxed);
                self.note_free_left(sources[0].len());
            }
            *current = Some(next);
        }
    }

    /// A mutator's refill left `free` regions on the free list (under the
    /// allocation lock): raises [`Space::cycle_due`] if that is below the
    /// collector's start.
    #[inline]
    pub(crate) fn note_free_left(&self, free: usize) {
        // Relaxed: a hint to wake the collector, which reads the free list
        // itself under the allocation lock once woken; a stale threshold
        // costs at most one idle poll's delay.
        if free < self.start_cycle_below.load(Ordering::Relaxed) {
            self.cycle_due.store(true, Ordering::Relaxed);
        }
    }

    /// Returns a region to the free list, empty.
    pub(crate) fn free_region(&self, a: &mut AllocState, r: usize) {
        // Relaxed throughout: in a pause or under the allocation lock (`a`),
        // see `Region`.
        let region = &self.regions[r];
        if region.lock_seen.swap(false, Ordering::Relaxed) {
            self.release_dead_locks(region);
        }
        if self.cards_in_use {
            let first = (region.bottom - self.base) >> CARD_SHIFT;
            for card in &self.cards[first..first + (self.region_bytes >> CARD_SHIFT)] {
                card.store(CLEAN_CARD, Ordering::Relaxed);
            }
        }
        region.top.store(region.bottom, Ordering::Relaxed);
        region.tams.store(region.bottom, Ordering::Relaxed);
        region.watermark.store(region.bottom, Ordering::Relaxed);
        region.live_words.store(0, Ordering::Relaxed);
        region.in_cset.store(false, Ordering::Relaxed);
        region.evac_failed.store(false, Ordering::Relaxed);
        region.used.store(false, Ordering::Relaxed);
        region.humongous.store(0, Ordering::Relaxed);
        a.free.push(r);
    }

    /// The card of `addr`.
    #[inline(always)]
    pub(crate) fn card(&self, addr: usize) -> &AtomicU8 {
        &self.cards[(addr - self.base) >> CARD_SHIFT]
    }

    /// Marks `obj`; true if this call set the bit.
    #[inline]
    pub(crate) fn mark(&self, obj: usize) -> bool {
        let w = (obj - self.base) / 8;
        let bit = 1u64 << (w % 64);
        // Relaxed: the bit is only a set-once flag; the object's contents
        // are read through the reference that led here (Acquire).
        self.marks[w / 64].fetch_or(bit, Ordering::Relaxed) & bit == 0
    }

    /// Marks `obj` as [`Space::mark`] does, with a plain read and write of
    /// its bitmap word instead of a locked read-modify-write: only for the
    /// one thread that sets marks in this heap (`HeapInner::sole_marker`).
    /// Another thread may read the word meanwhile (`is_marked`): it sees
    /// the word before or after, as with `fetch_or`. What the sole marker
    /// saves is the lock prefix, which on x86-64 also stops the loads after
    /// it until the bitmap's line is in the cache.
    #[inline]
    pub(crate) fn mark_as_sole_marker(&self, obj: usize) -> bool {
        let w = (obj - self.base) / 8;
        let bit = 1u64 << (w % 64);
        let word = &self.marks[w / 64];
        // Relaxed: as in `mark`; no other thread writes this word while
        // the sole marker marks (the caller's guarantee), so the read sees
        // every bit set before it.
        let v = word.load(Ordering::Relaxed);
        if v & bit != 0 {
            return false;
        }
        word.store(v | bit, Ordering::Relaxed);
        true
    }

    /// Words of the mark bitmap.
    pub(crate) fn mark_words(&self) -> usize {
        self.marks.len()
    }

    /// Word `k` of the mark bitmap (Relaxed: read in pauses, or as
    /// [`Space::is_marked`] reads it).
    #[inline]
    pub(crate) fn mark_word(&self, k: usize) -> u64 {
        self.marks[k].load(Ordering::Relaxed)
    }

    /// The bitmap word and bit of `obj`'s mark.
    #[inline]
    pub(crate) fn mark_position(&self, obj: usize) -> (usize, u32) {
        let w = (obj - self.base) / 8;
        (w / 64, (w % 64) as u32)
    }

    /// Whether `obj` is marked.
    #[inline]
    pub(crate) fn is_marked(&self, obj: usize) -> bool {
        let w = (obj - self.base) / 8;
        self.marks[w / 64].load(Ordering::Relaxed) & (1u64 << (w % 64)) != 0
    }

    /// Live in the current cycle: allocated since mark start, or marked.
    #[inline]
    pub(crate) fn is_live(&self, obj: usize) -> bool {
        obj >= self.region(obj).tams.load(Ordering::Relaxed) || self.is_marked(obj)
    }

    /// Clears every mark and live count (the concurrent reset): each
    /// region's bits below its [`Region::marks_top`], where every set bit
    /// lies.
    pub(crate) fn clear_marks(&self) {
        for r in self.regions.iter() {
            // Relaxed: `marks_top` is raised in pauses and reset here, in a
            // pause or in the concurrent reset, which no pause overlaps
            // (see `Region`).
            let top = r.marks_top.swap(r.bottom, Ordering::Relaxed);
            for m in &self.marks[self.mark_word_from(r.bottom)..self.mark_word_from(top)] {
                m.store(0, Ordering::Relaxed);
            }
            r.live_words.store(0, Ordering::Relaxed);
        }
    }

    /// The first mark-bitmap word wholly at or after heap address `addr`
    /// (a word covers 64 heap words, 512 bytes). A region is a whole number
    /// of bitmap words (512 bytes divide every region size), so a region's
    /// words run from its bottom's to its end's, and an address inside it
    /// rounds up to a word still inside it or to its end's.
    fn mark_word_from(&self, addr: usize) -> usize {
        (addr - self.base).div_ceil(8 * 64)
    }

    /// The address of a mark bit set in `r` at or above its
    /// [`Region::marks_top`], which [`Space::clear_marks`] would leave set
    /// (the verifier's check of the invariant); `None` when there is none.
    /// Bits in the bitmap word that `marks_top` falls in are not looked
    /// at (the reset clears that word whole).
    pub(crate) fn mark_above_marks_top(&self, r: &Region) -> Option<usize> {
        // Relaxed: read in the verifier's pause, which orders every write
        // before it (see `Region`).
        let from = self.mark_word_from(r.marks_top.load(Ordering::Relaxed));
        let end = self.mark_word_from(r.bottom + self.region_bytes);
        (from..end).find_map(|k| {
            let bits = self.marks[k].load(Ordering::Relaxed);
            (bits != 0).then(|| self.base + (k * 64 + bits.trailing_zeros() as usize) * 8)
        })
    }
}

/// A local allocation buffer: a TLAB (new objects) or a GCLAB (copies).
/// Only its owner touches it; `Cell`s let the barrier slow paths, which
/// take `&Mutator`, allocate copies.
#[derive(Default)]
pub(crate) struct Lab {
    cur: std::cell::Cell<usize>,
    end: std::cell::Cell<usize>,
}

impl Lab {
    /// Bump-allocates `bytes`, or `None` when the LAB is too small.
    #[inline(always)]
    pub(crate) fn bump(&self, bytes: usize) -> Option<usize> {
        let cur = self.cur.get();
        if self.end.get() - cur >= bytes {
            self.cur.set(cur + bytes);
            Some(cur)
        } else {
            None
        }
    }

    /// Retires the LAB and carves a new one for an allocation of `bytes`
    /// (a copy: humongous objects are never copied, so `bytes` fits a
    /// region; the mutator's TLAB lives in the thread block and gives a
    /// humongous object its run in `Mutator::tlab_refill`).
    pub(crate) fn refill(&self, space: &Space, bytes: usize, pool: Pool) -> Option<usize> {
        self.retire(space);
        debug_assert!(bytes <= space.region_bytes, "humongous objects are never copied");
        let (start, end) = space.carve(bytes, space.tlab_bytes.max(bytes), pool)?;
        self.cur.set(start + bytes);
        self.end.set(end);
        Some(start)
    }

    /// Allocates `bytes`, refilling from `pool` when needed.
    pub(crate) fn alloc(&self, space: &Space, bytes: usize, pool: Pool) -> Option<usize> {
        self.bump(bytes).or_else(|| self.refill(space, bytes, pool))
    }

    /// Takes back the allocation at `cell` of `bytes`, the LAB's latest.
    pub(crate) fn undo(&self, cell: usize, bytes: usize) {
        debug_assert_eq!(self.cur.get(), cell + bytes);
        self.cur.set(cell);
    }

    /// Fills the unused tail so the region stays parsable; the LAB is empty.
    pub(crate) fn retire(&self, space: &Space) {
        space.fill(self.cur.get(), self.end.get());
        self.cur.set(0);
        self.end.set(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TLABs stop at the mutators' floor: the standing reserve, or less
    /// while update-refs has lowered it; evacuation LABs take any region.
    #[test]
    fn tlabs_stop_at_the_mutator_floor() {
        let space = Space::small_for_test();
        let (n, reserve, region) = (space.regions.len(), space.reserve_regions, space.region_bytes);
        let mut tlabs = 0;
        while space.carve(region, region, Pool::Mutator).is_some() {
            tlabs += 1;
        }
        assert_eq!(tlabs, n - reserve, "the standing reserve is left");
        space.lock_alloc().mutator_floor = reserve - 3;
        for _ in 0..3 {
            assert!(
                space.carve(region, region, Pool::Mutator).is_some(),
                "3 of the reserve"
            );
        }
        assert!(space.carve(region, region, Pool::Mutator).is_none());
        space.lock_alloc().mutator_floor = reserve;
        assert!(
            space.carve(region, region, Pool::Evacuation).is_some(),
            "copies take what the mutators may not"
        );
        assert_eq!(space.lock_alloc().free.len(), reserve - 4);
    }

    /// A mutator's refill that leaves fewer free regions than the
    /// collector's published start raises `cycle_due`, and only that one: a
    /// refill above it, an evacuation LAB, and any refill while the start
    /// is 0 (a cycle running) leave it down; a humongous run counts too.
    #[test]
    fn a_refill_below_the_collectors_start_raises_cycle_due() {
        let space = Space::small_for_test();
        let region = space.region_bytes;
        let free = || space.lock_alloc().free.len();
        let due = || space.cycle_due.swap(false, Ordering::Relaxed);
        while free() > 100 {
            space.carve(region, region, Pool::Mutator).expect("a region");
        }
        assert!(!due(), "no start published: never due");
        space.start_cycle_below.store(98, Ordering::Relaxed);
        space.carve(region, region, Pool::Mutator).expect("a region");
        assert_eq!(free(), 99);
        assert!(!due(), "99 left: not below 98");
        space.carve(region, region, Pool::Evacuation).expect("a region");
        assert_eq!(free(), 98);
        assert!(!due(), "a copy's region is the collector's own");
        space.carve(region, region, Pool::Mutator).expect("a region");
        assert_eq!(free(), 97);
        assert!(due(), "97 left: below 98");
        assert!(!due(), "taken once");
        space.start_cycle_below.store(0, Ordering::Relaxed);
        space.carve(region, region, Pool::Mutator).expect("a region");
        assert!(!due(), "a cycle runs: 0 published");
        space.start_cycle_below.store(90, Ordering::Relaxed);
        space.alloc_humongous(3 * region).expect("a run of 3");
        assert_eq!(free(), 93);
        assert!(!due(), "93 left");
        space.alloc_humongous(4 * region).expect("a run of 4");
        assert_eq!(free(), 89);
        assert!(due(), "the humongous run took the free list below 90");
    }

    /// `for_each_ref` yields each reference slot of an object in order,
    /// with the address `ref_addr` gives and the reference `load_ref` reads,
    /// in every width and both forms, for odd and even counts and none; a
    /// tagged object's slots start where `layout.rs` says, its data word
    /// after them, and the region parses object by object.
    #[test]
    fn for_each_ref_yields_the_slots_ref_addr_and_load_ref_give() {
        for refs in [RefWidth::Full, RefWidth::Compressed, RefWidth::Unscaled] {
            let space = Space::new(CellFormat::Compact, refs, 8 << 20, 64 << 10, None).expect("heap memory");
            let (start, _) = space
                .carve(space.region_bytes, space.region_bytes, Pool::Mutator)
                .expect("a region");
            let mut p = start;
            let mut objects = Vec::new();
            for nrefs in [0, 1, 2, 3, 5] {
                for tagged in [false, true] {
                    let shape = Shape {
                        nrefs,
                        ndata: 1,
                        tagged,
                    };
                    let obj = if tagged {
                        let tag = 100 + nrefs as u32;
                        space.tags.define(tag, nrefs, 1).unwrap();
                        space.init_object_as(p, shape, layout::tagged_layout_word(tag).unwrap())
                    } else {
                        space.init_object(p, nrefs, 1)
                    };
                    assert_eq!(space.shape(obj), shape);
                    assert_eq!(
                        space.ref_addr(obj, 0) - obj,
                        if tagged {
                            refs.tagged_ref_offset(0)
                        } else {
                            refs.ref_offset(0)
                        }
                    );
                    assert_eq!(
                        space.data_addr(obj, nrefs, 0) - obj,
                        if tagged {
                            refs.tagged_data_offset(nrefs, 0)
                        } else {
                            refs.data_offset(nrefs, 0)
                        }
                    );
                    p += space.cell_words_for(shape) * 8;
                    objects.push((obj, nrefs));
                }
            }
            let mut parsed = Vec::new();
            space.parse_from(start, p, |o| parsed.push(o));
            assert_eq!(parsed, objects.iter().map(|&(o, _)| o).collect::<Vec<_>>());
            // Each object's slot i names object (k + i + 1) mod n, or null
            // for the last slot of each.
            let n = objects.len();
            for (k, &(obj, nrefs)) in objects.iter().enumerate() {
                for i in 0..nrefs {
                    let v = if i + 1 == nrefs {
                        0
                    } else {
                        objects[(k + i + 1) % n].0
                    };
                    space.store_ref(space.ref_addr(obj, i), v, Ordering::Relaxed);
                }
            }
            for &(obj, nrefs) in &objects {
                let mut seen = Vec::new();
                space.for_each_ref(obj, nrefs, Ordering::Relaxed, |slot, v| seen.push((slot, v)));
                let want: Vec<_> = (0..nrefs)
                    .map(|i| {
                        let slot = space.ref_addr(obj, i);
                        (slot, space.load_ref(slot, Ordering::Relaxed))
                    })
                    .collect();
                assert_eq!(seen, want, "{refs:?}, {nrefs} references");
                assert!(
                    seen.iter().take(nrefs.saturating_sub(1)).all(|&(_, v)| v != 0),
                    "{refs:?}"
                );
            }
        }
    }

    /// A whole region carved for a test's objects: its start, its end and
    /// its metadata.
    fn carved_region(space: &Space) -> (usize, usize, &Region) {
        let (start, end) = space
            .carve(space.region_bytes, space.region_bytes, Pool::Mutator)
            .expect("a region");
        (start, end, space.region(start))
    }

    /// A reset clears each region's marks below its `marks_top` (the
    /// highest TAMS a marking started with), wholly, and nothing of a region
    /// no marking started in; the verifier's check finds a bit the reset
    /// would leave.
    #[test]
    fn clear_marks_clears_below_each_regions_marks_top_only() {
        let space = Space::small_for_test();
        let (start, end, region) = carved_region(&space);
        let mut objects = Vec::new();
        let mut p = start;
        while p + 64 <= start + 4096 {
            objects.push(space.init_object(p, 1, 5));
            p += space.cell_words(objects[objects.len() - 1]) * 8;
        }
        space.fill(p, end);
        region.top.store(end, Ordering::Relaxed);
        region.start_marking();
        assert_eq!(region.marks_top.load(Ordering::Relaxed), end);
        for &obj in &objects {
            assert!(space.mark(obj));
        }
        assert_eq!(space.mark_above_marks_top(region), None);
        // A region no marking started in: its marks_top is its bottom, so
        // a bit there is one the reset would leave.
        let other = space
            .regions
            .iter()
            .find(|r| !r.used.load(Ordering::Relaxed))
            .expect("a free region");
        let stray = other.bottom + 8 * 70;
        space.mark(stray);
        assert_eq!(space.mark_above_marks_top(other), Some(stray));
        space.clear_marks();
        assert!(objects.iter().all(|&obj| !space.is_marked(obj)));
        assert_eq!(region.marks_top.load(Ordering::Relaxed), region.bottom);
        assert!(
            space.is_marked(stray),
            "the reset left the unmarked region's bitmap alone"
        );
        // A lower TAMS next time: marks_top keeps the higher one until the reset.
        region.top.store(start + 1024, Ordering::Relaxed);
        region.start_marking();
        region.top.store(start + 512, Ordering::Relaxed);
        region.start_marking();
        assert_eq!(region.marks_top.load(Ordering::Relaxed), start + 1024);
    }

    /// `for_each_live` yields, in address order, the marked objects below
    /// TAMS (never an unmarked one, whatever bitmap word its bit falls in)
    /// and every object from TAMS to the limit, fillers skipped; a stale bit
    /// above TAMS yields its object once.
    #[test]
    fn for_each_live_yields_the_marked_below_tams_and_all_above() {
        let space = Space::small_for_test();
        let (start, end, region) = carved_region(&space);
        let mut objects = Vec::new();
        let mut p = start;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        loop {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (nrefs, ndata) = ((seed >> 33) as usize % 4, (seed >> 40) as usize % 12);
            let words = space.cell_words_for(Shape {
                nrefs,
                ndata,
                tagged: false,
            });
            if p + words * 8 > end - 64 {
                break;
            }
            objects.push(space.init_object(p, nrefs, ndata));
            p += words * 8;
        }
        space.fill(p, end);
        let tams = objects[objects.len() * 2 / 3] - space.format.cell_to_object();
        region.tams.store(tams, Ordering::Relaxed);
        // Bits above TAMS too, below: the region's whole bitmap may be set.
        region.marks_top.store(end, Ordering::Relaxed);
        let mut expected = Vec::new();
        for (k, &obj) in objects.iter().enumerate() {
            if obj >= tams {
                // A bit above TAMS would be stale: it must not count twice.
                space.mark(obj);
                expected.push(obj);
            } else if k % 3 != 1 {
                assert!(space.mark(obj));
                expected.push(obj);
            }
        }
        let mut seen = Vec::new();
        space.for_each_live(region, end, |obj| seen.push(obj));
        assert_eq!(seen, expected);
        // A limit at a marked object's cell, inside a bitmap word.
        let limit = objects[objects.len() / 3 / 3 * 3] - space.format.cell_to_object();
        seen.clear();
        space.for_each_live(region, limit, |obj| seen.push(obj));
        let below: Vec<usize> = expected.iter().copied().filter(|&o| o < limit).collect();
        assert_eq!(seen, below, "a limit below TAMS clips the bitmap walk");
    }
}
