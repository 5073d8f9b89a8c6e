//! AArch64 lightweight monitor enter and exit ([`crate::template::lock`]:
//! the protocol), HotSpot's `c2_MacroAssembler_aarch64.cpp` shape with an
//! LSE CAS: `casa` (acquire) on enter, `casl` (release) on exit, the
//! orderings of the Rust fast path's `compare_exchange`. Requires ARMv8.1
//! LSE. Temporaries by role: `top`, `mark`, `slot` (the entry's address),
//! `exp` (the expected word), `old` (the CAS's result).
//!
//! Enter, 18 instructions on a first-level lock, 10 on a recursive one:
//! ```text
//!   ldr  wtop, [thread, #top_off]
//!   cmp  wtop, #end ; b.hs slow
//!   add  xslot, thread, xtop
//!   ldur xmark, [xslot, #-8] ; cmp xmark, obj ; b.eq push
//!   ldr  xmark, [obj]
//!   tbnz xmark, #1, slow                  ; monitor or GC word: no CAS
//!   orr  xexp, xmark, #1 ; and xmark, xmark, #~1
//!   mov  xold, xexp ; casa xold, xmark, [obj]
//!   cmp  xold, xexp ; b.ne slow
//! push:
//!   str  obj, [xslot]
//!   add  wtop, wtop, #8 ; str wtop, [thread, #top_off]
//! ```
//! The enter guessing the header (`LockEnterGuessing`): 17 with
//! fastpath's neutral header when the guess is right (its emitter's
//! comment lists it).
//!
//! Exit, 18 instructions on a last-level unlock, 10 on a recursive one
//! (expecting a register's word: 17, the lock-stack checks in `old` so
//! that `mark` may hold the guess, `and xexp, xword, #~3` for the load):
//! ```text
//!   ldrb wtop, [thread, #top_off]
//!   add  xslot, thread, xtop
//!   ldur xmark, [xslot, #-8] ; cmp xmark, obj ; b.ne slow
//!   ldur xmark, [xslot, #-16] ; cmp xmark, obj ; b.eq pop
//!   ldr  xexp, [obj]
//!   and  xexp, xexp, #~3 ; orr xexp, xexp, #1<<63
//!   orr  xmark, xexp, #1
//!   mov  xold, xexp ; casl xold, xmark, [obj]
//!   cmp  xold, xexp ; b.ne slow
//! pop:
//!   sub  wtop, wtop, #8 ; str wtop, [thread, #top_off]
//! ```

use dynasmrt::{aarch64::Aarch64Relocation, dynasm, DynamicLabel};

use super::{halves, uimm12, Aarch64Asm};
use crate::reg::Reg;
use crate::template::Labels;
use crate::template::{
    Emit, LockEnter, LockEnterGuessing, LockExit, LockExitExpecting, LockRegs, TemplateError,
};

/// What both lock templates emit with: the layout's offsets as
/// immediates (`top_off`, `end`) and the registers as the numbers dynasm
/// takes: thread, object, then the temporaries by role (top, mark, slot,
/// expected, old).
fn operands(
    regs: &LockRegs,
    layout: &crate::layout::LockStackLayout,
) -> Result<(u32, u32, [u8; 7]), TemplateError> {
    let t = regs.temps();
    let r = [regs.thread(), regs.obj(), t[0], t[1], t[2], t[3], t[4]];
    Ok((uimm12(layout.top, 4)?, uimm12(layout.end, 1)?, r.map(|r| r.0)))
}

impl Emit<Aarch64Relocation> for LockEnter {
    fn emit_checked<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let (top_off, end, [t, o, p, m, a, e, c]) = operands(&self.regs, &self.layout)?;
        let slow = labels.slow;
        dynasm!(ops
            ; .arch aarch64
            ; ldr W(p), [X(t), top_off]
            ; cmp WSP(p), #end
            ; b.hs =>slow
            ; add X(a), X(t), X(p)
            ; ldur X(m), [X(a), -8]
            ; cmp X(m), X(o)
            ; b.eq >push
            ; ldr X(m), [X(o)]
        );
        emit_cas_from_mark(ops, [o, m, e, c], slow);
        dynasm!(ops
            ; .arch aarch64
            ; push:
            ; str X(o), [X(a)]
            ; add WSP(p), WSP(p), #8
            ; str W(p), [X(t), top_off]
        );
        Ok(())
    }
}

/// The lock from the header word in `mark` (the loaded form's, and the
/// guessing form's after a missed guess): an inflated or GC word to
/// `slow`; else the CAS from the word with lock bits 01 to the word with
/// 00 (`mark` keeps the latter), a lost CAS to `slow`.
fn emit_cas_from_mark<A: Aarch64Asm>(ops: &mut A, [o, m, e, c]: [u8; 4], slow: DynamicLabel) {
    dynasm!(ops
        ; .arch aarch64
        ; tbnz X(m), #1, =>slow
        ; orr XSP(e), X(m), #1
        ; and XSP(m), X(m), #0xffff_ffff_ffff_fffe
    );
    emit_cas(ops, Ordering::Acquire, [o, m, e, c], slow);
}

