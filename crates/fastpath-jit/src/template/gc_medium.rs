//! The SATB and LRB medium paths (HotSpot's Shenandoah barrier stubs,
//! `shenandoahBarrierSetAssembler_*.cpp`): what runs out of line after the
//! 2-instruction idle test ([`crate::GcStateTest`]) found its bit set,
//! before any call into the library. The JIT binds the idle test's `slow`
//! label to the medium path's code, whose own `slow` is the
//! [`crate::SlowStub`] and whose `done` is the idle test's `done`. The
//! instructions are in each ISA's emitter (`x64/gc_medium.rs`: 10 in
//! every reference width, and 11 in the Brooks format, 12 in the compact
//! one; `aarch64/gc_medium.rs`: 8 with full-width or unscaled references,
//! 9 on a compressed heap, and 12 in either cell format).
//!
//! SATB enqueue (a reference store while marking): the field's current
//! value loaded (decoded from a compressed slot, zero-extended from an
//! unscaled one, which holds the address itself: [`SatbEnqueue::refs`], so
//! the queue and the slow path see addresses in every width); null →
//! `done`; the queue's index (bytes left) 0 → `slow`
//! (full: the library flushes it); else index −= 8 and the value stored at
//! `buffer + index`. The queue is HotSpot's `SATBMarkQueue`
//! ([`SatbQueueLayout`]); buffer and index are the thread's own
//! (thread-private plain stores, as the Rust barrier's `Vec` push); the
//! marker takes buffers only at handshakes, so no ordering is needed. The
//! slow path receives `(thread, prev)`: fastpath's is
//! [`crate::slow::satb_enqueue`] (`fastpath::gc::satb_slow_entry`), which
//! flushes the full buffer to the heap's queue and pushes `prev`.
//!
//! LRB collection-set path (a loaded reference while forwarded objects
//! exist): null → `done`; the region's byte in the collection-set map
//! ([`CsetMap`]) clear → `done`; then the word that records a copy
//! ([`Forwardee`], the heap's cell format) loaded and tested: not copied
//! yet → `slow`; else the object replaced by its copy. In the Brooks
//! format the word is the forwarding word, the object's own address until
//! it is copied (compared with the object); in the compact format it is
//! the 8 bytes at the layout word, the object's own (bit 31 clear,
//! untagged or tagged, whatever a tagged word's next 4 bytes hold) until
//! it is copied, then the copy's address with its halves swapped and bit
//! 31 set (`fastpath::gc::layout::forwarded_layout_word`: the copy is the
//! bit cleared and a rotation by 32 away). As
//! `fastpath::gc`'s LRB slow path: null and objects outside the collection
//! set pass; a forwarded object resolves to its copy with one load (read
//! as the Rust `forwardee`: on x86-64 an Acquire load is a plain `mov`; on
//! AArch64 the address dependency from the loaded word, through the `and`
//! and `ror` in the compact form, orders every read through the copy,
//! what HotSpot relies on for the same load); the rest calls the library, which
//! evacuates (or finds the object left in place) and heals the field. The
//! template does not heal the field itself: a field left unhealed costs
//! the next load through it this medium path again, never a from-space
//! reference. It never touches the slot, so it is the same on a heap with
//! compressed or unscaled references: the reference it tests is the
//! decoded one (the data templates' `DataWidth::Ref` load), and the
//! library heals the slot at its width (the encoded copy in a compressed
//! one, the copy's address in an unscaled one). The slow path receives
//! `(thread, obj, field)` and returns
//! the reference to use: fastpath's is [`crate::slow::lrb`]
//! (`fastpath::gc::lrb_slow_entry`). The map is the heap's
//! ([`CsetMap::of`]): the regions' collection-set flags themselves,
//! written only in pauses.
//!
//! Both slow paths run on the calling thread's live `fastpath::gc::Mutator`
//! (its block in the thread register); generated code holds no object
//! address across that mutator's stops (`tests/x64_gc_stress.rs` runs the
//! two paths under concurrent cycles against the Rust barriers).

use super::contract::{SlowArg, SlowCall, SlowPath, Template};
use crate::isa::Isa;
pub use crate::layout::{CsetMap, Forwardee, RefWidth, SatbQueueLayout};
use crate::reg::{Reg, RegSet};
use crate::slow::LibraryPath;

