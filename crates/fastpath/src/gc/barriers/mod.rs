//! The barriers: what each heap access adds for the collector, one file
//! per barrier, each with its fast path (`#[inline(always)]`, a test of the
//! thread block's copy of the GC state byte or of the card) and its `#[cold]`
//! slow path (the real work: enqueue for SATB, evacuate and self-heal,
//! dirty and enqueue a card).
//!
//! Where it sits: under [`self::access`] (the checked API, which validates
//! an access then calls the unchecked one here), `raw_access.rs` (the
//! unchecked API for runtimes with their own roots) and [`crate::gc::probe`] (the
//! bare accesses, for disassembly); above [`crate::gc::heap::space`] and
//! [`crate::gc::heap::forwarding`]. The collector ([`crate::gc::collector::cycle`]) writes the
//! state byte the fast paths test, only in pauses; each mutator copies it
//! into its thread block on its way out of every stop (`heap/mutator.rs` says
//! why the copy is never stale where a barrier reads it).
//!
//! The shape is MMTk's: this file is the `Barrier` (for each access, the
//! hooks that run before and after it, composed from the set `B`: every
//! `B::has` is a constant for a [`crate::gc::Static`] set, so only the set's
//! barriers are compiled in), and each barrier's file holds its
//! `BarrierSemantics` (the slow path the hook calls). The hooks are methods
//! of [`Bound`], a mutator with its thread block in a register of its own:
//! the fast paths test the block's copy of the state byte, read its card
//! base and its SATB queue at the published offsets
//! (`crate::thread::GC_STATE_OFFSET`…), as HotSpot tests `testb $mask,
//! gc_state_offset(%r15)`.
//!
//! | access | before | after |
//! |---|---|---|
//! | load ref | `brooks-rb` on the object | `lrb` on the loaded value |
//! | store ref | `brooks-wb` (else `brooks-rb`) on the object; `satb` | card mark (`card`, `card-cond`, `g1-card`) |
//! | CAS ref | as store; `cas` retries a false failure | as store |
//! | read data | `brooks-rb` | - |
//! | write data, lock | `brooks-wb` (else `brooks-rb`) | - |
//!
//! | file | barrier | fast path | slow path |
//! |---|---|---|---|
//! | `satb.rs` | SATB pre-write (Yuasa) | test MARKING | enqueue the overwritten value |
//! | `lrb.rs` | load-reference barrier | test HAS_FORWARDED | evacuate or resolve, self-heal the field |
//! | `brooks_rb.rs` | Brooks read barrier | load the forwarding word | - |
//! | `brooks_wb.rs` | Brooks write barrier | test EVACUATION\|HAS_FORWARDED, then read through | evacuate the object, resolve the stored value |
//! | `card.rs` | card mark | one byte store | - |
//! | `card_cond.rs` | conditional card mark | test the card, store if clean | - |
//! | `g1_card.rs` | G1 post-write | cross-region, non-null, clean card | fence, dirty, enqueue |
//! | `cas.rs` | Shenandoah CAS barrier | nothing on success | retry with the other copy |

use std::sync::atomic::{AtomicU8, Ordering};

use crate::gc::barrier_set::BarrierSet;
use crate::gc::heap::mutator::Bound;
use crate::gc::heap::space::CARD_SHIFT;
use crate::gc::settings::Barrier;

pub(super) mod access;
mod brooks_rb;
mod brooks_wb;
mod card;
mod card_cond;
mod cas;
mod g1_card;
// The `extern "C"` slow paths of the barrier templates' stubs.
pub(super) mod jit_entry;
mod lrb;
mod raw_access;
mod satb;

pub(super) use lrb::lrb_resolve;
pub(super) use satb::satb_enqueue;

/// G1 card queue buffer length before a flush (the SATB queue's is
/// `thread::SATB_BUFFER_WORDS`; small keeps final-mark short).
const QUEUE_BUFFER: usize = 256;

impl<'a, B: BarrierSet> Bound<'a, B> {
    /// The address of reference field `i` of the resolved object `o`: with
    /// 4-byte slots its form places reference 0 (`gc::layout`), so its
    /// layout word is read; with 8-byte slots it is a constant offset.
    #[inline(always)]
    pub(super) fn field_addr(self, o: usize, i: usize) -> usize {
        let w = self.refs();
        if w.is_compressed() {
            o + self.space().refs_offset_of(o) + w.slot_bytes() * i
        } else {
            o + w.ref_offset(i)
        }
    }

    /// Loads reference field `i` of `obj`: `brooks-rb` on the object, then
    /// `lrb` on the value.
    #[inline(always)]
    pub(crate) fn load_raw(self, obj: usize, i: usize) -> usize {
        let o = self.resolve_for_read(obj);
        let (s, w) = (self.space(), self.refs());
        let field = self.field_addr(o, i);
        // Acquire: the referenced object's initialization (or copy) is
        // visible before we read it.
        let v = s.load_ref_in(w, field, Ordering::Acquire);
        self.lrb(field, v)
    }

    /// Stores `v` into reference field `i` of `obj`, with the set's pre- and
    /// post-write barriers.
    #[inline(always)]
    pub(crate) fn store_raw(self, obj: usize, i: usize, v: usize) {
        if self.brooks_wb_active() {
            return self.store_slow(obj, v, i);
        }
        self.store_resolved(self.resolve_for_read_or_wb(obj), i, v);
    }

