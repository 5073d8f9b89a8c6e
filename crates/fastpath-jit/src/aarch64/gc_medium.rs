//! AArch64 SATB and LRB medium paths ([`crate::template::gc_medium`]: the
//! protocol and the queue convention), out of line after the idle test's
//! `tbnz`.
//!
//! SATB enqueue, 8 instructions when the value is buffered:
//! ```text
//!   ldr  prev, [field] ; cbz prev, done
//!   ldr  tmp, [thread, #satb_index] ; cbz tmp, slow
//!   sub  tmp, tmp, #8 ; str tmp, [thread, #satb_index]
//!   ldr  tmp2, [thread, #satb_buffer] ; str prev, [tmp2, tmp]
//! ```
//! On a compressed heap the field is `ldr wprev, [field] ; cbz wprev,
//! done ; lsl prev, prev, #3` (9); on an unscaled one `ldr wprev,
//! [field] ; cbz wprev, done` (8: the W load zero-extends the address).
//! LRB collection-set path for a forwarded object, 12 instructions in
//! either cell format ([`crate::Forwardee`]):
//! ```text
//!   cbz  obj, done
//!   lsr  tmp, obj, #region_shift
//!   movz/movk ×4 tmp2, #cset_map        ; biased map address
//!   ldrb wtmp, [tmp2, tmp] ; tbz wtmp, #0, done
//! Brooks format (the forwarding word):
//!   ldur tmp, [obj, #offset] ; cmp tmp, obj ; b.eq slow
//!   mov  obj, tmp
//! compact format (the layout word's 8 bytes; a copy's is the copy's
//! address with its halves swapped and bit 31 set):
//!   ldur tmp, [obj, #offset] ; tbz wtmp, #31, slow
//!   and  tmp, tmp, #~(1 << 31)
//!   ror  obj, tmp, #32
//! ```
//! The compact form's test reads bit 31 only: an object's own word has it
//! clear in either form, whatever the 4 bytes after a tagged word hold
//! (reference 0, in a heap with 4-byte slots).

use dynasmrt::{aarch64::Aarch64Relocation, dynasm};

use super::{halves, simm9, uimm12, Aarch64Asm, COMPRESSED_SHIFT};
use crate::layout::{Forwardee, RefWidth};
use crate::template::Labels;
use crate::template::{Emit, LrbCset, SatbEnqueue, TemplateError};

// The compact form's `tbz #31` and `and #~(1 << 31)`: the forwarded bit.
const _: () = assert!(fastpath::gc::layout::LAYOUT_FORWARDED_BIT == 1 << 31);

impl Emit<Aarch64Relocation> for SatbEnqueue {
    fn emit_checked<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let (index, buffer) = (uimm12(self.queue.index, 8)?, uimm12(self.queue.buffer, 8)?);
        let (t, f, p, x, y) = (self.thread.0, self.field.0, self.prev.0, self.tmp.0, self.tmp2.0);
        let (slow, done) = (labels.slow, labels.done);
        match self.refs {
            RefWidth::Full => dynasm!(ops
                ; .arch aarch64
                ; ldr X(p), [X(f)]
                ; cbz X(p), =>done
            ),
            RefWidth::Compressed => dynasm!(ops
                ; .arch aarch64
                ; ldr W(p), [X(f)]
                ; cbz W(p), =>done
                ; lsl X(p), X(p), COMPRESSED_SHIFT
            ),
            RefWidth::Unscaled => dynasm!(ops
                ; .arch aarch64
                ; ldr W(p), [X(f)]
                ; cbz W(p), =>done
            ),
        }
        dynasm!(ops
            ; .arch aarch64
            ; ldr X(x), [X(t), index]
            ; cbz X(x), =>slow
            ; sub XSP(x), XSP(x), #8
            ; str X(x), [X(t), index]
            ; ldr X(y), [X(t), buffer]
            ; str X(p), [X(y), X(x)]
        );
        Ok(())
    }
}

impl Emit<Aarch64Relocation> for LrbCset {
    fn emit_checked<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let word = simm9(self.forwardee.offset())?;
        let (o, x, y) = (self.obj.0, self.tmp.0, self.tmp2.0);
        let shift = u32::from(self.cset.region_shift);
        let [h0, h1, h2, h3] = halves(self.cset.biased as u64);
        let (slow, done) = (labels.slow, labels.done);
        dynasm!(ops
            ; .arch aarch64
            ; cbz X(o), =>done
            ; lsr X(x), X(o), shift
            ; movz X(y), #h0
            ; movk X(y), #h1, lsl #16
            ; movk X(y), #h2, lsl #32
            ; movk X(y), #h3, lsl #48
            ; ldrb W(x), [X(y), X(x)]
            ; tbz W(x), #0, =>done
            ; ldur X(x), [X(o), word]
        );
        match self.forwardee {
            Forwardee::BrooksWord { .. } => dynasm!(ops
                ; .arch aarch64
                ; cmp X(x), X(o)
                ; b.eq =>slow
                ; mov X(o), X(x)
            ),
            Forwardee::LayoutWord { .. } => dynasm!(ops
                ; .arch aarch64
                ; tbz W(x), #31, =>slow
                ; and XSP(x), X(x), #0xffff_ffff_7fff_ffff
                ; ror X(o), X(x), #32
            ),
        }
        Ok(())
    }
}
