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
//! Exit, 18 instructions on a last-level unlock, 10 on a recursive one
//! (no bounds instruction: the low byte of an inactive thread's top is the
//! empty lock-stack's, see [`crate::x64::lock`]):
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
//! The shared-memory protocol is the Rust fast path's, which loom checks
//! (see [`crate::x64::lock`]); the lock-stack stores go to the thread
//! block only. Requires ARMv8.1 LSE (`casa`/`casl`).

use dynasmrt::dynasm;

use super::{uimm12, Aarch64Asm, Labels, Template, TemplateError};
use crate::layout::LockStackLayout;
use crate::reg::{LockRegError, Reg, RegSet};

/// The registers of an AArch64 lock template, checked at construction:
/// the thread block, the object (its header word's address), and five
/// temporaries, all distinct x0–x30. The same shape as
/// [`crate::x64::LockRegs`] (constructor, error type, accessors); only the
/// number of temporaries differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockRegs {
    thread: Reg,
    obj: Reg,
    tmp: [Reg; 5],
}

impl LockRegs {
    /// `thread`: the thread block; `obj`: the object; `tmp`: top, slot
    /// address, mark, expected word, CAS result. All distinct, each x0–x30
    /// (31 is the zero register or sp, never an operand).
    pub fn new(thread: Reg, obj: Reg, tmp: [Reg; 5]) -> Result<LockRegs, LockRegError> {
        let mut all = vec![thread, obj];
        all.extend(tmp);
        for (i, &r) in all.iter().enumerate() {
            if r.0 > 30 {
                return Err(LockRegError::NotARegister(r));
            }
            if all[..i].contains(&r) {
                return Err(LockRegError::Aliased(r));
            }
        }
        Ok(LockRegs { thread, obj, tmp })
    }

    /// The thread register.
    pub fn thread(&self) -> Reg {
        self.thread
    }

    /// The object register.
    pub fn obj(&self) -> Reg {
        self.obj
    }

    /// The temporaries, in the order given to [`LockRegs::new`].
    pub fn temps(&self) -> [Reg; 5] {
        self.tmp
    }

    /// What a lock template writes (NZCV besides): the temporaries.
    pub fn clobbers(&self) -> RegSet {
        RegSet::of(&self.tmp)
    }

    /// The registers as the numbers dynasm takes, and the layout's offsets
    /// as immediates.
    fn operands(&self, layout: &LockStackLayout) -> Result<Operands, TemplateError> {
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
        18
    }
    fn emit<A: Aarch64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        self.emit_with(ops, labels, None)
    }
}

/// Why [`LockExit::emit_expecting`] refused its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExpectingError {
    /// The guess register cannot be used (see the method).
    Register(LockRegError),
    /// The template itself cannot be emitted.
    Template(TemplateError),
}

impl std::fmt::Display for ExpectingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExpectingError::Register(e) => write!(f, "the expected-word register: {e}"),
            ExpectingError::Template(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ExpectingError {}

impl LockExit {
    /// The exit with its expected header word taken from register `word`
    /// instead of loaded from the header (as the x86-64
    /// `LockExit::emit_expecting`): pass the `mark` register (`tmp[2]`) of
    /// the [`LockEnter`] that took this lock, kept live by the JIT between
    /// the two (after a first-level enter it holds the word enter's CAS
    /// stored). Saves the exit's load of the header and its latency (17
    /// instructions instead of 18; the recursive path unchanged).
    ///
    /// Any value is safe: the expected word still gets lock bits 00 and the
    /// own-word bit forced, so the CAS succeeds only on a word the loaded
    /// form would have accepted, with the object on top of this thread's
    /// lock-stack and not recursive (the checks before it are unchanged,
    /// done in `tmp[4]` here so that `tmp[2]` still holds the guess). A
    /// wrong guess fails the CAS and goes to `slow` with nothing changed.
    ///
    /// `word` is any general register (0–30) except `tmp[0]`, `tmp[1]` and
    /// `tmp[4]` (written before the guess is read); it is only read.
    pub fn emit_expecting<A: Aarch64Asm>(
        &self,
        ops: &mut A,
        labels: Labels,
        word: Reg,
    ) -> Result<(), ExpectingError> {
        if word.0 > 30 {
            return Err(ExpectingError::Register(LockRegError::NotARegister(word)));
        }
        let tmp = self.regs.tmp;
        if [tmp[0], tmp[1], tmp[4]].contains(&word) {
            return Err(ExpectingError::Register(LockRegError::Aliased(word)));
        }
        self.emit_with(ops, labels, Some(word))
            .map_err(ExpectingError::Template)
    }

    fn emit_with<A: Aarch64Asm>(
        &self,
        ops: &mut A,
        labels: Labels,
        word: Option<Reg>,
    ) -> Result<(), TemplateError> {
        let Operands {
            top_off,
            end: _,
            t,
            o,
            tmp: [p, a, m, e, c],
        } = self.regs.operands(&self.layout)?;
        let slow = labels.slow;
        // The lock-stack checks' scratch: `m`, or `c` when `m` may hold the
        // guess.
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
