//! Shenandoah's CAS barrier: while copies exist, a reference CAS can fail
//! only because the field holds the other copy of the expected object;
//! then it retries with that copy as the expected value. Fast path:
//! nothing on success; on failure, test HAS_FORWARDED. Slow path: retry
//! while the field's value and the expected one resolve to one object.

use std::sync::atomic::Ordering;

use super::super::barrier::BarrierSet;
use super::super::forwarding;
use super::super::mutator::Mutator;
use super::super::runtime::HAS_FORWARDED;
use super::super::settings::Barrier;

impl<B: BarrierSet> Mutator<B> {
    /// Whether a failed reference CAS must take the slow path.
    #[inline(always)]
    pub(super) fn cas_barrier_active(&self) -> bool {
        self.has(Barrier::Cas) && self.gc_state() & HAS_FORWARDED != 0
    }

    /// `cas` slow path: the CAS failed while copies exist; if the field
    /// holds the other copy of the expected object, retry with that copy
    /// as the expected value.
    #[cold]
    #[inline(never)]
    pub(super) fn cas_slow(
        &self,
        o: usize,
        addr: usize,
        expected: usize,
        new: usize,
        mut actual: usize,
    ) -> bool {
        let s = self.space();
        let target = |x: usize| {
            if x == 0 {
                0
            } else {
                forwarding::forwardee(s.fwd(x))
            }
        };
        while actual != 0 && expected != 0 && target(actual) == target(expected) {
            // AcqRel: as cas_raw.
            match s
                .word(addr)
                .compare_exchange(actual, new, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => {
                    self.cas_succeeded(o, addr, actual, new);
                    return true;
                }
                Err(now) => actual = now,
            }
        }
        false
    }
}
