//! The load-reference barrier (Shenandoah 2.0, JDK 13+): while forwarded
//! objects exist, every loaded reference is turned into the to-space one
//! (copying the object if evacuation still runs and nobody did yet) and the
//! field is healed, so a mutator never holds a from-space reference. Fast
//! path: test the HAS_FORWARDED bit of the state byte. Slow path: filter
//! null and references outside the collection set, evacuate or resolve,
//! CAS the field to the copy.

use super::super::barrier::BarrierSet;
use super::super::forwarding;
use super::super::mutator::Mutator;
use super::super::runtime::{EVACUATION, HAS_FORWARDED};
use super::super::settings::Barrier;

impl<B: BarrierSet> Mutator<B> {
    /// `v`, just loaded from the field at `field`, as the caller may use it.
    #[inline(always)]
    pub(super) fn lrb(&self, field: usize, v: usize) -> usize {
        if self.has(Barrier::Lrb) && self.gc_state() & HAS_FORWARDED != 0 {
            return self.lrb_slow(field, v);
        }
        v
    }

    /// LRB slow path: the value is in the collection set: evacuate it (or
    /// find its copy) and self-heal the field.
    #[cold]
    #[inline(never)]
    fn lrb_slow(&self, field: usize, v: usize) -> usize {
        let s = self.space();
        if v == 0 || !s.in_cset(v) {
            return v;
        }
        let to = if self.gc_state() & EVACUATION != 0 {
            self.evacuate(v)
        } else {
            forwarding::forwardee(s.fwd(v))
        };
        forwarding::heal(s.word(field), v, to);
        to
    }
}