/// The SATB medium path: enqueue the field's current value.
#[derive(Clone, Copy, Debug)]
pub struct SatbEnqueue {
    /// The thread register.
    pub thread: Reg,
    /// The field's address (kept).
    pub field: Reg,
    /// Receives the previous value (the slow path's second argument).
    pub prev: Reg,
    /// Scratch: the index (x86-64: then the slot's address).
    pub tmp: Reg,
    /// Scratch, AArch64: the buffer; unused on x86-64.
    pub tmp2: Reg,
    /// The queue's offsets.
    pub queue: SatbQueueLayout,
    /// The width of the heap's reference slots (`ObjectLayout::ref_width`):
    /// a compressed field is loaded as 4 bytes and decoded, an unscaled
    /// one loaded as 4 bytes, zero-extended (the address itself).
    pub refs: RefWidth,
}

impl Template for SatbEnqueue {
    fn name(&self) -> &'static str {
        "SATB enqueue"
    }
    fn operands(&self, isa: Isa) -> Vec<Reg> {
        match isa {
            Isa::X64 => vec![self.thread, self.field, self.prev, self.tmp],
            Isa::Aarch64 => vec![self.thread, self.field, self.prev, self.tmp, self.tmp2],
        }
    }
    fn clobbers(&self, isa: Isa) -> RegSet {
        match isa {
            Isa::X64 => RegSet::of(&[self.prev, self.tmp]),
            Isa::Aarch64 => RegSet::of(&[self.prev, self.tmp, self.tmp2]),
        }
    }
    /// A value buffered: every branch falls through. A compressed field's
    /// decoding costs AArch64 an `lsl`; x86-64's `shl` sets the flags its
    /// null test reads, replacing the `test`. An unscaled field costs
    /// nothing more: AArch64 `ldr w; cbz w`, x86-64 `mov r32, dword;
    /// test r32, r32`, the full form's counts (8 and 10).
    fn budget(&self, isa: Isa) -> usize {
        match isa {
            Isa::X64 => 10,
            Isa::Aarch64 => 8 + usize::from(self.refs == RefWidth::Compressed),
        }
    }
    fn slow_call(&self) -> Option<SlowCall> {
        Some(SlowCall::library(
            LibraryPath::SatbEnqueue,
            &[self.thread, self.prev],
            None,
        ))
    }
}

/// The LRB medium path: the collection-set test and the resolution of a
/// copy through the word [`LrbCset::forwardee`] names.
#[derive(Clone, Copy, Debug)]
pub struct LrbCset {
    /// The loaded reference; replaced by its copy when forwarded.
    pub obj: Reg,
    /// Scratch.
    pub tmp: Reg,
    /// Scratch (the map's address).
    pub tmp2: Reg,
    /// The collection set.
    pub cset: CsetMap,
    /// Where a copy is recorded: the heap's cell format
    /// (`ObjectLayout::fastpath(heap.cell_format())?.forwardee`).
    pub forwardee: Forwardee,
}

impl Template for LrbCset {
    fn name(&self) -> &'static str {
        "LRB collection-set path"
    }
    fn operands(&self, _isa: Isa) -> Vec<Reg> {
        vec![self.obj, self.tmp, self.tmp2]
    }
    fn clobbers(&self, _isa: Isa) -> RegSet {
        RegSet::of(&[self.obj, self.tmp, self.tmp2])
    }
    /// A forwarded object: every branch falls through. After the word's
    /// load the Brooks form compares, branches and moves; the compact form
    /// tests bit 31, clears it and rotates by 32 (x86-64 `btr; jnc; rol;
    /// mov`, one more than the Brooks form's three; AArch64 `tbz; and;
    /// ror`, as many).
    fn budget(&self, isa: Isa) -> usize {
        match (isa, self.forwardee) {
            (Isa::X64, Forwardee::BrooksWord { .. }) => 11,
            (Isa::X64, Forwardee::LayoutWord { .. }) => 12,
            (Isa::Aarch64, _) => 12,
        }
    }
    /// The JIT passes the thread and the field (the template holds
    /// neither); the result replaces the reference.
    fn slow_call(&self) -> Option<SlowCall> {
        Some(SlowCall {
            path: SlowPath::Library(LibraryPath::Lrb),
            args: vec![
                SlowArg::Jit("thread"),
                SlowArg::Reg(self.obj),
                SlowArg::Jit("field"),
            ],
            ret: Some(self.obj),
        })
    }
}
