//! The checked access API: every reference load, store and CAS, data read
//! and write, and lock a runtime makes, validated (the object is this
//! heap's, the field index within its layout) and then done by the
//! unchecked access with the set's barriers ([`crate::gc::barriers`]).
//!
//! Where it sits: between the runtime and the barriers. An [`Obj`] (a raw
//! object address) borrows its [`Mutator`], so the borrow checker forbids
//! keeping one across [`Mutator::alloc`] or [`Mutator::safepoint_poll`]
//! (both take `&mut self`), the only points where the collector can move
//! it; a [`crate::gc::Handle`] survives them. Bad input is an error value.
//!
//! Beside each checked access, an `unsafe` unchecked one
//! (`Mutator::load_unchecked`, `store_unchecked`, `read_unchecked`,
//! `write_unchecked`): the same barriers, no ownership, layout or bounds
//! check, for a runtime that has validated its own objects once (a class's
//! field layout, as compiled code trusts it). Their cost per access beside
//! the checked ones and HotSpot's is the lab's `gc --only access` table.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::gc::barrier_set::BarrierSet;
use crate::gc::heap::mutator::Mutator;
use crate::gc::heap::roots::{Handle, Obj};
use crate::gc::heap::runtime::{GcError, HeapInner};
use crate::sync;

/// A lock on a heap object, held through `fastpath::sync`; dropping it
/// unlocks. The object's region is pinned meanwhile: it is neither
/// evacuated nor freed, so the lock-stack's address stays the object's.
/// The pin lasts the guard's whole life, where the runtime lock calls
/// (`monitor_enter_unchecked`) pin only while their mutator is stopped
/// (`collector/cycle.rs`, "Locked objects"): a guard may outlive its
/// mutator (the thread is then no mutator, and its stops are nobody's),
/// and its legacy-mode record is a guard's, not a raw-API one.
pub struct ObjLock {
    guard: Option<sync::HeaderGuard<'static>>,
    obj: usize,
    region: usize,
    heap: Arc<HeapInner>,
}

impl Drop for ObjLock {
    fn drop(&mut self) {
        if let Some(guard) = self.guard.take() {
            drop(guard);
            if self.heap.space.header(self.obj).is_inflated() {
                // A monitor remembers this address: keep the region out of
                // this cycle's collection set (`collector/cycle.rs`).
                self.heap.space.note_monitor(self.region);
            }
        }
        // SeqCst: pairs with the collector's reading of pins in a pause
        // (ordered anyway by the safepoint's mutex; SeqCst costs nothing
        // extra on an RMW on x86-64 and keeps the argument local).
        self.heap.space.regions[self.region]
            .pins
            .fetch_sub(1, Ordering::SeqCst);
    }
}

impl<B: BarrierSet> Mutator<B> {
    // ---- checks ------------------------------------------------------------

    #[inline(always)]
    fn check_ref(&self, obj: Obj<'_>, i: usize) -> Result<usize, GcError> {
        let addr = self.check(obj)?;
        let (nrefs, _) = self.space().layout_of(addr);
        if i < nrefs {
            Ok(addr)
        } else {
            Err(GcError::FieldOutOfRange { index: i, len: nrefs })
        }
    }

    #[inline(always)]
    fn check_data(&self, obj: Obj<'_>, j: usize) -> Result<(usize, usize), GcError> {
        let addr = self.check(obj)?;
        let (nrefs, ndata) = self.space().layout_of(addr);
        if j < ndata {
            Ok((addr, nrefs))
        } else {
            Err(GcError::FieldOutOfRange { index: j, len: ndata })
        }
    }

    fn check_value(&self, v: Option<Obj<'_>>) -> Result<usize, GcError> {
        v.map_or(Ok(0), |o| self.check(o))
    }

    // ---- the accesses (checked) ----------------------------------------------

    /// Loads reference field `i` of `obj`.
    #[inline]
    pub fn load<'m>(&'m self, obj: Obj<'m>, i: usize) -> Result<Option<Obj<'m>>, GcError> {
        let addr = self.check_ref(obj, i)?;
        let v = self.bound().load_raw(addr, i);
        Ok((v != 0).then(|| Obj::new(v)))
    }

    /// Stores `value` into reference field `i` of `obj`.
    #[inline]
    pub fn store(&self, obj: Obj<'_>, i: usize, value: Option<Obj<'_>>) -> Result<(), GcError> {
        let addr = self.check_ref(obj, i)?;
        let v = self.check_value(value)?;
        self.bound().store_raw(addr, i, v);
        Ok(())
    }

    /// Compare-and-swaps reference field `i` of `obj` from `expected` to
    /// `new`; true if it swapped.
    #[inline]
    pub fn cas(
        &self,
        obj: Obj<'_>,
        i: usize,
        expected: Option<Obj<'_>>,
        new: Option<Obj<'_>>,
    ) -> Result<bool, GcError> {
        let addr = self.check_ref(obj, i)?;
        let e = self.check_value(expected)?;
        let n = self.check_value(new)?;
        Ok(self.bound().cas_raw(addr, i, e, n))
    }

    /// Reads data word `j` of `obj`.
    #[inline]
    pub fn read(&self, obj: Obj<'_>, j: usize) -> Result<usize, GcError> {
        let (addr, nrefs) = self.check_data(obj, j)?;
        Ok(self.bound().read_raw(addr, nrefs, j))
    }

