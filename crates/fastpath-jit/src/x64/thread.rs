//! x86-64 thread-block tests ([`crate::template::thread`]):
//! - poll: `test byte [thread+poll], bit; jnz slow` (2 instructions);
//! - SATB / LRB idle: `test byte [thread+gc_state], bit; jnz slow` (2);
//! - TLAB: `mov obj,[thread+top]; lea end,[obj+size]; cmp end,[thread+tlab_end];
//!   ja slow; mov [thread+top],end` (5), the object's address in `obj`.

use dynasmrt::{dynasm, x64::X64Relocation};

use super::X64Asm;
use crate::reg::Reg;
use crate::template::Labels;
use crate::template::{Emit, GcStateTest, SafepointPoll, TemplateError, TlabAlloc};

impl Emit<X64Relocation> for SafepointPoll {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        test_bit(ops, self.thread, self.layout.poll, self.layout.poll_bit, labels);
        Ok(())
    }
}

impl Emit<X64Relocation> for GcStateTest {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        test_bit(ops, self.thread, self.layout.gc_state, self.mask(), labels);
        Ok(())
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

impl Emit<X64Relocation> for TlabAlloc {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
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
        Ok(())
    }
}
