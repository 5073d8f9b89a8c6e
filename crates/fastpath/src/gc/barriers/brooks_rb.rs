//! The Brooks read barrier (Shenandoah 2017): every object is read through
//! its forwarding word, which points at the object itself or at its copy,
//! so reads see the to-space copy once there is one. Fast path: one load
//! (`mov -0x8(%obj),%obj`); no slow path.

use crate::gc::barrier_set::BarrierSet;
use crate::gc::heap::mutator::Bound;
use crate::gc::settings::Barrier;

impl<B: BarrierSet> Bound<'_, B> {
    /// The object to read `obj` through.
    #[inline(always)]
    pub(super) fn resolve_for_read(self, obj: usize) -> usize {
        if self.has(Barrier::BrooksRb) {
            self.space().brooks_forwardee(obj)
        } else {
            obj
        }
    }
}
