//! Thread-block tests on AArch64: the safepoint poll and the SATB/LRB idle
//! tests, `ldrb wtmp, [thread, #off]; tbnz wtmp, #bit, slow` (2
//! instructions, HotSpot's `ldr; tbnz` poll). Loads of thread-private bytes,
//! as in [`crate::x64::thread`].

use dynasmrt::dynasm;

use super::{uimm12, Aarch64Asm, Labels, Template, TemplateError};
use crate::layout::ThreadLayout;
use crate::reg::{Reg, RegSet};
pub use crate::x64::thread::GcBarrier;

fn test_bit<A: Aarch64Asm>(
    ops: &mut A,
    thread: Reg,
    tmp: Reg,
    off: i32,
    mask: u8,
    labels: Labels,
) -> Result<(), TemplateError> {
    if mask.count_ones() != 1 {
        return Err(TemplateError::NotOneBit(mask));
    }
    let off = uimm12(off, 1)?;
    let bit = mask.trailing_zeros();
    let (t, x, slow) = (thread.0, tmp.0, labels.slow);
    dynasm!(ops
        ; .arch aarch64
        ; ldrb W(x), [X(t), off]
        ; tbnz W(x), bit, =>slow
    );
    Ok(())
}

/// The safepoint poll; `tmp` receives the poll byte.
#[derive(Clone, Copy, Debug)]
pub struct SafepointPoll {
    /// The thread register.
    pub thread: Reg,
    /// Scratch.
    pub tmp: Reg,
    /// The block's layout.
    pub layout: ThreadLayout,
}

impl Template for SafepointPoll {
    fn name(&self) -> &'static str {
        "safepoint poll"
    }
    fn clobbers(&self) -> RegSet {
        RegSet::of(&[self.tmp])
    }
    fn budget(&self) -> usize {
        2
    }
    fn emit<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        test_bit(
            ops,
            self.thread,
            self.tmp,
            self.layout.poll,
            self.layout.poll_bit,
            labels,
        )
    }
}

/// The SATB or LRB idle test; `tmp` receives the GC-state byte.
#[derive(Clone, Copy, Debug)]
pub struct GcStateTest {
    /// Which barrier.
    pub barrier: GcBarrier,
    /// The thread register.
    pub thread: Reg,
    /// Scratch.
    pub tmp: Reg,
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
        RegSet::of(&[self.tmp])
    }
    fn budget(&self) -> usize {
        2
    }
    fn emit<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let bit = match self.barrier {
            GcBarrier::Satb => self.layout.marking_bit,
            GcBarrier::Lrb => self.layout.has_forwarded_bit,
        };
        test_bit(ops, self.thread, self.tmp, self.layout.gc_state, bit, labels)
    }
}

/// TLAB bump allocation (as [`crate::x64::TlabAlloc`]), 6 instructions:
/// ```text
///   ldr obj, [thread, #tlab_top] ; add end, obj, #size
///   ldr tmp, [thread, #tlab_end] ; cmp end, tmp ; b.hi slow
///   str end, [thread, #tlab_top]
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TlabAlloc {
    /// The thread register.
    pub thread: Reg,
    /// Receives the new object's address.
    pub obj: Reg,
    /// Scratch: the new top.
    pub end: Reg,
    /// Scratch: the TLAB's end.
    pub tmp: Reg,
    /// Bytes to allocate, 0–4095 (aligned as the heap requires).
    pub size: i32,
    /// The block's layout.
    pub layout: ThreadLayout,
}

impl Template for TlabAlloc {
    fn name(&self) -> &'static str {
        "TLAB allocation"
    }
    fn clobbers(&self) -> RegSet {
        RegSet::of(&[self.obj, self.end, self.tmp])
    }
    fn budget(&self) -> usize {
        6
    }
    fn emit<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let (top, end) = (uimm12(self.layout.tlab_top, 8)?, uimm12(self.layout.tlab_end, 8)?);
        if !(0..4096).contains(&self.size) {
            return Err(TemplateError::Offset {
                offset: self.size,
                accepts: "a size of 0..4096 (ADD immediate)",
            });
        }
        let size = self.size as u32;
        let (t, o, e, x, slow) = (self.thread.0, self.obj.0, self.end.0, self.tmp.0, labels.slow);
        dynasm!(ops
            ; .arch aarch64
            ; ldr X(o), [X(t), top]
            ; add XSP(e), XSP(o), #size
            ; ldr X(x), [X(t), end]
            ; cmp X(e), X(x)
            ; b.hi =>slow
            ; str X(e), [X(t), top]
        );
        Ok(())
    }
}
