//! x86-64 data loads and stores ([`crate::template::data`]: what each
//! barrier does). `mem` is `[base + offset]`, or `[base + index*width +
//! offset]` for an element; `base` is the object, or the copy the barrier
//! resolved.
//! - Load (1, 2 through the forwarding word): `mov dst, [obj+fwd]` first
//!   under [`DataBarrier::Forwarded`] (base = dst), then `movzx dst32,
//!   byte/word mem`, `movsx dst, byte/word mem`, `mov dst32, dword mem`,
//!   `movsxd dst, dword mem` or `mov dst, qword mem` (a full-width
//!   reference too); a compressed reference is `mov dst32, dword mem; shl
//!   dst, 3` (2, 3 through the forwarding word), an unscaled one `mov
//!   dst32, dword mem` (the address zero-extended).
//! - Store (1, 2, 4 with the write barrier): `mov obj, [obj+fwd]` first
//!   under [`DataBarrier::Forwarded`]; under [`DataBarrier::BrooksWrite`]
//!   `test byte [thread+gc_state], bits; jnz slow; mov obj, [obj+fwd];
//!   done:` first; then `mov byte/word/dword/qword mem, src`; a
//!   compressed reference is `mov tmp, src; shr tmp, 3; mov dword mem,
//!   tmp32` (3, and the barrier's), encoded after `done`, so a value the
//!   stub kept is encoded on either path; an unscaled one `mov dword mem,
//!   src32`.

use dynasmrt::{dynasm, x64::X64Relocation};

use super::{X64Asm, COMPRESSED_SHIFT};
use crate::layout::RefWidth;
use crate::template::{DataBarrier, DataLoad, DataStore, DataWidth, Emit, Labels, TemplateError};

/// Emits `$op $dst, SIZE [mem]` for a load of `$w`, `mem` being `[$b +
/// $off]` or, with an index, `[$b + $i * width + $off]`.
macro_rules! load {
    ($ops:ident, $w:expr, $d:expr, $b:expr, None, $off:expr) => {
        match $w {
            DataWidth::U8 => dynasm!($ops ; .arch x64 ; movzx Rd($d), BYTE [Rq($b) + $off]),
            DataWidth::I8 => dynasm!($ops ; .arch x64 ; movsx Rq($d), BYTE [Rq($b) + $off]),
            DataWidth::U16 => dynasm!($ops ; .arch x64 ; movzx Rd($d), WORD [Rq($b) + $off]),
            DataWidth::I16 => dynasm!($ops ; .arch x64 ; movsx Rq($d), WORD [Rq($b) + $off]),
            DataWidth::U32 | DataWidth::Ref(RefWidth::Unscaled) => {
                dynasm!($ops ; .arch x64 ; mov Rd($d), DWORD [Rq($b) + $off])
            }
            DataWidth::I32 => dynasm!($ops ; .arch x64 ; movsxd Rq($d), DWORD [Rq($b) + $off]),
            DataWidth::U64 | DataWidth::Ref(RefWidth::Full) => {
                dynasm!($ops ; .arch x64 ; mov Rq($d), QWORD [Rq($b) + $off])
            }
            DataWidth::Ref(RefWidth::Compressed) => {
                dynasm!($ops ; .arch x64 ; mov Rd($d), DWORD [Rq($b) + $off] ; shl Rq($d), COMPRESSED_SHIFT)
            }
        }
    };
    ($ops:ident, $w:expr, $d:expr, $b:expr, $i:expr, $off:expr) => {
        match $w {
            DataWidth::U8 => dynasm!($ops ; .arch x64 ; movzx Rd($d), BYTE [Rq($b) + Rq($i) + $off]),
            DataWidth::I8 => dynasm!($ops ; .arch x64 ; movsx Rq($d), BYTE [Rq($b) + Rq($i) + $off]),
            DataWidth::U16 => dynasm!($ops ; .arch x64 ; movzx Rd($d), WORD [Rq($b) + Rq($i) * 2 + $off]),
            DataWidth::I16 => dynasm!($ops ; .arch x64 ; movsx Rq($d), WORD [Rq($b) + Rq($i) * 2 + $off]),
            DataWidth::U32 | DataWidth::Ref(RefWidth::Unscaled) => {
                dynasm!($ops ; .arch x64 ; mov Rd($d), DWORD [Rq($b) + Rq($i) * 4 + $off])
            }
            DataWidth::I32 => dynasm!($ops ; .arch x64 ; movsxd Rq($d), DWORD [Rq($b) + Rq($i) * 4 + $off]),
            DataWidth::U64 | DataWidth::Ref(RefWidth::Full) => {
                dynasm!($ops ; .arch x64 ; mov Rq($d), QWORD [Rq($b) + Rq($i) * 8 + $off])
            }
            DataWidth::Ref(RefWidth::Compressed) => dynasm!($ops
                ; .arch x64
                ; mov Rd($d), DWORD [Rq($b) + Rq($i) * 4 + $off]
                ; shl Rq($d), COMPRESSED_SHIFT
            ),
        }
    };
}

