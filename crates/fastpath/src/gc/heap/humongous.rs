//! Humongous objects: an object larger than a region takes a run of
//! contiguous free regions of its own (HotSpot's humongous regions, in G1
//! and Shenandoah).
//!
//! Where it sits: beside the TLAB allocation. A mutator's TLAB refill for
//! an object larger than a region (`Mutator::tlab_refill`, on the thread
//! block's TLAB) lands here instead of carving a TLAB; the collector
//! ([`crate::gc::collector::cycle`], [`crate::gc::collector::compact`]) treats the run as one object.
//!
//! The layout: the object's cell begins at the bottom of the run's first
//! region (*start*, [`HUMONGOUS_START`]); the others (*continuations*,
//! [`HUMONGOUS_CONT`]) hold the rest of its fields and no cell of their own,
//! so nothing ever parses them; the last one's tail after the object is
//! left unused until the run is freed. The start region parses as one
//! object, so marking, update-refs and the verifier reach and scan it like
//! any other.
//!
//! The rules:
//! - allocated directly, never in a TLAB, from the highest run that fits
//!   (TLABs are carved from the lowest free regions and the full
//!   compaction slides everything down, so the free space stays one run
//!   between them), leaving the mutators' reserve free as a TLAB refill
//!   does;
//! - never copied by a cycle: a humongous region is never in a collection
//!   set; the full compaction slides the whole run down like any object
//!   (unless it is locked or its header names a monitor: then the run
//!   stays);
//! - reclaimed whole, when final-mark (or a full compaction) finds its
//!   object unmarked and allocated before the cycle began;
//! - an allocation that finds no run asks for a collection with how many
//!   regions it wants (`HeapInner::wait_for_cycle`): the last pause of a
//!   cycle counts "no run for the largest waiting request" as full and runs
//!   a full compaction (which gathers the free regions into one run)
//!   before any request is judged; each request is then judged on its own
//!   against [`Space::available_run`], and
//!   [`crate::gc::GcError::OutOfMemory`] is the answer only for one that
//!   does not fit: a full compaction, every mutator stopped, left no run
//!   long enough for it.

use std::sync::atomic::Ordering;

use super::space::{AllocState, Space, HUMONGOUS_CONT, HUMONGOUS_START};

impl Space {
    /// The largest object, in words (header words included): a humongous
    /// run of every region outside the mutators' reserve, and no more
    /// fields than the layout word can count.
    pub(crate) fn max_object_words(&self) -> usize {
        let run = (self.regions.len() - self.reserve_regions) * self.region_bytes / 8;
        run.min(super::layout::MAX_CELL_WORDS)
    }

    /// Regions spanned by a cell of `bytes` (a humongous object's run).
    #[inline]
    pub(crate) fn humongous_regions(&self, bytes: usize) -> usize {
        bytes.div_ceil(self.region_bytes)
    }

    /// The first region of the highest run of `n` free regions, if the
    /// mutators may take one (`n` plus the reserve free). Under the
    /// allocation lock (`a`).
    pub(crate) fn free_run(&self, a: &AllocState, n: usize) -> Option<usize> {
        if n == 0 || a.free.len() < n + self.reserve_regions + self.held_back() {
            return None;
        }
        let mut free = vec![false; self.regions.len()];
        for &r in a.free.iter() {
            free[r] = true;
        }
        let mut run = 0;
        for i in (0..free.len()).rev() {
            if free[i] {
                run += 1;
                if run == n {
                    return Some(i);
                }
            } else {
                run = 0;
            }
        }
        None
    }

