//! The x86-64 emitter of the shared guessing-enter description
//! ([`crate::template::LockEnterGuessing`]): the instructions are
//! `LockEnter::emit_guessing`'s (`lock.rs`, which lists them: 11 when the
//! guess is right); this adapts the description to it, so a JIT (or a
//! table of templates) emits the guessing enter through [`Emit`] on either
//! ISA.

use dynasmrt::x64::X64Relocation;

use super::X64Asm;
use crate::template::{Emit, Labels, LockEnterGuessing, TemplateError};

impl Emit<X64Relocation> for LockEnterGuessing {
    fn emit_checked<A: X64Asm>(&self, ops: &mut A, labels: Labels) -> Result<(), TemplateError> {
        self.enter.emit_guessing(ops, labels, self.header)
    }
}
