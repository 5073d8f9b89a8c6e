//! The mutator: a thread's context for every heap access, and the barriers.
//!
//! Where it sits: a runtime's interpreter or compiled code calls
//! [`Mutator`] for each allocation, reference load/store/CAS and data access;
//! the barrier fast paths here test the mutator's own copy of the heap's
//! one-byte GC state (HotSpot tests `ShenandoahThreadLocalData::gc_state`
//! at a fixed offset from the thread register, `testb $mask, off(%r15)`;
//! `&Mutator` is the register here, so the test is `testb $mask,
//! off(%rdi)`), and on a set bit call a `#[cold]` slow path that does the
//! real work: enqueue for SATB, evacuate and self-heal, dirty and enqueue a
//! card. [`super::collector`] drives the heap's byte; each mutator copies it
//! ([`Mutator::refresh_gc_state`]) on every path out of a pause.
//!
//! Why the copy is never stale where a barrier reads it: the collector
//! writes the heap's byte only inside a pause, and a pause runs only while
//! every registered mutator is stopped (at a poll, in a safe region, or the
//! one running a passive collection). So a mutator observes a new state only
//! after it has itself passed through a stop, and every way out of a stop
//! refreshes the copy before returning to the caller: `stop_at_safepoint`
//! (poll slow path), `safe_region` (which also covers a concurrent-mode
//! `collect` and a contended `lock`), passive `collect` (the collecting
//! mutator and the ones that found another pause first), hence
//! `alloc_slow`; and `new` copies it after registering, from which point no
//! pause can begin without this mutator stopping. Each of those takes
//! `&mut self`, and the copy is a plain field written only through `&mut
//! self`, so the borrow checker itself forbids an [`Obj`] (or a barrier's
//! `&self`) to live across a refresh: barrier code sees one state for its
//! whole run, the one the last pause left, as HotSpot's compiled code sees
//! the thread-local copy the last safepoint left.
//!
//! Roots are explicit: [`Mutator::alloc`] and [`Mutator::root`] push onto the
//! mutator's handle stack, which the collector scans and updates in pauses.
//! An [`Obj`] (a raw object address) borrows the mutator, so the borrow
//! checker forbids keeping one across [`Mutator::alloc`] or
//! [`Mutator::safepoint_poll`] (both take `&mut self`), the only points where
//! the collector can move it. A [`Handle`] survives them.
//!
//! Barriers per access (`B` the set; every test of `B` is a constant):
//!
//! | access | before | after |
//! |---|---|---|
//! | load ref | `brooks-rb` on the object | `lrb` on the loaded value |
//! | store/CAS ref | `brooks-wb` (else `brooks-rb`) on the object; `satb` | card mark (`card`, `card-cond`, `g1-card`) |
//! | CAS ref | as store; `cas` retries a false failure | as store |
//! | read data | `brooks-rb` | - |
//! | write data, lock | `brooks-wb` (else `brooks-rb`) | - |

use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use super::barrier::BarrierSet;
use super::forwarding;
use super::heap::{Lab, Pool, Space, CARD_SHIFT, CELL_OVERHEAD_WORDS, DIRTY_CARD};
use super::runtime::{panic_message, Collected, GcError, HeapInner, EVACUATION, HAS_FORWARDED, MARKING};
use super::settings::{Barrier, GcMode};
use crate::sync;

/// SATB and card queue buffer length before a flush (HotSpot's
/// `G1SATBBufferSize` is 1 Ki entries; smaller keeps final-mark short).
const QUEUE_BUFFER: usize = 256;

/// A reference to a heap object, valid until the mutator it borrows next
/// reaches a safepoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Obj<'m> {
    addr: usize,
    _m: PhantomData<&'m ()>,
}

impl Obj<'_> {
    /// The object's address (its header's). In a Brooks heap two `Obj`s of
    /// one object may differ during a cycle; compare with [`Mutator::same`].
    pub fn addr(self) -> usize {
        self.addr
    }
}

/// A root: an entry of a mutator's handle stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handle {
    mutator: u32,
    pub(crate) index: u32,
    stamp: u64,
}

