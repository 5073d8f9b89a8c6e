//! The resolved data area of an object, for runtimes that read and write
//! packed sub-word fields themselves (`gc/raw.rs`).

use super::super::barrier::BarrierSet;
use super::super::heap::Space;
use super::super::mutator::Bound;

impl<B: BarrierSet> Bound<'_, B> {
    /// Address of data word 0 of `obj` (with `nrefs` references) to read
    /// through: `brooks-rb` resolves it, as `read_raw` does.
    #[inline(always)]
    pub(crate) fn data_for_read(self, obj: usize, nrefs: usize) -> usize {
        Space::data_addr(self.resolve_for_read(obj), nrefs, 0)
    }

    /// Address of data word 0 of `obj` to write through: `brooks-wb`
    /// copies the object first while evacuation runs, as `write_raw` does.
    #[inline(always)]
    pub(crate) fn data_for_write(self, obj: usize, nrefs: usize) -> usize {
        Space::data_addr(self.resolve_for_write(obj, 0).0, nrefs, 0)
    }
}
