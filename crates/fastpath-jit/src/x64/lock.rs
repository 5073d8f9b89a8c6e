//! Lightweight monitor enter and exit (HotSpot lightweight locking,
//! `c2_MacroAssembler_x86.cpp` `fast_lock_lightweight` /
//! `fast_unlock_lightweight`) against fastpath's thread block.
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
//! Exit, 12 instructions on a last-level unlock, 6 on a recursive one:
//! ```text
//!   movzx top32, byte [thread+top_off]   ; low byte: an inactive thread's reads as empty
//!   cmp   obj, [thread+top-8] ; jne slow ; not on top (or empty, or inactive: the sentinel)
//!   cmp   obj, [thread+top-16] ; je pop  ; recursive
//!   mov   rax, [obj]
//!   and   rax, -4 ; bts rax, 63          ; expected: lock bits 00, own-word bit set
//!   lea   mark, [rax+1]                  ; new: lock bits 01
//!   lock cmpxchg [obj], mark ; jne slow  ; the one shared write (releases)
//! pop:
//!   sub   dword [thread+top_off], 8
//! ```
//! [`LockExit::emit_expecting`] is the same exit with the expected word
//! taken from a register (enter's `mark`, kept live across a call-free
//! critical section) instead of `mov rax, [obj]`: the load after enter's
//! locked CAS is the pair's cost beyond its two locked instructions.
//!
//! Exit has no bounds instruction: every valid `top` is below 256, and the
//! top of a thread that does not run lightweight locking
//! (`LOCK_STACK_INACTIVE`, layout version 2) has the empty lock-stack's top
//! as its low byte, so the byte load finds the sentinel (0, never an
//! object) on top and the on-top check sends it to `slow`: the bounds check
//! lives in the data, as HotSpot's `_bad_oop_sentinel` holds the underflow
//! check. Enter keeps its 32-bit compare (an inactive top must not look
//! like an empty lock-stack to a push).
//!
//! Shared-memory protocol: exactly the Rust fast path's
//! (`fastpath::sync` `LockStack::try_fast_enter` / `try_fast_exit`), the one
//! the library's loom models check: a relaxed load of the header, then one
//! locked CAS on it (x86 `lock cmpxchg` is a full barrier, so it acquires on
//! enter and releases on exit), and the lock-stack, private to its thread,
//! written only by plain stores into the thread block. loom cannot run
//! machine code; the tests check mechanically that the only write outside
//! the thread block is the locked CAS. Each exit CAS succeeds on exactly
//! the words the Rust CAS accepts (lock bits 00 and the own-word bit, which
//! a legacy record's word lacks): the Rust path tests the bit before its
//! CAS, the template folds it into the expected word (one instruction
//! fewer), so a legacy word fails the CAS instead of the test; both go to
//! `slow` with nothing changed.
//!
//! Every uncommon state (full lock-stack, a thread in monitor-only, legacy,
//! unregistered or exited mode, an inflated or GC-reserved header, a
//! header fast-locked by another thread, an object held below the top, a
//! lost CAS) jumps to `slow` having changed nothing; the stub calls the
//! library's enter or exit ([`crate::slow`]) with the thread block and the
//! object, which handles each case as `sync::enter_on`/`exit_on` do.

use dynasmrt::dynasm;

use super::{Labels, Template, X64Asm};
use crate::layout::LockStackLayout;
use crate::reg::{x64::*, Reg, RegSet};

pub use crate::reg::LockRegError;

/// The registers of a lock template, checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockRegs {
    thread: Reg,
    obj: Reg,
    top: Reg,
    mark: Reg,
}

impl LockRegs {
    /// `thread`: the thread block; `obj`: the object (the address of its
    /// header word); `top`, `mark`: temporaries. rax is used too (declared
    /// in the clobbers). All distinct, none rax or rsp.
    pub fn new(thread: Reg, obj: Reg, top: Reg, mark: Reg) -> Result<LockRegs, LockRegError> {
        let all = [thread, obj, top, mark];
        for (i, &r) in all.iter().enumerate() {
            if r.0 > 15 {
                return Err(LockRegError::NotARegister(r));
            }
            if r == RAX || r == RSP {
                return Err(LockRegError::Reserved(r));
            }
            if all[..i].contains(&r) {
                return Err(LockRegError::Aliased(r));
            }
        }
        Ok(LockRegs {
            thread,
            obj,
            top,
            mark,
        })
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
    pub fn temps(&self) -> [Reg; 2] {
        [self.top, self.mark]
    }

    /// What a lock template writes (RFLAGS besides): the temporaries and rax.
    pub fn clobbers(&self) -> RegSet {
        RegSet::of(&[self.top, self.mark, RAX])
    }

    /// Thread, object, top and mark as the register numbers dynasm takes.
    fn numbers(&self) -> [u8; 4] {
        [self.thread, self.obj, self.top, self.mark].map(|r| r.0)
    }
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
        15
    }
    fn emit<A: X64Asm>(&self, ops: &mut A, labels: Labels) {
        let [t, o, p, m] = self.regs.numbers();
        let (top_off, slow) = (self.layout.top, labels.slow);
        self.emit_bounds_and_recursion(ops, slow);
        dynasm!(ops ; .arch x64 ; mov Rq(m), QWORD [Rq(o)]);
        self.emit_cas_from_mark(ops, slow);
        dynasm!(ops
            ; .arch x64
            ; push:
            ; mov QWORD [Rq(t) + Rq(p)], Rq(o)
            ; add DWORD [Rq(t) + top_off], 8
        );
    }
}

