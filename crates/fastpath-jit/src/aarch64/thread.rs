//! AArch64 thread-block tests ([`crate::template::thread`]):
//! - poll and SATB/LRB idle tests: `ldrb wtmp, [thread, #off]; tbnz wtmp,
//!   #bit, slow` (2, HotSpot's `ldr; tbnz` poll);
//! - TLAB bump, 6:
//! ```text
//!   ldr obj, [thread, #tlab_top] ; add end, obj, #size
//!   ldr tmp, [thread, #tlab_end] ; cmp end, tmp ; b.hi slow
//!   str end, [thread, #tlab_top]
//! ```

use dynasmrt::{aarch64::Aarch64Relocation, dynasm};

use super::{one_bit, uimm12, Aarch64Asm};
use crate::reg::Reg;
use crate::template::Labels;
use crate::template::{Emit, GcStateTest, SafepointPoll, TemplateError, TlabAlloc};

fn test_bit<A: Aarch64Asm>(
    ops: &mut A,
    (thread, tmp): (Reg, Reg),
    off: i32,
    mask: u8,
    labels: Labels,
) -> Result<(), TemplateError> {
    let bit = one_bit(mask)?;
    let off = uimm12(off, 1)?;
    let (t, x, slow) = (thread.0, tmp.0, labels.slow);
    dynasm!(ops
        ; .arch aarch64
        ; ldrb W(x), [X(t), off]
        ; tbnz W(x), bit, =>slow
    );
    Ok(())
}

impl Emit<Aarch64Relocation> for SafepointPoll {
    fn emit_checked<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let l = &self.layout;
        test_bit(ops, (self.thread, self.tmp), l.poll, l.poll_bit, labels)
    }
}

impl Emit<Aarch64Relocation> for GcStateTest {
    fn emit_checked<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let off = self.layout.gc_state;
        test_bit(ops, (self.thread, self.tmp), off, self.mask(), labels)
    }
}

impl Emit<Aarch64Relocation> for TlabAlloc {
    fn emit_checked<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
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
