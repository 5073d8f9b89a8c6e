//! The SATB and LRB medium paths (HotSpot's Shenandoah barrier stubs,
//! `shenandoahBarrierSetAssembler_x86.cpp`): what runs out of line after
//! the 2-instruction idle test ([`super::GcStateTest`]) found its bit set,
//! before any call into the library. The JIT binds the idle test's `slow`
//! label to the medium path's code, whose own `slow` is the [`super::SlowStub`]
//! and whose `done` is the idle test's `done`.
//!
//! SATB enqueue (a reference store while marking), 10 instructions when
//! the value is buffered:
//! ```text
//!   mov  prev, [field]                  ; the value about to be overwritten
//!   test prev, prev ; jz done           ; null: nothing to remember
//!   mov  tmp, [thread+satb_index]       ; bytes left in the buffer
//!   test tmp, tmp ; jz slow             ; full: the library flushes it
//!   sub  tmp, 8 ; mov [thread+satb_index], tmp
//!   add  tmp, [thread+satb_buffer] ; mov [tmp], prev
//! ```
//! The queue is HotSpot's `SATBMarkQueue`: `satb_index` is the byte offset
//! of the last filled slot (the buffer fills downwards; 0 = full). The
//! buffer and index are the thread's own (thread-private plain stores, as
//! the Rust barrier's `Vec` push); the marker takes buffers only at
//! handshakes, so no ordering is needed. The slow path receives
//! `(thread, prev)`: fastpath's is [`crate::slow::satb_enqueue`]
//! (`fastpath::gc::satb_slow_entry`), which flushes the full buffer to the
//! heap's queue and pushes `prev`.
//!
//! LRB collection-set path (a loaded reference while forwarded objects
//! exist), 11 instructions for a forwarded object:
//! ```text
//!   test obj, obj ; jz done             ; null
//!   mov  tmp, obj ; shr tmp, region_shift
//!   mov  tmp2, imm64(cset_map)          ; biased: map − (heap_base >> shift)
//!   test byte [tmp2+tmp], 1 ; jz done   ; not in the collection set
//!   mov  tmp, [obj+forwarding]          ; the Brooks forwarding word
//!   cmp  tmp, obj ; je slow             ; not copied yet: the library evacuates
//!   mov  obj, tmp                       ; the copy
//! ```
//! As `fastpath::gc`'s LRB slow path: null and objects outside the
//! collection set pass; a forwarded object resolves to its copy with one
//! load (the forwarding word is read as the Rust `forwardee`: on x86-64 an
//! Acquire load is a plain `mov`); the rest (not yet copied) calls the
//! library, which evacuates (or finds the object left in place) and heals
//! the field. The template does not heal the field itself: a field left
//! unhealed costs the next load through it this medium path again, never
//! a from-space reference. The slow path receives `(thread, obj, field)`
//! and returns the reference to use: fastpath's is [`crate::slow::lrb`]
//! (`fastpath::gc::lrb_slow_entry`), the Rust LRB's slow path. The map is
//! the heap's ([`CsetMap::of`]): the regions' collection-set flags
//! themselves, written only in pauses.
//!
//! Both slow paths run on the calling thread's live `fastpath::gc::Mutator`
//! (its block in the thread register); generated code holds no object
//! address across that mutator's stops (`tests/x64_gc_stress.rs` runs the
//! two paths under concurrent cycles against the Rust barriers).

use dynasmrt::dynasm;

use super::{Labels, Template, X64Asm};
use crate::layout::LayoutMismatch;
use crate::reg::{Reg, RegSet};

/// The SATB queue's place in the thread block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SatbQueueLayout {
    /// Offset of the index word (bytes; 0 = full).
    pub index: i32,
    /// Offset of the buffer pointer.
    pub buffer: i32,
}

