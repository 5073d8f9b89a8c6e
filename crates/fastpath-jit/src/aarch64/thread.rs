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
