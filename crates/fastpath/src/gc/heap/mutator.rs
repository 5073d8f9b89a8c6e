//! The mutator: a thread's context on a heap: its roots, its allocation
//! buffers, its stops for the collector.
//!
//! Where it sits: a runtime's thread gets one from [`Heap::mutator`] and
//! makes every heap access through it: allocation and roots here, the
//! checked accesses in `barriers/access.rs`, the barriers they run in `barriers/`.
//!
//! A mutator is a view of its thread's block ([`crate::thread::ThreadBlock`],
//! `thread/gc.rs`) plus its heap: while it lives, the block holds its copy
//! of the heap's one-byte GC state, its SATB queue, the heap's biased card
//! table base, its TLAB's top and end and its safepoint poll word, at the
//! published offsets generated code uses (HotSpot tests
//! `ShenandoahThreadLocalData::gc_state` at a fixed offset from the thread
//! register, `testb $mask, off(%r15)`); the Rust barriers ([`Bound`]: the
//! block in one register, the mutator in another) and the TLAB bump read
//! the same words. [`crate::gc::collector::cycle`] drives the heap's byte; each mutator
//! copies it into its block ([`Mutator::refresh_gc_state`]) on every path
//! out of a pause, and the collector arms the block's poll word
//! (`safepoint.rs`).
//!
//! The rules the block imposes (`thread/gc.rs`): a thread is the mutator of
//! at most one heap at a time, so a second [`Heap::mutator`] on a thread
//! whose mutator lives is [`GcError::ThreadHasMutator`]; a `Mutator` holds
//! a `&'static ThreadBlock`, so it is neither `Send` nor `Sync` and never
//! runs on another thread; its drop puts the block's GC fields back to
//! their idle values (TLAB retired, SATB queue flushed, card base, state
//! byte and poll word cleared). A thread that exits with its mutator still
//! alive (leaked: `mem::forget`, a cycle of `Rc`s) keeps it registered, as
//! before (every later pause of that heap waits for it forever), but its
//! poll word is unregistered from arming by the exit guard below before
//! the block's memory goes.
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
//! self` (the block's byte is written only there, at attach and at
//! detach, and only by the block's own thread, which owns the GC fields
//! while the mutator lives), so the borrow checker itself forbids an
//! [`Obj`] (or a barrier's [`Bound`], which borrows the mutator) to live
//! across a refresh: barrier code sees one state for its whole run, the one
//! the last pause left, as HotSpot's compiled code sees the thread-local
//! copy the last safepoint left.
//!
//! Every way into a stop also pins the regions of the objects the thread
//! holds on its lock-stack (and legacy raw records) until the mutator runs
//! again (`Mutator::pin_held_locks`): the collector's only view of those
//! locks, which cost the uncontended lock nothing (`collector/cycle.rs`,
//! "Locked objects").
//!
//! Roots are explicit: [`Mutator::alloc`] and [`Mutator::root`] push onto the
//! mutator's handle stack (`roots.rs`), which the collector scans and
//! updates in pauses. A [`Handle`] names a slot of it.

use std::cell::{Cell, RefCell};
use std::marker::PhantomData;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::roots::{Global, Handle, MutatorShared, Obj, Slot};
use super::runtime::{panic_message, Collected, GcError, Heap, HeapInner};
use super::space::{Lab, Pool, Shape, Space, CARD_SHIFT};
use crate::gc::barrier_set::BarrierSet;
use crate::gc::settings::{Barrier, BarrierBits, GcMode};
use crate::thread::{self, GcFields, ThreadBlock, SATB_BUFFER_WORDS};

const _: () = assert!(
    super::safepoint::POLL_ARMED == thread::POLL_ARMED,
    "the collector arms the bit the mutators test"
);

/// A thread's context on a heap, generic over its barrier set.
///
/// # One per thread, on its thread
///
/// A mutator's per-thread state (the GC-state copy its barriers test, its
/// SATB queue, the card base, its TLAB, the poll word the collector arms)
/// lives in its thread's block ([`crate::thread::ThreadBlock`]), where
/// generated code reads it too. So a thread is the mutator of one heap at
/// a time: [`Heap::mutator`] on a thread whose mutator is alive is
/// [`GcError::ThreadHasMutator`]; and a `Mutator` is neither `Send` nor
/// `Sync`. Its drop returns the block's GC fields to their idle values.
///
/// ```compile_fail
/// fn send<T: Send>() {}
/// send::<fastpath::gc::Mutator<fastpath::gc::Dynamic>>(); // not Send
/// ```
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
    /// This thread's block, whose GC fields hold this mutator's per-thread
    /// state while it lives (module docs). A `&'static ThreadBlock` is
    /// `!Send` (the block is `!Sync`): a `Mutator` stays on its thread.
    pub(in crate::gc) block: &'static ThreadBlock,
    /// The region size (a power of two), for `g1-card`'s same-region filter.
    pub(in crate::gc) region_bytes: usize,
    /// The heap's run-time barrier set (used by [`crate::gc::Dynamic`] only).
    bits: u16,
    pub(in crate::gc) heap: Arc<HeapInner>,
    pub(crate) shared: Arc<MutatorShared>,
    id: u32,
    next_stamp: Cell<u64>,
    /// Where this mutator's barriers copy objects (evacuation); boxed, so
    /// generated code's slow paths find it at a fixed address
    /// (`attached.rs`, read by `barriers/jit_entry.rs`).
    pub(in crate::gc) gclab: Box<Lab>,
    /// The SATB buffer's storage, [`SATB_BUFFER_WORDS`] words from
    /// `Box::into_raw`, freed by the drop; the block's `satb_buffer` points
    /// here, and every access goes through that pointer.
    satb_storage: *mut [usize; SATB_BUFFER_WORDS],
    /// G1 card buffer (`barriers/g1_card.rs`).
    pub(in crate::gc) cards: RefCell<Vec<usize>>,
    /// Where this mutator has waited for the collector ([`Mutator::waits`]).
    waits: Cell<MutatorWaits>,
    _set: PhantomData<B>,
}

