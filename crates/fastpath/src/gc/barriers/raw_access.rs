//! Access for runtimes that keep their own roots: unrooted allocation,
//! objects named by address, the resolved data area (for packed sub-word
//! fields), identity hashes and monitors on heap objects.
//!
//! Where it sits: beside `access.rs` (the checked API) for a runtime such
//! as a JVM, whose frames hold references in slots its
//! [`crate::gc::RootScanner`] reports, so that allocation need not push a
//! handle, and whose objects pack several fields into one data word (Java
//! forbids word tearing: a `byte` store must not rewrite its neighbours, so
//! the runtime stores bytes, not whole words, into the area these return).
//! Every access runs the set's barriers; what the caller promises instead
//! of the checks is in each function's `# Safety`.
//!
//! The validity rule is [`Obj`]'s: an address is an object of this heap
//! until the mutator next reaches a safepoint (a poll, an allocation, a
//! safe region, a collection, a contended monitor enter or a wait); across
//! one, only a root (a handle, a global, or a slot a scanner reports) keeps
//! it, and the collector may rewrite that root.
//!
//! Monitors: the `sync` protocol on the object's header, with the same
//! pinning as [`Mutator::lock`] (a locked object's region is neither
//! evacuated nor freed, so lock-stack entries and monitors keep naming it),
//! but with the fast path first: an uncontended enter is `sync::try_enter`
//! plus one pin count, and only a contended one blocks, in a safe region.

use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::gc::barrier_set::BarrierSet;
use crate::gc::heap::mutator::{Bound, Mutator};
use crate::gc::heap::roots::Obj;
use crate::gc::heap::runtime::GcError;
use crate::sync::{self, Header, SyncError};

impl Obj<'_> {
    /// The object at `addr`.
    ///
    /// Serves compiled code as it serves an interpreter: an address a
    /// template or the runtime's generated code loaded (a reference field
    /// read after the set's load barrier, the result of a slow entry such
    /// as `lrb_slow_entry`, an object a TLAB bump allocated and initialised
    /// as [`crate::gc::layout`] says) is an `Obj` for the Rust accessors
    /// until the mutator's next safepoint, the same rule as generated
    /// code's own: no object address is held across a stop. It checks
    /// nothing (it is the identity on the address, no load); under a
    /// Brooks set two addresses of one object may differ while copies
    /// exist, which [`Mutator::same`] compares. The `Obj` borrows no
    /// mutator (`'static` is allowed): keep it within the call that loaded
    /// the address.
    ///
    /// # Safety
    ///
    /// `addr` is an object of the heap it is used with, valid at this point
    /// (read from a root or a field since the mutator's last safepoint),
    /// and the `Obj` is not used past the mutator's next safepoint.
    #[inline(always)]
    pub unsafe fn from_addr(addr: usize) -> Self {
        Obj::new(addr)
    }
}

