//! The conditional card mark (HotSpot's `UseCondCardMark`): dirty the card
//! only if it is not dirty already, which spares a shared cache line the
//! stores. Fast path: test the card, store if clean; on x86-64 HotSpot's
//! three instructions (see [`crate::arch::x86_64::clear_byte_unless_clear`]
//! for why asm); no slow path.

use std::sync::atomic::AtomicU8;
#[cfg(not(target_arch = "x86_64"))]
use std::sync::atomic::Ordering;

use crate::gc::barrier_set::BarrierSet;
use crate::gc::heap::mutator::Bound;
use crate::gc::heap::space::DIRTY_CARD;

impl<B: BarrierSet> Bound<'_, B> {
    /// `card-cond`: dirty `card` unless it is dirty already.
    #[inline(always)]
    pub(super) fn card_cond(card: &AtomicU8) {
        #[cfg(target_arch = "x86_64")]
        {
            const _: () = assert!(DIRTY_CARD == 0, "the sequence writes the immediate 0");
            crate::arch::x86_64::clear_byte_unless_clear(card);
        }
        // Relaxed: a card is a flag the collector reads only in pauses
        // (ordered by the safepoint); the x86-64 sequence is no stronger.
        #[cfg(not(target_arch = "x86_64"))]
        if card.load(Ordering::Relaxed) != DIRTY_CARD {
            card.store(DIRTY_CARD, Ordering::Relaxed);
        }
    }
}