    /// The longest run of free regions the mutators may take: the longest
    /// run of free regions, at most the free regions outside the reserve.
    /// A request of `n` regions (a TLAB refill is one) finds room exactly
    /// when `n` is at most this ([`Space::free_run`], `Space::carve`).
    /// Under the allocation lock (`a`).
    pub(crate) fn available_run(&self, a: &AllocState) -> usize {
        let mut free = vec![false; self.regions.len()];
        for &r in a.free.iter() {
            free[r] = true;
        }
        let (mut longest, mut run) = (0, 0);
        for f in free {
            run = if f { run + 1 } else { 0 };
            longest = longest.max(run);
        }
        longest.min(
            a.free
                .len()
                .saturating_sub(self.reserve_regions + self.held_back()),
        )
    }

    /// Regions a request of `bytes` needs from the free list: its run when
    /// humongous, else one (a TLAB's region).
    pub(crate) fn regions_for(&self, bytes: usize) -> usize {
        if bytes > self.region_bytes {
            self.humongous_regions(bytes)
        } else {
            1
        }
    }

    /// Allocates the run for a humongous cell of `bytes`; returns the
    /// cell (the start region's bottom), or `None` when no run fits (the
    /// mutator then asks for a collection, recording the want:
    /// `HeapInner::wait_for_cycle`).
    pub(crate) fn alloc_humongous(&self, bytes: usize) -> Option<usize> {
        let n = self.humongous_regions(bytes);
        let mut a = self.lock_alloc();
        let start = self.free_run(&a, n)?;
        a.free.retain(|r| !(start..start + n).contains(r));
        // Relaxed region metadata: under the allocation lock (see `Region`).
        for (k, i) in (start..start + n).enumerate() {
            let r = &self.regions[i];
            let part = (bytes - k * self.region_bytes).min(self.region_bytes);
            r.used.store(true, Ordering::Relaxed);
            let kind = if k == 0 { HUMONGOUS_START } else { HUMONGOUS_CONT };
            r.humongous.store(kind, Ordering::Relaxed);
            r.top.store(r.bottom + part, Ordering::Relaxed);
        }
        self.note_free_left(a.free.len());
        drop(a);
        // Relaxed: statistics (the second is the cycle trigger's).
        self.humongous_allocated.fetch_add(1, Ordering::Relaxed);
        self.taken_regions.fetch_add(n, Ordering::Relaxed);
        Some(self.regions[start].bottom)
    }

    /// Frees the run that starts at region `start` (its object is dead);
    /// returns its length in regions. In a pause, under the allocation lock
    /// (`a`).
    pub(crate) fn free_humongous(&self, a: &mut AllocState, start: usize) -> usize {
        let r = &self.regions[start];
        debug_assert_eq!(r.humongous(), HUMONGOUS_START);
        let n = self.humongous_regions(self.cell_words(self.object_at_bottom(r)) * 8);
        // The continuations first: the start's layout word names the run.
        for i in (start + 1..start + n).rev() {
            debug_assert_eq!(self.regions[i].humongous(), HUMONGOUS_CONT);
            self.free_region(a, i);
        }
        self.free_region(a, start);
        // Relaxed: a statistic.
        self.humongous_reclaimed.fetch_add(1, Ordering::Relaxed);
        n
    }

    /// Checks one humongous start region for the verifier: its object
    /// begins at the bottom and its continuations follow, in use.
    pub(crate) fn verify_humongous(&self, start: usize) -> Result<(), String> {
        let r = &self.regions[start];
        let n = self.humongous_regions(self.cell_words(self.object_at_bottom(r)) * 8);
        if start + n > self.regions.len() {
            return Err(format!("humongous region {start}: its object runs past the heap"));
        }
        for i in start + 1..start + n {
            let c = &self.regions[i];
            if c.humongous() != HUMONGOUS_CONT || !c.used.load(Ordering::Relaxed) {
                return Err(format!(
                    "humongous region {start}: region {i} is not its continuation"
                ));
            }
        }
        if start + n < self.regions.len() && self.regions[start + n].humongous() == HUMONGOUS_CONT {
            return Err(format!(
                "humongous region {start}: region {} continues an object that ended",
                start + n
            ));
        }
        Ok(())
    }
}