impl<B: BarrierSet> Mutator<B> {
    /// Allocates an object with `nrefs` null references and `ndata` zero
    /// words, as [`Mutator::alloc`], but pushes no handle: the object is
    /// reachable only through the returned `Obj`, so the caller stores it
    /// in a slot its root scanner reports (or a field) before the next
    /// safepoint. May stop for a safepoint or collect first; errors as
    /// [`Mutator::alloc`].
    #[inline]
    pub fn alloc_unrooted(&mut self, nrefs: usize, ndata: usize) -> Result<Obj<'_>, GcError> {
        let addr = self.alloc_addr(nrefs, ndata)?;
        Ok(Obj::new(addr))
    }

    /// [`Mutator::alloc_tagged`] without the handle: as
    /// [`Mutator::alloc_unrooted`], the object in the layout word's tagged
    /// form with `tag`.
    #[inline]
    pub fn alloc_unrooted_tagged(
        &mut self,
        nrefs: usize,
        ndata: usize,
        tag: u32,
    ) -> Result<Obj<'_>, GcError> {
        let addr = self.alloc_addr_tagged(nrefs, ndata, tag)?;
        Ok(Obj::new(addr))
    }

    /// The tag `obj` was allocated with ([`Mutator::alloc_tagged`]), or
    /// `None` for an untagged object, without [`Mutator::tag`]'s check: the
    /// same load of the immutable layout word as [`Mutator::shape_unchecked`].
    ///
    /// # Safety
    ///
    /// `obj` is an object of this mutator's heap.
    #[inline(always)]
    pub unsafe fn tag_unchecked(&self, obj: Obj<'_>) -> Option<u32> {
        crate::gc::layout::layout_tag(self.space().layout_word_of(obj.addr))
    }

    /// `(nrefs, ndata)` of `obj`, without [`Mutator::shape`]'s check: one
    /// load of the immutable layout word.
    ///
    /// # Safety
    ///
    /// `obj` is an object of this mutator's heap.
    #[inline(always)]
    pub unsafe fn shape_unchecked(&self, obj: Obj<'_>) -> (usize, usize) {
        self.space().layout_of(obj.addr)
    }

    /// The address of data word 0 of `obj` to read through (after the set's
    /// read barrier): the object's data words follow it, `ndata * 8` bytes.
    /// Loads from it see what [`Mutator::write`] and the pointer of
    /// [`Mutator::data_mut_unchecked`] stored. Valid until the next
    /// safepoint; access it with atomic loads (Relaxed, or stronger for the
    /// runtime's volatile fields): other threads may write it.
    ///
    /// # Safety
    ///
    /// `obj` is an object of this mutator's heap with `nrefs` references.
    #[inline(always)]
    pub unsafe fn data_unchecked(&self, obj: Obj<'_>, nrefs: usize) -> *const u8 {
        self.bound().data_for_read(obj.addr, nrefs) as *const u8
    }

    /// The address of data word 0 of `obj` to write through (after the
    /// set's write barrier, which may copy the object first). Valid until
    /// the next safepoint; store with atomic stores of the field's width.
    ///
    /// # Safety
    ///
    /// As [`Mutator::data_unchecked`].
    #[inline(always)]
    pub unsafe fn data_mut_unchecked(&self, obj: Obj<'_>, nrefs: usize) -> *mut u8 {
        self.bound().data_for_write(obj.addr, nrefs) as *mut u8
    }

    /// [`Mutator::data_unchecked`] of a tagged object: its data words at
    /// the tagged form's offset ([`crate::gc::layout::RefWidth::tagged_data_offset`]),
    /// with no read of its layout word for the form.
    ///
    /// # Safety
    ///
    /// `obj` is a tagged object of this mutator's heap with `nrefs`
    /// references.
    #[inline(always)]
    pub unsafe fn tagged_data_unchecked(&self, obj: Obj<'_>, nrefs: usize) -> *const u8 {
        let b = self.bound();
        (b.resolve_for_read(obj.addr) + b.refs().tagged_data_offset(nrefs, 0)) as *const u8
    }

    /// [`Mutator::data_mut_unchecked`] of a tagged object, as
    /// [`Mutator::tagged_data_unchecked`].
    ///
    /// # Safety
    ///
    /// As [`Mutator::tagged_data_unchecked`].
    #[inline(always)]
    pub unsafe fn tagged_data_mut_unchecked(&self, obj: Obj<'_>, nrefs: usize) -> *mut u8 {
        let b = self.bound();
        (b.resolve_for_write(obj.addr, 0).0 + b.refs().tagged_data_offset(nrefs, 0)) as *mut u8
    }

    /// The object's header to write (lock, hash) and its region: a lock or
    /// a hash is a write, so the object is resolved to its to-space copy,
    /// which this cycle will not move (as [`Mutator::lock`] does).
    #[inline(always)]
    fn header_for_write(&self, addr: usize) -> (usize, &Header) {
        let target = self.bound().resolve_for_write(addr, 0).0;
        (target, self.space().header(target).get_ref())
    }

    /// `obj`'s identity hash (`fastpath::sync::identity_hash` on its header,
    /// resolved for writing first: a hash installed in a stale copy would
    /// be lost).
    ///
    /// # Safety
    ///
    /// `obj` is an object of this mutator's heap.
    pub unsafe fn identity_hash_unchecked(&self, obj: Obj<'_>) -> u32 {
        sync::identity_hash(self.header_for_write(obj.addr).1)
    }

    /// The header of `target` (a resolved object that stays where it is
    /// for the call) as the `'static` pinned reference `sync` takes.
    fn pinned_header(&self, target: usize) -> std::pin::Pin<&'static Header> {
        // SAFETY: the header lives in the heap block, which outlives every
        // use below: each is inside a call on this mutator, which keeps its
        // heap alive. The object is neither evacuated nor freed during the
        // use (`collector/cycle.rs`, "Locked objects"): a use with no
        // safepoint sees no pause; across a safe region the region is
        // pinned, by the caller (a contended enter) or by the stop itself
        // for an object on the thread's lock-stack or raw records, and a
        // held object off both is inflated, its region flagged since the
        // inflation or by marking (it is reachable: the callers'
        // contract). So the address stays its header.
        unsafe { std::mem::transmute(self.space().header(target)) }
    }

    /// `monitorenter`: acquires `obj`'s monitor for the current thread
    /// (reentrant). Uncontended: one `sync::try_enter`, no safepoint;
    /// contended: blocks in a safe region (a safepoint: other `Obj`s die),
    /// the object's region pinned meanwhile. While the lock is held the
    /// object stays where it is (`collector/cycle.rs`, "Locked objects":
    /// a stopped mutator pins its lock-stack's and raw records' regions, and
    /// an inflated lock's region is flagged here or by marking).
    ///
    /// # Safety
    ///
    /// `obj` is an object of this mutator's heap (an address: the call may
    /// reach a safepoint, which no `Obj` survives; the locked object itself
    /// stays where it is). Until the matching exit the object stays
    /// reachable from this mutator's roots (a [`crate::gc::Handle`], a
    /// runtime's scanned frame), and the exit runs on this mutator: an
    /// inflated lock's region is kept only while marking finds the object
    /// live, and a lock-stack's only while its mutator stops.
    pub unsafe fn monitor_enter_unchecked(&mut self, obj: usize) {
        let (target, _) = self.header_for_write(obj);
        let index = self.space().region_index(target);
        // Relaxed: as `Mutator::lock`. Set before the enter: a contended
        // one installs a monitor.
        self.space().regions[index]
            .lock_seen
            .store(true, Ordering::Relaxed);
        let header = self.pinned_header(target);
        let before = self.lock_stack_if_full();
        if !sync::try_enter(header) {
            // The object is on no lock-stack yet: pinned by hand across
            // the safe region, where pauses run and the enter may inflate
            // it (a monitor then remembers this address).
            // SeqCst: as ObjLock's pin (`access.rs`).
            self.space().regions[index].pins.fetch_add(1, Ordering::SeqCst);
            self.safe_region(|| sync::enter(header));
            // SeqCst: as the pin.
            self.space().regions[index].pins.fetch_sub(1, Ordering::SeqCst);
        }
        if let Some(before) = before {
            self.note_inflated(before);
        }
        if header.is_inflated() {
            // A monitor remembers this address.
            self.space().note_monitor(index);
        }
    }

    /// `monitorexit`: releases one level of `obj`'s monitor.
    /// [`SyncError::IllegalMonitorState`] (nothing changed) if the current
    /// thread does not hold it.
    ///
    /// # Safety
    ///
    /// `obj` is an object of this mutator's heap.
    pub unsafe fn monitor_exit_unchecked(&mut self, obj: usize) -> Result<(), SyncError> {
        let (target, header) = self.header_for_write(obj);
        // SAFETY: `header` is the object's, which stays where it is during
        // the call (no safepoint).
        sync::exit(unsafe { std::pin::Pin::new_unchecked(header) })?;
        if header.is_inflated() {
            // Left inflated: a monitor remembers this address (as
            // ObjLock::drop).
            self.space().note_monitor(self.space().region_index(target));
        }
        Ok(())
    }

    /// Whether the current thread holds `obj`'s monitor.
    ///
    /// # Safety
    ///
    /// `obj` is an object of this mutator's heap.
    pub unsafe fn holds_monitor_unchecked(&self, obj: Obj<'_>) -> bool {
        sync::holds_lock(self.header_for_write(obj.addr).1)
    }

    /// `Object.wait`: releases `obj`'s monitor (every level), blocks in a
    /// safe region until notified, interrupted or timed out
    /// (`fastpath::sync::wait`'s results), and re-acquires it.
    /// [`SyncError::IllegalMonitorState`] at once if the current thread does
    /// not hold it.
    ///
    /// # Safety
    ///
    /// `obj` is an object of this mutator's heap.
    pub unsafe fn monitor_wait_unchecked(
        &mut self,
        obj: usize,
        timeout: Option<Duration>,
    ) -> Result<(), SyncError> {
        let (target, header) = self.header_for_write(obj);
        if !sync::holds_lock(header) {
            return Err(SyncError::IllegalMonitorState);
        }
        // Held: the safe region pins it if it is on the lock-stack or a
        // raw record, else it is inflated and its region flagged (or found
        // by marking), so the header stays put while we wait; after the
        // wait it is inflated, and its region flagged.
        let header = self.pinned_header(target);
        let r = self.safe_region(|| sync::wait(header, timeout));
        self.space().note_monitor_if_inflated(target);
        r
    }

    /// `Object.notify` (`all = false`) / `notifyAll`; how many waiters were
    /// moved. [`SyncError::IllegalMonitorState`] if the current thread does
    /// not hold `obj`.
    ///
    /// # Safety
    ///
    /// `obj` is an object of this mutator's heap.
    pub unsafe fn monitor_notify_unchecked(&self, obj: Obj<'_>, all: bool) -> Result<usize, SyncError> {
        let (target, header) = self.header_for_write(obj.addr);
        if !sync::holds_lock(header) {
            return Err(SyncError::IllegalMonitorState);
        }
        let header = self.pinned_header(target);
        // A notify claims a monitor a contender installed over the
        // thread's fast lock: the object leaves the lock-stack, held
        // inflated, and its region is flagged.
        let r = if all {
            sync::notify_all(header)
        } else {
            sync::notify(header)
        };
        self.space().note_monitor_if_inflated(target);
        r
    }
}

impl<B: BarrierSet> Bound<'_, B> {
    /// Address of data word 0 of `obj` (with `nrefs` references) to read
    /// through: `brooks-rb` resolves it, as `read_raw` does.
    #[inline(always)]
    pub(crate) fn data_for_read(self, obj: usize, nrefs: usize) -> usize {
        self.space()
            .data_addr_in(self.refs(), self.resolve_for_read(obj), nrefs, 0)
    }

    /// Address of data word 0 of `obj` to write through: `brooks-wb`
    /// copies the object first while evacuation runs, as `write_raw` does.
    #[inline(always)]
    pub(crate) fn data_for_write(self, obj: usize, nrefs: usize) -> usize {
        self.space()
            .data_addr_in(self.refs(), self.resolve_for_write(obj, 0).0, nrefs, 0)
    }
}
