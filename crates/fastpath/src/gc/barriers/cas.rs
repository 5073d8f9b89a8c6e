//! Shenandoah's CAS barrier: while copies exist, a reference CAS can fail
//! only because the field holds the other copy of the expected object;
//! then it retries with that copy as the expected value. Fast path:
//! nothing on success; on failure, test HAS_FORWARDED. Slow path: retry
//! while the field's value and the expected one resolve to one object.

use std::sync::atomic::Ordering;

use crate::gc::barrier_set::BarrierSet;
use crate::gc::heap::mutator::{Bound, Mutator};
use crate::gc::heap::runtime::HAS_FORWARDED;
use crate::gc::settings::Barrier;

impl<B: BarrierSet> Bound<'_, B> {
    /// Whether a failed reference CAS must take the slow path.
    #[inline(always)]
    pub(super) fn cas_barrier_active(self) -> bool {
        self.has(Barrier::Cas) && self.gc_state() & HAS_FORWARDED != 0
    }

    /// `cas` slow path: the CAS failed while copies exist; if the field
    /// holds the other copy of the expected object, retry with that copy
    /// as the expected value.
    ///
    /// Takes the mutator alone (its block is `m.block`): with the block as
    /// well, the arguments would outgrow the six argument registers; and
    /// `new` fourth, in the register where the fast path's caller holds
    /// it. Either way the fast path would pay a move to set them up.
    #[cold]
    #[inline(never)]
    pub(super) fn cas_slow(
        m: &Mutator<B>,
        o: usize,
        addr: usize,
        new: usize,
        expected: usize,
        mut actual: usize,
    ) -> bool {
        let this = m.bound();
        let s = this.space();
        let target = |x: usize| {
            if x == 0 {
                0
            } else {
                s.forwardee(x)
            }
        };
        while actual != 0 && expected != 0 && target(actual) == target(expected) {
            // AcqRel: as cas_raw.
            match s.cas_ref_in(
                this.refs(),
                addr,
                actual,
                new,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    this.cas_succeeded(o, addr, actual, new);
                    return true;
                }
                Err(now) => actual = now,
            }
        }
        false
    }
}
