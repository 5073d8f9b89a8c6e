//! The mutator: a thread's context on a heap: its roots, its allocation
//! buffers, its stops for the collector.
//!
//! Where it sits: a runtime's thread gets one from [`Heap::mutator`] and
//! makes every heap access through it: allocation and roots here, the
//! checked accesses in `access.rs`, the barriers they run in `barriers/`.
//! The barrier fast paths test the mutator's own copy of the heap's
//! one-byte GC state (HotSpot tests `ShenandoahThreadLocalData::gc_state`
//! at a fixed offset from the thread register, `testb $mask, off(%r15)`;
//! `&Mutator` is the register here, so the test is `testb $mask,
//! off(%rdi)`). [`super::collector`] drives the heap's byte; each mutator
//! copies it ([`Mutator::refresh_gc_state`]) on every path out of a pause.
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
//! mutator's handle stack (`roots.rs`), which the collector scans and
//! updates in pauses. A [`Handle`] names a slot of it.

use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::barrier::BarrierSet;
use super::heap::{Lab, Pool, Space, CARD_SHIFT, CELL_OVERHEAD_WORDS};
use super::roots::{Global, Handle, MutatorShared, Obj, Slot};
use super::runtime::{panic_message, Collected, GcError, Heap, HeapInner};
use super::settings::{Barrier, BarrierBits, GcMode};

/// A thread's context on a heap, generic over its barrier set.
///
/// # Blocking: poll or enter a safe region first
///
/// Every pause waits until each registered mutator has stopped, at a
/// [`Mutator::safepoint_poll`] (which [`Mutator::alloc`] also makes) or
/// inside a [`Mutator::safe_region`]. A thread that holds a `Mutator` and
/// blocks outside a safe region (sleeps, waits on a channel, a lock, a
/// join, I/O) stops every pause for as long as it blocks: the other
/// mutators' allocations that need a collection stall with it (one mutator
/// sleeping 3 s stalled another's allocation for 2.96 s), and if what it
/// waits for is another mutator's progress, the two deadlock. So block only
/// inside [`Mutator::safe_region`] (HotSpot's "blocked" / "in native"
/// state: the collector may run and move objects meanwhile, so the closure
/// gets no heap access; [`Handle`]s stay valid across it, [`Obj`]s cannot),
/// and poll in long loops that do not allocate.
///
/// ```
/// use std::sync::mpsc;
/// use fastpath::gc::{BarrierBits, GcMode, Heap, HeapConfig, ShenandoahBarriers};
///
/// let heap = Heap::new(HeapConfig::new(8 << 20, BarrierBits::SHENANDOAH, GcMode::Concurrent)).unwrap();
/// let (tx, rx) = mpsc::channel();
/// std::thread::scope(|s| {
///     let heap = &heap;
///     s.spawn(move || {
///         let mut m = heap.mutator::<ShenandoahBarriers>().unwrap();
///         for i in 0..10_000 {
///             let d = m.roots_len();
///             m.alloc(1, 4).unwrap(); // polls; collects when the heap fills
///             m.truncate_roots(d);
///             if i % 1000 == 0 {
///                 tx.send(i).unwrap();
///             }
///         }
///         // `tx` drops here: the receiver's iteration ends.
///     });
///     let mut m = heap.mutator::<ShenandoahBarriers>().unwrap();
///     let keep = m.alloc(0, 1).unwrap();
///     // Waiting for the other thread: in a safe region, so its
///     // allocations can trigger pauses meanwhile (a bare `rx.recv()` here
///     // would hold every pause until the message came).
///     let got: Vec<usize> = m.safe_region(|| rx.iter().collect());
///     assert_eq!(got.len(), 10);
///     m.write(m.get(keep).unwrap(), 0, 1).unwrap(); // `keep` survived
/// });
/// ```
pub struct Mutator<B: BarrierSet> {
    /// This mutator's copy of the heap's GC state byte: what every barrier
    /// fast path tests, one `testb` off the `&Mutator` register (HotSpot's
    /// per-thread `gc_state`). Written only by [`Mutator::refresh_gc_state`]
    /// (`&mut self`), on every path out of a stop: the heap's byte changes
    /// only in pauses, which cannot run while this mutator runs, so the copy
    /// equals the heap's byte whenever barrier code reads it (module docs).
    pub(super) gc_state: u8,
    /// The card table, biased so that `card_base + (addr >> 9)` is the card
    /// of `addr` (HotSpot's `byte_map_base`).
    pub(super) card_base: usize,
    /// The region size (a power of two), for `g1-card`'s same-region filter.
    pub(super) region_bytes: usize,
    /// The heap's run-time barrier set (used by [`super::Dynamic`] only).
    bits: u16,
    pub(super) heap: Arc<HeapInner>,
    pub(crate) shared: Arc<MutatorShared>,
    id: u32,
    next_stamp: Cell<u64>,
    tlab: Lab,
    /// Where this mutator's barriers copy objects (evacuation).
    pub(super) gclab: Lab,
    /// SATB buffer (`barriers/satb.rs`).
    pub(super) satb: RefCell<Vec<usize>>,
    /// G1 card buffer (`barriers/g1_card.rs`).
    pub(super) cards: RefCell<Vec<usize>>,
    _set: PhantomData<B>,
}

