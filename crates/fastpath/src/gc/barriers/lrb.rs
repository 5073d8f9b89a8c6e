//! The load-reference barrier (Shenandoah 2.0, JDK 13+): while forwarded
//! objects exist, every loaded reference is turned into the to-space one
//! (copying the object if evacuation still runs and nobody did yet) and the
//! field is healed, so a mutator never holds a from-space reference. Fast
//! path: test the HAS_FORWARDED bit of the state byte. Slow path: filter
//! null and references outside the collection set, evacuate or resolve,
//! CAS the field to the copy.

use crate::gc::barrier_set::BarrierSet;
use crate::gc::heap::mutator::Bound;
use crate::gc::heap::runtime::{HeapInner, EVACUATION, HAS_FORWARDED};
use crate::gc::heap::space::Lab;
use crate::gc::settings::Barrier;
use crate::thread::ThreadBlock;

impl<B: BarrierSet> Bound<'_, B> {
    /// `v`, just loaded from the field at `field`, as the caller may use it.
    #[inline(always)]
    pub(super) fn lrb(self, field: usize, v: usize) -> usize {
        if self.has(Barrier::Lrb) && self.gc_state() & HAS_FORWARDED != 0 {
            return self.lrb_slow(field, v);
        }
        v
    }

    /// LRB slow path: [`lrb_resolve`].
    #[cold]
    #[inline(never)]
    fn lrb_slow(self, field: usize, v: usize) -> usize {
        lrb_resolve(&self.m.heap, &self.m.gclab, self.t, field, v)
    }
}

/// LRB slow path, for the mutator attached to `t` (heap `heap`, GCLAB
/// `lab`): `v` was loaded from the heap word at `field` while forwarded
/// objects exist. Null and references outside the collection set pass;
/// the rest is evacuated (while evacuation runs) or resolved to its copy,
/// and the field is healed. The Rust barrier and generated code's stub
/// (`gc/barriers/jit_entry.rs`) both end here.
pub(in crate::gc) fn lrb_resolve(
    heap: &HeapInner,
    lab: &Lab,
    t: &ThreadBlock,
    field: usize,
    v: usize,
) -> usize {
    let s = &heap.space;
    if v == 0 || !s.in_cset(v) {
        return v;
    }
    let to = if t.gc_state.get() & EVACUATION != 0 {
        let (to, won) = s.evacuate(v, lab);
        if won {
            heap.stats_evacuated_by_mutators();
        }
        to
    } else {
        s.forwardee(v)
    };
    s.heal_ref(field, v, to);
    to
}
