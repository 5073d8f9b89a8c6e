//! The card mark (Serial's and Parallel's post-write barrier): dirty the
//! card of the object written, unconditionally, for a generational
//! collector's remembered set (this collector is not generational: the
//! cards are cleaned each cycle; the barrier is there to be costed). Fast
//! path: one byte store off the biased card base; no slow path.

use std::sync::atomic::Ordering;

use crate::gc::barrier_set::BarrierSet;
use crate::gc::heap::mutator::Bound;
use crate::gc::heap::space::DIRTY_CARD;

impl<B: BarrierSet> Bound<'_, B> {
    /// Dirties the card of `obj`.
    #[inline(always)]
    pub(super) fn card_mark(self, obj: usize) {
        // Relaxed: a card is a hint, read by the collector in pauses
        // (ordered by the safepoint mutex).
        self.card(obj).store(DIRTY_CARD, Ordering::Relaxed);
    }
}