/// Where one mutator's time went waiting for the collector, summed since it
/// was made ([`Mutator::waits`]): what a runtime (or a benchmark) reads
/// before and after an operation to tell a collector-caused delay from
/// anything else (the scheduler, its own work). Wall time; each wait is
/// timed only on the slow path that blocks, so the fast paths pay nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MutatorWaits {
    /// Stopped for pauses: from reaching a poll (or leaving a safe region)
    /// while a pause was requested until running again.
    pub safepoint: Duration,
    /// Of `safepoint`: the collector thread's CPU time on the work of the
    /// pauses that held this mutator (each pause's at most the time it held
    /// it). The rest of `safepoint` is reaching the safepoint (other
    /// mutators' way to a poll) and the collector thread off its CPU inside
    /// the pause: on a loaded machine, most of a long pause.
    pub pause_cpu: Duration,
    /// Held by the allocation pacer: a refill over the cycle's budget
    /// waiting for the collector's progress.
    pub paced: Duration,
    /// Allocation stalls: a refill that found no memory, waiting for a
    /// collection (concurrent: a cycle, or a degenerated one; passive: the
    /// collection this mutator runs stop-the-world, or another's).
    pub stalled: Duration,
    /// Not the collector's: after a pause released this mutator, or the
    /// pacer's longest delay ran out, the time until it ran again (the
    /// scheduler's wake-up latency; on a loaded machine, most of a long
    /// wait). Not part of `safepoint` or `paced`.
    pub resume: Duration,
    /// Not a wait but the collector's all the same: this mutator's assist
    /// slices (`HeapConfig::assists`), the running phase's work done on
    /// its own thread in its allocation slow path instead of waiting.
    pub assist: Duration,
    /// The assist slices that found work.
    pub assist_slices: u64,
}

impl MutatorWaits {
    /// The time the collector took from this mutator: its waits and its
    /// assists (`resume` is not the collector's).
    pub fn total(&self) -> Duration {
        self.safepoint + self.paced + self.stalled + self.assist
    }
}

impl Heap {
    /// A mutator for the calling thread, with the static barrier set `B`
    /// (which must be the heap's) or [`crate::gc::Dynamic`].
    /// [`GcError::ThreadHasMutator`] if this thread's mutator of any heap
    /// is still alive (one per thread, module docs);
    /// [`GcError::ThreadExiting`] from a thread-local destructor late in the
    /// thread's exit.
    pub fn mutator<B: BarrierSet>(&self) -> Result<Mutator<B>, GcError> {
        if let Some(bits) = B::BITS {
            if bits != self.inner.config.barriers.0 {
                return Err(GcError::BarrierMismatch {
                    heap: self.inner.config.barriers,
                    mutator: BarrierBits(bits),
                });
            }
        }
        if let Some(refs) = B::REFS {
            if refs != self.inner.space.refs {
                return Err(GcError::RefWidthMismatch {
                    heap: self.inner.space.refs,
                    mutator: refs,
                });
            }
        }
        Mutator::new(self.inner.clone())
    }
}

/// A mutator bound to its thread block: what the barriers run on. Two
/// words passed in two registers, the block's address playing HotSpot's
/// thread register (`r15`): every fast path addresses the block's GC fields
/// at their published offsets from it.
pub(crate) struct Bound<'a, B: BarrierSet> {
    /// The mutator (its heap, barrier set, GCLAB).
    pub(crate) m: &'a Mutator<B>,
    /// Its thread's block (the mutator's `block`).
    pub(crate) t: &'a ThreadBlock,
}

impl<B: BarrierSet> Clone for Bound<'_, B> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<B: BarrierSet> Copy for Bound<'_, B> {}

impl<B: BarrierSet> Bound<'_, B> {
    /// The width of the heap's reference slots: `B`'s when the type fixes
    /// it (a constant, so the accesses carry no test of it), else the
    /// heap's ([`crate::gc::Dynamic`]).
    #[inline(always)]
    pub(crate) fn refs(self) -> crate::gc::layout::RefWidth {
        B::refs(self.space().refs)
    }
}

impl<B: BarrierSet> std::ops::Deref for Bound<'_, B> {
    type Target = Mutator<B>;
    #[inline(always)]
    fn deref(&self) -> &Mutator<B> {
        self.m
    }
}

/// At a thread's exit, unregisters the poll word of a mutator the thread
/// still holds (a leaked one), before the thread's block is freed: the
/// collector never arms freed memory. Empty while the thread has no live
/// mutator.
struct ExitGuard(Cell<Option<(Arc<HeapInner>, u32)>>);

