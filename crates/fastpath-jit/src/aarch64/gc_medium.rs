//! The SATB and LRB medium paths on AArch64, the shapes of
//! [`crate::x64::gc_medium`] (where the protocol and the queue convention
//! are described), out of line after the idle test's `tbnz`.
//!
//! SATB enqueue, 8 instructions when the value is buffered:
//! ```text
//!   ldr  prev, [field] ; cbz prev, done
//!   ldr  tmp, [thread, #satb_index] ; cbz tmp, slow
//!   sub  tmp, tmp, #8 ; str tmp, [thread, #satb_index]
//!   ldr  tmp2, [thread, #satb_buffer] ; str prev, [tmp2, tmp]
//! ```
//! LRB collection-set path, 12 instructions for a forwarded object:
//! ```text
//!   cbz  obj, done
//!   lsr  tmp, obj, #region_shift
//!   movz/movk ×4 tmp2, #cset_map        ; biased map address
//!   ldrb wtmp, [tmp2, tmp] ; tbz wtmp, #0, done
//!   ldur tmp, [obj, #forwarding] ; cmp tmp, obj ; b.eq slow
//!   mov  obj, tmp
//! ```
//! The forwarding word is read with a plain `ldur`: the copy's contents
//! are published by the evacuating CAS's release, and the address
//! dependency from the loaded forwardee to every read through it orders
//! those reads on AArch64 (what HotSpot relies on for the same load).

use dynasmrt::dynasm;

use super::{uimm12, Aarch64Asm, Labels, Template, TemplateError};
use crate::reg::{Reg, RegSet};
pub use crate::x64::gc_medium::{CsetMap, SatbQueueLayout};

/// The SATB medium path: enqueue the field's current value.
#[derive(Clone, Copy, Debug)]
pub struct SatbEnqueue {
    /// The thread register.
    pub thread: Reg,
    /// The field's address (kept).
    pub field: Reg,
    /// Receives the previous value (the slow path's second argument).
    pub prev: Reg,
    /// Scratch (the index).
    pub tmp: Reg,
    /// Scratch (the buffer).
    pub tmp2: Reg,
    /// The queue's offsets.
    pub queue: SatbQueueLayout,
}

impl Template for SatbEnqueue {
    fn name(&self) -> &'static str {
        "SATB enqueue"
    }
    fn clobbers(&self) -> RegSet {
        RegSet::of(&[self.prev, self.tmp, self.tmp2])
    }
    fn budget(&self) -> usize {
        8
    }
    fn emit<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let (index, buffer) = (uimm12(self.queue.index, 8)?, uimm12(self.queue.buffer, 8)?);
        let (t, f, p, x, y) = (self.thread.0, self.field.0, self.prev.0, self.tmp.0, self.tmp2.0);
        let (slow, done) = (labels.slow, labels.done);
        dynasm!(ops
            ; .arch aarch64
            ; ldr X(p), [X(f)]
            ; cbz X(p), =>done
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
    /// Offset of the forwarding word from the object (fastpath: −8;
    /// −256..256).
    pub forwarding: i32,
}

impl Template for LrbCset {
    fn name(&self) -> &'static str {
        "LRB collection-set path"
    }
    fn clobbers(&self) -> RegSet {
        RegSet::of(&[self.obj, self.tmp, self.tmp2])
    }
    fn budget(&self) -> usize {
        12
    }
    fn emit<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        if !(-256..256).contains(&self.forwarding) {
            return Err(TemplateError::Offset {
                offset: self.forwarding,
                accepts: "-256..256 (LDUR)",
            });
        }
        let (o, x, y, fwd) = (self.obj.0, self.tmp.0, self.tmp2.0, self.forwarding);
        let shift = u32::from(self.cset.region_shift);
        let m = self.cset.biased as u64;
        let [h0, h1, h2, h3] = [0, 16, 32, 48].map(|s| (m >> s) as u32 & 0xffff);
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
            ; ldur X(x), [X(o), fwd]
            ; cmp X(x), X(o)
            ; b.eq =>slow
            ; mov X(o), X(x)
        );
        Ok(())
    }
}