impl Heap {
    /// A mutator for the calling thread, with the static barrier set `B`
    /// (which must be the heap's) or [`super::Dynamic`].
    pub fn mutator<B: BarrierSet>(&self) -> Result<Mutator<B>, GcError> {
        if let Some(bits) = B::BITS {
            if bits != self.inner.config.barriers.0 {
                return Err(GcError::BarrierMismatch {
                    heap: self.inner.config.barriers,
                    mutator: BarrierBits(bits),
                });
            }
        }
        Ok(Mutator::new(self.inner.clone()))
    }
}

impl<B: BarrierSet> Mutator<B> {
    pub(crate) fn new(heap: Arc<HeapInner>) -> Mutator<B> {
        // Process-wide ids, so a handle of another heap's mutator is refused.
        static NEXT_ID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
        // Relaxed: a unique number, nothing else.
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let shared = Arc::new(MutatorShared::new());
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
    pub(super) fn has(&self, b: Barrier) -> bool {
        B::has(b, self.bits)
    }

    /// The GC state, as of this mutator's last stop.
    #[inline(always)]
    pub(super) fn gc_state(&self) -> u8 {
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
    pub(super) fn space(&self) -> &Space {
        &self.heap.space
    }

    /// `obj`'s address if it is this heap's ([`GcError::ForeignObject`]
    /// otherwise): the ownership check of every entry point.
    #[inline(always)]
    pub(super) fn check(&self, obj: Obj<'_>) -> Result<usize, GcError> {
        if self.space().contains(obj.addr) {
            Ok(obj.addr)
        } else {
            Err(GcError::ForeignObject)
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
            Some(slot) if slot.stamp == h.stamp => Ok(Obj::new(slot.addr)),
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
        Ok(Obj::new(addr))
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
    /// mutator stopped, left no free region ([`Collected::Full`]), and the
    /// space that collection left was tried. Before that, the heap is
    /// compacted: in passive mode the collecting mutator's pause runs a full
    /// compaction when its own refill (made inside the pause, so no other
    /// mutator can take what the collection freed) still fails; in
    /// concurrent mode the failure asks the collector for a degenerated
    /// cycle, which finishes the cycle stop-the-world and compacts if that
    /// left the heap full (`collector.rs`, `compact.rs`).
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
                        let mut cell =
                            refill.and_then(|bytes| tlab.refill(&heap.space, bytes, Pool::Mutator));
                        if let (Some(bytes), None) = (refill, cell) {
                            // Still no room: slide the heap together
                            // before the allocation may fail.
                            heap.full_compact();
                            heap.verify_if_asked();
                            cell = tlab.refill(&heap.space, bytes, Pool::Mutator);
                        }
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
                self.safe_region(|| heap.wait_for_cycle(refill.is_some()))
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
    pub(super) fn retire_local(&self) {
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
}

impl<B: BarrierSet> Drop for Mutator<B> {
    fn drop(&mut self) {
        self.retire_local();
        self.heap.mutators().retain(|m| !Arc::ptr_eq(m, &self.shared));
        self.heap.safepoint.deregister();
    }
}