impl Drop for ExitGuard {
    fn drop(&mut self) {
        if let Some((heap, id)) = self.0.take() {
            heap.safepoint.thread_exited(id);
        }
    }
}

std::thread_local! {
    static EXIT_GUARD: ExitGuard = const { ExitGuard(Cell::new(None)) };
}

impl<B: BarrierSet> Mutator<B> {
    pub(crate) fn new(heap: Arc<HeapInner>) -> Result<Mutator<B>, GcError> {
        let block = thread::current();
        if block.gc_attached() {
            return Err(GcError::ThreadHasMutator);
        }
        // Process-wide ids, so a handle of another heap's mutator is refused.
        static NEXT_ID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
        // Relaxed: a unique number, nothing else.
        let id = NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // The exit guard first: a thread whose thread-locals are already
        // being destroyed cannot have one, and gets no mutator.
        let guarded = EXIT_GUARD.try_with(|g| g.0.set(Some((heap.clone(), id)))).is_ok();
        if !guarded {
            return Err(GcError::ThreadExiting);
        }
        let shared = Arc::new(MutatorShared::new());
        heap.safepoint.register(id, block.poll_word());
        heap.mutators().push(shared.clone());
        // Read after `register`: from here no pause begins before this
        // mutator stops (and refreshes), and `register`'s lock orders the
        // last pause's write before this read.
        let gc_state = heap.gc_state.get();
        let satb_storage = Box::into_raw(Box::new([0usize; SATB_BUFFER_WORDS]));
        block.gc_attach(GcFields {
            gc_state,
            card_table_base: (heap.space.cards.as_ptr() as usize).wrapping_sub(heap.space.base >> CARD_SHIFT)
                as *mut u8,
            satb_buffer: satb_storage.cast(),
        });
        let gclab = Box::<Lab>::default();
        super::attached::set(&heap, &gclab);
        Ok(Mutator {
            block,
            region_bytes: heap.space.region_bytes,
            bits: heap.config.barriers.0,
            shared,
            id,
            next_stamp: Cell::new(1),
            gclab,
            satb_storage,
            cards: RefCell::new(Vec::new()),
            waits: Cell::new(MutatorWaits::default()),
            heap,
            _set: PhantomData,
        })
    }

