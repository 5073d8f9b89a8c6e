//! The class space: where every `Class` lives, so that a 30-bit tag names
//! it (a compressed class pointer, as HotSpot's compressed class space).
//!
//! Where it sits: under `loader.rs`, which places each class here instead
//! of in its own heap allocation; over nothing but the system's memory.
//! The object model (`object/mod.rs`) tags every instance with its class's
//! [`tag`] (`fastpath::gc::Mutator::alloc_unrooted_tagged`: the tag rides in
//! the layout word, so an instance carries no class word), and reads the
//! class back as [`class_of_tag`]: the space's base plus the tag, the
//! class's byte offset in the space.
//!
//! The space is reserved at [`PREFERRED_BASE`], 1 GiB, where it can: there
//! a tagged layout word's high half (the tagged bit, bit 30 of it, then the
//! tag) is the class's address, so compiled code decodes a class from the
//! word with one shift and no constant (`jit/emit.rs`'s `class_of`;
//! HotSpot's unscaled compressed class pointers, for the same reason: its
//! class space below 4 GiB needs no base and no shift). Elsewhere, it adds
//! [`decode_offset`].
//!
//! The space is one mapping reserved at first use ([`SPACE_BYTES`], its
//! pages backed only when touched) and bump-allocated, 8-aligned; classes
//! are never freed (the VM unloads none), so a tag stays valid for the
//! process. A space that fills refuses the class (`OutOfMemoryError`:
//! "Compressed class space", HotSpot's words for the same failure).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use super::Class;

/// Bytes reserved for the space: 256 MiB, room for several hundred
/// thousand classes; within the tag's reach (2^30 bytes).
pub const SPACE_BYTES: usize = 256 << 20;

/// Each class's slot starts at a multiple of this (at least `Class`'s
/// alignment).
const SLOT_ALIGN: usize = 8;

/// Where the space is reserved when that address is free: the tagged bit
/// (bit 62 of the layout word, bit 30 of its high half), so that
/// `word >> 32` is the class of a tagged word. A tag is the class's byte
/// offset in the space, unscaled: the space fits the tag's 30 bits.
pub const PREFERRED_BASE: usize =
    fastpath::gc::layout::LAYOUT_TAGGED_BIT >> fastpath::gc::layout::LAYOUT_TAG_SHIFT;

const _: () = {
    assert!(SPACE_BYTES <= fastpath::gc::layout::MAX_LAYOUT_TAG as usize + 1);
    assert!(std::mem::align_of::<Class>() <= SLOT_ALIGN);
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

/// What compiled code adds to `word >> 32` of a tagged layout word to get
/// its class: 0 when the space sits at [`PREFERRED_BASE`]. Reserves the
/// space if no class has yet.
pub fn decode_offset() -> Result<i64, String> {
    space().map(|s| s.base.wrapping_sub(PREFERRED_BASE) as i64)
}

/// Moves `c` into the space: its address for the rest of the process.
pub fn place(c: Class) -> Result<&'static mut Class, String> {
    let s = space()?;
    let size = std::mem::size_of::<Class>().next_multiple_of(SLOT_ALIGN);
    // Relaxed: the counter only divides the space between callers; the
    // class itself is published by the loader's lock (`loader.rs`).
    let at = s.used.fetch_add(size, Ordering::Relaxed);
    if at + size > SPACE_BYTES {
        return Err(format!("Compressed class space: {} MiB full", SPACE_BYTES >> 20));
    }
    let p = (s.base + at) as *mut Class;
    // SAFETY: `p` is `SLOT_ALIGN`-aligned (the base is page-aligned, every
    // slot a multiple of it, at least `Class`'s alignment: asserted above),
    // inside the mapping, and this caller's alone (the `fetch_add` gave the
    // range to no one else); it is never freed, so `'static` holds.
    unsafe {
        p.write(c);
        Ok(&mut *p)
    }
}

/// The tag of class `c` (placed by [`place`]): its offset in the space.
#[inline(always)]
pub fn tag(c: &'static Class) -> u32 {
    // Relaxed: see `BASE`.
    let off = (c as *const Class as usize).wrapping_sub(BASE.load(Ordering::Relaxed));
    debug_assert!(off < SPACE_BYTES && off % SLOT_ALIGN == 0, "{off:#x}");
    off as u32
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
    // SAFETY: the caller's contract: `base + tag * 8` is a placed class,
    // which lives for the process.
    unsafe { &*((base + tag as usize) as *const Class) }
}
