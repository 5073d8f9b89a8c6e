//! AArch64 data loads and stores ([`crate::template::data`]: what each
//! barrier does). A field is `[base, #offset]` (the scaled unsigned form,
//! or `ldur`/`stur` for −256..256); an element is `[base, index, lsl
//! #log2(width)]`, after `add addr, base, #offset` when the offset is not
//! 0 (the register form takes no offset); `base` is the object, or the
//! copy the barrier resolved.
//! - Load (1, 2 through the forwarding word, one `add` more for an element
//!   at an offset): `ldur dst, [obj, #fwd]` first under
//!   [`DataBarrier::Forwarded`] (base = dst, and dst holds the element's
//!   address), then `ldrb`/`ldrsb`/`ldrh`/`ldrsh`/`ldr w`/`ldrsw`/`ldr x`
//!   (`ldr x` a full-width reference too, `ldr w` an unscaled one: the
//!   address zero-extended); a compressed reference is `ldr wdst, mem;
//!   lsl dst, dst, #3` (one more).
//! - Store (1, 2, 2 + bits + 1 with the write barrier; the `add` into
//!   `tmp` for an element at an offset): `ldur obj, [obj, #fwd]` first
//!   under [`DataBarrier::Forwarded`]; under [`DataBarrier::BrooksWrite`]
//!   `ldrb wtmp, [thread, #gc_state]`, one `tbnz wtmp, #bit, slow` per
//!   state bit, `ldur obj, [obj, #fwd]`, `done:` first; then
//!   `strb`/`strh`/`str w`/`str x` (`str w` an unscaled reference); a
//!   compressed reference is `lsr enc, src, #3; str wenc, mem` (one
//!   more), `enc` being `tmp`, or `tmp2` when `tmp` holds an element's
//!   address, encoded after `done`.
//!
//! Every form is single-copy atomic for an aligned offset (AArch64
//! guarantees it for naturally aligned accesses up to 8 bytes), which the
//! description checks.

use dynasmrt::{aarch64::Aarch64Relocation, dynasm};

use super::{simm9, uimm12, Aarch64Asm, COMPRESSED_SHIFT};
use crate::layout::RefWidth;
use crate::template::{DataBarrier, DataLoad, DataStore, DataWidth, Emit, Labels, TemplateError};

/// Where an access's immediate offset goes.
enum Offset {
    /// `[base, #off]`, the scaled unsigned form.
    Scaled(u32),
    /// `[base, #off]`, `ldur`/`stur`'s signed 9-bit form.
    Unscaled(i32),
    /// An element: `[base, index, lsl #s]`, after `add addr, base, #off`
    /// when `off` is not 0.
    Indexed(u32, u8),
}

/// The form of `offset` for `width`, with `index` or without.
fn offset_form(
    offset: i32,
    width: DataWidth,
    index: Option<crate::reg::Reg>,
) -> Result<Offset, TemplateError> {
    match index {
        Some(i) if (0..4096).contains(&offset) => Ok(Offset::Indexed(offset as u32, i.0)),
        Some(_) => Err(TemplateError::Offset {
            offset,
            accepts: "0..4096 with an index (ADD's immediate)",
        }),
        None => match uimm12(offset, width.bytes() as i32) {
            Ok(off) => Ok(Offset::Scaled(off)),
            Err(_) => simm9(offset).map(Offset::Unscaled),
        },
    }
}