/// A root shared by every mutator of a heap (a "global handle").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Global {
    /// The heap's identity (`HeapInner::id`), not its address: a heap made
    /// later at the same address has another.
    heap: u64,
    index: usize,
}

/// One handle-stack slot.
#[derive(Clone, Copy)]
pub(crate) struct Slot {
    pub(crate) addr: usize,
    stamp: u64,
}

/// The part of a mutator the collector reads in pauses.
pub(crate) struct MutatorShared {
    pub(crate) roots: Mutex<Vec<Slot>>,
}

impl MutatorShared {
    pub(crate) fn roots(&self) -> std::sync::MutexGuard<'_, Vec<Slot>> {
        // No code panics while holding it; see Safepoint::lock.
        self.roots.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A thread's context on a heap, generic over its barrier set.
pub struct Mutator<B: BarrierSet> {
    /// This mutator's copy of the heap's GC state byte: what every barrier
    /// fast path tests, one `testb` off the `&Mutator` register (HotSpot's
    /// per-thread `gc_state`). Written only by [`Mutator::refresh_gc_state`]
    /// (`&mut self`), on every path out of a stop: the heap's byte changes
    /// only in pauses, which cannot run while this mutator runs, so the copy
    /// equals the heap's byte whenever barrier code reads it (module docs).
    gc_state: u8,
    /// The card table, biased so that `card_base + (addr >> 9)` is the card
    /// of `addr` (HotSpot's `byte_map_base`).
    card_base: usize,
    /// The region size (a power of two), for `g1-card`'s same-region filter.
    region_bytes: usize,
    /// The heap's run-time barrier set (used by [`super::Dynamic`] only).
    bits: u16,
    heap: Arc<HeapInner>,
    pub(crate) shared: Arc<MutatorShared>,
    id: u32,
    next_stamp: Cell<u64>,
    tlab: Lab,
    gclab: Lab,
    satb: RefCell<Vec<usize>>,
    cards: RefCell<Vec<usize>>,
    _set: PhantomData<B>,
}

/// A lock on a heap object, held through `fastpath::sync`; dropping it
/// unlocks. The object's region is pinned meanwhile: it is neither
/// evacuated nor freed, so the lock-stack's address stays the object's.
pub struct ObjLock {
    guard: Option<sync::Guard<'static>>,
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
                // this cycle's collection set (see collector.rs).
                self.heap.space.regions[self.region]
                    .monitor_seen
                    .store(true, Ordering::Relaxed);
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
    pub(crate) fn new(heap: Arc<HeapInner>) -> Mutator<B> {
        // Process-wide ids, so a handle of another heap's mutator is refused.
        static NEXT_ID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
        // Relaxed: a unique number, nothing else.
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let shared = Arc::new(MutatorShared {
            roots: Mutex::new(Vec::new()),
        });
        heap.safepoint.register();
        heap.mutators().push(shared.clone());
        // Read after `register`: from here no pause begins before this
        // mutator stops (and refreshes), and `register`'s lock orders the
        // last pause's write before this read.
        let gc_state = heap.gc_state.get();
        Mutator {
            gc_state,
            region_bytes: heap.space.region_bytes,
            card_base: (heap.space.cards.as_ptr() as usize).wrapping_sub(heap.space.base >> CARD_SHIFT),
            bits: heap.config.barriers.0,
            shared,
            id,
            next_stamp: Cell::new(1),
            tlab: Lab::default(),
            gclab: Lab::default(),
            satb: RefCell::new(Vec::new()),
            cards: RefCell::new(Vec::new()),
            heap,
            _set: PhantomData,
        }
    }

    #[inline(always)]
    fn has(&self, b: Barrier) -> bool {
        B::has(b, self.bits)
    }

    /// The GC state, as of this mutator's last stop.
    #[inline(always)]
    fn gc_state(&self) -> u8 {
        self.gc_state
    }

    /// Copies the heap's GC state byte: called on every path out of a stop
    /// (module docs). The release of the stop (the epoch word's
    /// Release/Acquire, or the safepoint mutex) orders the pause's write
    /// before this plain read, and no pause can write the byte again until
    /// this mutator stops again.
    #[inline]
    fn refresh_gc_state(&mut self) {
        self.gc_state = self.heap.gc_state.get();
    }

