//! Lightweight monitor enter and exit (HotSpot lightweight locking,
//! `c2_MacroAssembler_x86.cpp` / `_aarch64.cpp` `fast_lock_lightweight` /
//! `fast_unlock_lightweight`) against fastpath's thread block; the
//! instructions are in each ISA's emitter (`x64/lock.rs`: 15 and 12 on the
//! first-level paths; `aarch64/lock.rs`: 18 and 18 with an LSE CAS), and
//! the enter guessing the header ([`LockEnterGuessing`]) on both.
//!
//! Enter: `top = u32 [thread+top_off]`; `top >= end` → slow (full, or a
//! thread not running lightweight locking); `[thread+top-8] == obj` → push
//! (recursive; a zero sentinel lies below the first entry); `mark = [obj]`;
//! `mark & 2` → slow (monitor or GC word: no CAS that must fail); CAS
//! `[obj]` from `mark | 1` to `mark & !1` (acquires) ≠ → slow; push:
//! `[thread+top] = obj; top += 8`.
//!
//! Exit: `top = u8 [thread+top_off]` (the low byte); `[thread+top-8] !=
//! obj` → slow (not on top, or empty, or inactive: the sentinel);
//! `[thread+top-16] == obj` → pop (recursive); expected = `[obj] & !3 |
//! 1<<63` (fast-locked, own word); CAS `[obj]` from expected to `expected |
//! 1` (releases) ≠ → slow; pop: `top -= 8`.
//!
//! Exit has no bounds check: every valid `top` is below 256, and the top
//! of a thread that does not run lightweight locking
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
//! CAS on it (x86 `lock cmpxchg`, a full barrier; AArch64 `casa` on enter,
//! `casl` on exit: the Rust path's Acquire and Release), and the
//! lock-stack, private to its thread, written only by plain stores into the
//! thread block. loom cannot run machine code; the tests check mechanically
//! that the only write outside the thread block is the CAS. Each exit CAS
//! succeeds on exactly the words the Rust CAS accepts (lock bits 00 and the
//! own-word bit, which a legacy record's word lacks): the Rust path tests
//! the bit before its CAS, the templates fold it into the expected word (one
//! instruction fewer), so a legacy word fails the CAS instead of the test;
//! both go to `slow` with nothing changed.
//!
//! Every uncommon state (full lock-stack, a thread in monitor-only, legacy,
//! unregistered or exited mode, an inflated or GC-reserved header, a
//! header fast-locked by another thread, an object held below the top, a
//! lost CAS) branches to `slow` having changed nothing; the stub calls the
//! library's enter or exit ([`crate::slow`]) with the thread block and the
//! object, which handles each case as `sync::enter_on`/`exit_on` do.

use dynasmrt::DynasmLabelApi;

use super::contract::{Emit, Labels, SlowCall, Template, TemplateError};
use crate::isa::{Arch, Isa};
use crate::layout::LockStackLayout;
use crate::reg::{x64::RAX, Reg, RegError, RegSet};
use crate::slow::LibraryPath;

/// The registers of a lock template: the thread block, the object (its
/// header word's address) and the temporaries, in the order of their
/// roles: `top`, `mark`, then AArch64's `slot` (the entry's address),
/// `expected` and `result` (the CAS's). x86-64 uses the first two and rax
/// (`cmpxchg`'s operand: the expected word and the result); AArch64 all
/// five.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockRegs {
    thread: Reg,
    obj: Reg,
    temps: [Reg; LockRegs::MAX_TEMPS],
    len: u8,
}

impl LockRegs {
    /// The temporaries AArch64's form needs (x86-64's: 2).
    pub const MAX_TEMPS: usize = 5;

