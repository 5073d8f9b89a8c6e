//! x86-64 SATB and LRB medium paths ([`crate::template::gc_medium`]: the
//! protocol and the queue convention).
//!
//! SATB enqueue, 10 instructions when the value is buffered:
//! ```text
//!   mov  prev, [field]                  ; the value about to be overwritten
//!   test prev, prev ; jz done           ; null: nothing to remember
//!   mov  tmp, [thread+satb_index]       ; bytes left in the buffer
//!   test tmp, tmp ; jz slow             ; full: the library flushes it
//!   sub  tmp, 8 ; mov [thread+satb_index], tmp
//!   add  tmp, [thread+satb_buffer] ; mov [tmp], prev
//! ```
//! LRB collection-set path, 11 instructions for a forwarded object:
//! ```text
//!   test obj, obj ; jz done             ; null
//!   mov  tmp, obj ; shr tmp, region_shift
//!   mov  tmp2, imm64(cset_map)          ; biased: map − (heap_base >> shift)
//!   test byte [tmp2+tmp], 1 ; jz done   ; not in the collection set
//!   mov  tmp, [obj+forwarding]          ; the Brooks forwarding word
//!   cmp  tmp, obj ; je slow             ; not copied yet: the library evacuates
//!   mov  obj, tmp                       ; the copy
//! ```

use dynasmrt::{dynasm, x64::X64Relocation};

use super::X64Asm;
use crate::template::Labels;
use crate::template::{Emit, LrbCset, SatbEnqueue, TemplateError};

impl Emit<X64Relocation> for SatbEnqueue {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
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
        Ok(())
    }
}

impl Emit<X64Relocation> for LrbCset {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
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
        Ok(())
    }
}