impl SatbQueueLayout {
    /// fastpath's thread block (`SATB_INDEX_OFFSET`, `SATB_BUFFER_OFFSET`),
    /// after the layout version check.
    pub fn fastpath() -> Result<SatbQueueLayout, LayoutMismatch> {
        use fastpath::thread as t;
        crate::check_layout_version()?;
        Ok(SatbQueueLayout {
            index: t::SATB_INDEX_OFFSET as i32,
            buffer: t::SATB_BUFFER_OFFSET as i32,
        })
    }
}

/// The SATB medium path: enqueue the field's current value.
#[derive(Clone, Copy, Debug)]
pub struct SatbEnqueue {
    /// The thread register.
    pub thread: Reg,
    /// The field's address (kept).
    pub field: Reg,
    /// Receives the previous value (the slow path's second argument).
    pub prev: Reg,
    /// Scratch.
    pub tmp: Reg,
    /// The queue's offsets.
    pub queue: SatbQueueLayout,
}

impl Template for SatbEnqueue {
    fn name(&self) -> &'static str {
        "SATB enqueue"
    }
    fn clobbers(&self) -> RegSet {
        RegSet::of(&[self.prev, self.tmp])
    }
    /// A value buffered: every branch falls through.
    fn budget(&self) -> usize {
        10
    }
    fn emit<A: X64Asm>(&self, ops: &mut A, labels: Labels) {
        let (t, f, p, x) = (self.thread.0, self.field.0, self.prev.0, self.tmp.0);
        let (index, buffer) = (self.queue.index, self.queue.buffer);
        let (slow, done) = (labels.slow, labels.done);
        dynasm!(ops
            ; .arch x64
            ; mov Rq(p), QWORD [Rq(f)]
            ; test Rq(p), Rq(p)
            ; jz =>done
            ; mov Rq(x), QWORD [Rq(t) + index]
            ; test Rq(x), Rq(x)
            ; jz =>slow
            ; sub Rq(x), 8
            ; mov QWORD [Rq(t) + index], Rq(x)
            ; add Rq(x), QWORD [Rq(t) + buffer]
            ; mov QWORD [Rq(x)], Rq(p)
        );
    }
}

/// The collection set as generated code tests it: one byte per region,
/// bit 0 set while the region is in the collection set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CsetMap {
    /// The map's address minus `heap_base >> region_shift`, so the byte of
    /// address `a` is at `biased + (a >> region_shift)`.
    pub biased: usize,
    /// log2 of the region size.
    pub region_shift: u8,
}

impl CsetMap {
    /// The collection-set map of `m`'s heap (`fastpath::gc::Mutator::cset_map`).
    pub fn of<B: fastpath::gc::BarrierSet>(m: &fastpath::gc::Mutator<B>) -> CsetMap {
        let (biased, region_shift) = m.cset_map();
        CsetMap { biased, region_shift }
    }
}

/// The LRB medium path: the collection-set test and the forwarding load.
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
    /// Offset of the forwarding word from the object (fastpath: −8).
    pub forwarding: i32,
}

impl Template for LrbCset {
    fn name(&self) -> &'static str {
        "LRB collection-set path"
    }
    fn clobbers(&self) -> RegSet {
        RegSet::of(&[self.obj, self.tmp, self.tmp2])
    }
    /// A forwarded object: every branch falls through.
    fn budget(&self) -> usize {
        11
    }
    fn emit<A: X64Asm>(&self, ops: &mut A, labels: Labels) {
        let (o, x, y) = (self.obj.0, self.tmp.0, self.tmp2.0);
        let (shift, map, fwd) = (
            self.cset.region_shift as i8,
            self.cset.biased as i64,
            self.forwarding,
        );
        let (slow, done) = (labels.slow, labels.done);
        dynasm!(ops
            ; .arch x64
            ; test Rq(o), Rq(o)
            ; jz =>done
            ; mov Rq(x), Rq(o)
            ; shr Rq(x), shift
            ; mov Rq(y), QWORD map
            ; test BYTE [Rq(y) + Rq(x)], 1
            ; jz =>done
            ; mov Rq(x), QWORD [Rq(o) + fwd]
            ; cmp Rq(x), Rq(o)
            ; je =>slow
            ; mov Rq(o), Rq(x)
        );
    }
}
