//! The Brooks write barrier (Shenandoah 2017): a write must go to the
//! to-space copy, so while evacuation runs the object is copied first (if
//! it is in the collection set), and the stored reference is resolved too
//! (Shenandoah's storeval barrier), so no from-space reference is stored
//! while copies exist. Fast path: test EVACUATION|HAS_FORWARDED, then read
//! through the forwarding word (the seed's four instructions). Slow path:
//! evacuate or resolve the object, resolve the value; the whole access is
//! then done out of line (`store_slow`, `write_slow` in `mod.rs`), so the
//! fast path keeps no register live across a call.

use crate::gc::barrier_set::BarrierSet;
use crate::gc::heap::mutator::Bound;
use crate::gc::heap::runtime::{EVACUATION, HAS_FORWARDED};
use crate::gc::settings::Barrier;

impl<B: BarrierSet> Bound<'_, B> {
    /// Whether `brooks-wb` must take its slow path: the state byte's test.
    #[inline(always)]
    pub(super) fn brooks_wb_active(self) -> bool {
        self.has(Barrier::BrooksWb) && self.gc_state() & (EVACUATION | HAS_FORWARDED) != 0
    }

    /// The object to write `obj` through, and the value `v` to store.
    #[inline(always)]
    pub(crate) fn resolve_for_write(self, obj: usize, v: usize) -> (usize, usize) {
        if self.brooks_wb_active() {
            self.brooks_wb_slow(obj, v)
        } else {
            (self.resolve_for_read_or_wb(obj), v)
        }
    }

    /// The object a write goes to when `brooks_wb_active` is false: through
    /// the forwarding word under either Brooks barrier.
    #[inline(always)]
    pub(super) fn resolve_for_read_or_wb(self, obj: usize) -> usize {
        if self.has(Barrier::BrooksWb) {
            self.space().brooks_forwardee(obj)
        } else {
            self.resolve_for_read(obj)
        }
    }

    /// Brooks WB slow path: copy `obj` if it is in the collection set while
    /// evacuation runs (else resolve it), and resolve `v` to to-space.
    #[cold]
    #[inline(never)]
    pub(super) fn brooks_wb_slow(self, obj: usize, v: usize) -> (usize, usize) {
        let s = self.space();
        let o = if self.gc_state() & EVACUATION != 0 && s.in_cset(obj) {
            self.evacuate(obj)
        } else {
            s.forwardee(obj)
        };
        let v = if v != 0 { s.forwardee(v) } else { 0 };
        (o, v)
    }
}