impl LockEnter {
    /// The checks before any look at the header: a full lock-stack (or a
    /// thread not running lightweight locking) to `slow`, the object on
    /// top of the lock-stack to the `push` label that follows (recursive).
    /// Leaves `top` in its register.
    fn emit_bounds_and_recursion<A: X64Asm>(&self, ops: &mut A, slow: dynasmrt::DynamicLabel) {
        let [t, o, p, _] = self.regs.numbers();
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

    /// The lock from the header word in `mark`: an inflated or GC word
    /// goes to `slow`; else the CAS from the word with lock bits 01 to the
    /// word with 00 (`mark` keeps the latter), a lost CAS to `slow`.
    fn emit_cas_from_mark<A: X64Asm>(&self, ops: &mut A, slow: dynasmrt::DynamicLabel) {
        let [_, o, _, m] = self.regs.numbers();
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

    /// The enter with its CAS first trying a header word the JIT guesses
    /// instead of the one loaded from the object: pass the neutral header
    /// an object of the class gets at allocation (`Header::new(spare).raw()`
    /// in fastpath; its lock bits are forced to 01 here). When the object
    /// has never been hashed or locked differently, that is its header, and
    /// the pair runs with no load between its locked instructions.
    ///
    /// Why: x86-64's locked `cmpxchg` is a full fence, so the load of the
    /// header before enter's CAS waits for the previous exit's CAS and the
    /// CAS waits for the load: `fastpath jit --only pair` measures that one
    /// load as most of the lightweight pair's cost beyond parking_lot's
    /// (which expects a constant). parking_lot can guess because its
    /// unlocked word is 0; a JIT that knows the class can guess the same
    /// way.
    ///
    /// Any guess is safe. The bounds and recursive checks come first, as
    /// in [`LockEnter::emit`]; the guessed CAS succeeds only when the
    /// header is exactly the guess with lock bits 01 (unlocked), and then
    /// stores what the loaded form would (the same word with lock bits 00).
    /// A failed `lock cmpxchg` writes nothing and leaves the header it found
    /// in rax: from there the loaded form's checks and CAS run on that word
    /// (no second load). Common path 11 instructions when the guess is right
    /// (the loaded form: 15), 7 on a recursive enter; a wrong guess costs a
    /// failed CAS and 8 more. `mark` holds the locked word on success, as
    /// [`LockExit::emit_expecting`] wants.
    pub fn emit_guessing<A: X64Asm>(&self, ops: &mut A, labels: Labels, header: u64) {
        let [t, o, p, m] = self.regs.numbers();
        let (top_off, slow) = (self.layout.top, labels.slow);
        let guess = ((header & !0b11) | 0b01) as i64;
        self.emit_bounds_and_recursion(ops, slow);
        dynasm!(ops
            ; .arch x64
            ; mov rax, QWORD guess
            ; lea Rq(m), [rax - 1]
            ; lock cmpxchg QWORD [Rq(o)], Rq(m)
            ; je >push
            // rax: the header the failed CAS found.
            ; mov Rq(m), rax
        );
        self.emit_cas_from_mark(ops, slow);
        dynasm!(ops
            ; .arch x64
            ; push:
            ; mov QWORD [Rq(t) + Rq(p)], Rq(o)
            ; add DWORD [Rq(t) + top_off], 8
        );
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
        12
    }
    fn emit<A: X64Asm>(&self, ops: &mut A, labels: Labels) {
        self.emit_with(ops, labels, None);
    }
}

impl LockExit {
    /// The exit with its expected header word taken from register `word`
    /// instead of loaded from the header: pass the `mark` register of the
    /// [`LockEnter`] that took this lock, kept live by the JIT between the
    /// two (after a first-level enter it holds the word enter's CAS stored,
    /// which is the header's until the exit unless a contender inflated it).
    ///
    /// Why: x86-64's locked `cmpxchg` is a full fence, so a load after
    /// enter's CAS (the exit's load of the header) cannot complete before
    /// it, and exit's CAS waits for that load: the load's latency is paid
    /// on every pair (`fastpath jit --only pair` measures it). The register
    /// costs nothing.
    ///
    /// Any value is safe: the expected word still gets lock bits 00 and the
    /// own-word bit forced (the same two instructions), so the CAS succeeds
    /// only on a word the loaded form would have accepted, with the object
    /// on top of this thread's lock-stack and not recursive (the checks
    /// before it are unchanged). A wrong guess (a recursive or slow-path
    /// enter left something else there, or a call in between reused the
    /// register) fails the CAS and goes to `slow` with nothing changed,
    /// where the library's exit does the unlock. Same instruction count as
    /// the loaded form (12; the recursive path 6).
    ///
    /// `word` may be any general register except the `top` temporary
    /// (written before the guess is read) and rsp; it is only read, so it
    /// is not among the clobbers (it may be `mark` or rax, which are).
    pub fn emit_expecting<A: X64Asm>(
        &self,
        ops: &mut A,
        labels: Labels,
        word: Reg,
    ) -> Result<(), LockRegError> {
        if word.0 > 15 {
            return Err(LockRegError::NotARegister(word));
        }
        if word == RSP {
            return Err(LockRegError::Reserved(word));
        }
        if word == self.regs.top {
            return Err(LockRegError::Aliased(word));
        }
        self.emit_with(ops, labels, Some(word));
        Ok(())
    }

    fn emit_with<A: X64Asm>(&self, ops: &mut A, labels: Labels, word: Option<Reg>) {
        let [t, o, p, m] = self.regs.numbers();
        let (top_off, slow) = (self.layout.top, labels.slow);
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
}