    /// This mutator with its thread block, as the barriers take it.
    #[inline(always)]
    pub(crate) fn bound(&self) -> Bound<'_, B> {
        Bound {
            m: self,
            t: self.block,
        }
    }

    /// Whether the calling thread is this mutator's (always, in Rust: a
    /// `Mutator` is neither `Send` nor `Sync`). For bindings that hold a
    /// mutator behind a raw pointer, as the C ABI does, and must refuse a
    /// call from another thread.
    #[doc(hidden)]
    #[inline]
    pub fn on_current_thread(&self) -> bool {
        core::ptr::eq(self.block, thread::current())
    }

    /// The heap's collection-set map as generated code reads it (the LRB
    /// template's `CsetMap`): `(biased, region_shift)`, where the byte at
    /// `biased + (a >> region_shift)` has bit 0 set while the region of
    /// heap address `a` is in the collection set (HotSpot Shenandoah's
    /// `biased_map_address()`). The map lives as long as the heap and is
    /// written only in pauses, so code between two stops of this mutator
    /// reads a fixed set. Only heap addresses may be looked up.
    pub fn cset_map(&self) -> (usize, u8) {
        (self.space().cset_biased(), self.space().region_shift as u8)
    }

    #[inline(always)]
    pub(in crate::gc) fn has(&self, b: Barrier) -> bool {
        B::has(b, self.bits)
    }

    /// Copies the heap's GC state byte into the thread block: called on
    /// every path out of a stop (module docs). The release of the stop (the
    /// epoch word's Release/Acquire, or the safepoint mutex) orders the
    /// pause's write before this plain read, and no pause can write the
    /// byte again until this mutator stops again.
    #[inline]
    fn refresh_gc_state(&mut self) {
        self.block.gc_state.set(self.heap.gc_state.get());
    }

    /// Test hook: a test that sets the heap's byte by hand (as a pause
    /// would) then refreshes, as the mutator's next stop would.
    #[cfg(test)]
    pub(crate) fn refresh_gc_state_for_test(&mut self) {
        self.refresh_gc_state();
    }

    /// Test hook: the copy the barriers test (the block's).
    #[cfg(test)]
    pub(crate) fn gc_state_for_test(&self) -> u8 {
        self.block.gc_state.get()
    }

    #[inline(always)]
    pub(in crate::gc) fn space(&self) -> &Space {
        &self.heap.space
    }

    /// `obj`'s address if it is this heap's ([`GcError::ForeignObject`]
    /// otherwise): the ownership check of every entry point.
    #[inline(always)]
    pub(in crate::gc) fn check(&self, obj: Obj<'_>) -> Result<usize, GcError> {
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
    /// mutator took part in, begun after this allocation failed, compacted
    /// the heap and left no run of free regions long enough for this
    /// request (the `gc` module docs, "Humongous objects and the full
    /// compaction").
    pub fn alloc(&mut self, nrefs: usize, ndata: usize) -> Result<Handle, GcError> {
        let obj = self.alloc_addr(nrefs, ndata)?;
        Ok(self.push_root(obj))
    }

    /// The format of this heap's cells ([`crate::gc::Heap::cell_format`]).
    pub fn cell_format(&self) -> crate::gc::layout::CellFormat {
        self.space().format
    }

    /// The width of this heap's reference slots ([`crate::gc::Heap::ref_width`]).
    pub fn ref_width(&self) -> crate::gc::layout::RefWidth {
        self.space().refs
    }

    /// [`Mutator::alloc`] without the root: the new object's address
    /// (`barriers/raw_access.rs`'s `alloc_unrooted` hands it out).
    #[inline]
    pub(crate) fn alloc_addr(&mut self, nrefs: usize, ndata: usize) -> Result<usize, GcError> {
        let shape = Shape {
            nrefs,
            ndata,
            tagged: false,
        };
        self.alloc_addr_as(shape, crate::gc::layout::layout_word(nrefs, ndata))
    }

    /// Defines `tag` (at most `MAX_LAYOUT_TAG`) as the tag of objects with
    /// `nrefs` references and `ndata` data words (each at most
    /// `MAX_TAGGED_COUNT`), for every mutator of the heap
    /// ([`crate::gc::Heap::define_tag`]): what generated code that
    /// allocates objects of the tag inline needs first, since a tagged
    /// object's layout word holds only its tag ([`crate::gc::layout`]).
    /// [`GcError::TaggedShape`] when out of range or defined before with
    /// other counts; defining it again with the same is a no-op.
    pub fn define_tag(&self, tag: u32, nrefs: usize, ndata: usize) -> Result<(), GcError> {
        self.heap.define_tag(tag, nrefs, ndata)
    }

    /// Allocates an object with `nrefs` null references and `ndata` zero
    /// words, as [`Mutator::alloc`], in the layout word's tagged form with
    /// the runtime's `tag` ([`crate::gc::layout`]: at most
    /// `MAX_TAGGED_COUNT` references and data words, a tag up to
    /// `MAX_LAYOUT_TAG`), which this defines with those counts if nothing
    /// has ([`Mutator::define_tag`]; [`GcError::TaggedShape`] beyond the
    /// ranges or for a tag defined with other counts). The heap keeps the
    /// tag with the object through every copy; [`Mutator::tag`] reads it.
    pub fn alloc_tagged(&mut self, nrefs: usize, ndata: usize, tag: u32) -> Result<Handle, GcError> {
        let obj = self.alloc_addr_tagged(nrefs, ndata, tag)?;
        Ok(self.push_root(obj))
    }

    /// [`Mutator::alloc_tagged`] without the root.
    #[inline]
    pub(crate) fn alloc_addr_tagged(
        &mut self,
        nrefs: usize,
        ndata: usize,
        tag: u32,
    ) -> Result<usize, GcError> {
        let word =
            crate::gc::layout::tagged_layout_word(tag).ok_or(GcError::TaggedShape { nrefs, ndata, tag })?;
        // The tag's counts: one load of its entry once defined.
        if self.space().tags.get(tag) != Some((nrefs, ndata)) {
            self.define_tag(tag, nrefs, ndata)?;
        }
        let shape = Shape {
            nrefs,
            ndata,
            tagged: true,
        };
        self.alloc_addr_as(shape, word)
    }

    /// An object of shape `shape` whose layout word is `word` (of that
    /// shape).
    #[inline]
    fn alloc_addr_as(&mut self, shape: Shape, word: usize) -> Result<usize, GcError> {
        let Shape { nrefs, ndata, .. } = shape;
        // Larger than a region is humongous (`humongous.rs`): the refill in
        // `alloc_slow` gives it a run of regions.
        let max = self.space().max_object_words();
        let header_words = self.space().format.header_words();
        // Checked: `nrefs` and `ndata` are the caller's, any `usize`
        // (`ref_words` of any count is at most the count, and a tagged
        // object's slots take no more words than an untagged one's; its
        // counts are at most `MAX_TAGGED_COUNT`, checked by the tag's
        // definition).
        let ref_words = self.space().refs.ref_words(nrefs);
        let words = ref_words
            .checked_add(ndata)
            .and_then(|w| w.checked_add(header_words))
            .filter(|&w| w <= max)
            .ok_or(GcError::ObjectTooLarge {
                words: ref_words.saturating_add(ndata).saturating_add(header_words),
                max_words: max,
            })?;
        let words = if shape.tagged {
            self.space().cell_words_for(shape)
        } else {
            words
        };
        self.safepoint_poll();
        let bytes = words * 8;
        let cell = match self.tlab_bump(bytes) {
            Some(cell) => cell,
            None => self.alloc_slow(bytes)?,
        };
        Ok(self.space().init_object_as(cell, shape, word))
    }

    /// The TLAB is exhausted: refill it, collecting as often as collections
    /// make progress. There is no fixed number of attempts: a mutator gives
    /// up only when a collection begun after its failure, in which every
    /// mutator stopped, left no run of free regions long enough for its own
    /// request ([`Collected::Judged`]), and its refill after it still
    /// failed. Before that, the heap is compacted: in passive mode the
    /// collecting mutator's pause runs a full compaction when its own refill
    /// (made inside the pause, so no other mutator can take what the
    /// collection freed) still fails; in concurrent mode the failure asks
    /// the collector for a degenerated cycle, which finishes the cycle
    /// stop-the-world, and the cycle's last pause compacts if the largest
    /// waiting request finds no room (`collector/cycle.rs`,
    /// `collector/compact.rs`). Each waiting request is judged on its own
    /// against what the compaction left: one that fits but finds its room
    /// taken by another mutator meanwhile collects again; one that does not
    /// fit fails then, naming its size and the longest run.
    ///
    /// A refill over the pacer's budget (concurrent cycles only) first
    /// assists: a slice of the running phase's work worth the debt
    /// (`collector/assist.rs`), outside any safe region, so no pause overlaps it; it
    /// waits in the pacer only if that found too little work. A refill that
    /// finds no memory during a cycle assists while the phase has work,
    /// before it asks for a degenerated cycle.
    #[cold]
    fn alloc_slow(&mut self, bytes: usize) -> Result<usize, GcError> {
        let refill = self.space().tlab_bytes.max(bytes);
        if let Some(delay) = self.heap.pacer.claim(refill) {
            let pacer = &self.heap.pacer;
            let wanted = pacer.words_for(pacer.debt().max(refill)).clamp(
                crate::gc::collector::assist::MIN_SLICE_WORDS,
                crate::gc::collector::assist::MAX_SLICE_WORDS,
            );
            let done = if self.heap.config.assists {
                self.assist(wanted)
            } else {
                0
            };
            if done < wanted && self.heap.pacer.debt() > 0 {
                self.pace(delay);
            }
        }
        // The longest run a collection every mutator took part in left.
        let mut judged = None;
        loop {
            self.heap.check_poison()?;
            if let Some(cell) = self.tlab_refill(bytes) {
                return Ok(cell);
            }
            if let Some(available_run) = judged.take() {
                let space = self.space();
                if space.regions_for(bytes) > available_run {
                    return Err(GcError::OutOfMemory {
                        requested_words: bytes / 8,
                        largest_run_words: available_run * space.region_bytes / 8,
                    });
                }
                // It fitted after that collection, and another mutator
                // took the room since: collect again.
            }
            if self.heap.config.assists
                && self.heap.config.mode == GcMode::Concurrent
                && self.assist(crate::gc::collector::assist::MAX_SLICE_WORDS) > 0
            {
                // The phase had work: the cycle is nearer its end; try
                // again before stopping the world for it.
                continue;
            }
            match self.collect_for(Some(bytes))? {
                Collected::Refilled(cell) => return Ok(cell),
                Collected::Retry => {}
                Collected::Judged { available_run } => judged = Some(available_run),
            }
        }
    }

    /// One assist slice of about `words` of work (`HeapInner::assist`),
    /// counted in this mutator's waits; returns the words done.
    pub(in crate::gc) fn assist(&self, words: usize) -> usize {
        let start = Instant::now();
        // A pause requested meanwhile ends the slice (`collector/assist.rs`).
        let block = self.block;
        let done = self.heap.assist(&self.gclab, words, &|| block.poll_armed());
        if done > 0 {
            let took = start.elapsed();
            self.add_wait(|w| {
                w.assist += took;
                w.assist_slices += 1;
            });
        }
        done
    }

    /// Waits in the pacer for up to `delay` (safe: pauses go on meanwhile).
    fn pace(&mut self, delay: Duration) {
        let heap = self.heap.clone();
        let waited = self.safe_region(|| heap.pacer.wait(delay));
        // Past the pacer's deadline: the scheduler's wake-up.
        let late = waited.saturating_sub(delay);
        self.add_wait(|w| {
            w.paced += waited - late;
            w.resume += late;
        });
        let mut stats = self.heap.stats();
        stats.paced_refills += 1;
        stats.paced_time += waited;
        stats.longest_paced_wait = stats.longest_paced_wait.max(waited);
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
        let (began, before) = (Instant::now(), self.waits());
        let r = self.collect_inner(refill);
        if refill.is_some() {
            // Less the pause this wait ended in, counted as a safepoint
            // wait and a resume.
            let after = self.waits();
            let held = (after.safepoint - before.safepoint) + (after.resume - before.resume);
            let waited = began.elapsed().saturating_sub(held);
            self.add_wait(|w| w.stalled += waited);
        }
        r
    }

    fn collect_inner(&mut self, refill: Option<usize>) -> Result<Collected, GcError> {
        self.retire_local();
        self.heap.check_poison()?;
        match self.heap.config.mode {
            GcMode::Passive => {
                // Stopped either way: running the collection, or for
                // another mutator's.
                let held = self.pin_held_locks();
                let outcome = if self.heap.safepoint.begin(true) {
                    // A panic in the collection must not leave the other
                    // mutators stopped: poison, end the pause, report.
                    let this = &*self;
                    let heap = &self.heap;
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        heap.stw_collect(|| {
                            let mut cell = refill.and_then(|bytes| this.tlab_refill(bytes));
                            if let (Some(bytes), None) = (refill, cell) {
                                // No room within the soft capacity: grow it
                                // by what this refill needs (`capacity.rs`).
                                let space = &heap.space;
                                let needed = space.regions_for(bytes);
                                if space.grow_for_refill(&mut space.lock_alloc(), needed) {
                                    cell = this.tlab_refill(bytes);
                                }
                            }
                            if let (Some(bytes), None) = (refill, cell) {
                                // Still no room: the whole heap, slid
                                // together, before the allocation may fail.
                                let space = &heap.space;
                                space.set_capacity(&mut space.lock_alloc(), space.regions.len());
                                heap.full_compact();
                                heap.verify_if_asked();
                                cell = this.tlab_refill(bytes);
                            }
                            cell.ok_or_else(|| heap.available_run())
                        })
                    }));
                    let (pause, cell) = match r {
                        Ok(v) => v,
                        Err(p) => {
                            self.heap.poison(panic_message(&*p));
                            (usize::MAX, Err(0))
                        }
                    };
                    self.heap.safepoint.end(true, pause);
                    match cell {
                        Ok(cell) => Collected::Refilled(cell),
                        Err(available_run) => Collected::Judged { available_run },
                    }
                } else {
                    // Another mutator's collection came first: this one
                    // stops for it, then tries what it freed.
                    if let Some(r) = self.heap.safepoint.arrive_and_wait() {
                        let _ = self.heap.record_resume(r);
                    }
                    Collected::Retry
                };
                self.unpin_held_locks(held);
                self.refresh_gc_state();
                self.heap.check_poison()?;
                Ok(outcome)
            }
            GcMode::Concurrent => {
                let heap = self.heap.clone();
                let wanted = refill.map(|bytes| self.space().regions_for(bytes));
                self.safe_region(|| heap.wait_for_cycle(wanted))
            }
        }
    }

    /// Stops here if a pause is requested: one load of the thread block's
    /// poll word and a test, which the collector arms for every registered
    /// mutator when it requests a pause (`safepoint.rs`; generated code's
    /// `testb $1, poll(thread) ; jnz`).
    #[inline]
    pub fn safepoint_poll(&mut self) {
        if self.block.poll_armed() {
            self.stop_at_safepoint();
        }
    }

    #[cold]
    fn stop_at_safepoint(&mut self) {
        let began = Instant::now();
        self.retire_local();
        let held = self.pin_held_locks();
        let released = self
            .heap
            .safepoint
            .arrive_and_wait()
            .map(|r| (r.at, self.heap.record_resume(r)));
        self.unpin_held_locks(held);
        self.refresh_gc_state();
        self.count_pause_wait(began, released);
    }

    /// Counts a wait for a pause from `began`: until `released` (when the
    /// collector let this mutator go, and the CPU time of the pause's work)
    /// as the collector's, the rest as the scheduler's wake-up.
    fn count_pause_wait(&self, began: Instant, released: Option<(Instant, Duration)>) {
        let back = Instant::now();
        let resume = released.map_or(Duration::ZERO, |(at, _)| back.saturating_duration_since(at));
        let held = (back - began).saturating_sub(resume);
        let cpu = released.map_or(Duration::ZERO, |(_, cpu)| cpu.min(held));
        self.add_wait(|w| {
            w.safepoint += held;
            w.pause_cpu += cpu;
            w.resume += resume;
        });
    }

    /// Where this mutator has waited for the collector so far: pauses,
    /// pacing, allocation stalls ([`MutatorWaits`]). A plain read of this
    /// mutator's own counters.
    pub fn waits(&self) -> MutatorWaits {
        self.waits.get()
    }

    fn add_wait(&self, f: impl FnOnce(&mut MutatorWaits)) {
        let mut w = self.waits.get();
        f(&mut w);
        self.waits.set(w);
    }

    /// Runs `f` as a safe region: the collector may pause and move objects
    /// meanwhile (HotSpot's "in native"/"blocked"). `f` gets no heap access.
    ///
    /// The TLAB is made parseable (its free tail a filler) but kept, and
    /// dropped afterwards only if a pause ran meanwhile (the epoch moved):
    /// a pause may free or evacuate its region, while without one nothing
    /// looked at it, and the next allocation simply overwrites the filler.
    /// A safe region per contended lock or wait would otherwise waste half
    /// a TLAB each (HotSpot retires TLABs at safepoints, not when a thread
    /// blocks).
    pub fn safe_region<R>(&mut self, f: impl FnOnce() -> R) -> R {
        self.tlab_fill();
        self.retire_gclab_and_queues();
        // Before `enter_safe`: a pause may begin as soon as this mutator is
        // safe, and `f` may change the lock-stack (a contended enter pushes
        // or inflates), so what it held on the way in is pinned from here
        // to after `leave_safe` (no pause runs past that).
        let held = self.pin_held_locks();
        // Exact on both sides: no pause can end while this mutator runs
        // (each needs it stopped), so the epoch moves only between
        // `enter_safe` and `leave_safe`.
        let epoch = self.heap.safepoint.epoch();
        self.heap.safepoint.enter_safe();
        let r = f();
        let leaving = Instant::now();
        if let Some(released) = self.heap.safepoint.leave_safe() {
            let cpu = self.heap.record_resume(released);
            // Held at the exit by a pause.
            self.count_pause_wait(leaving, Some((released.at, cpu)));
        }
        if self.heap.safepoint.epoch() != epoch {
            self.tlab_forget();
        }
        self.unpin_held_locks(held);
        self.refresh_gc_state();
        r
    }

    // ---- the locks a stopped mutator holds ------------------------------------

    /// Pins the regions of this heap's objects the thread holds locked where
    /// no header or monitor may say so to the collector: its lock-stack
    /// entries (lightweight mode) and its raw-API lock records (legacy
    /// mode). Called on every way into a stop, before this mutator counts
    /// as stopped: a pause then finds each such region pinned, so
    /// final-mark never chooses it and no cycle frees it while the thread
    /// is stopped (`collector/cycle.rs`, "Locked objects"). While the
    /// mutator runs, no pause can begin, so the pins are needed only
    /// across the stop; [`Self::unpin_held_locks`] drops them.
    pub(in crate::gc) fn pin_held_locks(&self) -> HeldLocks {
        let s = self.space();
        let mut held = self.lock_stack_objects();
        if self.block.mode() == thread::ThreadMode::Legacy {
            crate::sync::for_each_raw_object(|a| {
                if s.contains(a) {
                    held.push(a);
                }
            });
        }
        for a in held.iter() {
            // SeqCst: read by the pause that this stop lets begin (ordered
            // anyway by the safepoint's mutex; a `lock xadd` either way).
            s.region(a).pins.fetch_add(1, Ordering::SeqCst);
        }
        held
    }

    /// Drops the pins of [`Self::pin_held_locks`], after the stop (no pause
    /// runs until this mutator's next one). An object that the stop left
    /// inflated (a contended enter inside a safe region made room on a
    /// full lock-stack, a `wait` inflated it) has left the lock-stack but
    /// is still held, and a monitor now remembers its address: its region
    /// is flagged (`Space::note_monitor_if_inflated`) before the pin goes.
    pub(in crate::gc) fn unpin_held_locks(&self, held: HeldLocks) {
        let s = self.space();
        for a in held.iter() {
            s.note_monitor_if_inflated(a);
            // SeqCst: as the pin.
            s.region(a).pins.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// This heap's objects on the thread's lock-stack, bottom first, if
    /// the stack is full: a lock call that finds it full makes room by
    /// inflating entries (`sync/lock_stack.rs`, HotSpot's
    /// `ensure_lock_stack_space`) while the mutator runs, which
    /// [`Self::note_inflated`] then flags. A call on a stack with room
    /// inflates at most its own object, which the caller flags. `None`
    /// costs one load and a compare, the uncontended enter's only
    /// addition.
    #[inline]
    pub(in crate::gc) fn lock_stack_if_full(&self) -> Option<HeldLocks> {
        if self.block.is_full() {
            Some(self.lock_stack_objects())
        } else {
            None
        }
    }

    /// This heap's objects on the thread's lock-stack, bottom first.
    #[cold]
    fn lock_stack_objects(&self) -> HeldLocks {
        let s = self.space();
        let mut held = HeldLocks::default();
        let ls = self.block;
        for i in 0..ls.len() {
            let a = ls.at(i);
            if s.contains(a) {
                held.push(a);
            }
        }
        held
    }

    /// After a runtime lock call: flags the region of each object of
    /// `before` ([`Self::lock_stack_if_full`]) whose header is inflated
    /// (`Space::note_monitor_if_inflated`).
    #[cold]
    pub(in crate::gc) fn note_inflated(&self, before: HeldLocks) {
        let s = self.space();
        for a in before.iter() {
            s.note_monitor_if_inflated(a);
        }
    }

    // ---- the TLAB, in the thread block ----------------------------------------

    /// Bump-allocates `bytes` in the TLAB (the block's top and end, as
    /// generated code's TLAB bump reads them), or `None` when it is too
    /// small.
    #[inline(always)]
    fn tlab_bump(&self, bytes: usize) -> Option<usize> {
        let t = self.block;
        let top = t.tlab_top.get();
        if t.tlab_end.get() - top >= bytes {
            t.tlab_top.set(top + bytes);
            Some(top)
        } else {
            None
        }
    }

    /// Retires the TLAB and carves a new one for an allocation of `bytes`,
    /// returned. An object larger than a region is humongous: it gets a run
    /// of regions of its own (`humongous.rs`) and the TLAB stays empty.
    fn tlab_refill(&self, bytes: usize) -> Option<usize> {
        self.tlab_retire();
        let s = self.space();
        if bytes > s.region_bytes {
            let cell = s.alloc_humongous(bytes);
            self.wake_collector_if_due();
            return cell;
        }
        let (start, end) = s.carve(bytes, s.tlab_bytes.max(bytes), Pool::Mutator)?;
        self.wake_collector_if_due();
        self.block.tlab_top.set(start + bytes);
        self.block.tlab_end.set(end);
        Some(start)
    }

    /// Wakes the idle collector if this thread's refill took the free
    /// regions below its trigger ([`Space::cycle_due`]); the first refill to
    /// see the flag takes it, so one crossing wakes the collector once.
    /// Outside the allocation lock: the collector takes the control lock
    /// before the allocation lock.
    #[inline]
    fn wake_collector_if_due(&self) {
        let s = self.space();
        // Relaxed: see `Space::note_free_left`; the wake-up itself is
        // ordered by the control lock.
        if s.cycle_due.load(Ordering::Relaxed) && s.cycle_due.swap(false, Ordering::Relaxed) {
            self.heap.wake_collector();
        }
    }

    /// Fills the TLAB's unused tail (the region stays parsable); the TLAB is
    /// empty (top and end 0, the idle values).
    fn tlab_retire(&self) {
        self.tlab_fill();
        self.tlab_forget();
    }

    /// Fills the TLAB's unused tail with a filler, keeping the TLAB: the
    /// next bump allocation overwrites it.
    fn tlab_fill(&self) {
        let t = self.block;
        self.space().fill(t.tlab_top.get(), t.tlab_end.get());
    }

    /// Empties the TLAB (top and end 0, the idle values), its tail already
    /// filled.
    fn tlab_forget(&self) {
        self.block.tlab_top.set(0);
        self.block.tlab_end.set(0);
    }

    /// Retires the LABs and flushes the barrier queues: what a mutator owes
    /// the collector before it stops.
    pub(in crate::gc) fn retire_local(&self) {
        self.tlab_retire();
        self.retire_gclab_and_queues();
    }

    /// [`Self::retire_local`] but for the TLAB.
    fn retire_gclab_and_queues(&self) {
        self.gclab.retire(self.space());
        self.flush_queues();
    }

    /// Test hook: what a stop does to the LABs and queues.
    #[cfg(test)]
    pub(crate) fn retire_local_for_test(&self) {
        self.retire_local();
    }

    /// Moves the entries of the block's SATB queue to the heap's
    /// ([`flush_satb`]).
    pub(in crate::gc) fn flush_satb(&self, t: &ThreadBlock) {
        flush_satb(&self.heap, t);
    }

    fn flush_queues(&self) {
        self.flush_satb(self.block);
        let mut cards = self.cards.borrow_mut();
        if !cards.is_empty() {
            self.heap.card_queue().append(&mut cards);
        }
    }
}

/// Objects a mutator holds locked, by address: a lock-stack's worth
/// inline, more (legacy raw records) spilled to the heap.
#[derive(Default)]
pub(in crate::gc) struct HeldLocks {
    inline: [usize; thread::LOCK_STACK_CAPACITY],
    len: usize,
    more: Vec<usize>,
}

impl HeldLocks {
    fn push(&mut self, a: usize) {
        if self.len < self.inline.len() {
            self.inline[self.len] = a;
            self.len += 1;
        } else {
            self.more.push(a);
        }
    }

    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.inline[..self.len].iter().chain(self.more.iter()).copied()
    }
}

