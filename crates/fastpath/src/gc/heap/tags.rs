//! The heap's tag table: the counts (`nrefs`, `ndata`) of every tag a
//! runtime has defined, where the collector reads a tagged object's shape.
//!
//! Where it sits: in `Space`, beside the regions; `Mutator::define_tag`,
//! `Heap::define_tag` and the first `alloc_tagged` of a tag write an
//! entry, and `Space::layout_of` reads one for every tagged object it
//! sizes or scans (marking, evacuation, update-refs, parsing). A tagged
//! object's layout word is 4 bytes holding only its tag (`layout.rs`), so
//! that the rest of its word can hold a field; HotSpot's collectors read
//! an object's size through its klass's layout helper for the same
//! reason.
//!
//! The table is one anonymous mapping with an entry per possible tag
//! (`MAX_LAYOUT_TAG + 1`, 8 bytes each), reserved when the heap is made
//! and backed by the system only where an entry was written: a runtime
//! whose tags are small dense numbers (class indices) touches a few pages.
//!
//! Invariants: an entry is 0 (undefined) or `DEFINED | nrefs | ndata <<
//! 32`, written once (a CAS from 0) and never changed; every object
//! allocated tagged has a defined tag, defined before the object was
//! allocated; so a reader that found the object finds its entry (below).

use std::sync::atomic::{AtomicU64, Ordering};

use super::layout::{MAX_LAYOUT_TAG, MAX_TAGGED_COUNT};

/// Set in every defined entry.
const DEFINED: u64 = 1 << 63;

/// The entries, one per tag up to `MAX_LAYOUT_TAG`.
pub(crate) struct TagTable {
    entries: *const AtomicU64,
}

// SAFETY: the mapping is owned by the table (unmapped in Drop) and only
// ever accessed through atomics.
unsafe impl Send for TagTable {}
// SAFETY: as above.
unsafe impl Sync for TagTable {}

/// Bytes of the mapping.
const TABLE_BYTES: usize = (MAX_LAYOUT_TAG as usize + 1) * 8;

impl TagTable {
    /// Reserves the table (nothing defined); `Err` when the system refuses
    /// the address space.
    pub(crate) fn new() -> Result<TagTable, rustix::io::Errno> {
        use rustix::mm::{mmap_anonymous, MapFlags, ProtFlags};
        // SAFETY: an anonymous private mapping at an address the system
        // picks, owned by this table until Drop; its pages read as zero
        // (every entry undefined) until written.
        let p = unsafe {
            mmap_anonymous(
                std::ptr::null_mut(),
                TABLE_BYTES,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::PRIVATE | MapFlags::NORESERVE,
            )
        }?;
        Ok(TagTable {
            entries: p as *const AtomicU64,
        })
    }

    #[inline(always)]
    fn entry(&self, tag: u32) -> &AtomicU64 {
        assert!(tag <= MAX_LAYOUT_TAG, "tag {tag} beyond the table");
        // SAFETY: `tag` indexes the mapping (checked above; the check folds
        // away where a layout word's masked tag is the index), which lives
        // as long as `self`; zeroed memory is a valid AtomicU64.
        unsafe { &*self.entries.add(tag as usize) }
    }

    /// Defines `tag` as `(nrefs, ndata)`: `Ok` when it now has those counts
    /// (defined here or before with the same), `Err` with its other counts
    /// when it was defined with others. The counts are at most
    /// `MAX_TAGGED_COUNT` each (the caller checked).
    pub(crate) fn define(&self, tag: u32, nrefs: usize, ndata: usize) -> Result<(), (usize, usize)> {
        debug_assert!(nrefs <= MAX_TAGGED_COUNT && ndata <= MAX_TAGGED_COUNT);
        let want = DEFINED | nrefs as u64 | (ndata as u64) << 32;
        // Relaxed: an entry is written once, before any object of its tag
        // exists, and reaches every reader through the object: a thread that
        // sees an object of the tag was ordered after its allocation (the
        // object's publication: a release store or a safepoint), and the
        // allocating thread read or wrote this entry before allocating, so
        // coherence gives the reader this value or, there being no later
        // one, this value.
        match self
            .entry(tag)
            .compare_exchange(0, want, Ordering::Relaxed, Ordering::Relaxed)
        {
            Ok(_) => Ok(()),
            Err(have) if have == want => Ok(()),
            Err(have) => Err(decode(have)),
        }
    }

    /// The counts of `tag`, if defined.
    #[inline]
    pub(crate) fn get(&self, tag: u32) -> Option<(usize, usize)> {
        // Relaxed: as `define`.
        let e = self.entry(tag).load(Ordering::Relaxed);
        (e & DEFINED != 0).then(|| decode(e))
    }

    /// The counts of `tag`, the tag of an object of this heap (so defined).
    #[inline(always)]
    pub(crate) fn counts(&self, tag: u32) -> (usize, usize) {
        // Relaxed: as `define`.
        let e = self.entry(tag).load(Ordering::Relaxed);
        debug_assert!(e & DEFINED != 0, "tag {tag} of an object is undefined");
        decode(e)
    }
}

#[inline(always)]
fn decode(e: u64) -> (usize, usize) {
    ((e & 0xffff) as usize, ((e >> 32) & 0xffff) as usize)
}

impl Drop for TagTable {
    fn drop(&mut self) {
        // SAFETY: the mapping `new` made, unmapped once; the heap that owns
        // the table is going away, so no reader remains.
        let _ = unsafe { rustix::mm::munmap(self.entries as *mut std::ffi::c_void, TABLE_BYTES) };
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// A definition sticks, agrees with itself, refuses other counts, and
    /// leaves other tags undefined; the largest tag and counts fit.
    #[test]
    fn a_tag_is_defined_once() {
        let t = TagTable::new().unwrap();
        assert_eq!(t.get(7), None);
        assert_eq!(t.define(7, 3, 5), Ok(()));
        assert_eq!(t.define(7, 3, 5), Ok(()));
        assert_eq!(t.define(7, 3, 6), Err((3, 5)));
        assert_eq!((t.get(7), t.counts(7)), (Some((3, 5)), (3, 5)));
        assert_eq!(t.get(8), None);
        assert_eq!(t.define(0, 0, 0), Ok(()));
        assert_eq!(t.get(0), Some((0, 0)));
        assert_eq!(
            t.define(MAX_LAYOUT_TAG, MAX_TAGGED_COUNT, MAX_TAGGED_COUNT),
            Ok(())
        );
        assert_eq!(t.get(MAX_LAYOUT_TAG), Some((MAX_TAGGED_COUNT, MAX_TAGGED_COUNT)));
    }
}
