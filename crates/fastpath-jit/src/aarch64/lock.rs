//! Lightweight monitor enter and exit on AArch64 (HotSpot lightweight
//! locking, `c2_MacroAssembler_aarch64.cpp`), the shape of
//! [`crate::x64::lock`] with an LSE CAS: `casa` (acquire) on enter, `casl`
//! (release) on exit, the orderings of the Rust fast path's
//! `compare_exchange` (Acquire on enter, Release on exit).
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
//! Exit, 20 instructions on a last-level unlock, 12 on a recursive one:
//! ```text
//!   ldr  wtop, [thread, #top_off]
//!   cmp  wtop, #end ; b.hi slow
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
//! The shared-memory protocol is the Rust fast path's, which loom checks
//! (see [`crate::x64::lock`]); the lock-stack stores go to the thread
//! block only. Requires ARMv8.1 LSE (`casa`/`casl`).

use dynasmrt::dynasm;

use super::{uimm12, Aarch64Asm, Labels, Template, TemplateError};
use crate::layout::LockStackLayout;
use crate::reg::{Reg, RegSet};

/// The registers of an AArch64 lock template: the thread block, the object
/// (its header word's address), and five distinct temporaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockRegs {
    /// The thread register.
    pub thread: Reg,
    /// The object.
    pub obj: Reg,
    /// Temporaries: top, slot address, mark, expected word, CAS result.
    pub tmp: [Reg; 5],
}

impl LockRegs {
    fn clobbers(&self) -> RegSet {
        RegSet::of(&self.tmp)
    }

    fn check(&self) -> Result<(), TemplateError> {
        let mut all = vec![self.thread, self.obj];
        all.extend(self.tmp);
        for (i, r) in all.iter().enumerate() {
            if r.0 > 30 || all[..i].contains(r) {
                return Err(TemplateError::Registers);
            }
        }
        Ok(())
    }

    /// The checked registers as the numbers dynasm takes, and the layout's
    /// offsets as immediates.
    fn operands(&self, layout: &LockStackLayout) -> Result<Operands, TemplateError> {
        self.check()?;
        Ok(Operands {
            top_off: uimm12(layout.top, 4)?,
            end: uimm12(layout.end, 1)?,
            t: self.thread.0,
            o: self.obj.0,
            tmp: self.tmp.map(|r| r.0),
        })
    }
}

/// What both lock templates emit with (see [`LockRegs::operands`]).
struct Operands {
    top_off: u32,
    end: u32,
    t: u8,
    o: u8,
    tmp: [u8; 5],
}

/// `monitorenter`'s lightweight fast path.
#[derive(Clone, Copy, Debug)]
pub struct LockEnter {
    /// Registers.
    pub regs: LockRegs,
    /// The lock-stack's offsets.
    pub layout: LockStackLayout,
}

impl Template for LockEnter {
    fn name(&self) -> &'static str {
        "lightweight monitor enter"
    }
    fn clobbers(&self) -> RegSet {
        self.regs.clobbers()
    }
    fn budget(&self) -> usize {
        18
    }
    fn emit<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let Operands {
            top_off,
            end,
            t,
            o,
            tmp: [p, a, m, e, c],
        } = self.regs.operands(&self.layout)?;
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
            ; tbnz X(m), #1, =>slow
            ; orr XSP(e), X(m), #1
            ; and XSP(m), X(m), #0xffff_ffff_ffff_fffe
            ; mov X(c), X(e)
            ; casa X(c), X(m), [X(o)]
            ; cmp X(c), X(e)
            ; b.ne =>slow
            ; push:
            ; str X(o), [X(a)]
            ; add WSP(p), WSP(p), #8
            ; str W(p), [X(t), top_off]
        );
        Ok(())
    }
}

/// `monitorexit`'s lightweight fast path.
#[derive(Clone, Copy, Debug)]
pub struct LockExit {
    /// Registers.
    pub regs: LockRegs,
    /// The lock-stack's offsets.
    pub layout: LockStackLayout,
}

impl Template for LockExit {
    fn name(&self) -> &'static str {
        "lightweight monitor exit"
    }
    fn clobbers(&self) -> RegSet {
        self.regs.clobbers()
    }
    fn budget(&self) -> usize {
        20
    }
    fn emit<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let Operands {
            top_off,
            end,
            t,
            o,
            tmp: [p, a, m, e, c],
        } = self.regs.operands(&self.layout)?;
        let slow = labels.slow;
        dynasm!(ops
            ; .arch aarch64
            ; ldr W(p), [X(t), top_off]
            ; cmp WSP(p), #end
            ; b.hi =>slow
            ; add X(a), X(t), X(p)
            ; ldur X(m), [X(a), -8]
            ; cmp X(m), X(o)
            ; b.ne =>slow
            ; ldur X(m), [X(a), -16]
            ; cmp X(m), X(o)
            ; b.eq >pop
            ; ldr X(e), [X(o)]
            ; and XSP(e), X(e), #0xffff_ffff_ffff_fffc
            ; orr XSP(e), X(e), #0x8000_0000_0000_0000
            ; orr XSP(m), X(e), #1
            ; mov X(c), X(e)
            ; casl X(c), X(m), [X(o)]
            ; cmp X(c), X(e)
            ; b.ne =>slow
            ; pop:
            ; sub WSP(p), WSP(p), #8
            ; str W(p), [X(t), top_off]
        );
        Ok(())
    }
}
