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
//! Exit, 14 instructions on a last-level unlock, 8 on a recursive one:
//! ```text
//!   mov   top32, [thread+top_off]
//!   cmp   top32, end ; ja slow           ; not a lightweight thread
//!   cmp   obj, [thread+top-8] ; jne slow ; not on top (or empty: the sentinel)
//!   cmp   obj, [thread+top-16] ; je pop  ; recursive
//!   mov   rax, [obj]
//!   and   rax, -4 ; bts rax, 63          ; expected: lock bits 00, own-word bit set
//!   lea   mark, [rax+1]                  ; new: lock bits 01
//!   lock cmpxchg [obj], mark ; jne slow  ; the one shared write (releases)
//! pop:
//!   sub   dword [thread+top_off], 8
//! ```
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

/// Registers a lock template cannot use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockRegError {
    /// Two roles share a register.
    Aliased(Reg),
    /// rax is the CAS's implicit operand; rsp is the stack.
    Reserved(Reg),
    /// Not an x86-64 general register.
    NotARegister(Reg),
}

impl std::fmt::Display for LockRegError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockRegError::Aliased(r) => write!(f, "{r:?} is used for two roles of a lock template"),
            LockRegError::Reserved(r) => {
                write!(
                    f,
                    "{r:?} cannot be a lock template's operand (rax: the CAS's; rsp: the stack)"
                )
            }
            LockRegError::NotARegister(r) => write!(f, "{r:?} is not an x86-64 general register"),
        }
    }
}

impl std::error::Error for LockRegError {}

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

    fn clobbers(&self) -> RegSet {
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
        let (top_off, end, slow) = (self.layout.top, self.layout.end, labels.slow);
        dynasm!(ops
            ; .arch x64
            ; mov Rd(p), DWORD [Rq(t) + top_off]
            ; cmp Rd(p), end
            ; jae =>slow
            ; cmp Rq(o), QWORD [Rq(t) + Rq(p) - 8]
            ; je >push
            ; mov Rq(m), QWORD [Rq(o)]
            ; test Rd(m), 2
            ; jnz =>slow
            ; mov rax, Rq(m)
            ; or rax, 1
            ; and Rq(m), -2
            ; lock cmpxchg QWORD [Rq(o)], Rq(m)
            ; jne =>slow
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
        14
    }
    fn emit<A: X64Asm>(&self, ops: &mut A, labels: Labels) {
        let [t, o, p, m] = self.regs.numbers();
        let (top_off, end, slow) = (self.layout.top, self.layout.end, labels.slow);
        dynasm!(ops
            ; .arch x64
            ; mov Rd(p), DWORD [Rq(t) + top_off]
            ; cmp Rd(p), end
            ; ja =>slow
            ; cmp Rq(o), QWORD [Rq(t) + Rq(p) - 8]
            ; jne =>slow
            ; cmp Rq(o), QWORD [Rq(t) + Rq(p) - 16]
            ; je >pop
            ; mov rax, QWORD [Rq(o)]
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