/// Moves the entries of the SATB queue of `t` (attached to a mutator of
/// `heap`) to the heap's; the queue is empty (index = its size in bytes).
///
/// Only the entries the marker still has to mark move: an object already
/// live in this cycle (marked, so traced or queued for it, or allocated
/// since marking began, above its region's TAMS) is left out, the test
/// `HeapInner::mark_object` makes first (G1's `SATBMarkQueue::filter`,
/// Shenandoah's `ShenandoahSATBMarkQueueFilterFn`). So the work of
/// entries the marker does not need is the mutator's, here, not the
/// final-mark pause's: a traversal of a long-lived structure while marking
/// logs every reference it overwrites, nearly all already marked.
pub(in crate::gc) fn flush_satb(heap: &HeapInner, t: &ThreadBlock) {
    let index = t.satb_index.get();
    let full = SATB_BUFFER_WORDS * 8;
    if index < full {
        let buffer = t.satb_buffer.get().cast::<[usize; SATB_BUFFER_WORDS]>();
        // SAFETY: the block is attached (the caller's contract), so
        // `buffer` is its mutator's live SATB storage (freed only by the
        // mutator's drop, after it detached the block), written only by
        // this thread, which does nothing else with it during this call;
        // the entries are the words from `index` to the end.
        let entries = unsafe { &(&*buffer)[index / 8..] };
        // Oldest first: the buffer fills downwards. Live now stays live
        // until the cycle ends (a mark bit or a TAMS is never taken back
        // while marking), and every entry is drained before then
        // (final-mark, or the degenerated cycle's pause), so an entry
        // left out is one the drain would skip.
        // The filter runs under the queue's lock (a buffer's 256 tests of
        // a TAMS and a mark bit), which spares a copy of the kept entries.
        let space = &heap.space;
        heap.satb_queue()
            .extend(entries.iter().rev().copied().filter(|&o| !space.is_live(o)));
    }
    t.satb_index.set(full);
}

impl<B: BarrierSet> Drop for Mutator<B> {
    fn drop(&mut self) {
        debug_assert!(self.on_current_thread(), "a Mutator is !Send");
        self.retire_local();
        self.heap.mutators().retain(|m| !Arc::ptr_eq(m, &self.shared));
        self.heap.safepoint.deregister(self.id);
        super::attached::clear();
        // After `deregister`: the collector no longer arms the poll word.
        self.block.gc_detach();
        // SAFETY: from `Box::into_raw` in `new`, freed once, here; the block
        // no longer points at it.
        drop(unsafe { Box::from_raw(self.satb_storage) });
        // `try_with`: from a thread-local destructor late in the exit, the
        // guard may be gone already (and then holds nothing of ours).
        let _ = EXIT_GUARD.try_with(|g| drop(g.0.take()));
    }
}