    /// The store, out of line, when `brooks-wb` takes its slow path.
    #[cold]
    #[inline(never)]
    fn store_slow(self, obj: usize, v: usize, i: usize) {
        let (o, v) = self.brooks_wb_slow(obj, v);
        self.store_resolved(o, i, v);
    }

    /// The store into the resolved object, with SATB and the card barriers.
    #[inline(always)]
    fn store_resolved(self, o: usize, i: usize, v: usize) {
        let addr = self.field_addr(o, i);
        if self.satb_active() {
            // Arguments in the order the fast path holds them, so the
            // branch to the slow path needs no register moves.
            return self.store_satb_slow(o, v, i);
        }
        // Release: publishes the stored object's initialization.
        self.space().store_ref_in(self.refs(), addr, v, Ordering::Release);
        self.post_write(o, addr, v);
    }

    /// The post-write card barriers for a store of `v` at `addr`, a field of
    /// `obj`. `card` and `card-cond` mark the card of the object's start
    /// (HotSpot's imprecise marking for instance fields: a scanner of the
    /// card scans whole objects starting on it); `g1-card` marks the
    /// field's own card, as G1 does.
    #[inline(always)]
    fn post_write(self, obj: usize, addr: usize, v: usize) {
        if self.has(Barrier::Card) {
            self.card_mark(obj);
        } else if self.has(Barrier::CardCond) {
            Self::card_cond(self.card(obj));
        } else if self.has(Barrier::G1Card) {
            self.g1_card(addr, v);
        }
    }

    /// CAS of reference field `i` of `obj`.
    #[inline(always)]
    pub(crate) fn cas_raw(self, obj: usize, i: usize, expected: usize, new: usize) -> bool {
        let (o, new) = self.resolve_for_write(obj, new);
        let w = self.refs();
        let addr = self.field_addr(o, i);
        // AcqRel: Release publishes `new`, Acquire reads what we replace.
        match self
            .space()
            .cas_ref_in(w, addr, expected, new, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => {
                self.cas_succeeded(o, addr, expected, new);
                true
            }
            Err(actual) => {
                if self.cas_barrier_active() {
                    return Self::cas_slow(self.m, o, addr, new, expected, actual);
                }
                false
            }
        }
    }

    /// After a successful reference CAS: SATB for the replaced value, cards.
    #[inline(always)]
    fn cas_succeeded(self, o: usize, addr: usize, replaced: usize, new: usize) {
        if self.satb_active() {
            self.satb_slow(replaced);
        }
        self.post_write(o, addr, new);
    }

    /// Reads data word `j`.
    #[inline(always)]
    pub(crate) fn read_raw(self, obj: usize, nrefs: usize, j: usize) -> usize {
        let o = self.resolve_for_read(obj);
        // Relaxed: data words carry no synchronization (as Java fields).
        self.space()
            .word(self.space().data_addr_in(self.refs(), o, nrefs, j))
            .load(Ordering::Relaxed)
    }

    /// Writes data word `j`.
    #[inline(always)]
    pub(crate) fn write_raw(self, obj: usize, nrefs: usize, j: usize, value: usize) {
        if self.brooks_wb_active() {
            return self.write_slow(obj, value, nrefs, j);
        }
        let o = self.resolve_for_read_or_wb(obj);
        // Relaxed: as read_raw.
        self.space()
            .word(self.space().data_addr_in(self.refs(), o, nrefs, j))
            .store(value, Ordering::Relaxed);
    }

    /// The data write, out of line, when `brooks-wb` takes its slow path.
    #[cold]
    #[inline(never)]
    fn write_slow(self, obj: usize, value: usize, nrefs: usize, j: usize) {
        let (o, _) = self.brooks_wb_slow(obj, 0);
        // Relaxed: as read_raw.
        self.space()
            .word(self.space().data_addr_in(self.refs(), o, nrefs, j))
            .store(value, Ordering::Relaxed);
    }

    /// Evacuates `obj` (in the collection set) into this mutator's GCLAB:
    /// the slow path `lrb` and `brooks-wb` share.
    pub(super) fn evacuate(self, obj: usize) -> usize {
        let (to, won) = self.m.space().evacuate(obj, &self.m.gclab);
        if won {
            self.heap.stats_evacuated_by_mutators();
        }
        to
    }

    /// The card of heap address `addr`: a shift and an add off the biased
    /// base in the thread block, no bounds check (the card barriers share
    /// it).
    #[inline(always)]
    pub(super) fn card(self, addr: usize) -> &'a AtomicU8 {
        debug_assert!(self.m.space().contains(addr));
        let base = self.t.card_table_base.get() as usize;
        // SAFETY: `addr` is a field address inside this heap (the object was
        // checked by `check`, or came from the heap), and the block holds
        // this heap's biased base while the mutator lives (`Bound` borrows
        // it), so the index lands inside the card table, which lives as
        // long as the mutator's `heap`.
        unsafe { &*(base.wrapping_add(addr >> CARD_SHIFT) as *const AtomicU8) }
    }

    /// The GC state byte copy in the thread block, as of the mutator's last
    /// stop (`heap/mutator.rs` says why it is never stale here).
    #[inline(always)]
    pub(super) fn gc_state(self) -> u8 {
        self.t.gc_state.get()
    }
}