    /// Writes data word `j` of `obj`.
    #[inline]
    pub fn write(&self, obj: Obj<'_>, j: usize, value: usize) -> Result<(), GcError> {
        let (addr, nrefs) = self.check_data(obj, j)?;
        self.bound().write_raw(addr, nrefs, j, value);
        Ok(())
    }

    // ---- the accesses (unchecked) --------------------------------------------

    /// Loads reference field `i` of `obj`, with the barriers and without
    /// the checks of [`Mutator::load`]: the fast path for a runtime that
    /// has validated its own objects (as compiled code trusts its class's
    /// field offsets).
    ///
    /// # Safety
    ///
    /// `obj` is an object of this mutator's heap (every `Obj` this mutator
    /// hands out is, unless a runtime brings in one of another heap) and
    /// `i` is below its number of reference fields ([`Mutator::shape`]).
    /// Otherwise the access reads outside the object or the heap.
    #[inline]
    pub unsafe fn load_unchecked<'m>(&'m self, obj: Obj<'m>, i: usize) -> Option<Obj<'m>> {
        let v = self.bound().load_raw(obj.addr, i);
        (v != 0).then(|| Obj::new(v))
    }

    /// Stores `value` into reference field `i` of `obj`, with the barriers
    /// and without the checks of [`Mutator::store`].
    ///
    /// # Safety
    ///
    /// As [`Mutator::load_unchecked`], and `value` is `None` or an object of
    /// this mutator's heap (a foreign reference would be followed by the
    /// collector).
    #[inline]
    pub unsafe fn store_unchecked(&self, obj: Obj<'_>, i: usize, value: Option<Obj<'_>>) {
        self.bound().store_raw(obj.addr, i, value.map_or(0, |o| o.addr));
    }

    /// Reads data word `j` of `obj`, an object with `nrefs` reference
    /// fields, with the barriers and without the checks of
    /// [`Mutator::read`] (which reads the layout from the header: the
    /// caller passes it, as compiled code knows its class's field offsets).
    ///
    /// # Safety
    ///
    /// `obj` is an object of this mutator's heap, `nrefs` is its number of
    /// reference fields and `j` is below its number of data words
    /// ([`Mutator::shape`] gives both).
    #[inline]
    pub unsafe fn read_unchecked(&self, obj: Obj<'_>, nrefs: usize, j: usize) -> usize {
        self.bound().read_raw(obj.addr, nrefs, j)
    }

    /// Writes data word `j` of `obj`, an object with `nrefs` reference
    /// fields, with the barriers and without the checks of
    /// [`Mutator::write`].
    ///
    /// # Safety
    ///
    /// As [`Mutator::read_unchecked`].
    #[inline]
    pub unsafe fn write_unchecked(&self, obj: Obj<'_>, nrefs: usize, j: usize, value: usize) {
        self.bound().write_raw(obj.addr, nrefs, j, value);
    }

    /// `(nrefs, ndata)` of `obj`.
    pub fn shape(&self, obj: Obj<'_>) -> Result<(usize, usize), GcError> {
        Ok(self.space().layout_of(self.check(obj)?))
    }

    /// The tag `obj` was allocated with ([`Mutator::alloc_tagged`]), or
    /// `None` for an object allocated untagged.
    pub fn tag(&self, obj: Obj<'_>) -> Result<Option<u32>, GcError> {
        let addr = self.check(obj)?;
        Ok(crate::gc::layout::layout_tag(self.space().layout_word_of(addr)))
    }

    /// Whether `a` and `b` are the same object (Brooks heaps may hold both
    /// copies of one object during a cycle: Shenandoah's `acmp` barrier).
    pub fn same(&self, a: Option<Obj<'_>>, b: Option<Obj<'_>>) -> bool {
        let (a, b) = (a.map_or(0, |o| o.addr), b.map_or(0, |o| o.addr));
        if a == b || a == 0 || b == 0 {
            return a == b;
        }
        let s = self.space();
        s.contains(a) && s.contains(b) && s.forwardee(a) == s.forwardee(b)
    }

    /// Locks the object `h` roots with `fastpath::sync`, blocking in a safe
    /// region if it is contended. Its region is pinned until the lock drops.
    pub fn lock(&mut self, h: Handle) -> Result<ObjLock, GcError> {
        let addr = self.get(h)?.addr;
        // A lock is a write: the object is resolved to its to-space copy,
        // which this cycle will not move; the pin (taken before any
        // safepoint can intervene) keeps later cycles from moving it.
        let target = self.bound().resolve_for_write(addr, 0).0;
        let region = self.space().region_index(target);
        // SeqCst: see ObjLock::drop.
        self.space().regions[region].pins.fetch_add(1, Ordering::SeqCst);
        // Relaxed: read when the region is freed, in a pause (ordered by the
        // safepoint) or when the heap drops (after every mutator's drop).
        self.space().regions[region]
            .lock_seen
            .store(true, Ordering::Relaxed);
        let heap = self.heap.clone();
        // SAFETY: the header lives in the heap block, which `ObjLock.heap`
        // keeps alive for as long as the guard (dropped first, in
        // ObjLock::drop); the pinned region is neither evacuated nor freed,
        // so the address stays this object's header for the guard's life.
        let header: std::pin::Pin<&'static sync::Header> =
            unsafe { std::mem::transmute(self.space().header(target)) };
        let guard = self.safe_region(|| sync::lock(header));
        Ok(ObjLock {
            guard: Some(guard),
            obj: target,
            region,
            heap,
        })
    }
}
