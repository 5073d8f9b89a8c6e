//! The class space: where every `Class` lives, so that a small tag names
//! it (a compressed class pointer, as HotSpot's compressed class space).
//!
//! Where it sits: under `loader.rs`, which places each class here instead
//! of in its own heap allocation; over nothing but the system's memory.
//! The object model (`object/mod.rs`) tags every instance with its class's
//! [`tag`] (`fastpath::gc::Mutator::alloc_unrooted_tagged`: the tag rides in
//! the layout word, so an instance carries no class word), and reads the
//! class back as [`class_of_tag`]: the space's base plus the tag times
//! [`SLOT_BYTES`], each class in a slot of its own. Tags are dense (the
//! class's index in the space), as the heap's tag table, which holds each
//! tag's counts (`fastpath::gc::Heap::define_tag`), wants them.
//!
//! The space is reserved at [`PREFERRED_BASE`] where it can: the tagged
//! bit shifted by the slot's log2, so that a tagged layout word (4 bytes:
//! the tagged bit, bit 30, then the tag) shifted left by that much is the
//! class's address, and compiled code decodes a class from the word with
//! one shift and no constant (`jit/emit.rs`'s `class_of`; HotSpot's
//! compressed class pointers are a shift from the klass too). Elsewhere,
//! it adds [`decode_offset`].
//!
//! The space is one mapping reserved at first use ([`SPACE_BYTES`], its
//! pages backed only when touched) and handed out a slot at a time;
//! classes are never freed (the VM unloads none), so a tag stays valid
//! for the process. A space that fills refuses the class (`OutOfMemoryError`:
//! "Compressed class space", HotSpot's words for the same failure).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use super::Class;

/// Bytes reserved for the space: 256 MiB, room for a quarter of a
/// million classes (with slots of 1 KiB); within the tag's reach.
pub const SPACE_BYTES: usize = 256 << 20;

/// log2 of a class's slot: the smallest power of two that holds a `Class`.
pub const SLOT_SHIFT: u32 = std::mem::size_of::<Class>().next_power_of_two().trailing_zeros();

/// Bytes of a class's slot; class `tag` is at the base plus `tag` slots.
pub const SLOT_BYTES: usize = 1 << SLOT_SHIFT;

/// Where the space is reserved when that address is free: the tagged bit
/// shifted by [`SLOT_SHIFT`], so that a tagged layout word shifted left by
/// it is its class.
pub const PREFERRED_BASE: usize = fastpath::gc::layout::LAYOUT_TAGGED_BIT << SLOT_SHIFT;

const _: () = {
    assert!(SPACE_BYTES / SLOT_BYTES <= fastpath::gc::layout::MAX_LAYOUT_TAG as usize + 1);
    assert!(std::mem::align_of::<Class>() <= SLOT_BYTES);
    assert!(SLOT_BYTES >= std::mem::size_of::<Class>());
};

struct Space {
    base: usize,
    /// Bytes handed out so far.
    used: AtomicUsize,
}

static SPACE: OnceLock<Result<Space, String>> = OnceLock::new();

/// The space's base once reserved (0 before): what [`tag`] and
/// [`class_of_tag`]'s callers read on every allocation and dispatch, one
/// plain load rather than the `OnceLock`'s.
static BASE: AtomicUsize = AtomicUsize::new(0);

fn space() -> Result<&'static Space, String> {
    SPACE
        .get_or_init(|| {
            // SAFETY: an anonymous private mapping the process owns from
            // here on (never unmapped); no address is asked for.
            let flags = rustix::mm::MapFlags::PRIVATE | rustix::mm::MapFlags::NORESERVE;
            let prot = rustix::mm::ProtFlags::READ | rustix::mm::ProtFlags::WRITE;
            // SAFETY: an anonymous private mapping the process owns from
            // here on (never unmapped); `FIXED_NOREPLACE` never replaces an
            // existing mapping (the call fails instead, and a kernel before
            // 4.17 takes the address as a hint: checked below).
            let preferred = unsafe {
                rustix::mm::mmap_anonymous(
                    PREFERRED_BASE as *mut std::ffi::c_void,
                    SPACE_BYTES,
                    prot,
                    flags | rustix::mm::MapFlags::FIXED_NOREPLACE,
                )
            };
            let p = match preferred {
                Ok(p) if p as usize == PREFERRED_BASE => p,
                other => {
                    if let Ok(elsewhere) = other {
                        // SAFETY: the mapping just made, used by nothing.
                        let _ = unsafe { rustix::mm::munmap(elsewhere, SPACE_BYTES) };
                    }
                    // SAFETY: as above, at an address the system picks.
                    unsafe { rustix::mm::mmap_anonymous(std::ptr::null_mut(), SPACE_BYTES, prot, flags) }
                        .map_err(|e| {
                            format!(
                                "the class space's {} MiB could not be reserved: {e}",
                                SPACE_BYTES >> 20
                            )
                        })?
                }
            };
            // Relaxed: read only by threads that reach a placed class, which
            // the loader published after this store (its lock's release).
            BASE.store(p as usize, Ordering::Relaxed);
            Ok(Space {
                base: p as usize,
                used: AtomicUsize::new(0),
            })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// What compiled code adds to a tagged layout word shifted left by
/// [`SLOT_SHIFT`] to get its class: 0 when the space sits at
/// [`PREFERRED_BASE`]. Reserves the space if no class has yet.
pub fn decode_offset() -> Result<i64, String> {
    space().map(|s| s.base.wrapping_sub(PREFERRED_BASE) as i64)
}

/// Moves `c` into the space: its address for the rest of the process.
pub fn place(c: Class) -> Result<&'static mut Class, String> {
    let s = space()?;
    // Relaxed: the counter only divides the space between callers; the
    // class itself is published by the loader's lock (`loader.rs`).
    let at = s.used.fetch_add(SLOT_BYTES, Ordering::Relaxed);
    if at + SLOT_BYTES > SPACE_BYTES {
        return Err(format!("Compressed class space: {} MiB full", SPACE_BYTES >> 20));
    }
    let p = (s.base + at) as *mut Class;
    // SAFETY: `p` is `SLOT_BYTES`-aligned (the base is page-aligned, every
    // slot a multiple of it, at least `Class`'s alignment: asserted above),
    // inside the mapping, and this caller's alone (the `fetch_add` gave the
    // range to no one else); it is never freed, so `'static` holds.
    unsafe {
        p.write(c);
        Ok(&mut *p)
    }
}

/// The tag of class `c` (placed by [`place`]): its slot's index in the
/// space.
#[inline(always)]
pub fn tag(c: &'static Class) -> u32 {
    // Relaxed: see `BASE`.
    let off = (c as *const Class as usize).wrapping_sub(BASE.load(Ordering::Relaxed));
    debug_assert!(off < SPACE_BYTES && off % SLOT_BYTES == 0, "{off:#x}");
    (off >> SLOT_SHIFT) as u32
}

/// The class whose tag is `tag`.
///
/// # Safety
///
/// `tag` is [`tag`]`(c)` of a class `c` placed in the space (the tag of an
/// instance the VM allocated).
#[inline(always)]
pub unsafe fn class_of_tag(tag: u32) -> &'static Class {
    // Relaxed: see `BASE`.
    let base = BASE.load(Ordering::Relaxed);
    // SAFETY: the caller's contract: `base + tag * SLOT_BYTES` is a placed
    // class, which lives for the process.
    unsafe { &*((base + ((tag as usize) << SLOT_SHIFT)) as *const Class) }
}
