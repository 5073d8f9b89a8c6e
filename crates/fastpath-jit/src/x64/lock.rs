//! x86-64 lightweight monitor enter and exit ([`crate::template::lock`]:
//! the protocol), HotSpot's `fast_lock_lightweight` /
//! `fast_unlock_lightweight` shapes with the temporaries `top` and `mark`
//! and rax as `cmpxchg`'s operand.
//!
//! Enter, 15 instructions on a first-level lock, 7 on a recursive one:
//! ```text
//!   mov   top32, [thread+top_off]
//!   cmp   top32, end ; jae slow          ; full, or not a lightweight thread
//!   cmp   obj, [thread+top-8] ; je push  ; on top: recursive (sentinel 0 below the first)
//!   mov   mark, [obj]
//!   test  mark32, 2 ; jnz slow           ; monitor (10) or GC (11): no failing CAS
//!   mov   rax, mark ; or rax, 1          ; expected: the word with lock bits 01
//!   and   mark, -2                       ; new: lock bits 00
//!   lock cmpxchg [obj], mark ; jne slow  ; the one shared write (acquires)
//! push:
//!   mov   [thread+top], obj
//!   add   dword [thread+top_off], 8
//! ```
//! The enter guessing the header (`LockEnterGuessing`): 11 when the guess
//! is right, `mov rax, guess ; lea mark, [rax-1]` and the CAS in place of
//! the load (its emitter's comment lists it).
//!
//! Exit, 12 instructions on a last-level unlock, 6 on a recursive one:
//! ```text
//!   movzx top32, byte [thread+top_off]   ; low byte: an inactive thread's reads as empty
//!   cmp   obj, [thread+top-8] ; jne slow ; not on top (or empty, or inactive: the sentinel)
//!   cmp   obj, [thread+top-16] ; je pop  ; recursive
//!   mov   rax, [obj]                     ; (expecting: mov rax, word; none if word is rax)
//!   and   rax, -4 ; bts rax, 63          ; expected: lock bits 00, own-word bit set
//!   lea   mark, [rax+1]                  ; new: lock bits 01
//!   lock cmpxchg [obj], mark ; jne slow  ; the one shared write (releases)
//! pop:
//!   sub   dword [thread+top_off], 8
//! ```

use dynasmrt::{dynasm, x64::X64Relocation, DynamicLabel};

use super::X64Asm;
use crate::reg::{x64::RAX, Reg};
use crate::template::Labels;
use crate::template::{
    Emit, LockEnter, LockEnterGuessing, LockExit, LockExitExpecting, LockRegs, TemplateError,
};

/// Thread, object, top and mark as the register numbers dynasm takes.
fn numbers(regs: &LockRegs) -> [u8; 4] {
    let t = regs.temps();
    [regs.thread(), regs.obj(), t[0], t[1]].map(|r| r.0)
}

impl Emit<X64Relocation> for LockEnter {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let [_, o, _, m] = numbers(&self.regs);
        self.emit_bounds_and_recursion(ops, labels.slow);
        dynasm!(ops ; .arch x64 ; mov Rq(m), QWORD [Rq(o)]);
        self.emit_cas_from_mark(ops, labels.slow);
        self.emit_push(ops);
        Ok(())
    }
}

impl LockEnter {
    /// The checks before any look at the header: a full lock-stack (or a
    /// thread not running lightweight locking) to `slow`, the object on
    /// top of the lock-stack to the `push` label that follows (recursive).
    /// Leaves `top` in its register.
    fn emit_bounds_and_recursion<A: X64Asm>(&self, ops: &mut A, slow: DynamicLabel) {
        let [t, o, p, _] = numbers(&self.regs);
        let (top_off, end) = (self.layout.top, self.layout.end);
        dynasm!(ops
            ; .arch x64
            ; mov Rd(p), DWORD [Rq(t) + top_off]
            ; cmp Rd(p), end
            ; jae =>slow
            ; cmp Rq(o), QWORD [Rq(t) + Rq(p) - 8]
            ; je >push
        );
    }

    /// The `push` label the recursive check and the CAS reach: the object
    /// onto the lock-stack.
    fn emit_push<A: X64Asm>(&self, ops: &mut A) {
        let [t, o, p, _] = numbers(&self.regs);
        let top_off = self.layout.top;
        dynasm!(ops
            ; .arch x64
            ; push:
            ; mov QWORD [Rq(t) + Rq(p)], Rq(o)
            ; add DWORD [Rq(t) + top_off], 8
        );
    }

