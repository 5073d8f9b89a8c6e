//! G1's post-write barrier: a store of a non-null reference across regions
//! into a clean card dirties the field's card and enqueues it for
//! refinement (here the cards are cleaned at the cycle's end: the collector
//! is not generational). Fast path: the cross-region, null and clean-card
//! filters. Slow path: G1's StoreLoad fence, re-check, dirty, enqueue.

use std::sync::atomic::Ordering;

use super::QUEUE_BUFFER;
use crate::gc::barrier_set::BarrierSet;
use crate::gc::heap::mutator::Bound;
use crate::gc::heap::space::{CARD_SHIFT, DIRTY_CARD};

impl<B: BarrierSet> Bound<'_, B> {
    /// The filters, for a store of `v` into the field at `addr`.
    #[inline(always)]
    pub(super) fn g1_card(self, addr: usize, v: usize) {
        // Same region iff the addresses agree above the region bits, i.e.
        // `(addr ^ v) >> shift == 0`; written as a compare with the size so
        // the size's load folds into the `cmp` (HotSpot's shift takes an
        // immediate; ours would need a load into %cl). Relaxed card read: a
        // card is a hint, read by the collector in pauses.
        if (addr ^ v) >= self.region_bytes && v != 0 && self.card(addr).load(Ordering::Relaxed) != DIRTY_CARD
        {
            self.g1_card_slow(addr);
        }
    }

    /// G1 post-barrier slow path: a cross-region store to a clean card:
    /// dirty it and enqueue it for refinement.
    #[cold]
    #[inline(never)]
    fn g1_card_slow(self, addr: usize) {
        let s = self.space();
        // SeqCst fence: G1's StoreLoad between the reference store and the
        // card re-read, so a concurrent refiner's cleaning is not lost.
        std::sync::atomic::fence(Ordering::SeqCst);
        let card = self.card(addr);
        if card.load(Ordering::Relaxed) != DIRTY_CARD {
            card.store(DIRTY_CARD, Ordering::Relaxed);
            let mut buf = self.cards.borrow_mut();
            buf.push((addr - s.base) >> CARD_SHIFT);
            if buf.len() >= QUEUE_BUFFER {
                self.heap.card_queue().append(&mut buf);
            }
        }
    }
}
