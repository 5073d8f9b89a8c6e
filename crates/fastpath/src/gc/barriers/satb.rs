//! SATB, the snapshot-at-the-beginning pre-write barrier (Yuasa; G1's and
//! Shenandoah's): while marking, a store could remove the only path to an
//! object the marker has not reached yet, so the overwritten value goes to
//! the marker. Fast path: test the MARKING bit of the state byte. Slow
//! path: buffer the old value; a full buffer goes to the heap's queue,
//! which concurrent mark and final-mark drain.

use std::sync::atomic::Ordering;

use super::super::barrier::BarrierSet;
use super::super::heap::Space;
use super::super::mutator::Mutator;
use super::super::runtime::MARKING;
use super::super::settings::Barrier;
use super::QUEUE_BUFFER;

impl<B: BarrierSet> Mutator<B> {
    /// Whether a reference store must take SATB's slow path.
    #[inline(always)]
    pub(super) fn satb_active(&self) -> bool {
        self.has(Barrier::Satb) && self.gc_state() & MARKING != 0
    }

    /// A reference store while marking: the old value is enqueued first.
    #[cold]
    #[inline(never)]
    pub(super) fn store_satb_slow(&self, o: usize, v: usize, i: usize) {
        let addr = Space::ref_addr(o, i);
        let field = self.space().word(addr);
        // Relaxed: only the old value's identity matters to the marker.
        self.satb_slow(field.load(Ordering::Relaxed));
        // Release: as store_resolved.
        field.store(v, Ordering::Release);
        self.post_write(o, addr, v);
    }

    /// SATB slow path: remember the overwritten value for the marker.
    #[cold]
    #[inline(never)]
    pub(super) fn satb_slow(&self, old: usize) {
        if old == 0 {
            return;
        }
        let mut buf = self.satb.borrow_mut();
        buf.push(old);
        if buf.len() >= QUEUE_BUFFER {
            self.heap.satb_queue().append(&mut buf);
        }
    }
}