    /// The lock from the header word in `mark`: an inflated or GC word
    /// goes to `slow`; else the CAS from the word with lock bits 01 to the
    /// word with 00 (`mark` keeps the latter), a lost CAS to `slow`.
    fn emit_cas_from_mark<A: X64Asm>(&self, ops: &mut A, slow: DynamicLabel) {
        let [_, o, _, m] = numbers(&self.regs);
        dynasm!(ops
            ; .arch x64
            ; test Rd(m), 2
            ; jnz =>slow
            ; mov rax, Rq(m)
            ; or rax, 1
            ; and Rq(m), -2
            ; lock cmpxchg QWORD [Rq(o)], Rq(m)
            ; jne =>slow
        );
    }
}

/// The enter guessing the header ([`LockEnterGuessing`]): the loaded
/// form's bounds and recursive checks, then `lock cmpxchg` from the guess
/// with lock bits 01 (in rax) to it with 00 (`mark`, `lea m, [rax - 1]`);
/// a hit to the push; a miss leaves the header it found in rax, from
/// which the loaded form's checks and CAS run (no second load). 11
/// instructions when the guess is right (the loaded form: 15), 7 on a
/// recursive enter; a wrong guess costs the failed CAS and 8 more.
///
/// Why it pays here: a locked `cmpxchg` is a full fence, so the loaded
/// form's header load waits for the previous exit's CAS and its CAS for
/// the load; `fastpath jit --only pair` measures that one load as most of
/// the lightweight pair's cost beyond parking_lot's (which expects a
/// constant, its unlocked word 0).
/// ```text
///   mov top, dword [thread + top_off] ; cmp top, end ; jae slow
///   cmp obj, [thread + top - 8] ; je push
///   mov rax, guess ; lea mark, [rax - 1]
///   lock cmpxchg [obj], mark ; je push
///   mov mark, rax ; (the loaded form's checks and CAS on mark)
/// push:
///   mov [thread + top], obj ; add dword [thread + top_off], 8
/// ```
impl Emit<X64Relocation> for LockEnterGuessing {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        let enter = &self.enter;
        let [_, o, _, m] = numbers(&enter.regs);
        let guess = self.expected() as i64;
        enter.emit_bounds_and_recursion(ops, labels.slow);
        dynasm!(ops
            ; .arch x64
            ; mov rax, QWORD guess
            ; lea Rq(m), [rax - 1]
            ; lock cmpxchg QWORD [Rq(o)], Rq(m)
            ; je >push
            // rax: the header the failed CAS found.
            ; mov Rq(m), rax
        );
        enter.emit_cas_from_mark(ops, labels.slow);
        enter.emit_push(ops);
        Ok(())
    }
}

impl Emit<X64Relocation> for LockExit {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        emit_exit(self, ops, labels, None);
        Ok(())
    }
}

impl Emit<X64Relocation> for LockExitExpecting {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        emit_exit(&self.exit, ops, labels, Some(self.word));
        Ok(())
    }
}

/// The exit, its expected word loaded from the header or taken from `word`.
fn emit_exit<A: X64Asm>(exit: &LockExit, ops: &mut A, labels: Labels, word: Option<Reg>) {
    let [t, o, p, m] = numbers(&exit.regs);
    let (top_off, slow) = (exit.layout.top, labels.slow);
    dynasm!(ops
        ; .arch x64
        ; movzx Rd(p), BYTE [Rq(t) + top_off]
        ; cmp Rq(o), QWORD [Rq(t) + Rq(p) - 8]
        ; jne =>slow
        ; cmp Rq(o), QWORD [Rq(t) + Rq(p) - 16]
        ; je >pop
    );
    match word {
        None => dynasm!(ops ; .arch x64 ; mov rax, QWORD [Rq(o)]),
        // `mov eax, eax`-style self-moves are skipped: rax is the guess.
        Some(w) if w == RAX => {}
        Some(w) => dynasm!(ops ; .arch x64 ; mov rax, Rq(w.0)),
    }
    dynasm!(ops
        ; .arch x64
        ; and rax, -4
        ; bts rax, 63
        ; lea Rq(m), [rax + 1]
        ; lock cmpxchg QWORD [Rq(o)], Rq(m)
        ; jne =>slow
        ; pop:
        ; sub DWORD [Rq(t) + top_off], 8
    );
}
