//! Thread-block tests: the safepoint poll, the SATB and LRB idle tests, and
//! TLAB bump allocation, all off the thread register and a
//! [`ThreadLayout`].
//!
//! HotSpot's shapes (`macroAssembler_x86.cpp` `safepoint_poll`,
//! `shenandoahBarrierSetAssembler_x86.cpp`):
//! - poll: `test byte [thread+poll], bit; jnz slow` (2 instructions);
//! - SATB / LRB idle: `test byte [thread+gc_state], bit; jnz slow` (2);
//! - TLAB: `mov obj,[thread+top]; lea end,[obj+size]; cmp end,[thread+tlab_end];
//!   ja slow; mov [thread+top],end` (5), the object's address in `obj`.
//!
//! The loads are of thread-private bytes written by the owning thread or at
//! a safepoint/handshake, as the Rust `Mutator` reads its `gc_state` copy:
//! no ordering beyond program order is needed.

use dynasmrt::dynasm;

use super::{Labels, Template, X64Asm};
use crate::layout::ThreadLayout;
use crate::reg::{Reg, RegSet};

/// `test byte [thread+poll], poll_bit; jnz slow`.
#[derive(Clone, Copy, Debug)]
pub struct SafepointPoll {
    /// The thread register.
    pub thread: Reg,
    /// The block's layout.
    pub layout: ThreadLayout,
}

impl Template for SafepointPoll {
    fn name(&self) -> &'static str {
        "safepoint poll"
    }
    fn clobbers(&self) -> RegSet {
        RegSet::EMPTY
    }
    fn budget(&self) -> usize {
        2
    }
    fn emit<A: X64Asm>(&self, ops: &mut A, labels: Labels) {
        test_bit(ops, self.thread, self.layout.poll, self.layout.poll_bit, labels);
    }
}

/// Which GC-state bit a [`GcStateTest`] tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GcBarrier {
    /// SATB pre-barrier: `marking_bit`.
    Satb,
    /// Load-reference barrier: `has_forwarded_bit`.
    Lrb,
}

/// The SATB or LRB idle test: `test byte [thread+gc_state], bit; jnz slow`.
/// The slow stub does the barrier's work (enqueue the previous value;
/// resolve the object's copy) in the library's slow path.
#[derive(Clone, Copy, Debug)]
pub struct GcStateTest {
    /// Which barrier.
    pub barrier: GcBarrier,
    /// The thread register.
    pub thread: Reg,
    /// The block's layout.
    pub layout: ThreadLayout,
}

impl Template for GcStateTest {
    fn name(&self) -> &'static str {
        match self.barrier {
            GcBarrier::Satb => "SATB idle test",
            GcBarrier::Lrb => "LRB idle test",
        }
    }
    fn clobbers(&self) -> RegSet {
        RegSet::EMPTY
    }
    fn budget(&self) -> usize {
        2
    }
    fn emit<A: X64Asm>(&self, ops: &mut A, labels: Labels) {
        let bit = match self.barrier {
            GcBarrier::Satb => self.layout.marking_bit,
            GcBarrier::Lrb => self.layout.has_forwarded_bit,
        };
        test_bit(ops, self.thread, self.layout.gc_state, bit, labels);
    }
}

fn test_bit<A: X64Asm>(ops: &mut A, thread: Reg, off: i32, bit: u8, labels: Labels) {
    let slow = labels.slow;
    dynasm!(ops
        ; .arch x64
        ; test BYTE [Rq(thread.0) + off], bit as i8
        ; jnz =>slow
    );
}

/// TLAB bump allocation of `size` bytes: the address in `obj`, `end`
/// scratch; a TLAB without room jumps to `slow` (refill or allocate
/// outside the TLAB, the stub leaving the address in `obj`).
#[derive(Clone, Copy, Debug)]
pub struct TlabAlloc {
    /// The thread register.
    pub thread: Reg,
    /// Receives the new object's address.
    pub obj: Reg,
    /// Scratch: the new top.
    pub end: Reg,
    /// Bytes to allocate (aligned as the heap requires).
    pub size: i32,
    /// The block's layout.
    pub layout: ThreadLayout,
}

impl Template for TlabAlloc {
    fn name(&self) -> &'static str {
        "TLAB bump"
    }
    fn clobbers(&self) -> RegSet {
        RegSet::of(&[self.obj, self.end])
    }
    fn budget(&self) -> usize {
        5
    }
    fn emit<A: X64Asm>(&self, ops: &mut A, labels: Labels) {
        let (t, o, e, size, slow) = (self.thread.0, self.obj.0, self.end.0, self.size, labels.slow);
        let (top, end) = (self.layout.tlab_top, self.layout.tlab_end);
        dynasm!(ops
            ; .arch x64
            ; mov Rq(o), QWORD [Rq(t) + top]
            ; lea Rq(e), [Rq(o) + size]
            ; cmp Rq(e), QWORD [Rq(t) + end]
            ; ja =>slow
            ; mov QWORD [Rq(t) + top], Rq(e)
        );
    }
}
