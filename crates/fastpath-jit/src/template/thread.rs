//! Thread-block tests: the safepoint poll, the SATB and LRB idle tests, and
//! TLAB bump allocation, all off the thread register and a
//! [`ThreadLayout`].
//!
//! HotSpot's shapes (`macroAssembler_x86.cpp` / `_aarch64.cpp`
//! `safepoint_poll`, `shenandoahBarrierSetAssembler_*.cpp`):
//!
//! | template | x86-64 | AArch64 |
//! |---|---|---|
//! | poll | `test byte [thread+poll], bit; jnz slow` (2) | `ldrb wtmp, [thread, #poll]; tbnz wtmp, #bit, slow` (2) |
//! | SATB / LRB idle | the same on `gc_state` (2) | the same on `gc_state` (2) |
//! | TLAB | `mov obj,[thread+top]; lea end,[obj+size]; cmp end,[thread+tlab_end]; ja slow; mov [thread+top],end` (5) | `ldr obj; add end, obj, #size; ldr tmp; cmp end, tmp; b.hi slow; str end` (6) |
//!
//! The loads are of thread-private bytes written by the owning thread or at
//! a safepoint/handshake, as the Rust `Mutator` reads its `gc_state` copy:
//! no ordering beyond program order is needed.

use super::contract::{SlowArg, SlowCall, SlowPath, Template};
use crate::isa::Isa;
use crate::layout::ThreadLayout;
use crate::reg::{Reg, RegSet};
use crate::slow::LibraryPath;

/// The safepoint poll: the poll bit set sends the thread to `slow`.
#[derive(Clone, Copy, Debug)]
pub struct SafepointPoll {
    /// The thread register.
    pub thread: Reg,
    /// Scratch: AArch64 loads the poll byte into it; x86-64 tests the byte
    /// in memory and leaves it alone.
    pub tmp: Reg,
    /// The block's layout.
    pub layout: ThreadLayout,
}

/// The roles of a test of a thread-block byte (`self.thread`, `self.tmp`):
/// the thread, and the scratch AArch64 loads the byte into (x86-64 tests
/// it in memory); 2 instructions, the load or test and the branch.
macro_rules! byte_test_roles {
    () => {
        fn operands(&self, isa: Isa) -> Vec<Reg> {
            match isa {
                Isa::X64 => vec![self.thread],
                Isa::Aarch64 => vec![self.thread, self.tmp],
            }
        }
        fn clobbers(&self, isa: Isa) -> RegSet {
            match isa {
                Isa::X64 => RegSet::EMPTY,
                Isa::Aarch64 => RegSet::of(&[self.tmp]),
            }
        }
        fn budget(&self, _isa: Isa) -> usize {
            2
        }
    };
}

impl Template for SafepointPoll {
    fn name(&self) -> &'static str {
        "safepoint poll"
    }
    byte_test_roles!();
    fn slow_call(&self) -> Option<SlowCall> {
        Some(SlowCall::runtime("the safepoint: (thread)", &[self.thread], None))
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

/// The SATB or LRB idle test: its bit set sends the access to `slow`,
/// where the JIT puts the medium path ([`crate::SatbEnqueue`],
/// [`crate::LrbCset`]) or the stub doing the barrier's work in the
/// library.
#[derive(Clone, Copy, Debug)]
pub struct GcStateTest {
    /// Which barrier.
    pub barrier: GcBarrier,
    /// The thread register.
    pub thread: Reg,
    /// Scratch: AArch64 loads the GC-state byte into it; x86-64 leaves it
    /// alone.
    pub tmp: Reg,
    /// The block's layout.
    pub layout: ThreadLayout,
}

impl GcStateTest {
    /// The mask tested in `gc_state`.
    pub fn mask(&self) -> u8 {
        match self.barrier {
            GcBarrier::Satb => self.layout.marking_bit,
            GcBarrier::Lrb => self.layout.has_forwarded_bit,
        }
    }
}

impl Template for GcStateTest {
    fn name(&self) -> &'static str {
        match self.barrier {
            GcBarrier::Satb => "SATB idle test",
            GcBarrier::Lrb => "LRB idle test",
        }
    }
    byte_test_roles!();
    /// The library's barrier whole, with the values only the JIT holds
    /// (what the medium paths load or are given).
    fn slow_call(&self) -> Option<SlowCall> {
        let t = SlowArg::Reg(self.thread);
        Some(match self.barrier {
            GcBarrier::Satb => SlowCall {
                path: SlowPath::Library(LibraryPath::SatbEnqueue),
                args: vec![t, SlowArg::Jit("previous value")],
                ret: None,
            },
            GcBarrier::Lrb => SlowCall {
                path: SlowPath::Library(LibraryPath::Lrb),
                args: vec![t, SlowArg::Jit("obj"), SlowArg::Jit("field")],
                ret: None,
            },
        })
    }
}

/// TLAB bump allocation of `size` bytes: the address in `obj`; a TLAB
/// without room sends the allocation to `slow` (refill or allocate
/// outside the TLAB, the stub leaving the address in `obj`).
#[derive(Clone, Copy, Debug)]
pub struct TlabAlloc {
    /// The thread register.
    pub thread: Reg,
    /// Receives the new object's address.
    pub obj: Reg,
    /// Scratch: the new top.
    pub end: Reg,
    /// Scratch: AArch64 loads the TLAB's end into it; x86-64 compares with
    /// memory and leaves it alone.
    pub tmp: Reg,
    /// Bytes to allocate (aligned as the heap requires; AArch64: 0–4095).
    pub size: i32,
    /// The block's layout.
    pub layout: ThreadLayout,
}

impl Template for TlabAlloc {
    fn name(&self) -> &'static str {
        "TLAB bump"
    }
    fn operands(&self, isa: Isa) -> Vec<Reg> {
        match isa {
            Isa::X64 => vec![self.thread, self.obj, self.end],
            Isa::Aarch64 => vec![self.thread, self.obj, self.end, self.tmp],
        }
    }
    fn clobbers(&self, isa: Isa) -> RegSet {
        match isa {
            Isa::X64 => RegSet::of(&[self.obj, self.end]),
            Isa::Aarch64 => RegSet::of(&[self.obj, self.end, self.tmp]),
        }
    }
    fn budget(&self, isa: Isa) -> usize {
        match isa {
            Isa::X64 => 5,
            Isa::Aarch64 => 6,
        }
    }
    fn slow_call(&self) -> Option<SlowCall> {
        Some(SlowCall {
            path: SlowPath::Runtime("a TLAB refill or an allocation outside it: (thread, size) -> address"),
            args: vec![SlowArg::Reg(self.thread), SlowArg::Jit("size")],
            ret: Some(self.obj),
        })
    }
}