    /// Test hook: a test that sets the heap's byte by hand (as a pause
    /// would) then refreshes, as the mutator's next stop would.
    #[cfg(test)]
    pub(crate) fn refresh_gc_state_for_test(&mut self) {
        self.refresh_gc_state();
    }

    /// Test hook: the copy the barriers test.
    #[cfg(test)]
    pub(crate) fn gc_state_for_test(&self) -> u8 {
        self.gc_state
    }

    #[inline(always)]
    fn space(&self) -> &Space {
        &self.heap.space
    }

    #[inline(always)]
    fn obj<'m>(&'m self, addr: usize) -> Obj<'m> {
        Obj {
            addr,
            _m: PhantomData,
        }
    }

    // ---- roots -------------------------------------------------------------

    /// Pushes `obj` on the handle stack; the handle stays valid (and the
    /// object alive) until [`Mutator::truncate_roots`] pops it.
    /// [`GcError::ForeignObject`] for an object of another heap.
    pub fn root(&self, obj: Obj<'_>) -> Result<Handle, GcError> {
        self.check(obj)?;
        Ok(self.push_root(obj.addr))
    }

    /// Pushes `addr`, an object of this heap, on the handle stack.
    fn push_root(&self, addr: usize) -> Handle {
        let stamp = self.next_stamp.get();
        self.next_stamp.set(stamp + 1);
        let mut roots = self.shared.roots();
        roots.push(Slot { addr, stamp });
        Handle {
            mutator: self.id,
            index: (roots.len() - 1) as u32,
            stamp,
        }
    }

    /// The object a handle roots.
    pub fn get(&self, h: Handle) -> Result<Obj<'_>, GcError> {
        if h.mutator != self.id {
            return Err(GcError::ForeignHandle);
        }
        match self.shared.roots().get(h.index as usize) {
            Some(slot) if slot.stamp == h.stamp => Ok(self.obj(slot.addr)),
            _ => Err(GcError::DanglingHandle),
        }
    }

    /// Points an existing handle at `obj`.
    pub fn set_root(&self, h: Handle, obj: Obj<'_>) -> Result<(), GcError> {
        self.check(obj)?;
        if h.mutator != self.id {
            return Err(GcError::ForeignHandle);
        }
        match self.shared.roots().get_mut(h.index as usize) {
            Some(slot) if slot.stamp == h.stamp => {
                slot.addr = obj.addr;
                Ok(())
            }
            _ => Err(GcError::DanglingHandle),
        }
    }

    /// The handle stack's depth (a scope's mark).
    pub fn roots_len(&self) -> usize {
        self.shared.roots().len()
    }

    /// Pops handles down to `len`; their handles become dangling.
    pub fn truncate_roots(&self, len: usize) {
        self.shared.roots().truncate(len);
    }

    /// Makes `obj` a root of the whole heap, reachable by every mutator.
    pub fn make_global(&self, obj: Obj<'_>) -> Result<Global, GcError> {
        self.check(obj)?;
        let mut g = self.heap.globals();
        g.push(obj.addr);
        Ok(Global {
            heap: self.heap.id,
            index: g.len() - 1,
        })
    }

    /// The object a global roots.
    pub fn global(&self, g: Global) -> Result<Obj<'_>, GcError> {
        if g.heap != self.heap.id {
            return Err(GcError::ForeignHandle);
        }
        let addr = *self.heap.globals().get(g.index).ok_or(GcError::DanglingHandle)?;
        Ok(self.obj(addr))
    }

    // ---- allocation and safepoints ------------------------------------------

    /// Allocates an object with `nrefs` null references and `ndata` zero
    /// words, rooted by the returned handle. May stop for a safepoint or
    /// collect. [`GcError::OutOfMemory`] only when a collection that every
    /// mutator took part in, begun after this allocation failed, left the
    /// heap full.
    pub fn alloc(&mut self, nrefs: usize, ndata: usize) -> Result<Handle, GcError> {
        let max = self.space().tlab_bytes / 8;
        // Checked: `nrefs` and `ndata` are the caller's, any `usize`.
        let words = nrefs
            .checked_add(ndata)
            .and_then(|w| w.checked_add(CELL_OVERHEAD_WORDS))
            .filter(|&w| w <= max)
            .ok_or(GcError::ObjectTooLarge {
                words: nrefs.saturating_add(ndata).saturating_add(CELL_OVERHEAD_WORDS),
                max_words: max,
            })?;
        self.safepoint_poll();
        let bytes = words * 8;
        let cell = match self.tlab.bump(bytes) {
            Some(cell) => cell,
            None => self.alloc_slow(bytes)?,
        };
        let obj = self.space().init_object(cell, nrefs, ndata);
        Ok(self.push_root(obj))
    }

    /// The TLAB is exhausted: refill it, collecting as often as collections
    /// make progress. There is no fixed number of attempts: a mutator gives
    /// up only when a collection begun after its failure, in which every
    /// mutator stopped, left no free region ([`Collected::Full`]), and
    /// the space that collection left was tried. In passive mode the
    /// collecting mutator refills inside its own pause, so no other mutator
    /// can take what the collection freed before it does.
    #[cold]
    fn alloc_slow(&mut self, bytes: usize) -> Result<usize, GcError> {
        // Pacing (concurrent cycles only): a refill over the cycle's budget
        // waits a little for the collector, safe (pauses go on meanwhile).
        if self.heap.pacer.claim(self.space().tlab_bytes.max(bytes)) {
            let heap = self.heap.clone();
            let waited = self.safe_region(|| heap.pacer.wait());
            let mut stats = self.heap.stats();
            stats.paced_refills += 1;
            stats.paced_time += waited;
            stats.longest_paced_wait = stats.longest_paced_wait.max(waited);
        }
        let mut last_chance = false;
        loop {
            self.heap.check_poison()?;
            if let Some(cell) = self.tlab.refill(self.space(), bytes, Pool::Mutator) {
                return Ok(cell);
            }
            if last_chance {
                return Err(GcError::OutOfMemory);
            }
            match self.collect_for(Some(bytes))? {
                Collected::Refilled(cell) => return Ok(cell),
                Collected::Retry => {}
                Collected::Full => last_chance = true,
            }
        }
    }

    /// Runs a collection: stop-the-world in passive mode; in concurrent
    /// mode, waits (safe) for the collector to finish a cycle.
    /// [`GcError::Poisoned`] if the collector has panicked.
    pub fn collect(&mut self) -> Result<(), GcError> {
        self.collect_for(None).map(|_| ())
    }

    /// A collection; with `refill`, one for an allocation of that many
    /// bytes, which a passive collection makes inside its pause.
    fn collect_for(&mut self, refill: Option<usize>) -> Result<Collected, GcError> {
        self.retire_local();
        self.heap.check_poison()?;
        match self.heap.config.mode {
            GcMode::Passive => {
                let outcome = if self.heap.safepoint.begin(true) {
                    // A panic in the collection must not leave the other
                    // mutators stopped: poison, end the pause, report.
                    let heap = &self.heap;
                    let tlab = &self.tlab;
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        let pause = heap.stw_collect();
                        let cell = refill.and_then(|bytes| tlab.refill(&heap.space, bytes, Pool::Mutator));
                        (pause, cell)
                    }));
                    let (pause, cell) = match r {
                        Ok(v) => v,
                        Err(p) => {
                            self.heap.poison(panic_message(&*p));
                            (usize::MAX, None)
                        }
                    };
                    self.heap.safepoint.end(true, pause);
                    match cell {
                        Some(cell) => Collected::Refilled(cell),
                        None => Collected::Full,
                    }
                } else {
                    // Another mutator's collection came first: this one
                    // stops for it, then tries what it freed.
                    if let Some(r) = self.heap.safepoint.arrive_and_wait() {
                        self.heap.record_resume(r);
                    }
                    Collected::Retry
                };
                self.refresh_gc_state();
                self.heap.check_poison()?;
                Ok(outcome)
            }
            GcMode::Concurrent => {
                let heap = self.heap.clone();
                self.safe_region(|| heap.wait_for_cycle())
            }
        }
    }

    /// Stops here if a pause is requested.
    #[inline]
    pub fn safepoint_poll(&mut self) {
        // Relaxed: see Safepoint::poll.
        if self.heap.safepoint.poll.load(Ordering::Relaxed) {
            self.stop_at_safepoint();
        }
    }

    #[cold]
    fn stop_at_safepoint(&mut self) {
        self.retire_local();
        if let Some(r) = self.heap.safepoint.arrive_and_wait() {
            self.heap.record_resume(r);
        }
        self.refresh_gc_state();
    }

    /// Runs `f` as a safe region: the collector may pause and move objects
    /// meanwhile (HotSpot's "in native"/"blocked"). `f` gets no heap access.
    pub fn safe_region<R>(&mut self, f: impl FnOnce() -> R) -> R {
        self.retire_local();
        self.heap.safepoint.enter_safe();
        let r = f();
        if let Some(released) = self.heap.safepoint.leave_safe() {
            self.heap.record_resume(released);
        }
        self.refresh_gc_state();
        r
    }

    /// Retires the LABs and flushes the barrier queues: what a mutator owes
    /// the collector before it stops.
    fn retire_local(&self) {
        self.tlab.retire(self.space());
        self.gclab.retire(self.space());
        self.flush_queues();
    }

    /// Test hook: what a stop does to the LABs and queues.
    #[cfg(test)]
    pub(crate) fn retire_local_for_test(&self) {
        self.retire_local();
    }

    fn flush_queues(&self) {
        let mut satb = self.satb.borrow_mut();
        if !satb.is_empty() {
            self.heap.satb_queue().append(&mut satb);
        }
        let mut cards = self.cards.borrow_mut();
        if !cards.is_empty() {
            self.heap.card_queue().append(&mut cards);
        }
    }

    // ---- checks ------------------------------------------------------------

    #[inline(always)]
    fn check(&self, obj: Obj<'_>) -> Result<usize, GcError> {
        if self.space().contains(obj.addr) {
            Ok(obj.addr)
        } else {
            Err(GcError::ForeignObject)
        }
    }

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
        let v = self.load_raw(addr, i);
        Ok((v != 0).then(|| self.obj(v)))
    }

    /// Stores `value` into reference field `i` of `obj`.
    #[inline]
    pub fn store(&self, obj: Obj<'_>, i: usize, value: Option<Obj<'_>>) -> Result<(), GcError> {
        let addr = self.check_ref(obj, i)?;
        let v = self.check_value(value)?;
        self.store_raw(addr, i, v);
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
        Ok(self.cas_raw(addr, i, e, n))
    }

    /// Reads data word `j` of `obj`.
    #[inline]
    pub fn read(&self, obj: Obj<'_>, j: usize) -> Result<usize, GcError> {
        let (addr, nrefs) = self.check_data(obj, j)?;
        Ok(self.read_raw(addr, nrefs, j))
    }

    /// Writes data word `j` of `obj`.
    #[inline]
    pub fn write(&self, obj: Obj<'_>, j: usize, value: usize) -> Result<(), GcError> {
        let (addr, nrefs) = self.check_data(obj, j)?;
        self.write_raw(addr, nrefs, j, value);
        Ok(())
    }

    /// `(nrefs, ndata)` of `obj`.
    pub fn shape(&self, obj: Obj<'_>) -> Result<(usize, usize), GcError> {
        Ok(self.space().layout_of(self.check(obj)?))
    }

    /// Whether `a` and `b` are the same object (Brooks heaps may hold both
    /// copies of one object during a cycle: Shenandoah's `acmp` barrier).
    pub fn same(&self, a: Option<Obj<'_>>, b: Option<Obj<'_>>) -> bool {
        let (a, b) = (a.map_or(0, |o| o.addr), b.map_or(0, |o| o.addr));
        if a == b || a == 0 || b == 0 {
            return a == b;
        }
        let s = self.space();
        s.contains(a) && s.contains(b) && forwarding::forwardee(s.fwd(a)) == forwarding::forwardee(s.fwd(b))
    }

    /// Locks the object `h` roots with `fastpath::sync`, blocking in a safe
    /// region if it is contended. Its region is pinned until the lock drops.
    pub fn lock(&mut self, h: Handle) -> Result<ObjLock, GcError> {
        let addr = self.get(h)?.addr;
        // A lock is a write: the object is resolved to its to-space copy,
        // which this cycle will not move; the pin (taken before any
        // safepoint can intervene) keeps later cycles from moving it.
        let target = self.resolve_for_write(addr, 0).0;
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

    // ---- the accesses (unchecked) and their barriers -------------------------

    /// The object to read `obj` through: `brooks-rb` is one load of the
    /// forwarding word.
    #[inline(always)]
    fn resolve_for_read(&self, obj: usize) -> usize {
        if self.has(Barrier::BrooksRb) {
            forwarding::forwardee(self.space().fwd(obj))
        } else {
            obj
        }
    }

    /// The object to write `obj` through, and the value `v` to store:
    /// `brooks-wb` tests the state byte, then reads through the forwarding
    /// word (the seed's four instructions); its slow path evacuates `obj`
    /// and resolves `v` to to-space (Shenandoah's storeval barrier), so no
    /// from-space reference is ever stored while copies exist.
    #[inline(always)]
    fn resolve_for_write(&self, obj: usize, v: usize) -> (usize, usize) {
        if self.has(Barrier::BrooksWb) {
            if self.gc_state() & (EVACUATION | HAS_FORWARDED) != 0 {
                self.brooks_wb_slow(obj, v)
            } else {
                (forwarding::forwardee(self.space().fwd(obj)), v)
            }
        } else {
            (self.resolve_for_read(obj), v)
        }
    }

    #[cold]
    #[inline(never)]
    fn brooks_wb_slow(&self, obj: usize, v: usize) -> (usize, usize) {
        let s = self.space();
        let o = if self.gc_state() & EVACUATION != 0 && s.in_cset(obj) {
            self.evacuate(obj)
        } else {
            forwarding::forwardee(s.fwd(obj))
        };
        let v = if v != 0 {
            forwarding::forwardee(s.fwd(v))
        } else {
            0
        };
        (o, v)
    }

    /// Evacuates `obj` (in the collection set) into this mutator's GCLAB.
    fn evacuate(&self, obj: usize) -> usize {
        let (to, won) = self.space().evacuate(obj, &self.gclab);
        if won {
            self.heap.stats_evacuated_by_mutators();
        }
        to
    }

    /// Loads reference field `i` of `obj`: `brooks-rb` on the object, then
    /// `lrb` on the value (test the state byte's has-forwarded bit, branch).
    #[inline(always)]
    pub(crate) fn load_raw(&self, obj: usize, i: usize) -> usize {
        let o = self.resolve_for_read(obj);
        let field = self.space().word(Space::ref_addr(o, i));
        // Acquire: the referenced object's initialization (or copy) is
        // visible before we read it.
        let v = field.load(Ordering::Acquire);
        if self.has(Barrier::Lrb) && self.gc_state() & HAS_FORWARDED != 0 {
            return self.lrb_slow(Space::ref_addr(o, i), v);
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

    /// Stores `v` into reference field `i` of `obj`, with the set's pre- and
    /// post-write barriers.
    #[inline(always)]
    pub(crate) fn store_raw(&self, obj: usize, i: usize, v: usize) {
        if self.brooks_wb_active() {
            return self.store_slow(obj, v, i);
        }
        self.store_resolved(self.resolve_for_read_or_wb(obj), i, v);
    }

    /// Whether `brooks-wb` must take its slow path: the state byte's test.
    /// The whole access is then done out of line, so the fast path keeps
    /// no registers live across a call (no prologue: the seed's four
    /// instructions are all the barrier costs).
    #[inline(always)]
    fn brooks_wb_active(&self) -> bool {
        self.has(Barrier::BrooksWb) && self.gc_state() & (EVACUATION | HAS_FORWARDED) != 0
    }

    /// The object a write goes to when `brooks_wb_active` is false: through
    /// the forwarding word under either Brooks barrier.
    #[inline(always)]
    fn resolve_for_read_or_wb(&self, obj: usize) -> usize {
        if self.has(Barrier::BrooksWb) {
            forwarding::forwardee(self.space().fwd(obj))
        } else {
            self.resolve_for_read(obj)
        }
    }

    #[cold]
    #[inline(never)]
    fn store_slow(&self, obj: usize, v: usize, i: usize) {
        let (o, v) = self.brooks_wb_slow(obj, v);
        self.store_resolved(o, i, v);
    }

    /// The store into the resolved object, with SATB and the card barriers.
    #[inline(always)]
    fn store_resolved(&self, o: usize, i: usize, v: usize) {
        let addr = Space::ref_addr(o, i);
        if self.has(Barrier::Satb) && self.gc_state() & MARKING != 0 {
            // Arguments in the order the fast path holds them, so the
            // branch to the slow path needs no register moves.
            return self.store_satb_slow(o, v, i);
        }
        // Release: publishes the stored object's initialization.
        self.space().word(addr).store(v, Ordering::Release);
        self.post_write(o, addr, v);
    }

    #[cold]
    #[inline(never)]
    fn store_satb_slow(&self, o: usize, v: usize, i: usize) {
        let addr = Space::ref_addr(o, i);
        let field = self.space().word(addr);
        // Relaxed: only the old value's identity matters to the marker.
        self.satb_slow(field.load(Ordering::Relaxed));
        // Release: as store_resolved.
        field.store(v, Ordering::Release);
        self.post_write(o, addr, v);
    }

    /// SATB slow path: remember the overwritten value for the marker.
    #[cold]
    #[inline(never)]
    fn satb_slow(&self, old: usize) {
        if old == 0 {
            return;
        }
        let mut buf = self.satb.borrow_mut();
        buf.push(old);
        if buf.len() >= QUEUE_BUFFER {
            self.heap.satb_queue().append(&mut buf);
        }
    }

    /// The card of heap address `addr`: a shift and an add off the biased
    /// base, no bounds check.
    #[inline(always)]
    fn card(&self, addr: usize) -> &AtomicU8 {
        debug_assert!(self.space().contains(addr));
        // SAFETY: `addr` is a field address inside this heap (the object was
        // checked by `check`, or came from the heap), so the biased index
        // lands inside the card table, which lives as long as `self.heap`.
        unsafe { &*(self.card_base.wrapping_add(addr >> CARD_SHIFT) as *const AtomicU8) }
    }

    /// The post-write card barriers for a store of `v` at `addr`, a field of
    /// `obj`. `card` and `card-cond` mark the card of the object's start
    /// (HotSpot's imprecise marking for instance fields: a scanner of the
    /// card scans whole objects starting on it); `g1-card` marks the
    /// field's own card, as G1 does.
    #[inline(always)]
    fn post_write(&self, obj: usize, addr: usize, v: usize) {
        // Relaxed card accesses: a card is a hint, read by the collector in
        // pauses (ordered by the safepoint mutex).
        if self.has(Barrier::Card) {
            self.card(obj).store(DIRTY_CARD, Ordering::Relaxed);
        } else if self.has(Barrier::CardCond) {
            Self::card_cond(self.card(obj));
        } else if self.has(Barrier::G1Card)
            // Same region iff the addresses agree above the region bits,
            // i.e. `(addr ^ v) >> shift == 0`; written as a compare with
            // the size so the size's load folds into the `cmp` (HotSpot's
            // shift takes an immediate; ours would need a load into %cl).
            && (addr ^ v) >= self.region_bytes
            && v != 0
            && self.card(addr).load(Ordering::Relaxed) != DIRTY_CARD
        {
            self.g1_card_slow(addr);
        }
    }

    /// `card-cond`: dirty `card` unless it is dirty already (HotSpot's
    /// `UseCondCardMark`, which spares a shared cache line the stores). On
    /// x86-64 it is HotSpot's three instructions (see
    /// [`crate::arch::x86_64::clear_byte_unless_clear`] for why asm).
    #[inline(always)]
    fn card_cond(card: &AtomicU8) {
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

    /// G1 post-barrier slow path: a cross-region store to a clean card:
    /// dirty it and enqueue it for refinement.
    #[cold]
    #[inline(never)]
    fn g1_card_slow(&self, addr: usize) {
        let s = self.space();
        // SeqCst fence: G1's StoreLoad between the reference store and the
        // card re-read, so a concurrent refiner's cleaning is not lost.
        std::sync::atomic::fence(Ordering::SeqCst);
        let card = self.card(addr);
        if card.load(Ordering::Relaxed) != DIRTY_CARD {
            card.store(DIRTY_CARD, Ordering::Relaxed);
            let mut buf = self.cards.borrow_mut();
            buf.push((addr - s.base) >> CARD_SHIFT);
            if buf.len() >= QUEUE_BUFFER {
                self.heap.card_queue().append(&mut buf);
            }
        }
    }

    /// CAS of reference field `i` of `obj`.
    #[inline(always)]
    pub(crate) fn cas_raw(&self, obj: usize, i: usize, expected: usize, new: usize) -> bool {
        let (o, new) = self.resolve_for_write(obj, new);
        let addr = Space::ref_addr(o, i);
        // AcqRel: Release publishes `new`, Acquire reads what we replace.
        match self
            .space()
            .word(addr)
            .compare_exchange(expected, new, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => {
                self.cas_succeeded(o, addr, expected, new);
                true
            }
            Err(actual) => {
                if self.has(Barrier::Cas) && self.gc_state() & HAS_FORWARDED != 0 {
                    return self.cas_slow(o, addr, expected, new, actual);
                }
                false
            }
        }
    }

    /// After a successful reference CAS: SATB for the replaced value, cards.
    #[inline(always)]
    fn cas_succeeded(&self, o: usize, addr: usize, replaced: usize, new: usize) {
        if self.has(Barrier::Satb) && self.gc_state() & MARKING != 0 {
            self.satb_slow(replaced);
        }
        self.post_write(o, addr, new);
    }

    /// `cas` slow path (Shenandoah's CAS barrier): the CAS failed while
    /// copies exist; if the field holds the other copy of the expected
    /// object, retry with that copy as the expected value.
    #[cold]
    #[inline(never)]
    fn cas_slow(&self, o: usize, addr: usize, expected: usize, new: usize, mut actual: usize) -> bool {
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

    /// Reads data word `j`.
    #[inline(always)]
    pub(crate) fn read_raw(&self, obj: usize, nrefs: usize, j: usize) -> usize {
        let o = self.resolve_for_read(obj);
        // Relaxed: data words carry no synchronization (as Java fields).
        self.space()
            .word(Space::data_addr(o, nrefs, j))
            .load(Ordering::Relaxed)
    }

    /// Writes data word `j`.
    #[inline(always)]
    pub(crate) fn write_raw(&self, obj: usize, nrefs: usize, j: usize, value: usize) {
        if self.brooks_wb_active() {
            return self.write_slow(obj, value, nrefs, j);
        }
        let o = self.resolve_for_read_or_wb(obj);
        // Relaxed: as read_raw.
        self.space()
            .word(Space::data_addr(o, nrefs, j))
            .store(value, Ordering::Relaxed);
    }

    #[cold]
    #[inline(never)]
    fn write_slow(&self, obj: usize, value: usize, nrefs: usize, j: usize) {
        let (o, _) = self.brooks_wb_slow(obj, 0);
        // Relaxed: as read_raw.
        self.space()
            .word(Space::data_addr(o, nrefs, j))
            .store(value, Ordering::Relaxed);
    }
}

impl<B: BarrierSet> Drop for Mutator<B> {
    fn drop(&mut self) {
        self.retire_local();
        self.heap.mutators().retain(|m| !Arc::ptr_eq(m, &self.shared));
        self.heap.safepoint.deregister();
    }
}