/// A load of `$w` into `$d` from `[$b, #$off]` (`$form`: scaled or
/// unscaled) or `[$b, $i, lsl #s]`.
macro_rules! load {
    ($ops:ident, $w:expr, $d:expr, $b:expr, scaled $off:expr) => {
        match $w {
            DataWidth::U8 => dynasm!($ops ; .arch aarch64 ; ldrb W($d), [X($b), $off]),
            DataWidth::I8 => dynasm!($ops ; .arch aarch64 ; ldrsb X($d), [X($b), $off]),
            DataWidth::U16 => dynasm!($ops ; .arch aarch64 ; ldrh W($d), [X($b), $off]),
            DataWidth::I16 => dynasm!($ops ; .arch aarch64 ; ldrsh X($d), [X($b), $off]),
            DataWidth::U32 | DataWidth::Ref(RefWidth::Compressed | RefWidth::Unscaled) => {
                dynasm!($ops ; .arch aarch64 ; ldr W($d), [X($b), $off])
            }
            DataWidth::I32 => dynasm!($ops ; .arch aarch64 ; ldrsw X($d), [X($b), $off]),
            DataWidth::U64 | DataWidth::Ref(RefWidth::Full) => {
                dynasm!($ops ; .arch aarch64 ; ldr X($d), [X($b), $off])
            }
        }
    };
    ($ops:ident, $w:expr, $d:expr, $b:expr, unscaled $off:expr) => {
        match $w {
            DataWidth::U8 => dynasm!($ops ; .arch aarch64 ; ldurb W($d), [X($b), $off]),
            DataWidth::I8 => dynasm!($ops ; .arch aarch64 ; ldursb X($d), [X($b), $off]),
            DataWidth::U16 => dynasm!($ops ; .arch aarch64 ; ldurh W($d), [X($b), $off]),
            DataWidth::I16 => dynasm!($ops ; .arch aarch64 ; ldursh X($d), [X($b), $off]),
            DataWidth::U32 | DataWidth::Ref(RefWidth::Compressed | RefWidth::Unscaled) => {
                dynasm!($ops ; .arch aarch64 ; ldur W($d), [X($b), $off])
            }
            DataWidth::I32 => dynasm!($ops ; .arch aarch64 ; ldursw X($d), [X($b), $off]),
            DataWidth::U64 | DataWidth::Ref(RefWidth::Full) => {
                dynasm!($ops ; .arch aarch64 ; ldur X($d), [X($b), $off])
            }
        }
    };
    ($ops:ident, $w:expr, $d:expr, $b:expr, indexed $i:expr) => {
        match $w {
            DataWidth::U8 => dynasm!($ops ; .arch aarch64 ; ldrb W($d), [X($b), X($i)]),
            DataWidth::I8 => dynasm!($ops ; .arch aarch64 ; ldrsb X($d), [X($b), X($i)]),
            DataWidth::U16 => dynasm!($ops ; .arch aarch64 ; ldrh W($d), [X($b), X($i), lsl #1]),
            DataWidth::I16 => dynasm!($ops ; .arch aarch64 ; ldrsh X($d), [X($b), X($i), lsl #1]),
            DataWidth::U32 | DataWidth::Ref(RefWidth::Compressed | RefWidth::Unscaled) => {
                dynasm!($ops ; .arch aarch64 ; ldr W($d), [X($b), X($i), lsl #2])
            }
            DataWidth::I32 => dynasm!($ops ; .arch aarch64 ; ldrsw X($d), [X($b), X($i), lsl #2]),
            DataWidth::U64 | DataWidth::Ref(RefWidth::Full) => {
                dynasm!($ops ; .arch aarch64 ; ldr X($d), [X($b), X($i), lsl #3])
            }
        }
    };
}

/// A store of `$w`'s bytes of `$s`, addressed as in `load!`.
macro_rules! store {
    ($ops:ident, $w:expr, $s:expr, $b:expr, scaled $off:expr) => {
        match $w.bytes() {
            1 => dynasm!($ops ; .arch aarch64 ; strb W($s), [X($b), $off]),
            2 => dynasm!($ops ; .arch aarch64 ; strh W($s), [X($b), $off]),
            4 => dynasm!($ops ; .arch aarch64 ; str W($s), [X($b), $off]),
            _ => dynasm!($ops ; .arch aarch64 ; str X($s), [X($b), $off]),
        }
    };
    ($ops:ident, $w:expr, $s:expr, $b:expr, unscaled $off:expr) => {
        match $w.bytes() {
            1 => dynasm!($ops ; .arch aarch64 ; sturb W($s), [X($b), $off]),
            2 => dynasm!($ops ; .arch aarch64 ; sturh W($s), [X($b), $off]),
            4 => dynasm!($ops ; .arch aarch64 ; stur W($s), [X($b), $off]),
            _ => dynasm!($ops ; .arch aarch64 ; stur X($s), [X($b), $off]),
        }
    };
    ($ops:ident, $w:expr, $s:expr, $b:expr, indexed $i:expr) => {
        match $w.bytes() {
            1 => dynasm!($ops ; .arch aarch64 ; strb W($s), [X($b), X($i)]),
            2 => dynasm!($ops ; .arch aarch64 ; strh W($s), [X($b), X($i), lsl #1]),
            4 => dynasm!($ops ; .arch aarch64 ; str W($s), [X($b), X($i), lsl #2]),
            _ => dynasm!($ops ; .arch aarch64 ; str X($s), [X($b), X($i), lsl #3]),
        }
    };
}

impl Emit<Aarch64Relocation> for DataLoad {
    fn emit_checked<A: Aarch64Asm>(&self, ops: &mut A, _labels: Labels) -> Result<(), TemplateError> {
        let form = offset_form(self.offset, self.width, self.index)?;
        let (o, d, w) = (self.obj.0, self.dst.0, self.width);
        let mut base = o;
        if let DataBarrier::Forwarded { forwarding } = self.barrier {
            let fwd = simm9(forwarding)?;
            dynasm!(ops ; .arch aarch64 ; ldur X(d), [X(o), fwd]);
            base = d;
        }
        match form {
            Offset::Scaled(off) => load!(ops, w, d, base, scaled off),
            Offset::Unscaled(off) => load!(ops, w, d, base, unscaled off),
            Offset::Indexed(off, i) => {
                if off != 0 {
                    dynasm!(ops ; .arch aarch64 ; add XSP(d), XSP(base), #off);
                    base = d;
                }
                load!(ops, w, d, base, indexed i)
            }
        }
        if w.compressed() {
            dynasm!(ops ; .arch aarch64 ; lsl X(d), X(d), COMPRESSED_SHIFT);
        }
        Ok(())
    }
}

impl Emit<Aarch64Relocation> for DataStore {
    fn emit_checked<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let form = offset_form(self.offset, self.width, self.index)?;
        let (o, mut s, x, w) = (self.obj.0, self.src.0, self.tmp.0, self.width);
        match self.barrier {
            DataBarrier::None => {}
            DataBarrier::Forwarded { forwarding } => {
                let fwd = simm9(forwarding)?;
                dynasm!(ops ; .arch aarch64 ; ldur X(o), [X(o), fwd]);
            }
            DataBarrier::BrooksWrite {
                gc_state,
                state_bits,
                forwarding,
            } => {
                let (fwd, gc) = (simm9(forwarding)?, uimm12(gc_state, 1)?);
                let (t, slow, done) = (self.thread.0, labels.slow, labels.done);
                dynasm!(ops ; .arch aarch64 ; ldrb W(x), [X(t), gc]);
                for bit in 0..8u32 {
                    if state_bits & (1 << bit) != 0 {
                        dynasm!(ops ; .arch aarch64 ; tbnz W(x), bit, =>slow);
                    }
                }
                dynasm!(ops ; .arch aarch64 ; ldur X(o), [X(o), fwd] ; =>done);
            }
        }
        if w.compressed() {
            // `tmp` takes an element's address below, then `tmp2` the value.
            let enc = match form {
                Offset::Indexed(off, _) if off != 0 => self.tmp2.0,
                _ => x,
            };
            dynasm!(ops ; .arch aarch64 ; lsr X(enc), X(s), COMPRESSED_SHIFT);
            s = enc;
        }
        match form {
            Offset::Scaled(off) => store!(ops, w, s, o, scaled off),
            Offset::Unscaled(off) => store!(ops, w, s, o, unscaled off),
            Offset::Indexed(off, i) => {
                let mut base = o;
                if off != 0 {
                    dynasm!(ops ; .arch aarch64 ; add XSP(x), XSP(o), #off);
                    base = x;
                }
                store!(ops, w, s, base, indexed i)
            }
        }
        Ok(())
    }
}