    /// `thread`, `obj` and 2 to 5 temporaries (see the type), all distinct,
    /// each a general register of some ISA (0–30). What an ISA reserves
    /// (x86-64: rax, rsp, registers above 15) and how many temporaries it
    /// needs are checked when a template is emitted ([`Template::check`]).
    pub fn new(thread: Reg, obj: Reg, temps: &[Reg]) -> Result<LockRegs, TemplateError> {
        if !(2..=LockRegs::MAX_TEMPS).contains(&temps.len()) {
            return Err(TemplateError::Temps {
                needed: if temps.len() < 2 { 2 } else { LockRegs::MAX_TEMPS },
                given: temps.len(),
            });
        }
        let mut all = vec![thread, obj];
        all.extend_from_slice(temps);
        Isa::Aarch64.check_operands(&all)?;
        let mut t = [temps[0]; LockRegs::MAX_TEMPS];
        t[..temps.len()].copy_from_slice(temps);
        Ok(LockRegs {
            thread,
            obj,
            temps: t,
            len: temps.len() as u8,
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
    pub fn temps(&self) -> &[Reg] {
        &self.temps[..usize::from(self.len)]
    }

    /// How many temporaries `isa`'s form uses.
    pub fn needed(isa: Isa) -> usize {
        match isa {
            Isa::X64 => 2,
            Isa::Aarch64 => LockRegs::MAX_TEMPS,
        }
    }

    /// The temporaries `isa`'s form uses (as many as there are).
    fn used(&self, isa: Isa) -> &[Reg] {
        let t = self.temps();
        &t[..LockRegs::needed(isa).min(t.len())]
    }

    /// Every register `isa`'s form takes: thread, object, its temporaries
    /// (and rax on x86-64).
    pub fn operands(&self, isa: Isa) -> Vec<Reg> {
        let mut v = vec![self.thread, self.obj];
        v.extend_from_slice(self.used(isa));
        if isa == Isa::X64 {
            v.push(RAX);
        }
        v
    }

    /// What a lock template writes on `isa` (the flags besides): its
    /// temporaries, and rax on x86-64.
    pub fn clobbers(&self, isa: Isa) -> RegSet {
        let s = RegSet::of(self.used(isa));
        match isa {
            Isa::X64 => s.with(RAX),
            Isa::Aarch64 => s,
        }
    }

    /// The roles checked for `isa`: enough temporaries, rax (x86-64's CAS
    /// operand) in no role, then [`Isa::check_operands`].
    pub fn check(&self, isa: Isa) -> Result<(), TemplateError> {
        let needed = LockRegs::needed(isa);
        if self.temps().len() < needed {
            return Err(TemplateError::Temps {
                needed,
                given: self.temps().len(),
            });
        }
        if isa == Isa::X64 && self.operands(isa)[..2 + needed].contains(&RAX) {
            return Err(TemplateError::Register(RegError::Reserved(RAX)));
        }
        isa.check_operands(&self.operands(isa))
            .map_err(TemplateError::Register)
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

/// The Template impl of a lock operation: its registers' roles, clobbers
/// and checks are [`LockRegs`]'s, its slow call the library's `$path` on
/// (thread, object); the operations differ in name and budget.
macro_rules! lock_operation {
    ($t:ty, $name:literal, x64: $x64:literal, aarch64: $a64:literal, $path:expr) => {
        impl Template for $t {
            fn name(&self) -> &'static str {
                $name
            }
            fn operands(&self, isa: Isa) -> Vec<Reg> {
                self.regs.operands(isa)
            }
            fn clobbers(&self, isa: Isa) -> RegSet {
                self.regs.clobbers(isa)
            }
            fn budget(&self, isa: Isa) -> usize {
                match isa {
                    Isa::X64 => $x64,
                    Isa::Aarch64 => $a64,
                }
            }
            fn slow_call(&self) -> Option<SlowCall> {
                Some(SlowCall::library(
                    $path,
                    &[self.regs.thread, self.regs.obj],
                    None,
                ))
            }
            fn check(&self, isa: Isa) -> Result<(), TemplateError> {
                self.regs.check(isa)
            }
        }
    };
}

lock_operation!(
    LockEnter,
    "lightweight monitor enter",
    x64: 15,
    aarch64: 18,
    LibraryPath::MonitorEnter
);

impl LockEnter {
    /// This enter with its CAS first trying `header`, the neutral header
    /// word the JIT guesses for the object's class ([`LockEnterGuessing`]).
    pub fn guessing(self, header: u64) -> LockEnterGuessing {
        LockEnterGuessing { enter: self, header }
    }

    /// Emits [`LockEnter::guessing`]`(header)`.
    pub fn emit_guessing<R: Arch, A: DynasmLabelApi<Relocation = R>>(
        &self,
        ops: &mut A,
        labels: Labels,
        header: u64,
    ) -> Result<(), TemplateError>
    where
        LockEnterGuessing: Emit<R>,
    {
        self.guessing(header).emit(ops, labels)
    }
}

/// The enter whose CAS first tries a header word the JIT guesses instead
/// of the one loaded from the object: the neutral header an object of the
/// class gets at allocation (`Header::new()`'s word, or
/// `Header::with_spare_bits`'s; fastpath's heap: `gc::layout::INITIAL_HEADER`;
/// its lock bits are forced to 01 here). When the object has never been
/// hashed or locked differently, that is its header, and the enter runs
/// with no load of the header before its CAS.
///
/// Any guess is safe. The bounds and recursive checks come first, as in
/// the loaded form; the guessed CAS succeeds only when the header is
/// exactly the guess with lock bits 01 (unlocked), and then stores what
/// the loaded form would (the same word with lock bits 00). A failed CAS
/// writes nothing and returns the header it found: from there the loaded
/// form's checks and CAS run on that word (no second load). `mark` holds
/// the locked word on success, as [`LockExitExpecting`] wants. Same
/// registers and clobbers as the loaded form.
///
/// x86-64: 11 instructions when the guess is
/// right (the loaded form: 15), 7 on a recursive enter; why it pays there:
/// a locked `cmpxchg` is a full fence, so the loaded form's header load
/// waits for the previous exit's CAS (`fastpath jit --only pair`).
/// AArch64: the guess materialised by `movz`/`movk` (one per non-zero
/// 16-bit half: 2 for fastpath's neutral header), then `sub; mov; casa;
/// cmp; b.eq` to the push: 17 with fastpath's header (the loaded form:
/// 18), 10 on a recursive enter. Whether it is faster there (`casa` is no
/// full fence, so the loaded form's load is not held behind the previous
/// exit's CAS the same way) is unmeasured: it needs AArch64 hardware.
#[derive(Clone, Copy, Debug)]
pub struct LockEnterGuessing {
    /// The enter.
    pub enter: LockEnter,
    /// The guessed header word (its lock bits are ignored: 01 is tried).
    pub header: u64,
}

impl LockEnterGuessing {
    /// The word the CAS expects: the guess with lock bits 01.
    pub fn expected(&self) -> u64 {
        (self.header & !0b11) | 0b01
    }
}

impl Template for LockEnterGuessing {
    fn name(&self) -> &'static str {
        "lightweight monitor enter guessing the header"
    }
    fn operands(&self, isa: Isa) -> Vec<Reg> {
        self.enter.operands(isa)
    }
    fn clobbers(&self, isa: Isa) -> RegSet {
        self.enter.clobbers(isa)
    }
    /// With the guess right: x86-64 11; AArch64 15 plus one `movz`/`movk`
    /// per non-zero 16-bit half of the guess (at least one).
    fn budget(&self, isa: Isa) -> usize {
        match isa {
            Isa::X64 => 11,
            Isa::Aarch64 => {
                let e = self.expected();
                let halves = (0..4).filter(|k| (e >> (16 * k)) & 0xffff != 0).count();
                15 + halves.max(1)
            }
        }
    }
    fn slow_call(&self) -> Option<SlowCall> {
        self.enter.slow_call()
    }
    fn check(&self, isa: Isa) -> Result<(), TemplateError> {
        self.enter.check(isa)
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

impl LockExit {
    /// This exit with its expected header word taken from `word` instead of
    /// loaded from the header ([`LockExitExpecting`]).
    pub fn expecting(self, word: Reg) -> LockExitExpecting {
        LockExitExpecting { exit: self, word }
    }

    /// Emits [`LockExit::expecting`]`(word)`.
    pub fn emit_expecting<R: Arch, A: DynasmLabelApi<Relocation = R>>(
        &self,
        ops: &mut A,
        labels: Labels,
        word: Reg,
    ) -> Result<(), TemplateError>
    where
        LockExitExpecting: Emit<R>,
    {
        self.expecting(word).emit(ops, labels)
    }
}

// `monitor_exit`'s status (1: not the owner) is for the JIT to read in the
// result register it chooses; the template resumes without it.
lock_operation!(
    LockExit,
    "lightweight monitor exit",
    x64: 12,
    aarch64: 18,
    LibraryPath::MonitorExit
);

/// The exit with its expected header word taken from register `word`
/// instead of loaded from the header: pass the `mark` register of the
/// [`LockEnter`] that took this lock, kept live by the JIT between the two
/// (after a first-level enter it holds the word enter's CAS stored, which
/// is the header's until the exit unless a contender inflated it).
///
/// Why: on x86-64 a locked `cmpxchg` is a full fence, so the exit's load
/// of the header after enter's CAS cannot complete before it, and the
/// exit's CAS waits for that load: its latency is paid on every pair
/// (`fastpath jit --only pair` measures it). The register costs nothing.
/// x86-64: 12 instructions as the loaded form (11 when `word` is rax);
/// AArch64: 17 instead of 18 (its lock-stack checks use the `result`
/// temporary so that `mark` keeps the guess); the recursive paths
/// unchanged.
///
/// Any value is safe: the expected word still gets lock bits 00 and the
/// own-word bit forced (the same instructions), so the CAS succeeds only on
/// a word the loaded form would have accepted, with the object on top of
/// this thread's lock-stack and not recursive (the checks before it are
/// unchanged). A wrong guess (a recursive or slow-path enter left
/// something else there, or a call in between reused the register) fails
/// the CAS and goes to `slow` with nothing changed, where the library's
/// exit does the unlock.
///
/// `word` is only read (not among the clobbers; it may be `mark`, or rax
/// on x86-64); it may not be a register written before it is read: `top`
/// (and on AArch64 `slot` and `result`), nor rsp.
#[derive(Clone, Copy, Debug)]
pub struct LockExitExpecting {
    /// The exit.
    pub exit: LockExit,
    /// The register holding the expected header word.
    pub word: Reg,
}

impl Template for LockExitExpecting {
    fn name(&self) -> &'static str {
        "lightweight monitor exit expecting a register's word"
    }
    fn operands(&self, isa: Isa) -> Vec<Reg> {
        self.exit.operands(isa)
    }
    fn clobbers(&self, isa: Isa) -> RegSet {
        self.exit.clobbers(isa)
    }
    fn budget(&self, isa: Isa) -> usize {
        match isa {
            Isa::X64 => 12,
            Isa::Aarch64 => 17,
        }
    }
    fn slow_call(&self) -> Option<SlowCall> {
        self.exit.slow_call()
    }
    fn check(&self, isa: Isa) -> Result<(), TemplateError> {
        self.exit.check(isa)?;
        isa.check_operand(self.word)?;
        let t = self.exit.regs.temps();
        let written = match isa {
            Isa::X64 => vec![t[0]],
            // top, slot, result.
            Isa::Aarch64 => vec![t[0], t[2], t[4]],
        };
        if written.contains(&self.word) {
            return Err(TemplateError::Register(RegError::Aliased(self.word)));
        }
        Ok(())
    }
}