/// The enter guessing the header ([`crate::template::LockEnterGuessing`]):
/// the loaded form's bounds and recursive checks; the guess with lock bits
/// 01 materialised in `exp` (`movz`, then a `movk` per further non-zero
/// half); `mark` = the guess with lock bits 00; `casa` from the guess; a
/// hit to the push; a miss (`old`: the header found) falls back to the
/// loaded form's checks and CAS on that word.
/// ```text
///   ldr  wtop, [thread, #top_off] ; cmp wtop, #end ; b.hs slow
///   add  xslot, thread, xtop
///   ldur xmark, [xslot, #-8] ; cmp xmark, obj ; b.eq push
///   movz xexp, #guess0 ; movk xexp, #guess3, lsl #48   ; fastpath's 0x8000_0000_0000_0001
///   sub  xmark, xexp, #1
///   mov  xold, xexp ; casa xold, xmark, [obj]
///   cmp  xold, xexp ; b.eq push
///   mov  xmark, xold                                    ; the header the CAS found
///   tbnz xmark, #1, slow ; orr xexp, xmark, #1 ; and xmark, xmark, #~1
///   mov  xold, xexp ; casa xold, xmark, [obj] ; cmp xold, xexp ; b.ne slow
/// push:
///   str  obj, [xslot] ; add wtop, wtop, #8 ; str wtop, [thread, #top_off]
/// ```
impl Emit<Aarch64Relocation> for LockEnterGuessing {
    fn emit_checked<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let (top_off, end, [t, o, p, m, a, e, c]) = operands(&self.enter.regs, &self.enter.layout)?;
        let slow = labels.slow;
        dynasm!(ops
            ; .arch aarch64
            ; ldr W(p), [X(t), top_off]
            ; cmp WSP(p), #end
            ; b.hs =>slow
            ; add X(a), X(t), X(p)
            ; ldur X(m), [X(a), -8]
            ; cmp X(m), X(o)
            ; b.eq >push
        );
        let h = halves(self.expected());
        dynasm!(ops ; .arch aarch64 ; movz X(e), h[0]);
        for (k, &half) in h.iter().enumerate().skip(1) {
            if half != 0 {
                let shift = 16 * k as u32;
                dynasm!(ops ; .arch aarch64 ; movk X(e), half, lsl shift);
            }
        }
        dynasm!(ops
            ; .arch aarch64
            ; sub XSP(m), XSP(e), #1
            ; mov X(c), X(e)
            ; casa X(c), X(m), [X(o)]
            ; cmp X(c), X(e)
            ; b.eq >push
            ; mov X(m), X(c)
        );
        emit_cas_from_mark(ops, [o, m, e, c], slow);
        dynasm!(ops
            ; .arch aarch64
            ; push:
            ; str X(o), [X(a)]
            ; add WSP(p), WSP(p), #8
            ; str W(p), [X(t), top_off]
        );
        Ok(())
    }
}

impl Emit<Aarch64Relocation> for LockExit {
    fn emit_checked<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        emit_exit(self, ops, labels, None)
    }
}

impl Emit<Aarch64Relocation> for LockExitExpecting {
    fn emit_checked<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        emit_exit(&self.exit, ops, labels, Some(self.word))
    }
}

/// Which CAS a lock operation makes: `casa` on enter, `casl` on exit.
enum Ordering {
    Acquire,
    Release,
}

/// The CAS of header `[obj]` from `exp` to `new` (`old` its result) and
/// its check, a lost CAS to `slow`.
fn emit_cas<A: Aarch64Asm>(ops: &mut A, order: Ordering, [o, new, e, c]: [u8; 4], slow: DynamicLabel) {
    dynasm!(ops ; .arch aarch64 ; mov X(c), X(e));
    match order {
        Ordering::Acquire => dynasm!(ops ; .arch aarch64 ; casa X(c), X(new), [X(o)]),
        Ordering::Release => dynasm!(ops ; .arch aarch64 ; casl X(c), X(new), [X(o)]),
    }
    dynasm!(ops ; .arch aarch64 ; cmp X(c), X(e) ; b.ne =>slow);
}

/// The exit, its expected word loaded from the header or taken from `word`.
fn emit_exit<A: Aarch64Asm>(
    exit: &LockExit,
    ops: &mut A,
    labels: Labels,
    word: Option<Reg>,
) -> Result<(), TemplateError> {
    let (top_off, _, [t, o, p, m, a, e, c]) = operands(&exit.regs, &exit.layout)?;
    let slow = labels.slow;
    // The lock-stack checks' scratch: `mark`, or `old` when `mark` may hold
    // the guess.
    let k = if word.is_some() { c } else { m };
    dynasm!(ops
        ; .arch aarch64
        ; ldrb W(p), [X(t), top_off]
        ; add X(a), X(t), X(p)
        ; ldur X(k), [X(a), -8]
        ; cmp X(k), X(o)
        ; b.ne =>slow
        ; ldur X(k), [X(a), -16]
        ; cmp X(k), X(o)
        ; b.eq >pop
    );
    match word {
        None => dynasm!(ops
            ; .arch aarch64
            ; ldr X(e), [X(o)]
            ; and XSP(e), X(e), #0xffff_ffff_ffff_fffc
        ),
        Some(w) => dynasm!(ops
            ; .arch aarch64
            ; and XSP(e), X(w.0), #0xffff_ffff_ffff_fffc
        ),
    }
    dynasm!(ops
        ; .arch aarch64
        ; orr XSP(e), X(e), #0x8000_0000_0000_0000
        ; orr XSP(m), X(e), #1
    );
    emit_cas(ops, Ordering::Release, [o, m, e, c], slow);
    dynasm!(ops
        ; .arch aarch64
        ; pop:
        ; sub WSP(p), WSP(p), #8
        ; str W(p), [X(t), top_off]
    );
    Ok(())
}