/// Emits `mov SIZE [mem], src` for a store of `$w`'s bytes.
macro_rules! store {
    ($ops:ident, $w:expr, $s:expr, $b:expr, None, $off:expr) => {
        match $w.bytes() {
            1 => dynasm!($ops ; .arch x64 ; mov BYTE [Rq($b) + $off], Rb($s)),
            2 => dynasm!($ops ; .arch x64 ; mov WORD [Rq($b) + $off], Rw($s)),
            4 => dynasm!($ops ; .arch x64 ; mov DWORD [Rq($b) + $off], Rd($s)),
            _ => dynasm!($ops ; .arch x64 ; mov QWORD [Rq($b) + $off], Rq($s)),
        }
    };
    ($ops:ident, $w:expr, $s:expr, $b:expr, $i:expr, $off:expr) => {
        match $w.bytes() {
            1 => dynasm!($ops ; .arch x64 ; mov BYTE [Rq($b) + Rq($i) + $off], Rb($s)),
            2 => dynasm!($ops ; .arch x64 ; mov WORD [Rq($b) + Rq($i) * 2 + $off], Rw($s)),
            4 => dynasm!($ops ; .arch x64 ; mov DWORD [Rq($b) + Rq($i) * 4 + $off], Rd($s)),
            _ => dynasm!($ops ; .arch x64 ; mov QWORD [Rq($b) + Rq($i) * 8 + $off], Rq($s)),
        }
    };
}

impl Emit<X64Relocation> for DataLoad {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, _labels: Labels) -> Result<(), TemplateError> {
        let (o, d, off, w) = (self.obj.0, self.dst.0, self.offset, self.width);
        let base = match self.barrier {
            DataBarrier::Forwarded { forwarding } => {
                dynasm!(ops ; .arch x64 ; mov Rq(d), QWORD [Rq(o) + forwarding]);
                d
            }
            _ => o,
        };
        match self.index {
            None => load!(ops, w, d, base, None, off),
            Some(i) => load!(ops, w, d, base, i.0, off),
        }
        Ok(())
    }
}

impl Emit<X64Relocation> for DataStore {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let (o, mut s, off, w) = (self.obj.0, self.src.0, self.offset, self.width);
        match self.barrier {
            DataBarrier::None => {}
            DataBarrier::Forwarded { forwarding } => {
                dynasm!(ops ; .arch x64 ; mov Rq(o), QWORD [Rq(o) + forwarding]);
            }
            DataBarrier::BrooksWrite {
                gc_state,
                state_bits,
                forwarding,
            } => {
                let (t, bits, slow, done) = (self.thread.0, state_bits as i8, labels.slow, labels.done);
                dynasm!(ops
                    ; .arch x64
                    ; test BYTE [Rq(t) + gc_state], bits
                    ; jnz =>slow
                    ; mov Rq(o), QWORD [Rq(o) + forwarding]
                    ; =>done
                );
            }
        }
        if w.compressed() {
            let x = self.tmp.0;
            dynasm!(ops ; .arch x64 ; mov Rq(x), Rq(s) ; shr Rq(x), COMPRESSED_SHIFT);
            s = x;
        }
        match self.index {
            None => store!(ops, w, s, o, None, off),
            Some(i) => store!(ops, w, s, o, i.0, off),
        }
        Ok(())
    }
}
