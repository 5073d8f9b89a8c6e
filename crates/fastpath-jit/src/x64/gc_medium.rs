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
//! On a compressed heap the first two are `mov prev32, dword [field]; shl
//! prev, 3`, whose flags `jz` reads (zero exactly for null): still 10. On
//! an unscaled one `mov prev32, dword [field]; test prev32, prev32` (the
//! load zero-extends the address): 10.
//! LRB collection-set path for a forwarded object, 11 instructions in the
//! Brooks format and 12 in the compact one ([`crate::Forwardee`]):
//! ```text
//!   test obj, obj ; jz done             ; null
//!   mov  tmp, obj ; shr tmp, region_shift
//!   mov  tmp2, imm64(cset_map)          ; biased: map − (heap_base >> shift)
//!   test byte [tmp2+tmp], 1 ; jz done   ; not in the collection set
//! Brooks format:
//!   mov  tmp, [obj+offset]              ; the forwarding word
//!   cmp  tmp, obj ; je slow             ; itself: not copied yet, the library evacuates
//!   mov  obj, tmp                       ; the copy
//! compact format:
//!   mov  tmp, [obj+offset]              ; the layout word's 8 bytes
//!   btr  tmp, 31 ; jnc slow             ; bit 31 was clear: not copied yet
//!   rol  tmp, 32 ; mov obj, tmp         ; the halves swapped back: the copy
//! ```
//! The compact form's `btr` both tests and clears the forwarded bit (the
//! carry is the bit's old value), so the decode of a copy
//! (`fastpath::gc::layout::forwardee_of_layout_word`) is the `btr` and
//! one rotation. An object's own word has bit 31 clear in either form,
//! whatever the 4 bytes after a tagged word hold (reference 0, in a heap
//! with 4-byte slots).

use dynasmrt::{dynasm, x64::X64Relocation};

use super::{X64Asm, COMPRESSED_SHIFT};
use crate::layout::{Forwardee, RefWidth};
use crate::template::Labels;
use crate::template::{Emit, LrbCset, SatbEnqueue, TemplateError};

/// The bit set in a forwarded original's layout word
/// (`fastpath::gc::layout::LAYOUT_FORWARDED_BIT`).
const FORWARDED_BIT: i8 = fastpath::gc::layout::LAYOUT_FORWARDED_BIT.trailing_zeros() as i8;

impl Emit<X64Relocation> for SatbEnqueue {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let (t, f, p, x) = (self.thread.0, self.field.0, self.prev.0, self.tmp.0);
        let (index, buffer) = (self.queue.index, self.queue.buffer);
        let (slow, done) = (labels.slow, labels.done);
        match self.refs {
            RefWidth::Full => dynasm!(ops
                ; .arch x64
                ; mov Rq(p), QWORD [Rq(f)]
                ; test Rq(p), Rq(p)
            ),
            RefWidth::Compressed => dynasm!(ops
                ; .arch x64
                ; mov Rd(p), DWORD [Rq(f)]
                ; shl Rq(p), COMPRESSED_SHIFT
            ),
            RefWidth::Unscaled => dynasm!(ops
                ; .arch x64
                ; mov Rd(p), DWORD [Rq(f)]
                ; test Rd(p), Rd(p)
            ),
        }
        dynasm!(ops
            ; .arch x64
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
        let (shift, map) = (self.cset.region_shift as i8, self.cset.biased as i64);
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
        );
        match self.forwardee {
            Forwardee::BrooksWord { offset } => dynasm!(ops
                ; .arch x64
                ; mov Rq(x), QWORD [Rq(o) + offset]
                ; cmp Rq(x), Rq(o)
                ; je =>slow
                ; mov Rq(o), Rq(x)
            ),
            Forwardee::LayoutWord { offset } => dynasm!(ops
                ; .arch x64
                ; mov Rq(x), QWORD [Rq(o) + offset]
                ; btr Rq(x), BYTE FORWARDED_BIT
                ; jnc =>slow
                ; rol Rq(x), 32
                ; mov Rq(o), Rq(x)
            ),
        }
        Ok(())
    }
}
