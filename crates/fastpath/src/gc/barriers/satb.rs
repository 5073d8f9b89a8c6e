//! SATB, the snapshot-at-the-beginning pre-write barrier (Yuasa; G1's and
//! Shenandoah's): while marking, a store could remove the only path to an
//! object the marker has not reached yet, so the overwritten value goes to
//! the marker. Fast path: test the MARKING bit of the thread block's state
//! byte. Slow path: buffer the old value in the block's SATB queue; a full
//! buffer goes to the heap's queue, which concurrent mark and final-mark
//! drain.

use std::sync::atomic::Ordering;

use crate::gc::barrier_set::BarrierSet;
use crate::gc::heap::mutator::{flush_satb, Bound};
use crate::gc::heap::runtime::HeapInner;
use crate::gc::heap::runtime::MARKING;
use crate::gc::settings::Barrier;
use crate::thread::{ThreadBlock, SATB_BUFFER_WORDS};

impl<B: BarrierSet> Bound<'_, B> {
    /// Whether a reference store must take SATB's slow path.
    #[inline(always)]
    pub(super) fn satb_active(self) -> bool {
        self.has(Barrier::Satb) && self.gc_state() & MARKING != 0
    }

    /// A reference store while marking: the old value is enqueued first.
    #[cold]
    #[inline(never)]
    pub(super) fn store_satb_slow(self, o: usize, v: usize, i: usize) {
        let (s, w) = (self.space(), self.refs());
        let addr = self.field_addr(o, i);
        // Relaxed: only the old value's identity matters to the marker.
        self.satb_slow(s.load_ref_in(w, addr, Ordering::Relaxed));
        // Release: as store_resolved.
        s.store_ref_in(w, addr, v, Ordering::Release);
        self.post_write(o, addr, v);
    }

    /// SATB slow path: remember the overwritten value for the marker (see
    /// [`satb_enqueue`]).
    #[cold]
    #[inline(never)]
    pub(super) fn satb_slow(self, old: usize) {
        satb_enqueue(&self.m.heap, self.t, old);
    }
}

/// SATB slow path, for the mutator attached to `t`, whose heap is `heap`:
/// remember the overwritten value for the marker, in the thread block's
/// queue (HotSpot `SATBMarkQueue`: the index is the bytes still free at the
/// buffer's start; see `thread/gc.rs`). A full buffer goes to the heap's
/// queue first. The Rust barrier and generated code's stub
/// (`gc/barriers/jit_entry.rs`) both end here.
pub(in crate::gc) fn satb_enqueue(heap: &HeapInner, t: &ThreadBlock, old: usize) {
    if old == 0 {
        return;
    }
    let mut index = t.satb_index.get();
    if index == 0 {
        flush_satb(heap, t);
        index = t.satb_index.get();
    }
    index -= 8;
    let buffer = t.satb_buffer.get();
    debug_assert!(!buffer.is_null() && index < SATB_BUFFER_WORDS * 8);
    // SAFETY: the block is attached to a mutator of `heap` (the callers'
    // contract), so `buffer` is its SATB buffer of `SATB_BUFFER_WORDS`
    // words, written only by this thread; `index` is below its size and a
    // multiple of 8 (the flush reset it to the size).
    unsafe { buffer.byte_add(index).write(old) };
    t.satb_index.set(index);
}
