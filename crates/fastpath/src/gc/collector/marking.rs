//! One marking thread's scanning state: a prefetch FIFO in front of the
//! scan, and the live words it counts, summed per region before they reach
//! the regions' shared counters.
//!
//! Where it sits: every loop that scans grey objects (the collector's
//! serial trace, each parallel marking worker in `parallel.rs`, a mutator's
//! marking assist in `assist.rs`) pops an object off its mark stack and
//! hands it to [`Scanner::step`] instead of scanning it at once.
//!
//! Why: marking touches each live object once, at random addresses (a
//! graph's objects are rarely where their referrer is), so a loop that
//! scans each object as it marks it waits on a cache miss per object.
//! Marking an object (`mark_object`) only sets its bit; the object's own
//! words (header, layout, fields) are read when it is scanned, and `step`
//! asks for its lines with prefetches and scans it [`RING`] steps later,
//! so that up to `RING` misses are in flight at once (the prefetch-on-grey
//! FIFO of Cher, Hosking and Vijaykumar, "Software prefetching for
//! mark-sweep garbage collection", ASPLOS 2004; the Boehm collector's
//! `GC_PREFETCH_FOR_WRITE` loop is the same idea).
//!
//! What the scan counts: the object's cell words into its region's live
//! count, and whether its header is not plain unlocked (`monitor_seen`).
//! Counting at the scan gives the sums that counting at the mark would: an
//! object is scanned exactly once for each time it is marked (the mark
//! bit picks the one thread that pushes it), and marking ends only when
//! every grey object has been scanned.
//! The live words are summed in the scanner, one entry per region, and
//! added to `Region::live_words` when the scanner is dropped (Shenandoah's
//! per-worker `ShenandoahLiveData`): one shared atomic add per region a
//! scanner touched instead of one per object. The scanner keeps a word
//! for every region, not a small cache of recent ones: a graph's objects
//! lie in regions at random, so such a cache would mostly miss.
//!
//! Invariant (what keeps a grey object from being lost in the FIFO): when
//! `step` returns with the mark stack empty, the FIFO is empty too. The
//! scan loops stop when their stack runs dry, so nothing waits in a FIFO
//! past its loop; a loop that stops early (a budget) calls
//! [`Scanner::give_back`], which returns the FIFO's objects to the stack
//! unscanned.

use std::sync::atomic::Ordering;

use crate::gc::heap::runtime::HeapInner;
use crate::sync::LockState;

/// Objects between the prefetch of an object's line and its scan. A core
/// keeps 16 to 24 misses in flight; scanning an object adds misses of its
/// own (its referents' mark-bitmap words), so the FIFO runs somewhat
/// deeper than the fill buffers (the depth is measured in BENCHMARKS.md,
/// concurrent mode).
pub(crate) const RING: usize = 32;

/// A marking thread's scanning state (module docs). Dropping it flushes
/// its live words; its FIFO must be empty then (see [`Scanner::give_back`]).
pub(crate) struct Scanner<'h> {
    heap: &'h HeapInner,
    ring: [usize; RING],
    /// Index of the oldest entry of `ring`.
    head: usize,
    len: usize,
    /// Live words counted per region, not yet added to the region's
    /// shared counter.
    live: Vec<usize>,
    /// The regions whose `live` entry is not zero.
    touched: Vec<usize>,
}

impl<'h> Scanner<'h> {
    pub(crate) fn new(heap: &'h HeapInner) -> Scanner<'h> {
        Scanner {
            heap,
            ring: [0; RING],
            head: 0,
            len: 0,
            live: vec![0; heap.space.regions.len()],
            touched: Vec::new(),
        }
    }

    /// Takes `obj` (marked, just popped off `stack`): asks for its line and
    /// queues it, scanning the oldest queued object when the FIFO is full,
    /// and every queued one while `stack` is empty. Returns the words of
    /// the objects scanned (the pacer's and the assists' measure of work).
    /// Always inlined, with [`Scanner::scan`] and `mark_object` inside it:
    /// a marking loop runs it once per object, and each call out of line
    /// saves and restores the registers the loop keeps its state in.
    #[inline(always)]
    pub(crate) fn step(&mut self, obj: usize, stack: &mut Vec<usize>) -> usize {
        // The header, the layout word and the first two reference fields
        // (`obj .. obj + 32`): one line, or two when the object starts in
        // the second half of a line (cells are not line-aligned), so that
        // the scan of a small object finds every word it reads in the cache.
        prefetch(obj);
        prefetch(obj + 31);
        let mut words = 0;
        if self.len == RING {
            let oldest = self.pop_oldest();
            words += self.scan(oldest, stack);
        }
        self.ring[(self.head + self.len) % RING] = obj;
        self.len += 1;
        while stack.is_empty() && self.len > 0 {
            let oldest = self.pop_oldest();
            words += self.scan(oldest, stack);
        }
        words
    }

    /// Returns the queued objects, unscanned, to `stack` (a loop that stops
    /// before its stack is empty).
    pub(crate) fn give_back(&mut self, stack: &mut Vec<usize>) {
        while self.len > 0 {
            let obj = self.pop_oldest();
            stack.push(obj);
        }
    }

    #[inline]
    fn pop_oldest(&mut self) -> usize {
        let obj = self.ring[self.head];
        self.head = (self.head + 1) % RING;
        self.len -= 1;
        obj
    }

    /// Marks the objects `obj`'s fields name, pushing the newly marked on
    /// `stack`; counts `obj` live; returns its size in words.
    #[inline(always)]
    fn scan(&mut self, obj: usize, stack: &mut Vec<usize>) -> usize {
        let heap = self.heap;
        let s = &heap.space;
        let shape = s.shape(obj);
        // Acquire: pairs with the Release of the store that put the
        // reference there, so the object it names is initialized.
        s.for_each_ref(obj, shape.nrefs, Ordering::Acquire, |_, v| {
            heap.mark_object(v, stack)
        });
        let words = s.cell_words_for(shape);
        let region = s.region_index(obj);
        if s.header(obj).lock_state() != LockState::Unlocked {
            // Relaxed: read in final-mark's pause, which orders it.
            s.regions[region].monitor_seen.store(true, Ordering::Relaxed);
        }
        self.count_live(region, words);
        words
    }

    #[inline]
    fn count_live(&mut self, region: usize, words: usize) {
        let e = &mut self.live[region];
        if *e == 0 {
            self.touched.push(region);
        }
        *e += words;
    }
}

impl Drop for Scanner<'_> {
    fn drop(&mut self) {
        debug_assert_eq!(self.len, 0, "grey objects left in a marking FIFO");
        for &r in &self.touched {
            // Relaxed: a sum read in final-mark's pause (or after the
            // marking phase's workers joined), which orders it.
            self.heap.space.regions[r]
                .live_words
                .fetch_add(self.live[r], Ordering::Relaxed);
        }
    }
}

/// Asks for the cache line at `addr` (a hint: no effect on a target
/// without a prefetch wrapper).
#[inline(always)]
pub(crate) fn prefetch(addr: usize) {
    #[cfg(target_arch = "x86_64")]
    crate::arch::x86_64::prefetch_read(addr);
    #[cfg(target_arch = "aarch64")]
    crate::arch::aarch64::prefetch_read(addr);
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = addr;
}
